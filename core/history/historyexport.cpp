#include "core/history/historyexport.h"

#include "core/base/privatefiles.h"

#include <climits>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <functional>

namespace fieldscope::core {
namespace {

Json headerLine()
{
    return Json{{"format", "fieldscope-history"},
                {"formatVersion", kHistoryFormatVersion},
                {"generator", std::string("fieldscope ") + FIELDSCOPE_VERSION}};
}

Json versionLine(const HistoryStore::ScanRecord &r)
{
    return Json{{"type", "version"},
                {"scope", r.version.scope},
                {"resource", r.resource},
                {"uid", r.version.uid},
                {"resourceVersion", r.version.resourceVersion},
                {"eventType", historyEventTypeName(r.version.eventType)},
                {"observedAt", formatTimestampMs(r.version.observedAtMs)},
                {"object", *r.object}};
}

Json gapLine(const HistoryGap &g)
{
    return Json{{"type", "gap"},
                {"scope", g.scope},
                {"fromResourceVersion", g.fromRv},
                {"toResourceVersion", g.toRv},
                {"reason", g.reason},
                {"observedAt", formatTimestampMs(g.observedAtMs)}};
}

Error lineError(std::size_t line, const std::string &why, const std::string &path = {})
{
    return Error::make(ErrorCategory::Parse, "history file: " + why,
                       "line " + std::to_string(line) + (path.empty() ? "" : ", " + path));
}

// Type-checked reads of one line's members (house style: bytes we did not write). A member that
// is absent reads as the default; one of the wrong type is a Parse error naming line and path.
class LineReader
{
public:
    LineReader(const Json &j, std::size_t line) : m_j(j), m_line(line) {}

    Result<std::string> string(const char *name) const
    {
        auto it = m_j.find(name);
        if (it == m_j.end())
            return std::string();
        if (!it->is_string())
            return wrongType(name, "a string", *it);
        return it->get<std::string>();
    }
    Result<std::int64_t> integer(const char *name) const
    {
        auto it = m_j.find(name);
        if (it == m_j.end())
            return std::int64_t(0);
        if (it->is_number_integer()
            && !(it->is_number_unsigned() && it->get<std::uint64_t>() > std::uint64_t(INT64_MAX)))
            return it->get<std::int64_t>();
        return wrongType(name, "an integer", *it);
    }
    Result<std::int64_t> timestamp(const char *name) const
    {
        auto text = string(name);
        if (!text)
            return text.error();
        std::int64_t ms = 0;
        if (!parseTimestampMs(*text, &ms))
            return lineError(m_line, std::string("bad ") + name + " (expected \"2026-07-20T09:14:03.123Z\")",
                             pointer(name));
        return ms;
    }
    Error error(const std::string &why, const char *name) const { return lineError(m_line, why, pointer(name)); }

private:
    static std::string pointer(const char *name) { return "/" + jsonPointerEscape(name); }
    Error wrongType(const char *name, const char *expected, const Json &found) const
    {
        return lineError(m_line, std::string(name) + " must be " + expected + ", found " + found.type_name(),
                         pointer(name));
    }

