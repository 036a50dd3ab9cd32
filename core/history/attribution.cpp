#include "core/history/attribution.h"

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

// The prefix length at which `set` owns `path` through a leaf member ancestor (an atomic subtree
// claim), or -1 when it owns the path directly, below it, or not at all.
int leafAncestorDepth(const FieldSet &set, const FieldPath &path)
{
    const FieldSet *cur = &set;
    for (std::size_t i = 0; i < path.size(); ++i) {
        if (i > 0 && cur->isMember() && !cur->hasChildren())
            return int(i);
        cur = cur->find(path[i]);
        if (!cur)
            return -1;
    }
    return -1;
}

// Whether some entry lists fields below the first `depth` elements of `path`: then that node is
// not an atomic subtree, and a leaf claim on it (an empty "f:labels": {}, left when a manager's
// fields moved to another) owns the node itself, not its members. The Ownership tree reads it so.
bool enumeratedBelow(const std::vector<ManagedFieldsEntry> &entries, const FieldPath &path, int depth)
{
    const FieldPath prefix(std::vector<PathElement>(path.elements().begin(), path.elements().begin() + depth));
    for (const auto &e : entries)
        if (const FieldSet *at = e.fields.find(prefix); at && at->hasChildren())
            return true;
    return false;
}

// True when `a` has a member path that `b` does not (b == null: that `a` has any member). Walks
// both trees with the lookups FieldSet::contains() would make, without listing every path.
bool hasMembersNotIn(const FieldSet &a, const FieldSet *b)
{
    for (const auto &e : a.children()) {
        const FieldSet *other = b ? b->find(e.element) : nullptr;
        if (e.set.isMember() && !(other && other->isMember()))
            return true;
        if (e.set.hasChildren() && hasMembersNotIn(e.set, other))
            return true;
    }
    return false;
}

bool hasMembersNotIn(const FieldSet &a, const FieldSet &b)
{
    return hasMembersNotIn(a, &b);
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
        return out; // untracked object (no managedFields, e.g. created before 1.18): nobody to name
    const std::int64_t latest = latestTime(entries);
    for (const auto &e : entries)
        if (e.timeSeconds.value_or(INT64_MIN) == latest)
            out.writers.push_back({ManagerRef::of(e), false, false, false, false, {}});
    out.ambiguous = true;
    out.reason = "first observed version carries " + std::to_string(entries.size())
               + " managedFields entries; showing the most recent writer(s), earlier changes were not observed";
    return out;
}

// Copies of objects a and b without the members diffObjects() would walk and find equal (or hide):
// the same changes in the same order for a fraction of the work, since most of an object is
// untouched between two versions. Arrays are kept whole (list semantics need all items), and so
// is the root's "kind" (it selects the list semantics).
// Same types (80 is not 80.0), same values, same key order: diffObjects() finds nothing between
// such values however it matches lists (map-list keys compare as text, so nlohmann's == is too lax).
bool identical(const Json &a, const Json &b)
{
    if (a.type() != b.type())
        return false;
    if (a.is_object()) {
        if (a.size() != b.size())
            return false;
        for (auto x = a.begin(), y = b.begin(); x != a.end(); ++x, ++y)
            if (x.key() != y.key() || !identical(x.value(), y.value()))
                return false;
        return true;
    }
    if (a.is_array()) {
        if (a.size() != b.size())
            return false;
        for (std::size_t i = 0; i < a.size(); ++i)
            if (!identical(a[i], b[i]))
                return false;
        return true;
    }
    return a == b;
}

void withoutEqualMembers(const Json &a, const Json &b, bool root, bool metadata, Json &outA, Json &outB)
{
    outA = Json::object();
    outB = Json::object();
    auto hidden = [&](const std::string &key) {
        return metadata && (key == "managedFields" || key == "resourceVersion" || key == "generation");
    };
    for (auto it = a.begin(); it != a.end(); ++it)
        if (!hidden(it.key()) && !b.contains(it.key()))
            outA[it.key()] = it.value(); // removed
    for (auto it = b.begin(); it != b.end(); ++it) {
        const std::string &key = it.key();
        if (hidden(key))
            continue;
        auto old = a.find(key);
        if (old == a.end()) {
            outB[key] = it.value(); // added
        } else if (old->is_object() && it->is_object()) {
            if (identical(*old, *it) && !(root && key == "kind"))
                continue;
            withoutEqualMembers(*old, *it, false, root && key == "metadata", outA[key], outB[key]);
        } else if (!identical(*old, *it) || (root && key == "kind")) {
            outA[key] = *old;
            outB[key] = it.value();
        }
    }
}

std::vector<FieldChange> attributionChanges(const Json *previous, const Json &current, const AttributionContext &ctx)
{
    DiffOptions opts;
    opts.hideManagedFields = true;
    opts.hideResourceVersion = true;
    opts.hideGeneration = true; // the server bumps it; no manager writes it
    opts.semantics = ctx.semantics;
    if (!previous->is_object() || !current.is_object())
        return diffObjects(*previous, current, opts);
    Json a, b;
    withoutEqualMembers(*previous, current, true, false, a, b);
    return diffObjects(a, b, opts);
}

