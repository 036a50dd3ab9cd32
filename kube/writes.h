#pragma once
// Request builders for every write verb (POST, PUT, PATCH of each type, DELETE). Pure functions: the caller
// sends the request through ApiClient, which turns non-2xx answers into typed errors (409 SSA
// conflicts with their fields, stale writes, 422 causes). Response Warning headers arrive in
// HttpResponse::warnings.
#include "core/base/json.h"
#include "core/objects/fieldpath.h"
#include "kube/http.h"
#include "kube/resource.h"

#include <string>

namespace fieldscope::kube {

struct WriteOptions {
    std::string fieldManager = "fieldscope"; // always explicit (else the server takes the User-Agent)
    bool dryRun = false;                     // dryRun=All: validated and answered, not stored
    bool force = false;                      // apply only
    std::string fieldValidation = "Strict";  // Ignore | Warn | Strict ("" = server default)
    std::string subresource;                 // "", "status", "scale"
};

enum class PatchType { Json, Merge, StrategicMerge };
const char *patchContentType(PatchType t);

HttpRequest getRequest(const ResourceInfo &r, const std::string &ns, const std::string &name,
                       const std::string &subresource = {});
HttpRequest createRequest(const ResourceInfo &r, const std::string &ns, const core::Json &object,
                          const WriteOptions &o = {});
// PUT: `object` must carry metadata.resourceVersion for an optimistic-lock precondition.
HttpRequest replaceRequest(const ResourceInfo &r, const std::string &ns, const core::Json &object,
                           const WriteOptions &o = {});
HttpRequest patchRequest(const ResourceInfo &r, const std::string &ns, const std::string &name, PatchType type,
                         const core::Json &patch, const WriteOptions &o = {});
// Server-side apply of a partial object (JSON is valid YAML; we never send YAML: the server reads YAML 1.1).
HttpRequest applyRequest(const ResourceInfo &r, const std::string &ns, const core::Json &object,
                         const WriteOptions &o = {});

struct DeletePreconditions {
    std::string uid;             // never delete a re-created object of the same name
    std::string resourceVersion; // only if unchanged since read
};
enum class PropagationPolicy { Default, Orphan, Background, Foreground };
HttpRequest deleteRequest(const ResourceInfo &r, const std::string &ns, const std::string &name,
                          const DeletePreconditions &pre = {}, PropagationPolicy policy = PropagationPolicy::Default,
                          bool dryRun = false);

// "Set the value at `pointer` to `newValue` only if it is `expected`" (field-level compare-and-swap):
// [{"op":"test",...},{"op":"replace",...}]. A failed test is a 422 and nothing is written.
core::Json compareAndSwapPatch(const std::string &pointer, const core::Json &expected, const core::Json &newValue);
// The same, first testing that each list item on the way is still the item the pointer was
// resolved to (core::FieldPath::resolve's pins): a reordered list is a 422, not a write to a
// neighbour that happens to hold the same value.
core::Json compareAndSwapPatch(const std::string &pointer, const core::Json &expected, const core::Json &newValue,
                               const std::vector<core::PointerPin> &pins);
// Adds a whole-object precondition to a JSON Patch: 409 when the object changed since `resourceVersion`.
core::Json withResourceVersionPrecondition(core::Json jsonPatch, const std::string &resourceVersion);

} // namespace fieldscope::kube