    const Json &m_j;
    std::size_t m_line;
};

// Unwraps a Result<T> into `out` or returns its error from the enclosing function.
#define FS_READ(out, expr)                                                                                             \
    do {                                                                                                               \
        auto r_ = (expr);                                                                                              \
        if (!r_)                                                                                                       \
            return r_.error();                                                                                         \
        (out) = std::move(*r_);                                                                                        \
    } while (false)

Result<ExportedVersion> readVersion(const Json &j, std::size_t line)
{
    const LineReader r(j, line);
    ExportedVersion v;
    FS_READ(v.scope.id, r.string("scope"));
    FS_READ(v.scope.resource, r.string("resource"));
    FS_READ(v.uid, r.string("uid"));
    FS_READ(v.resourceVersion, r.string("resourceVersion"));
    std::string eventType;
    FS_READ(eventType, r.string("eventType"));
    if (!parseHistoryEventType(eventType, &v.eventType))
        return r.error("unknown eventType \"" + eventType + "\"", "eventType");
    FS_READ(v.observedAtMs, r.timestamp("observedAt"));
    auto object = j.find("object");
    if (object == j.end() || !object->is_object())
        return r.error(object == j.end() ? "version without an object"
                                         : std::string("object must be an object, found ") + object->type_name(),
                       "object");
    v.object = *object;
    return v;
}

Result<HistoryGap> readGap(const Json &j, std::size_t line)
{
    const LineReader r(j, line);
    HistoryGap g;
    FS_READ(g.scope, r.string("scope"));
    FS_READ(g.fromRv, r.string("fromResourceVersion"));
    FS_READ(g.toRv, r.string("toResourceVersion"));
    FS_READ(g.reason, r.string("reason"));
    FS_READ(g.observedAtMs, r.timestamp("observedAt"));
    return g;
}

Status readHeader(const Json &j, std::size_t line, HistoryFile &file)
{
    const LineReader r(j, line);
    std::string format;
    FS_READ(format, r.string("format"));
    if (format != "fieldscope-history")
        return lineError(line, "not a Fieldscope history file");
    std::int64_t version = 0;
    FS_READ(version, r.integer("formatVersion"));
    if (version > kHistoryFormatVersion)
        return lineError(line, "written by a newer Fieldscope (formatVersion " + std::to_string(version) + ")",
                         "/formatVersion");
    file.header = j;
    return success();
}

// One non-empty line of the file: the header first, then versions and gaps.
Status readLine(std::string_view text, std::size_t line, HistoryFile &file)
{
    auto j = parseJson(text);
    if (!j)
        return lineError(line, j.error().message, j.error().where);
    if (!j->is_object())
        return lineError(line, std::string("not a JSON object (found ") + j->type_name() + ")");
    if (file.header.is_null())
        return readHeader(*j, line, file);
    const LineReader r(*j, line);
    std::string type;
    FS_READ(type, r.string("type"));
    if (type == "version") {
        auto v = readVersion(*j, line);
        if (!v)
            return v.error();
        file.versions.push_back(std::move(*v));
    } else if (type == "gap") {
        auto g = readGap(*j, line);
        if (!g)
            return g.error();
        file.gaps.push_back(std::move(*g));
        file.gapPositions.push_back(file.versions.size());
    } else {
        return r.error("unknown line type \"" + type + "\"", "type");
    }
    return success();
}

#undef FS_READ

Error lineTooLong(std::size_t line)
{
    return lineError(line, "line longer than " + std::to_string(kMaxHistoryLineBytes) + " bytes");
}

} // namespace

std::string formatTimestampMs(std::int64_t ms)
{
    std::int64_t secs = ms / 1000, frac = ms % 1000;
    if (frac < 0)
        frac += 1000, --secs;
    const auto t = std::time_t(secs);
    std::tm tm{};
    gmtime_r(&t, &tm);
    char buf[96]; // int fields are unbounded to the compiler: room for the worst case
    std::snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
                  tm.tm_hour, tm.tm_min, tm.tm_sec, int(frac));
    return buf;
}

bool parseTimestampMs(std::string_view text, std::int64_t *ms)
{
    std::tm tm{};
    int millis = 0, consumed = 0;
    const std::string s(text);
    if (std::sscanf(s.c_str(), "%4d-%2d-%2dT%2d:%2d:%2d%n", &tm.tm_year, &tm.tm_mon, &tm.tm_mday, &tm.tm_hour,
                    &tm.tm_min, &tm.tm_sec, &consumed)
        != 6)
        return false;
    auto pos = std::size_t(consumed);
    if (pos < s.size() && s[pos] == '.') {
        int digits = 0;
        for (++pos; pos < s.size() && std::isdigit(static_cast<unsigned char>(s[pos])); ++pos, ++digits)
            if (digits < 3)
                millis = millis * 10 + (s[pos] - '0');
        for (; digits < 3; ++digits)
            millis *= 10;
    }
    if (pos + 1 != s.size() || s[pos] != 'Z')
        return false;
    tm.tm_year -= 1900;
    tm.tm_mon -= 1;
    *ms = std::int64_t(timegm(&tm)) * 1000 + millis;
    return true;
}

void UnreadableVersions::add(const VersionInfo &v, const std::string &reason)
{
    ++count;
    if (named.size() < kMaxNamed)
        named.push_back((v.uid + " " + v.resourceVersion + ": " + reason).substr(0, 400)); // rows can be hostile
}

Result<std::int64_t> exportJsonLines(HistoryStore &store, const ObjectQuery &query, const std::string &filePath,
                                     UnreadableVersions *skipped)
{
    std::vector<std::int64_t> ids;
    const bool everything = query.allNamespaces && query.name.empty() && query.uid.empty() && query.resource.empty();
    if (!everything) {
        auto objects = store.findObjects(query);
        if (!objects)
            return objects.error();
        for (const auto &o : *objects)
            ids.push_back(o.id);
    }
    // An export holds cluster data: 0600 whatever the umask (a device such as /dev/stdout is left be).
    std::error_code ec;
    if (!std::filesystem::exists(filePath, ec) || std::filesystem::is_regular_file(filePath, ec))
        if (auto st = ensurePrivateFile(filePath); !st)
            return st.error();
    std::ofstream out(filePath, std::ios::binary | std::ios::trunc);
    if (!out)
        return Error::make(ErrorCategory::Io, "cannot write " + filePath);
    out << toJsonText(headerLine()) << '\n';
    std::int64_t written = 0;
    auto st = store.scan(
        [&](const HistoryStore::ScanRecord &r) {
            if (!r.isGap && !r.unreadable.empty()) {
                if (skipped)
                    skipped->add(r.version, r.unreadable);
                return true;
            }
            out << toJsonText(r.isGap ? gapLine(r.gap) : versionLine(r)) << '\n';
            written += r.isGap ? 0 : 1;
            return bool(out);
        },
        everything ? nullptr : &ids);
    if (!st)
        return st.error();
    out.flush();
    if (!out)
        return Error::make(ErrorCategory::Io, "write failed: " + filePath);
    return written;
}

