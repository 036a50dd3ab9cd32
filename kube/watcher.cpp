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
