#include "core/ownership/ownershipdiff.h"

#include "core/ownership/ownershiptree.h"

#include <algorithm>
#include <map>

namespace fieldscope::core {
namespace {

// Every node some entry owns directly, by server-syntax path: the entries that own it and
// whether the field is in the object.
struct Owned {
    std::vector<const ManagedFieldsEntry *> owners;
    bool present = false;
};

std::map<std::string, Owned> nodesByPath(const OwnershipTree &tree)
{
    std::map<std::string, Owned> out;
    for (NodeId id = 1; id < tree.nodeCount(); ++id) {
        const OwnershipNode &n = tree.node(id);
        Owned o;
        o.present = n.isPresent();
        for (const NodeOwner &owner : n.owners)
            if (!owner.inherited)
                o.owners.push_back(&tree.entries()[owner.entry]);
        out.emplace(tree.path(id).toString(), std::move(o)); // unowned nodes too: their presence counts
    }
    return out;
}

bool ownedBy(const Owned *o, std::string_view manager)
{
    return o && std::any_of(o->owners.begin(), o->owners.end(), [&](const ManagedFieldsEntry *e) {
               return e->manager == manager;
           });
}

std::vector<FieldOwnerRef> othersOf(const Owned *o, std::string_view manager)
{
    std::vector<FieldOwnerRef> out;
    if (o)
        for (const ManagedFieldsEntry *e : o->owners)
            if (e->manager != manager)
                out.push_back(FieldOwnerRef::of(*e));
    return out;
}

std::string names(const std::vector<FieldOwnerRef> &owners)
{
    std::string s;
    for (const FieldOwnerRef &o : owners)
        s += (s.empty() ? "" : ", ") + o.manager + " (" + operationName(o.operation)
           + (o.subresource.empty() ? "" : "/" + o.subresource) + ")";
    return s;
}

} // namespace

Result<OwnershipDiff> ownershipDiff(const Json &before, const Json &after, std::string_view manager)
{
    auto b = OwnershipTree::build(before);
    if (!b)
        return b.error();
    auto a = OwnershipTree::build(after);
    if (!a)
        return a.error();
    const auto was = nodesByPath(*b), is = nodesByPath(*a);
    OwnershipDiff d;
    for (const auto &[path, now] : is) {
        const auto old = was.find(path);
        const Owned *before = old == was.end() ? nullptr : &old->second;
        if (!ownedBy(&now, manager) || ownedBy(before, manager))
            continue;
        // Other owners that lost the field in this write: it was taken from them.
        std::vector<FieldOwnerRef> lost;
        for (const FieldOwnerRef &o : othersOf(before, manager)) {
            const auto stillOwns = std::any_of(now.owners.begin(), now.owners.end(),
                                               [&](const ManagedFieldsEntry *e) { return FieldOwnerRef::of(*e) == o; });
            if (!stillOwns)
                lost.push_back(o);
        }
        if (lost.empty())
            d.gained.push_back(path);
        else
            d.taken.push_back({path, std::move(lost), true});
    }
    for (const auto &[path, old] : was) {
        const auto now = is.find(path);
        const Owned *after = now == is.end() ? nullptr : &now->second;
        if (!ownedBy(&old, manager) || ownedBy(after, manager))
            continue;
        d.released.push_back({path, othersOf(after, manager), after && after->present});
    }
    return d;
}

std::vector<std::string> OwnershipDiff::describe(std::string_view manager) const
{
    std::vector<std::string> out;
    const std::string m(manager);
    for (const std::string &p : gained)
        out.push_back(m + " will own " + p);
    for (const OwnershipMove &t : taken)
        out.push_back(m + " takes " + t.path + " from " + names(t.others));
    for (const OwnershipMove &r : released) {
        if (!r.present)
            out.push_back(m + " releases " + r.path + ": nobody else owns it, so it is removed");
        else if (!r.others.empty())
            out.push_back(m + " releases " + r.path + ": it stays, owned by " + names(r.others));
        else
            out.push_back(m + " releases " + r.path + ": it stays, owned by nobody");
    }
    return out;
}

} // namespace fieldscope::core
