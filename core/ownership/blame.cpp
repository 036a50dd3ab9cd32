#include "core/ownership/blame.h"

#include "core/yaml/yaml.h"

#include <algorithm>
#include <unordered_map>

namespace fieldscope::core {

std::string shortAge(std::int64_t s)
{
    // Up to a second in the future is clock skew ("0s"); more is invalid, as in kubectl.
    if (s < -1)
        return "<invalid>";
    if (s < 0)
        return "0s";
    if (s < 60)
        return std::to_string(s) + "s";
    if (s < 3600)
        return std::to_string(s / 60) + "m";
    if (s < 86400)
        return std::to_string(s / 3600) + "h";
    if (s < 86400LL * 365)
        return std::to_string(s / 86400) + "d";
    return std::to_string(s / (86400LL * 365)) + "y";
}

namespace {
std::string ownersLabel(const OwnershipTree &tree, const std::vector<NodeOwner> &owners, std::int64_t nowSeconds,
                        const EntryWriters &writers)
{
    std::string s;
    for (const auto &o : owners) {
        const ManagedFieldsEntry &e = tree.entries()[o.entry];
        if (!s.empty())
            s += ", ";
        const std::string label = e.label();
        s += label;
        if (e.timeSeconds)
            s += " " + shortAge(nowSeconds - *e.timeSeconds);
        if (auto w = writers.find(label); w != writers.end())
            s += " by " + w->second;
    }
    return s;
}
} // namespace

std::string ownersLabel(const OwnershipTree &tree, NodeId id, std::int64_t nowSeconds, const EntryWriters &writers)
{
    return ownersLabel(tree, tree.node(id).owners, nowSeconds, writers);
}

std::vector<NodeOwner> lineOwners(const OwnershipTree &tree, std::string_view linePointer, std::string_view lineText)
{
    std::vector<NodeOwner> out;
    const auto id = tree.findByJsonPointer(linePointer);
    if (!id)
        return out;
    out = tree.node(*id).owners;
    const std::size_t firstNonSpace = lineText.find_first_not_of(' ');
    const bool dashLine = firstNonSpace != std::string_view::npos && lineText.substr(firstNonSpace).rfind("- ", 0) == 0;
    const NodeId item = tree.node(*id).parent;
    if (!dashLine || *id == OwnershipTree::root() || item == *id || item == OwnershipTree::root())
        return out;
    const OwnershipNode &list = tree.node(tree.node(item).parent);
    if (list.type != OwnershipNode::ValueType::Array)
        return out; // the line's value is the item itself (a scalar item), already counted
    for (const NodeOwner &o : tree.node(item).owners)
        if (std::none_of(out.begin(), out.end(), [&](const NodeOwner &x) { return x.entry == o.entry; }))
            out.push_back(o);
    std::stable_sort(out.begin(), out.end(), [](const NodeOwner &a, const NodeOwner &b) { return a.entry < b.entry; });
    return out;
}

Json withoutManagedFields(const Json &object)
{
    Json copy = object;
    if (copy.is_object())
        if (auto meta = copy.find("metadata"); meta != copy.end() && meta->is_object())
            meta->erase("managedFields");
    return copy;
}

namespace {

void indexPointers(const OwnershipTree &tree, NodeId id, const std::string &ptr,
                   std::unordered_map<std::string, NodeId> &out)
{
    out.emplace(ptr, id);
    const OwnershipNode &n = tree.node(id);
    for (std::uint32_t r = 0; r < n.childCount; ++r) {
        const NodeId c = n.firstChild + r;
        const OwnershipNode &child = tree.node(c);
        if (!child.isPresent())
            continue;
        indexPointers(tree, c,
                      ptr + "/"
                          + (child.liveIndex >= 0 ? std::to_string(child.liveIndex)
                                                  : jsonPointerEscape(child.element.field)),
                      out);
    }
}

void collectAbsentOwned(const OwnershipTree &tree, NodeId id, std::vector<NodeId> &out)
{
    const OwnershipNode &n = tree.node(id);
    for (std::uint32_t r = 0; r < n.childCount; ++r) {
        const NodeId c = n.firstChild + r;
        if (!tree.node(c).isPresent() && tree.node(c).isOwned())
            out.push_back(c);
        collectAbsentOwned(tree, c, out);
    }
}

Json leafValue(const OwnershipNode &n)
{
    using T = OwnershipNode::ValueType;
    switch (n.type) {
    case T::Absent: return nullptr;
    case T::Object: return Json::object(); // a leaf container is empty
    case T::Array: return Json::array();
    default: return n.scalar;
    }
}

void collectLeaves(const OwnershipTree &tree, NodeId id, const EntryWriters &writers, Json &out)
{
    const OwnershipNode &n = tree.node(id);
    for (std::uint32_t r = 0; r < n.childCount; ++r) {
        const NodeId c = n.firstChild + r;
        const OwnershipNode &child = tree.node(c);
        if (child.childCount > 0) {
            collectLeaves(tree, c, writers, out);
            continue;
        }
        Json owners = Json::array();
        for (const auto &o : child.owners) {
            const ManagedFieldsEntry &e = tree.entries()[o.entry];
            owners.push_back({{"manager", e.manager},
                              {"operation", operationName(e.operation)},
                              {"subresource", e.subresource},
                              {"apiVersion", e.apiVersion},
                              {"time", e.time}});
            if (auto w = writers.find(e.label()); w != writers.end())
                owners.back()["user"] = w->second;
        }
        Json entry = {{"path", tree.path(c).toString()}, {"value", leafValue(child)}, {"owners", std::move(owners)}};
        if (!child.isPresent())
            entry["present"] = false;
        out.push_back(std::move(entry));
    }
}

} // namespace

std::string blameText(const Json &object, const OwnershipTree &tree, std::int64_t nowSeconds,
                      const EntryWriters &writers)
{
    const AnnotatedYaml yaml = jsonToAnnotatedYaml(withoutManagedFields(object));
    std::unordered_map<std::string, NodeId> byPointer;
    byPointer.reserve(tree.nodeCount());
    indexPointers(tree, OwnershipTree::root(), std::string(), byPointer);

    std::vector<std::pair<std::string, std::string>> rows; // gutter, text
    rows.reserve(yaml.linePointers.size());
    std::size_t start = 0;
    for (const auto &ptr : yaml.linePointers) {
        const std::size_t nl = yaml.text.find('\n', start);
        std::string line = yaml.text.substr(start, nl - start);
        start = nl + 1;
        auto it = byPointer.find(ptr);
        std::string gutter;
        if (it != byPointer.end() && !ptr.empty())
            gutter = ownersLabel(tree, lineOwners(tree, ptr, line), nowSeconds, writers);
        rows.emplace_back(std::move(gutter), std::move(line));
    }
    std::vector<NodeId> absent;
    collectAbsentOwned(tree, OwnershipTree::root(), absent);
    for (NodeId id : absent)
        rows.emplace_back(ownersLabel(tree, id, nowSeconds, writers), "# absent: " + tree.path(id).toString());

    std::size_t width = 0;
    for (const auto &r : rows)
        width = std::max(width, r.first.size());
    std::string out;
    for (const auto &[gutter, text] : rows) {
        out += gutter;
        out.append(width - gutter.size(), ' ');
        out += text.empty() ? " |" : " | " + text;
        out += '\n';
    }
    return out;
}

Json blameJson(const OwnershipTree &tree, const EntryWriters &writers)
{
    Json out = Json::array();
    collectLeaves(tree, OwnershipTree::root(), writers, out);
    return out;
}

} // namespace fieldscope::core
