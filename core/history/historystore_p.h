#pragma once
// Private to HistoryStore (historystore.cpp reads, historystorewrite.cpp writes and prunes).
// Thread: whatever thread owns the HistoryStore; nothing here is locked. A large write's events are
// read by a second thread as well (readInTwo), and the caller's next write by a third (NextRead);
// both read only what open() set and write only their own results.
#include "core/history/historydb.h"
#include "core/history/historystore.h"
#include "core/history/versioncodec.h"

#include <functional>
#include <list>
#include <optional>
#include <set>
#include <string_view>
#include <thread>
#include <unordered_map>
#include <unordered_set>

namespace fieldscope::core::historydb {

// The writer's view of an object's newest stored version: lets it delta-encode without reading
// the database back. Evicted LRU; rebuilt from the database on a miss.
struct Head {
    std::int64_t objectId = 0;
    std::int64_t seq = 0;
    std::string rv;
    // The version's text and index (no DOM: see JsonIndex). Empty when the text could not be
    // indexed; the next version is then stored as a snapshot.
    JsonIndex index;
    bool deleted = false;
    int chain = 0;                   // deltas since the last snapshot
    std::int64_t deltaBytes = 0;     // their stored size
    std::int64_t snapshotBytes = 0;  // the last snapshot's stored size
    std::int64_t chainTextBytes = 0; // text the chain decodes to (the snapshot's and the deltas')
    std::int64_t rawBytes = 0;       // memory held (text + index + blobs), for the cache budget
    // Read by the bulk writer's one query per batch (HeadRow) without its body: the body is read
    // only when a delta is to be made against it (a duplicate needs none).
    bool bodyPending = false;
    // This writer stored the version itself, and forgetHeadsOthersChanged() keeps the head only
    // while no other writer stores a version of the object: its next versions come after this one
    // on the same watch, so the bulk writer does not ask the store about them. Rarely one is
    // there all the same (a replay of an older one, a second scope delivering the object, a
    // recorder ahead that stored a version this one stored an older one over): PostgreSQL's
    // unique key refuses it, the transaction is written again row by row (CommitReport::
    // bulkFallback) and the writer asks about every version from then on (bulkDuplicateCheck).
    bool ownWrite = false;
    // The blobs this writer stored from the last snapshot on (chain + 1 of them), compressed as
    // stored; empty when it did not store them all (a head read back from the database). What
    // the head keeps once evicted from the cache (HistoryStore::Impl::coldHeads).
    std::vector<std::string> blobs;
    bool blobsComplete() const { return !blobs.empty() && blobs.size() == std::size_t(chain) + 1; }
    // What rawBytes counts for a cached head.
    std::int64_t accountedBytes() const
    {
        auto bytes = std::int64_t(index.memoryBytes());
        for (const auto &b : blobs)
            bytes += std::int64_t(b.size());
        return bytes;
    }
};

// What the store records about an object besides its body.
struct EventIdentity {
    std::string uid, rv, name, namespace_, apiVersion, kind;
};

// The object of one event, read once: who it is, its index for delta encoding, and the text to
// store (the server's bytes, or a redacted copy for a Secret).
struct EventBody {
    JsonIndex index;
    EventIdentity id;
    std::optional<std::string> redacted;
    const std::string &text(const WatchEvent &ev) const { return redacted ? *redacted : ev.objectJson; }
};

// The rows of one write transaction on a database that writes in bulk (historystorebulk.cpp),
// sent by flushPending() before anything reads them back and before COMMIT.
struct PendingWrites {
    std::vector<NewObjectRow> objects; // a new object's id until then: -(its index + 1)
    std::vector<VersionRow> versions;
    std::vector<ObjectUpdateRow> updates;                   // one per object, in first-write order
    std::unordered_map<std::int64_t, std::size_t> updateOf; // object id (or placeholder) -> updates index
    // uids written in this transaction: their looked-up heads are stale.
    std::unordered_set<std::string> touched;
    // The current batch's head lookups (nullopt: not in the store) and, when other writers may
    // have stored some of its versions, which (uid, rv) the store holds.
    std::unordered_map<std::string, std::optional<HeadRow>> looked;
    // The text of looked-up heads read with the lookup, the text its chain decodes (its budget),
    // and the rows' blobs it was decoded from (Head::blobs).
    struct LookedBody {
        std::string text;
        std::int64_t chainTextBytes = 0;
        std::vector<std::string> blobs;
    };
    std::unordered_map<std::string, LookedBody> lookedText;
    // Not asked about: an event that is its object's head (isTheHeadAlone), whose object is not
    // in the store (isNotInTheStore) or whose head this writer stored (isOurOwnHead);
    // alreadyStored decides those without this set.
    std::set<std::pair<std::string, std::string>> stored;
    bool empty() const { return objects.empty() && versions.empty() && updates.empty(); }
};

} // namespace fieldscope::core::historydb

