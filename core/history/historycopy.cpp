#include "core/history/historycopy.h"

#include "core/history/historyexport.h"

#include <map>
#include <set>
#include <tuple>

namespace fieldscope::core {

namespace {

// Versions and gaps in recording order, in transactions of the import's size.
class Batcher
{
public:
    Batcher(HistoryStore &to, CopyReport &report) : m_to(to), m_report(report) {}

    Status add(HistoryWriteItem item, std::size_t bytes)
    {
        m_items.push_back(std::move(item));
        m_bytes += bytes;
        if (m_items.size() >= kImportBatchItems || m_bytes >= kImportBatchBytes)
            return flush();
        return success();
    }

    Status flush()
    {
        if (m_items.empty())
            return success();
        auto r = m_to.write(m_items);
        if (!r)
            return r.error();
        m_report.versions += std::int64_t(r->versions.size());
        m_report.skippedDuplicates += r->skippedDuplicates;
        m_report.gaps += std::int64_t(r->gaps.size());
        m_items.clear();
        m_bytes = 0;
        return success();
    }

private:
    HistoryStore &m_to;
    CopyReport &m_report;
    std::vector<HistoryWriteItem> m_items;
    std::size_t m_bytes = 0;
};

// Each scope's resume point, where the destination has none of its own (a store being recorded
// keeps the point its recorder reached).
Status copyResumePoints(HistoryStore &from, HistoryStore &to, Batcher &batch)
{
    auto scopes = from.scopeIds();
    if (!scopes)
        return scopes.error();
    for (const auto &id : *scopes) {
        auto rv = from.lastResourceVersion(id);
        auto theirs = to.lastResourceVersion(id);
        if (!rv || !theirs)
            return rv ? theirs.error() : rv.error();
        if (rv->empty() || !theirs->empty())
            continue;
        HistoryWriteItem item;
        item.scope = WatchScope::fromId(id);
        item.scopeResourceVersion = *rv;
        if (auto st = batch.add(std::move(item), 0); !st)
            return st;
    }
    return batch.flush();
}

Status copyAudit(HistoryStore &from, HistoryStore &to, const std::vector<HistoryObject> &objects, CopyReport &report)
{
    std::vector<AuditJoin> joins;
    for (const auto &o : objects) {
        auto j = from.auditJoins(o.ref.uid);
        if (!j)
            return j.error();
        for (auto &[rv, join] : *j)
            joins.push_back(std::move(join));
    }
    auto attempts = from.allAuditAttempts();
    if (!attempts)
        return attempts.error();
    auto written = to.writeAudit(joins, *attempts);
    if (!written)
        return written.error();
    report.joins = written->joins;
    report.attempts = written->attempts;
    return success();
}

} // namespace

Result<CopyReport> copyHistory(HistoryStore &from, HistoryStore &to)
{
    CopyReport report;
    auto adopted = to.adoptRedactionKeyOf(from);
    if (!adopted)
        return adopted.error();
    report.adoptedRedactionKey = *adopted;
    auto objects = from.allObjects();
    if (!objects)
        return objects.error();
    report.objects = std::int64_t(objects->size());
    Batcher batch(to, report);
    // The last version copied of each object: a deletion a relist found (no Deleted version, only
    // the mark) is copied as that version again, typed Deleted, which is how a recorder marks it.
    std::map<std::string, std::pair<WatchScope, WatchEvent>> last;
    // Gaps have no key of their own: one the destination holds already (an earlier copy) is
    // not stored twice.
    auto theirGaps = to.allGaps();
    if (!theirGaps)
        return theirGaps.error();
    std::set<std::tuple<std::string, std::string, std::string, std::string, std::int64_t>> known;
    for (const auto &g : *theirGaps)
        known.insert({g.scope, g.fromRv, g.toRv, g.reason, g.observedAtMs});
    Status written = success();
    Status scanned = from.scan([&](const HistoryStore::ScanRecord &r) {
        HistoryWriteItem item;
        std::size_t bytes = 0;
        if (r.isGap) {
            if (known.count({r.gap.scope, r.gap.fromRv, r.gap.toRv, r.gap.reason, r.gap.observedAtMs}))
                return true;
            item.scope = WatchScope::fromId(r.gap.scope);
            item.gap = r.gap;
        } else if (!r.unreadable.empty()) {
            report.unreadable.add(r.version, r.unreadable); // the rest of the store is still copied
            return true;
        } else {
            item.scope = WatchScope{r.version.scope, r.resource};
            item.events.push_back({r.version.eventType, toJsonText(*r.object), r.version.observedAtMs});
            last[r.version.uid] = {item.scope, item.events.back()};
            bytes = item.events.back().objectJson.size();
        }
        written = batch.add(std::move(item), bytes);
        return written.ok();
    });
    if (!scanned)
        return scanned.error();
    if (!written)
        return written.error();
    if (auto st = batch.flush(); !st)
        return st.error();
    for (const auto &o : *objects) {
        const auto it = last.find(o.ref.uid);
        if (!o.deleted || it == last.end() || it->second.second.type == HistoryEventType::Deleted)
            continue;
        HistoryWriteItem mark;
        mark.scope = it->second.first;
        mark.events.push_back(it->second.second);
        mark.events.back().type = HistoryEventType::Deleted;
        if (auto st = batch.add(std::move(mark), 0); !st)
            return st.error();
    }
    if (auto st = copyResumePoints(from, to, batch); !st)
        return st.error();
    if (auto st = copyAudit(from, to, *objects, report); !st)
        return st.error();
    return report;
}

} // namespace fieldscope::core
