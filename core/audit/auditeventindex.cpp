// decodeIndexedAuditEvent (core/audit/auditevent_p.h): an audit event read from a JsonIndex. It
// reads the members decodeAuditEvent reads, in the same way (a missing member or null is the
// empty value), and gives up where decodeAuditEvent would record an error, so that it never
// accepts what the DOM decoder refuses. Giving up where the DOM decoder would not is harmless (it
// only costs the second parse), so the checks may be stricter, never laxer.
#include "core/audit/auditevent_p.h"

#include <charconv>

namespace fieldscope::core {

namespace {

using Type = JsonIndex::Type;
constexpr std::int64_t kAbsent = -1;

// Typed reads of one index; the first wrong type makes the whole event "not well-formed".
class IndexedReads
{
public:
    explicit IndexedReads(const JsonIndex &index) : m_ix(index) {}

    // The member `key` of object node `parent` when it has type `type`; kAbsent when the parent
    // is absent or the member is missing or null (JsonReader's fallback), or of another type
    // (then the event is not well-formed).
    std::int64_t child(std::int64_t parent, std::string_view key, Type type)
    {
        if (parent < 0)
            return kAbsent;
        const std::int64_t n = m_ix.member(std::uint32_t(parent), key);
        if (n < 0 || node(n).type == Type::Null)
            return kAbsent;
        if (node(n).type != type) {
            m_bad = true;
            return kAbsent;
        }
        return n;
    }
    std::string string(std::int64_t parent, std::string_view key)
    {
        return m_ix.stringAt(child(parent, key, Type::String));
    }
    std::vector<std::string> strings(std::int64_t parent, std::string_view key)
    {
        std::vector<std::string> out;
        const std::int64_t a = child(parent, key, Type::Array);
        for (std::int64_t c = a + 1; a >= 0 && c < end(a); c = end(c)) {
            if (node(c).type != Type::String) {
                m_bad = true; // null elements too: JsonReader::strings refuses every non-string
                return {};
            }
            out.push_back(m_ix.stringAt(c));
        }
        return out;
    }
    // What JsonReader::integer accepts: a number nlohmann stores as an integer that fits int64
    // (no fraction or exponent; larger ones become unsigned or double there).
    std::int64_t integer(std::int64_t parent, std::string_view key)
    {
        const std::int64_t n = child(parent, key, Type::Number);
        if (n < 0)
            return 0;
        const std::string_view raw = m_ix.raw(node(n));
        std::int64_t value = 0;
        const auto [ptr, ec] = std::from_chars(raw.data(), raw.data() + raw.size(), value);
        if (ec != std::errc() || ptr != raw.data() + raw.size()) {
            m_bad = true;
            return 0;
        }
        return value;
    }
    // The elements of array node `a` (none when absent).
    template<typename F>
    void forEachElement(std::int64_t a, F &&f)
    {
        for (std::int64_t c = a + 1; a >= 0 && c < end(a) && !m_bad; c = end(c))
            f(c);
    }
    bool isObject(std::int64_t n) const { return n >= 0 && node(n).type == Type::Object; }
    void giveUp() { m_bad = true; }
    bool ok() const { return !m_bad; }

private:
    const JsonIndex::Node &node(std::int64_t n) const { return m_ix.nodes()[std::size_t(n)]; }
    std::int64_t end(std::int64_t n) const { return node(n).next; }

