// HistoryStore's audit tables: who made each version (joins) and the writes the server refused
// (attempts), docs/audit.md. Only who, where and the join keys are stored, never a body.
#include "core/base/jsonread.h"
#include "core/history/historystore.h"
#include "core/history/historystore_p.h"

#include <algorithm>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace fieldscope::core {

using namespace historydb;

namespace {

AuditMatch matchFromName(const std::string &name)
{
    if (name == "exact")
        return AuditMatch::Exact;
    if (name == "ambiguous")
        return AuditMatch::Ambiguous;
    if (name == "contested")
        return AuditMatch::Contested;
    return AuditMatch::Probable;
}

} // namespace

// A file written before the audit tables existed, opened read-only, has none: nothing joined.
Result<bool> HistoryStore::Impl::hasAuditTables()
{
    auto joins = conn->hasTable("audit_joins");
    if (!joins || !*joins)
        return joins;
    return conn->hasTable("audit_attempts");
}

namespace {

constexpr std::size_t kMaxContestedClaims = 8;

} // namespace

// The claims an exact or contested row holds; candidates a teammate's build could not read are
// dropped (they claim nothing we can show).
Result<std::optional<HistoryStore::Impl::StoredJoin>> HistoryStore::Impl::storedJoin(const std::string &uid,
                                                                                     const std::string &rv)
{
    Query r = q("SELECT match_kind, more, candidates FROM audit_joins WHERE uid = ?1 AND rv = ?2");
    r.bind(1, uid).bind(2, rv);
    const int rc = r.step();
    if (rc == kDone)
        return std::optional<StoredJoin>();
    if (rc != kRow)
        return error("audit join");
    StoredJoin out{matchFromName(r.text(0)), r.i64(1) != 0, {}};
    auto parsed = parseJson(r.text(2));
    if (parsed && parsed->is_array())
        for (const auto &c : *parsed)
            if (auto who = auditWhoFromJson(c, "candidate"))
                out.candidates.push_back(std::move(*who));
    return std::optional<StoredJoin>(std::move(out));
}

Status HistoryStore::Impl::upsertJoin(const AuditJoin &j, AuditMatch match, const std::vector<AuditWho> &candidates,
                                      bool more, std::int64_t &changed)
{
    Query u = q("INSERT INTO audit_joins(uid, rv, match_kind, more, candidates) VALUES(?1, ?2, ?3, ?4, ?5) "
                "ON CONFLICT(uid, rv) DO UPDATE SET match_kind = ?3, more = ?4, candidates = ?5 "
                "WHERE audit_joins.match_kind != ?3 OR audit_joins.more != ?4 OR audit_joins.candidates != ?5");
    u.bind(1, j.uid).bind(2, j.resourceVersion).bind(3, auditMatchName(match)).bind(4, std::int64_t(more));
    u.bind(5, auditWhosJsonText(candidates));
    if (u.step() != kDone)
        return error("audit join");
    changed += conn->changes();
    return success();
}

