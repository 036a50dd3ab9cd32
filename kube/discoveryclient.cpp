// The Discovery object: runs discovery against the server (aggregated or legacy) and through the
// cache file. Pure parsing and resolution are in discovery.cpp, the file format in discoverycache.cpp.
#include "core/base/json.h"
#include "core/base/jsonread.h"
#include "kube/apierror.h"
#include "kube/discovery.h"
#include "kube/discoverycache.h"

#include <QDateTime>
#include <QLoggingCategory>
#include <QPointer>
#include <QThreadPool>

#include <algorithm>

Q_LOGGING_CATEGORY(lcDiscovery, "fieldscope.kube.discovery", QtInfoMsg)

namespace fieldscope::kube {

using core::Error;
using core::ErrorCategory;

namespace {

constexpr const char *kAcceptAggregated =
    "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json";

std::int64_t nowMs()
{
    return QDateTime::currentMSecsSinceEpoch();
}

DiscoverySource coreSource()
{
    DiscoverySource core;
    core.groupVersion = "v1";
    return core;
}

} // namespace

struct Discovery::Decoded {
    std::string contentType;
    std::string etag;
    std::optional<Error> parseError;
    DiscoverySnapshot part; // resources and failedResources of this document; serverVersion of /version
    std::vector<std::pair<std::string, bool>> groupVersions; // legacy /apis
};

Discovery::Discovery(ApiClient *client, QObject *parent) : QObject(parent), m_client(client) {}

bool Discovery::coreKnown() const
{
    // A core group that failed is not "known": the run's end says why (its error, not "no such type").
    return !m_running
        || (!m_progress.sources.empty() && m_progress.sources.front().state == DiscoverySource::State::Answered);
}

std::optional<const ResourceInfo *> Discovery::decide(const std::string &word) const
{
    return m_progress.decide(ResourceQuery(word), m_running);
}

void Discovery::refresh()
{
    ++m_generation;
    m_running = false;
    if (m_cache.path.empty())
        startServerRun();
    else
        loadCache();
}

void Discovery::refreshFromServer()
{
    startServerRun();
}

void Discovery::loadCache()
{
    m_running = true; // nothing is decided while the file is read
    m_progress = {};
    if (m_cache.blockingIo) {
        onCacheLoaded(loadDiscoveryCache(m_cache.path));
        return;
    }
    QPointer<Discovery> self(this);
    const int gen = m_generation;
    QThreadPool::globalInstance()->start([inbox = m_client->inbox(), self, gen, path = m_cache.path] {
        auto loaded = std::make_shared<core::Result<CachedDiscovery>>(loadDiscoveryCache(path));
        inbox->post([self, gen, loaded] {
            if (self && gen == self->m_generation)
                self->onCacheLoaded(std::move(*loaded));
        });
    });
}

// What the file holds decides how much the server is asked: a young legacy snapshot, nothing; an
// unfinished one, its pending groups; an aggregated one, a revalidation by ETag.
void Discovery::onCacheLoaded(core::Result<CachedDiscovery> cached)
{
    if (!cached) {
        if (cached.error().category != ErrorCategory::NotFound)
            qCWarning(lcDiscovery, "discovery cache not used: %s", cached.error().describe().c_str());
        startServerRun();
        return;
    }
    if (cached->server != m_cache.server) {
        startServerRun();
        return;
    }
    m_previous = std::make_shared<const DiscoveryProgress>(cached->progress);
    const std::int64_t age = nowMs() - cached->savedAtMs;
    const bool fresh = age > -60'000 && age < m_cache.maxAgeMs; // a clock set back a little is no reason to refetch
    if (m_cache.refreshAfterCache) {
        // The window: a whole snapshot is shown at once while the server is asked anyway (the
        // run is started first, so that a type the file lacks reads as "still looking"); a
        // partial one is not shown, the server run decides the wanted resource as quickly.
        startServerRun();
        if (fresh && cached->progress.complete())
            publish(cached->progress, true);
        return;
    }
    const bool coreAnswered = !cached->progress.sources.empty()
                           && cached->progress.sources.front().state == DiscoverySource::State::Answered;
    if (cached->progress.aggregated || !fresh || !coreAnswered) {
        startServerRun(); // aggregated: revalidated by ETag, one or two 304s
        return;
    }
    m_progress = std::move(cached->progress);
    m_progressSavedAtMs = cached->savedAtMs;
    m_fromCache = true;
    if (m_progress.complete()) {
        m_running = false;
        publish(m_progress, true);
        return;
    }
    resumeCachedRun();
}

// An unfinished run from the file: its answered groups are used as they are, the pending ones asked.
void Discovery::resumeCachedRun()
{
    m_running = true;
    m_outstanding = 0;
    m_firstError.clear();
    m_queuedSources.clear();
    m_groupRequests = 0;
    m_peakGroupRequests = 0;
    m_documentRequests = 0;
    m_notModified = 0;
    for (std::size_t i = 0; i < m_progress.sources.size(); ++i)
        if (m_progress.sources[i].state == DiscoverySource::State::Pending)
            queueSource(i);
    if (!m_progress.sourcesKnown)
        fetchGroupList(); // the last run ended before /apis answered
    Q_EMIT progressed();
}

void Discovery::startServerRun()
{
    ++m_generation;
    m_progress = {};
    m_progress.sources.push_back(coreSource());
    m_progressSavedAtMs = nowMs();
    m_running = true;
    m_fromCache = false;
    m_firstError.clear();
    m_outstanding = 0;
    m_queuedSources.clear();
    m_groupRequests = 0;
    m_peakGroupRequests = 0;
    m_documentRequests = 0;
    m_notModified = 0;
    fetchVersion();
    fetchAggregated(true);
}

void Discovery::sendDecoded(HttpRequest req, Decoder decode, std::function<void(core::Result<Decoded>)> done)
{
    auto inbox = m_client->inbox();
    QPointer<Discovery> self(this);
    const int gen = m_generation;
    const std::string what = "discovery GET " + req.path;
    req.isDiscovery = true;
    if (req.path != "/version")
        ++m_documentRequests;
    m_client->transport().start(std::move(req), [inbox, self, gen, what, decode = std::move(decode),
                                                 done = std::move(done)](core::Result<HttpResponse> r) mutable {
        // Network thread: a document of up to the body limit is parsed here, never on the GUI
        // thread. Last boundary of this job: whatever the parser throws becomes this answer's error.
        core::Result<Decoded> out = Error::make(ErrorCategory::Parse, what + ": could not be decoded");
        try {
            if (!r.ok())
                out = r.error();
            else if (!isSuccess(r->status))
                out = errorFromResponse(*r, what);
            else
                out = decode(*r);
        } catch (const std::exception &e) {
            out = Error::make(ErrorCategory::Parse, what + ": " + e.what());
        }
        inbox->post([self, gen, done = std::move(done), out = std::move(out)]() mutable {
            if (self && gen == self->m_generation)
                done(std::move(out));
        });
    });
}

void Discovery::fetchVersion()
{
    ++m_outstanding;
    HttpRequest req;
    req.path = "/version";
    sendDecoded(
        req,
        [](const HttpResponse &r) {
            Decoded d;
            // Only shown to the user: a wrong type leaves the version empty.
            if (auto doc = core::parseJson(r.body); doc.ok() && doc->is_object()) {
                core::JsonReader read("GET /version");
                d.part.serverVersion = read.string(*doc, "gitVersion", "");
            }
            return d;
        },
        [this](core::Result<Decoded> r) {
            --m_outstanding;
            if (r.ok())
                m_progress.serverVersion = r->part.serverVersion;
            completeIfDone();
        });
}

namespace {
// The aggregated document of the last run or the file that a 304 refers to.
const DiscoverySource *previousAggregated(const DiscoveryProgress *previous, bool coreGroup)
{
    if (!previous || !previous->aggregated)
        return nullptr;
    for (const auto &src : previous->sources)
        if (src.anyGroup != coreGroup && !src.etag.empty() && src.state == DiscoverySource::State::Answered)
            return &src;
    return nullptr;
}
} // namespace

// Asks /api with the aggregated Accept header; the Content-Type of the answer says which
// discovery format the server speaks (never infer it from the status).
void Discovery::fetchAggregated(bool coreGroup)
{
    ++m_outstanding;
    HttpRequest req;
    req.path = coreGroup ? "/api" : "/apis";
    req.accept = kAcceptAggregated;
    if (const auto *prev = previousAggregated(m_previous.get(), coreGroup))
        req.headers.emplace_back("If-None-Match", prev->etag);
    sendDecoded(
        req,
        [coreGroup](const HttpResponse &r) {
            Decoded d;
            d.contentType = r.contentType;
            d.etag = r.etag;
            if (isAggregatedContentType(r.contentType))
                if (auto st = parseAggregatedDiscovery(r.body, coreGroup, d.part); !st)
                    d.parseError = st.error();
            return d;
        },
        [this, coreGroup](core::Result<Decoded> r) { onAggregated(coreGroup, std::move(r)); });
}

void Discovery::onAggregated(bool coreGroup, core::Result<Decoded> r)
{
    --m_outstanding;
    DiscoverySource &src = coreGroup ? m_progress.sources.front() : m_progress.sources.back();
    const DiscoverySource *prev = previousAggregated(m_previous.get(), coreGroup);
    const bool notModified = !r.ok() && r.error().httpStatus == 304 && prev;
    bool aggregated = false;
    if (!r.ok() && !notModified) {
        if (m_firstError.empty())
            m_firstError = r.error().describe();
        src.state = DiscoverySource::State::Failed;
        src.failure = r.error().describe();
        m_progress.sourcesKnown = true;
    } else if (notModified) {
        ++m_notModified;
        aggregated = true; // what our copy yielded is current
        src.resources = prev->resources;
        src.etag = prev->etag;
        src.state = DiscoverySource::State::Answered;
    } else if ((aggregated = isAggregatedContentType(r->contentType))) {
        for (auto &[key, why] : r->part.failedResources) {
            qCWarning(lcDiscovery, "discovery skipped %s: %s", key.c_str(), why.c_str());
            m_progress.failedResources[key] = std::move(why);
        }
        src.resources = std::move(r->part.resources);
        if (r->parseError) {
            if (m_firstError.empty())
                m_firstError = r->parseError->describe();
            src.state = DiscoverySource::State::Failed;
            src.failure = r->parseError->describe();
        } else {
            src.state = DiscoverySource::State::Answered;
            src.etag = r->etag;
        }
    }
    if (aggregated) {
        m_progress.aggregated = true;
        if (coreGroup) {
            DiscoverySource all;
            all.groupVersion = "/apis";
            all.anyGroup = true;
            m_progress.sources.push_back(std::move(all));
            m_progress.sourcesKnown = true;
            fetchAggregated(false);
        }
    } else if (coreGroup && r.ok()) {
        fetchLegacy(); // a legacy server: /api answered APIVersions; the core group is /api/v1
    }
    // Q_EMIT expands to nothing, so the check sees a call starting in column 12 after the `if`.
    Q_EMIT progressed(); // NOLINT(readability-misleading-indentation)
    completeIfDone();
}

void Discovery::fetchLegacy()
{
    queueSource(0);
    fetchGroupList();
}

void Discovery::fetchGroupList()
{
    ++m_outstanding;
    HttpRequest req;
    req.path = "/apis";
    sendDecoded(
        req,
        [](const HttpResponse &r) {
            Decoded d;
            if (auto st = parseApiGroupList(r.body, d.groupVersions); !st)
                d.parseError = st.error();
            return d;
        },
        [this](core::Result<Decoded> r) {
            --m_outstanding;
            if (!r.ok()) {
                if (m_firstError.empty())
                    m_firstError = r.error().describe();
            } else {
                if (r->parseError && m_firstError.empty())
                    m_firstError = r->parseError->describe();
                for (const auto &[gv, preferred] : r->groupVersions)
                    addGroupVersion(gv, preferred);
            }
            m_progress.sourcesKnown = true; // nothing more will be listed
            Q_EMIT progressed();
            completeIfDone();
        });
}

void Discovery::addGroupVersion(const std::string &gv, bool preferred)
{
    const auto &sources = m_progress.sources;
    const auto slash = gv.find('/');
    if (slash == std::string::npos || slash == 0
        || std::any_of(sources.begin(), sources.end(), [&](const auto &s) { return s.groupVersion == gv; }))
        return; // /apis lists named groups only, each group version once
    DiscoverySource src;
    src.groupVersion = gv;
    src.group = gv.substr(0, slash);
    src.preferred = preferred;
    m_progress.sources.push_back(std::move(src));
    queueSource(m_progress.sources.size() - 1);
}

void Discovery::queueSource(std::size_t index)
{
    ++m_outstanding; // counted from the queue on, so the refresh cannot finish before it is asked
    m_queuedSources.push_back(index);
    startQueuedGroupVersions();
}

// At most kMaxConcurrentDiscoveryRequests group versions in flight; each answer starts the next.
void Discovery::startQueuedGroupVersions()
{
    while (m_groupRequests < kMaxConcurrentDiscoveryRequests && !m_queuedSources.empty()) {
        const std::size_t index = m_queuedSources.front();
        m_queuedSources.pop_front();
        ++m_groupRequests;
        m_peakGroupRequests = std::max(m_peakGroupRequests, m_groupRequests);
        const DiscoverySource &src = m_progress.sources[index];
        HttpRequest req;
        req.path = src.group.empty() ? "/api/" + src.groupVersion : "/apis/" + src.groupVersion;
        sendDecoded(
            req,
            [gv = src.groupVersion, preferred = src.preferred](const HttpResponse &r) {
                Decoded d;
                if (auto st = parseLegacyResourceList(r.body, gv, preferred, d.part); !st)
                    d.parseError = st.error();
                return d;
            },
            [this, index](core::Result<Decoded> r) { onGroupVersion(index, std::move(r)); });
    }
}

void Discovery::onGroupVersion(std::size_t index, core::Result<Decoded> r)
{
    --m_outstanding;
    --m_groupRequests;
    DiscoverySource &src = m_progress.sources[index];
    const char *gv = src.groupVersion.c_str();
    if (!r.ok() || r->parseError) {
        src.state = DiscoverySource::State::Failed;
        src.failure = r.ok() ? r->parseError->describe() : r.error().describe();
        qCInfo(lcDiscovery, "discovery of %s failed: %s", gv, src.failure.c_str());
    } else {
        src.state = DiscoverySource::State::Answered;
        src.resources = std::move(r->part.resources);
        for (auto &[key, why] : r->part.failedResources) {
            qCWarning(lcDiscovery, "discovery skipped %s: %s", key.c_str(), why.c_str());
            m_progress.failedResources[key] = std::move(why);
        }
    }
    startQueuedGroupVersions();
    Q_EMIT progressed();
    completeIfDone();
}

void Discovery::completeIfDone()
{
    if (m_outstanding > 0)
        return;
    m_running = false;
    m_progress.sourcesKnown = true; // a run that ended lists all it will ever list
    DiscoverySnapshot snap = m_progress.assemble();
    if (snap.resources.empty()) {
        std::string why = m_firstError;
        if (why.empty() && !snap.failedGroups.empty())
            why = snap.failedGroups.begin()->second; // e.g. the only group was malformed
        Q_EMIT failed(QString::fromStdString(why.empty() ? std::string("discovery returned no resources") : why));
        return;
    }
    if (!m_cache.path.empty())
        saveCache(m_cache.blockingIo);
    publish(m_progress, m_fromCache);
}

void Discovery::publish(const DiscoveryProgress &progress, bool fromCache)
{
    m_snapshot = progress.assemble();
    m_hasSnapshot = true;
    m_snapshotFromCache = fromCache;
    m_previous = std::make_shared<const DiscoveryProgress>(progress);
    Q_EMIT finished();
}

void Discovery::saveProgress()
{
    // Worth keeping once the core group is in: the next run resumes the rest (the group list too).
    if (!m_cache.path.empty() && !m_progress.aggregated && !m_progress.sources.empty()
        && m_progress.sources.front().state == DiscoverySource::State::Answered)
        saveCache(true);
}

void Discovery::saveCache(bool blocking)
{
    auto cache = std::make_shared<CachedDiscovery>();
    cache->server = m_cache.server;
    cache->savedAtMs = m_progressSavedAtMs;
    cache->progress = m_progress;
    auto save = [path = m_cache.path, cache] {
        if (auto st = saveDiscoveryCache(path, *cache); !st)
            qCWarning(lcDiscovery, "discovery cache not saved: %s", st.error().describe().c_str());
    };
    if (blocking)
        save();
    else
        QThreadPool::globalInstance()->start(save);
}

} // namespace fieldscope::kube
