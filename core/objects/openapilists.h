#pragma once
// The list semantics a server declares in its OpenAPI v3 schema, read the way the server reads
// them for server-side apply (k8s.io/kube-openapi/pkg/schemaconv/smd.go,
// getListElementRelationship): `x-kubernetes-list-type` atomic/set/map with
// `x-kubernetes-list-map-keys`; without a list type, `x-kubernetes-patch-strategy: merge` with
// `x-kubernetes-patch-merge-key` is a map on that key and without the key a set; anything else
// is atomic. They become hints for ListSemanticsResolver, which is how a custom resource's keyed
// lists are known at all (https://kubernetes.io/docs/reference/using-api/server-side-apply/#merge-strategy).
// Pure functions on documents we did not write: wrong types are Parse errors, never exceptions.
#include "core/base/result.h"
#include "core/objects/listsemantics.h"

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace fieldscope::core {

// Bounds of the schema walk: field depth (deeper lists are not reported) and schema nodes
// visited (a document that needs more is refused). A $ref already on the way down is not followed
// again (JSONSchemaProps refers to itself).
inline constexpr int kMaxSchemaFieldDepth = 64;
inline constexpr std::size_t kMaxSchemaNodes = 200'000;

// Where /openapi/v3 lists a group version: "api/v1" for "v1", "apis/apps/v1" for "apps/v1".
std::string openApiV3Path(std::string_view apiVersion);

// The server-relative URL (with its hash) of one group version's document, from the /openapi/v3
// index ({"paths": {"apis/apps/v1": {"serverRelativeURL": "/openapi/v3/apis/apps/v1?hash=..."}}}).
// NotFound when the server publishes no document for it.
Result<std::string> openApiV3DocumentUrl(const Json &index, std::string_view apiVersion);

struct ListSemanticsHint {
    std::string schemaPath; // as schemaPathOf writes it: "spec.template.spec.containers"
    ListSemantics semantics;
    bool operator==(const ListSemanticsHint &) const = default;
};

// Every list of `kind` in `document` (the group version's OpenAPI v3 document), by schema path.
// Map keys' defaults come from the items' schema (a port's protocol: TCP). Lists under a field
// whose names are data (additionalProperties) have no schema path and are left out. NotFound
// when no schema there names this group, version and kind.
Result<std::vector<ListSemanticsHint>> listSemanticsFromOpenApi(const Json &document, std::string_view apiVersion,
                                                                std::string_view kind);

// One line per hint, for tests and logs: "spec.routes\tmap host,port (port=443)".
std::string describeHints(const std::vector<ListSemanticsHint> &hints);

} // namespace fieldscope::core
