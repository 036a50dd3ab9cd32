#pragma once
// EditSession: the object editor's decisions, without a window or a network. One session is one
// editor's state: the version its writes are based on (the editable object, its resourceVersion
// and the live object with managedFields), the object as last read after a refusal, the fields
// the user gave up or co-owned since the last write, the last JSON Patch sent and the last
// stale-write merge. Around it are the pure steps the editor takes, each a function of its
// inputs: read a server version, check the buffer's shape, turn an edit into the body of the
// chosen write mode, sort a refusal, build the rows of an SSA conflict or of failed JSON Patch
// tests, plan the per-field resolutions (force, give up, co-own) and rebuild the buffer from
// them, merge a stale edit onto the current object, and describe what a write changed.
// The Kubernetes behaviour behind them:
// https://kubernetes.io/docs/reference/using-api/server-side-apply/ (conflicts, force, sharing a
// field) and https://kubernetes.io/docs/reference/using-api/api-concepts/#resource-versions (the
// replace precondition).
//
// Threads: the static functions are pure and callable from any thread (the editor runs them on
// workers); a session object lives on its owner's thread and is not shared (workers get copies
// of what they need: writeBase()).
#include "core/base/error.h"
#include "core/base/json.h"
#include "core/base/result.h"
#include "core/diff/threewaymerge.h"

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace fieldscope::core {

enum class WriteMode {
    Apply,      // server-side apply of the manager's own and the changed fields
    Replace,    // PUT of the whole object, refused if its resourceVersion is no longer current
    MergePatch, // RFC 7386: what the buffer changed since the base version
    JsonPatch,  // RFC 6902: the same, each change preceded by a `test` of the opened value
};

// One version of the object as the editor uses it.
struct EditVersion {
    Json live;        // as the server sent it, managedFields included
    Json editable;    // editableObject(live): what a write to the object can change
    std::string yaml; // `editable` as the buffer shows it
    std::string resourceVersion, namespace_, name;
};

// Why a parsed buffer cannot be written (the server judges everything else).
enum class ShapeProblem { None, NotAnObject, NoName };

// The request body a write sends, decided by the mode.
struct WritePlan {
    WriteMode mode = WriteMode::Apply;
    Json body;          // apply: the apply body; replace: the object with the precondition; patches: the patch
    bool force = false; // apply only
    // Apply: fields the user deleted that an apply cannot remove (not this manager's), except
    // those given up on purpose. Server syntax (".data.foo").
    std::vector<std::string> notRemovable;
    // A JSON Patch without operations: the buffer has no changes, nothing is sent.
    bool sendsNothing() const { return mode == WriteMode::JsonPatch && body.is_array() && body.empty(); }
};

// What a refused write leads to.
enum class Refusal {
    FieldConflicts, // SSA 409 naming fields and owners: the conflict rows
    StaleWrite,     // 409 on the resourceVersion precondition: the three-way view
    FailedTests,    // 422 to a JSON Patch: which `test` failed, found against the current object
    Invalid,        // 400/422 with causes
    Forbidden,      // 403: the editor turns read-only
    Other,          // shown as it is
};

// One row of the SSA conflict table: the field, who owns it, and both values.
struct ConflictEntry {
    FieldConflict conflict;
    std::optional<Json> live; // nullopt: not in the live object (or the live object is unknown)
    std::optional<Json> mine; // nullopt: not in what was sent
};

// One failed `test` of a JSON Patch.
struct FailedTest {
    std::string pointer;
    std::optional<Json> opened; // the value the patch tested (the value when the buffer was opened)
    std::optional<Json> now;    // nullopt: the path is gone
};

enum class Resolution { Undecided, Force, GiveUp, CoOwn };

// The re-send that per-field resolutions lead to: given-up fields removed from the buffer,
// co-owned ones set to the live value, force only when some field chose it (then exactly those
// are left conflicting).
struct ResolutionPlan {
    std::vector<std::string> giveUp, coOwn; // server syntax, each once, in the rows' order
    bool force = false;
};

// A stale edit merged onto the current object.
struct MergeOnto {
    ThreeWayMerge merge;    // opened (base), buffer (mine), current (theirs)
    EditVersion now;        // the current version: the next writes are based on it
    std::string mergedYaml; // the buffer's next text when nothing conflicts, else ""
};

// What a write did, from the objects before and after (for a dry run: would do).
struct WriteSummary {
    std::vector<std::string> ownership; // "fieldscope takes .data.color from other-tool (Apply)"
    std::vector<std::string> changes;   // "changed .data.color: red -> green"
};

class EditSession
{
public:
    // `withoutStatus`: the type has a status subresource, so writes to the object ignore .status
    // and the editable text leaves it out.
    explicit EditSession(bool withoutStatus = false) : m_withoutStatus(withoutStatus) {}

    // ---- Pure steps (any thread) ----
    // `json`: the object as the server sent it (JSON text).
    static Result<EditVersion> parseVersion(std::string_view json, bool withoutStatus);
    static Result<EditVersion> readVersion(const Json &live, bool withoutStatus);
    static ShapeProblem shapeProblem(const Json &object);
    static Refusal refusalOf(const Error &error, WriteMode mode);
    // `sent`: the body of the refused apply; `live`: the object read after the 409 (null when the
    // read failed). The 409 names fields and owners only: values are looked up with the list
    // semantics the server used for the paths. One row per conflict, in the 409's order.
    static std::vector<ConflictEntry> conflictRows(const Error &error, const Json &sent, const Json &live);
    // The tests of `jsonPatch` that the current object (`currentLive`, as read) fails.
    static std::vector<FailedTest> failedTests(const Json &jsonPatch, const Json &currentLive, bool withoutStatus);
    // nullopt while some field is Undecided (nothing is chosen for the user).
    static std::optional<ResolutionPlan> planResolution(const std::vector<std::pair<std::string, Resolution>> &choices);
    // The buffer with the plan's fields given up and co-owned (`live`: the object read after the
    // conflict). A path the buffer or the live object lacks is an Invalid error.
    static Result<std::string> resolvedBuffer(std::string_view bufferYaml, const Json &live,
                                              const ResolutionPlan &plan);
    // Keyed lists merge item by item (the built-in table, hints from currentLive's managedFields).
    static Result<MergeOnto> mergeOntoCurrent(const Json &opened, std::string_view bufferYaml, const Json &currentLive,
                                              bool withoutStatus);
    // The merge with the fields at `keepMine` (JSON Pointers) taken from the buffer, the other
    // conflicts from the current object.
    static std::string resolvedMergeYaml(const ThreeWayMerge &merge, const std::vector<std::string> &keepMine);
    // `before`: the live object the write was based on; `after`: the server's answer.
    static WriteSummary summarizeWrite(const Json &before, const Json &after, std::string_view manager);

    // What a write needs from the session, copied for a worker.
    struct WriteBase {
        Json live, opened;
        std::string openedRv;
        bool withoutStatus = false;
        std::vector<std::string> givenUp, coOwned;
    };
    WriteBase writeBase() const;
    // The body for `mode` from the parsed buffer `edited`: apply sends the manager's own and the
    // changed fields plus the co-owned ones (never the whole buffer, which would claim every
    // field); replace sends the object with the base resourceVersion as precondition; the patches
    // send what changed since the base version.
    static Result<WritePlan> planWrite(const WriteBase &base, WriteMode mode, Json edited, bool force,
                                       std::string_view manager);

    // ---- State (owner's thread) ----
    bool withoutStatus() const { return m_withoutStatus; }
    const Json &opened() const { return m_opened; }
    const std::string &openedResourceVersion() const { return m_openedRv; }
    const Json &live() const { return m_live; }
    const Json &current() const { return m_current; }
    const Json &lastJsonPatch() const { return m_lastJsonPatch; }
    const ThreeWayMerge &merge() const { return m_merge; }
    const std::vector<std::string> &notRemovable() const { return m_notRemovable; }
    const std::vector<std::string> &givenUp() const { return m_givenUp; }
    const std::vector<std::string> &coOwned() const { return m_coOwned; }

    // The version the editor opened: the base of the next writes.
    void open(EditVersion version);
    // A kept draft comes back with the version it was made on: writes are judged against it.
    void restoreBase(Json opened, std::string resourceVersion);
    // The object read after a refusal or for a rebase: what "current" and the live values mean.
    void noteCurrent(Json live);
    // A write was planned (and shown or sent): its notes hold until the next plan.
    void notePlanned(const WritePlan &plan, bool sent);
    // The server stored a write: the answer is the new base; resolutions start over.
    void noteWritten(EditVersion answer);
    // The user chose to build on what is there now (the buffer stays).
    void rebaseOnto(EditVersion now);
    // A merge onto the current object: the current version becomes the base; its conflicts wait
    // for the user's choices.
    void takeMerge(MergeOnto merged);
    // Per-field resolutions about to be re-sent.
    void noteResolution(const ResolutionPlan &plan);

private:
    bool m_withoutStatus = false;
    Json m_opened;                           // editable form of the version writes are based on
    std::string m_openedRv;                  // its resourceVersion: the replace precondition
    Json m_live;                             // the newest full object seen (managedFields: what the manager owns)
    Json m_current;                          // the object as last read after a refusal (rebase, give up, merge)
    Json m_lastJsonPatch;                    // the last JSON Patch sent: its tests explain a 422
    std::vector<std::string> m_notRemovable; // deletions the last apply could not make
    std::vector<std::string> m_givenUp;      // removed by "give up" since the last write: not failed deletions
    std::vector<std::string> m_coOwned;      // set to the live value since the last write: sent though unchanged
    ThreeWayMerge m_merge;                   // the last stale-write merge, waiting for the user's choices
};

} // namespace fieldscope::core
