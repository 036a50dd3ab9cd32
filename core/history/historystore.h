#pragma once
// The resourceVersion history: every version of every watched object, compressed
// (core/history/versioncodec.h), with honest gaps and bounded retention. It lives in one SQLite
// file (WAL) per cluster on this computer, or in a team's PostgreSQL database: a location
// "postgresql://..." (a libpq URI; "#IDENTITY" after it picks one cluster's store when the
// database holds several) opens the shared store, each cluster in its own schema. The SQL is the
// same for both (core/history/historydb.h); docs/team-history.md covers running it.
//
// Thread: a HistoryStore is one database connection and is used by ONE thread at a time (it is not
// internally locked). Recording goes through HistoryRecorder (core/history/historywriter.h), which owns a
// store on its writer thread; readers (history tab, CLI, export) open their own store on a worker
// thread. WAL lets any number of readers run while the writer commits.
//
// Durability: every write() is one transaction. With WAL + synchronous=NORMAL a committed
// transaction survives the process being killed at any moment (the WAL frames are in the OS page
// cache once COMMIT returns); only an OS crash or power loss can drop the last transactions, and
// even then the file opens consistently. The kill -9 test is tests/core/tst_historycrash.cpp.
#include "core/base/json.h"
#include "core/base/result.h"
#include "core/history/historytypes.h"
#include "core/history/historywho.h"

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fieldscope::core {

// One unit of a write transaction, applied in order: either events of one scope or a gap.
struct HistoryWriteItem {
    WatchScope scope;
    std::vector<WatchEvent> events;
    std::optional<HistoryGap> gap;    // when set, `events` is ignored
    std::string scopeResourceVersion; // list RV or bookmark RV reached after this item ("" = none)
    // Set on the first list of a recording run, nobody having recorded the scope since its last
    // stored RV. On the list's first item (scopeResourceVersion "") a gap from that RV with an
    // open end is stored, so it sorts before the listed versions; on the item that completes the
    // list it is closed at the list RV, or dropped when that RV is the last stored one (nothing
    // missed). A list in one item does both. A crash in between leaves the end open: honest.
    // Decided inside the write transaction, so no caller reads the store from its own thread.
    std::string resumeGapReason;
    // A replay of versions somebody watched outside the recorder's own watches (the sandbox demo's
    // or a lesson's watch of the objects it writes): only objects the store holds no version of
    // are written, so a replay can neither repeat nor reorder what a watch recorded, and it never
    // moves the scope's resume point (the replay did not observe the whole scope).
    bool onlyNewObjects = false;
};

// Which objects a lookup means. Empty fields match anything.
struct ObjectQuery {
    // "deployments", "deployment", "Deployment", "deploy" is NOT understood (no discovery offline);
    // "deployments.apps" restricts the group.
    std::string resource;
    std::string namespace_;
    bool allNamespaces = false; // ignore namespace_
    std::string name;
    std::string uid;
};

struct HistoryStats {
    std::int64_t objects = 0;
    std::int64_t versions = 0;
    std::int64_t gaps = 0;
    std::int64_t storedBytes = 0;
    std::int64_t rawBytes = 0;
};

// How a writer opens a store (docs/architecture.md, "Secrets and files at rest").
struct HistoryOpenOptions {
    // Who the store belongs to: a stable identity of the cluster (clusterIdentityOf in app/services/historysource.h).
    // Empty: not checked. A store stamped with another identity is refused (ErrorCategory::Config): two clusters never
    // share one history. An unstamped store is stamped on first open.
    std::string clusterIdentity;
    std::string clusterLabel; // the server URL, for the refusal's message
    // The store's folder is the app's own: an existing one is restricted to 0700 as well (missing
    // folders are always created 0700).
    bool folderIsPrivate = false;
    // Store core/v1 Secrets' data/stringData values as the server sent them. Off: each value is a
    // keyed hash (core/history/secretredaction.h), with this store's own random key.
    bool recordSecretValues = false;
    // Who records (shown with each version it stored, e.g. "record@build-host"); "" = unnamed.
    std::string recorderName;
    // The SQLite file: each commit reaches the disk before write() returns (synchronous=FULL), so
    // it survives a power loss too; off, a commit survives the app's crash and is flushed at
    // checkpoints (synchronous=NORMAL in WAL mode). A PostgreSQL store's durability is its
    // server's (fsync, synchronous_commit).
    bool durableCommits = false;
};

// Whether a location names a team's PostgreSQL store ("postgresql://..." or "postgres://...").
bool isSharedHistoryLocation(std::string_view location);
// A shared location that carries a password is refused (ErrorCategory::Config): it would sit in
// settings, shell history and `ps`; libpq reads ~/.pgpass, PGPASSWORD and service files.
Status checkSharedHistoryLocation(std::string_view location);
// The location with any password replaced by "***", for messages.
std::string displayHistoryLocation(std::string_view location);
// "" when a store's policy may take these limits, else why not: versions per object 0 (no limit) or
// 2 and more, days 0 or 1 to 36500, bytes 0 or 1 MiB and more.
std::string checkRetentionChange(const RetentionChange &change);

class HistoryStore
{
public:
    enum class OpenMode { ReadWrite, ReadOnly };
    // Creates the file and schema when missing (ReadWrite). A file written by a newer schema is
    // refused rather than misread. A writer creates the file 0600 (and missing folders 0700)
    // whatever the umask, before SQLite opens it, so the -wal/-shm files SQLite makes get 0600
    // too; an existing file (and its -wal/-shm) is restricted to 0600.
    static Result<std::unique_ptr<HistoryStore>> open(const std::string &path, OpenMode mode = OpenMode::ReadWrite);
    static Result<std::unique_ptr<HistoryStore>> open(const std::string &path, OpenMode mode,
                                                      const HistoryOpenOptions &options);
    // The identity the store was stamped with ("" = none), and its label.
    std::string clusterIdentity() const;
    std::string clusterLabel() const;
    // Whether this connection stores Secret values (HistoryOpenOptions::recordSecretValues).
    bool recordsSecretValues() const;
    // A team's PostgreSQL store (the location was a postgresql:// URL), not a file of this computer.
    bool isShared() const;
    // How a commit is made durable, as the database says: "synchronous=FULL" or "synchronous=NORMAL"
    // (a file; HistoryOpenOptions::durableCommits), "fsync=on, synchronous_commit=on" (a server).
    Result<std::string> durability() const;
    // Moves everything in the -wal into the database file and empties the -wal (before the file
    // is renamed or copied on its own).
    Status checkpoint();
    ~HistoryStore();
    HistoryStore(const HistoryStore &) = delete;
    HistoryStore &operator=(const HistoryStore &) = delete;

    const std::string &path() const;

    // --- writing (ReadWrite only) ---------------------------------------------------------------
    // Stores the items in ONE transaction. Versions whose uid+RV equal the uid's latest stored
    // version are skipped (a relist delivers them again); unparsable or uid-less objects are
    // counted in CommitReport::rejected. On error nothing of the batch is stored.
    Result<CommitReport> write(const std::vector<HistoryWriteItem> &items);
    // The same, and `next` (the caller's next write) is read on another thread meanwhile; the
    // write given that very batch next starts from what was read (CommitReport::readBeforehand).
    // The store holds `next` until then, and nobody may change it: a batch is shared, not copied.
    using Batch = std::shared_ptr<const std::vector<HistoryWriteItem>>;
    Result<CommitReport> write(const Batch &items, Batch next);
    // Prunes to the policy (own transaction). Always keeps the latest version of a live object;
    // the first kept version of an object is rewritten as a snapshot so it stays decodable.
    Status applyRetention(const RetentionPolicy &policy, std::int64_t nowMs);

    // --- a shared store's own retention (docs/team-history.md) ---------------------------------
    // A file's retention is the user's (Settings); these answer ErrorCategory::Config for a file.
    // The policy the store's owner set (the defaults while none is set, and in a store older than
    // the policy).
    Result<StoreRetention> storeRetention();
    // Prunes to the store's policy, read inside the pruning's transaction, so a change by the owner
    // applies from the next round on. Skipped while another recorder prunes this store or pruned
    // it less than minIntervalMs ago (recorders of one store take turns instead of each pruning).
    // Every pruning that removed versions is recorded (prunings()).
    Status applyStoreRetention(std::int64_t nowMs, std::int64_t minIntervalMs);
    // Who owns the store (the role owning its tables) and whether this connection's role does.
    struct Ownership {
        std::string owner;
        std::string user;
        bool isOwner = false;
    };
    Result<Ownership> ownership();
    // Sets the policy's given limits (ReadWrite). Only the owner role may (ErrorCategory::Forbidden
    // naming it; the database's row policy refuses anyone else as well); invalid limits are
    // ErrorCategory::Invalid (checkRetentionChange).
    Status setStoreRetention(const RetentionChange &change, std::int64_t nowMs);
    // The last prunings, newest first (the store keeps kKeptPrunings).
    static constexpr int kKeptPrunings = 100;
    Result<std::vector<PruningRecord>> prunings(int limit);

    // --- reading --------------------------------------------------------------------------------
    Result<std::vector<HistoryObject>> findObjects(const ObjectQuery &query);
    Result<std::vector<HistoryObject>> allObjects();
    Result<std::vector<VersionInfo>> versions(std::int64_t objectId);
    // The newest stored version's row (nullopt when none is kept): one row, however many exist.
    Result<std::optional<VersionInfo>> lastVersion(std::int64_t objectId);
    // Many lookups at once, for readers that follow many objects (the live audit join): a
    // statement per 64, not one per object, so a team store's round trips do not grow with them.
    // out[i] holds what findObjects(queries[i]) finds (a query with a name and one namespace; any
    // other is looked up alone).
    Result<std::vector<std::vector<HistoryObject>>> findObjects(const std::vector<ObjectQuery> &queries);
    // out[i] holds the versions of object after[i].first with a seq above after[i].second, in
    // order (versions(id) from that seq on).
    Result<std::vector<std::vector<VersionInfo>>>
    versionsAfter(const std::vector<std::pair<std::int64_t, std::int64_t>> &after);
    // Versions in order with the gaps of the object's scopes and a leading Pruned row if
    // retention removed older versions. Bodies are not decoded. With maxVersions > 0 only the
    // newest maxVersions are listed (an object may have a million rows someone else wrote);
    // `omitted` then says how many older ones were left out.
    Result<std::vector<HistoryEntry>> history(std::int64_t objectId);
    Result<std::vector<HistoryEntry>> history(std::int64_t objectId, std::int64_t maxVersions, std::int64_t *omitted);
    // Decodes one version: the nearest snapshot plus at most VersionCodec::kMaxChain deltas.
    Result<Json> loadVersion(std::int64_t objectId, std::int64_t seq);
    // Decodes every stored version in seq order, each from its predecessor (one pass).
    Result<std::vector<Json>> loadAllVersions(std::int64_t objectId);
    // The same as a stream: `callback(seq, object)` sees each version in seq order (the object is
    // valid during the call only) and returns false to stop. Memory: one decoded version, so a
    // long history of a large object is walked without holding it (the History tab's attribution).
    Status forEachVersion(std::int64_t objectId,
                          const std::function<bool(std::int64_t seq, const Json &object)> &callback);
    // The same, for rows someone else may have written: a version that does not decode or breaks
    // a bound (VersionCodec's cap), and the deltas that build on it up to the next snapshot, go to
    // `onUnreadable(seq, reason)` instead of ending the walk (the two-argument form ends it with
    // the error). Either callback returns false to stop. Rows are read in pages. With fromSeq the
    // walk starts at the snapshot that version builds on and calls back from fromSeq on.
    using UnreadableVisit = std::function<bool(std::int64_t seq, const std::string &reason)>;
    Status forEachVersion(std::int64_t objectId,
                          const std::function<bool(std::int64_t seq, const Json &object)> &callback,
                          const UnreadableVisit &onUnreadable, std::int64_t fromSeq = 0);
    Result<std::vector<HistoryGap>> gaps(const std::string &scopeId);
    Result<std::vector<HistoryGap>> allGaps();
    // The last RV the store saw for a scope (list RV, bookmark, or the last event); "" if none.
    // The watch layer uses it at start-up to record the restart gap honestly.
    Result<std::string> lastResourceVersion(const std::string &scopeId);
    // Every scope the store has recorded (ids as WatchScope::of makes them: "configmaps.v1/team").
    Result<std::vector<std::string>> scopeIds();
    Result<HistoryStats> stats();

    // Streams every stored version (decoded) and gap in recording order. `objects` restricts the
    // versions (and the gaps to those objects' scopes); null = everything. Memory: one decoded
    // object per object id seen. The callback returns false to stop early. A version that cannot
    // be read comes with `unreadable` set (and so do the deltas built on it): it affects only its
    // own object, and the caller decides (export and copy skip and report it).
    struct ScanRecord {
        bool isGap = false;
        VersionInfo version;          // !isGap
        std::string resource;         // !isGap: the object's resource (plural)
        const Json *object = nullptr; // !isGap: valid during the callback only; null when unreadable
        std::string unreadable;       // !isGap: why this version cannot be read (its object is null)
        HistoryGap gap;               // isGap
    };
    Status scan(const std::function<bool(const ScanRecord &)> &callback,
                const std::vector<std::int64_t> *objects = nullptr);
    // --- who made each version (docs/audit.md) ----------------------------------------------------
    // Stores joins and refused writes in ONE transaction. A join replaces the stored one of the
    // same uid + resourceVersion unless that one is exact and this one is not (exact joins are
    // final); an attempt is stored once per auditID, so importing the same log twice changes
    // nothing. Returns how many joins and attempts were new or changed.
    struct AuditWriteReport {
        std::int64_t joins = 0;
        std::int64_t attempts = 0;
    };
    // `state`: values a source of audit events keeps with what it stored (a followed log's position),
    // read back with auditState.
    Result<AuditWriteReport> writeAudit(const std::vector<AuditJoin> &joins, const std::vector<AuditAttempt> &attempts,
                                        const std::map<std::string, std::string> &state = {});
    // A value writeAudit kept ("" when none).
    Result<std::string> auditState(const std::string &key);
    // The joins of one incarnation, by resourceVersion (empty for a store no join was written to).
    Result<std::map<std::string, AuditJoin>> auditJoins(const std::string &uid);
    // Refused writes on objects of this group, resource, namespace and name (any incarnation, and
    // refused creates of that name), oldest request first.
    Result<std::vector<AuditAttempt>> auditAttempts(const AuditObjectKey &object);

    // Every refused write, oldest request first (store copy).
    Result<std::vector<AuditAttempt>> allAuditAttempts();

    // --- a team's shared store ------------------------------------------------------------------
    // Blocks up to timeoutMs until another connection commits to this PostgreSQL store (LISTEN/
    // NOTIFY): "VERSIONS RECORDER" of that commit, "" on timeout, an error when the connection
    // broke. A file store has no such announcements (ErrorCategory::Config).
    Result<std::string> waitForChange(int timeoutMs);
    // A store that holds no version yet takes the other store's Secret redaction key, so values
    // copied from it and values recorded afterwards hash alike. Returns whether it did.
    Result<bool> adoptRedactionKeyOf(HistoryStore &other);
    // What the database says about this connection (Settings' Test connection).
    struct Backend {
        std::string kind;          // "SQLite" or "PostgreSQL"
        std::string serverVersion; // PostgreSQL's ("15.18"), or the SQLite library's
        int schemaVersion = 0;
        bool mayWrite = false;
        std::string user; // the database role ("" for a file)
    };
    Result<Backend> backend();
    // The same for a location without opening a store (Settings' Test connection): a database
    // that holds no store of `clusterIdentity` yet answers schema 0, and mayWrite says whether
    // this role could make one.
    static Result<Backend> probe(const std::string &location, const std::string &clusterIdentity);

    // PRAGMA integrity_check plus: every object's first kept version is a snapshot and every
    // version decodes.
    Status checkIntegrity();

private:
    struct Impl;
    explicit HistoryStore(std::unique_ptr<Impl> impl);
    std::unique_ptr<Impl> m_d;
};

} // namespace fieldscope::core
