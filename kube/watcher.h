#pragma once
// Watcher: LIST then WATCH one resource type in one scope, forever, without losing a version
// (https://kubernetes.io/docs/reference/using-api/api-concepts/#efficient-detection-of-changes). Lives
// on its ApiClient's thread; events decode on the network thread, LIST pages on workers
// (the next page is asked for from a page's head, before its items decode); batches are timer-cut and emitted here.
//
// Contract (tested): per object, every version the server sends is delivered exactly once and
// in order; no version is invented; after a relist the batch carries an ObservationGap naming
// the interval that was not observed, and the differences (added, changed, deleted while away)
// are delivered as events rather than a silent replacement.
#include "core/objects/objectstore.h"
#include "core/objects/watchtypes.h"
#include "kube/apiclient.h"
#include "kube/listdecoder.h"
#include "kube/resource.h"

#include <QElapsedTimer>
#include <QObject>
#include <QThreadPool>
#include <QTimer>

#include <map>
#include <memory>
#include <mutex>
#include <random>

namespace fieldscope::kube {

struct WatchScope {
    ResourceInfo resource;
    std::string namespace_; // "" = all namespaces (or cluster-scoped)
    std::string labelSelector;
    std::string fieldSelector;
    std::string describe() const;
};

// "&labelSelector=...&fieldSelector=..." of a scope: every request about the scope (LIST, WATCH,
// the Table of kube/tablefetcher.h) selects the same objects.
std::string listQuery(const WatchScope &scope);

struct WatcherOptions {
    // LIST pages: the first has pageSize objects so rows show at once; later pages grow toward
    // targetPageBytes (at most 4x a step, at most maxPageSize objects). Every page costs the
    // server a fresh etcd range read and a round trip, which is what bounds a 100k-object list
    // (bench/README.md); maxPageSize = pageSize keeps kubectl's fixed 500.
    int pageSize = 500;
    int maxPageSize = 10'000;
    std::size_t targetPageBytes = 8u << 20;
    // When the server says how many objects remain (metadata.remainingItemCount) and they fit in
    // this many bytes, the next page asks for all of them instead of growing 4x a step: a round
    // trip less on a remote cluster. Larger is not faster on loopback and holds the whole rest
    // in memory at once (bench/README.md: 32 MiB took 3.3x the JSON's size in RSS at 20,000
    // ConfigMaps, for the same time).
    std::size_t finalPageBytes = 8u << 20;
    // The first list delivers at most this many objects per batch and event-loop turn (0: whole
    // pages): a page of 2,000 Pods took the window's GUI thread 8-34 ms (bench_window).
    std::size_t applySliceItems = 250;
    int flushIntervalMs = 100;
    bool tryWatchList = true; // sendInitialEvents; falls back to LIST on 422
    // A streaming list says nothing of its size: alongside it, one `limit=1` read of the objects'
    // metadata gives the server's count (remainingItemCount), for a determinate progress bar.
    bool estimateStreamingLists = false;
    bool listOnly = false; // stop after the first complete list (fieldscope list)
    int minTimeoutSeconds = 300, maxTimeoutSeconds = 600;
    int stallSeconds = 45;
    // One watch event (line) longer than this drops the stream and resumes from the last RV;
    // a LIST page larger than maxListBodyBytes fails the list (kube/http.h explains the sizes).
    std::size_t maxFrameBytes = kMaxWatchFrameBytes;
    std::size_t maxListBodyBytes = kMaxResponseBodyBytes;
    // client-go's backoff: 0.8 s doubling to 30 s with jitter, reset after 2 min of health.
    int backoffInitialMs = 800, backoffMaxMs = 30'000, backoffResetMs = 120'000;
};

// The limit of the next LIST page after one of `items` objects in `bodyBytes`, with `remaining`
// objects left as the server counted them (-1: it did not say). See WatcherOptions.
int nextPageSize(const WatcherOptions &options, int current, std::size_t items, std::size_t bodyBytes,
                 std::int64_t remaining = -1);

class Watcher : public QObject
{
    Q_OBJECT
public:
    enum class State { Idle, Listing, Watching, Relisting, BackingOff, Failed };
    Q_ENUM(State)

    Watcher(ApiClient *client, WatchScope scope, WatcherOptions options = {}, QObject *parent = nullptr);
    ~Watcher() override;

    void start();
    void stop();

