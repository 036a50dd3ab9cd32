#include "kube/listdecoder.h"

#include "core/base/json.h"
#include "core/base/jsonread.h"
#include "kube/apierror.h"
#include "kube/http.h"
#include "kube/parserlease.h"
#include "kube/simdjsonread.h"

#include <simdjson.h>

#include <optional>

namespace fieldscope::kube {

using core::Error;
using core::ErrorCategory;
namespace od = simdjson::ondemand;
using detail::readString;

namespace {

Error parseError(simdjson::error_code code, const char *what, std::string where = {})
{
    std::string message = std::string(what) + ": ";
    if (!where.empty())
        message += where + ": ";
    return Error::make(ErrorCategory::Parse, message + simdjson::error_message(code), std::move(where));
}

// Reads metadata of one object slice. `capacity` is how many bytes are readable from
// raw.data() (the slice lives inside a padded buffer).
// The entry count and the newest writer of metadata.managedFields, for the object's list row; an
// entry or field of the wrong type is skipped (it only summarises, the ownership views decode it).
void summariseManagedFields(od::array &entries, core::ObjectVersion &out)
{
    for (auto entry : entries) {
        od::object eo;
        if (entry.get_object().get(eo))
            continue;
        std::string_view manager, op, time;
        for (auto ef : eo) {
            std::string_view ek;
            if (ef.unescaped_key().get(ek))
                continue;
            std::string_view *target = ek == "manager"   ? &manager
                                     : ek == "operation" ? &op
                                     : ek == "time"      ? &time
                                                         : nullptr;
            if (target && ef.value().get_string().get(*target) != simdjson::SUCCESS)
                *target = {};
        }
        ++out.managerCount;
        // RFC 3339 UTC in whole seconds: string order is time order.
        if (time >= std::string_view(out.lastChangedAt)) {
            out.lastManager = manager;
            out.lastManagerOperation = op;
            out.lastChangedAt = time;
        }
    }
}

// Reads the identity and summary fields of one object whose iteration has not started.
simdjson::error_code readObjectMetadata(od::object &obj, core::ObjectVersion &out, bool *hasKind,
                                        std::string *bookmarkAnnotation, std::string *where)
{
    simdjson::error_code err = simdjson::SUCCESS;
    *hasKind = false;
    for (auto field : obj) {
        std::string_view key;
        if ((err = field.unescaped_key().get(key)))
            return err;
        if (key == "kind") {
            *hasKind = true;
        } else if (key == "metadata") {
            od::object md;
            if ((err = field.value().get_object().get(md)))
                return err;
            for (auto m : md) {
                std::string_view mk;
                if ((err = m.unescaped_key().get(mk)))
                    return err;
                std::string *target = mk == "name"              ? &out.name
                                    : mk == "namespace"         ? &out.namespace_
                                    : mk == "uid"               ? &out.uid
                                    : mk == "resourceVersion"   ? &out.resourceVersion
                                    : mk == "creationTimestamp" ? &out.creationTimestamp
                                                                : nullptr;
                if (target) {
                    // Identity fields key the store and the history: a wrong type fails the
                    // page (or frame) instead of filing the object under "".
                    if ((err = readString(m.value(), *target))) {
                        if (where)
                            *where = "metadata." + std::string(mk);
                        return err;
                    }
                } else if (mk == "managedFields") {
                    od::array entries;
                    if (m.value().get_array().get(entries))
                        continue;
                    summariseManagedFields(entries, out);
                } else if (mk == "annotations" && bookmarkAnnotation) {
                    od::object ann;
                    if (!m.value().get_object().get(ann)) {
                        std::string_view a;
                        if (!ann.find_field_unordered("k8s.io/initial-events-end").get_string().get(a))
                            *bookmarkAnnotation = a;
                    }
                }
            }
        }
    }
    return simdjson::SUCCESS;
}

simdjson::error_code readMetadata(std::string_view raw, std::size_t capacity, core::ObjectVersion &out, bool *hasKind,
                                  std::string *bookmarkAnnotation = nullptr, std::string *where = nullptr)
{
    ParserLease lease;
    od::document doc;
    auto err = lease.parser().iterate(raw.data(), raw.size(), capacity).get(doc);
    if (err)
        return err;
    od::object obj;
    if ((err = doc.get_object().get(obj)))
        return err;
    return readObjectMetadata(obj, out, hasKind, bookmarkAnnotation, where);
}

QByteArray withKind(std::string_view raw, bool hasKind, const std::string &kind, const std::string &apiVersion)
{
    if (hasKind || kind.empty() || raw.size() < 2)
        return QByteArray(raw.data(), qsizetype(raw.size()));
    // {"metadata":...} -> {"kind":"K","apiVersion":"V","metadata":...}
    std::string head = R"({"kind":")" + kind + R"(","apiVersion":")" + apiVersion + '"';
    const bool emptyObject = raw.substr(1).find_first_not_of(" \t\r\n") == raw.size() - 2 && raw.back() == '}';
    QByteArray out;
    out.reserve(qsizetype(head.size()) + qsizetype(raw.size()) + 1);
    out.append(head.data(), qsizetype(head.size()));
    if (!emptyObject)
        out.append(',');
    out.append(raw.data() + 1, qsizetype(raw.size() - 1));
    return out;
}

} // namespace

