#pragma once
// HistoryRecorder: the non-blocking front of the history store. The watch layer hands it batches
// of events; a private writer thread parses, delta-encodes, compresses and commits them (up to
// maxEventsPerTransaction queued events a transaction, into the SQLite file or a team's
// PostgreSQL store), and applies retention now and then.
//
// Thread: the HistoryRecorder object lives on the thread that created it (normally the GUI
// thread or the composition root's). record(), recordGap() and noteResourceVersion() may be
// called from any thread; they take m_mutex only to append to the queue and never touch the
// disk. All disk I/O, including opening the file, happens on the writer thread (std::thread),
// which alone owns the HistoryStore. flush() and the destructor block until the queue is written:
// for tests, the CLI and shutdown, not for a GUI event handler.
//
// Signals are emitted FROM THE WRITER THREAD: connect with Qt::QueuedConnection (or use the
// default AutoConnection with a receiver living on another thread).
#include "core/history/historystore.h"

#include <QObject>
#include <QString>

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <thread>

namespace fieldscope::core {

class HistoryRecorder : public QObject
{
    Q_OBJECT
public:
    struct Options {
        // The SQLite file (created when missing) or a postgresql:// URL (historystore.h).
        std::string path;
        HistoryOpenOptions open; // cluster identity, Secret values (default: hashed)
        // Earlier file names of this store (one per context name, unstamped): when `path` does not
        // exist yet, the first of these that exists and belongs to no other cluster is renamed to
        // `path` (with its -wal/-shm) on the writer thread, then stamped with the identity.
        std::vector<std::string> adoptFrom;
        // A file's retention (its user's Settings). A shared store keeps what its owner set
        // (`fieldscope store retention`): the recorder prunes it to that policy, read again every
        // round, and never to this one.
        RetentionPolicy retention;
        // Off: this recorder never prunes a shared store (the window: a teammate's open window
        // must not shrink the team's history; the store's recorders keep it to its policy).
        bool pruneSharedStore = true;
        std::int64_t retentionIntervalMs = 10'000;
        // Above this many queued bytes, new events are dropped and recorded as a gap: an
        // honest hole beats unbounded memory when the disk cannot keep up.
        std::int64_t maxQueuedBytes = 256ll << 20;
        // How long record() may wait for the writer to make room before it drops (0: never
        // waits). For callers on a thread of their own (the window's recording thread): the
        // first list of a large cluster (150,000 Pods, 624 MB) arrives faster than any disk
        // takes it, which is a burst to wait out, not a gap; a disk that stays slower still
        // gets the honest gap after this long. While waiting is on, a batch larger than the
        // whole queue goes in alone (a relist's difference) instead of becoming a gap.
        int maxWaitForRoomMs = 0;
        // Queued watch batches taken into one transaction: at least one batch whatever its size
        // (a relist's difference goes whole), and a gap's batch with it. A recorder that is
        // behind names the next transaction while writing this one when more is queued, and the
        // store reads it meanwhile (HistoryStore::write): smaller transactions overlap more.
        // 10,000 queued Pods in transactions of up to 2,000 against 20,000 (bench/README.md,
        // bench_teamhistory's HistoryRecorder row): 55,700-58,600 against 50,000-52,300
        // versions/s into the SQLite file, 37,600-39,100 against 31,000 into PostgreSQL.
        std::size_t maxEventsPerTransaction = 2'000;
        // A shared (PostgreSQL) store that went away: events watched meanwhile wait in memory up
        // to this many bytes and are written when it is back (reconnecting with backoff, 0.5 s
        // doubling to 30 s); past the bound they become a gap.
        std::int64_t maxRetainedBytes = 64ll << 20;
        // The window: a shared store this database role may only read is browsed, and nothing is
        // recorded (without complaint). Off (`fieldscope record`): refusals are errors.
        bool browseReadOnlyStore = false;
        // Called on the writer thread right after each COMMIT returned (before `committed`).
        std::function<void(const CommitReport &)> onCommitted;
    };

    explicit HistoryRecorder(Options options, QObject *parent = nullptr);
    ~HistoryRecorder() override; // drains the queue, then stops the writer thread

    // For owners on the GUI thread (a cluster tab). When the last owner lets go, the drain runs on
    // a finisher thread instead of in the caller: closing a tab or replacing the recorder returns
    // at once, and the released recorder's signals are disconnected (its receivers may be gone).
    // waitForReleased() blocks until every released recorder committed its queue and closed: the
    // ordered shutdown calls it before the process exits.
    static std::shared_ptr<HistoryRecorder> makeShared(Options options);
    static void waitForReleased();

    // Enqueues one watch batch of one scope. scopeResourceVersion: the list RV (after an initial
    // list/relist) or "" (the last MODIFIED/DELETED RV then becomes the scope's resume point).
    // resumeGapReason: see HistoryWriteItem (the first completed list of a run).
    void record(const WatchScope &scope, std::vector<WatchEvent> events, std::string scopeResourceVersion = {},
                std::string resumeGapReason = {});
    // Versions somebody watched outside this recorder's watches (the demo's or a lesson's own
    // watch): stored only for objects the store holds no version of yet (HistoryWriteItem::
    // onlyNewObjects), never counted as observing the scope. Not bounded by maxQueuedBytes'
    // overflow gap: the caller made these few versions itself.
    void recordReplay(const WatchScope &scope, std::vector<WatchEvent> events);
    // "Versions after fromRv up to and including toRv were not observed in scope" (relist after
    // 410, app restart: fromRv = HistoryStore::lastResourceVersion(scope)).
    void recordGap(const WatchScope &scope, std::string fromRv, std::string toRv, std::string reason,
                   std::int64_t observedAtMs);
    // A BOOKMARK moved the scope's resume point (a bookmark carries only a resourceVersion).
    void noteResourceVersion(const WatchScope &scope, std::string rv);

