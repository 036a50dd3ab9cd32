#include "core/history/historywriter.h"

#include "core/base/boundary.h"
#include "core/base/privatefiles.h"
#include "core/base/visibletext.h"
#include "core/history/historydb.h"

#include <QDateTime>
#include <QLoggingCategory>

#include <filesystem>
#include <system_error>
#include <utility>

namespace fieldscope::core {

Q_LOGGING_CATEGORY(lcHistory, "fieldscope.core.history")

namespace {

constexpr const char *kOverflowReason = "recorder queue overflow";

// The object's own RV without parsing it on the caller's thread: the server writes metadata before
// every other member that could carry a "resourceVersion" (involvedObject, ...). Only used to
// label overflow gaps.
std::string quickResourceVersion(std::string_view json)
{
    constexpr std::string_view needle = R"("resourceVersion":")";
    const auto at = json.find(needle);
    if (at == std::string_view::npos)
        return {};
    const auto start = at + needle.size();
    const auto end = json.find('"', start);
    return end == std::string_view::npos ? std::string() : std::string(json.substr(start, end - start));
}

// See Options::adoptFrom. A legacy store is adopted only while unstamped: once stamped it belongs
// to one cluster, and a context of the same name elsewhere starts its own.
void adoptLegacyStore(const std::string &path, const std::vector<std::string> &candidates)
{
    std::error_code ec;
    if (candidates.empty() || historydb::isPostgresLocation(path) || std::filesystem::exists(path, ec))
        return;
    for (const auto &old : candidates) {
        if (old == path || !std::filesystem::is_regular_file(old, ec))
            continue;
        {
            // Everything into the one file first: it is renamed alone.
            auto legacy = HistoryStore::open(old, HistoryStore::OpenMode::ReadWrite);
            if (!legacy || !(*legacy)->clusterIdentity().empty() || !(*legacy)->checkpoint())
                continue;
        }
        if (auto st = makePrivateDirectory(std::filesystem::path(path).parent_path().string(), true); !st)
            return;
        std::filesystem::rename(old, path, ec);
        if (ec)
            continue;
        for (const char *suffix : {"-wal", "-shm"})
            std::filesystem::remove(old + suffix, ec);
        qCInfo(lcHistory) << "adopted the history store" << old.c_str() << "as" << path.c_str();
        return;
    }
}

} // namespace

HistoryRecorder::HistoryRecorder(Options options, QObject *parent) : QObject(parent), m_options(std::move(options))
{
    // The thread's last boundary (core/base/boundary.h): run() guards each transaction; what escapes
    // it anyway (out of memory between transactions) ends the writer with an error, not the process.
    m_thread = std::thread([this] {
        if (const Status st = guarded("the history writer", [this] { run(); }); !st) {
            {
                std::lock_guard lock(m_mutex);
                m_error = st.error();
                m_writerGone = true; // flush() must not wait for a writer that is gone
            }
            m_doneCv.notify_all();
            Q_EMIT writeFailed(QString::fromStdString(st.error().message));
        }
    });
}

void HistoryRecorder::setWaitingForRoom(bool on)
{
    {
        std::lock_guard lock(m_mutex);
        m_noWaiting = !on;
    }
    m_doneCv.notify_all();
}

HistoryRecorder::~HistoryRecorder()
{
    {
        std::lock_guard lock(m_mutex);
        m_stop = true;
    }
    m_workCv.notify_all();
    m_thread.join();
}

namespace {

// Released recorders still draining (see makeShared). Never destroyed: a finisher may end while
// the process exits.
struct Finishers {
    std::mutex mutex;
    std::condition_variable done;
    int running = 0;
};

Finishers &finishers()
{
    static auto *f = new Finishers;
    return *f;
}

} // namespace