// The transport hands bodies on with this padding, so the reserve below never copies a page.
static_assert(simdjson::SIMDJSON_PADDING <= kResponseBodyPadding);

core::Result<DecodedPage> decodeListPage(std::string &body, const std::string &itemKind, const std::string &apiVersion)
{
    body.reserve(body.size() + simdjson::SIMDJSON_PADDING);
    DecodedPage page;
    ParserLease lease;
    od::document doc;
    auto err = lease.parser().iterate(body.data(), body.size(), body.capacity()).get(doc);
    if (err)
        return parseError(err, "list response");
    od::object root;
    if ((err = doc.get_object().get(root)))
        return parseError(err, "list response");
    for (auto field : root) {
        std::string_view key;
        if ((err = field.unescaped_key().get(key)))
            return parseError(err, "list response");
        if (key == "metadata") {
            od::object md;
            if ((err = field.value().get_object().get(md)))
                return parseError(err, "list metadata");
            for (auto m : md) {
                std::string_view mk;
                if ((err = m.unescaped_key().get(mk)))
                    return parseError(err, "list metadata");
                if (mk == "resourceVersion" || mk == "continue") {
                    // The RV and token drive the next request: a wrong type is not "no more pages".
                    if ((err = readString(m.value(), mk == "continue" ? page.continueToken : page.resourceVersion)))
                        return parseError(err, "list response", "metadata." + std::string(mk));
                } else if (mk == "remainingItemCount") {
                    int64_t n = 0;
                    if (!m.value().get_int64().get(n))
                        page.remainingItemCount = n; // only an estimate for the progress bar
                }
            }
        } else if (key == "items") {
            od::array items;
            if (field.value().get_array().get(items))
                continue; // "items": null on an empty list
            // Each item's bytes are copied out after the whole page is read: the objects' JSON,
            // which the table and the store keep, then lies together in the heap instead of
            // between the short strings of each item's metadata, which are freed as soon as the
            // page is applied (~250 bytes of holes per object that no page could be returned from).
            std::vector<std::pair<std::string_view, bool>> raws; // the item's bytes, has kind
            const std::size_t firstItem = page.items.size();     // (a second "items" key appends)
            std::size_t index = 0;
            for (auto item : items) {
                const auto path = [index] { return "items[" + std::to_string(index) + "]"; };
                ++index;
                // One pass over the page's structure: reading the item's fields walks to its end,
                // which is where the document's iterator then stands (the next ',' or ']').
                const char *start = nullptr, *stop = nullptr;
                od::object obj;
                if ((err = item.current_location().get(start)) || (err = item.get_object().get(obj)))
                    return parseError(err, "list response", path());
                core::ObjectVersion v;
                v.fromList = true;
                bool hasKind = false;
                std::string where;
                if ((err = readObjectMetadata(obj, v, &hasKind, nullptr, &where)))
                    return parseError(err, "list response", where.empty() ? path() : path() + "." + where);
                if ((err = doc.current_location().get(stop)))
                    return parseError(err, "list response", path());
                std::string_view raw(start, std::size_t(stop - start));
                while (!raw.empty()
                       && (raw.back() == ' ' || raw.back() == '\n' || raw.back() == '\r' || raw.back() == '\t'))
                    raw.remove_suffix(1);
                if (raw.size() < 2 || raw.front() != '{' || raw.back() != '}')
                    return parseError(simdjson::TAPE_ERROR, "list response", path());
                raws.emplace_back(raw, hasKind);
                page.items.push_back(std::move(v));
            }
            for (std::size_t i = 0; i < raws.size(); ++i)
                page.items[firstItem + i].json = withKind(raws[i].first, raws[i].second, itemKind, apiVersion);
        }
    }
    return page;
}

