#include "app/clustercontroller.h"

#include "widgets/consentdialog.h"
#include "widgets/mainwindow.h"

#include <QApplication>
#include <QtConcurrent/QtConcurrentRun>

#include <algorithm>

namespace fieldscope::app {

ClusterController::ClusterController(widgets::MainWindow *window, QObject *parent)
    : QObject(parent), m_window(window)
{
    connect(&m_connecting, &QFutureWatcher<core::Result<kube::Connection>>::finished, this,
            [this] { onConnected(m_connecting.result()); });
    connect(window, &widgets::MainWindow::resourceKindChosen, this, &ClusterController::showResource);
}

ClusterController::~ClusterController()
{
    m_watcher.reset();
    m_discovery.reset();
    m_client.reset();
    m_connecting.waitForFinished();
}

void ClusterController::open(const QString &kubeconfigPath, const QString &context)
{
    m_window->setConnecting(tr("Connecting…"));
    kube::ConnectionOptions opts;
    opts.kubeconfigPath = kubeconfigPath.toStdString();
    opts.context = context.toStdString();
    // Exec plugins are arbitrary programs: ask once per kubeconfig file and command. Called on the
    // network thread; the dialog runs on the GUI thread while the network thread waits for it.
    opts.credentials.askConsent = [window = QPointer<widgets::MainWindow>(m_window)](const kube::ExecConsentRequest &req) {
        bool allowed = false;
        QMetaObject::invokeMethod(qApp, [&] {
            if (window)
                allowed = widgets::askExecPluginConsent(window, QString::fromStdString(req.kubeconfigFile),
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
        m_window->setConnectionError(msg);
        Q_EMIT failed(msg);
        return;
    }
    m_connection = std::make_shared<kube::Connection>(std::move(*result));
    m_contextName = QString::fromStdString(m_connection->config.contextName);
    QStringList warnings;
    if (m_connection->config.insecureSkipTlsVerify)
        warnings << tr("TLS verification is off for this cluster");
    m_window->setConnectionWarning(warnings.join(QStringLiteral("; ")));
    m_window->setConnection(m_contextName, QString::fromStdString(m_connection->config.server), tr("…"));
    m_client = std::make_unique<kube::ApiClient>(m_connection->transport);
    m_discovery = std::make_unique<kube::Discovery>(m_client.get());
    connect(m_discovery.get(), &kube::Discovery::finished, this, &ClusterController::onDiscovered);
    connect(m_discovery.get(), &kube::Discovery::failed, this, [this](const QString &m) {
        m_window->setConnectionError(m);
        Q_EMIT failed(m);
    });
    m_window->setConnecting(tr("Discovering resource types…"));
    m_discovery->refresh();
}

void ClusterController::onDiscovered()
{
    const auto &snap = m_discovery->snapshot();
    m_window->setConnection(m_contextName, QString::fromStdString(m_connection->config.server),
                            QString::fromStdString(snap.serverVersion));
    QStringList kinds;
    for (const auto &r : snap.resources)
        if (r.preferred && r.supports("list") && r.supports("watch"))
            kinds << QString::fromStdString(r.qualifiedName());
    std::sort(kinds.begin(), kinds.end());
    kinds.removeDuplicates();
    const auto *wanted = snap.resolve(m_wantedResource.toStdString());
    m_window->setResourceKinds(kinds, wanted ? QString::fromStdString(wanted->qualifiedName()) : QString());
    showResource(m_wantedResource);
}

void ClusterController::showResource(const QString &resource)
{
    m_wantedResource = resource;
    if (!m_discovery || !m_discovery->hasSnapshot())
        return;
    const auto *info = m_discovery->snapshot().resolve(resource.toStdString());
    if (!info) {
        m_window->setWatchStatus(tr("The server has no resource type \"%1\"").arg(resource), false);
        return;
    }
    m_watcher.reset();
    m_model.clear();
    kube::WatchScope scope;
    scope.resource = *info;
    m_watcher = std::make_unique<kube::Watcher>(m_client.get(), scope);
    connect(m_watcher.get(), &kube::Watcher::batchReady, this, [this](const core::WatchBatch &b) {
        m_model.applyBatch(b);
        if (b.initialListComplete)
            Q_EMIT loaded();
        updateStatus();
    });
    connect(m_watcher.get(), &kube::Watcher::stateChanged, this, &ClusterController::updateStatus);
    connect(m_watcher.get(), &kube::Watcher::listProgress, this, &ClusterController::updateStatus);
    m_window->setObjectModel(&m_model, QString::fromStdString(info->kind.empty() ? info->resource : info->kind + "s"), info->namespaced);
    m_watcher->start();
    updateStatus();
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
    m_window->setWatchStatus(text, busy);
}

} // namespace fieldscope::app
