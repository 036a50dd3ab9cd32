#pragma once
// OwnershipTree: every field of one object joined with every managedFields entry that owns it
// (FieldsV1 paths mapped onto the live JSON). Built in one pass over the object and the entries'
// FieldSets; a read-only, implicitly shared value type: a worker builds it, the GUI thread reads copies.
#include "core/objects/listsemantics.h"
#include "core/ownership/managedfields.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fieldscope::core {

using NodeId = std::uint32_t;

struct NodeOwner {
    std::uint32_t entry = 0; // index into OwnershipTree::entries()
    // Owned through an ancestor that the entry owns as a leaf (an atomic struct or list such as
    // `f:selector: {}` or `f:args: {}`): the manager owns the whole subtree ({} in FieldsV1 is a leaf).
    bool inherited = false;
    bool operator==(const NodeOwner &) const = default;
};

struct OwnershipNode {
    enum class ValueType { Absent, Null, Bool, Number, String, Object, Array };

    PathElement element;   // how the parent addresses this node; empty for the root
    NodeId parent = 0;     // the root is its own parent
    NodeId firstChild = 0; // children are contiguous: [firstChild, firstChild + childCount)
    std::uint32_t childCount = 0;
    std::int64_t liveIndex = -1; // position in the live parent array, -1 otherwise
    ValueType type = ValueType::Absent;
    std::uint32_t size = 0;        // Object/Array: number of members in the live value
    Json scalar;                   // Null/Bool/Number/String: the live value
    std::vector<NodeOwner> owners; // in entry (wire) order

    bool isPresent() const { return type != ValueType::Absent; }
    bool isOwned() const { return !owners.empty(); }
};

struct OwnershipTreeOptions {
    // Extra list semantics (for example from a CRD schema); managedFields evidence is added too.
    ListSemanticsResolver semantics;
    // Depth beyond which the object is not expanded (keeps a hostile object from blowing the stack).
    // build() returning a Result refuses an object deeper than kMaxJsonDepth with a Parse error
    // before it walks it, so this only bounds the overload that takes decoded entries.
    int maxDepth = kMaxJsonDepth;
};

class OwnershipTree
{
public:
    OwnershipTree(); // an empty tree: one absent root, no entries

    // Decodes metadata.managedFields and joins it with the object. metadata.managedFields itself
    // is left out of the tree. Errors (category Parse) are the entry decoding errors, and an
    // object nested deeper than kMaxJsonDepth.
    static Result<OwnershipTree> build(const Json &object, const OwnershipTreeOptions &options = {});
    // Same, with entries decoded by the caller (they need not come from the object).
    static OwnershipTree build(const Json &object, std::vector<ManagedFieldsEntry> entries,
                               const OwnershipTreeOptions &options = {});

    const std::vector<ManagedFieldsEntry> &entries() const;
    std::string kind() const;

    static constexpr NodeId root() { return 0; }
    std::size_t nodeCount() const;
    const OwnershipNode &node(NodeId id) const;
    NodeId child(NodeId id, std::uint32_t row) const { return node(id).firstChild + row; }
    std::uint32_t row(NodeId id) const { return id == 0 ? 0 : id - node(node(id).parent).firstChild; }
    bool isLeaf(NodeId id) const { return node(id).childCount == 0; }

    // Server syntax path (".spec.containers[name=\"nginx\"].image"); "" for the root.
    FieldPath path(NodeId id) const;
    // JSON Pointer into the live object ("/spec/containers/0/image"); nullopt for absent nodes.
    std::optional<std::string> jsonPointer(NodeId id) const;
    // One-line value for tables: the scalar text, "{3 keys}", "[2 items]", or "" when absent.
    std::string preview(NodeId id, std::size_t maxChars = 60) const;
    // The latest time among the node's owners (epoch seconds), if any owner has a time.
    std::optional<std::int64_t> lastChanged(NodeId id) const;

    std::optional<NodeId> find(const FieldPath &path) const;
    std::optional<NodeId> findByJsonPointer(std::string_view pointer) const;

    // Member paths per entry that the tree attributes to it directly (not inherited).
    std::size_t ownedNodeCount(std::uint32_t entry) const;

private:
    struct Data;
    friend class OwnershipTreeBuilder;
    std::shared_ptr<const Data> m_d;
};

} // namespace fieldscope::core
