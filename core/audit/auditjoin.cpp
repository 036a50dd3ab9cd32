#include "core/audit/auditjoin.h"

#include "core/base/jsonread.h"

#include <algorithm>
#include <tuple>
#include <utility>

namespace fieldscope::core {

AuditWho auditWhoOf(const AuditEvent &e)
{
    AuditWho w;
    w.user = e.user;
    w.hasImpersonatedUser = e.hasImpersonatedUser;
    w.impersonatedUser = e.impersonatedUser;
    w.userAgent = e.userAgent;
    w.sourceIPs = e.sourceIPs;
    w.verb = e.verb;
    w.requestURI = e.requestURI;
    w.fieldManager = e.fieldManager();
    w.auditID = e.auditID;
    w.requestReceivedTimestamp = e.requestReceivedTimestamp;
    w.stageTimestamp = e.stageTimestamp;
    w.responseCode = e.responseCode;
    return w;
}

std::string auditObjectMapKey(const AuditObjectKey &key)
{
    std::string s;
    for (const std::string *part : {&key.group, &key.resource, &key.namespace_, &key.name}) {
        s += std::to_string(part->size());
        s += ':';
        s += *part;
    }
    return s;
}

namespace {

std::vector<AuditVersionManager> readManagers(JsonReader &r, const Json &object)
{
    std::vector<AuditVersionManager> out;
    const Json *meta = r.object(object, "metadata", "");
    const Json *entries = meta ? r.array(*meta, "managedFields", "metadata") : nullptr;
    if (!entries)
        return out;
    for (std::size_t i = 0; i < entries->size(); ++i) {
        const Json &entry = (*entries)[i];
        const std::string at = jsonPath("metadata.managedFields", i);
        if (!r.expectObject(entry, at))
            break;
        AuditVersionManager m;
        m.manager = r.string(entry, "manager", at);
        m.operation = r.string(entry, "operation", at);
        m.subresource = r.string(entry, "subresource", at);
        m.timeSeconds = parseRfc3339Micros(r.string(entry, "time", at)).value_or(0) / 1000000;
        out.push_back(std::move(m));
    }
    return out;
}

// `writer`: the entries that may have made this version (see auditVersionOf in auditjoin.h).
void markWriters(std::vector<AuditVersionManager> &managers, const std::vector<AuditVersionManager> *before)
{
    bool anyWriter = false;
    for (auto &m : managers) {
        m.writer = true;
        if (before) {
            const auto old = std::find_if(before->begin(), before->end(), [&](const AuditVersionManager &b) {
                return b.manager == m.manager && b.operation == m.operation && b.subresource == m.subresource;
            });
            m.writer = old == before->end() || old->timeSeconds != m.timeSeconds;
        }
        anyWriter = anyWriter || m.writer;
    }
    if (anyWriter)
        return;
    std::int64_t newest = 0;
    for (const auto &m : managers)
        newest = std::max(newest, m.timeSeconds);
    for (auto &m : managers)
        m.writer = m.timeSeconds == newest && newest > 0;
}

} // namespace

AuditPredecessor auditPredecessorOf(const Json &previous)
{
    AuditPredecessor p;
    if (!previous.is_object())
        return p; // no entries to compare with: every entry of the next version is new
    JsonReader r("object for the audit join");
    p.managers = readManagers(r, previous);
    if (!r.ok())
        p.error = r.error();
    return p;
}

AuditPredecessor auditPredecessorOf(const AuditVersion &previous)
{
    return {previous.managers, std::nullopt};
}

Result<AuditVersion> auditVersionOf(const Json &object, const Json *previous, HistoryEventType type,
                                    const std::string &group, const std::string &resource, std::int64_t observedAtMs)
{
    if (!previous)
        return auditVersionOf(object, static_cast<const AuditPredecessor *>(nullptr), type, group, resource,
                              observedAtMs);
    const AuditPredecessor before = auditPredecessorOf(*previous);
    return auditVersionOf(object, &before, type, group, resource, observedAtMs);
}

Result<AuditVersion> auditVersionOf(const Json &object, const AuditPredecessor *previous, HistoryEventType type,
                                    const std::string &group, const std::string &resource, std::int64_t observedAtMs)
{
    JsonReader r("object for the audit join");
    if (!r.expectObject(object, ""))
        return r.error();
    AuditVersion v;
    v.object.group = group;
    v.object.resource = resource;
    v.eventType = type;
    v.observedAtMs = observedAtMs;
    if (const Json *meta = r.object(object, "metadata", "")) {
        v.object.namespace_ = r.string(*meta, "namespace", "metadata");
        v.object.name = r.string(*meta, "name", "metadata");
        v.uid = r.string(*meta, "uid", "metadata");
        v.resourceVersion = r.string(*meta, "resourceVersion", "metadata");
    }
    v.managers = readManagers(r, object);
    if (!r.ok())
        return r.error();
    if (previous && previous->error)
        return *previous->error; // the first wrong type, as one reader of both found it
    markWriters(v.managers, previous ? &previous->managers : nullptr);
    return v;
}

// ---------------------------------------------------------------------------------------------

namespace {

struct HeldEvent {
    explicit HeldEvent(AuditEvent &&e) : event(std::move(e)) {}
    AuditEvent event;
    std::size_t bytes = 0; // auditEventBytes(event), counted in State::heldEventBytes
    std::string objectKey;
    std::int64_t arrivedMs = 0;
    bool joined = false; // it became a candidate of some version
    std::string manager; // event.fieldManager(), computed once
};

struct HeldVersion {
    AuditVersion version;
    std::string objectKey;
    std::int64_t arrivedMs = 0;
    std::vector<std::uint64_t> candidates; // held event ids, in arrival order, at most maxCandidates
    bool moreCandidates = false;
    bool emitted = false;
    AuditJoin last;
};

std::string exactKey(const std::string &group, const std::string &resource, const std::string &rv)
{
    return group + '\x1f' + resource + '\x1f' + rv;
}

AuditObjectKey objectKeyOf(const AuditEvent &e)
{
    return {e.objectRef.apiGroup, e.objectRef.resource, e.objectRef.namespace_, e.objectRef.name};
}

bool isAttemptCode(int code)
{
    return code == 403 || code == 409 || code == 422;
}

bool operationFits(const std::string &operation, const std::string &verb)
{
    if (operation == "Apply")
        return verb == "patch";
    return verb == "create" || verb == "update" || verb == "patch";
}

bool verbFits(HistoryEventType type, const std::string &verb)
{
    switch (type) {
    case HistoryEventType::Deleted: return verb == "delete";
    case HistoryEventType::Modified: return verb == "update" || verb == "patch";
    case HistoryEventType::Added:
    case HistoryEventType::Listed: return verb == "create" || verb == "update" || verb == "patch";
    }
    return false;
}

std::int64_t floorSeconds(std::int64_t micros)
{
    return micros >= 0 ? micros / 1000000 : -((-micros + 999999) / 1000000);
}

// An exact join names the version by group, resource and resourceVersion; the event must also be
// about the same object: its namespace, its name (or, where the event names none, its uid), and
// its uid where the answer carried one. A resourceVersion alone is no proof: one event could
// otherwise claim another object's version.
bool agreesOnObject(const AuditEvent &e, const AuditVersion &v)
{
    if (e.objectRef.namespace_ != v.object.namespace_)
        return false;
    if (!e.responseUid.empty() && !v.uid.empty() && e.responseUid != v.uid)
        return false;
    if (e.objectRef.name.empty())
        return !e.responseUid.empty() && e.responseUid == v.uid;
    return e.objectRef.name == v.object.name;
}

} // namespace

struct AuditJoiner::State {
    std::map<std::uint64_t, HeldEvent> events; // id order is arrival order
    std::map<std::uint64_t, HeldVersion> versions;
    std::unordered_map<std::string, std::vector<std::uint64_t>> eventsByObject; // probable events
    std::unordered_map<std::string, std::vector<std::uint64_t>> versionsByObject;
    // group/resource/rv -> every held event claiming it, in arrival order: none wins by its time
    std::unordered_map<std::string, std::vector<std::uint64_t>> exactEvents;
    // deleted uid -> every held delete claiming it, in arrival order: one naming another object
    // (a forged uid) must not push out the real one
    std::unordered_map<std::string, std::vector<std::uint64_t>> deleteEvents;
    std::unordered_map<std::string, std::uint64_t> exactVersions;   // group/resource/rv
    std::unordered_map<std::string, std::uint64_t> deletedVersions; // uid
    std::unordered_map<std::string, std::size_t> heldPerObject;     // objectKey -> held events
    // Versions an exact claim joined (group/resource/rv), so a later claim for the same version is
    // reported too (the store makes it contested when it names someone else). Oldest let go first.
    std::unordered_map<std::string, AuditVersion> joinedExact;
    std::deque<std::string> joinedExactOrder;
    std::size_t maxJoinedExact = 100000;
    std::unordered_set<std::string> seen;
    std::deque<std::string> seenOrder;
    std::uint64_t nextId = 1;
    std::size_t heldEventBytes = 0;
    std::int64_t toleranceSeconds = 0;
    std::int64_t deleteWindowMs = 10000;

