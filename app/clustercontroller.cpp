#include "app/clustercontroller.h"

#include "app/settingsconsentstore.h"

#include "core/json.h"
#include "widgets/clusterview.h"
#include "widgets/consentdialog.h"
#include "widgets/detailpane.h"
#include "widgets/objecttablepage.h"

#include <QApplication>
#include <QPointer>
#include <QtConcurrent/QtConcurrentRun>

#include <algorithm>

namespace fieldscope::app {

namespace {

// "Deployments", "Ingresses", "NetworkPolicies"; the plural resource name when the kind's own
// plural is not obvious.
QString pluralTitle(const kube::ResourceInfo &info)
{
    const QString kind = QString::fromStdString(info.kind), res = QString::fromStdString(info.resource);
    if (kind.isEmpty())
        return res;
    const QString lower = kind.toLower();
    if (res == lower + u's')
        return kind + u's';
    if (res == lower + QLatin1String("es"))
        return kind + QLatin1String("es");
    if (lower.endsWith(u'y') && res == lower.chopped(1) + QLatin1String("ies"))
        return kind.chopped(1) + QLatin1String("ies");
    return res;
}

models::ResourceKind toKind(const kube::ResourceInfo &r)
{
    return {QString::fromStdString(r.group), QString::fromStdString(r.version), QString::fromStdString(r.resource),
            QString::fromStdString(r.kind), r.namespaced};
}

} // namespace

ClusterController::ClusterController(widgets::ClusterView *view, QObject *parent) : QObject(parent), m_view(view)
{
    m_pool.setMaxThreadCount(1); // keeps batches in order
    connect(&m_connecting, &QFutureWatcher<core::Result<kube::Connection>>::finished, this,
            [this] { onConnected(m_connecting.result()); });
    connect(view, &widgets::ClusterView::resourceKindChosen, this, &ClusterController::showResource);
    view->setKindsModel(&m_kinds);
    view->detailPane()->setEventsModel(&m_events);
    view->detailPane()->setHistoryModel(&m_historyModel);
    connect(view->tablePage(), &widgets::ObjectTablePage::currentObjectChanged, this, &ClusterController::onCurrentObject);
}

ClusterController::~ClusterController()
{
    if (m_view) { // the view may outlive the models it shows
        m_view->setKindsModel(nullptr);
        m_view->detailPane()->setEventsModel(nullptr);
        m_view->detailPane()->setHistoryModel(nullptr);
        m_view->setObjectModel(nullptr, {}, false, {});
    }
    m_watcher.reset();
    m_eventsWatcher.reset();
    m_namespaceWatcher.reset();
    m_discovery.reset();
    m_client.reset();
    m_connecting.waitForFinished();
    m_pool.waitForDone();
}

void ClusterController::open(const QString &kubeconfigPath, const QString &context)
{
    m_view->setConnecting(tr("Connecting…"));
    kube::ConnectionOptions opts;
    opts.kubeconfigPath = kubeconfigPath.toStdString();
    opts.context = context.toStdString();
    // Exec plugins are arbitrary programs: ask once per kubeconfig file and command. Called on the
    // network thread; the dialog runs on the GUI thread while the network thread waits for it.
    // Decisions survive restarts (per kubeconfig file and command), so the prompt appears once.
    // Decisions survive restarts (per kubeconfig file and command), so the prompt appears once.
    opts.credentials.consentStore = std::make_shared<SettingsConsentStore>();
    opts.credentials.askConsent = [view = QPointer<widgets::ClusterView>(m_view)](const kube::ExecConsentRequest &req) {
        bool allowed = false;
        QMetaObject::invokeMethod(qApp, [&] {
            if (view)
                allowed = widgets::askExecPluginConsent(view, QString::fromStdString(req.kubeconfigFile),
                                                        QString::fromStdString(req.commandLine));
        }, Qt::BlockingQueuedConnection);
        return allowed ? kube::ConsentDecision::Allow : kube::ConsentDecision::Deny;
    };
    // Reading kubeconfig files (and CA/cert files) is disk I/O: off the GUI thread.
    m_connecting.setFuture(QtConcurrent::run([opts] { return kube::connect(opts); }));
}

void ClusterController::onConnected(core::Result<kube::Connection> result)
{
    if (!result) {
        const QString msg = QString::fromStdString(result.error().describe());
        m_view->setConnectionError(msg);
        Q_EMIT failed(msg);
        return;
    }
    m_connection = std::make_shared<kube::Connection>(std::move(*result));
    m_contextName = QString::fromStdString(m_connection->config.contextName);
    QStringList warnings;
    if (m_connection->config.insecureSkipTlsVerify)
        warnings << tr("TLS verification is off for this cluster");
    m_view->setConnectionWarning(warnings.join(QStringLiteral("; ")));
    m_view->setConnection(m_contextName, QString::fromStdString(m_connection->config.server), tr("…"));
    m_client = std::make_unique<kube::ApiClient>(m_connection->transport);
    m_discovery = std::make_unique<kube::Discovery>(m_client.get());
    connect(m_discovery.get(), &kube::Discovery::finished, this, &ClusterController::onDiscovered);
    connect(m_discovery.get(), &kube::Discovery::failed, this, [this](const QString &m) {
        m_view->setConnectionError(m);
        Q_EMIT failed(m);
    });
    m_view->setConnecting(tr("Discovering resource types…"));
    m_discovery->refresh();
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
    m_kinds.setKinds(std::move(kinds));
    fetchCounts();
    watchNamespaces();
    showResource(m_wantedResource);
}

// One metadata-only LIST page per kind (API brief 2.8): the count is the page's items when the
// page is the whole list, or the page plus the server's remainingItemCount when it sends one
// (1.20 does not for every storage). Larger kinds stay unknown until watched. The page is decoded
// on a worker thread.
namespace {
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

void ClusterController::fetchCounts()
{
    for (const auto &k : m_kinds.kinds()) {
        const auto *info = m_discovery->snapshot().find(k.group.toStdString(), k.resource.toStdString());
        if (!info)
            continue;
        kube::HttpRequest req;
        req.path = info->collectionPath("") + "?limit=500";
        req.accept = "application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io,application/json";
        const QString q = k.qualifiedName();
        m_client->send(std::move(req), this, [this, q](core::Result<kube::HttpResponse> r) {
            if (!r)
                return;
            auto *w = new QFutureWatcher<qint64>(this);
            connect(w, &QFutureWatcherBase::finished, this, [this, w, q] {
                w->deleteLater();
                const qint64 n = w->result();
                if (n >= 0 && (q != m_shownKind || !m_loaded)) // the watched kind counts its own rows
                    m_kinds.setCount(q, n);
            });
            w->setFuture(QtConcurrent::run([body = std::move(r->body)] { return countFromPage(body); }));
        });
    }
}

void ClusterController::watchNamespaces()
{
    const auto *info = m_discovery->snapshot().resolve("namespaces");
    if (!info)
        return;
    kube::WatchScope scope;
    scope.resource = *info;
    m_namespaceWatcher = std::make_unique<kube::Watcher>(m_client.get(), scope);
    connect(m_namespaceWatcher.get(), &kube::Watcher::batchReady, this, [this](const core::WatchBatch &b) {
        for (const auto &e : b.events) {
            if (e.type == core::WatchEventType::Deleted)
                m_namespaceNames.remove(QString::fromStdString(e.name));
            else
                m_namespaceNames.insert(QString::fromStdString(e.name));
        }
        m_view->tablePage()->setAvailableNamespaces(m_namespaceNames.values());
    });
    m_namespaceWatcher->start();
}

void ClusterController::showResource(const QString &resource)
{
    m_wantedResource = resource;
    if (!m_discovery || !m_discovery->hasSnapshot())
        return;
    const auto *info = m_discovery->snapshot().resolve(resource.toStdString());
    if (!info) {
        m_view->setWatchStatus(tr("The server has no resource type \"%1\"").arg(resource), false);
        Q_EMIT failed(tr("The server has no resource type \"%1\"").arg(resource));
        return;
    }
    const QString qualified = QString::fromStdString(info->qualifiedName());
    if (qualified == m_shownKind && m_watcher)
        return;
    ++m_generation;
    m_preparing.clear();
    m_loaded = false;
    m_shownKind = qualified;
    m_watcher.reset();
    onCurrentObject({});
    m_history.clear();
    m_model.clear();
    kube::WatchScope scope;
    scope.resource = *info;
    m_watcher = std::make_unique<kube::Watcher>(m_client.get(), scope);
    connect(m_watcher.get(), &kube::Watcher::batchReady, this, &ClusterController::onBatch);
    connect(m_watcher.get(), &kube::Watcher::stateChanged, this, &ClusterController::updateStatus);
    connect(m_watcher.get(), &kube::Watcher::listProgress, this, &ClusterController::updateStatus);
    m_view->setObjectModel(&m_model, pluralTitle(*info), info->namespaced, qualified);
    m_view->setCurrentKind(qualified);
    m_watcher->start();
    updateStatus();
}

void ClusterController::onBatch(const core::WatchBatch &batch)
{
    const int gen = m_generation;
    m_preparing.push_back(QtConcurrent::run(&m_pool, [batch] { return models::ObjectTableModel::prepare(batch); }));
    auto *w = new QFutureWatcher<models::PreparedBatch>(this);
    connect(w, &QFutureWatcherBase::finished, this, [this, w, gen] {
        w->deleteLater();
        drainPrepared(gen);
    });
    w->setFuture(m_preparing.back());
}

void ClusterController::drainPrepared(int generation)
{
    if (generation != m_generation)
        return;
    bool completed = false;
    std::vector<std::string> touched;
    while (!m_preparing.empty() && m_preparing.front().isFinished()) {
        models::PreparedBatch p = m_preparing.front().takeResult();
        m_preparing.pop_front();
        completed |= p.batch.initialListComplete;
        m_history.record(p.batch);
        for (const auto &e : p.batch.events)
            if (!m_currentUid.isEmpty() && e.uid == m_currentUid.toStdString())
                touched.push_back(e.uid);
        m_model.applyPrepared(std::move(p));
    }
    refreshDetail(touched);
    if (m_loaded || completed)
        m_kinds.setCount(m_shownKind, m_model.rowCount());
    if (completed && !m_loaded) {
        m_loaded = true;
        Q_EMIT loaded();
    }
    updateStatus();
}

// The detail pane follows the table's current object; its events come from a watch on core/v1
// events with fieldSelector involvedObject.uid (events about one object, API brief 2.1).
void ClusterController::onCurrentObject(const QString &uid)
{
    if (uid == m_currentUid)
        return;
    m_currentUid = uid;
    m_eventsWatcher.reset();
    m_events.clear();
    const int row = uid.isEmpty() ? -1 : m_model.rowOf(uid.toStdString());
    m_view->detailPane()->showObject(row < 0 ? QString() : uid, row < 0 ? QByteArray() : m_model.objectJson(row));
    m_historyModel.setVersions(uid.toStdString(), uid.isEmpty() ? std::vector<models::SeenVersion>{} : m_history.versions(uid.toStdString()));
    const auto *info = m_discovery && !uid.isEmpty() ? m_discovery->snapshot().find("", "events") : nullptr;
    if (!info)
        return;
    kube::WatchScope scope;
    scope.resource = *info;
    scope.namespace_ = row < 0 ? std::string() : m_model.row(row).namespace_;
    scope.fieldSelector = "involvedObject.uid=" + uid.toStdString();
    kube::WatcherOptions opts;
    opts.tryWatchList = false;
    m_eventsWatcher = std::make_unique<kube::Watcher>(m_client.get(), scope, opts);
    connect(m_eventsWatcher.get(), &kube::Watcher::batchReady, &m_events, &models::EventTableModel::applyBatch);
    connect(m_eventsWatcher.get(), &kube::Watcher::stateChanged, this, &ClusterController::updateStatus);
    m_eventsWatcher->start();
}

void ClusterController::refreshDetail(const std::vector<std::string> &touched)
{
    if (touched.empty())
        return;
    const int row = m_model.rowOf(m_currentUid.toStdString());
    if (row >= 0)
        m_view->detailPane()->showObject(m_currentUid, m_model.objectJson(row));
    m_historyModel.setVersions(m_currentUid.toStdString(), m_history.versions(m_currentUid.toStdString()));
}

void ClusterController::updateStatus()
{
    if (!m_watcher)
        return;
    using S = kube::Watcher::State;
    const QString what = QString::fromStdString(m_watcher->scope().describe());
    QString text;
    bool busy = false;
    switch (m_watcher->state()) {
    case S::Idle: text = tr("%1: idle").arg(what); break;
    case S::Listing: text = tr("%1: listing… %2 objects").arg(what).arg(m_model.rowCount()); busy = true; break;
    case S::Relisting: text = tr("%1: resyncing…").arg(what); busy = true; break;
    case S::Watching: text = tr("%1: live · %2 objects · resourceVersion %3").arg(what).arg(m_model.rowCount()).arg(QString::fromStdString(m_watcher->lastResourceVersion())); break;
    case S::BackingOff: text = tr("%1: backing off (%2)").arg(what, m_watcher->stateDetail()); break;
    case S::Failed: text = tr("%1: failed: %2").arg(what, m_watcher->stateDetail()); break;
    }
    m_view->setWatchStatus(text, busy);
}

} // namespace fieldscope::app