// Exact beats probable and ambiguous (another log of the same request at a lower level never
// replaces it). An exact claim by someone other than the claims already stored makes the version
// contested: every claim is kept (at most kMaxContestedClaims, then "more"), none replaces another,
// whatever times the events carry (their sender chose them). The same person again (a no-op
// re-apply answers with the same version) and the same event again change nothing.
Status HistoryStore::Impl::writeAuditJoin(const AuditJoin &j, std::int64_t &changed)
{
    const bool exact = j.match == AuditMatch::Exact || j.match == AuditMatch::Contested;
    if (exact && j.candidates.size() == 1) {
        // A live join's usual case: one claim of a version nothing joined yet, stored as it came
        // (what the merge below makes of it) without reading the row first. A row that is there
        // stays, and the claim is merged with it below.
        Query ins = q("INSERT INTO audit_joins(uid, rv, match_kind, more, candidates) VALUES(?1, ?2, ?3, ?4, ?5) "
                      "ON CONFLICT(uid, rv) DO NOTHING");
        ins.bind(1, j.uid).bind(2, j.resourceVersion).bind(3, auditMatchName(j.match));
        ins.bind(4, std::int64_t(j.moreCandidates)).bind(5, auditWhosJsonText(j.candidates));
        if (ins.step() != kDone)
            return error("audit join");
        if (const std::int64_t n = conn->changes(); n > 0) {
            changed += n;
            return success();
        }
    }
    auto stored = storedJoin(j.uid, j.resourceVersion);
    if (!stored)
        return stored.error();
    const bool final = *stored && ((*stored)->match == AuditMatch::Exact || (*stored)->match == AuditMatch::Contested);
    if (!exact)
        return final ? success() : upsertJoin(j, j.match, j.candidates, j.moreCandidates, changed);
    // Each claim in turn, the stored ones first (an exact join from a joiner may carry several).
    StoredJoin merged = final ? std::move(**stored) : StoredJoin{AuditMatch::Exact, false, {}};
    bool contested = merged.match == AuditMatch::Contested || j.match == AuditMatch::Contested;
    const std::size_t before = merged.candidates.size();
    for (const AuditWho &claim : j.candidates) {
        const auto same = [&claim](const AuditWho &w) {
            // Its ID and time are the sender's to choose: the same event names the same person too.
            return w.auditID == claim.auditID && w.stageTimestamp == claim.stageTimestamp
                && auditActingName(w) == auditActingName(claim);
        };
        if (std::any_of(merged.candidates.begin(), merged.candidates.end(), same))
            continue;
        const auto sameActor = [&claim](const AuditWho &w) { return auditActingName(w) == auditActingName(claim); };
        if (!merged.candidates.empty() && !contested
            && std::all_of(merged.candidates.begin(), merged.candidates.end(), sameActor))
            continue; // the same person's request again (a no-op re-apply): the version is still theirs
        contested = contested || !merged.candidates.empty();
        if (merged.candidates.size() < kMaxContestedClaims)
            merged.candidates.push_back(claim);
        else
            merged.more = true;
    }
    if (final && merged.candidates.size() == before
        && merged.match == (contested ? AuditMatch::Contested : AuditMatch::Exact))
        return success();
    return upsertJoin(j, contested ? AuditMatch::Contested : AuditMatch::Exact, merged.candidates,
                      merged.more || j.moreCandidates, changed);
}

namespace {

constexpr std::size_t kClaimsPerInsert = 64; // 320 parameters; the sizes used are 64, 16, 4 and 1

// One exact claim: writeAuditJoin's first step inserts it without reading a row.
bool isSingleClaim(const AuditJoin &j)
{
    return (j.match == AuditMatch::Exact || j.match == AuditMatch::Contested) && j.candidates.size() == 1;
}

// INSERT of `rows` claims, a statement per size (prepared once): a claim of a version that holds
// a row already inserts nothing.
const std::string &claimsInsert(std::size_t rows)
{
    static const auto sql = [] {
        std::map<std::size_t, std::string> out;
        for (std::size_t n = 1; n <= kClaimsPerInsert; n *= 4) {
            std::string s = "INSERT INTO audit_joins(uid, rv, match_kind, more, candidates) VALUES";
            for (std::size_t r = 0; r < n; ++r) {
                const std::size_t p = r * 5;
                s += (r ? ",(?" : "(?") + std::to_string(p + 1);
                for (std::size_t c = 2; c <= 5; ++c)
                    s += ",?" + std::to_string(p + c);
                s += ')';
            }
            out[n] = s + " ON CONFLICT(uid, rv) DO NOTHING";
        }
        return out;
    }();
    return sql.at(rows);
}

} // namespace