    State state() const { return m_state; }
    QString stateDetail() const { return m_detail; }
    const WatchScope &scope() const { return m_scope; }
    const core::ObjectStore &store() const { return m_store; }
    std::string lastResourceVersion() const { return m_rv; }
    // How the last complete list came: a streaming list (sendInitialEvents, one watch request)
    // or LIST pages (the server refused streaming, or tryWatchList is off).
    bool lastListStreamed() const { return m_lastListStreamed; }
    // The distinct Warning texts the server sent with this watcher's lists and watches (a
    // deprecated version, a policy's warn action), oldest first, at most kMaxWarnings.
    static constexpr std::size_t kMaxWarnings = 8;
    const std::vector<std::string> &serverWarnings() const { return m_warnings; }
    qint64 lastEventMsecsAgo() const { return m_lastEvent.isValid() ? m_lastEvent.elapsed() : -1; }
    // While backing off: time until the next attempt (-1 otherwise). Read after stateChanged has
    // returned: the retry timer starts after BackingOff is announced.
    qint64 retryInMsecs() const { return m_retryTimer.isActive() ? m_retryTimer.remainingTime() : -1; }
    bool initialListComplete() const { return m_synced; }
    // While listing: the objects so far plus the server's remainingItemCount (an estimate the
    // server may omit, e.g. with selectors); -1 when unknown.
    qint64 listTotalEstimate() const { return m_listEstimate; }
    int relistCount() const { return m_relists; }
    // Where LIST pages decode (tests hold its threads to see what happens meanwhile).
    static QThreadPool *decodePool();
    int resumeCount() const { return m_resumes; }

Q_SIGNALS:
    void batchReady(const fieldscope::core::WatchBatch &batch);
    void stateChanged(fieldscope::kube::Watcher::State state, const QString &detail);
    void listProgress(qint64 loaded, qint64 remainingEstimate);
    void listCompleted(); // listOnly: the store holds the complete list
    void errorOccurred(const QString &message);
    void warned(const QString &text); // a Warning text serverWarnings() did not hold yet

private:
    struct Stream; // shared with the network thread
    // A LIST page as it reaches the owner: decoded (or failed), with the continue token its head
    // gave when the next page was asked for before the decode.
    struct FetchedPage {
        core::Result<DecodedPage> page;
        std::size_t bodyBytes = 0;
        std::optional<std::string> headToken;
    };
    void list(bool relist);
    void requestPage(const std::string &continueToken);
    void onPageHead(int gen, int seq, const ListHead &head, std::size_t bodyBytes);
    void requestHeldPage();
    void onPage(int gen, int seq, FetchedPage page);
    void applyWaitingPages();
    bool beginPage(FetchedPage &fetched);
    bool deliverSlice();
    bool finishPage(FetchedPage fetched);
    void resetPages();
    void onListFailed(core::Error e);
    void finishList(bool relist, const std::string &listRv);
    void watch(bool watchList);
    void onWatchEnded(int gen, core::Result<HttpResponse> r);
    void flush();
    void deliver(core::ObjectVersion v);
    void relistAfter(const std::string &reason);
    // A relist within backoffResetMs of the previous one: it backs off instead of starting at once.
    bool isRepeatedRelist() const;
    void backoffThen(std::function<void()> next, const QString &why);
    void setState(State s, const QString &detail = {});
    void emitBatch();
    int nextTimeoutSeconds();

    ApiClient *m_client;
    WatchScope m_scope;
    WatcherOptions m_opts;
    core::ObjectStore m_store;
    State m_state = State::Idle;
    QString m_detail;
    std::string m_rv; // resume point: last applied non-synthetic event or list RV
    int m_gen = 0;    // supersedes requests of earlier list/watch rounds
    Transport::RequestId m_request = 0;
    std::shared_ptr<Stream> m_stream;
    bool m_synced = false;
    bool m_watchListUnsupported = false;
    bool m_inWatchListInitial = false;
    QString m_streamError;      // an ERROR event (other than 410) ended the current stream
    bool m_progressive = false; // first sync into an empty store: deliver pages as they come
    bool m_lastListStreamed = false;
    std::vector<std::string> m_warnings;
    void noteWarnings(const std::vector<std::string> &warnings);
    void requestStreamEstimate(int gen);
    void onStreamEstimate(int gen, qint64 total);
    std::string m_shownListRv;                      // the RV of the progressive list's pages delivered so far
    std::string m_abandonedListRv;                  // a progressive list cut short: what was shown, for the gap
    std::string m_abandonedReason;                  // why it was cut (an expired token, a failed page)
    std::vector<core::ObjectVersion> m_relistItems; // relist/WatchList buffer, diffed at the end
    core::WatchBatch m_batch;
    QTimer m_flushTimer;
    QTimer m_retryTimer;
    QElapsedTimer m_lastEvent;
    QElapsedTimer m_watchStarted; // the current watch request's age
    int m_eventsThisWatch = 0;    // lines (events, bookmarks) it delivered
    QElapsedTimer m_healthy;
    QElapsedTimer m_lastRelist; // started by each relist (410, expired continue token)
    int m_backoffMs = 0;
    int m_relists = 0, m_resumes = 0;
    qint64 m_loaded = 0;
    qint64 m_listEstimate = -1;
    int m_pageLimit = 0;                 // the limit of the next list page
    std::size_t m_expectedPageBytes = 0; // and its likely size (0: unknown)
    bool m_listRelist = false;
    int m_pagesRequested = 0, m_pagesApplied = 0; // this list round's pages, in the order asked
    std::map<int, FetchedPage> m_pagesWaiting;    // decoded before an earlier page
    std::optional<std::string> m_heldContinue;    // the next page, not asked yet (too many ahead)
    std::size_t m_bytesAhead = 0;                 // bodies of pages whose successor was asked early
    std::optional<FetchedPage> m_applying;        // the page being delivered, slice by slice
    std::size_t m_applyingFrom = 0;               // its next item
    bool m_applyQueued = false;                   // its next slice waits for the next event-loop turn
    std::mt19937 m_rng{std::random_device{}()};
};

} // namespace fieldscope::kube