void explainAmbiguity(TransitionAttribution &out, const std::vector<ManagedFieldsEntry> &cur)
{
    if (out.writers.empty()) {
        out.ambiguous = true;
        out.reason = "no managedFields entry changed: a manager rewrote fields it already owned within the same "
                     "second, or the writer is not tracked; showing current owners of the changed fields";
        // Owners of the changed fields stamped last are the likeliest writers; when none of them
        // is (another manager wrote later), every owner of a changed field is a candidate.
        const std::int64_t latest = latestTime(cur);
        std::vector<ManagerEvidence> owners;
        for (const auto &e : cur) {
            ManagerEvidence ev{ManagerRef::of(e), false, false, false, false, {}};
            for (const auto &c : out.changes)
                if (covers(e.fields, c.path))
                    ev.paths.push_back(c.path);
            if (ev.paths.empty())
                continue;
            if (e.timeSeconds.value_or(INT64_MIN) == latest)
                out.writers.push_back(ev);
            owners.push_back(std::move(ev));
        }
        if (out.writers.empty())
            out.writers = std::move(owners);
        return;
    }
    if (out.writers.size() > 1) {
        out.ambiguous = true;
        const auto &a = out.writers[0].who, &b = out.writers[1].who;
        out.reason = a.time == b.time
                       ? a.label() + " and " + b.label() + " were stamped in the same second (" + a.time + ")"
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
    if (!previous)
        return attributeTransition(nullptr, ManagedFieldsResult(std::vector<ManagedFieldsEntry>()), current,
                                   parseManagedFields(current), ctx);
    return attributeTransition(previous, parseManagedFields(*previous), current, parseManagedFields(current), ctx);
}

TransitionAttribution attributeTransition(const Json *previous, const ManagedFieldsResult &previousEntries,
                                          const Json &current, const ManagedFieldsResult &cur,
                                          const AttributionContext &ctx)
{
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
    const ManagedFieldsResult &prev = previousEntries;
    TransitionAttribution out;
    out.changes = attributionChanges(previous, current, ctx);
    if (!prev) {
        out.ambiguous = true;
        out.reason = "previous managedFields could not be decoded: " + prev.error().message;
        return out;
    }
    for (const auto &e : *cur) {
        const ManagedFieldsEntry *before = findSame(*prev, e);
        const bool sameFields = before && before->fields == e.fields; // the common case, cheaply
        ManagerEvidence ev{ManagerRef::of(e),
                           before == nullptr,
                           before && before->time != e.time,
                           before ? !sameFields && hasMembersNotIn(e.fields, before->fields) : true,
                           before && !sameFields && hasMembersNotIn(before->fields, e.fields),
                           {}};
        if (!ev.newEntry && !ev.timeMoved && !ev.fieldsGrew) {
            // Time unchanged: another manager took fields away (the server does not touch the loser's time).
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
        out.reason = (out.reason.empty() ? std::string() : out.reason + "; ")
                   + "versions before this one were not observed";
    }
    return out;
}

FieldTimelinePoint fieldTimelinePoint(const VersionInfo &version, const Json &object, const FieldPath &path,
                                      const FieldTimelinePoint *previous)
{
    FieldTimelinePoint p;
    p.seq = version.seq;
    p.resourceVersion = version.resourceVersion;
    p.observedAtMs = version.observedAtMs;
    p.eventType = version.eventType;
    const Json *node = nullptr;
    p.present = path.resolve(object, nullptr, &node);
    if (p.present)
        p.value = *node;
    if (auto entries = parseManagedFields(object)) {
        for (const auto &e : *entries) {
            if (!covers(e.fields, path))
                continue;
            const int leaf = leafAncestorDepth(e.fields, path);
            if (leaf > 0 && enumeratedBelow(*entries, path, leaf))
                continue; // a claim on the container, not on this member
            p.owners.push_back(ManagerRef::of(e));
        }
    }
    if (!previous) {
        p.changed = true;
        p.ownersChanged = true;
        return p;
    }
    p.changed = p.present != previous->present || !jsonEqual(p.value, previous->value);
    auto names = [](const std::vector<ManagerRef> &refs) {
        std::vector<std::string> s;
        s.reserve(refs.size());
        for (const auto &r : refs)
            s.push_back(r.label());
        std::sort(s.begin(), s.end());
        return s;
    };
    p.ownersChanged = names(p.owners) != names(previous->owners);
    return p;
}

std::vector<FieldTimelinePoint> fieldTimeline(const std::vector<VersionInfo> &versions,
                                              const std::vector<Json> &objects, const FieldPath &path)
{
    std::vector<FieldTimelinePoint> out;
    const std::size_t n = std::min(versions.size(), objects.size());
    for (std::size_t i = 0; i < n; ++i)
        out.push_back(fieldTimelinePoint(versions[i], objects[i], path, out.empty() ? nullptr : &out.back()));
    return out;
}

} // namespace fieldscope::core