namespace {

constexpr std::size_t kNoEnd = std::string_view::npos;

std::size_t skipSpace(std::string_view s, std::size_t i)
{
    while (i < s.size() && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r'))
        ++i;
    return i;
}

// s[i] is '"': the index after the closing quote.
std::size_t skipString(std::string_view s, std::size_t i)
{
    for (++i; i < s.size(); ++i) {
        if (s[i] == '\\')
            ++i;
        else if (s[i] == '"')
            return i + 1;
    }
    return kNoEnd;
}

// The index after the JSON value that starts at s[i]. It only has to find the value's end: the
// value itself is parsed properly (metadata) or by the full decode (everything else).
std::size_t skipValue(std::string_view s, std::size_t i)
{
    int depth = 0;
    while (i < s.size()) {
        const char c = s[i];
        if (c == '"') {
            if ((i = skipString(s, i)) == kNoEnd || depth == 0)
                return i;
        } else if (c == '{' || c == '[') {
            if (++depth > 64)
                return kNoEnd;
            ++i;
        } else if (c == '}' || c == ']') {
            if (depth == 0)
                return i; // a scalar ended by its container
            ++i;
            if (--depth == 0)
                return i;
        } else if (depth == 0 && (c == ',' || c == ' ' || c == '\t' || c == '\n' || c == '\r')) {
            return i;
        } else {
            ++i;
        }
    }
    return kNoEnd;
}

std::optional<ListHead> readListHeadMetadata(std::string_view text)
{
    std::string buf(text);
    buf.reserve(buf.size() + simdjson::SIMDJSON_PADDING);
    od::parser parser;
    od::document doc;
    od::object md;
    if (parser.iterate(buf.data(), buf.size(), buf.capacity()).get(doc) || doc.get_object().get(md))
        return std::nullopt;
    ListHead head;
    for (auto m : md) {
        std::string_view key;
        if (m.unescaped_key().get(key))
            return std::nullopt;
        if (key == "resourceVersion" || key == "continue") {
            if (readString(m.value(), key == "continue" ? head.continueToken : head.resourceVersion))
                return std::nullopt;
        } else if (key == "remainingItemCount") {
            std::int64_t n = 0;
            if (!m.value().get_int64().get(n))
                head.remainingItemCount = n;
        }
    }
    return head;
}

} // namespace

std::optional<ListHead> peekListHead(std::string_view body)
{
    const std::string_view s = body.substr(0, std::size_t(1) << 20);
    std::size_t i = skipSpace(s, 0);
    if (i >= s.size() || s[i] != '{')
        return std::nullopt;
    std::optional<std::string_view> metadata;
    for (i = skipSpace(s, i + 1); i < s.size() && s[i] == '"'; i = skipSpace(s, i)) {
        const std::size_t keyEnd = skipString(s, i);
        if (keyEnd == kNoEnd)
            return std::nullopt;
        const std::string_view key = s.substr(i + 1, keyEnd - i - 2);
        if (key.find('\\') != std::string_view::npos)
            return std::nullopt; // the full decode unescapes keys; the head does not try
        i = skipSpace(s, keyEnd);
        if (i >= s.size() || s[i] != ':')
            return std::nullopt;
        i = skipSpace(s, i + 1);
        if (key == "items")
            return metadata ? readListHeadMetadata(*metadata) : std::nullopt;
        const std::size_t valueEnd = skipValue(s, i);
        if (valueEnd == kNoEnd)
            return std::nullopt;
        if (key == "metadata") {
            if (metadata)
                return std::nullopt;
            metadata = s.substr(i, valueEnd - i);
        }
        i = skipSpace(s, valueEnd);
        if (i >= s.size() || s[i] != ',')
            return std::nullopt;
        i = skipSpace(s, i + 1);
    }
    return std::nullopt;
}

namespace {

// The {type, object} envelope of a watch event; `raw` is the object's JSON text.
core::Status readWatchEnvelope(od::document &doc, std::string_view &type, std::string_view &raw)
{
    od::object root;
    if (auto err = doc.get_object().get(root))
        return parseError(err, "watch event");
    bool haveObject = false;
    for (auto field : root) {
        std::string_view key;
        if (field.unescaped_key().get(key))
            continue;
        if (key == "type") {
            if (auto err = field.value().get_string().get(type))
                return parseError(err, "watch event type");
        } else if (key == "object") {
            od::object obj;
            simdjson::error_code err;
            if ((err = field.value().get_object().get(obj)) || (err = obj.raw_json().get(raw)))
                return parseError(err, "watch event object");
            haveObject = true;
        }
    }
    if (!haveObject)
        return Error::make(ErrorCategory::Parse, "watch event without an object");
    return core::Unit{};
}

// The metav1.Status of an ERROR event. Its causes tell a 504 ResourceVersionTooLarge (relist)
// from other timeouts (staging/src/k8s.io/apiserver/pkg/storage/errors.go, NewTooLargeResourceVersionError).
core::Status decodeWatchError(std::string_view raw, Error &error)
{
    auto st = core::parseJson(raw);
    error.category = ErrorCategory::Server;
    if (!st.ok())
        return Error::make(ErrorCategory::Parse, "watch ERROR event: " + st.error().message, "object");
    core::JsonReader read("watch ERROR event");
    const std::int64_t code = read.integer(*st, "code", "object");
    error.httpStatus = code >= 0 && code < 1000 ? int(code) : 0;
    error.reason = read.string(*st, "reason", "object");
    error.message = read.string(*st, "message", "object");
    // Causes tell a 504 whose cause is ResourceVersionTooLarge (relist) from other timeouts
    // (k8s.io/apiserver/pkg/storage/errors.go, NewTooLargeResourceVersionError).
    if (const core::Json *d = read.object(*st, "details", "object"))
        error.causes = readStatusCauses(read, *d, "object.details");
    if (!read.ok())
        return read.error();
    if (error.httpStatus == 410)
        error.category = ErrorCategory::Gone;
    return core::Unit{};
}

std::optional<WatchLineType> objectEventType(std::string_view type)
{
    if (type == "ADDED")
        return WatchLineType::Added;
    if (type == "MODIFIED")
        return WatchLineType::Modified;
    if (type == "DELETED")
        return WatchLineType::Deleted;
    if (type == "BOOKMARK")
        return WatchLineType::Bookmark;
    return std::nullopt;
}

} // namespace

core::Result<DecodedWatchLine> decodeWatchLine(std::string_view line)
{
    // Watch lines are small; copy into a padded buffer (the stream buffer is reused).
    ParserLease lease;
    std::string &buf = lease.scratch();
    buf.assign(line.data(), line.size());
    buf.reserve(buf.size() + simdjson::SIMDJSON_PADDING);
    const char *end = buf.data() + buf.capacity();
    DecodedWatchLine out;
    od::document doc;
    auto err = lease.parser().iterate(buf.data(), buf.size(), buf.capacity()).get(doc);
    if (err)
        return parseError(err, "watch event");
    std::string_view type, raw;
    if (auto st = readWatchEnvelope(doc, type, raw); !st)
        return st.error();
    if (type == "ERROR") {
        out.type = WatchLineType::Error;
        if (auto st = decodeWatchError(raw, out.error); !st)
            return st.error();
        return out;
    }
    const auto lineType = objectEventType(type);
    if (!lineType)
        return Error::make(ErrorCategory::Parse, "unknown watch event type " + std::string(type));
    out.type = *lineType;
    bool hasKind = false;
    std::string annotation;
    std::string where;
    if ((err = readMetadata(raw, std::size_t(end - raw.data()), out.object, &hasKind,
                            out.type == WatchLineType::Bookmark ? &annotation : nullptr, &where)))
        return parseError(err, "watch event", where.empty() ? std::string("object") : "object." + where);
    out.resourceVersion = out.object.resourceVersion;
    out.initialEventsEnd = annotation == "true";
    if (out.type != WatchLineType::Bookmark) {
        out.object.json = QByteArray(raw.data(), qsizetype(raw.size()));
        out.object.type = out.type == WatchLineType::Added    ? core::WatchEventType::Added
                        : out.type == WatchLineType::Modified ? core::WatchEventType::Modified
                                                              : core::WatchEventType::Deleted;
    }
    return out;
}

void splitLines(std::string &buffer, std::string_view chunk, std::vector<std::string> &lines)
{
    std::size_t start = 0;
    while (true) {
        const auto nl = chunk.find('\n', start);
        if (nl == std::string_view::npos) {
            buffer.append(chunk.substr(start));
            return;
        }
        buffer.append(chunk.substr(start, nl - start));
        if (!buffer.empty())
            lines.push_back(std::move(buffer));
        buffer.clear();
        start = nl + 1;
    }
}

} // namespace fieldscope::kube
