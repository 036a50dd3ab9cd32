#pragma once
// A path into an object in structured-merge-diff terms, rendered in the server's own conflict
// syntax (sigs.k8s.io/structured-merge-diff/fieldpath/element.go) so 409 causes, ownership nodes, diff rows agree:
//   .spec.template.spec.containers[name="nginx"].image
//   .spec.ports[port=80,protocol="TCP"].targetPort
//   .metadata.finalizers[="example.com/x"]      .spec.args[3]
#include "core/base/json.h"

#include <string>
#include <vector>

namespace fieldscope::core {

struct PathElement {
    enum class Kind { Field, Key, Value, Index };
    Kind kind = Kind::Field;
    std::string field; // Field: struct field or map key
    Json key;          // Key: object of key fields (sorted by name when rendered)
    Json value;        // Value: the set member
    std::int64_t index = 0;

    static PathElement makeField(std::string name);
    static PathElement makeKey(Json keyFields);
    static PathElement makeValue(Json v);
    static PathElement makeIndex(std::int64_t i);

    std::string toString() const; // ".name", "[k=v,...]", "[=v]", "[n]"
    bool operator==(const PathElement &o) const;
};

// A JSON Patch `test` that pins one list item a path passes through to the item it named.
struct PointerPin {
    std::string pointer; // "/spec/containers/0/name"
    Json value;          // "app"
};

class FieldPath
{
public:
    FieldPath() = default;
    explicit FieldPath(std::vector<PathElement> elements) : m_elements(std::move(elements)) {}

    const std::vector<PathElement> &elements() const { return m_elements; }
    bool isEmpty() const { return m_elements.empty(); }
    std::size_t size() const { return m_elements.size(); }
    const PathElement &operator[](std::size_t i) const { return m_elements[i]; }

    FieldPath child(PathElement e) const;
    FieldPath parent() const;
    bool startsWith(const FieldPath &prefix) const;

    // Server syntax; the empty path renders as "" (the object itself).
    std::string toString() const;
    bool operator==(const FieldPath &o) const { return m_elements == o.m_elements; }
    bool operator<(const FieldPath &o) const { return toString() < o.toString(); }

    // Resolves the path against a live object: a JSON Pointer ("/spec/containers/0/image") when
    // every element can be found, else an empty optional-like result (returns false).
    bool resolve(const Json &object, std::string *jsonPointer, const Json **node = nullptr) const;
    // The same, with the pins a JSON Patch at that pointer needs: a pointer names list items by
    // index, so after someone reorders the list the same index is another item. For each keyed
    // item the path passes through, its key fields at that index; for each set member, the member.
    bool resolve(const Json &object, std::string *jsonPointer, const Json **node, std::vector<PointerPin> *pins) const;

private:
    std::vector<PathElement> m_elements;
};

} // namespace fieldscope::core
