// What the cluster view does with discovery: the cached snapshot shown at once and refreshed in
// the background, the wanted resource watched as soon as discovery can name it, the kinds list and
// its counts. Members of ClusterController, kept apart from its watch and table plumbing.
#include "app/gui/clustercontroller.h"
#include "app/services/discoverycachefile.h"
#include "core/base/boundary.h"
#include "core/base/json.h"
#include "widgets/clusterview.h"

#include <QFutureWatcher>
#include <QtConcurrent/QtConcurrentRun>

namespace fieldscope::app {

namespace {

// Count requests in flight at once: a cluster with 3,000 CRDs must not queue 3,000 LISTs ahead of
// the shown table's own (they share the client-side rate limit).
constexpr int kMaxCountsInFlight = 4;

models::ResourceKind toKind(const kube::ResourceInfo &r)
{
    return {QString::fromStdString(r.group), QString::fromStdString(r.version), QString::fromStdString(r.resource),
            QString::fromStdString(r.kind), r.namespaced};
}

// One metadata-only LIST page per kind (Accept `as=PartialObjectMetadataList`): the count is the
// page's items when the page is the whole list, or the page plus the server's remainingItemCount
// when it sends one (1.20 does not for every storage). Larger kinds stay unknown until watched.
// The page is decoded on a worker thread.
qint64 countFromPage(const std::string &body)
{
    auto doc = core::parseJson(body);
    if (!doc || !doc->is_object())
        return -1;
    const auto &items = (*doc)["items"];
    const auto &meta = (*doc)["metadata"];
    const qint64 n = items.is_array() ? qint64(items.size()) : 0;
    if (!meta.is_object())
        return n;
    if (meta.contains("remainingItemCount") && meta["remainingItemCount"].is_number_integer())
        return n + meta["remainingItemCount"].get<qint64>();
    if (meta.contains("continue") && meta["continue"].is_string() && !meta["continue"].get<std::string>().empty())
        return -1;
    return n;
}

} // namespace

void ClusterController::startDiscovery()
{
    m_discovered = false;
    m_discoveryFromServer = false;
    m_discovery = std::make_unique<kube::Discovery>(m_client.get());
    m_discovery->setCache(discoveryCacheUseFor(m_connection->config, true));
    connect(m_discovery.get(), &kube::Discovery::progressed, this, &ClusterController::onDiscoveryProgress);
    connect(m_discovery.get(), &kube::Discovery::finished, this, &ClusterController::onDiscovered);
    connect(m_discovery.get(), &kube::Discovery::failed, this, [this](const QString &m) {
        if (m_discoveryFromServer) {
            // The server answered this connection before; a later refresh failing leaves its snapshot.
            m_warnings << tr("Resource types could not be refreshed: %1").arg(m);
            showWarnings();
            return;
        }
        m_view->setConnectionError(m);
        Q_EMIT failed(m);
    });
    m_view->setConnecting(tr("Discovering resource types…"));
    m_discovery->refresh();
}

// Before the whole of discovery is in (3,000 groups on an old server take a while), the wanted
// resource is watched as soon as no group still to answer could change what its name means.
void ClusterController::onDiscoveryProgress()
{
    if (m_discovered || m_watcher)
        return;
    const auto decided = m_discovery->decide(m_wantedResource.toStdString());
    if (decided && *decided) {
        m_view->setConnection(m_contextName, QString::fromStdString(m_connection->config.server), tr("…"));
        showResolved(**decided);
    }
}

void ClusterController::onDiscovered()
{
    const auto &snap = m_discovery->snapshot();
    m_view->setConnection(m_contextName, QString::fromStdString(m_connection->config.server),
                          QString::fromStdString(snap.serverVersion));
    std::vector<models::ResourceKind> kinds;
    for (const auto &r : snap.resources)
        if (r.preferred && r.supports("list") && r.supports("watch"))
            kinds.push_back(toKind(r));
    const bool first = !m_discovered;
    m_discovered = true;
    m_discoveryFromServer = m_discoveryFromServer || !m_discovery->snapshotFromCache();
    // A refresh that found what the cache held changes nothing on screen (nor the counts).
    const bool same = !first && kinds.size() == m_kinds.kinds().size()
                   && std::equal(kinds.begin(), kinds.end(), m_kinds.kinds().begin(),
                                 [](const models::ResourceKind &a, const models::ResourceKind &b) {
                                     return a.qualifiedName() == b.qualifiedName() && a.version == b.version;
                                 });
    if (!same) {
        m_kinds.setKinds(std::move(kinds)); // a reset: the tree loses its current row, given back below
        if (!m_shownKind.isEmpty())
            m_view->setCurrentKind(m_shownKind);
        fetchCounts();
    }
    if (first) {
        watchNamespaces();
        if (!m_currentUid.isEmpty()) {
            // The current object's events watch needs the events resource, known only now.
            const QString uid = std::exchange(m_currentUid, QString());
            onCurrentObject(uid);
        }
    }
    showResource(m_wantedResource);
    noteLoaded();
}

void ClusterController::fetchCounts()
{
    m_countsPending -= int(m_countQueue.size());
    m_countQueue.clear();
    for (const auto &k : m_kinds.kinds())
        m_countQueue.push_back(k);
    m_countsPending += int(m_countQueue.size());
    fetchNextCounts();
}

void ClusterController::fetchNextCounts()
{
    while (m_countsInFlight < kMaxCountsInFlight && !m_countQueue.empty()) {
        const models::ResourceKind k = m_countQueue.front();
        m_countQueue.pop_front();
        const QString q = k.qualifiedName();
        const auto *info = m_discovery->snapshot().find(k.group.toStdString(), k.resource.toStdString());
        if (!info) {
            --m_countsPending;
            continue;
        }
        kube::HttpRequest req;
        req.path = info->collectionPath("") + "?limit=500";
        req.accept = "application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io,application/json";
        ++m_countsInFlight;
        m_client->send(std::move(req), this, [this, q](core::Result<kube::HttpResponse> r) {
            --m_countsInFlight;
            fetchNextCounts();
            if (!r) {
                --m_countsPending;
                return;
            }
            auto *w = new QFutureWatcher<qint64>(this);
            connect(w, &QFutureWatcherBase::finished, this, [this, w, q] {
                w->deleteLater();
                --m_countsPending;
                const qint64 n = core::takeResult(w->future(), "counting " + q.toStdString()).valueOr(-1);
                if (n >= 0 && (q != m_shownKind || !m_listed)) // the watched kind counts its own rows
                    m_kinds.setCount(q, n);
            });
            w->setFuture(QtConcurrent::run([body = std::move(r->body)] { return countFromPage(body); }));
        });
    }
}

} // namespace fieldscope::app