    bool fits(const HeldEvent &held, const AuditVersion &v) const;
    void rememberJoined(const std::string &key, const AuditVersion &v);
    // `exactIndexed` false: the caller took the event's claim out of exactEvents already.
    void dropEvent(std::uint64_t id, bool exactIndexed = true);
    void dropVersion(std::uint64_t id);
};

bool AuditJoiner::State::fits(const HeldEvent &held, const AuditVersion &v) const
{
    const AuditEvent &e = held.event;
    if (!verbFits(v.eventType, e.verb))
        return false;
    if (!e.objectRef.uid.empty() && !v.uid.empty() && e.objectRef.uid != v.uid)
        return false;
    if (v.eventType == HistoryEventType::Deleted) {
        const std::int64_t diff = e.stageMicros / 1000 - v.observedAtMs;
        return e.stageMicros > 0 && diff <= deleteWindowMs && diff >= -deleteWindowMs;
    }
    const std::int64_t start = e.requestReceivedMicros > 0 ? e.requestReceivedMicros : e.stageMicros;
    if (start <= 0 || e.stageMicros <= 0)
        return false;
    const std::int64_t lo = floorSeconds(start) - toleranceSeconds;
    const std::int64_t hi = floorSeconds(e.stageMicros) + toleranceSeconds;
    return std::any_of(v.managers.begin(), v.managers.end(), [&](const AuditVersionManager &m) {
        return m.writer && m.manager == held.manager && m.subresource == e.objectRef.subresource
            && operationFits(m.operation, e.verb) && m.timeSeconds >= lo && m.timeSeconds <= hi;
    });
}

void AuditJoiner::State::dropEvent(std::uint64_t id, bool exactIndexed)
{
    auto it = events.find(id);
    if (it == events.end())
        return;
    const AuditEvent &e = it->second.event;
    if (auto x = eventsByObject.find(it->second.objectKey); x != eventsByObject.end()) {
        std::erase(x->second, id);
        if (x->second.empty())
            eventsByObject.erase(x);
    }
    if (auto x = exactIndexed
                   ? exactEvents.find(exactKey(e.objectRef.apiGroup, e.objectRef.resource, e.responseResourceVersion))
                   : exactEvents.end();
        x != exactEvents.end()) {
        std::erase(x->second, id);
        if (x->second.empty())
            exactEvents.erase(x);
    }
    if (auto x = deleteEvents.find(e.responseUid); x != deleteEvents.end()) {
        std::erase(x->second, id);
        if (x->second.empty())
            deleteEvents.erase(x);
    }
    if (auto x = heldPerObject.find(it->second.objectKey); x != heldPerObject.end() && --x->second == 0)
        heldPerObject.erase(x);
    heldEventBytes -= std::min(heldEventBytes, it->second.bytes);
    events.erase(it);
}

void AuditJoiner::State::rememberJoined(const std::string &key, const AuditVersion &v)
{
    AuditVersion kept{v.object, v.uid, v.resourceVersion, v.eventType, v.observedAtMs, {}};
    if (joinedExact.insert_or_assign(key, std::move(kept)).second)
        joinedExactOrder.push_back(key);
    while (joinedExactOrder.size() > maxJoinedExact) {
        joinedExact.erase(joinedExactOrder.front());
        joinedExactOrder.pop_front();
    }
}

void AuditJoiner::State::dropVersion(std::uint64_t id)
{
    auto it = versions.find(id);
    if (it == versions.end())
        return;
    const AuditVersion &v = it->second.version;
    std::erase(versionsByObject[it->second.objectKey], id);
    if (versionsByObject[it->second.objectKey].empty())
        versionsByObject.erase(it->second.objectKey);
    if (auto x = exactVersions.find(exactKey(v.object.group, v.object.resource, v.resourceVersion));
        x != exactVersions.end() && x->second == id)
        exactVersions.erase(x);
    if (auto x = deletedVersions.find(v.uid); x != deletedVersions.end() && x->second == id)
        deletedVersions.erase(x);
    versions.erase(it);
}

AuditJoiner::AuditJoiner(AuditJoinLimits limits) : m_limits(limits), m_state(std::make_unique<State>())
{
    m_state->toleranceSeconds = limits.toleranceSeconds;
    m_state->deleteWindowMs = limits.deleteWindowMs;
    m_state->maxJoinedExact = limits.maxHeldVersions;
}

AuditJoiner::~AuditJoiner() = default;

std::size_t AuditJoiner::heldEvents() const
{
    return m_state->events.size();
}

std::size_t AuditJoiner::heldVersions() const
{
    return m_state->versions.size();
}

bool AuditJoiner::holdsEventsOf(const AuditObjectKey &object) const
{
    return m_state->heldPerObject.contains(auditObjectMapKey(object));
}

void keepJoinEmission(std::map<std::pair<std::string, std::string>, AuditJoin> &kept, AuditJoin join)
{
    auto key = std::make_pair(join.uid, join.resourceVersion);
    auto it = kept.lower_bound(key); // one walk of the tree, which holds a flush's joins
    if (it == kept.end() || it->first != key) {
        kept.emplace_hint(it, std::move(key), std::move(join));
        return;
    }
    AuditJoin &held = it->second;
    if (join.match != AuditMatch::Exact) {
        if (held.match != AuditMatch::Exact)
            held = std::move(join);
        return;
    }
    if (held.match != AuditMatch::Exact) {
        held = std::move(join);
        return;
    }
    for (auto &claim : join.candidates)
        if (std::none_of(held.candidates.begin(), held.candidates.end(), [&claim](const AuditWho &w) {
                return w.auditID == claim.auditID && w.stageTimestamp == claim.stageTimestamp
                    && auditActingName(w) == auditActingName(claim);
            }))
            held.candidates.push_back(std::move(claim));
}

void AuditJoiner::addUnmatched(const AuditEvent &event, AuditJoinOutput &out)
{
    ++m_stats.unmatched;
    AuditUnmatched u{objectKeyOf(event), event.responseResourceVersion, auditWhoOf(event)};
    out.unmatched.push_back(u);
    std::size_t bytes = sizeof(AuditUnmatched) + u.who.userAgent.size() + u.who.requestURI.size()
                      + u.who.user.username.size() + u.who.impersonatedUser.username.size();
    for (const auto *groups : {&u.who.user.groups, &u.who.impersonatedUser.groups})
        for (const auto &g : *groups)
            bytes += sizeof(std::string) + g.size();
    for (const auto &ip : u.who.sourceIPs)
        bytes += sizeof(std::string) + ip.size();
    m_unmatched.push_back(std::move(u));
    m_unmatchedSizes.push_back(bytes);
    m_unmatchedBytes += bytes;
    while (!m_unmatched.empty()
           && (m_unmatched.size() > m_limits.maxUnmatched || m_unmatchedBytes > m_limits.maxUnmatchedBytes)) {
        m_unmatchedBytes -= m_unmatchedSizes.front();
        m_unmatched.pop_front();
        m_unmatchedSizes.pop_front();
    }
}

} // namespace fieldscope::core

