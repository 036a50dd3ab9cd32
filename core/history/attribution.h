#pragma once
// Who made a change: for one transition (version i-1 -> i) of an object, the managers whose
// metadata.managedFields entry shows they wrote (new entry, `time` moved, or field set grew),
// intersected with the paths that changed (an entry's `time` moves only when its own fields change:
// k8s.io/apimachinery/pkg/util/managedfields/internal/managedfieldsupdater.go). Evidence that does
// not single out a writer is `ambiguous` with a reason, never a guess. Also a field's timeline.
// Pure functions on value types; run them on a worker thread (they decode FieldsV1).
#include "core/diff/objectdiff.h"
#include "core/history/historytypes.h"
#include "core/ownership/managedfields.h"

#include <optional>
#include <string>
#include <vector>

namespace fieldscope::core {

// One managedFields entry identity as shown to users (see ManagedFieldsEntry::sameIdentity).
struct ManagerRef {
    std::string manager;
    ManagedOperation operation = ManagedOperation::Update;
    std::string subresource;
    std::string apiVersion;
    std::string time; // as the server wrote it (whole seconds)
    static ManagerRef of(const ManagedFieldsEntry &e);
    std::string label() const; // "kubectl(Apply)", "kube-controller-manager(Update/status)"
    bool operator==(const ManagerRef &) const = default;
};

struct ManagerEvidence {
    ManagerRef who;
    bool newEntry = false;        // the entry did not exist in the previous version
    bool timeMoved = false;       // its `time` changed
    bool fieldsGrew = false;      // it owns fields it did not own before
    bool fieldsShrank = false;    // it no longer owns fields it owned before
    std::vector<FieldPath> paths; // changed paths it owns (after, or before for removals)
};

struct TransitionAttribution {
    std::vector<ManagerEvidence> writers; // managers that made this transition
    std::vector<ManagerRef> losers;       // entries that only lost fields (taken over) or vanished
    std::vector<FieldChange> changes;     // what changed, noise-filtered (managedFields, RV, generation)
    std::vector<FieldPath> unattributed;  // changed paths no writer owns
    bool ambiguous = false;
    std::string reason; // why ambiguous, or a note ("first observed version", "deleted", ...)

    // Unique manager names of the writers, in order ("kubectl-client-side-apply").
    std::vector<std::string> managerNames() const;
};

struct AttributionContext {
    HistoryEventType eventType = HistoryEventType::Modified;
    // Versions between previous and current were not observed (a gap, or pruned history).
    bool versionsMissing = false;
    const ListSemanticsResolver *semantics = nullptr;
};

// previous == nullptr: the first observed version of this uid.
TransitionAttribution attributeTransition(const Json *previous, const Json &current,
                                          const AttributionContext &ctx = {});

// The same with each object's managedFields already decoded (parseManagedFields), so a walk over a
// history decodes every version's entries once instead of twice. previousEntries is ignored when
// previous is null.
using ManagedFieldsResult = Result<std::vector<ManagedFieldsEntry>>;
TransitionAttribution attributeTransition(const Json *previous, const ManagedFieldsResult &previousEntries,
                                          const Json &current, const ManagedFieldsResult &cur,
                                          const AttributionContext &ctx);

// Whether a FieldSet owns `path`: the path itself, a leaf ancestor (atomic subtree), or fields
// below it (the path names a container the manager has fields in).
bool fieldSetCovers(const FieldSet &set, const FieldPath &path);

struct FieldTimelinePoint {
    std::int64_t seq = 0;
    std::string resourceVersion;
    std::int64_t observedAtMs = 0;
    HistoryEventType eventType = HistoryEventType::Modified;
    bool present = false;
    Json value;           // null when absent
    bool changed = false; // differs from the previous point (presence or value)
    std::vector<ManagerRef> owners;
    bool ownersChanged = false; // owners differ from the previous point
};

// One field across versions. `versions` and `objects` are parallel (as from HistoryStore::versions
// and loadAllVersions).
std::vector<FieldTimelinePoint> fieldTimeline(const std::vector<VersionInfo> &versions,
                                              const std::vector<Json> &objects, const FieldPath &path);
// One point of that timeline, against the point of the version before (null: the first), so a
// long history is walked one decoded version at a time.
FieldTimelinePoint fieldTimelinePoint(const VersionInfo &version, const Json &object, const FieldPath &path,
                                      const FieldTimelinePoint *previous);

} // namespace fieldscope::core
