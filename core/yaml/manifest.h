#pragma once
// The objects in a file as people have them: one object, a multi-document YAML stream
// (`---`), JSON, a `kind: List` as `kubectl get -o yaml` prints it, or a typed list
// (`DeploymentList`) as the API returns it. `blame -f`, `conflicts -f` and `apply -f` read
// through this, so each object is handled in turn instead of the wrapper.
#include "core/base/json.h"
#include "core/base/result.h"

#include <string>
#include <string_view>
#include <vector>

namespace fieldscope::core {

struct ManifestObjects {
    std::vector<Json> objects;         // in file order, lists flattened
    bool single = false;               // exactly one document that was not a list: callers keep
                                       // their one-object output (scripts read it)
    std::vector<std::string> warnings; // YAML 1.1 readings ("line 4: 'on' was read as true")
};

// Every object of `input`. A document that is not a mapping, or a list item that is not one, is
// a Parse error naming the document (and item); empty documents are skipped; an input without
// any object is an error. Items of a typed list without apiVersion/kind get the list's apiVersion
// and its kind without "List", as the API server means them.
Result<ManifestObjects> manifestObjects(std::string_view input);

// "v1 ConfigMap demo/settings" for messages and JSON output.
Json manifestIdentity(const Json &object);

} // namespace fieldscope::core
