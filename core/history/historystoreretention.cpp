// HistoryStore's retention: which versions go when a policy (count, age, total bytes) says so.
#include "core/history/historystore.h"
#include "core/history/historystore_p.h"

#include <algorithm>
#include <map>
#include <optional>

namespace fieldscope::core {

using namespace historydb;

// Deletes versions before firstKeptSeq. A live object always keeps its newest version; a deleted
// object whose every version goes disappears entirely. The first kept version becomes a snapshot.
Status HistoryStore::Impl::pruneBefore(std::int64_t objectId, std::int64_t firstKeptSeq)
{
    Query o = q("SELECT last_seq, deleted, uid FROM objects WHERE id = ?");
    o.bind(1, objectId);
    if (o.step() != kRow)
        return error("prune: object");
    const std::int64_t lastSeq = o.i64(0);
    const bool deleted = o.i64(1) != 0;
    const std::string uid = o.text(2);
    o.reset();
    if (firstKeptSeq > lastSeq && !deleted)
        firstKeptSeq = lastSeq;
    if (firstKeptSeq <= lastSeq) {
        Query first = q("SELECT snapshot FROM versions WHERE object_id = ? AND seq >= ? ORDER BY seq LIMIT 1");
        first.bind(1, objectId).bind(2, firstKeptSeq);
        if (first.step() != kRow)
            return error("prune: first kept");
        const bool isSnapshot = first.i64(0) != 0;
        first.reset();
        Query sel = q("SELECT MIN(seq) FROM versions WHERE object_id = ? AND seq >= ?");
        sel.bind(1, objectId).bind(2, firstKeptSeq);
        sel.step();
        firstKeptSeq = sel.i64(0);
        sel.reset();
        // A first kept version that cannot be read (a row someone else wrote) stays a delta, which
        // readers list as unreadable: pruning goes on for every other object.
        auto doc = isSnapshot ? Result<Json>(Json()) : loadVersion(objectId, firstKeptSeq);
        if (!doc && doc.error().category != ErrorCategory::Parse)
            return doc.error();
        if (!isSnapshot && doc) {
            const std::string blob = codec.encodeSnapshot(*doc);
            Query old = q("SELECT length(data) FROM versions WHERE object_id = ? AND seq = ?");
            old.bind(1, objectId).bind(2, firstKeptSeq);
            old.step();
            totalBytes += std::int64_t(blob.size()) - old.i64(0);
            old.reset();
            Query up = q("UPDATE versions SET snapshot = 1, data = ? WHERE object_id = ? AND seq = ?");
            up.bindBlob(1, blob).bind(2, objectId).bind(3, firstKeptSeq);
            if (up.step() != kDone)
                return error("prune: rebase");
        }
    }
    Query cnt = q("SELECT COUNT(*), COALESCE(SUM(length(data)), 0) FROM versions WHERE object_id = ? AND seq < ?");
    cnt.bind(1, objectId).bind(2, firstKeptSeq);
    cnt.step();
    const std::int64_t n = cnt.i64(0);
    totalBytes -= cnt.i64(1);
    prunedVersions += n;
    cnt.reset();
    Query del = q("DELETE FROM versions WHERE object_id = ? AND seq < ?");
    del.bind(1, objectId).bind(2, firstKeptSeq);
    if (del.step() != kDone)
        return error("prune: delete");
    del.reset();
    if (firstKeptSeq > lastSeq) {
        Query gone = q("DELETE FROM objects WHERE id = ?");
        gone.bind(1, objectId);
        if (gone.step() != kDone)
            return error("prune: object");
        forgetHead(uid);
        return success();
    }
    Query upd =
        q("UPDATE objects SET version_count = version_count - ?1, pruned_count = pruned_count + ?1 WHERE id = ?2");
    upd.bind(1, n).bind(2, objectId);
    if (upd.step() != kDone)
        return error("prune: counts");
    // The head's snapshot bookkeeping may now be stale; forget it rather than reason about it
    // (the next version is a snapshot). A cold head's blobs still decode to its text.
    if (auto it = heads.find(uid); it != heads.end())
        it->second.first.snapshotBytes = 0;
    if (auto it = coldHeads.find(uid); it != coldHeads.end())
        it->second.first.snapshotBytes = 0;
    return success();
}

Status HistoryStore::Impl::pruneByCount(std::int64_t maxVersions)
{
    // Hysteresis (prune only past max + 1/8) so rebasing is amortised over many versions.
    Query over = q("SELECT id, last_seq, version_count FROM objects WHERE version_count > ?");
    over.bind(1, maxVersions + maxVersions / 8);
    std::vector<std::pair<std::int64_t, std::int64_t>> targets;
    while (over.step() == kRow)
        targets.emplace_back(over.i64(0), over.i64(1) - maxVersions + 1);
    over.reset();
    for (auto [id, keep] : targets)
        if (auto st = pruneBefore(id, keep); !st)
            return st;
    return success();
}

// Walks versions oldest-first (id order is recording order) and drops those older than the
// cutoff, then keeps dropping the oldest while the store is over its byte budget.
Status HistoryStore::Impl::pruneOldest(std::int64_t cutoffMs, std::int64_t maxTotalBytes)
{
    // A cursor, not "the front": the newest version of a live object is never pruned and would
    // otherwise block everything recorded after it.
    std::int64_t cursor = 0;
    for (;;) {
        Query front =
            q("SELECT id, object_id, seq, observed_ms, length(data) FROM versions WHERE id > ? ORDER BY id LIMIT 512");
        front.bind(1, cursor);
        std::map<std::int64_t, std::int64_t> keepFrom; // object -> first seq to keep
        std::int64_t freed = 0;
        bool done = true;
        while (front.step() == kRow) {
            const bool tooOld = front.i64(3) < cutoffMs;
            const bool overBudget = maxTotalBytes > 0 && totalBytes - freed > maxTotalBytes;
            if (!tooOld && !overBudget)
                break;
            done = false;
            cursor = front.i64(0);
            keepFrom[front.i64(1)] = front.i64(2) + 1;
            freed += front.i64(4);
        }
        front.reset();
        if (done || keepFrom.empty())
            return success();
        for (auto [id, keep] : keepFrom)
            if (auto st = pruneBefore(id, keep); !st)
                return st;
    }
}

Error HistoryStore::Impl::rollBackRetention(const Error &e)
{
    (void)exec("ROLLBACK");
    dropHeads();
    (void)loadCounters();
    dataVersion = -1;
    return e;
}

Status HistoryStore::Impl::pruneInTransaction(const RetentionPolicy &policy, std::int64_t nowMs)
{
    retentionChangesMark = conn->totalChanges();
    prunedVersions = 0;
    const std::int64_t bytesBefore = totalBytes;
    if (policy.maxVersionsPerObject > 0)
        if (auto st = pruneByCount(policy.maxVersionsPerObject); !st)
            return st;
    const std::int64_t cutoff = policy.maxAgeMs > 0 ? nowMs - policy.maxAgeMs : INT64_MIN;
    if (auto st = pruneOldest(cutoff, policy.maxTotalBytes); !st)
        return st;
    if (auto st = pruneAudit(cutoff); !st)
        return st;
    // Other writers' cached heads may name what was pruned: they drop them all on seeing this.
    if (conn->totalChanges() != retentionChangesMark) {
        Query n = q("INSERT INTO meta(key, value) VALUES('prunes', 1) "
                    "ON CONFLICT(key) DO UPDATE SET value = meta.value + 1 RETURNING value");
        if (n.step() != kRow)
            return error("prunes");
        // Ours: our heads were mended as we pruned (pruneBefore), so the next sync must not
        // take this count for another writer's and drop them all.
        prunesSeen = n.i64(0);
        n.reset();
    }
    // A team's store says who shrank it, whoever's policy it was.
    if (prunedVersions > 0 && conn->dialect() == Dialect::Postgres)
        return recordPruning(prunedVersions, bytesBefore - totalBytes, nowMs);
    return success();
}

Status HistoryStore::applyRetention(const RetentionPolicy &policy, std::int64_t nowMs)
{
    if (auto st = m_d->beginWrite(); !st)
        return st;
    if (auto st = m_d->pruneInTransaction(policy, nowMs); !st)
        return m_d->rollBackRetention(st.error());
    if (auto st = m_d->commitWrite(); !st)
        return m_d->rollBackRetention(st.error());
    return success();
}

} // namespace fieldscope::core
