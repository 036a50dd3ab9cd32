// AuditLiveJoin (core/audit/auditimport.h): events joined while the recorder stores versions.
#include "core/audit/auditimport.h"

#include <algorithm>

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
    m_report.events += std::int64_t(decoded.events.size());
    m_report.skipped += decoded.skipped;
    for (const auto &p : decoded.problems)
        if (m_report.problems.size() < kMaxAuditProblems)
            m_report.problems.push_back(p);
    // A store that cannot be read now (a dropped connection, a lock) must not lose the events: the
    // log follower has moved past them and the webhook's queue is empty. They are held all the
    // same; the versions are offered again by the next flush (recently named objects are re-read).
    Status unread = success();
    for (const auto &e : decoded.events) {
        const auto key = auditJoinableObject(e);
        if (!key)
            continue;
        const std::string id = key->toString();
        auto it = m_tracked.find(id);
        if (it == m_tracked.end()) {
            if (m_tracked.size() >= kMaxTrackedObjects) {
                // The object named longest ago makes room; its held events still join what was offered.
                auto oldest = std::min_element(m_tracked.begin(), m_tracked.end(), [](const auto &a, const auto &b) {
                    return a.second.lastEventMs < b.second.lastEventMs;
                });
                m_tracked.erase(oldest);
            }
            it = m_tracked.emplace(id, Tracked{*key, nowMs, {}}).first;
        }
        if (!it->second.offered && unread)
            if (auto st = offerNewVersions(it->second, nowMs); !st)
                unread = st;
        it->second.lastEventMs = nowMs;
    }
    collect(m_joiner.addEvents(decoded.events, nowMs));
    return unread;
}

// Offers the versions of one object stored since the last offer. An incarnation seen for the
// first time starts at the versions observed within the hold (older ones cannot meet an event
// that is still held), with the version before them as their predecessor.
Status AuditLiveJoin::offerNewVersions(Tracked &t, std::int64_t nowMs)
{
    ObjectQuery q;
    q.resource = t.key.resource;
    q.namespace_ = t.key.namespace_;
    q.name = t.key.name;
    auto objects = m_store.findObjects(q);
    if (!objects)
        return objects.error();
    std::vector<AuditVersion> batch;
    for (const auto &o : *objects) {
        if (!(auditObjectKeyOf(o) == t.key))
            continue;
        auto infos = m_store.versions(o.id);
        if (!infos)
            return infos.error();
        const bool fresh = t.byUid.find(o.ref.uid) == t.byUid.end();
        std::size_t start = 0;
        if (fresh) {
            // Made only once its predecessor is read: a failed read leaves the incarnation fresh
            // (a retry starts within the hold again, never at the object's first version).
            Incarnation first;
            while (start < infos->size() && (*infos)[start].observedAtMs < nowMs - m_limits.holdMs)
                ++start;
            if (start > 0) {
                auto before = m_store.loadVersion(o.id, (*infos)[start - 1].seq);
                if (!before && before.error().category != ErrorCategory::Parse)
                    return before.error();
                if (before) // an unreadable one (a row someone else wrote): the next is offered alone
                    first.previous = std::move(*before);
                first.lastSeq = before ? (*infos)[start - 1].seq : 0;
            }
            t.byUid.emplace(o.ref.uid, std::move(first));
        }
        Incarnation &inc = t.byUid[o.ref.uid];
        for (std::size_t i = start; i < infos->size(); ++i) {
            const VersionInfo &info = (*infos)[i];
            if (info.seq <= inc.lastSeq)
                continue;
            auto object = m_store.loadVersion(o.id, info.seq);
            if (!object && object.error().category == ErrorCategory::Parse) {
                // Unreadable: it joins nothing, and the version after it is offered without a
                // predecessor rather than stopping every join of this object.
                if (m_report.problems.size() < kMaxAuditProblems)
                    m_report.problems.push_back(t.key.toString() + ": " + object.error().message);
                inc.lastSeq = info.seq;
                inc.previous = Json();
                inc.broken = true;
                continue;
            }
            if (!object)
                return object.error();
            auto v = auditVersionOf(*object, inc.lastSeq > 0 && !inc.broken ? &inc.previous : nullptr, info.eventType,
                                    t.key.group, t.key.resource, info.observedAtMs);
            inc.broken = false;
            if (!v)
                return v.error();
            batch.push_back(std::move(*v));
            inc.previous = std::move(*object);
            inc.lastSeq = info.seq;
            ++m_report.versions;
        }
    }
    collect(m_joiner.addVersions(batch, nowMs));
    t.offered = true;
    return success();
}

Result<AuditImportReport> AuditLiveJoin::flush(std::int64_t nowMs, const std::map<std::string, std::string> &info,
                                               bool final)
{
    auto scopes = RecordedScopes::of(m_store);
    if (!scopes)
        return scopes.error();
    m_scopes = std::move(*scopes);
    for (auto it = m_tracked.begin(); it != m_tracked.end();) {
        if (it->second.lastEventMs < nowMs - m_limits.holdMs) {
            it = m_tracked.erase(it);
            continue;
        }
        // Recently named objects (their next versions may be arriving) and any whose first offer
        // failed (the store could not be read then, however long ago).
        // One object whose versions cannot be read (a stored version that does not decode) must
        // not keep every other object's joins from being stored: it is named and tried again.
        if (!it->second.offered || it->second.lastEventMs >= nowMs - kReofferMs)
            if (auto st = offerNewVersions(it->second, nowMs); !st && m_report.problems.size() < kMaxAuditProblems)
                m_report.problems.push_back(it->second.key.toString() + ": " + st.error().describe());
        ++it;
    }
    const AuditJoinStats before = m_joiner.stats();
    collect(m_joiner.expire(final ? nowMs + m_limits.holdMs + 1 : nowMs));
    // Copies: when the store refuses the transaction, the joins stay for the next flush.
    std::vector<AuditJoin> joins;
    joins.reserve(m_joins.size());
    for (const auto &[key, j] : m_joins)
        joins.push_back(j);
    std::vector<AuditAttempt> attempts;
    for (const auto &a : m_attempts)
        if (m_scopes.covers(a.object))
            attempts.push_back(a);
    auto stored = m_store.writeAudit(joins, attempts, info);
    if (!stored)
        return stored.error();
    m_joins.clear();
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