namespace fieldscope::core {

struct HistoryStore::Impl {
    std::unique_ptr<historydb::Connection> conn;
    std::string path; // the file, or the PostgreSQL location as given (its password never shown)
    int schemaVersion = 0;
    bool hasRecorderColumn = false; // schema 3 on: versions.recorder
    std::int64_t recorderId = 0;    // this writer's row in recorders (0: unnamed)
    bool readOnly = false;
    bool recordSecretValues = false;
    std::string redactionKey; // store_info('redaction_key'): 32 random bytes
    std::string clusterIdentity, clusterLabel;
    VersionCodec codec;
    std::int64_t nextOrd = 1;    // next id for versions/gaps (shared order)
    std::int64_t totalBytes = 0; // stored payload bytes, mirrored in meta('total_bytes')
    std::int64_t lastAgePruneMs = 0;
    // PRAGMA data_version as this connection last saw it: it changes when another connection (a
    // second window, `fieldscope record`) committed, and then the counters and heads cached here
    // are stale (ids and seqs would collide, deltas would be made against the wrong base).
    std::int64_t dataVersion = -1;
    // Another connection has written since this one opened: two recorders may both store what
    // they saw, so a version is looked up by RV before it is stored (not only against the head;
    // the bulk writer leaves out objects whose head it stored itself: Head::ownWrite).
    bool otherWriters = false;
    std::string deltaBuffer; // writer scratch, reused across events

    // Head cache (LRU by uid), bounded by count and by the raw size of the cached objects.
    std::list<std::string> lru;
    std::unordered_map<std::string, std::pair<historydb::Head, std::list<std::string>::iterator>> heads;
    std::int64_t headBytes = 0;
    // Heads evicted from the cache above, when this writer stored their chain: the blobs alone
    // (no text, no index; a Pod's ~1.5 KB against ~9 KB cached), decoded back into the cache
    // when the object changes again instead of reading its rows (historystoreheads.cpp).
    // Forgotten where a cached head is (another writer's version, its object pruned whole, a
    // rollback).
    std::list<std::string> coldLru;
    std::unordered_map<std::string, std::pair<historydb::Head, std::list<std::string>::iterator>> coldHeads;
    std::int64_t coldBytes = 0;
    static constexpr std::int64_t kColdBudgetBytes = 32ll << 20;
    // Counts text + index (~2.2x the JSON text once shrunk); the nlohmann DOM this replaced took
    // more than that while only its text size was counted against 16 MiB. 48 MiB was ~6% of a
    // window holding 150,000 Pods (bench_window) for ~3,900 heads; 16 MiB of shrunk heads keep
    // ~1,700 Pods' or ~7,000 small ConfigMaps' heads, the objects that change again soon (a
    // head this writer stored also holds its blobs, ~1.5 KB for a Pod: ~1,500 Pods).
    static constexpr std::int64_t kHeadBudgetBytes = 16ll << 20;
    static constexpr std::size_t kHeadMaxCount = 20000;

