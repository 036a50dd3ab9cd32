#pragma once
// FieldSet: a set of field paths stored as a trie, the decoded form of a managedFields entry's
// FieldsV1 (sigs.k8s.io/structured-merge-diff/fieldpath/serialize-pe.go). Used for ownership trees, applied
// sets and conflict prediction. A plain value type; safe to build on a worker thread and copy across threads.
#include "core/objects/fieldpath.h"

#include <string>
#include <string_view>
#include <vector>

namespace fieldscope::core {

// The canonical FieldsV1 key of one path element: "f:name", "k:{"a":1,"b":"x"}" (fields sorted,
// compact JSON), "v:"value"", "i:3". Integral floats render as integers so that a key written as
// 80.0 and a live 80 meet (the server compares numbers by value).
std::string fieldsV1Key(const PathElement &element);
// Compact JSON with object keys sorted and integral floats as integers.
std::string canonicalJsonText(const Json &value);

class FieldSet
{
public:
    struct Entry;

    // Decodes FieldsV1 like structured-merge-diff's readIterV1: "." marks the node itself, a key's
    // prefix is its first character plus ':', the payload is everything after the first colon,
    // unknown prefixes are dropped, and a node with no understood children is a member.
    // Malformed input (non-object nodes, keys without a colon, bad k:/v:/i: payloads, absurd
    // nesting) gives a Parse error whose `where` is the offending path in server syntax.
    static Result<FieldSet> fromFieldsV1(const Json &fieldsV1);
    static Result<FieldSet> fromFieldsV1Text(std::string_view text);
    // Canonical encoding: "." first, then f:, k:, v:, i: keys each sorted (the Go writer's order).
    Json toFieldsV1() const;

    // Whether the path leading to this node is itself in the set.
    bool isMember() const { return m_member; }
    void setMember(bool member) { m_member = member; }
    bool hasChildren() const { return !m_children.empty(); }
    bool isEmpty() const { return !m_member && m_children.empty(); }
    // Children sorted by their FieldsV1 key (after normalize() when built with appendChild()).
    const std::vector<Entry> &children() const { return m_children; }

    // Lookups by canonical key; O(log n), no allocation for findField().
    const FieldSet *find(std::string_view fieldsV1Key) const;
    const FieldSet *findField(std::string_view name) const;
    const FieldSet *find(const PathElement &element) const;
    const FieldSet *find(const FieldPath &path) const;
    // True when `path` itself is a member.
    bool contains(const FieldPath &path) const;

    // Find-or-insert keeping children sorted (O(n) per insert: for small, hand-built sets).
    FieldSet &child(const PathElement &element);
    void insert(const FieldPath &path);
    // Bulk building: append without ordering or de-duplication, then normalize() once.
    FieldSet &appendChild(PathElement element, std::string key);
    void normalize();

    // Union (the server's Set.Union): used to see what anyone owns.
    void merge(const FieldSet &other);

    // Number of member paths (what `kubectl` and the legend call the manager's field count).
    std::size_t memberCount() const;
    // Every member path, depth-first in key order.
    std::vector<FieldPath> members() const;

    bool operator==(const FieldSet &other) const;

private:
    bool m_member = false;
    std::vector<Entry> m_children;
};

struct FieldSet::Entry {
    std::string key; // canonical FieldsV1 key of `element`
    PathElement element;
    FieldSet set;
};

} // namespace fieldscope::core