// When a statement inserted fewer rows than it had claims (a version that held a row, or the
// same version twice), each of its claims is merged on its own: one it inserted meets itself
// (the same event: nothing changes), the others merge as they would have one at a time.
Status HistoryStore::Impl::writeAuditClaims(const std::vector<AuditJoin> &joins, std::size_t begin, std::size_t end,
                                            std::int64_t &changed)
{
    for (std::size_t at = begin; at < end;) {
        std::size_t n = kClaimsPerInsert;
        while (n > end - at)
            n /= 4;
        Query ins = qDynamic(claimsInsert(n));
        for (std::size_t r = 0; r < n; ++r) {
            const AuditJoin &j = joins[at + r];
            const int p = int(r * 5);
            ins.bind(p + 1, j.uid).bind(p + 2, j.resourceVersion).bind(p + 3, auditMatchName(j.match));
            ins.bind(p + 4, std::int64_t(j.moreCandidates)).bind(p + 5, auditWhosJsonText(j.candidates));
        }
        if (ins.step() != kDone)
            return error("audit join");
        const std::int64_t inserted = conn->changes();
        changed += inserted;
        if (inserted != std::int64_t(n))
            for (std::size_t r = 0; r < n; ++r)
                if (auto st = writeAuditJoin(joins[at + r], changed); !st)
                    return st;
        at += n;
    }
    return success();
}

Status HistoryStore::Impl::writeAuditAttempt(const AuditAttempt &a, std::int64_t &changed)
{
    Query u = q(
        "INSERT INTO audit_attempts(audit_id, api_group, resource, namespace, name, uid, time_us, code, reason, message, who) "
        "VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11) ON CONFLICT(audit_id) DO NOTHING");
    u.bind(1, a.who.auditID)
        .bind(2, a.object.group)
        .bind(3, a.object.resource)
        .bind(4, a.object.namespace_)
        .bind(5, a.object.name);
    u.bind(6, a.uid)
        .bind(7, parseRfc3339Micros(a.who.requestReceivedTimestamp).value_or(0))
        .bind(8, std::int64_t(a.code));
    std::string who;
    appendAuditWhoJsonText(who, a.who);
    u.bind(9, a.reason).bind(10, a.message).bind(11, who);
    if (u.step() != kDone)
        return error("audit attempt");
    changed += conn->changes();
    return success();
}

// Who made a version goes with the version; refused writes go with the age limit. The joins are
// only looked at when versions were pruned in this transaction.
Status HistoryStore::Impl::pruneAudit(std::int64_t cutoffMs)
{
    const bool versionsPruned = conn->totalChanges() != retentionChangesMark;
    if (versionsPruned)
        if (auto st = exec(
                "DELETE FROM audit_joins WHERE NOT EXISTS (SELECT 1 FROM objects o JOIN versions v ON v.object_id = o.id "
                "WHERE o.uid = audit_joins.uid AND v.rv = audit_joins.rv)");
            !st)
            return st;
    if (cutoffMs == INT64_MIN)
        return success();
    Query q = this->q("DELETE FROM audit_attempts WHERE time_us < ?1");
    q.bind(1, cutoffMs * 1000);
    return q.step() == kDone ? success() : Status(error("prune refused writes"));
}

Result<HistoryStore::AuditWriteReport> HistoryStore::writeAudit(const std::vector<AuditJoin> &joins,
                                                                const std::vector<AuditAttempt> &attempts,
                                                                const std::map<std::string, std::string> &state)
{
    if (auto st = m_d->beginWrite(); !st)
        return st.error();
    AuditWriteReport report;
    auto fail = [&](const Error &e) -> Result<AuditWriteReport> {
        (void)m_d->exec("ROLLBACK");
        m_d->dataVersion = -1;
        return e;
    };
    // Runs of single exact claims are inserted many a statement (one per join cost as much as
    // the rest of a live join's flush); every other join is merged on its own, in order.
    for (std::size_t i = 0; i < joins.size();) {
        std::size_t run = i;
        while (run < joins.size() && isSingleClaim(joins[run]))
            ++run;
        auto st = run > i ? m_d->writeAuditClaims(joins, i, run, report.joins)
                          : m_d->writeAuditJoin(joins[i], report.joins);
        if (!st)
            return fail(st.error());
        i = std::max(run, i + 1);
    }
    for (const auto &a : attempts)
        if (auto st = m_d->writeAuditAttempt(a, report.attempts); !st)
            return fail(st.error());
    for (const auto &[key, value] : state)
        if (auto st = m_d->setInfo(("audit:" + key).c_str(), value); !st)
            return fail(st.error());
    if (auto st = m_d->commitWrite(); !st)
        return fail(st.error());
    return report;
}

Result<std::string> HistoryStore::auditState(const std::string &key)
{
    return m_d->info(("audit:" + key).c_str());
}