std::shared_ptr<HistoryRecorder> HistoryRecorder::makeShared(Options options)
{
    return std::shared_ptr<HistoryRecorder>(new HistoryRecorder(std::move(options)), [](HistoryRecorder *r) {
        r->disconnect(); // thread-safe; nothing it still commits reaches a receiver
        Finishers &f = finishers();
        {
            std::lock_guard lock(f.mutex);
            ++f.running;
        }
        // The last owner may be the GUI thread or a batch worker: neither waits for the disk.
        auto finish = [r] {
            delete r; // commits what is queued, then joins the writer thread
            Finishers &fin = finishers();
            std::lock_guard lock(fin.mutex);
            --fin.running;
            fin.done.notify_all();
        };
        try {
            std::thread(finish).detach();
        } catch (const std::system_error &) { // no thread to be had: drain here rather than lose it
            finish();
        }
    });
}

void HistoryRecorder::waitForReleased()
{
    Finishers &f = finishers();
    std::unique_lock lock(f.mutex);
    f.done.wait(lock, [&] { return f.running == 0; });
}

void HistoryRecorder::record(const WatchScope &scope, std::vector<WatchEvent> events, std::string scopeResourceVersion,
                             std::string resumeGapReason)
{
    std::int64_t bytes = 0;
    for (const auto &e : events)
        bytes += std::int64_t(e.objectJson.size());
    const std::string scopeId = scope.id;
    std::int64_t overflowDropped = 0; // > 0: a new overflow gap was queued; say so outside the lock
    {
        std::unique_lock lock(m_mutex);
        const bool waits = m_options.maxWaitForRoomMs > 0 && !m_noWaiting && !events.empty();
        if (waits)
            m_doneCv.wait_for(lock, std::chrono::milliseconds(m_options.maxWaitForRoomMs), [&] {
                return m_queuedBytes + bytes <= m_options.maxQueuedBytes || m_queuedBytes == 0 || m_writerGone
                    || m_noWaiting;
            });
        const bool aloneIsFine = waits && !m_noWaiting && m_queuedBytes == 0;
        if (m_queuedBytes + bytes > m_options.maxQueuedBytes && !events.empty() && !aloneIsFine) {
            // Drop, and say so: extend the overflow gap already queued for this scope if any.
            m_counters.droppedEvents += std::int64_t(events.size());
            const std::string lastDropped = quickResourceVersion(events.back().objectJson);
            const bool extend = !m_queue.empty() && m_queue.back().item.gap && m_queue.back().item.scope == scope
                             && m_queue.back().item.gap->reason == kOverflowReason;
            if (extend) {
                m_queue.back().item.gap->toRv = lastDropped;
                return;
            }
            HistoryWriteItem gapItem;
            gapItem.scope = scope;
            gapItem.gap = HistoryGap{scopeId,         m_lastQueuedRv[scopeId],    lastDropped,
                                     kOverflowReason, events.back().observedAtMs, 0};
            m_queue.push_back({m_nextSerial++, 0, std::move(gapItem)});
            overflowDropped = std::int64_t(events.size());
        } else {
            if (!events.empty())
                m_lastQueuedRv[scopeId] = quickResourceVersion(events.back().objectJson);
            HistoryWriteItem item;
            item.scope = scope;
            item.events = std::move(events);
            item.scopeResourceVersion = std::move(scopeResourceVersion);
            item.resumeGapReason = std::move(resumeGapReason);
            m_queuedBytes += bytes;
            m_queue.push_back({m_nextSerial++, bytes, std::move(item)});
        }
    }
    m_workCv.notify_one();
    if (overflowDropped > 0) {
        // The same path as a failed transaction: the window's "History recording is failing" line.
        qCWarning(lcHistory) << "history queue overflow in" << scopeId.c_str();
        Q_EMIT writeFailed(QStringLiteral("%1: the disk is not keeping up, %2 event(s) of %3 dropped (marked as a gap)")
                               .arg(QString::fromLatin1(kOverflowReason))
                               .arg(overflowDropped)
                               .arg(QString::fromStdString(scopeId)));
    }
}

void HistoryRecorder::recordReplay(const WatchScope &scope, std::vector<WatchEvent> events)
{
    if (events.empty())
        return;
    std::int64_t bytes = 0;
    for (const auto &e : events)
        bytes += std::int64_t(e.objectJson.size());
    HistoryWriteItem item;
    item.scope = scope;
    item.events = std::move(events);
    item.onlyNewObjects = true;
    enqueue(std::move(item), bytes);
}

