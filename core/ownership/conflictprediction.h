#pragma once
// Predicts what a server-side apply of a manifest would do to a live object's ownership (see
// https://kubernetes.io/docs/reference/using-api/server-side-apply/#conflicts): which fields
// conflict (and with whom, in the exact 409 path syntax), which fields the manager would newly
// own, and which it owns today but the manifest omits. Pure function of its inputs, no I/O.
#include "core/ownership/managedfields.h"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fieldscope::core {

// One managedFields entry as the server names it in a conflict.
struct FieldOwnerRef {
    std::string manager;
    ManagedOperation operation = ManagedOperation::Update;
    std::string subresource;
    std::string apiVersion;
    std::string time;
    static FieldOwnerRef of(const ManagedFieldsEntry &e);
    // "\"kubectl-edit\" using apps/v1"; Apply managers have no version part (see predictApply).
    std::string conflictDescription() const;
    bool operator==(const FieldOwnerRef &) const = default;
};

struct ApplyConflict {
    FieldPath path;                    // path.toString() equals the 409's details.causes[].field
    std::vector<FieldOwnerRef> owners; // every other owner the apply collides with, wire order
    std::optional<Json> liveValue;     // nullopt: the live object lacks the field (owned but absent)
    Json appliedValue;                 // the manifest's value at `path`
};

struct OwnershipChange {
    FieldPath path;
    std::optional<Json> liveValue;       // nullopt when the live object lacks the field
    std::optional<Json> appliedValue;    // set for newly owned fields
    std::vector<FieldOwnerRef> coOwners; // newly owned: shared with; released: who keeps it
};

struct ApplyPrediction {
    std::string fieldManager;
    std::vector<ApplyConflict> conflicts;    // manifest order
    std::vector<OwnershipChange> newlyOwned; // in the manifest, not owned by this manager today
    std::vector<OwnershipChange> removed;    // owned today, omitted, no other owner: deleted/reset
    std::vector<OwnershipChange> released;   // owned today, omitted, co-owned: value stays
    // Manager "kubectl" on an object with the last-applied annotation: conflicts on fields listed
    // there are waived (k8s.io/apimachinery/pkg/util/managedfields/internal/lastappliedmanager.go).
    // When `conflicts` is empty the server force-applies these; otherwise it reports only `conflicts`.
    std::vector<ApplyConflict> waivedByLastApplied;
    FieldSet appliedSet; // what the server would record as this manager's Apply set

    // The Status causes of the 409 the server would answer: one per (owner, path), reason
    // "FieldManagerConflict", message "conflict with <owner>", field = path.
    std::vector<StatusCause> causes() const;
    // The server's message: "Apply failed with 1 conflict: conflict with \"m\": .spec.replicas" /
    // "Apply failed with N conflicts: conflicts with \"a\":\n- .x\nconflicts with ..." (managers sorted).
    std::string serverMessage() const;
    // An Error shaped like the server's (category Conflict, HTTP 409, causes and conflicts).
    Error toConflictError() const;

    // `fieldscope conflicts` output (stable, golden-testable). Text: one block per finding;
    // JSON: {"fieldManager", "conflicts": [{"path", "owners": [{manager, operation, subresource,
    // apiVersion, time}], "live", "applied"}], "newlyOwned": [{"path", "applied", "sharedWith"}],
    // "removed": [{"path", "present", "live"}], "released": [{"path", "present", "live", "keptBy"}],
    // "waivedByLastApplied"}.
    std::string toText() const;
    Json toJson() const;
};

struct ApplyOptions {
    std::string subresource; // "" applies to the main resource
    // The server ignores .status in an apply to the main resource of types with a status
    // subresource (reset fields, 1.22+). Turn off for CRDs without a status subresource.
    bool ignoreStatus = true;
    ListSemanticsResolver semantics; // extra list semantics (CRD schemas); managedFields add hints
};

// `manifest`: the partial object to apply (as parsed from YAML/JSON). `live`: the current object
// including metadata.managedFields, or null when the apply would create it. A live object without
// any managedFields is treated like the server does: an Update entry "before-first-apply" owns all
// of its fields (k8s.io/apimachinery/pkg/util/managedfields/internal/skipnonapplied.go; messages:
// conflict.go there). Errors: Parse for undecodable managedFields, Invalid for manifests the server
// would reject (managedFields set, a list-map item missing a key field without default, duplicates).
Result<ApplyPrediction> predictApply(const Json &manifest, std::string_view fieldManager, const Json &live,
                                     const ApplyOptions &options = {});

// The field set the server derives from an applied configuration (typed.ToFieldSet without the
// fields the server strips: apiVersion, kind, metadata.name/namespace/uid/...), using list
// semantics from `resolver` and atomic structs known from `live`'s managedFields and built-ins.
Result<FieldSet> appliedFieldSet(const Json &manifest, const Json &live = Json(), const ApplyOptions &options = {});

// The Kind that list semantics are resolved for (some built-in lists merge differently per kind):
// the manifest's, else the live object's. Walks that must agree with appliedFieldSet() use it.
std::string kindOf(const Json &manifest, const Json &live);

} // namespace fieldscope::core
