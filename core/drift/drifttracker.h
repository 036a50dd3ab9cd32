#pragma once
// The drift analysis of one object (one uid): fed its recorded versions oldest first, one at a
// time, then its live state. The rules (docs/history.md, "Drift"):
// - Appliers are the managedFields entries with operation Apply on the main resource (subresource
//   ""). Whatever an Apply manager owns has the value it applied: any other writer that changes
//   such a field takes it over (https://kubernetes.io/docs/reference/using-api/server-side-apply/).
// - An apply (the applier's entry is new, its `time` moved or its set grew) records the leaf
//   fields of its set with their values. A field it later no longer owns, that someone else now
//   owns or that no longer has the applied value, is drift; the next apply starts over.
// - When the apply itself was not recorded (the first version was listed, not created while
//   recording; or versions before it are missing), managedFields can still say this much: a field
//   an Update manager (not a status writer) owns, written no earlier than the applier's last
//   apply, inside a list item, map or struct the applier manages. Those are reported with source
//   managedFields and no applied value: the applier may have set them, or never.
// - Nothing under .status and no write through the status subresource is drift.
// Pure computation on value types; memory: the applied fields of each applier, not the versions.
// Run it on a worker thread (it decodes every version's managedFields).
#include "core/drift/driftreport.h"
#include "core/history/historytypes.h"
#include "core/history/historywho.h"

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace fieldscope::core {

struct DriftOptions {
    std::string manager; // only this Apply manager ("" = every one)
};

// One version as recorded.
struct DriftVersion {
    std::string resourceVersion;
    std::int64_t observedAtMs = 0;
    HistoryEventType eventType = HistoryEventType::Modified;
    // Versions right before this one may be missing (a gap, pruning, an unreadable row, versions
    // left out): what changed into it may have been written by more than one request.
    bool afterGap = false;
    const AuditJoin *join = nullptr; // who made it, when an audit event joined (may be null)
};

class DriftTracker
{
public:
    explicit DriftTracker(DriftOptions options = {});
    ~DriftTracker();
    DriftTracker(DriftTracker &&) noexcept;
    DriftTracker &operator=(DriftTracker &&) noexcept;

    // The next version, oldest first. A version whose managedFields cannot be decoded costs that
    // version only (a note; the next one is taken as after a gap). Deleted versions are skipped.
    void addVersion(const Json &object, const DriftVersion &version);
    // A version that could not be read at all: the next one is taken as after a gap.
    void addUnreadable(const std::string &resourceVersion, const std::string &reason);
    // The live object last: it is taken as one more version when its resourceVersion is not the
    // last one fed (unrecorded, so its changes name no resourceVersion and no person). An object
    // whose managedFields cannot be decoded is a Parse error.
    Result<DriftReport> finish(const Json &live, const DriftObjectRef &object);

private:
    struct State;
    std::unique_ptr<State> m_d;
};

// Without any recorded version: what the live managedFields alone can say.
Result<DriftReport> driftFromManagedFields(const Json &live, const DriftObjectRef &object,
                                           const DriftOptions &options = {});

} // namespace fieldscope::core