Result<std::map<std::string, AuditJoin>> HistoryStore::auditJoins(const std::string &uid)
{
    std::map<std::string, AuditJoin> out;
    auto tables = m_d->hasAuditTables();
    if (!tables || !*tables)
        return tables ? Result<std::map<std::string, AuditJoin>>(out) : tables.error();
    Query s = m_d->q("SELECT rv, match_kind, more, candidates FROM audit_joins WHERE uid = ?1");
    s.bind(1, uid);
    int rc = kRow;
    while ((rc = s.step()) == kRow) {
        AuditJoin j;
        j.uid = uid;
        j.resourceVersion = s.text(0);
        j.match = matchFromName(s.text(1));
        j.moreCandidates = s.i64(2) != 0;
        const std::string where = uid + "@" + j.resourceVersion;
        auto parsed = parseJson(s.text(3));
        if (!parsed || !parsed->is_array())
            return Error::make(ErrorCategory::Parse,
                               "audit join " + where + " in " + m_d->path + " is not a list of users");
        for (const auto &c : *parsed) {
            auto who = auditWhoFromJson(c, where);
            if (!who)
                return who.error();
            j.candidates.push_back(std::move(*who));
        }
        out[j.resourceVersion] = std::move(j);
    }
    if (rc != kDone)
        return m_d->error("audit joins");
    return out;
}

Result<std::vector<AuditAttempt>> HistoryStore::auditAttempts(const AuditObjectKey &object)
{
    std::vector<AuditAttempt> out;
    auto tables = m_d->hasAuditTables();
    if (!tables || !*tables)
        return tables ? Result<std::vector<AuditAttempt>>(out) : tables.error();
    Query s =
        m_d->q("SELECT uid, code, reason, message, who FROM audit_attempts "
               "WHERE resource = ?1 AND namespace = ?2 AND name = ?3 AND api_group = ?4 ORDER BY time_us, audit_id");
    s.bind(1, object.resource).bind(2, object.namespace_).bind(3, object.name).bind(4, object.group);
    int rc = kRow;
    while ((rc = s.step()) == kRow) {
        AuditAttempt a;
        a.object = object;
        a.uid = s.text(0);
        a.code = int(s.i64(1));
        a.reason = s.text(2);
        a.message = s.text(3);
        auto parsed = parseJson(s.text(4));
        if (!parsed)
            return Error::make(ErrorCategory::Parse,
                               "a refused write of " + object.toString() + " in " + m_d->path + " is not JSON");
        auto who = auditWhoFromJson(*parsed, object.toString());
        if (!who)
            return who.error();
        a.who = std::move(*who);
        out.push_back(std::move(a));
    }
    if (rc != kDone)
        return m_d->error("audit attempts");
    return out;
}

Result<std::vector<AuditAttempt>> HistoryStore::allAuditAttempts()
{
    std::vector<AuditAttempt> out;
    auto tables = m_d->hasAuditTables();
    if (!tables || !*tables)
        return tables ? Result<std::vector<AuditAttempt>>(out) : tables.error();
    Query s = m_d->q("SELECT api_group, resource, namespace, name, uid, code, reason, message, who FROM audit_attempts "
                     "ORDER BY time_us, audit_id");
    int rc = kRow;
    while ((rc = s.step()) == kRow) {
        AuditAttempt a;
        a.object.group = s.text(0);
        a.object.resource = s.text(1);
        a.object.namespace_ = s.text(2);
        a.object.name = s.text(3);
        a.uid = s.text(4);
        a.code = int(s.i64(5));
        a.reason = s.text(6);
        a.message = s.text(7);
        auto parsed = parseJson(s.text(8));
        if (!parsed)
            return Error::make(ErrorCategory::Parse,
                               "a refused write of " + a.object.toString() + " in " + m_d->path + " is not JSON");
        auto who = auditWhoFromJson(*parsed, a.object.toString());
        if (!who)
            return who.error();
        a.who = std::move(*who);
        out.push_back(std::move(a));
    }
    if (rc != kDone)
        return m_d->error("audit attempts");
    return out;
}

} // namespace fieldscope::core
