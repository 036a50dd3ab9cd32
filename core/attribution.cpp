#include "core/attribution.h"

#include <algorithm>

namespace fieldscope::core {
namespace {

bool covers(const FieldSet &set, const FieldPath &path)
{
    const FieldSet *cur = &set;
    for (std::size_t i = 0; i < path.size(); ++i) {
        // A member without children is a leaf: the manager owns everything below (atomic).
        if (i > 0 && cur->isMember() && !cur->hasChildren())
            return true;
        cur = cur->find(path[i]);
        if (!cur)
            return false;
    }
    return !cur->isEmpty();
}

// True when `a` has a member path that `b` does not.
bool hasMembersNotIn(const FieldSet &a, const FieldSet &b)
{
    for (const auto &p : a.members())
        if (!b.contains(p))
            return true;
    return false;
}

const ManagedFieldsEntry *findSame(const std::vector<ManagedFieldsEntry> &entries, const ManagedFieldsEntry &e)
{
    for (const auto &x : entries)
        if (x.sameIdentity(e))
            return &x;
    return nullptr;
}

std::int64_t latestTime(const std::vector<ManagedFieldsEntry> &entries)
{
    std::int64_t t = INT64_MIN;
    for (const auto &e : entries)
        t = std::max(t, e.timeSeconds.value_or(INT64_MIN));
    return t;
}

// The first observed version: its creator when there is a single entry; otherwise only the most
// recent writers can be named, and earlier changes were not seen.
TransitionAttribution attributeFirst(const std::vector<ManagedFieldsEntry> &entries, const AttributionContext &ctx)
{
    TransitionAttribution out;
    const bool created = ctx.eventType == HistoryEventType::Added;
    if (entries.size() == 1) {
        out.writers.push_back({ManagerRef::of(entries[0]), true, false, true, false, {}});
        out.reason = created ? "created" : "first observed version";
        return out;
    }
    out.reason = "first observed version";
    if (entries.empty())
        return out; // untracked object (API brief 3.2): nobody to name
    const std::int64_t latest = latestTime(entries);
    for (const auto &e : entries)
        if (e.timeSeconds.value_or(INT64_MIN) == latest)
            out.writers.push_back({ManagerRef::of(e), false, false, false, false, {}});
    out.ambiguous = true;
    out.reason = "first observed version carries " + std::to_string(entries.size())
               + " managedFields entries; showing the most recent writer(s), earlier changes were not observed";
    return out;
}

std::vector<FieldChange> attributionChanges(const Json *previous, const Json &current, const AttributionContext &ctx)
{
    DiffOptions opts;
    opts.hideManagedFields = true;
    opts.hideResourceVersion = true;
    opts.hideGeneration = true; // the server bumps it; no manager writes it
    opts.semantics = ctx.semantics;
    return diffObjects(*previous, current, opts);
}

void explainAmbiguity(TransitionAttribution &out, const std::vector<ManagedFieldsEntry> &cur)
{
    if (out.writers.empty()) {
        out.ambiguous = true;
        out.reason = "no managedFields entry changed: a manager rewrote fields it already owned within the same "
                     "second, or the writer is not tracked; showing current owners of the changed fields";
        const std::int64_t latest = latestTime(cur);
        for (const auto &e : cur) {
            ManagerEvidence ev{ManagerRef::of(e), false, false, false, false, {}};
            for (const auto &c : out.changes)
                if (covers(e.fields, c.path))
                    ev.paths.push_back(c.path);
            if (!ev.paths.empty() && e.timeSeconds.value_or(INT64_MIN) == latest)
                out.writers.push_back(std::move(ev));
        }
        return;
    }
    if (out.writers.size() > 1) {
        out.ambiguous = true;
        const auto &a = out.writers[0].who, &b = out.writers[1].who;
        out.reason = a.time == b.time ? a.label() + " and " + b.label() + " were stamped in the same second (" + a.time + ")"
                                      : "several managers wrote between these versions";
        return;
    }
    const ManagerEvidence &w = out.writers.front();
    if (w.paths.empty() && !out.changes.empty()) {
        out.ambiguous = true;
        out.reason = w.who.label() + "'s time moved but it owns none of the changed fields";
    }
}

} // namespace

ManagerRef ManagerRef::of(const ManagedFieldsEntry &e)
{
    return {e.manager, e.operation, e.subresource, e.apiVersion, e.time};
}

std::string ManagerRef::label() const
{
    std::string s = manager + "(" + operationName(operation);
    if (!subresource.empty())
        s += "/" + subresource;
    return s + ")";
}

std::vector<std::string> TransitionAttribution::managerNames() const
{
    std::vector<std::string> names;
    for (const auto &w : writers)
        if (std::find(names.begin(), names.end(), w.who.manager) == names.end())
            names.push_back(w.who.manager);
    return names;
}

bool fieldSetCovers(const FieldSet &set, const FieldPath &path)
{
    return covers(set, path);
}

TransitionAttribution attributeTransition(const Json *previous, const Json &current, const AttributionContext &ctx)
{
    auto cur = parseManagedFields(current);
    if (!cur) {
        TransitionAttribution out;
        if (previous)
            out.changes = attributionChanges(previous, current, ctx);
        out.ambiguous = true;
        out.reason = "managedFields could not be decoded: " + cur.error().message;
        return out;
    }
    if (!previous)
        return attributeFirst(*cur, ctx);
    auto prev = parseManagedFields(*previous);
    TransitionAttribution out;
    out.changes = attributionChanges(previous, current, ctx);
    if (!prev) {
        out.ambiguous = true;
        out.reason = "previous managedFields could not be decoded: " + prev.error().message;
        return out;
    }
    for (const auto &e : *cur) {
        const ManagedFieldsEntry *before = findSame(*prev, e);
        ManagerEvidence ev{ManagerRef::of(e), before == nullptr, before && before->time != e.time,
                           before ? hasMembersNotIn(e.fields, before->fields) : true,
                           before && hasMembersNotIn(before->fields, e.fields), {}};
        if (!ev.newEntry && !ev.timeMoved && !ev.fieldsGrew) {
            // Time unchanged: another manager took fields away (the loser's time stays, brief 3.1).
            if (ev.fieldsShrank)
                out.losers.push_back(ev.who);
            continue;
        }
        for (const auto &c : out.changes)
            if (covers(e.fields, c.path) || (before && covers(before->fields, c.path)))
                ev.paths.push_back(c.path);
        out.writers.push_back(std::move(ev));
    }
    for (const auto &e : *prev)
        if (!findSame(*cur, e))
            out.losers.push_back(ManagerRef::of(e));
    for (const auto &c : out.changes) {
        bool owned = false;
        for (const auto &w : out.writers)
            owned = owned || std::find(w.paths.begin(), w.paths.end(), c.path) != w.paths.end();
        if (!owned)
            out.unattributed.push_back(c.path);
    }
    if (ctx.eventType == HistoryEventType::Deleted && out.writers.empty()) {
        out.ambiguous = true;
        out.reason = "deleted: the API does not record which client deleted an object";
        return out;
    }
    if (out.changes.empty() && out.writers.empty()) {
        out.reason = "no field changed";
    } else {
        explainAmbiguity(out, *cur);
    }
    if (ctx.versionsMissing) {
        out.ambiguous = true;
        out.reason = (out.reason.empty() ? std::string() : out.reason + "; ") + "versions before this one were not observed";
    }
    return out;
}

std::vector<FieldTimelinePoint> fieldTimeline(const std::vector<VersionInfo> &versions, const std::vector<Json> &objects,
                                              const FieldPath &path)
{
    std::vector<FieldTimelinePoint> out;
    const std::size_t n = std::min(versions.size(), objects.size());
    for (std::size_t i = 0; i < n; ++i) {
        FieldTimelinePoint p;
        p.seq = versions[i].seq;
        p.resourceVersion = versions[i].resourceVersion;
        p.observedAtMs = versions[i].observedAtMs;
        p.eventType = versions[i].eventType;
        const Json *node = nullptr;
        p.present = path.resolve(objects[i], nullptr, &node);
        if (p.present)
            p.value = *node;
        if (auto entries = parseManagedFields(objects[i])) {
            for (const auto &e : *entries)
                if (covers(e.fields, path))
                    p.owners.push_back(ManagerRef::of(e));
        }
        if (out.empty()) {
            p.changed = true;
            p.ownersChanged = true;
        } else {
            const auto &last = out.back();
            p.changed = p.present != last.present || !jsonEqual(p.value, last.value);
            auto names = [](const std::vector<ManagerRef> &refs) {
                std::vector<std::string> s;
                for (const auto &r : refs)
                    s.push_back(r.label());
                std::sort(s.begin(), s.end());
                return s;
            };
            p.ownersChanged = names(p.owners) != names(last.owners);
        }
        out.push_back(std::move(p));
    }
    return out;
}

} // namespace fieldscope::core
