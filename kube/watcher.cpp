#include "kube/watcher.h"

#include "core/base/jsonread.h"
#include "core/base/stringset.h"
#include "core/base/visibletext.h"
#include "kube/apierror.h"

#include <QDateTime>
#include <QLoggingCategory>
#include <QPointer>
#include <QThread>
#include <QThreadPool>

#include <algorithm>
#include <atomic>
#include <limits>

Q_LOGGING_CATEGORY(lcWatch, "fieldscope.kube.watch", QtInfoMsg)

namespace fieldscope::kube {

using core::ErrorCategory;

// Bytes and decoded lines handed from the network thread to the owner thread.
struct Watcher::Stream {
    std::mutex mutex; // guards lines, decodeError
    std::vector<DecodedWatchLine> lines;
    std::string decodeError;
    std::string partial; // network thread only
    std::size_t maxFrameBytes = kMaxWatchFrameBytes;
    std::atomic<bool> headSeen{false}; // network thread: the first chunk carried the head
    // Network thread: decodes the complete frames of `bytes` and queues them for the owner.
    // False drops the stream (a corrupt or oversized frame); the owner resumes from the last
    // RV applied.
    bool take(std::string_view bytes);
};

bool Watcher::Stream::take(std::string_view bytes)
{
    std::vector<std::string> frames;
    std::vector<DecodedWatchLine> decoded;
    std::string error;
    try {
        splitLines(partial, bytes, frames);
        decoded.reserve(frames.size());
        for (const auto &l : frames) {
            if (l.size() > maxFrameBytes)
                break; // reported below, after the frames before it
            auto d = decodeWatchLine(l);
            if (!d.ok()) {
                // Stop at the first corrupt frame: applying later events would skip the one
                // it hid for good, since we resume from the last RV applied.
                error = d.error().describe();
                break;
            }
            decoded.push_back(std::move(*d));
        }
        const bool longLine = decoded.size() < frames.size() && error.empty();
        if (longLine || partial.size() > maxFrameBytes) {
            // A frame past the limit: drop the stream (and its buffer) and resume from the
            // last RV applied; the event will come again or the server will say 410.
            error = "a watch event is larger than the frame limit of " + std::to_string(maxFrameBytes) + " bytes";
            std::string().swap(partial);
        }
    } catch (const std::exception &e) {
        // Last boundary on the network thread (bad_alloc on a huge frame, a library throw).
        error = std::string("watch event could not be decoded: ") + e.what();
        std::string().swap(partial);
    }
    if (decoded.empty() && error.empty())
        return true;
    std::lock_guard lock(mutex);
    for (auto &d : decoded)
        lines.push_back(std::move(d));
    if (!error.empty())
        decodeError = error;
    return error.empty(); // a corrupt frame: drop the stream and resume from the last good RV
}

std::string WatchScope::describe() const
{
    std::string s = resource.qualifiedName();
    s += namespace_.empty() ? (resource.namespaced ? " in all namespaces" : "") : " in " + namespace_;
    if (!labelSelector.empty())
        s += " -l " + labelSelector;
    if (!fieldSelector.empty())
        s += " --field-selector " + fieldSelector;
    return s;
}

Watcher::Watcher(ApiClient *client, WatchScope scope, WatcherOptions options, QObject *parent)
    : QObject(parent), m_client(client), m_scope(std::move(scope)), m_opts(options)
{
    m_batch.scope = m_scope.describe();
    m_flushTimer.setInterval(m_opts.flushIntervalMs);
    connect(&m_flushTimer, &QTimer::timeout, this, &Watcher::flush);
    m_retryTimer.setSingleShot(true);
}

Watcher::~Watcher()
{
    stop();
}

void Watcher::start()
{
    if (m_state != State::Idle && m_state != State::Failed)
        return;
    m_flushTimer.start();
    if (m_opts.tryWatchList && !m_watchListUnsupported && !m_opts.listOnly)
        watch(true);
    else
        list(false);
}

void Watcher::stop()
{
    ++m_gen;
    if (m_request)
        m_client->cancel(m_request);
    m_request = 0;
    m_stream.reset();
    resetPages();
    m_flushTimer.stop();
    m_retryTimer.stop();
    m_state = State::Idle;
}

void Watcher::setState(State s, const QString &detail)
{
    if (s == m_state && detail == m_detail)
        return;
    m_state = s;
    m_detail = detail;
    Q_EMIT stateChanged(s, detail);
}

int Watcher::nextTimeoutSeconds()
{
    std::uniform_int_distribution<int> d(m_opts.minTimeoutSeconds, m_opts.maxTimeoutSeconds);
    return d(m_rng);
}

namespace {
// 504 with a ResourceVersionTooLarge cause: the server has not reached our RV (another HA
// apiserver). Arrives as an HTTP status or, once the RV was parsed, as an ERROR event; both relist.
bool isResourceVersionTooLarge(const core::Error &e)
{
    return e.httpStatus == 504 && std::any_of(e.causes.begin(), e.causes.end(), [](const core::StatusCause &c) {
               return c.reason == "ResourceVersionTooLarge";
           });
}
} // namespace

std::string listQuery(const WatchScope &scope)
{
    std::string q;
    if (!scope.labelSelector.empty())
        q += "&labelSelector=" + urlEncode(scope.labelSelector);
    if (!scope.fieldSelector.empty())
        q += "&fieldSelector=" + urlEncode(scope.fieldSelector);
    return q;
}

int nextPageSize(const WatcherOptions &o, int current, std::size_t items, std::size_t bodyBytes, std::int64_t remaining)
{
    if (items == 0 || bodyBytes == 0 || o.maxPageSize <= o.pageSize)
        return std::max(current, o.pageSize);
    const std::size_t perItem = std::max<std::size_t>(1, bodyBytes / items);
    if (remaining > 0 && remaining < std::numeric_limits<int>::max()
        && std::size_t(remaining) <= o.finalPageBytes / perItem)
        return std::clamp(int(remaining), o.pageSize, o.maxPageSize);
    const std::size_t want = std::min<std::size_t>(o.targetPageBytes / perItem, std::size_t(current) * 4);
    return int(std::clamp<std::size_t>(want, std::size_t(o.pageSize), std::size_t(o.maxPageSize)));
}

void Watcher::list(bool relist)
{
    ++m_gen;
    if (m_request)
        m_client->cancel(m_request);
    m_request = 0;
    m_relistItems.clear();
    m_loaded = 0;
    m_listEstimate = -1;
    m_pageLimit = m_opts.pageSize;
    m_expectedPageBytes = 0;
    m_listRelist = relist;
    m_pagesRequested = m_pagesApplied = 0;
    resetPages();
    m_progressive = !m_synced && m_store.size() == 0;
    setState(relist ? State::Relisting : State::Listing);
    requestPage({});
}

namespace {

// Network thread, then a worker: whatever a decoder or allocator throws on bytes the server
// chose becomes this page's error, never std::terminate.
core::Result<DecodedPage> decodePageGuarded(std::string &body, const std::string &kind, const std::string &apiVersion,
                                            const std::string &what)
{
    core::Result<DecodedPage> page = core::Error::make(ErrorCategory::Parse, "list page could not be decoded");
    try {
        page = decodeListPage(body, kind, apiVersion);
    } catch (const std::exception &e) {
        page = core::Error::make(ErrorCategory::Parse, what + ": " + e.what());
    }
    if (!page.ok() && page.error().category == ErrorCategory::Parse && page.error().message.rfind(what, 0) != 0)
        page.error().message = what + ": " + page.error().message;
    return page;
}

} // namespace

void Watcher::requestPage(const std::string &continueToken)
{
    const int gen = m_gen, seq = m_pagesRequested++;
    HttpRequest req;
    // RV unset: a consistent, paginated read (RV=0 is served from the watch cache and ignores limit).
    req.path = m_scope.resource.collectionPath(m_scope.namespace_) + "?limit=" + std::to_string(m_pageLimit)
             + listQuery(m_scope);
    if (!continueToken.empty())
        req.path += "&continue=" + urlEncode(continueToken);
    req.timeoutMs = 120'000;
    req.maxBodyBytes = m_opts.maxListBodyBytes;
    req.expectedBodyBytes = m_expectedPageBytes;
    auto inbox = m_client->inbox();
    QPointer<Watcher> self(this);
    const std::string kind = m_scope.resource.kind, apiVersion = m_scope.resource.apiVersion();
    const std::string what = "GET " + req.path;
    m_request = m_client->transport().start(req, [inbox, self, gen, seq, kind, apiVersion,
                                                  what](core::Result<HttpResponse> r) {
        // Network thread: only the page's head is read here, so the next page can be asked for
        // at once; the items decode on a worker while the network thread fetches it.
        auto post = [inbox, self, gen, seq](core::Result<DecodedPage> page, std::size_t bytes,
                                            std::optional<std::string> headToken) {
            inbox->post([self, gen, seq, bytes, page = std::move(page), headToken = std::move(headToken)]() mutable {
                if (self)
                    self->onPage(gen, seq, {std::move(page), bytes, std::move(headToken)});
            });
        };
        if (r.ok() && !r->warnings.empty())
            inbox->post([self, warnings = r->warnings] {
                if (self)
                    self->noteWarnings(warnings);
            });
        if (!r.ok() || !isSuccess(r->status)) {
            post(r.ok() ? core::Result<DecodedPage>(errorFromResponse(*r, what)) : core::Result<DecodedPage>(r.error()),
                 0, std::nullopt);
            return;
        }
        const std::size_t bytes = r->body.size();
        std::optional<std::string> headToken;
        // This callback's last boundary: a page that cannot be handed on still fails in its
        // turn, or the watcher would wait for it forever.
        try {
            if (auto head = peekListHead(r->body); head && !head->continueToken.empty()) {
                headToken = head->continueToken;
                inbox->post([self, gen, seq, bytes, head = std::move(*head)] {
                    if (self)
                        self->onPageHead(gen, seq, head, bytes);
                });
            }
            Watcher::decodePool()->start([post, body = std::move(r->body), bytes, kind, apiVersion, what,
                                          headToken]() mutable {
                auto page = decodePageGuarded(body, kind, apiVersion, what);
                std::string().swap(body); // the page's bytes go before its objects travel
                try {
                    post(std::move(page), bytes, std::move(headToken));
                } catch (...) { // out of memory posting it: the next page (or the stall check) follows
                }
            });
        } catch (const std::exception &e) {
            post(core::Error::make(ErrorCategory::Parse, what + ": " + e.what()), bytes, headToken);
        }
    });
}

QThreadPool *Watcher::decodePool()
{
    // Its own pool: the global one runs jobs that may block (exec plugins, history queries).
    static QThreadPool *pool = [] {
        auto *p = new QThreadPool; // never destroyed: a job may still finish while the process exits
        p->setMaxThreadCount(std::max(2, QThread::idealThreadCount()));
        return p;
    }();
    return pool;
}

// The page `seq`'s head arrived: ask for the next page while this one decodes.
void Watcher::onPageHead(int gen, int seq, const ListHead &head, std::size_t bodyBytes)
{
    if (gen != m_gen || seq != m_pagesRequested - 1)
        return;
    m_request = 0;
    // A full page holds `limit` objects. With selectors it may hold fewer: the bytes per object
    // then look smaller and the next page larger, still within maxPageSize and the 4x step.
    const std::size_t perItem = bodyBytes / std::size_t(std::max(1, m_pageLimit));
    m_pageLimit = nextPageSize(m_opts, m_pageLimit, std::size_t(m_pageLimit), bodyBytes, head.remainingItemCount);
    // A quarter more than the same objects would take; never more than two usual pages.
    m_expectedPageBytes = std::min(perItem * std::size_t(m_pageLimit) / 4 * 5, 2 * m_opts.targetPageBytes);
    m_heldContinue = head.continueToken;
    m_bytesAhead += bodyBytes;
    requestHeldPage();
}

// Pages asked for but not yet applied are bodies and decoded objects in memory: a few usual
// pages at most, and one page at a time when a server sends larger ones than we asked for.
void Watcher::requestHeldPage()
{
    constexpr int kPagesAhead = 3;
    if (!m_heldContinue || m_pagesRequested - m_pagesApplied >= kPagesAhead
        || m_bytesAhead > 2 * m_opts.targetPageBytes)
        return;
    const std::string token = std::move(*m_heldContinue);
    m_heldContinue.reset();
    requestPage(token);
}

// Pages decode on workers and may finish out of order; they are applied in the order asked.
void Watcher::onPage(int gen, int seq, FetchedPage page)
{
    if (gen != m_gen)
        return;
    if (!page.headToken && seq == m_pagesRequested - 1)
        m_request = 0;
    m_pagesWaiting.emplace(seq, std::move(page));
    applyWaitingPages();
}

// The first list delivers a page in slices (WatcherOptions::applySliceItems), one per event-loop
// turn: the owner's thread (the window's GUI thread) never takes thousands of objects at once.
void Watcher::applyWaitingPages()
{
    const int gen = m_gen; // a slot of a signal emitted here may stop or restart the watcher
    while (!m_applyQueued) {
        if (!m_applying) {
            auto it = m_pagesWaiting.find(m_pagesApplied);
            if (it == m_pagesWaiting.end())
                break;
            m_applying = std::move(it->second);
            m_pagesWaiting.erase(it);
            m_applyingFrom = 0;
            if (!beginPage(*m_applying) || gen != m_gen)
                return;
        }
        const bool whole = deliverSlice();
        if (gen != m_gen || !m_applying)
            return;
        if (!whole) {
            m_applyQueued = true;
            QTimer::singleShot(0, this, [this, gen = m_gen] {
                if (gen != m_gen)
                    return;
                m_applyQueued = false;
                applyWaitingPages();
            });
            return;
        }
        FetchedPage done = std::move(*m_applying);
        m_applying.reset();
        ++m_pagesApplied;
        if (!finishPage(std::move(done)))
            return;
    }
    requestHeldPage();
}

bool Watcher::beginPage(FetchedPage &fetched)
{
    auto &page = fetched.page;
    if (fetched.headToken)
        m_bytesAhead -= std::min(m_bytesAhead, fetched.bodyBytes);
    if (page.ok() && fetched.headToken && page->continueToken != *fetched.headToken)
        page = core::Error::make(ErrorCategory::Parse,
                                 "list page names two continue tokens (its metadata repeats after the items)");
    if (!page.ok()) {
        onListFailed(page.error());
        return false;
    }
    m_loaded += qint64(page->items.size());
    // remainingItemCount is the server's word: one near INT64_MAX must not overflow the sum.
    const qint64 remaining = page->remainingItemCount;
    m_listEstimate = remaining >= 0 && remaining <= std::numeric_limits<qint64>::max() - m_loaded ? m_loaded + remaining
                                                                                                  : -1;
    if (m_progressive && m_listEstimate > 0)
        m_store.reserve(std::size_t(m_listEstimate));
    Q_EMIT listProgress(m_loaded, page->remainingItemCount);
    return true;
}

// Delivers the next slice of the page being applied; true when the page is all delivered.
bool Watcher::deliverSlice()
{
    auto &items = m_applying->page->items;
    if (!m_progressive) {
        for (auto &item : items)
            m_relistItems.push_back(std::move(item));
        return true;
    }
    // First list: show rows progressively while the pages stream in.
    m_shownListRv = m_applying->page->resourceVersion;
    const std::size_t slice = m_opts.applySliceItems ? m_opts.applySliceItems : items.size();
    const std::size_t end = std::min(items.size(), m_applyingFrom + slice);
    for (std::size_t i = m_applyingFrom; i < end; ++i)
        deliver(std::move(items[i]));
    m_applyingFrom = end;
    const bool whole = end == items.size();
    emitBatch(); // last: its slots may reset the pages
    return whole;
}

// A page is all delivered: follow its continue token, or end the list. False when the list ended.
bool Watcher::finishPage(FetchedPage fetched)
{
    DecodedPage &p = *fetched.page;
    if (!p.continueToken.empty()) {
        if (!fetched.headToken) { // its head could not be read: ask for the next page now
            m_pageLimit = nextPageSize(m_opts, m_pageLimit, p.items.size(), fetched.bodyBytes, p.remainingItemCount);
            m_expectedPageBytes = 0;
            m_heldContinue = p.continueToken;
        }
        return true;
    }
    const bool relist = m_listRelist;
    m_lastListStreamed = false;
    finishList(relist || m_synced, p.resourceVersion);
    if (m_opts.listOnly) {
        ++m_gen;
        m_flushTimer.stop();
        setState(State::Idle);
        Q_EMIT listCompleted();
        return false;
    }
    watch(false);
    return false;
}

// Forgets this list round's pages: asked for, waiting, or being applied.
void Watcher::resetPages()
{
    m_pagesWaiting.clear();
    m_heldContinue.reset();
    m_bytesAhead = 0;
    m_applying.reset();
    m_applyingFrom = 0;
    m_applyQueued = false;
}

// A page failed (its request, or its decode): the pages asked after it are dropped with it.
// `e` is a copy: resetPages() frees the page it came from.
void Watcher::onListFailed(core::Error e) // NOLINT(performance-unnecessary-value-param): see above
{
    ++m_gen;
    if (m_request)
        m_client->cancel(m_request);
    m_request = 0;
    resetPages();
    const bool relist = m_listRelist;
    // Pages already shown stay shown; the next list is diffed against them, and what they showed
    // is older than that list by an interval nobody watched: a gap, whatever cut this one.
    if (m_progressive && m_store.size() > 0 && m_abandonedListRv.empty()) {
        m_abandonedListRv = m_shownListRv;
        m_abandonedReason = e.httpStatus == 410 ? "continue token expired" : "list failed and started again";
    }
    if (e.httpStatus == 410) {
        // Expired continue token (etcd compacted past it): start the list again from the top.
        m_relistItems.clear();
        const bool again = relist || m_synced;
        if (isRepeatedRelist()) { // a server that expires every token: do not spin
            backoffThen(
                [this, again] {
                    m_lastRelist.start();
                    list(again);
                },
                QStringLiteral("continue token expired again"));
            return;
        }
        qCInfo(lcWatch, "%s: continue token expired, listing again", m_batch.scope.c_str());
        m_lastRelist.start();
        list(again);
        return;
    }
    const QString why = QString::fromStdString(e.describe());
    Q_EMIT errorOccurred(why);
    backoffThen([this, relist] { list(relist); }, why);
}

// Ends a list (or a WatchList's initial events): diffs a buffered relist against the store so
// the consumer sees what changed while we were away, and records the unobserved interval.
void Watcher::finishList(bool relist, const std::string &listRv)
{
    if (!m_progressive) {
        if (relist)
            m_batch.gaps.push_back({m_rv, listRv, "relist"});
        else if (!m_abandonedListRv.empty())
            m_batch.gaps.push_back({m_abandonedListRv, listRv, m_abandonedReason});
        m_abandonedListRv.clear();
        core::StringSet seen; // looks up a stored uid (a view) without a copy
        for (auto &item : m_relistItems) {
            seen.insert(item.uid);
            if (m_store.find(item.uid))
                item.type = core::WatchEventType::Modified; // deliver() drops it if unchanged
            deliver(std::move(item));
        }
        std::vector<core::ObjectVersion> gone;
        m_store.forEach([&seen, &gone](const core::StoredObject &obj) {
            if (seen.count(obj.uid()))
                return;
            core::ObjectVersion d;
            d.type = core::WatchEventType::Deleted;
            d.uid = obj.uid();
            d.namespace_ = obj.namespace_();
            d.name = obj.name();
            d.resourceVersion = obj.resourceVersion();
            d.json = obj.json();
            d.fromList = true;
            gone.push_back(std::move(d));
        });
        for (auto &d : gone)
            deliver(std::move(d));
        m_relistItems.clear();
    }
    m_progressive = false;
    m_rv = listRv;
    if (!m_synced) {
        m_synced = true;
        m_batch.initialListComplete = true;
    }
    emitBatch();
}

void Watcher::watch(bool watchList)
{
    const int gen = ++m_gen;
    HttpRequest req;
    req.streaming = true;
    req.isWatchStart = true;
    req.stallSeconds = m_opts.stallSeconds;
    req.path = m_scope.resource.collectionPath(m_scope.namespace_) + "?watch=1&allowWatchBookmarks=true&timeoutSeconds="
             + std::to_string(nextTimeoutSeconds()) + listQuery(m_scope);
    m_inWatchListInitial = watchList;
    m_watchStarted.start();
    m_eventsThisWatch = 0;
    m_streamError.clear();
    if (watchList) {
        // Streaming list (https://kubernetes.io/docs/reference/using-api/api-concepts/#streaming-lists):
        // initial state as ADDED events, ending with a bookmark.
        req.path += "&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&resourceVersion=";
        setState(m_synced ? State::Relisting : State::Listing, QStringLiteral("streaming list"));
        m_relistItems.clear();
        m_loaded = 0;
        m_listEstimate = -1;
        m_progressive = !m_synced && m_store.size() == 0;
        if (m_opts.estimateStreamingLists)
            requestStreamEstimate(gen);
    } else {
        req.path += "&resourceVersion=" + urlEncode(m_rv);
        setState(State::Watching);
    }
    auto stream = std::make_shared<Stream>();
    stream->maxFrameBytes = m_opts.maxFrameBytes;
    m_stream = stream;
    auto inbox = m_client->inbox();
    QPointer<Watcher> self(this);
    m_request = m_client->transport().start(
        req,
        [inbox, self, gen](core::Result<HttpResponse> r) {
            inbox->post([self, gen, r = std::move(r)]() mutable {
                if (self)
                    self->onWatchEnded(gen, std::move(r));
            });
        },
        [stream, inbox, self](const HttpResponse &head, std::string_view bytes) {
            // A watch's Warning headers come with its head, not at its end minutes later.
            if (!head.warnings.empty() && !stream->headSeen.exchange(true))
                inbox->post([self, warnings = head.warnings] {
                    if (self)
                        self->noteWarnings(warnings);
                });
            return stream->take(bytes);
        });
}

// One object's metadata and the server's count of the rest: the size of the streaming list that
// WATCH started (gen), while its initial events arrive. A selector makes the server omit the count
// (it cannot know it without reading everything): then no estimate, as for a failed read.
void Watcher::requestStreamEstimate(int gen)
{
    HttpRequest req;
    req.path = m_scope.resource.collectionPath(m_scope.namespace_) + "?limit=1" + listQuery(m_scope);
    req.accept = "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json";
    req.timeoutMs = 30'000;
    req.maxBodyBytes = 1u << 20;
    auto inbox = m_client->inbox();
    QPointer<Watcher> self(this);
    m_client->transport().start(req, [inbox, self, gen](core::Result<HttpResponse> r) {
        qint64 total = -1;
        if (r.ok() && isSuccess(r->status))
            if (auto list = core::parseJson(r->body); list && list->is_object()) {
                // The server's document: every step checked, nothing assumed of its shape.
                const auto items = list->find("items");
                const qint64 listed = items != list->end() && items->is_array() ? qint64(items->size()) : 0;
                const core::Json *remaining = nullptr;
                if (const auto meta = list->find("metadata"); meta != list->end() && meta->is_object())
                    if (const auto r = meta->find("remainingItemCount"); r != meta->end())
                        remaining = &*r;
                if (remaining && remaining->is_number_integer() && remaining->get<qint64>() >= 0
                    && remaining->get<qint64>() < std::numeric_limits<qint64>::max() - listed)
                    total = remaining->get<qint64>() + listed;
                else if (core::stringAt(*list, "/metadata/continue").value_or("").empty())
                    total = listed; // all there is
            }
        inbox->post([self, gen, total] {
            if (self)
                self->onStreamEstimate(gen, total);
        });
    });
}

void Watcher::onStreamEstimate(int gen, qint64 total)
{
    if (gen != m_gen || !m_inWatchListInitial || total <= 0 || m_listEstimate >= 0)
        return;
    // Objects created since the count was read come on top: never below what already arrived.
    m_listEstimate = std::max(total, m_loaded);
    if (m_progressive)
        m_store.reserve(std::size_t(m_listEstimate));
    Q_EMIT listProgress(m_loaded, m_listEstimate - m_loaded);
}

void Watcher::noteWarnings(const std::vector<std::string> &warnings)
{
    for (const std::string &w : warnings) {
        if (m_warnings.size() >= kMaxWarnings || std::find(m_warnings.begin(), m_warnings.end(), w) != m_warnings.end())
            continue;
        m_warnings.push_back(w);
        qCInfo(lcWatch, "%s: the server warns: %s", m_batch.scope.c_str(), core::visibleEscapes(w).c_str());
        Q_EMIT warned(QString::fromStdString(w));
    }
}

void Watcher::flush()
{
    if (!m_stream)
        return emitBatch();
    std::vector<DecodedWatchLine> lines;
    {
        std::lock_guard lock(m_stream->mutex);
        lines.swap(m_stream->lines);
    }
    const int gen = m_gen;
    for (auto &l : lines) {
        if (gen != m_gen)
            break; // a 410 below started a relist: the rest belongs to the dead stream
        m_lastEvent.start();
        ++m_eventsThisWatch;
        switch (l.type) {
        case WatchLineType::Bookmark:
            if (m_inWatchListInitial && l.initialEventsEnd) {
                m_inWatchListInitial = false;
                m_lastListStreamed = true;
                finishList(m_synced, l.resourceVersion);
                setState(State::Watching);
            }
            if (!m_inWatchListInitial)
                m_rv = l.resourceVersion;
            break;
        case WatchLineType::Error:
            if (l.error.httpStatus == 410 || l.error.category == ErrorCategory::Gone
                || isResourceVersionTooLarge(l.error)) {
                relistAfter(l.error.message);
            } else {
                // The server ends the stream after an ERROR; onWatchEnded backs off before
                // watching again instead of resuming at once (k8s.io/client-go/tools/cache/reflector.go).
                m_streamError = QString::fromStdString(l.error.describe());
                Q_EMIT errorOccurred(m_streamError);
            }
            break;
        default:
            if (m_inWatchListInitial) {
                // Synthetic ADDED events are not in RV order: never a resume point
                // (k8s.io/client-go/tools/cache/reflector.go).
                l.object.fromList = true;
                ++m_loaded;
                if (m_progressive)
                    deliver(std::move(l.object));
                else
                    m_relistItems.push_back(std::move(l.object));
            } else {
                m_rv = l.resourceVersion;
                deliver(std::move(l.object));
            }
        }
    }
    if (m_inWatchListInitial && m_loaded)
        Q_EMIT listProgress(m_loaded, m_listEstimate > m_loaded ? m_listEstimate - m_loaded : -1);
    emitBatch();
}

void Watcher::deliver(core::ObjectVersion v)
{
    if (!m_store.apply(v))
        return; // duplicate of what we hold: exactly-once delivery
    m_batch.events.push_back(std::move(v));
}

void Watcher::emitBatch()
{
    if (m_batch.events.empty() && m_batch.gaps.empty() && !m_batch.initialListComplete)
        return;
    m_batch.observedAtMs = QDateTime::currentMSecsSinceEpoch();
    m_batch.resourceVersion = m_rv;
    core::WatchBatch out;
    out.scope = m_batch.scope;
    std::swap(out, m_batch);
    Q_EMIT batchReady(out);
}

void Watcher::relistAfter(const std::string &reason)
{
    ++m_relists;
    if (m_request)
        m_client->cancel(m_request);
    m_request = 0;
    m_stream.reset();
    auto relist = [this] {
        m_lastRelist.start();
        if (m_opts.tryWatchList && !m_watchListUnsupported)
            watch(true);
        else
            list(true);
    };
    // The first 410 relists at once (the usual compaction case). Another one within the backoff
    // reset interval means a server (or proxy) that keeps answering 410: relisting at once would
    // send it ~50 LISTs a second, so the 429/5xx backoff applies (jittered, doubling to the max).
    if (isRepeatedRelist()) {
        backoffThen(relist, QString::fromStdString(reason + "; relisting again"));
        return;
    }
    qCInfo(lcWatch, "%s: %s; relisting", m_batch.scope.c_str(), reason.c_str());
    relist();
}

bool Watcher::isRepeatedRelist() const
{
    return m_lastRelist.isValid() && m_lastRelist.elapsed() < m_opts.backoffResetMs;
}

void Watcher::onWatchEnded(int gen, core::Result<HttpResponse> r)
{
    if (gen != m_gen)
        return;
    flush(); // deliver what the stream carried before it ended
    if (gen != m_gen)
        return; // flush() saw an ERROR 410 and already relisted
    m_request = 0;
    std::string decodeError;
    if (m_stream) {
        std::lock_guard lock(m_stream->mutex);
        decodeError = m_stream->decodeError;
    }
    m_stream.reset();
    const bool wasWatchList = m_inWatchListInitial;
    if (r.ok() && !isSuccess(r->status)) {
        const core::Error e = errorFromResponse(*r, "watch " + m_batch.scope);
        if (wasWatchList && (r->status == 422 || r->status == 400)) {
            // Expected on every server before 1.27 (and later ones with the gate off): a debug
            // line, not a warning on every start.
            qCDebug(lcWatch, "%s: server has no streaming lists (%s); using LIST", m_batch.scope.c_str(),
                    e.message.c_str());
            m_watchListUnsupported = true;
            m_inWatchListInitial = false;
            list(m_synced);
            return;
        }
        if (r->status == 410 || isResourceVersionTooLarge(e)) {
            relistAfter(e.message);
            return;
        }
        const QString why = QString::fromStdString(e.describe());
        Q_EMIT errorOccurred(why);
        if (r->status == 403 || r->status == 401 || r->status == 404)
            setState(State::Failed, why);
        backoffThen([this, wasWatchList] { watch(wasWatchList); }, why);
        return;
    }
    if (!r.ok() || !decodeError.empty()) {
        // Dropped connection, stall, corrupt frame: resume from the last RV, no relist.
        // A frame we refused ends the transfer with curl's "failed writing received data": say why.
        const QString why = QString::fromStdString(!decodeError.empty() ? decodeError : r.error().describe());
        ++m_resumes;
        backoffThen([this, wasWatchList] { watch(wasWatchList); }, why);
        return;
    }
    ++m_resumes;
    if (!m_streamError.isEmpty()) {
        // The stream ended because of an ERROR event (not 410): back off, then resume.
        backoffThen([this, wasWatchList] { watch(wasWatchList); }, m_streamError);
        return;
    }
    // A watch that ends within a second having delivered nothing is a misbehaving server or
    // proxy, not a timeout: back off instead of spinning (client-go's "very short watch").
    if (m_watchStarted.elapsed() < 1000 && m_eventsThisWatch == 0) {
        backoffThen([this, wasWatchList] { watch(wasWatchList); }, QStringLiteral("the watch ended at once"));
        return;
    }
    // A normal end (server timeout): resume at once.
    watch(wasWatchList);
}

void Watcher::backoffThen(std::function<void()> next, const QString &why)
{
    // m_healthy runs since the last failure: two quiet minutes reset the backoff (client-go).
    if (m_healthy.isValid() && m_healthy.elapsed() > m_opts.backoffResetMs)
        m_backoffMs = 0;
    m_backoffMs = m_backoffMs == 0 ? m_opts.backoffInitialMs : std::min(m_backoffMs * 2, m_opts.backoffMaxMs);
    std::uniform_real_distribution<double> jitter(1.0, 2.0);
    const int delay = std::min(int(m_backoffMs * jitter(m_rng)), m_opts.backoffMaxMs);
    if (m_state != State::Failed)
        setState(State::BackingOff, why);
    qCInfo(lcWatch, "%s: backing off %d ms: %s", m_batch.scope.c_str(), delay, qUtf8Printable(why));
    m_healthy.start();
    const int gen = ++m_gen;
    m_retryTimer.disconnect();
    connect(&m_retryTimer, &QTimer::timeout, this, [this, gen, next = std::move(next)] {
        if (gen == m_gen)
            next();
    });
    m_retryTimer.start(delay);
}

} // namespace fieldscope::kube
