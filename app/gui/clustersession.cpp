#include "app/gui/clustersession.h"

#include "app/gui/clusternotices.h"
#include "app/services/discoverycachefile.h"
#include "app/services/historysource.h"
#include "app/services/settingsconsentstore.h"
#include "core/base/boundary.h"
#include "core/base/json.h"
#include "widgets/clusterview.h"
#include "widgets/consentdialog.h"

#include <QApplication>
#include <QtConcurrent/QtConcurrentRun>

#include <algorithm>

namespace fieldscope::app {

namespace {

// Count requests in flight at once: a cluster with 3,000 CRDs must not queue 3,000 LISTs ahead of
// the shown table's own (they share the client-side rate limit).
constexpr int kMaxCountsInFlight = 4;

widgets::ExecConsentQuestion consentQuestion(const kube::ExecConsentRequest &req)
{
    widgets::ExecConsentQuestion q;
    q.kubeconfigFile = QString::fromStdString(kube::visibleEscapes(req.kubeconfigFile));
    q.details = QString::fromStdString(req.description.text()).trimmed();
    for (const auto &l : req.description.lines)
        if (l.warning)
            q.warnings << QString::fromStdString(l.label + ": " + l.note);
    return q;
}

// Exec plugins are arbitrary programs: ask before the first run of each exact invocation
// (fingerprint: file, context, user, server, command, arguments, env, provideClusterInfo).
// Called on the network thread, which must not wait: the question is posted to the GUI thread
// and answered whenever the user gets to it; meanwhile the credential is pending and other
// requests go on. Decisions are shared with the command line and survive restarts.
auto consentAsker(const QPointer<widgets::ClusterView> &view)
{
    return [view](const kube::ExecConsentRequest &req, kube::ConsentReply reply) {
        QMetaObject::invokeMethod(
            qApp,
            [view, question = consentQuestion(req), reply = std::move(reply)] {
                if (!view) {
                    reply(kube::ConsentAnswer::NotNow); // the tab is gone: not a Deny
                    return;
                }
                widgets::askExecPluginConsent(view, question, [reply](widgets::ConsentChoice c) {
                    reply(c == widgets::ConsentChoice::Allow  ? kube::ConsentAnswer::Allow
                          : c == widgets::ConsentChoice::Deny ? kube::ConsentAnswer::Deny
                                                              : kube::ConsentAnswer::NotNow);
                });
            },
            Qt::QueuedConnection);
    };
}

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

ClusterSession::ClusterSession(widgets::ClusterView *view, ClusterNotices &notices) : m_view(view), m_notices(notices)
{
    connect(&m_connecting, &QFutureWatcher<core::Result<kube::Connection>>::finished, this,
            [this] { onConnected(core::readResult(m_connecting.future(), "connecting")); });
}

void ClusterSession::open(const QString &kubeconfigPath, const QString &context)
{
    m_view->setConnecting(tr("Connecting…"));
    kube::ConnectionOptions opts;
    opts.kubeconfigPath = kubeconfigPath.toStdString();
    opts.context = context.toStdString();
    opts.credentials.consentStore = std::make_shared<SettingsConsentStore>();
    opts.credentials.askConsent = consentAsker(m_view);
    // Reading kubeconfig files (and CA/cert files) is disk I/O: off the GUI thread.
    m_connecting.setFuture(QtConcurrent::run([opts] { return kube::connect(opts); }));
}

// Requests still out are dropped with the client (their callbacks never run). A connect in flight
// only reads the kubeconfig and the files it names (no network: exec credentials are fetched
// later, on the network thread); it is waited for, as it always was, so that the connection it
// builds is never left to a pool thread to destroy after this cluster's window parts are gone.
void ClusterSession::close()
{
    m_discovery.reset();
    m_client.reset();
    m_connecting.waitForFinished();
}

void ClusterSession::onConnected(core::Result<kube::Connection> result)
{
    if (!result) {
        const QString msg = QString::fromStdString(result.error().describe());
        m_view->setConnectionError(msg);
        Q_EMIT failed(msg);
        return;
    }
    m_connection = std::make_shared<kube::Connection>(std::move(*result));
    m_contextName = QString::fromStdString(m_connection->config.contextName);
    if (m_connection->config.insecureSkipTlsVerify)
        m_notices.addWarning(tr("TLS verification is off for this cluster"));
    m_clusterIdentity = QString::fromStdString(clusterIdentityOf(m_connection->config));
    m_view->setClusterIdentity(m_clusterIdentity, QString::fromStdString(m_connection->config.server));
    Q_EMIT connected(); // recording starts (and may add its own notice): before discovery
    m_notices.show();
    showConnected();
    m_client = std::make_unique<kube::ApiClient>(m_connection->transport);
    startDiscovery();
}

void ClusterSession::showConnected()
{
    m_view->setConnection(m_contextName, QString::fromStdString(m_connection->config.server), tr("…"));
}

void ClusterSession::setShownKind(const QString &kind, bool listed)
{
    m_shownKind = kind;
    m_shownListed = listed;
}

// --- discovery: the cached snapshot shown at once and refreshed in the background ---------------

void ClusterSession::startDiscovery()
{
    m_discovered = false;
    m_discoveryFromServer = false;
    m_discovery = std::make_unique<kube::Discovery>(m_client.get());
    m_discovery->setCache(discoveryCacheUseFor(m_connection->config, true));
    connect(m_discovery.get(), &kube::Discovery::progressed, this, &ClusterSession::onDiscoveryProgress);
    connect(m_discovery.get(), &kube::Discovery::finished, this, &ClusterSession::onDiscovered);
    connect(m_discovery.get(), &kube::Discovery::failed, this, [this](const QString &m) {
        if (m_discoveryFromServer) {
            // The server answered this connection before; a later refresh failing leaves its snapshot.
            m_notices.addWarning(tr("Resource types could not be refreshed: %1").arg(m));
            m_notices.show();
            return;
        }
        m_view->setConnectionError(m);
        Q_EMIT failed(m);
    });
    m_view->setConnecting(tr("Discovering resource types…"));
    m_discovery->refresh();
}

// Before the whole of discovery is in (3,000 groups on an old server take a while), the table may
// watch the resource it wants as soon as no group still to answer could change what its name means.
void ClusterSession::onDiscoveryProgress()
{
    if (!m_discovered)
        Q_EMIT discoveryProgressed();
}

void ClusterSession::onDiscovered()
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
    Q_EMIT discovered(first);
}

// --- the kinds tree's counts --------------------------------------------------------------------

void ClusterSession::fetchCounts()
{
    m_countsPending -= int(m_countQueue.size());
    m_countQueue.clear();
    for (const auto &k : m_kinds.kinds())
        m_countQueue.push_back(k);
    m_countsPending += int(m_countQueue.size());
    fetchNextCounts();
}

void ClusterSession::fetchNextCounts()
{
    while (m_countsInFlight < kMaxCountsInFlight && !m_countQueue.empty()) {
        const models::ResourceKind k = m_countQueue.front();
        m_countQueue.pop_front();
        const auto *info = m_discovery->snapshot().find(k.group.toStdString(), k.resource.toStdString());
        if (!info) {
            --m_countsPending;
            continue;
        }
        countKind(*info, k.qualifiedName());
    }
}

void ClusterSession::countKind(const kube::ResourceInfo &info, const QString &kind)
{
    kube::HttpRequest req;
    req.path = info.collectionPath("") + "?limit=500";
    req.accept = "application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io,application/json";
    ++m_countsInFlight;
    m_client->send(std::move(req), this, [this, q = kind](core::Result<kube::HttpResponse> r) {
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
            if (n >= 0 && (q != m_shownKind || !m_shownListed)) // the watched kind counts its own rows
                m_kinds.setCount(q, n);
        });
        w->setFuture(QtConcurrent::run([body = std::move(r->body)] { return countFromPage(body); }));
    });
}

} // namespace fieldscope::app