void HistoryRecorder::recordGap(const WatchScope &scope, std::string fromRv, std::string toRv, std::string reason,
                                std::int64_t observedAtMs)
{
    HistoryWriteItem item;
    item.scope = scope;
    item.gap = HistoryGap{scope.id, std::move(fromRv), std::move(toRv), std::move(reason), observedAtMs, 0};
    enqueue(std::move(item), 0);
}

void HistoryRecorder::noteResourceVersion(const WatchScope &scope, std::string rv)
{
    HistoryWriteItem item;
    item.scope = scope;
    item.scopeResourceVersion = std::move(rv);
    enqueue(std::move(item), 0);
}

void HistoryRecorder::enqueue(HistoryWriteItem item, std::int64_t bytes)
{
    {
        std::lock_guard lock(m_mutex);
        m_queuedBytes += bytes;
        m_queue.push_back({m_nextSerial++, bytes, std::move(item)});
    }
    m_workCv.notify_one();
}

Status HistoryRecorder::flush()
{
    std::unique_lock lock(m_mutex);
    const std::uint64_t target = m_nextSerial - 1;
    m_doneCv.wait(lock, [&] { return m_doneSerial >= target || m_writerGone; });
    if (m_error) {
        Error e = *m_error;
        m_error.reset();
        return e;
    }
    return success();
}

HistoryRecorder::Counters HistoryRecorder::counters() const
{
    std::lock_guard lock(m_mutex);
    Counters c = m_counters;
    c.queuedBytes = m_queuedBytes;
    return c;
}

// Takes whole queue items up to the per-transaction event cap (at least one item).
bool HistoryRecorder::takeQueued(std::vector<HistoryWriteItem> &items, std::uint64_t &lastSerial)
{
    std::lock_guard lock(m_mutex);
    takeFront(items, lastSerial);
    return !items.empty();
}

// A gap goes in with the same scope's batch queued right after it (a relist's gap and its
// difference): a reader never sees the gap committed without what it explains.
bool HistoryRecorder::takesWithGap(const HistoryWriteItem &last, const HistoryWriteItem &next)
{
    return last.gap && last.events.empty() && !next.gap && next.scope.id == last.scope.id;
}

void HistoryRecorder::takeFront(std::vector<HistoryWriteItem> &items, std::uint64_t &lastSerial)
{
    std::size_t events = 0;
    while (!m_queue.empty()
           && (items.empty() || events + m_queue.front().item.events.size() <= m_options.maxEventsPerTransaction
               || takesWithGap(items.back(), m_queue.front().item))) {
        events += m_queue.front().item.events.size();
        lastSerial = m_queue.front().serial;
        items.push_back(std::move(m_queue.front().item));
        m_queue.pop_front();
    }
}

bool HistoryRecorder::takeWork(std::vector<HistoryWriteItem> &items, std::uint64_t &lastSerial, int retryAfterMs)
{
    std::unique_lock lock(m_mutex);
    if (retryAfterMs > 0) {
        // Retained items wait for the store: wake for new work, stopping, or the next attempt.
        if (!m_workCv.wait_for(lock, std::chrono::milliseconds(retryAfterMs),
                               [&] { return !m_queue.empty() || m_stop; }))
            return true;
    } else {
        m_workCv.wait(lock, [&] { return !m_queue.empty() || m_stop; });
    }
    if (m_queue.empty())
        return false; // stopping, and everything is written
    takeFront(items, lastSerial);
    return true;
}

void HistoryRecorder::finishWork(std::uint64_t lastSerial, std::int64_t bytes, const Result<CommitReport> &result)
{
    {
        std::lock_guard lock(m_mutex);
        m_queuedBytes -= bytes;
        m_doneSerial = lastSerial;
        if (!result && !m_error) {
            m_error = result.error();
        }
    }
    m_doneCv.notify_all();
}

