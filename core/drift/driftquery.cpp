#include "core/drift/driftquery.h"

#include <map>

namespace fieldscope::core {
namespace {

// The recorded incarnation of the live object: the same uid, name and namespace.
Result<std::optional<HistoryObject>> recordedIncarnation(HistoryStore &store, const DriftObjectRef &object)
{
    if (object.uid.empty())
        return std::optional<HistoryObject>();
    ObjectQuery q;
    q.namespace_ = object.namespace_;
    q.name = object.name;
    q.uid = object.uid;
    auto found = store.findObjects(q);
    if (!found)
        return found.error();
    if (found->empty())
        return std::optional<HistoryObject>();
    return std::optional<HistoryObject>(found->front());
}

// Each listed version's row, and whether versions may be missing right before it.
struct Listed {
    VersionInfo info;
    bool afterGap = false;
};

Result<std::map<std::int64_t, Listed>> listedVersions(HistoryStore &store, std::int64_t objectId,
                                                      std::int64_t maxVersions, std::int64_t *firstSeq)
{
    std::int64_t omitted = 0;
    auto entries = store.history(objectId, maxVersions, &omitted);
    if (!entries)
        return entries.error();
    std::map<std::int64_t, Listed> out;
    bool missing = omitted > 0; // older versions left out: the first listed comes after them
    for (auto &e : *entries) {
        if (e.kind != HistoryEntry::Kind::Version) {
            missing = true; // a gap, or versions retention removed
            continue;
        }
        if (out.empty())
            *firstSeq = e.version.seq;
        out[e.version.seq] = Listed{std::move(e.version), missing};
        missing = false;
    }
    return out;
}

Status feedVersions(HistoryStore &store, const HistoryObject &recorded, std::int64_t maxVersions, DriftTracker &tracker)
{
    std::int64_t firstSeq = 0;
    auto listed = listedVersions(store, recorded.id, maxVersions, &firstSeq);
    if (!listed)
        return listed.error();
    if (listed->empty())
        return success();
    auto joins = store.auditJoins(recorded.ref.uid);
    if (!joins)
        return joins.error();
    auto version = [&](std::int64_t seq, const Json &object) {
        const auto it = listed->find(seq);
        if (it == listed->end())
            return true; // before the first listed (the walk starts at its snapshot)
        const VersionInfo &v = it->second.info;
        const auto join = joins->find(v.resourceVersion);
        tracker.addVersion(object, DriftVersion{v.resourceVersion, v.observedAtMs, v.eventType, it->second.afterGap,
                                                join == joins->end() ? nullptr : &join->second});
        return true;
    };
    // A row someone else wrote that does not decode costs that version only.
    auto unreadable = [&](std::int64_t seq, const std::string &reason) {
        const auto it = listed->find(seq);
        if (it != listed->end())
            tracker.addUnreadable(it->second.info.resourceVersion, reason);
        return true;
    };
    return store.forEachVersion(recorded.id, version, unreadable, firstSeq);
}

} // namespace

Result<DriftReport> analyseDrift(HistoryStore *store, const Json &live, const DriftObjectRef &object,
                                 const DriftOptions &options, std::int64_t maxVersions)
{
    DriftTracker tracker(options);
    if (store) {
        auto recorded = recordedIncarnation(*store, object);
        if (!recorded)
            return recorded.error();
        if (*recorded)
            if (auto st = feedVersions(*store, **recorded, maxVersions, tracker); !st)
                return st.error();
    }
    return tracker.finish(live, object);
}

} // namespace fieldscope::core
