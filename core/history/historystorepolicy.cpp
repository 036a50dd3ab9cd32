// A shared store's own retention: the policy its owner sets (`fieldscope store retention`), which
// every recorder of the store prunes to, and the record of who pruned what. A file has neither:
// its retention is its user's (Settings).
#include "core/history/historystore.h"
#include "core/history/historystore_p.h"

#include <algorithm>
#include <cstdlib>

namespace fieldscope::core {

using namespace historydb;

namespace {

constexpr std::int64_t kDayMs = 24ll * 3600 * 1000;

// The policy is one row everyone may read and only the owner may write: row security with a
// policy for reading only, which the table's owner (and whoever holds the owner's role) bypasses.
// A role granted the tables' rights instead of the owner's role records and prunes, and cannot
// change what the team keeps. The prunings' ids are taken under the write lock (no sequence, so
// such a role needs no right on one).
constexpr const char *kPolicyTables = R"sql(
CREATE TABLE IF NOT EXISTS store_retention(
  id BIGINT PRIMARY KEY CHECK (id = 1), max_versions BIGINT NOT NULL, max_age_ms BIGINT NOT NULL,
  max_bytes BIGINT NOT NULL, set_by TEXT NOT NULL, set_ms BIGINT NOT NULL);
ALTER TABLE store_retention ENABLE ROW LEVEL SECURITY;
DO $$ BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_policies WHERE schemaname = current_schema()
                 AND tablename = 'store_retention' AND policyname = 'fieldscope_everyone_reads') THEN
    CREATE POLICY fieldscope_everyone_reads ON store_retention FOR SELECT USING (true);
  END IF;
END $$;
CREATE TABLE IF NOT EXISTS prunings(
  id BIGINT PRIMARY KEY, recorder TEXT NOT NULL, at_ms BIGINT NOT NULL, versions BIGINT NOT NULL,
  bytes BIGINT NOT NULL);
)sql";

// Held (per session) by the recorder pruning the store: the others skip their round instead of
// queueing behind it to prune what it just pruned.
constexpr const char *kPruneLock = "SELECT pg_try_advisory_lock(70463, hashtext(current_schema()))";
constexpr const char *kPruneUnlock = "SELECT pg_advisory_unlock(70463, hashtext(current_schema()))";

Error fileHasNoPolicy()
{
    return Error::make(ErrorCategory::Config, "a history file keeps the retention of its user's Settings; only a "
                                              "shared (PostgreSQL) store has a retention policy of its own");
}

} // namespace

std::string checkRetentionChange(const RetentionChange &change)
{
    const auto outside = [](const std::optional<std::int64_t> &v, std::int64_t min, std::int64_t max) {
        return v && *v != 0 && (*v < min || *v > max);
    };
    // One version per object shows no change, and a live object always keeps its newest anyway.
    if (outside(change.maxVersionsPerObject, 2, 100'000'000))
        return "versions per object: 0 (no limit) or 2 to 100000000";
    if (outside(change.maxAgeMs, kDayMs, 36500 * kDayMs))
        return "days: 0 (no limit) or 1 to 36500";
    if (outside(change.maxTotalBytes, 1ll << 20, INT64_MAX))
        return "bytes: 0 (no limit) or 1 MiB (1048576) and more";
    return {};
}

Status HistoryStore::Impl::createStorePolicyTables()
{
    return exec(kPolicyTables);
}

Result<StoreRetention> HistoryStore::Impl::readStoreRetention()
{
    StoreRetention out;
    auto has = conn->hasTable("store_retention");
    if (!has)
        return has.error();
    if (!*has)
        return out; // a store older than the policy: the defaults
    Query r = q("SELECT max_versions, max_age_ms, max_bytes, substr(set_by, 1, 256), set_ms FROM store_retention "
                "WHERE id = 1");
    const int rc = r.step();
    if (rc == kRow) {
        out.policy = {r.i64(0), r.i64(2), r.i64(1)};
        out.set = true;
        out.setBy = r.text(3);
        out.setAtMs = r.i64(4);
    } else if (rc != kDone) {
        return error("store retention");
    }
    return out;
}

Status HistoryStore::Impl::recordPruning(std::int64_t versions, std::int64_t bytes, std::int64_t nowMs)
{
    Query next = q("SELECT COALESCE(MAX(id), 0) + 1 FROM prunings");
    if (next.step() != kRow)
        return error("prunings");
    const std::int64_t id = next.i64(0);
    next.reset();
    Query add = q("INSERT INTO prunings(id, recorder, at_ms, versions, bytes) "
                  "VALUES(?1, COALESCE(NULLIF(?2, ''), CAST(current_user AS TEXT)), ?3, ?4, ?5)");
    add.bind(1, id).bind(2, recorderName).bind(3, nowMs).bind(4, versions).bind(5, bytes);
    if (add.step() != kDone)
        return error("prunings");
    add.reset();
    Query trim = q("DELETE FROM prunings WHERE id <= ?1");
    trim.bind(1, id - HistoryStore::kKeptPrunings);
    if (trim.step() != kDone)
        return error("prunings");
    return success();
}

Result<StoreRetention> HistoryStore::storeRetention()
{
    if (!isShared())
        return fileHasNoPolicy();
    return m_d->readStoreRetention();
}