    // Called right after BEGIN IMMEDIATE (the write lock is ours): reloads what another writer
    // changed since our last transaction.
    Status syncWithOtherWriters();
    Status forgetHeadsOthersChanged();
    std::int64_t prunesSeen = -1; // meta('prunes') when last synced

    ~Impl();
    historydb::Query q(const char *sql) { return qDynamic(sql); }
    historydb::Query qDynamic(const std::string &sql) { return historydb::Query(conn->prepare(sql)); }
    // The schema's tables (created when missing) and the migrations up to this binary's version,
    // in one write transaction.
    Status createOrMigrate(const HistoryOpenOptions &options);
    Status openSqlite(const HistoryOpenOptions &options);
    Status openPostgres(const HistoryOpenOptions &options);
    Status registerRecorder(const std::string &name);
    // "v.recorder" or "0" for a store older than the column.
    const char *recorderColumn() const { return hasRecorderColumn ? "v.recorder" : "0"; }
    Status exec(const std::string &sql) { return conn->exec(sql); }
    Error error(const std::string &what) const;
    std::string lastMessage() const;
    Status loadCounters();
    Result<std::string> info(const char *key);
    Status setInfo(const char *key, std::string_view value);
    Status prepareIdentity(const HistoryOpenOptions &options);
    Result<std::vector<HistoryGap>> readGaps(historydb::Query &q);
    // A stored row that does not decode, named by its version (the reason stays a Parse error).
    static Error unreadableVersion(std::int64_t seq, const Error &why)
    {
        return Error::make(ErrorCategory::Parse,
                           "stored version " + std::to_string(seq) + " cannot be read: " + why.message);
    }
    Result<Json> loadVersion(std::int64_t objectId, std::int64_t seq);
    // One row's blob, within bounds: a page carries rows up to kInlineRowBytes (`inPage` is what it
    // carried, `length` the row's stored size); a larger one is read alone, and one larger than
    // any version the codec would decode is never read (a Parse error, the version unreadable).
    static constexpr std::int64_t kInlineRowBytes = 256 << 10;
    Result<std::string_view> rowBlob(std::string_view inPage, std::int64_t length, std::int64_t versionId,
                                     std::string &holder);

    // historystoreheads.cpp (the head cache) and historystorewrite.cpp
    // `next`'s blobs: `prev`'s and this version's, when this writer knows the whole chain.
    static void carryBlobs(historydb::Head *prev, historydb::Head &next, bool snapshot, const std::string &blob);
    Result<historydb::Head *> headFor(const std::string &uid);
    void putHead(const std::string &uid, historydb::Head head);
    void evictHeads();
    void keepCold(const std::string &uid, historydb::Head head);
    // The object's cold head decoded back into the cache (nullptr: none, or it did not decode).
    historydb::Head *warmUp(const std::string &uid);
    void forgetHead(const std::string &uid); // from the cache and the cold heads
    // While the bulk writer decides a batch, the heads it looked up or found cached stay: one
    // evicted mid-batch would be read back alone, a query per event. The cache may then grow to
    // kHeadHoldBytes (a batch of 2,000 Pods' heads) before it evicts as usual.
    bool holdBatchHeads = false;
    static constexpr std::int64_t kHeadHoldBytes = 3 * kHeadBudgetBytes;
    std::int64_t headsReadAlone = 0; // this write's (CommitReport::headsReadAlone)
    std::int64_t storedChecks = 0;   // this write's (CommitReport::storedChecks)
    void dropHeads();
    // `replayed`: for an onlyNewObjects item, the uids it created so far (nullptr otherwise).
    Status writeEvent(const WatchScope &scope, const WatchEvent &ev, CommitReport &report,
                      std::set<std::string> *replayed = nullptr);
    // writeEvent's steps, in order.
    const char *readEventBody(const WatchEvent &ev, historydb::EventBody &body) const;
    Result<bool> alreadyStored(historydb::Head *prev, const historydb::EventIdentity &id, HistoryEventType type,
                               CommitReport &report, std::set<std::string> *replayed);
    std::string encodeVersion(const historydb::Head *prev, const JsonIndex &index, const std::string &text,
                              bool &snapshot);
    Result<bool> refusedAsStored(std::int64_t objectId, const std::string &rv, std::int64_t seq);
    Result<bool> insertVersion(const WatchScope &scope, const WatchEvent &ev, const historydb::EventIdentity &id,
                               bool isNew, historydb::Head &next, bool snapshot, const std::string &blob,
                               std::size_t textBytes);
    // The event after readEventBody (writeEvent's remaining steps).
    Status writeParsedEvent(const WatchScope &scope, const WatchEvent &ev, historydb::EventBody &body,
                            CommitReport &report, std::set<std::string> *replayed);

