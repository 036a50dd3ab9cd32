#pragma once
// Drift: the fields an Apply manager set (kubectl apply --server-side, a GitOps tool, Helm) that
// another manager has changed or taken since (docs/history.md, "Drift"). These are the values the
// analysis hands out (core/drift/drifttracker.h, core/drift/driftquery.h) and their two printed
// forms, the CLI's `-o json` and its table. Plain, copyable value types: a worker thread makes a
// DriftReport and a queued signal carries it to a model on the GUI thread.
#include "core/objects/fieldpath.h"
#include "core/ownership/managedfields.h"

#include <QMetaType>

#include <optional>
#include <string>
#include <vector>

namespace fieldscope::core {

// The live object a finding is about.
struct DriftObjectRef {
    std::string resource; // as the CLI takes it: "deployments.apps", "configmaps"
    std::string namespace_;
    std::string name;
    std::string uid;
    bool operator==(const DriftObjectRef &) const = default;
};

// Where the applied side of a finding comes from.
enum class DriftSource {
    History,       // recorded versions: the applied value and the change are known
    ManagedFields, // the live managedFields alone: the applied value is not known (docs/history.md)
};
const char *driftSourceName(DriftSource source); // "history", "managedFields"

// The field as it is now, and who made it so.
struct DriftNow {
    std::string manager; // "" = managedFields and the audit join name nobody
    std::optional<ManagedOperation> operation;
    std::string subresource; // the manager's ("scale"); shown in the table only
    bool present = false;    // the field exists in the live object
    Json value;              // the live value (null when absent)
    std::string user;        // the person from the audit join ("" = none recorded)
    // The recorded version whose write made the field what it is ("" when that write was not
    // recorded: before the history starts, in a gap, or after the last recorded version).
    std::string resourceVersion;
    std::string time; // RFC 3339: the manager's managedFields time, else when it was recorded
    bool operator==(const DriftNow &) const = default;
};

struct DriftFinding {
    DriftObjectRef object;
    FieldPath path;
    std::string appliedBy;      // the Apply manager
    bool appliedKnown = false;  // appliedValue is what the manager applied (source History)
    bool appliedPresent = true; // the applied object had the field (known values only)
    Json appliedValue;          // null when not known or absent
    std::string appliedAt;      // RFC 3339: the manager's managedFields time at that apply ("" = unknown)
    DriftNow now;
    DriftSource source = DriftSource::History;
};

// One object's findings and what limited them (an unreadable version, malformed managedFields in
// a recorded version): notes are for people, one line each.
struct DriftReport {
    DriftObjectRef object;
    std::vector<DriftFinding> findings;
    std::vector<std::string> notes;
};

// One finding in the CLI's JSON shape (docs/cli.md): object {resource, namespace, name, uid},
// path, appliedBy, appliedValue, appliedAt, now {manager, operation, value, user,
// resourceVersion, time}, source. Unknown values are null.
Json driftFindingJson(const DriftFinding &finding);
// `fieldscope drift -o json`: a list, one item per drifted field.
Json driftJson(const std::vector<DriftFinding> &findings);
// `fieldscope drift`: a table, one row per drifted field, every text made visible and values
// previewed; "no drift" lines are the caller's.
std::string driftText(const std::vector<DriftFinding> &findings);

} // namespace fieldscope::core

Q_DECLARE_METATYPE(fieldscope::core::DriftReport)