Status HistoryStore::applyStoreRetention(std::int64_t nowMs, std::int64_t minIntervalMs)
{
    if (!isShared())
        return fileHasNoPolicy();
    Query lock = m_d->q(kPruneLock);
    if (lock.step() != kRow)
        return m_d->error("retention lock");
    const bool ours = lock.i64(0) != 0;
    lock.reset();
    if (!ours)
        return success(); // another recorder is pruning this store right now
    const auto prune = [&]() -> Status {
        if (auto st = m_d->beginWrite(); !st)
            return st;
        Query last = m_d->q("SELECT COALESCE((SELECT value FROM meta WHERE key = 'retention_ms'), 0)");
        if (last.step() != kRow)
            return m_d->rollBackRetention(m_d->error("retention time"));
        const std::int64_t lastMs = last.i64(0);
        last.reset();
        // Either way round: another host's clock may be ahead of ours.
        if (lastMs > 0 && std::llabs(nowMs - lastMs) < minIntervalMs)
            return m_d->exec("ROLLBACK");
        auto policy = m_d->readStoreRetention();
        if (!policy)
            return m_d->rollBackRetention(policy.error());
        if (auto st = m_d->pruneInTransaction(policy->policy, nowMs); !st)
            return m_d->rollBackRetention(st.error());
        Query mark = m_d->q("INSERT INTO meta(key, value) VALUES('retention_ms', ?1) "
                            "ON CONFLICT(key) DO UPDATE SET value = ?1");
        mark.bind(1, nowMs);
        if (mark.step() != kDone)
            return m_d->rollBackRetention(m_d->error("retention time"));
        mark.reset();
        if (auto st = m_d->commitWrite(); !st)
            return m_d->rollBackRetention(st.error());
        return success();
    };
    Status st = prune();
    Query unlock = m_d->q(kPruneUnlock);
    (void)unlock.step(); // a connection that broke has lost the lock with it
    return st;
}

Result<HistoryStore::Ownership> HistoryStore::ownership()
{
    if (!isShared())
        return fileHasNoPolicy();
    // The policy's table when the store has it (its row security is what refuses the others),
    // else the versions' (the same role made both).
    Query o = m_d->q("SELECT pg_get_userbyid(c.relowner), CAST(current_user AS TEXT), pg_has_role(c.relowner, 'USAGE') "
                     "FROM pg_class c WHERE c.oid = COALESCE(to_regclass('store_retention'), to_regclass('versions'))");
    if (o.step() != kRow)
        return m_d->error("store owner");
    return Ownership{o.text(0), o.text(1), o.i64(2) != 0};
}

Status HistoryStore::setStoreRetention(const RetentionChange &change, std::int64_t nowMs)
{
    if (!isShared())
        return fileHasNoPolicy();
    if (const std::string why = checkRetentionChange(change); !why.empty())
        return Error::make(ErrorCategory::Invalid, why);
    auto who = ownership();
    if (!who)
        return who.error();
    if (!who->isOwner)
        return Error::make(ErrorCategory::Forbidden, "only the store's owner (the role " + who->owner
                                                         + ") may set its retention; this connection's role is "
                                                         + who->user);
    if (auto st = m_d->beginWrite(); !st)
        return st;
    auto current = m_d->readStoreRetention();
    if (!current)
        return m_d->rollBackRetention(current.error());
    RetentionPolicy p = current->policy;
    p.maxVersionsPerObject = change.maxVersionsPerObject.value_or(p.maxVersionsPerObject);
    p.maxAgeMs = change.maxAgeMs.value_or(p.maxAgeMs);
    p.maxTotalBytes = change.maxTotalBytes.value_or(p.maxTotalBytes);
    Query up = m_d->q("INSERT INTO store_retention(id, max_versions, max_age_ms, max_bytes, set_by, set_ms) "
                      "VALUES(1, ?1, ?2, ?3, CAST(current_user AS TEXT), ?4) ON CONFLICT(id) DO UPDATE SET "
                      "max_versions = excluded.max_versions, max_age_ms = excluded.max_age_ms, "
                      "max_bytes = excluded.max_bytes, set_by = excluded.set_by, set_ms = excluded.set_ms");
    up.bind(1, p.maxVersionsPerObject).bind(2, p.maxAgeMs).bind(3, p.maxTotalBytes).bind(4, nowMs);
    if (up.step() != kDone)
        return m_d->rollBackRetention(m_d->error("store retention"));
    up.reset();
    if (auto st = m_d->commitWrite(); !st)
        return m_d->rollBackRetention(st.error());
    return success();
}

Result<std::vector<PruningRecord>> HistoryStore::prunings(int limit)
{
    if (!isShared())
        return fileHasNoPolicy();
    std::vector<PruningRecord> out;
    auto has = m_d->conn->hasTable("prunings");
    if (!has)
        return has.error();
    if (!*has)
        return out;
    Query r = m_d->q("SELECT substr(recorder, 1, 256), at_ms, versions, bytes FROM prunings ORDER BY id DESC LIMIT ?1");
    r.bind(1, std::int64_t(std::clamp(limit, 0, kKeptPrunings)));
    int rc;
    while ((rc = r.step()) == kRow)
        out.push_back({r.text(0), r.i64(1), r.i64(2), r.i64(3)});
    if (rc != kDone)
        return m_d->error("prunings");
    return out;
}

} // namespace fieldscope::core