namespace fieldscope::core {

void AuditJoiner::emitExact(AuditWho who, const AuditVersion &version, AuditJoinOutput &out)
{
    AuditJoin join{version.object, version.uid, version.resourceVersion, AuditMatch::Exact, {}};
    join.candidates.push_back(std::move(who));
    ++m_stats.exact;
    out.joins.push_back(std::move(join));
}

void AuditJoiner::emitIfChanged(std::uint64_t versionId, AuditJoinOutput &out)
{
    HeldVersion &held = m_state->versions.at(versionId);
    if (held.candidates.empty())
        return; // never a guess
    std::vector<const AuditEvent *> events;
    for (std::uint64_t id : held.candidates)
        events.push_back(&m_state->events.at(id).event);
    std::stable_sort(events.begin(), events.end(),
                     [](const AuditEvent *a, const AuditEvent *b) { return a->stageMicros < b->stageMicros; });
    AuditJoin join{held.version.object,
                   held.version.uid,
                   held.version.resourceVersion,
                   events.size() == 1 && !held.moreCandidates ? AuditMatch::Probable : AuditMatch::Ambiguous,
                   {},
                   held.moreCandidates};
    for (const AuditEvent *e : events)
        join.candidates.push_back(auditWhoOf(*e));
    if (held.emitted && held.last == join)
        return;
    ++(join.match == AuditMatch::Probable ? m_stats.probable : m_stats.ambiguous);
    held.emitted = true;
    held.last = join;
    out.joins.push_back(std::move(join));
}

// An event leaves the hold: unmatched when no version ever fitted it.
void AuditJoiner::letGo(std::uint64_t eventId, AuditJoinOutput &out)
{
    auto it = m_state->events.find(eventId);
    if (it == m_state->events.end())
        return;
    if (!it->second.joined)
        addUnmatched(it->second.event, out);
    // Versions keep their emitted join; the event stops being a future candidate.
    if (auto found = m_state->versionsByObject.find(it->second.objectKey); found != m_state->versionsByObject.end())
        for (std::uint64_t vid : found->second)
            std::erase(m_state->versions.at(vid).candidates, eventId);
    m_state->dropEvent(eventId);
}

// An event whose version is held, or was claimed before: joined at once, never held.
bool AuditJoiner::joinOnArrival(const AuditEvent &e, AuditJoinOutput &out)
{
    State &s = *m_state;
    const bool isDelete = e.verb == "delete";
    // Exact first: the version may already be here, or an earlier claim joined it.
    if (!isDelete && !e.responseResourceVersion.empty()) {
        const std::string key = exactKey(e.objectRef.apiGroup, e.objectRef.resource, e.responseResourceVersion);
        if (auto v = s.exactVersions.find(key); v != s.exactVersions.end()) {
            const AuditVersion &version = s.versions.at(v->second).version;
            if (agreesOnObject(e, version)) {
                emitExact(auditWhoOf(e), version, out);
                s.rememberJoined(key, version);
                s.dropVersion(v->second);
                return true;
            }
        } else if (auto j = s.joinedExact.find(key); j != s.joinedExact.end() && agreesOnObject(e, j->second)) {
            emitExact(auditWhoOf(e), j->second, out); // a second claim: the store keeps both
            return true;
        }
    }
    if (isDelete && !e.responseUid.empty()) {
        if (auto v = s.deletedVersions.find(e.responseUid);
            v != s.deletedVersions.end() && agreesOnObject(e, s.versions.at(v->second).version)) {
            emitExact(auditWhoOf(e), s.versions.at(v->second).version, out);
            s.dropVersion(v->second);
            return true;
        }
    }
    return false;
}

void AuditJoiner::holdEvent(AuditEvent &&event, std::int64_t nowMs, AuditJoinOutput &out)
{
    State &s = *m_state;
    const std::uint64_t id = s.nextId++;
    // Moved, not copied (the caller gave it up), straight into the map's node.
    HeldEvent &held = s.events
                          .emplace_hint(s.events.end(), std::piecewise_construct, std::forward_as_tuple(id),
                                        std::forward_as_tuple(std::move(event)))
                          ->second;
    const AuditEvent &e = held.event;
    const bool isDelete = e.verb == "delete";
    held.bytes = auditEventBytes(e);
    s.heldEventBytes += held.bytes;
    held.objectKey = auditObjectMapKey(objectKeyOf(e));
    held.arrivedMs = nowMs;
    held.manager = e.fieldManager();
    ++s.heldPerObject[held.objectKey];
    if (!isDelete && !e.responseResourceVersion.empty()) {
        // A no-op write answers with the unchanged object, so a later request can carry the same
        // resourceVersion; so can a forged event. Every claim is held and reported; the store
        // tells the same person's no-op from someone else's claim (never by the events' times).
        s.exactEvents[exactKey(e.objectRef.apiGroup, e.objectRef.resource, e.responseResourceVersion)].push_back(id);
        return; // an event that carries its version joins only exactly
    }
    if (isDelete && !e.responseUid.empty()) {
        s.deleteEvents[e.responseUid].push_back(id);
        return;
    }
    s.eventsByObject[held.objectKey].push_back(id);
    const auto found = s.versionsByObject.find(held.objectKey);
    if (found == s.versionsByObject.end())
        return;
    for (std::uint64_t vid : found->second) {
        HeldVersion &v = s.versions.at(vid);
        if (!s.fits(held, v.version))
            continue;
        held.joined = true;
        if (v.moreCandidates)
            continue; // already listed as "more than maxCandidates": nothing changes
        if (v.candidates.size() < m_limits.maxCandidates)
            v.candidates.push_back(id);
        else
            v.moreCandidates = true;
        emitIfChanged(vid, out);
    }
}

namespace {

// auditWhoOf of a held event that is dropped right after: its strings are moved, not copied.
// dropEvent reads only the object and response fields, which a who does not hold.
AuditWho takeWho(HeldEvent &held)
{
    AuditEvent &e = held.event;
    AuditWho w;
    w.user = std::move(e.user);
    w.hasImpersonatedUser = e.hasImpersonatedUser;
    w.impersonatedUser = std::move(e.impersonatedUser);
    w.userAgent = std::move(e.userAgent);
    w.sourceIPs = std::move(e.sourceIPs);
    w.verb = std::move(e.verb);
    w.requestURI = std::move(e.requestURI);
    w.fieldManager = std::move(held.manager);
    w.auditID = std::move(e.auditID);
    w.requestReceivedTimestamp = std::move(e.requestReceivedTimestamp);
    w.stageTimestamp = std::move(e.stageTimestamp);
    w.responseCode = e.responseCode;
    return w;
}

} // namespace

bool AuditJoiner::joinHeldClaims(const AuditVersion &version, AuditJoinOutput &out)
{
    State &s = *m_state;
    const std::string xkey = exactKey(version.object.group, version.object.resource, version.resourceVersion);
    if (auto e = s.exactEvents.find(xkey); e != s.exactEvents.end()) {
        // The claims are taken out of the index (dropEvent then finds none to erase); those about
        // another object stay.
        std::vector<std::uint64_t> claims = std::move(e->second);
        s.exactEvents.erase(e);
        std::vector<std::uint64_t> others;
        for (const std::uint64_t id : claims) {
            HeldEvent &held = s.events.at(id);
            if (!agreesOnObject(held.event, version)) {
                others.push_back(id);
                continue;
            }
            emitExact(takeWho(held), version, out);
            s.dropEvent(id, false);
        }
        const bool joined = others.size() < claims.size();
        if (!others.empty())
            s.exactEvents.emplace(xkey, std::move(others));
        if (joined) {
            s.rememberJoined(xkey, version);
            return true;
        }
    }
    if (version.eventType == HistoryEventType::Deleted && !version.uid.empty()) {
        if (auto e = s.deleteEvents.find(version.uid); e != s.deleteEvents.end()) {
            // Every delete about this object claims it (none wins by its time); the others wait.
            const std::vector<std::uint64_t> claims = e->second;
            bool joined = false;
            for (const std::uint64_t id : claims) {
                HeldEvent &held = s.events.at(id);
                if (!agreesOnObject(held.event, version))
                    continue;
                emitExact(takeWho(held), version, out);
                s.dropEvent(id);
                joined = true;
            }
            if (joined)
                return true;
        }
    }
    return false;
}

void AuditJoiner::holdVersion(const AuditVersion &version, std::int64_t nowMs, AuditJoinOutput &out)
{
    if (joinHeldClaims(version, out))
        return;
    State &s = *m_state;
    const std::string xkey = exactKey(version.object.group, version.object.resource, version.resourceVersion);
    const std::uint64_t id = s.nextId++;
    HeldVersion &held = s.versions[id];
    held.version = version;
    held.objectKey = auditObjectMapKey(version.object);
    held.arrivedMs = nowMs;
    s.versionsByObject[held.objectKey].push_back(id);
    if (!version.resourceVersion.empty())
        s.exactVersions[xkey] = id;
    if (version.eventType == HistoryEventType::Deleted && !version.uid.empty())
        s.deletedVersions[version.uid] = id;
    const auto found = s.eventsByObject.find(held.objectKey);
    if (found == s.eventsByObject.end())
        return;
    for (std::uint64_t eid : found->second) {
        HeldEvent &e = s.events.at(eid);
        if (!s.fits(e, version))
            continue;
        e.joined = true;
        if (held.candidates.size() < m_limits.maxCandidates)
            held.candidates.push_back(eid);
        else
            held.moreCandidates = true;
    }
    emitIfChanged(id, out);
}

void AuditJoiner::enforceBounds(AuditJoinOutput &out)
{
    while (!m_state->events.empty()
           && (m_state->events.size() > m_limits.maxHeldEvents || m_state->heldEventBytes > m_limits.maxHeldEventBytes))
        letGo(m_state->events.begin()->first, out);
    while (m_state->versions.size() > m_limits.maxHeldVersions) {
        ++m_stats.versionsDropped;
        m_state->dropVersion(m_state->versions.begin()->first);
    }
}

// Whether an event is to be held (a final, successful write on a named object seen for the first
// time); the others are counted, and a refused write becomes an attempt.
bool AuditJoiner::admit(const AuditEvent &e, AuditJoinOutput &out)
{
    State &s = *m_state;
    // The same event seen twice (a log and the webhook) has the same ID, stage and user; an
    // event that reuses a real one's ID for another user is not it, and is not dropped.
    std::string id = e.auditID + '\x1f' + e.stage + '\x1f' + e.user.username + '\x1f' + e.impersonatedUser.username;
    if (!s.seen.insert(id).second) {
        ++m_stats.duplicates;
        return false;
    }
    s.seenOrder.push_back(std::move(id));
    while (s.seenOrder.size() > m_limits.maxRememberedIds) {
        s.seen.erase(s.seenOrder.front());
        s.seenOrder.pop_front();
    }
    if (!e.isFinal()) {
        ++m_stats.notFinal;
        return false;
    }
    if (!e.isWrite() || !e.hasObjectRef || e.objectRef.resource.empty() || e.isDryRun()) {
        ++m_stats.ignored;
        return false;
    }
    if (isAttemptCode(e.responseCode)) {
        ++m_stats.attempts;
        out.attempts.push_back({objectKeyOf(e), e.objectRef.uid, auditWhoOf(e), e.responseCode, e.responseReason,
                                e.responseMessage});
        return false;
    }
    // deletecollection names no object; other failures stored nothing.
    if (!e.succeeded() || e.verb == "deletecollection" || e.objectRef.name.empty()) {
        ++m_stats.ignored;
        return false;
    }
    ++m_stats.events;
    return true;
}

AuditJoinOutput AuditJoiner::addEvents(const std::vector<AuditEvent> &events, std::int64_t nowMs)
{
    AuditJoinOutput out;
    for (const AuditEvent &e : events)
        if (admit(e, out) && !joinOnArrival(e, out))
            holdEvent(AuditEvent(e), nowMs, out);
    enforceBounds(out);
    return out;
}

AuditJoinOutput AuditJoiner::addEvents(std::vector<AuditEvent> &&events, std::int64_t nowMs)
{
    AuditJoinOutput out;
    for (AuditEvent &e : events)
        if (admit(e, out) && !joinOnArrival(e, out))
            holdEvent(std::move(e), nowMs, out);
    enforceBounds(out);
    events.clear();
    return out;
}

AuditJoinOutput AuditJoiner::addVersions(const std::vector<AuditVersion> &versions, std::int64_t nowMs)
{
    AuditJoinOutput out;
    for (const AuditVersion &v : versions)
        holdVersion(v, nowMs, out);
    enforceBounds(out);
    return out;
}

AuditJoinOutput AuditJoiner::addClaimedVersions(const std::vector<AuditVersion> &versions,
                                                std::vector<std::size_t> &unclaimed)
{
    AuditJoinOutput out;
    out.joins.reserve(versions.size()); // a join each, usually
    for (std::size_t i = 0; i < versions.size(); ++i)
        if (!joinHeldClaims(versions[i], out))
            unclaimed.push_back(i);
    return out;
}

AuditJoinOutput AuditJoiner::expire(std::int64_t nowMs)
{
    AuditJoinOutput out;
    State &s = *m_state;
    while (!s.events.empty() && nowMs - s.events.begin()->second.arrivedMs > m_limits.holdMs)
        letGo(s.events.begin()->first, out);
    while (!s.versions.empty() && nowMs - s.versions.begin()->second.arrivedMs > m_limits.holdMs)
        s.dropVersion(s.versions.begin()->first);
    return out;
}

} // namespace fieldscope::core