    // Off: record() stops waiting for room, now and until it is on again (the owner is letting
    // go of this recorder, or its own backlog grew too long to wait out). On by default.
    void setWaitingForRoom(bool on);
    // Blocks until everything enqueued before the call is committed (or failed). Returns the
    // first error since the last flush (open failure, disk full, ...).
    Status flush();

    struct Counters {
        std::int64_t queuedBytes = 0;
        std::int64_t committedVersions = 0;
        std::int64_t droppedEvents = 0; // queue overflow or failed transactions
        std::int64_t transactions = 0;
        // Transactions whose bulk write failed and were written again row by row (CommitReport::
        // bulkFallback); each is logged with its reason.
        std::int64_t bulkFallbacks = 0;
    };
    Counters counters() const;

Q_SIGNALS:
    void committed(const fieldscope::core::CommitReport &report);
    // A transaction (or opening the store) failed: what it held is a marked gap ("history write
    // failed: ...") stored as soon as a write succeeds again. Also emitted, from the thread that
    // called record(), when the queue overflowed and events were dropped (once per overflow gap).
    void writeFailed(const QString &message);
    // Opening the store was refused for a reason only the user can change (another cluster's
    // store, a newer schema, a wrong password, a permission the role lacks, no such database):
    // retrying cannot help. Emitted once per reason, after writeFailed.
    void storeRefused(const QString &message);

private:
    struct Pending {
        std::uint64_t serial = 0;
        std::int64_t bytes = 0;
        HistoryWriteItem item;
    };
    void enqueue(HistoryWriteItem item, std::int64_t bytes);
    void run();
    struct Retained;
    struct Writer;
    struct Work;
    // `next`: the work taken to go after this one (HistoryStore::write reads it meanwhile).
    void writeWork(Writer &w, Work work, HistoryStore::Batch next = nullptr);
    void noteCommitted(Writer &w, const std::vector<HistoryWriteItem> &items, const CommitReport &report);
    void keepForSharedStore(Writer &w, Work &work, const Error &why, std::int64_t now);
    // retryAfterMs > 0: returns after that long even without work (items then empty).
    bool takeWork(std::vector<HistoryWriteItem> &items, std::uint64_t &lastSerial, int retryAfterMs);
    // What is queued now, without waiting (false: nothing). Both take up to maxEventsPerTransaction,
    // a gap's batch with it (takesWithGap).
    bool takeQueued(std::vector<HistoryWriteItem> &items, std::uint64_t &lastSerial);
    void takeFront(std::vector<HistoryWriteItem> &items, std::uint64_t &lastSerial); // m_mutex held
    static bool takesWithGap(const HistoryWriteItem &last, const HistoryWriteItem &next);
    std::unique_ptr<HistoryStore> openStore(std::optional<Error> &openError);
    Result<CommitReport> writeBatch(HistoryStore *store, const std::optional<Error> &openError,
                                    const Retained &retained,
                                    const std::shared_ptr<std::vector<HistoryWriteItem>> &items,
                                    HistoryStore::Batch next = nullptr);
    void finishPending(std::uint64_t lastSerial, std::int64_t bytes, const std::optional<Error> &why);
    void keep(Retained &retained, std::vector<HistoryWriteItem> items, std::int64_t bytes, std::int64_t events,
              const std::string &why);
    void finishWork(std::uint64_t lastSerial, std::int64_t bytes, const Result<CommitReport> &result);
    void noteFailedItems(const std::vector<HistoryWriteItem> &items, const std::string &why);
    void noteCommittedItems(const std::vector<HistoryWriteItem> &items);

    const Options m_options;
    mutable std::mutex m_mutex;       // guards everything below up to m_thread
    std::condition_variable m_workCv; // writer waits for work / stop
    std::condition_variable m_doneCv; // flush() waits for m_committedSerial
    std::deque<Pending> m_queue;
    std::uint64_t m_nextSerial = 1;
    bool m_writerGone = false;      // the writer thread ended on an exception: nothing is written any more
    std::uint64_t m_doneSerial = 0; // every item with serial <= this is committed or failed
    std::int64_t m_queuedBytes = 0;
    std::map<std::string, std::string> m_lastQueuedRv; // scope id -> RV of the last accepted event
    std::optional<Error> m_error;
    bool m_errorIsPending = false; // m_error stands for items still kept for a shared store
    bool m_stop = false;
    bool m_noWaiting = false; // setWaitingForRoom(false)
    Counters m_counters;
    // Writer thread only: what a failed transaction lost, per scope, written as a gap at the head
    // of the next transaction that can be written (merged while writes keep failing), and the
    // last RV each scope committed (where such a gap starts).
    std::map<std::string, HistoryWriteItem> m_failedGaps;
    std::map<std::string, std::string> m_committedRv;
    std::thread m_thread; // started last, joined first
};

} // namespace fieldscope::core
