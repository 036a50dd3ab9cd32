#pragma once
// The recorded versions `fieldscope revert` works from: RV itself, the version recorded just before
// it (for --change) and the version the user looked at (--expect), found in a history store; and,
// for a field that changed since that version, the recorded versions that changed it and who made
// them. Command line only: blocking reads of the store on the calling thread.
#include "core/base/json.h"
#include "core/base/result.h"
#include "core/history/historystore.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace fieldscope::app {

struct RecordedVersion {
    core::HistoryObject incarnation;
    core::VersionInfo version;
    core::Json object; // the decoded version
};

struct RevertVersions {
    RecordedVersion target;
    // The version recorded just before `target` in its incarnation, when asked for and nothing
    // was missed in between; else `noPredecessor` says why there is none.
    std::optional<RecordedVersion> predecessor;
    std::string noPredecessor;
    std::optional<RecordedVersion> expect;
    // Where they were found (the object's own query), for writersSince().
    core::HistoryStore *store = nullptr;
    core::ObjectQuery query;
    mutable std::optional<core::Json> listing; // historyJson of `query`, read once when first needed
};

// `query` names the object (RESOURCE/NAME, -n); `to` and `expect` ("" = none) are resourceVersions.
// A NotFound error names a version the store does not hold (and says when older versions were
// left out of the listing: each object's newest core::kDefaultMaxListedVersions are searched).
core::Result<RevertVersions> findRevertVersions(core::HistoryStore &store, const core::ObjectQuery &query,
                                                const std::string &to, bool withPredecessor, const std::string &expect);

// One recorded version that changed a field after the expected version.
struct RevertWriter {
    std::string resourceVersion;
    std::vector<std::string> managers; // the managedFields entries that made it
    std::string who;                   // the person, from the audit join ("" = not known)
    std::string text() const;          // "bob", "bob (alice)", "an unknown writer"
};

// The recorded versions after `versions.expect` that changed `path` (server syntax) or a field
// inside or around it, oldest first. Empty when nothing recorded it (the live owners still say who
// owns it now).
std::vector<RevertWriter> writersSince(const RevertVersions &versions, const std::string &path);

} // namespace fieldscope::app