    // historystorebulk.cpp: a transaction's rows held and sent in a few statements.
    bool bulk = false;               // this write() holds its rows in `pending`
    bool bulkDuplicateCheck = false; // a bulk write met a stored version: look versions up first
    bool writeBegan = false;         // the last writeItems got its transaction (beginWrite succeeded)
    historydb::PendingWrites pending;
    // The events of a write read before its transaction (readEventBody needs no database), so
    // recorders taking turns on the store's lock do not read JSON while holding it. Per item:
    // each event's body, or why it is rejected, for its first `bodies.size()` events: a write
    // larger than kReadAheadBytes has its first kReadAheadBytes read ahead, the rest in batches
    // inside the transaction.
    struct ReadItem {
        std::vector<historydb::EventBody> bodies;
        std::vector<const char *> rejected;
    };
    std::vector<ReadItem> readAhead;
    static constexpr std::size_t kReadAheadBytes = 32u << 20;
    // The items' first kReadAheadBytes read (readInTwo: shared with a second thread).
    std::vector<ReadItem> readEvents(const std::vector<HistoryWriteItem> &items, bool readInTwo) const;
    // The caller's next write (write(items, next)), read on a thread of its own while this one is
    // written. Taken by the write() given that very batch (the store holds it meanwhile, and a
    // batch is never changed), else dropped.
    struct NextRead {
        Batch items;
        std::vector<ReadItem> read;
    };
    std::int64_t readBeforehand = 0; // this write's events NextRead had read (CommitReport::readBeforehand)
    Batch nextToRead;                // set by write() until the read starts
    NextRead nextRead;
    std::thread nextReader;
    void startNextRead();  // write(), once its own events are read
    void finishNextRead(); // write(), on every way out: the reader is joined
    bool takeNextRead(const std::vector<HistoryWriteItem> &items);
    Result<CommitReport> write(const std::vector<HistoryWriteItem> &items, Batch next);
    // Runs on a second thread too (readInTwo): reads only what open() set (codec limits, the
    // redaction key) and writes only `body`.
    const char *rejectionOf(const WatchEvent &ev, historydb::EventBody &body) const;
    Status writeEventsOneByOne(const HistoryWriteItem &item, std::size_t itemIndex, CommitReport &report,
                               std::set<std::string> *replayed);
    Status writeEventsInBulk(const HistoryWriteItem &item, ReadItem *read, CommitReport &report,
                             std::set<std::string> *replayed);
    Status lookUpBatch(const std::vector<historydb::EventBody> &bodies, const std::vector<const char *> &rejected);
    bool isTheHeadAlone(const historydb::EventIdentity &id, const std::unordered_map<std::string, int> &eventsOf);
    bool isNotInTheStore(const std::string &uid) const;
    bool isOurOwnHead(const std::string &uid) const;
    // The bodies of a batch's heads in a query per kRunsPerQuery (historystorebulk.cpp).
    Status readHeadBodies(const std::vector<historydb::EventBody> &bodies, const std::vector<const char *> &rejected);
    Status readRuns(const std::vector<historydb::VersionRun> &runs,
                    const std::unordered_map<std::int64_t, std::pair<std::string, historydb::VersionRun>> &wanted,
                    std::int64_t &decoded);
    // The text of the version `n` blobs from a snapshot on decode to (blob(0) the snapshot).
    std::optional<std::string> decodeChain(std::size_t n, const std::function<const std::string &(std::size_t)> &blob,
                                           std::size_t &chainBytes);
    std::optional<std::string> decodeRun(const historydb::RunRow *rows, std::size_t n, const historydb::VersionRun &run,
                                         std::size_t &chainBytes);
    void setHeadBody(historydb::Head &head, historydb::PendingWrites::LookedBody body);
    // A head from the batch's lookup (`answered`), or nothing: the caller asks the database.
    Result<historydb::Head *> lookedUpHead(const std::string &uid, bool &answered);
    Status loadHeadBody(historydb::Head &head);
    Status holdVersion(const WatchScope &scope, const WatchEvent &ev, const historydb::EventIdentity &id, bool isNew,
                       historydb::Head &next, bool snapshot, const std::string &blob, std::size_t textBytes);
    Status sendHeld();
    // Everything held is stored when it returns (bulk writes only; a no-op otherwise).
    Status flushPending();
    void clearPending();
    // HistoryStore::write's transaction, row by row or in bulk (`bulk`).
    Result<CommitReport> writeItems(const std::vector<HistoryWriteItem> &items);
    // A write transaction: BEGIN IMMEDIATE and catching up with other writers; then the stored
    // byte total and COMMIT. The caller rolls back when either fails.
    Status beginWrite();
    Status commitWrite(std::int64_t versions = 0);
    Status writeGap(HistoryGap gap, CommitReport &report);
    Status writeRejectedGap(const WatchScope &scope, const WatchEvent &ev, const char *why, CommitReport &report);
    Status setScopeRv(const std::string &scope, const std::string &rv);
    Status writeResumeGap(const HistoryWriteItem &item, CommitReport &report);
    Status pruneBefore(std::int64_t objectId, std::int64_t firstKeptSeq);
    Status pruneByCount(std::int64_t maxVersions);
    Status pruneOldest(std::int64_t cutoffMs, std::int64_t maxTotalBytes);

