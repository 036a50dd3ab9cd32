#include "app/workspace.h"

#include "widgets/clusterview.h"
#include "widgets/contextswitcher.h"
#include "widgets/helpdialogs.h"
#include "widgets/mainwindow.h"
#include "widgets/resourcekindsview.h"

#include <QSettings>
#include <QtConcurrent/QtConcurrentRun>

namespace fieldscope::app {

Workspace::Workspace(widgets::MainWindow *window, QObject *parent) : QObject(parent), m_window(window)
{
    connect(window->contextSwitcher(), &widgets::ContextSwitcher::openRequested, this, [this](const QString &c) { open(c); });
    connect(window, &widgets::MainWindow::clusterCloseRequested, this, &Workspace::close);
    connect(window, &widgets::MainWindow::settingsChanged, this, &Workspace::applySettings);
    connect(&m_loading, &QFutureWatcherBase::finished, this, [this] {
        m_window->setBusy({}, false);
        const auto result = m_loading.result();
        if (!result) {
            m_window->contextSwitcher()->setContexts({});
            return;
        }
        QList<widgets::ContextEntry> entries;
        QStringList names;
        for (const auto &c : result->contexts()) {
            entries.push_back({QString::fromStdString(c.name), QString::fromStdString(c.server),
                               QString::fromStdString(c.namespace_), c.isCurrent});
            names << QString::fromStdString(c.name);
        }
        m_window->contextSwitcher()->setContexts(entries);
        for (const auto &c : m_clusters) // states of tabs opened before the list arrived
            if (auto *v = c.controller->view())
                m_window->contextSwitcher()->setState(v->contextName(), v->connectionState());
        // The switcher keeps showing the open context (MainWindow tells it which) across this.
        Q_EMIT contextsLoaded(names);
    });
}

Workspace::~Workspace()
{
    m_clusters.clear();
    m_loading.waitForFinished();
}

void Workspace::setKubeconfig(const QString &path)
{
    m_kubeconfig = path;
}

void Workspace::loadContexts()
{
    kube::LoadOptions opts;
    opts.explicitPath = m_kubeconfig.toStdString();
    m_window->setBusy(tr("Reading kubeconfig…"), true);
    m_loading.setFuture(QtConcurrent::run([opts] { return kube::Kubeconfig::load(opts); }));
}

ClusterController *Workspace::controllerFor(const QString &context) const
{
    for (const auto &c : m_clusters)
        if (c.context == context || (c.controller->view() && c.controller->view()->contextName() == context && !context.isEmpty()))
            return c.controller.get();
    return nullptr;
}

ClusterController *Workspace::open(const QString &context)
{
    if (auto *existing = controllerFor(context)) {
        m_window->setCurrentCluster(existing->view());
        return existing;
    }
    widgets::ClusterView *view = m_window->addCluster(context.isEmpty() ? tr("current context") : context);
    view->setRequestedContext(context);
    auto controller = std::make_unique<ClusterController>(view);
    ClusterController *c = controller.get();
    m_clusters.push_back({context, std::move(controller)});
    QSettings settings;
    c->kindsModel()->setFavourites(settings.value(QStringLiteral("favourites")).toStringList());
    c->setHistoryRetention(widgets::SettingsDialog::historyVersionsPerObject());
    connect(view->kindsView(), &widgets::ResourceKindsView::favouritesChanged, this, [this](const QStringList &fav) {
        QSettings().setValue(QStringLiteral("favourites"), fav);
        for (const auto &other : m_clusters) // one list for every cluster
            other.controller->kindsModel()->setFavourites(fav);
    });
    connect(view, &widgets::ClusterView::connectionChanged, this, [this, view, context] {
        const QString name = view->contextName().isEmpty() ? context : view->contextName();
        m_window->contextSwitcher()->setState(name, view->connectionState());
    });
    c->open(m_kubeconfig, context);
    Q_EMIT opened(c);
    return c;
}

ClusterController *Workspace::current() const
{
    const widgets::ClusterView *v = m_window->currentCluster();
    for (const auto &c : m_clusters)
        if (c.controller->view() == v)
            return c.controller.get();
    return nullptr;
}

void Workspace::close(widgets::ClusterView *view)
{
    for (auto it = m_clusters.begin(); it != m_clusters.end(); ++it) {
        if (it->controller->view() != view)
            continue;
        m_window->contextSwitcher()->setState(view->contextName(), {});
        m_clusters.erase(it); // stops its watches, detaches its models from the view
        m_window->tabs()->removeTab(m_window->tabs()->indexOf(view));
        view->deleteLater();
        return;
    }
}

void Workspace::applySettings()
{
    for (const auto &c : m_clusters) {
        c.controller->setHistoryRetention(widgets::SettingsDialog::historyVersionsPerObject());
        if (!c.controller->contextName().isEmpty())
            c.controller->setRecordSecretValues(widgets::SettingsDialog::recordsSecretValues(c.controller->contextName()));
    }
}

} // namespace fieldscope::app
