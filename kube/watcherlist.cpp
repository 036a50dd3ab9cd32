// The list half of the Watcher (kube/watcher.h): paginated LIST with adaptive page sizes, pages
// decoded off the owner thread and applied in order in slices, continue-token expiry, and the
// switch to WATCH from the list's resourceVersion. The watch stream is kube/watcher.cpp.
#include "core/base/jsonread.h"
#include "core/base/stringset.h"
#include "core/base/visibletext.h"
#include "kube/apierror.h"
#include "kube/watcher.h"

#include <QLoggingCategory>
#include <QPointer>
#include <QThread>
#include <QThreadPool>

#include <algorithm>
#include <limits>

Q_DECLARE_LOGGING_CATEGORY(lcWatch)

namespace fieldscope::kube {

using core::ErrorCategory;
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

} // namespace fieldscope::kube
