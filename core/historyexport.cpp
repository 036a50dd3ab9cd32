#include "core/historyexport.h"
#include "core/privatefiles.h"

#include <filesystem>

#include <cstdio>
#include <ctime>
#include <fstream>

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

Error lineError(std::size_t line, const std::string &why)
{
    return Error::make(ErrorCategory::Parse, "history file: " + why, "line " + std::to_string(line));
}

Result<ExportedVersion> readVersion(const Json &j, std::size_t line)
{
    ExportedVersion v;
    v.scope.id = j.value("scope", std::string());
    v.scope.resource = j.value("resource", std::string());
    v.uid = j.value("uid", std::string());
    v.resourceVersion = j.value("resourceVersion", std::string());
    if (!parseHistoryEventType(j.value("eventType", std::string()), &v.eventType))
        return lineError(line, "unknown eventType");
    if (!parseTimestampMs(j.value("observedAt", std::string()), &v.observedAtMs))
        return lineError(line, "bad observedAt");
    if (!j.contains("object") || !j["object"].is_object())
        return lineError(line, "version without an object");
    v.object = j["object"];
    return v;
}

Result<HistoryGap> readGap(const Json &j, std::size_t line)
{
    HistoryGap g;
    g.scope = j.value("scope", std::string());
    g.fromRv = j.value("fromResourceVersion", std::string());
    g.toRv = j.value("toResourceVersion", std::string());
    g.reason = j.value("reason", std::string());
    if (!parseTimestampMs(j.value("observedAt", std::string()), &g.observedAtMs))
        return lineError(line, "bad observedAt");
    return g;
}

} // namespace

std::string formatTimestampMs(std::int64_t ms)
{
    std::int64_t secs = ms / 1000, frac = ms % 1000;
    if (frac < 0)
        frac += 1000, --secs;
    const std::time_t t = std::time_t(secs);
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
    if (std::sscanf(s.c_str(), "%4d-%2d-%2dT%2d:%2d:%2d%n", &tm.tm_year, &tm.tm_mon, &tm.tm_mday, &tm.tm_hour, &tm.tm_min,
                    &tm.tm_sec, &consumed) != 6)
        return false;
    std::size_t pos = std::size_t(consumed);
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

Result<std::int64_t> exportJsonLines(HistoryStore &store, const ObjectQuery &query, const std::string &filePath)
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

Result<HistoryFile> readJsonLines(const std::string &filePath)
{
    std::ifstream in(filePath, std::ios::binary);
    if (!in)
        return Error::make(ErrorCategory::Io, "cannot read " + filePath);
    HistoryFile file;
    std::string text;
    std::size_t line = 0;
    while (std::getline(in, text)) {
        ++line;
        if (text.empty())
            continue;
        auto j = parseJson(text);
        if (!j || !j->is_object())
            return lineError(line, j ? "not a JSON object" : j.error().message);
        if (line == 1) {
            if (j->value("format", std::string()) != "fieldscope-history")
                return lineError(line, "not a Fieldscope history file");
            if (j->value("formatVersion", 0) > kHistoryFormatVersion)
                return lineError(line, "written by a newer Fieldscope (formatVersion " + toJsonText((*j)["formatVersion"]) + ")");
            file.header = std::move(*j);
            continue;
        }
        const std::string type = j->value("type", std::string());
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
            return lineError(line, "unknown line type \"" + type + "\"");
        }
    }
    if (file.header.is_null())
        return Error::make(ErrorCategory::Parse, "history file is empty: " + filePath);
    return file;
}

Result<CommitReport> importJsonLines(const std::string &filePath, HistoryStore &store)
{
    auto file = readJsonLines(filePath);
    if (!file)
        return file.error();
    CommitReport total;
    std::vector<HistoryWriteItem> items;
    auto flush = [&]() -> Status {
        if (items.empty())
            return success();
        auto r = store.write(items);
        items.clear();
        if (!r)
            return r.error();
        total.versions.insert(total.versions.end(), r->versions.begin(), r->versions.end());
        total.gaps.insert(total.gaps.end(), r->gaps.begin(), r->gaps.end());
        total.skippedDuplicates += r->skippedDuplicates;
        total.rejected += r->rejected;
        return success();
    };
    std::size_t gi = 0;
    for (std::size_t vi = 0; vi <= file->versions.size(); ++vi) {
        for (; gi < file->gaps.size() && file->gapPositions[gi] == vi; ++gi) {
            HistoryWriteItem g;
            g.scope = WatchScope::fromId(file->gaps[gi].scope);
            g.gap = file->gaps[gi];
            items.push_back(std::move(g));
        }
        if (vi == file->versions.size())
            break;
        const auto &v = file->versions[vi];
        HistoryWriteItem item;
        item.scope = v.scope;
        item.events.push_back({v.eventType, toJsonText(v.object), v.observedAtMs});
        items.push_back(std::move(item));
        if (items.size() >= 2000)
            if (auto st = flush(); !st)
                return st.error();
    }
    if (auto st = flush(); !st)
        return st.error();
    return total;
}

} // namespace fieldscope::core