    Status pruneAudit(std::int64_t cutoffMs);
    std::int64_t retentionChangesMark = 0; // conn->totalChanges() when retention began
    std::int64_t prunedVersions = 0;       // removed by the retention pass under way
    // One retention pass inside the caller's write transaction; rollBackRetention on failure.
    Status pruneInTransaction(const RetentionPolicy &policy, std::int64_t nowMs);
    Error rollBackRetention(const Error &e);

    // historystorepolicy.cpp: a shared store's own retention and its record of prunings.
    std::string recorderName; // as registered ("" = unnamed)
    Status createStorePolicyTables();
    Result<StoreRetention> readStoreRetention();
    Status recordPruning(std::int64_t versions, std::int64_t bytes, std::int64_t nowMs);

    // historystoreaudit.cpp
    Result<bool> hasAuditTables();
    Status writeAuditJoin(const AuditJoin &j, std::int64_t &changed);
    // joins[begin, end), each one exact claim (a live join's usual case): inserted many a
    // statement where no row is there yet, the others then merged one by one (writeAuditJoin), as
    // one at a time would store them.
    Status writeAuditClaims(const std::vector<AuditJoin> &joins, std::size_t begin, std::size_t end,
                            std::int64_t &changed);
    struct StoredJoin {
        AuditMatch match = AuditMatch::Probable;
        bool more = false;
        std::vector<AuditWho> candidates;
    };
    Result<std::optional<StoredJoin>> storedJoin(const std::string &uid, const std::string &rv);
    Status upsertJoin(const AuditJoin &j, AuditMatch match, const std::vector<AuditWho> &candidates, bool more,
                      std::int64_t &changed);
    Status writeAuditAttempt(const AuditAttempt &a, std::int64_t &changed);
};

} // namespace fieldscope::core
