#pragma once
// Blame rendering for `fieldscope blame` and golden tests: pure functions of an object, its
// ownership tree and the current time.
#include "core/ownership/ownershiptree.h"

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace fieldscope::core {

// kubectl's ShortHumanDuration: "0s".."59s", "1m".."59m", "1h".."23h", "1d".."364d", "1y"...
std::string shortAge(std::int64_t seconds);

// Who last wrote as each managedFields entry, by the entry's label ("kubectl(Apply)" -> "alice"):
// the audit join's answer (core/history/historyquery.h, managerWriters); empty when unknown.
using EntryWriters = std::map<std::string, std::string>;

// "kubectl(Apply) 3m, kube-controller-manager(Update/status) 10s": every owner of the node, in
// managedFields order, with its entry's age at `nowSeconds`, and " by USER" where `writers` knows.
std::string ownersLabel(const OwnershipTree &tree, NodeId id, std::int64_t nowSeconds,
                        const EntryWriters &writers = {});

// The object's YAML (metadata.managedFields left out), each line prefixed by the owners of the
// field it shows, padded into one gutter column: "<owners> | <yaml line>". Owned fields that the
// object no longer has follow as "<owners> | # absent: <path>". `tree` must be built from
// `object` (the gutter is looked up by JSON Pointer).
std::string blameText(const Json &object, const OwnershipTree &tree, std::int64_t nowSeconds,
                      const EntryWriters &writers = {});

// One entry per leaf (owned or not, present or not), in tree order:
// {"path": ".metadata.labels.app", "value": "web", "owners": [{"manager", "operation",
// "subresource", "apiVersion", "time"}]}; absent leaves carry "value": null and "present": false.
// With `writers`, an owner whose entry it knows also carries "user".
Json blameJson(const OwnershipTree &tree, const EntryWriters &writers = {});

// The owners a YAML line shows: those of the value at `linePointer` and, on a list item's dash
// line ("- name: nginx", whose pointer is the item's first key), also those of the item itself.
// A manager that owns only the item (`k:{"name":"nginx"}: {.: {}}`) would otherwise be on no
// line at all. Entry order, no duplicates.
std::vector<NodeOwner> lineOwners(const OwnershipTree &tree, std::string_view linePointer, std::string_view lineText);

// Copy of the object without metadata.managedFields (what blame and YAML views show).
Json withoutManagedFields(const Json &object);

} // namespace fieldscope::core
