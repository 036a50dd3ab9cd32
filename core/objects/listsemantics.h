#pragma once
// How a list merges (https://kubernetes.io/docs/reference/using-api/server-side-apply/#merge-strategy):
// atomic, set, or map keyed by some fields. The server knows from the OpenAPI schema; we know from
// (1) the list's own managedFields evidence (k:/v: entries under it, added by ownership code as
// hints), then (2) a table of built-in list types, then (3) atomic, as the server assumes without markers.
#include "core/objects/fieldpath.h"

#include <map>
#include <string>
#include <vector>

namespace fieldscope::core {

struct ListSemantics {
    enum class Type { Atomic, Set, Map };
    Type type = Type::Atomic;
    std::vector<std::string> keys;           // Map: key field names, sorted
    std::map<std::string, Json> keyDefaults; // e.g. protocol -> "TCP" for container ports
    bool operator==(const ListSemantics &) const = default;
};

// Strips keys/indexes: ".spec.template.spec.containers[name=\"a\"].ports" -> "spec.template.spec.containers.ports"
std::string schemaPathOf(const FieldPath &path);

class ListSemanticsResolver
{
public:
    // Evidence from managedFields (or a CRD schema): the list at this schema path is of this kind.
    void addHint(const std::string &schemaPath, ListSemantics semantics);
    // kind: the object's Kind ("Deployment", "Service"), used where the same field name differs.
    ListSemantics forList(const FieldPath &listPath, const std::string &kind = {}) const;

    // Builds the key element for one item of a Map list (with defaults filled in), or nullopt-like
    // false when a key field is missing.
    static bool keyFor(const ListSemantics &s, const Json &item, Json *key);

private:
    std::map<std::string, ListSemantics> m_hints;
};

} // namespace fieldscope::core
