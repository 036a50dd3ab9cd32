#include "core/audit/auditevent.h"

#include "core/audit/auditevent_p.h"
#include "core/base/jsonread.h"

namespace fieldscope::core {

namespace {

bool isHex(char c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

int hexValue(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    return (c | 0x20) - 'a' + 10;
}

// application/x-www-form-urlencoded decoding as Go's url.QueryUnescape does it.
std::string queryUnescape(std::string_view s)
{
    std::string out;
    out.reserve(s.size());
    for (std::size_t i = 0; i < s.size(); ++i) {
        if (s[i] == '+') {
            out += ' ';
        } else if (s[i] == '%' && i + 2 < s.size() && isHex(s[i + 1]) && isHex(s[i + 2])) {
            out += char(hexValue(s[i + 1]) * 16 + hexValue(s[i + 2]));
            i += 2;
        } else {
            out += s[i];
        }
    }
    return out;
}

} // namespace

std::string cutAuditUtf8(std::string s, std::size_t limit)
{
    if (s.size() <= limit)
        return s;
    std::size_t end = limit;
    while (end > 0 && (static_cast<unsigned char>(s[end]) & 0xC0) == 0x80)
        --end;
    s.resize(end);
    return s;
}

bool AuditEvent::isWrite() const
{
    return verb == "create" || verb == "update" || verb == "patch" || verb == "delete" || verb == "deletecollection";
}

bool AuditEvent::isDryRun() const
{
    const auto dryRun = auditQueryParameter(requestURI, "dryRun");
    return dryRun && !dryRun->empty();
}

std::string AuditEvent::fieldManager() const
{
    if (verb != "create" && verb != "update" && verb != "patch")
        return {};
    if (const auto manager = auditQueryParameter(requestURI, "fieldManager"); manager && !manager->empty())
        return *manager;
    return auditFieldManagerFromUserAgent(userAgent);
}

std::optional<std::string> auditQueryParameter(std::string_view requestURI, std::string_view name)
{
    const std::size_t q = requestURI.find('?');
    if (q == std::string_view::npos)
        return std::nullopt;
    std::string_view query = requestURI.substr(q + 1);
    if (const std::size_t hash = query.find('#'); hash != std::string_view::npos)
        query = query.substr(0, hash);
    while (!query.empty()) {
        const std::size_t amp = query.find('&');
        const std::string_view pair = query.substr(0, amp);
        query = amp == std::string_view::npos ? std::string_view() : query.substr(amp + 1);
        const std::size_t eq = pair.find('=');
        if (queryUnescape(pair.substr(0, eq)) != name)
            continue;
        return eq == std::string_view::npos ? std::string() : queryUnescape(pair.substr(eq + 1));
    }
    return std::nullopt;
}

std::string auditFieldManagerFromUserAgent(std::string_view userAgent)
{
    // Go ranges over runes: an invalid byte is U+FFFD (printable, 3 bytes). unicode.IsPrint is
    // approximated: C0/C1 controls, DEL and non-ASCII spaces (U+0085..U+00A0, U+2028/9, ...) are
    // dropped; other runes are kept.
    constexpr std::size_t kMaxManagerBytes = 128; // validation.FieldManagerMaxLength
    const std::string_view head = userAgent.substr(0, userAgent.find('/'));
    std::string out;
    std::size_t i = 0;
    while (i < head.size()) {
        const auto c = static_cast<unsigned char>(head[i]);
        std::size_t len = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : (c >> 3) == 0x1E ? 4 : 0;
        bool valid = len > 0 && i + len <= head.size();
        for (std::size_t k = 1; valid && k < len; ++k)
            valid = (static_cast<unsigned char>(head[i + k]) & 0xC0) == 0x80;
        std::string rune = valid ? std::string(head.substr(i, len)) : std::string("\xEF\xBF\xBD");
        i += valid ? len : 1;
        bool printable = true;
        if (rune.size() == 1)
            printable = c >= 0x20 && c != 0x7F;
        else if (rune == "\xC2\x85" || rune == "\xC2\xA0"
                 || (rune.size() == 2 && c == 0xC2 && static_cast<unsigned char>(rune[1]) < 0xA0)
                 || rune == "\xE2\x80\xA8" || rune == "\xE2\x80\xA9" || rune == "\xE3\x80\x80" || rune == "\xE1\x9A\x80"
                 || (rune.size() == 3 && c == 0xE2 && static_cast<unsigned char>(rune[1]) == 0x80
                     && static_cast<unsigned char>(rune[2]) <= 0x8A))
            printable = false; // C1 controls, NBSP, U+2000..U+200A spaces, line/paragraph separators, ideographic space
        if (!printable)
            continue;
        if (out.size() + rune.size() > kMaxManagerBytes)
            break;
        out += rune;
    }
    return out;
}

namespace {

AuditUser readUser(JsonReader &r, const Json &user, std::string_view path)
{
    AuditUser u;
    u.username = r.string(user, "username", path);
    u.uid = r.string(user, "uid", path);
    u.groups = r.strings(user, "groups", path);
    return u;
}

void readObjectRef(JsonReader &r, const Json &ref, AuditEvent &e)
{
    const std::string_view path = "objectRef";
    e.hasObjectRef = true;
    e.objectRef.resource = r.string(ref, "resource", path);
    e.objectRef.namespace_ = r.string(ref, "namespace", path);
    e.objectRef.name = r.string(ref, "name", path);
    e.objectRef.apiGroup = r.string(ref, "apiGroup", path);
    e.objectRef.apiVersion = r.string(ref, "apiVersion", path);
    e.objectRef.uid = r.string(ref, "uid", path);
    e.objectRef.resourceVersion = r.string(ref, "resourceVersion", path);
    e.objectRef.subresource = r.string(ref, "subresource", path);
}

// Reads only identity keys of the response body; the rest (which may hold Secret values) is never
// copied.
void readResponseObject(JsonReader &r, const Json &object, AuditEvent &e)
{
    const std::string_view path = "responseObject";
    e.hasResponseObject = true;
    e.responseKind = r.string(object, "kind", path);
    if (const Json *meta = r.object(object, "metadata", path)) {
        const std::string metaPath = "responseObject.metadata";
        e.responseResourceVersion = r.string(*meta, "resourceVersion", metaPath);
        e.responseUid = r.string(*meta, "uid", metaPath);
        if (const Json *entries = r.array(*meta, "managedFields", metaPath)) {
            const std::string base = jsonPath(metaPath, "managedFields");
            for (std::size_t i = 0; i < entries->size(); ++i) {
                const Json &entry = (*entries)[i];
                const std::string at = jsonPath(base, i);
                if (!r.expectObject(entry, at))
                    break;
                AuditManagerStamp stamp;
                stamp.manager = r.string(entry, "manager", at);
                stamp.operation = r.string(entry, "operation", at);
                stamp.subresource = r.string(entry, "subresource", at);
                stamp.time = r.string(entry, "time", at);
                e.responseManagers.push_back(std::move(stamp));
            }
        }
    }
    if (e.responseKind != "Status")
        return;
    // A Status answer: a refused write's message, or a delete's details.uid.
    if (e.responseMessage.empty())
        e.responseMessage = cutAuditUtf8(r.string(object, "message", path), kMaxAuditMessageBytes);
    if (const Json *details = r.object(object, "details", path); details && e.responseUid.empty())
        e.responseUid = r.string(*details, "uid", "responseObject.details");
}

} // namespace

Result<AuditEvent> decodeAuditEvent(const Json &event, std::string_view where, bool inList)
{
    JsonReader r("audit event " + std::string(where));
    if (!r.expectObject(event, ""))
        return r.error();
    const std::string kind = r.string(event, "kind", "");
    const std::string apiVersion = r.string(event, "apiVersion", "");
    // The API server writes an EventList's items without kind and apiVersion (the list has them).
    const bool typedByList = inList && kind.empty() && apiVersion.empty();
    if (r.ok() && !typedByList && (kind != "Event" || apiVersion != "audit.k8s.io/v1"))
        return Error::make(ErrorCategory::Parse,
                           "audit event " + std::string(where) + ": not an audit.k8s.io/v1 Event (kind \""
                               + cutAuditUtf8(kind, 64) + "\", apiVersion \"" + cutAuditUtf8(apiVersion, 64) + "\")",
                           std::string(where));
    AuditEvent e;
    e.auditID = r.string(event, "auditID", "");
    e.stage = r.string(event, "stage", "");
    e.level = r.string(event, "level", "");
    e.verb = r.string(event, "verb", "");
    e.requestURI = r.string(event, "requestURI", "");
    e.userAgent = r.string(event, "userAgent", "");
    e.sourceIPs = r.strings(event, "sourceIPs", "");
    if (const Json *user = r.object(event, "user", ""))
        e.user = readUser(r, *user, "user");
    if (const Json *user = r.object(event, "impersonatedUser", "")) {
        e.hasImpersonatedUser = true;
        e.impersonatedUser = readUser(r, *user, "impersonatedUser");
    }
    if (const Json *ref = r.object(event, "objectRef", ""))
        readObjectRef(r, *ref, e);
    if (const Json *status = r.object(event, "responseStatus", "")) {
        const std::int64_t code = r.integer(*status, "code", "responseStatus");
        e.responseCode = code >= 0 && code < 1000 ? int(code) : 0;
        e.responseReason = r.string(*status, "reason", "responseStatus");
        e.responseMessage = cutAuditUtf8(r.string(*status, "message", "responseStatus"), kMaxAuditMessageBytes);
    }
    e.requestReceivedTimestamp = r.string(event, "requestReceivedTimestamp", "");
    e.stageTimestamp = r.string(event, "stageTimestamp", "");
    if (const Json *object = r.object(event, "responseObject", ""))
        readResponseObject(r, *object, e);
    if (!r.ok())
        return r.error();
    if (e.auditID.empty() || e.stage.empty())
        return Error::make(ErrorCategory::Parse, "audit event " + std::string(where) + ": no auditID or stage",
                           std::string(where));
    e.requestReceivedMicros = parseRfc3339Micros(e.requestReceivedTimestamp).value_or(0);
    e.stageMicros = parseRfc3339Micros(e.stageTimestamp).value_or(0);
    return e;
}

namespace {

Error tooLargeEvent(std::size_t size, std::string_view where)
{
    return Error::make(ErrorCategory::Parse,
                       "audit event " + std::string(where) + " is " + std::to_string(size)
                           + " bytes, more than the limit of " + std::to_string(kMaxAuditEventBytes),
                       std::string(where));
}

} // namespace

Result<AuditEvent> decodeAuditEventText(std::string_view text, std::string_view where, bool inList, JsonIndex &scratch)
{
    if (text.size() > kMaxAuditEventBytes)
        return tooLargeEvent(text.size(), where);
    if (scratch.build(std::string(text)) == JsonIndex::Status::Ok)
        if (auto event = decodeIndexedAuditEvent(scratch, inList))
            return std::move(*event);
    return decodeAuditEventTextDom(text, where, inList);
}

Result<AuditEvent> decodeAuditEventText(std::string_view text, std::string_view where, bool inList)
{
    JsonIndex index;
    return decodeAuditEventText(text, where, inList, index);
}

Result<AuditEvent> decodeAuditEventTextDom(std::string_view text, std::string_view where, bool inList)
{
    if (text.size() > kMaxAuditEventBytes)
        return tooLargeEvent(text.size(), where);
    auto json = parseJson(text, kMaxAuditEventDepth);
    if (!json.ok()) {
        Error error = json.error();
        error.message = "audit event " + std::string(where) + ": " + error.message;
        return error;
    }
    return decodeAuditEvent(*json, where, inList);
}

void AuditDecodeResult::append(AuditDecodeResult &&other, const std::string &prefix)
{
    if (events.empty())
        events = std::move(other.events);
    else
        for (auto &e : other.events)
            events.push_back(std::move(e));
    skipped += other.skipped;
    tooLarge += other.tooLarge;
    for (auto &p : other.problems)
        if (problems.size() < kMaxAuditProblems)
            problems.push_back(prefix + std::move(p));
}

void AuditDecodeResult::skip(std::string problem)
{
    ++skipped;
    if (problems.size() < kMaxAuditProblems)
        problems.push_back(std::move(problem));
}

std::size_t auditEventBytes(const AuditEvent &e)
{
    std::size_t n = sizeof(AuditEvent);
    const auto add = [&n](const std::string &s) { n += s.capacity() > 15 ? s.capacity() + 1 : 0; };
    for (const std::string *s :
         {&e.auditID, &e.stage, &e.level, &e.verb, &e.requestURI, &e.userAgent, &e.responseReason, &e.responseMessage,
          &e.requestReceivedTimestamp, &e.stageTimestamp, &e.responseKind, &e.responseResourceVersion, &e.responseUid})
        add(*s);
    for (const std::string *s :
         {&e.objectRef.resource, &e.objectRef.namespace_, &e.objectRef.name, &e.objectRef.apiGroup,
          &e.objectRef.apiVersion, &e.objectRef.uid, &e.objectRef.resourceVersion, &e.objectRef.subresource})
        add(*s);
    for (const AuditUser *u : {&e.user, &e.impersonatedUser}) {
        add(u->username);
        add(u->uid);
        n += u->groups.capacity() * sizeof(std::string);
        for (const auto &g : u->groups)
            add(g);
    }
    n += e.sourceIPs.capacity() * sizeof(std::string);
    for (const auto &ip : e.sourceIPs)
        add(ip);
    n += e.responseManagers.capacity() * sizeof(AuditManagerStamp);
    for (const auto &m : e.responseManagers) {
        add(m.manager);
        add(m.operation);
        add(m.subresource);
        add(m.time);
    }
    return n;
}

} // namespace fieldscope::core