Result<HistoryFile> readJsonLinesText(std::string_view bytes)
{
    HistoryFile file;
    std::size_t line = 0;
    for (std::size_t start = 0; start < bytes.size();) {
        const std::size_t nl = bytes.find('\n', start);
        const std::size_t end = nl == std::string_view::npos ? bytes.size() : nl;
        ++line;
        if (end - start > kMaxHistoryLineBytes)
            return lineTooLong(line);
        if (end > start)
            if (auto st = readLine(bytes.substr(start, end - start), line, file); !st)
                return st.error();
        start = end + 1;
    }
    if (file.header.is_null())
        return Error::make(ErrorCategory::Parse, "history file is empty");
    return file;
}

namespace {

// Reads FILE line by line with a bounded buffer (a file without newlines is not read whole): each
// line is parsed into `file` (its header, or one version or gap appended) and `afterLine` runs
// after each, so a caller that empties `file` there holds one line at a time.
Status readJsonLinesStream(const std::string &filePath, HistoryFile &file, const std::function<Status()> &afterLine)
{
    std::ifstream in(filePath, std::ios::binary);
    if (!in)
        return Error::make(ErrorCategory::Io, "cannot read " + filePath);
    std::string text, chunk(1 << 16, '\0');
    std::size_t line = 0;
    auto take = [&](std::string_view l) -> Status {
        ++line;
        if (l.size() > kMaxHistoryLineBytes)
            return lineTooLong(line);
        if (l.empty())
            return success();
        if (auto st = readLine(l, line, file); !st)
            return st;
        return afterLine ? afterLine() : success();
    };
    while (in) {
        in.read(chunk.data(), std::streamsize(chunk.size()));
        const auto got = std::size_t(in.gcount());
        std::size_t from = 0;
        for (std::size_t i = 0; i < got; ++i) {
            if (chunk[i] != '\n')
                continue;
            text.append(chunk, from, i - from);
            from = i + 1;
            if (auto st = take(text); !st)
                return st;
            text.clear();
            if (text.capacity() > (std::size_t(1) << 20))
                std::string().swap(text); // one long line must not keep its buffer for the rest of the file
        }
        text.append(chunk, from, got - from);
        if (text.size() > kMaxHistoryLineBytes)
            return lineTooLong(line + 1);
    }
    if (in.bad())
        return Error::make(ErrorCategory::Io, "read failed: " + filePath);
    if (!text.empty())
        if (auto st = take(text); !st)
            return st;
    if (file.header.is_null())
        return Error::make(ErrorCategory::Parse, "history file is empty: " + filePath);
    return success();
}

} // namespace

Result<HistoryFile> readJsonLines(const std::string &filePath)
{
    HistoryFile file;
    if (auto st = readJsonLinesStream(filePath, file, {}); !st)
        return st.error();
    return file;
}

Result<ImportReport> importJsonLines(const std::string &filePath, HistoryStore &store)
{
    ImportReport total;
    std::vector<HistoryWriteItem> items;
    std::size_t itemBytes = 0;
    auto flush = [&]() -> Status {
        if (items.empty())
            return success();
        auto r = store.write(items);
        items.clear();
        itemBytes = 0;
        if (!r)
            return r.error();
        total.versions += std::int64_t(r->versions.size());
        total.gaps += std::int64_t(r->gaps.size());
        total.skippedDuplicates += r->skippedDuplicates;
        total.rejected += r->rejected;
        return success();
    };
    // One line at a time: each version or gap becomes a write item at once, and the items are
    // written in transactions of at most kImportBatchItems items or kImportBatchBytes of JSON.
    HistoryFile line;
    auto st = readJsonLinesStream(filePath, line, [&]() -> Status {
        for (auto &gap : line.gaps) {
            HistoryWriteItem g;
            g.scope = WatchScope::fromId(gap.scope);
            g.gap = std::move(gap);
            items.push_back(std::move(g));
        }
        for (auto &v : line.versions) {
            HistoryWriteItem item;
            item.scope = v.scope;
            item.events.push_back({v.eventType, toJsonText(v.object), v.observedAtMs});
            itemBytes += item.events.back().objectJson.size();
            items.push_back(std::move(item));
        }
        line.gaps.clear();
        line.gapPositions.clear();
        line.versions.clear();
        if (items.size() >= kImportBatchItems || itemBytes >= kImportBatchBytes)
            return flush();
        return success();
    });
    if (!st)
        return st.error();
    if (auto fl = flush(); !fl)
        return fl.error();
    return total;
}

} // namespace fieldscope::core