// A failed transaction drops its versions: each scope they belonged to gets one gap from the last
// RV it committed to the last RV it lost, so the hole is marked, never silent. A list's RV is
// where it ends, as noteCommittedItems takes it: a relist's difference ends with deletions that
// carry their objects' older RVs.
void HistoryRecorder::noteFailedItems(const std::vector<HistoryWriteItem> &items, const std::string &why)
{
    for (const auto &it : items) {
        std::string lastRv;
        if (it.gap)
            lastRv = it.gap->toRv;
        else if (!it.scopeResourceVersion.empty())
            lastRv = it.scopeResourceVersion;
        else if (!it.events.empty())
            lastRv = quickResourceVersion(it.events.back().objectJson);
        else
            continue;
        auto [pending, fresh] = m_failedGaps.try_emplace(it.scope.id);
        if (fresh) {
            pending->second.scope = it.scope;
            const std::int64_t at = it.gap            ? it.gap->observedAtMs
                                  : it.events.empty() ? QDateTime::currentMSecsSinceEpoch()
                                                      : it.events.front().observedAtMs;
            pending->second.gap = HistoryGap{
                it.scope.id, m_committedRv[it.scope.id], {}, "history write failed: " + why, at, 0};
        }
        if (!lastRv.empty())
            pending->second.gap->toRv = lastRv;
    }
}

void HistoryRecorder::noteCommittedItems(const std::vector<HistoryWriteItem> &items)
{
    for (const auto &it : items) {
        if (it.gap)
            continue;
        if (!it.events.empty())
            m_committedRv[it.scope.id] = quickResourceVersion(it.events.back().objectJson);
        if (!it.scopeResourceVersion.empty())
            m_committedRv[it.scope.id] = it.scopeResourceVersion;
    }
}

// What a shared store could not take while it was away: written first once it is back.
struct HistoryRecorder::Retained {
    std::vector<HistoryWriteItem> items;
    std::int64_t bytes = 0;
    std::int64_t events = 0;
    int backoffMs = 0; // until the next attempt to reach the store; 0 = none pending
    std::int64_t nextAttemptMs = 0;
};

// The writer thread's own state, from run() on.
struct HistoryRecorder::Writer {
    std::unique_ptr<HistoryStore> store;
    std::optional<Error> openError;
    std::int64_t lastRetention = 0;
    Retained retained;
    bool readOnlyStore = false; // a shared store this role may only read (browseReadOnlyStore)
};

// One drained batch of the queue.
struct HistoryRecorder::Work {
    // Shared: the store holds a work named as the next while it reads it (HistoryStore::write),
    // and nothing changes it until it is written.
    std::shared_ptr<std::vector<HistoryWriteItem>> items = std::make_shared<std::vector<HistoryWriteItem>>();
    std::uint64_t lastSerial = 0; // 0: a retry of what waits, nothing new
    std::int64_t bytes = 0;
    std::int64_t events = 0;
};

namespace {

template<typename W>
void countWork(W &work)
{
    for (const auto &it : *work.items) {
        work.events += std::int64_t(it.events.size());
        for (const auto &e : it.events)
            work.bytes += std::int64_t(e.objectJson.size());
    }
}

} // namespace

void HistoryRecorder::run()
{
    Writer w;
    Work next;
    for (;;) {
        Work work;
        if (!next.items->empty())
            work = std::exchange(next, Work());
        else if (!takeWork(*work.items, work.lastSerial, w.retained.items.empty() ? 0 : w.retained.backoffMs))
            break;
        else
            countWork(work);
        // What is queued already is written next: the store reads it while the database commits
        // this work (HistoryStore::write). Not while writes fail: a retry must take what waits.
        if (w.store && w.retained.items.empty() && m_failedGaps.empty() && takeQueued(*next.items, next.lastSerial))
            countWork(next);
        writeWork(w, std::move(work), next.items->empty() ? nullptr : next.items);
    }
    // Stopping with writes still failing: one last try to store what waits and mark what was lost.
    if (!w.store && !w.retained.items.empty())
        w.store = openStore(w.openError);
    if (w.store && (!m_failedGaps.empty() || !w.retained.items.empty()))
        if (writeBatch(w.store.get(), w.openError, w.retained, std::make_shared<std::vector<HistoryWriteItem>>()))
            return;
    if (!w.retained.items.empty()) {
        std::lock_guard lock(m_mutex);
        m_counters.droppedEvents += w.retained.events;
        m_errorIsPending = false; // lost now, and flush() says so
    }
}

