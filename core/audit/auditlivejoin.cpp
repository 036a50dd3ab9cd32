// AuditLiveJoin (core/audit/auditimport.h): events joined while the recorder stores versions.
#include "core/audit/auditimport.h"

#include <algorithm>
#include <limits>
#include <set>

namespace fieldscope::core {

AuditLiveJoin::AuditLiveJoin(HistoryStore &store, AuditJoinLimits limits)
    : m_store(store), m_joiner(limits), m_limits(limits)
{
}

void AuditLiveJoin::collect(AuditJoinOutput out)
{
    for (auto &j : out.joins)
        keepJoinEmission(m_joins, std::move(j));
    for (auto &a : out.attempts)
        m_attempts.push_back(std::move(a));
}

Status AuditLiveJoin::addEvents(const AuditDecodeResult &decoded, std::int64_t nowMs)
{
    AuditDecodeResult copy = decoded;
    return addEvents(std::move(copy), nowMs);
}

Status AuditLiveJoin::addEvents(AuditDecodeResult &&decoded, std::int64_t nowMs)
{
    m_report.events += std::int64_t(decoded.events.size());
    m_report.skipped += decoded.skipped;
    for (const auto &p : decoded.problems)
        if (m_report.problems.size() < kMaxAuditProblems)
            m_report.problems.push_back(p);
    // A store that cannot be read now (a dropped connection, a lock) must not lose the events: the
    // log follower has moved past them and the webhook's queue is empty. They are held all the
    // same; the versions are offered again by the next flush (recently named objects are re-read).
    // The events are held first, so the versions offered next can be taken by their exact claims
    // without their bodies being read (AuditJoiner::addClaimedVersions); their objects are noted
    // before, since the hold takes the events.
    std::vector<std::optional<AuditObjectKey>> keys;
    keys.reserve(decoded.events.size());
    for (const auto &e : decoded.events)
        keys.push_back(auditJoinableObject(e));
    collect(m_joiner.addEvents(std::move(decoded.events), nowMs));
    // Objects named for the first time have their versions offered together, read in a few
    // statements. Room is made afterwards (the objects named longest ago go; their held events
    // still join what was offered), so the lookups stay batched when the map is full.
    std::vector<Tracked *> unoffered;
    std::set<const Tracked *> listed;
    for (const auto &key : keys) {
        if (!key)
            continue;
        Tracked &t = m_tracked.try_emplace(auditObjectMapKey(*key), Tracked{*key, nowMs, {}}).first->second;
        t.lastEventMs = nowMs;
        // A pointer to a map node stays valid while other nodes come and go; none goes before the offers.
        if (!t.offered && listed.insert(&t).second)
            unoffered.push_back(&t);
    }
    Status unread = success();
    for (auto &st : offerNewVersions(unoffered, nowMs))
        if (!st && unread)
            unread = std::move(st);
    makeRoom();
    return unread;
}

// Down to kMaxTrackedObjects, the objects named longest ago first.
void AuditLiveJoin::makeRoom()
{
    if (m_tracked.size() <= kMaxTrackedObjects)
        return;
    std::vector<std::pair<std::int64_t, std::map<std::string, Tracked>::iterator>> byAge;
    byAge.reserve(m_tracked.size());
    for (auto it = m_tracked.begin(); it != m_tracked.end(); ++it)
        byAge.emplace_back(it->second.lastEventMs, it);
    const std::size_t extra = m_tracked.size() - kMaxTrackedObjects;
    std::nth_element(byAge.begin(), byAge.begin() + std::ptrdiff_t(extra - 1), byAge.end(),
                     [](const auto &x, const auto &y) { return x.first < y.first; });
    for (std::size_t i = 0; i < extra; ++i)
        m_tracked.erase(byAge[i].second);
}

// Offers the versions of each object stored since its last offer, every incarnation's, read with
// two statements per 64 objects (HistoryStore's list lookups) rather than two per object; one
// group at a time, so only 64 objects' version rows are held at once. out[i] says whether
// tracked[i]'s offer succeeded; a store that cannot be read fails its group.
std::vector<Status> AuditLiveJoin::offerNewVersions(const std::vector<Tracked *> &tracked, std::int64_t nowMs)
{
    constexpr std::size_t kGroup = 64;
    std::vector<Status> out(tracked.size(), success());
    for (std::size_t from = 0; from < tracked.size(); from += kGroup) {
        const std::vector<Tracked *> group(tracked.begin() + std::ptrdiff_t(from),
                                           tracked.begin() + std::ptrdiff_t(std::min(tracked.size(), from + kGroup)));
        auto done = offerGroup(group, nowMs);
        std::move(done.begin(), done.end(), out.begin() + std::ptrdiff_t(from));
    }
    return out;
}

std::vector<Status> AuditLiveJoin::offerGroup(const std::vector<Tracked *> &tracked, std::int64_t nowMs)
{
    std::vector<Status> out(tracked.size(), success());
    std::vector<ObjectQuery> queries(tracked.size());
    for (std::size_t i = 0; i < tracked.size(); ++i) {
        queries[i].resource = tracked[i]->key.resource;
        queries[i].namespace_ = tracked[i]->key.namespace_;
        queries[i].name = tracked[i]->key.name;
    }
    const auto failAll = [&](const Error &e) {
        std::fill(out.begin(), out.end(), Status(e));
        return out;
    };
    auto objects = m_store.findObjects(queries);
    if (!objects)
        return failAll(objects.error());
    // Each incarnation's versions after the last one offered: every stored one for one seen first.
    std::vector<std::pair<std::size_t, const HistoryObject *>> incarnations;
    std::vector<std::pair<std::int64_t, std::int64_t>> after;
    for (std::size_t i = 0; i < tracked.size(); ++i)
        for (const auto &o : (*objects)[i]) {
            if (!(auditObjectKeyOf(o) == tracked[i]->key))
                continue;
            const auto seen = tracked[i]->byUid.find(o.ref.uid);
            incarnations.emplace_back(i, &o);
            after.emplace_back(o.id, seen == tracked[i]->byUid.end() ? std::numeric_limits<std::int64_t>::min()
                                                                     : seen->second.lastSeq);
        }
    auto versions = m_store.versionsAfter(after);
    if (!versions)
        return failAll(versions.error());
    std::size_t k = 0;
    for (std::size_t i = 0; i < tracked.size(); ++i) {
        std::vector<AuditVersion> batch;
        Status read = success();
        for (; k < incarnations.size() && incarnations[k].first == i; ++k)
            if (read)
                read = offerIncarnation(*tracked[i], *incarnations[k].second, (*versions)[k], nowMs, batch);
        // What was read is offered even when a later read failed: it is past lastSeq, never read again.
        collect(m_joiner.addVersions(batch, nowMs));
        tracked[i]->offered = tracked[i]->offered || bool(read);
        out[i] = std::move(read);
    }
    return out;
}

namespace {

// A recorded version as an exact join needs it, from its row alone: the recorder stores the
// body's uid and resourceVersion with each row, and the object is the one the events named.
AuditVersion versionOfRow(const AuditObjectKey &key, const HistoryObject &object, const VersionInfo &info)
{
    AuditVersion v;
    v.object = key;
    v.uid = object.ref.uid;
    v.resourceVersion = info.resourceVersion;
    v.eventType = info.eventType;
    v.observedAtMs = info.observedAtMs;
    return v;
}

// The row's index in infos (ordered by seq); infos.size() for one stored after the list was read
// (the next flush's) or one it does not hold.
std::size_t rowIndex(const std::vector<VersionInfo> &infos, std::int64_t seq)
{
    const auto it = std::lower_bound(infos.begin(), infos.end(), seq,
                                     [](const VersionInfo &v, std::int64_t s) { return v.seq < s; });
    return it != infos.end() && it->seq == seq ? std::size_t(it - infos.begin()) : infos.size();
}

} // namespace

// One incarnation's versions after the last offered one. Those that held events claim exactly
// join from their rows; only the others (a probable join compares their writers) are read. An
// incarnation seen for the first time starts at the versions observed within the hold (older
// ones cannot meet an event that is still held), the version before them its predecessor.
Status AuditLiveJoin::offerIncarnation(Tracked &t, const HistoryObject &o, const std::vector<VersionInfo> &infos,
                                       std::int64_t nowMs, std::vector<AuditVersion> &batch)
{
    const auto [known, fresh] = t.byUid.try_emplace(o.ref.uid);
    Incarnation &inc = known->second;
    std::size_t start = 0;
    while (start < infos.size()
           && (fresh ? infos[start].observedAtMs < nowMs - m_limits.holdMs : infos[start].seq <= inc.lastSeq))
        ++start;
    if (fresh && start > 0) { // known from now on: a retry starts within the hold again
        inc.lastSeq = infos[start - 1].seq;
        inc.previousRead = false;
    }
    if (start == infos.size())
        return success();
    std::vector<AuditVersion> rows;
    for (std::size_t i = start; i < infos.size(); ++i)
        rows.push_back(versionOfRow(t.key, o, infos[i]));
    std::vector<std::size_t> unclaimed;
    collect(m_joiner.addClaimedVersions(rows, unclaimed));
    m_report.versions += std::int64_t(rows.size() - unclaimed.size());
    if (unclaimed.empty()) {
        inc.lastSeq = infos.back().seq;
        inc.previous.reset();
        inc.previousRead = false;
        return success();
    }
    return readUnclaimed(t, o, infos, start, unclaimed, batch);
}

// The unclaimed versions (indexes from `start` into infos) read in one walk of the chain, each
// decoded from the one before it (reading each on its own decoded its chain from the snapshot
// again), from the version before the first of them when its writers are not known yet.
Status AuditLiveJoin::readUnclaimed(Tracked &t, const HistoryObject &o, const std::vector<VersionInfo> &infos,
                                    std::size_t start, const std::vector<std::size_t> &unclaimed,
                                    std::vector<AuditVersion> &batch)
{
    Incarnation &inc = t.byUid[o.ref.uid];
    const std::size_t first = start + unclaimed.front(), last = start + unclaimed.back();
    std::vector<bool> wanted(infos.size(), false);
    for (const std::size_t i : unclaimed)
        wanted[start + i] = true;
    const bool readPredecessor = first > start || !inc.previousRead;
    const std::int64_t fromSeq = first > start   ? infos[first - 1].seq
                               : readPredecessor ? inc.lastSeq
                                                 : infos[first].seq;
    if (readPredecessor)
        inc.previous.reset(); // none unless the walk reads it (retention may have taken it)
    Status failed = success();
    const auto visit = [&](std::int64_t seq, const Json &object) {
        if (seq > infos[last].seq)
            return false;
        const std::size_t i = rowIndex(infos, seq);
        if (i == infos.size() || !wanted[i]) {
            inc.previous = auditPredecessorOf(object); // the predecessor, or a version a claim took
        } else {
            auto v = auditVersionOf(object, inc.previous ? &*inc.previous : nullptr, infos[i].eventType, t.key.group,
                                    t.key.resource, infos[i].observedAtMs);
            if (!v) {
                failed = v.error();
                return false;
            }
            inc.previous = auditPredecessorOf(*v);
            batch.push_back(std::move(*v));
            ++m_report.versions;
        }
        inc.lastSeq = std::max(inc.lastSeq, seq);
        inc.previousRead = true;
        return i != last;
    };
    // Unreadable (a row someone else wrote): it joins nothing, and the version after it is offered
    // without a predecessor rather than stopping every join of this object.
    const auto unreadable = [&](std::int64_t seq, const std::string &why) {
        if (seq > infos[last].seq)
            return false;
        const std::size_t i = rowIndex(infos, seq);
        if (i < infos.size() && wanted[i] && m_report.problems.size() < kMaxAuditProblems)
            m_report.problems.push_back(t.key.toString() + ": stored version " + std::to_string(seq)
                                        + " cannot be read: " + why);
        inc.previous.reset();
        inc.lastSeq = std::max(inc.lastSeq, seq);
        inc.previousRead = true;
        return i != last;
    };
    if (auto st = m_store.forEachVersion(o.id, visit, unreadable, fromSeq); !st)
        return st;
    if (!failed)
        return failed;
    if (last + 1 < infos.size()) { // claimed versions after the last unclaimed one: not read
        inc.lastSeq = infos.back().seq;
        inc.previous.reset();
        inc.previousRead = false;
    }
    return success();
}

Result<AuditImportReport> AuditLiveJoin::flush(std::int64_t nowMs, const std::map<std::string, std::string> &info,
                                               bool final)
{
    auto scopes = RecordedScopes::of(m_store);
    if (!scopes)
        return scopes.error();
    m_scopes = std::move(*scopes);
    std::vector<Tracked *> offers;
    for (auto it = m_tracked.begin(); it != m_tracked.end();) {
        if (it->second.lastEventMs < nowMs - m_limits.holdMs) {
            it = m_tracked.erase(it);
            continue;
        }
        // Recently named objects (their next versions may be arriving) and any whose first offer
        // failed (the store could not be read then, however long ago).
        // One object whose versions cannot be read (a stored version that does not decode) must
        // not keep every other object's joins from being stored: it is named and tried again.
        // An object whose events all joined has nothing a new version could join now; the next
        // event that names it offers what was stored meanwhile (its first offer read them all).
        const bool waiting = it->second.lastEventMs >= nowMs - kReofferMs && m_joiner.holdsEventsOf(it->second.key);
        if (!it->second.offered || waiting)
            offers.push_back(&it->second);
        ++it;
    }
    const std::vector<Status> offered = offerNewVersions(offers, nowMs);
    for (std::size_t i = 0; i < offers.size(); ++i)
        if (!offered[i] && m_report.problems.size() < kMaxAuditProblems)
            m_report.problems.push_back(offers[i]->key.toString() + ": " + offered[i].error().describe());
    const AuditJoinStats before = m_joiner.stats();
    collect(m_joiner.expire(final ? nowMs + m_limits.holdMs + 1 : nowMs));
    // Moved out (copying every candidate cost as much as storing it); when the store refuses the
    // transaction they go back, to be stored by the next flush.
    std::vector<AuditJoin> joins;
    joins.reserve(m_joins.size());
    for (auto &[key, j] : m_joins)
        joins.push_back(std::move(j));
    m_joins.clear();
    std::vector<AuditAttempt> attempts;
    for (const auto &a : m_attempts)
        if (m_scopes.covers(a.object))
            attempts.push_back(a);
    auto stored = m_store.writeAudit(joins, attempts, info);
    if (!stored) {
        for (auto &j : joins)
            keepJoinEmission(m_joins, std::move(j));
        return stored.error();
    }
    m_attempts.clear();
    for (const auto &j : joins)
        ++(j.match == AuditMatch::Exact      ? m_report.exact
           : j.match == AuditMatch::Probable ? m_report.probable
                                             : m_report.ambiguous);
    AuditImportReport report = std::move(m_report);
    m_report = {};
    report.attempts = std::int64_t(attempts.size());
    report.unmatched = m_joiner.stats().unmatched - before.unmatched;
    report.storedJoins = stored->joins;
    report.storedAttempts = stored->attempts;
    report.objects = std::int64_t(m_tracked.size());
    return report;
}

} // namespace fieldscope::core
