#pragma once
// Revert: the write that puts back the fields of a recorded version ("Revert to this version",
// `fieldscope revert --to RV`) or undoes only the change one version made against the version
// before it ("Undo this change", `--change`), planned against the live object. Pure functions, no
// I/O; any thread (the History tab runs them on a worker). docs/editing.md, "Reverting".
//
// Only what a write to the object may set is reverted. Left alone, and listed when the revert
// would have changed them (RevertPlan::skipped):
//   .status                                   the controllers' report, written through /status
//   .metadata.managedFields, resourceVersion, uid, generation, creationTimestamp,
//     deletionTimestamp, deletionGracePeriodSeconds, selfLink      set by the API server
//   .metadata.ownerReferences                 an owner of an earlier version may be gone, and the
//                                             garbage collector deletes an object whose owners are
//                                             all gone
//                                             (https://kubernetes.io/docs/concepts/overview/working-with-objects/owners-dependents/)
//   .metadata.finalizers                      each controller adds and removes its own: one put back
//                                             after its controller finished would block deletion
// apiVersion, kind, metadata.name and metadata.namespace name the object and are never changed.
//
// Objects are compared key by key; a list or a scalar is one field. A JSON Patch that addressed a
// list item by index would change whichever item sits there when the patch arrives, so a list is
// tested and replaced whole.
//
// The JSON Patch tests every live value it replaces or removes ("set color=red only if color is
// still blue", https://www.rfc-editor.org/rfc/rfc6902#section-4.6), so a
// concurrent change to another field does not refuse it. RFC 6902 has no test for absence: a field
// the revert adds back is not guarded. Server-side apply cannot test a value at all; its body
// carries the live resourceVersion instead (refused when anything changed since the read).
#include "core/base/json.h"
#include "core/base/result.h"
#include "core/ownership/conflictprediction.h"

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fieldscope::core {

// One field the revert writes.
struct RevertChange {
    std::string pointer;          // JSON Pointer, "/data/color"
    std::string path;             // server syntax, ".data.color"
    std::optional<Json> live;     // nullopt: the live object lacks it (the revert adds it)
    std::optional<Json> restored; // nullopt: the revert removes it
    const char *action() const;   // "replace", "remove" or "add"
};

// A field the revert would have changed but may not (see the top of this file).
struct RevertSkipped {
    std::string path;   // ".metadata.resourceVersion"
    std::string reason; // "set by the API server"
};

struct RevertOptions {
    // RevertPlan::restored leaves .status out (types with a status subresource ignore it in
    // writes to the object, as the editor's buffer does).
    bool withoutStatus = true;
    // Whether a string is a value the history store hid (a Secret's keyed hash:
    // core/history/secretredaction.h, isRedactedValue). A hidden value cannot be written back, and
    // a live value cannot be compared with it. Unset: nothing is hidden.
    std::function<bool(std::string_view)> isHiddenValue;
    // The live object as the history keeps it: the recorded version with the live object's uid
    // and resourceVersion, when there is one (null: none). A hidden value the revert would put back
    // that this version holds too is the live value already (same key, same hash): the field is
    // left alone instead of refusing the whole revert (a Secret whose label went back).
    const Json *liveAsRecorded = nullptr;
};

struct RevertPlan {
    std::vector<RevertChange> changes;  // the restored object's order, removals last
    std::vector<RevertSkipped> skipped; // in the order met
    // Pointers of changes whose restored value holds a hidden value: the plan cannot be written
    // (the recorded Secret keeps its values only as hashes).
    std::vector<std::string> hiddenValues;
    // The live object is another incarnation (its uid differs from the recorded version's): the
    // fields are put onto the object that exists now.
    bool otherIncarnation = false;
    bool withoutStatus = true;
    // editableObject(live) with the changes made: what the editor's buffer shows, and what a write
    // in any mode (EditSession::planWrite) turns into its body.
    Json restored;
    // RFC 6902: per change a `test` of the live value, then `replace` or `remove`; an `add` for a
    // field the live object lacks. Empty when nothing changes.
    Json jsonPatch = Json::array();

    bool nothingToDo() const { return changes.empty(); }
};

// `target`: the recorded version (`--to RV`). `predecessor`: null puts every field of `target` back;
// set, only the change `target` made against it is undone (`--change`): fields it changed get the
// predecessor's values, fields it added are removed, fields it removed come back, and everything
// else stays as it is now (a map it deleted comes back merged with the keys added since). `live`:
// the current object, managedFields included. Errors: Invalid when an input is not an object, Parse
// when one is nested deeper than kMaxJsonDepth.
Result<RevertPlan> planRevert(const Json &target, const Json *predecessor, const Json &live,
                              const RevertOptions &options = {});

// A field the revert touches whose value changed after the version the user looked at: one row of
// the three-way view (base = expected, theirs = now, mine = restored).
struct StaleField {
    std::string pointer, path;
    std::optional<Json> expected; // at the version the user looked at; nullopt: absent there
    std::optional<Json> now;      // nullopt: absent now
    std::optional<Json> restored; // what the revert would write; nullopt: it removes the field
    // Who owns the field now (managedFields of `current`; for a map, everyone owning something in
    // it), so "who changed it" has an answer even without a recorded history.
    std::vector<FieldOwnerRef> owners;
};

struct StaleCheck {
    std::vector<StaleField> stale;
    // Touched fields whose expected value is hidden (a Secret's hash): not comparable.
    std::vector<std::string> hiddenValues;
    bool refuses() const { return !stale.empty() || !hiddenValues.empty(); }
};

// The fields `plan` touches whose value in `current` is no longer their value in `expected` (both
// absent is equal). `--expect RV` passes the version RV and the live object; after a refused
// server-side apply, the object the plan was made from and the one read again say what changed in
// between. Fields the plan does not touch never count: unrelated changes do not refuse a revert.
StaleCheck staleSince(const RevertPlan &plan, const Json &expected, const Json &current,
                      const RevertOptions &options = {});

// The plan as a server-side apply by `fieldManager`: the changed fields plus every field the
// manager already applied (at its live value), never the whole object, which would claim every
// field (core/edit/applybody.h). It is sent with force, so the manager takes the reverted fields
// from whoever owns them (preview.conflicts names them and their owners before anything is sent).
struct RevertApply {
    Json body; // with metadata.resourceVersion of `live`: the only precondition an apply can carry
    // Fields the revert removes that this apply cannot: apply removes only what its manager applied
    // before and nobody else owns. Server syntax. Non-empty: the apply would not be a revert.
    std::vector<std::string> notRemovable;
    ApplyPrediction preview; // the ownership the apply gives (conflicts are taken: force)
};
Result<RevertApply> revertApplyBody(const RevertPlan &plan, const Json &live, std::string_view fieldManager,
                                    const ApplyOptions &options = {});

} // namespace fieldscope::core