void HistoryRecorder::writeWork(Writer &w, Work work, HistoryStore::Batch next)
{
    const std::int64_t now = QDateTime::currentMSecsSinceEpoch();
    // Waiting out the backoff (even when the bound emptied the queue): keep, do not connect.
    if (!w.store && now < w.retained.nextAttemptMs) {
        keep(w.retained, std::move(*work.items), work.bytes, work.events, "waiting for the history store");
        if (work.lastSerial)
            finishPending(work.lastSerial, work.bytes, w.openError);
        return;
    }
    // Opened on first work and again after a failure (a full disk may have room now, a
    // database may be back); a store of another cluster stays refused.
    if (!w.store && !w.readOnlyStore)
        w.store = openStore(w.openError);
    w.readOnlyStore = w.readOnlyStore
                   || (m_options.browseReadOnlyStore && !w.store && w.openError
                       && w.openError->category == ErrorCategory::Forbidden
                       && historydb::isPostgresLocation(m_options.path));
    if (w.readOnlyStore) {
        if (work.lastSerial)
            finishWork(work.lastSerial, work.bytes, CommitReport{});
        return;
    }
    const Result<CommitReport> result = writeBatch(w.store.get(), w.openError, w.retained, work.items, std::move(next));
    if (result) {
        noteCommitted(w, *work.items, *result);
    } else if (historydb::isPostgresLocation(m_options.path)) {
        keepForSharedStore(w, work, result.error(), now);
        work.lastSerial = 0; // finished as pending
    } else {
        {
            std::lock_guard lock(m_mutex);
            m_counters.droppedEvents += work.events;
        }
        noteFailedItems(*work.items, result.error().message);
        if (w.store) {
            qCWarning(lcHistory) << "history transaction failed:" << result.error().describe().c_str();
            Q_EMIT writeFailed(QString::fromStdString(result.error().describe()));
        }
    }
    if (work.lastSerial)
        finishWork(work.lastSerial, work.bytes, result);
    if (w.store && now - w.lastRetention >= m_options.retentionIntervalMs) {
        w.lastRetention = now;
        const bool shared = w.store->isShared();
        const Status st = !shared                    ? w.store->applyRetention(m_options.retention, now)
                        : m_options.pruneSharedStore ? w.store->applyStoreRetention(now, m_options.retentionIntervalMs)
                                                     : success();
        if (!st)
            qCWarning(lcHistory) << "history retention failed:" << st.error().describe().c_str();
    }
}

void HistoryRecorder::noteCommitted(Writer &w, const std::vector<HistoryWriteItem> &items, const CommitReport &report)
{
    {
        std::lock_guard lock(m_mutex);
        ++m_counters.transactions;
        m_counters.committedVersions += std::int64_t(report.versions.size());
        if (!report.bulkFallback.empty())
            ++m_counters.bulkFallbacks;
        // What waited is written: the error flush() would report for it is no longer true.
        if (m_errorIsPending)
            m_error.reset();
        m_errorIsPending = false;
    }
    // Nothing is lost (the rows were written one by one), but a store that keeps falling back is
    // slow for a reason someone should see: another recorder's copies are expected now and then.
    if (!report.bulkFallback.empty())
        qCWarning(lcHistory) << "history: a bulk write was done again row by row:"
                             << visibleEscapes(report.bulkFallback).c_str();
    m_failedGaps.clear();
    noteCommittedItems(w.retained.items);
    noteCommittedItems(items);
    w.retained = Retained{};
    if (m_options.onCommitted)
        m_options.onCommitted(report);
    Q_EMIT committed(report);
}

