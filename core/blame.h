#pragma once
// Blame rendering for `fieldscope blame` and golden tests: pure functions of an object, its
// ownership tree and the current time.
#include "core/ownershiptree.h"

#include <cstdint>
#include <string>

namespace fieldscope::core {

// kubectl's ShortHumanDuration: "0s".."59s", "1m".."59m", "1h".."23h", "1d".."364d", "1y"...
std::string shortAge(std::int64_t seconds);

// "kubectl(Apply) 3m, kube-controller-manager(Update/status) 10s": every owner of the node, in
// managedFields order, with its entry's age at `nowSeconds`.
std::string ownersLabel(const OwnershipTree &tree, NodeId id, std::int64_t nowSeconds);

// The object's YAML (metadata.managedFields left out), each line prefixed by the owners of the
// field it shows, padded into one gutter column: "<owners> | <yaml line>". Owned fields that the
// object no longer has follow as "<owners> | # absent: <path>". `tree` must be built from
// `object` (the gutter is looked up by JSON Pointer).
std::string blameText(const Json &object, const OwnershipTree &tree, std::int64_t nowSeconds);

// One entry per leaf (owned or not, present or not), in tree order:
// {"path": ".metadata.labels.app", "value": "web", "owners": [{"manager", "operation",
// "subresource", "apiVersion", "time"}]}; absent leaves carry "value": null and "present": false.
Json blameJson(const OwnershipTree &tree);

// Copy of the object without metadata.managedFields (what blame and YAML views show).
Json withoutManagedFields(const Json &object);

} // namespace fieldscope::core