    const JsonIndex &m_ix;
    bool m_bad = false;
};

AuditUser readUser(IndexedReads &r, std::int64_t user)
{
    AuditUser u;
    u.username = r.string(user, "username");
    u.uid = r.string(user, "uid");
    u.groups = r.strings(user, "groups");
    return u;
}

void readObjectRef(IndexedReads &r, std::int64_t ref, AuditEvent &e)
{
    e.hasObjectRef = true;
    e.objectRef.resource = r.string(ref, "resource");
    e.objectRef.namespace_ = r.string(ref, "namespace");
    e.objectRef.name = r.string(ref, "name");
    e.objectRef.apiGroup = r.string(ref, "apiGroup");
    e.objectRef.apiVersion = r.string(ref, "apiVersion");
    e.objectRef.uid = r.string(ref, "uid");
    e.objectRef.resourceVersion = r.string(ref, "resourceVersion");
    e.objectRef.subresource = r.string(ref, "subresource");
}

// Only identity keys of the response body, as decodeAuditEvent reads them: the rest (which may
// hold Secret values) is never copied.
void readResponseObject(IndexedReads &r, std::int64_t object, AuditEvent &e)
{
    e.hasResponseObject = true;
    e.responseKind = r.string(object, "kind");
    if (const std::int64_t meta = r.child(object, "metadata", Type::Object); meta >= 0) {
        e.responseResourceVersion = r.string(meta, "resourceVersion");
        e.responseUid = r.string(meta, "uid");
        r.forEachElement(r.child(meta, "managedFields", Type::Array), [&](std::int64_t entry) {
            if (!r.isObject(entry))
                return r.giveUp();
            AuditManagerStamp stamp;
            stamp.manager = r.string(entry, "manager");
            stamp.operation = r.string(entry, "operation");
            stamp.subresource = r.string(entry, "subresource");
            stamp.time = r.string(entry, "time");
            e.responseManagers.push_back(std::move(stamp));
        });
    }
    if (e.responseKind != "Status")
        return;
    if (e.responseMessage.empty())
        e.responseMessage = cutAuditUtf8(r.string(object, "message"), kMaxAuditMessageBytes);
    if (const std::int64_t details = r.child(object, "details", Type::Object); details >= 0 && e.responseUid.empty())
        e.responseUid = r.string(details, "uid");
}

} // namespace

std::optional<AuditEvent> decodeIndexedAuditEvent(const JsonIndex &index, bool inList)
{
    if (index.empty() || index.nodes().front().type != Type::Object)
        return std::nullopt;
    IndexedReads r(index);
    constexpr std::int64_t root = 0;
    const std::string kind = r.string(root, "kind");
    const std::string apiVersion = r.string(root, "apiVersion");
    const bool typedByList = inList && kind.empty() && apiVersion.empty();
    if (!r.ok() || (!typedByList && (kind != "Event" || apiVersion != "audit.k8s.io/v1")))
        return std::nullopt;
    AuditEvent e;
    e.auditID = r.string(root, "auditID");
    e.stage = r.string(root, "stage");
    e.level = r.string(root, "level");
    e.verb = r.string(root, "verb");
    e.requestURI = r.string(root, "requestURI");
    e.userAgent = r.string(root, "userAgent");
    e.sourceIPs = r.strings(root, "sourceIPs");
    if (const std::int64_t user = r.child(root, "user", Type::Object); user >= 0)
        e.user = readUser(r, user);
    if (const std::int64_t user = r.child(root, "impersonatedUser", Type::Object); user >= 0) {
        e.hasImpersonatedUser = true;
        e.impersonatedUser = readUser(r, user);
    }
    if (const std::int64_t ref = r.child(root, "objectRef", Type::Object); ref >= 0)
        readObjectRef(r, ref, e);
    if (const std::int64_t status = r.child(root, "responseStatus", Type::Object); status >= 0) {
        const std::int64_t code = r.integer(status, "code");
        e.responseCode = code >= 0 && code < 1000 ? int(code) : 0;
        e.responseReason = r.string(status, "reason");
        e.responseMessage = cutAuditUtf8(r.string(status, "message"), kMaxAuditMessageBytes);
    }
    e.requestReceivedTimestamp = r.string(root, "requestReceivedTimestamp");
    e.stageTimestamp = r.string(root, "stageTimestamp");
    if (const std::int64_t object = r.child(root, "responseObject", Type::Object); object >= 0)
        readResponseObject(r, object, e);
    if (!r.ok() || e.auditID.empty() || e.stage.empty())
        return std::nullopt;
    e.requestReceivedMicros = parseRfc3339Micros(e.requestReceivedTimestamp).value_or(0);
    e.stageMicros = parseRfc3339Micros(e.stageTimestamp).value_or(0);
    return e;
}

} // namespace fieldscope::core
