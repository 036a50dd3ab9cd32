#pragma once
// The history of one object (all its incarnations: re-created objects get a new uid, linked by
// group/kind/namespace/name) with each version attributed against its predecessor. Feeds the CLI
// (`fieldscope history RESOURCE/NAME --db FILE -o json|text`) and the history tab's model.
// Thread: blocking database reads and CPU work; call on a worker thread that owns the store.
#include "core/history/attribution.h"
#include "core/history/historystore.h"

#include <map>
#include <string>

namespace fieldscope::core {

// How many versions of one object a listing holds at most by default: the newest ones. Retention
// keeps 1000 by default; a store someone else wrote may hold a million of one object.
constexpr std::int64_t kDefaultMaxListedVersions = 10000;

struct AttributedEntry {
    HistoryEntry entry;                // version, gap or pruned row
    HistoryObject object;              // the incarnation it belongs to
    TransitionAttribution attribution; // versions only
    std::string unreadable;            // versions only: why its stored row cannot be read ("" = read)
};

// Every matching incarnation, incarnations in the order they were first recorded. Streams through
// each incarnation's versions holding two decoded objects at a time: memory grows with the number
// of versions only by their rows (versions, attribution), never by their objects.
// The newest maxVersions versions of each incarnation (0 = all); the first listed is attributed as
// after a gap when older ones were left out, and `omitted` (when given) counts them.
Result<std::vector<AttributedEntry>> attributedHistory(HistoryStore &store, const ObjectQuery &query,
                                                       std::int64_t maxVersions = kDefaultMaxListedVersions,
                                                       std::int64_t *omitted = nullptr);

// attributedHistory plus each version's decoded object: objects[i] belongs to entries[i] (null for
// gap and pruned rows). Holds every version: for tests and small histories; the History tab uses
// attributedHistory and loads objects one at a time (models/historyversions.h).
struct LoadedHistory {
    std::vector<AttributedEntry> entries;
    std::vector<Json> objects;
};
Result<LoadedHistory> loadHistory(HistoryStore &store, const ObjectQuery &query);

struct HistoryListingOptions {
    // Also list the writes the server refused (from audit events), in time order among the versions.
    bool attempts = false;
    // The newest maxVersions of each object (0 = all); `omittedVersions`, when set, receives how
    // many older ones were left out in all.
    std::int64_t maxVersions = kDefaultMaxListedVersions;
    std::int64_t *omittedVersions = nullptr;
};

// The CLI's `-o json`: an array with one entry per version (gaps are not versions and are left
// out), each with exactly: resourceVersion, eventType, observedAt (RFC 3339 UTC with ms),
// managers (manager names of the writers), changedPaths (server syntax, noise-filtered), who
// (the person from the audit join, auditWhoJson plus match "exact", "probable" or "contested";
// null when no audit event joined or several fit; {match: "contested"} alone when several people
// claim the version), and whoCandidates only when several requests fit or claim it (each an
// auditWhoJson, with whoMore when more fitted than are listed). With options.attempts, refused writes are
// entries with eventType "REFUSED", time, code, reason, message and who, placed among the versions
// by the time of their request (versionWrittenMicros). An unknown object is a NotFound error.
Result<Json> historyJson(HistoryStore &store, const ObjectQuery &query, const HistoryListingOptions &options = {});

// The CLI's `-o text`: one line per version or gap, with "(ambiguous: reason)" where it applies,
// "by USER" where an audit event joined, and refused writes with options.attempts.
Result<std::string> historyText(HistoryStore &store, const ObjectQuery &query,
                                const HistoryListingOptions &options = {});

// Who last wrote as each managedFields entry of one incarnation (`uid`): for each recorded version
// an audit event joined exactly or probably, the entries that made it (the attribution's writers)
// get that version's person. Key: the entry's label ("kubectl(Apply)",
// "kube-controller-manager(Update/status)"); value: the acting name ("alice", "admin as
// system:serviceaccount:team:deployer"), with " (probable)" for a probable join. Entries no joined
// version names are absent (never a guess). `fieldscope blame --who` and the Ownership tab.
Result<std::map<std::string, std::string>> managerWriters(HistoryStore &store, const ObjectQuery &query,
                                                          const std::string &uid);

// The join of one listed version among `joins` (uid -> resourceVersion -> join): null for a gap or
// a pruned entry, and for a version nothing joined.
const AuditJoin *joinOfEntry(const std::map<std::string, std::map<std::string, AuditJoin>> &joins,
                             const AttributedEntry &entry);
// When a recorded version was written, as far as the history can tell, in microseconds since the
// epoch: the request time of the one request an audit event joins to it (exact or probable),
// else the end of the millisecond the recorder saw it in. Watch delivery lags the write under load,
// so refused writes are placed among versions by this, not by observedAt. Never later than the
// recorder saw the version: an audit event's time cannot move a version after it was seen.
std::int64_t versionWrittenMicros(std::int64_t observedAtMs, const AuditJoin *join);
// A refused write's request time, in microseconds since the epoch (0 when it does not parse).
// It goes before a version when attemptMicros < versionWrittenMicros.
std::int64_t attemptMicros(const AuditAttempt &a);

// Who made one version, as historyJson says it (null when nothing joined).
Json historyWhoJson(const AuditJoin *join);
// The refused writes on the objects a query names (every matching object's group, resource,
// namespace and name), oldest request first.
Result<std::vector<AuditAttempt>> historyAttempts(HistoryStore &store, const std::vector<HistoryObject> &objects);

} // namespace fieldscope::core