// The shared database went away (or refused this batch): reconnect with backoff and keep what was
// watched meanwhile, up to the bound; the batch is finished as pending.
void HistoryRecorder::keepForSharedStore(Writer &w, Work &work, const Error &why, std::int64_t now)
{
    if (w.store || w.retained.items.empty()) {
        qCWarning(lcHistory) << "history store unavailable:" << why.describe().c_str();
        Q_EMIT writeFailed(QString::fromStdString("history unavailable: " + why.describe()));
    }
    w.store.reset();
    if (!w.openError)
        w.openError = why;
    w.retained.backoffMs = std::min(w.retained.backoffMs ? w.retained.backoffMs * 2 : 500, 30'000);
    w.retained.nextAttemptMs = now + w.retained.backoffMs;
    // The store is gone, and with it any batch of ours it held: the items may be moved.
    keep(w.retained, std::move(*work.items), work.bytes, work.events, why.message);
    if (work.lastSerial)
        finishPending(work.lastSerial, work.bytes, w.openError);
}

// Items kept for a shared store that is away are not failed yet: flush() reports it, until they
// are written.
void HistoryRecorder::finishPending(std::uint64_t lastSerial, std::int64_t bytes, const std::optional<Error> &why)
{
    {
        std::lock_guard lock(m_mutex);
        if (!m_error)
            m_errorIsPending = true;
    }
    finishWork(lastSerial, bytes,
               Result<CommitReport>(why ? *why : Error::make(ErrorCategory::Io, "history store unavailable")));
}

namespace {

// What retrying cannot mend: the configuration (Config: another cluster's store, a newer schema,
// a password in the URL), the credentials (Auth), or what the database says the role may not do
// or does not have.
bool isRefusal(const Error &e)
{
    if (e.category == ErrorCategory::Config || e.category == ErrorCategory::Auth)
        return true;
    for (const char *what : {"permission denied", "must be owner", "does not exist"})
        if (e.message.find(what) != std::string::npos)
            return true;
    return false;
}

} // namespace

std::unique_ptr<HistoryStore> HistoryRecorder::openStore(std::optional<Error> &openError)
{
    adoptLegacyStore(m_options.path, m_options.adoptFrom);
    auto opened = HistoryStore::open(m_options.path, HistoryStore::OpenMode::ReadWrite, m_options.open);
    if (opened) {
        openError.reset();
        return std::move(*opened);
    }
    if (!openError || openError->describe() != opened.error().describe()) {
        openError = opened.error();
        qCWarning(lcHistory) << "cannot open history store:" << openError->describe().c_str();
        Q_EMIT writeFailed(QString::fromStdString(openError->describe()));
        if (isRefusal(*openError))
            Q_EMIT storeRefused(QString::fromStdString(openError->describe()));
    }
    return nullptr;
}

// Gaps for what earlier failures lost go first, then what waited for the store, in the same
// transaction. A throw inside the store (out of memory encoding a huge object) fails this
// transaction like a disk error: its versions become a gap, the writer goes on.
Result<CommitReport> HistoryRecorder::writeBatch(HistoryStore *store, const std::optional<Error> &openError,
                                                 const Retained &retained,
                                                 const std::shared_ptr<std::vector<HistoryWriteItem>> &items,
                                                 HistoryStore::Batch next)
{
    if (!store)
        return openError ? *openError : Error::make(ErrorCategory::Io, "the history store is not open");
    if (m_failedGaps.empty() && retained.items.empty()) // nothing goes before: the batch as it is
        return guarded("a history transaction", [&] { return store->write(items, std::move(next)); });
    std::vector<HistoryWriteItem> batch;
    batch.reserve(m_failedGaps.size() + retained.items.size() + items->size());
    for (const auto &[scope, gap] : m_failedGaps)
        batch.push_back(gap);
    batch.insert(batch.end(), retained.items.begin(), retained.items.end());
    batch.insert(batch.end(), items->begin(), items->end());
    return guarded("a history transaction", [&] { return store->write(batch); });
}

// Above the bound, everything retained becomes the gap it would have been without the queue.
void HistoryRecorder::keep(Retained &retained, std::vector<HistoryWriteItem> items, std::int64_t bytes,
                           std::int64_t events, const std::string &why)
{
    retained.items.insert(retained.items.end(), std::make_move_iterator(items.begin()),
                          std::make_move_iterator(items.end()));
    retained.bytes += bytes;
    retained.events += events;
    if (retained.bytes <= m_options.maxRetainedBytes)
        return;
    {
        std::lock_guard lock(m_mutex);
        m_counters.droppedEvents += retained.events;
    }
    noteFailedItems(retained.items, why);
    retained.items.clear();
    retained.bytes = retained.events = 0;
    std::lock_guard lock(m_mutex);
    m_errorIsPending = false; // these are lost: the error stands
}

} // namespace fieldscope::core
