#include "app/gui/workspace.h"

#include "app/services/backgroundrecording.h"
#include "app/services/historysource.h"
#include "app/services/settings.h"
#include "app/services/settingsconsentstore.h"
#include "core/base/boundary.h"
#include "kube/execconsent.h"
#include "widgets/clusterview.h"
#include "widgets/consentdecisionsview.h"
#include "widgets/contextswitcher.h"
#include "widgets/mainwindow.h"
#include "widgets/resourcekindsview.h"
#include "widgets/settingsdialog.h"

#include <QFutureWatcher>
#include <QLocale>
#include <QProcess>
#include <QtConcurrent/QtConcurrentRun>

namespace fieldscope::app {

namespace {

// Settings lists what `fieldscope consent list` lists, from the same store, and forgets the same way.
void showConsentDecisions(widgets::ConsentDecisionsView *view)
{
    auto fill = [view] {
        QList<widgets::ConsentDecisionRow> rows;
        for (const auto &r : SettingsConsentStore().decisions())
            rows.push_back({QString::fromStdString(r.fingerprint), r.allowed,
                            QString::fromStdString(kube::visibleEscapes(r.kubeconfigFile)),
                            QString::fromStdString(kube::visibleEscapes(r.contextName)),
                            QString::fromStdString(kube::visibleEscapes(r.program)),
                            QString::fromStdString(kube::visibleEscapes(r.server)), r.when});
        view->setDecisions(rows);
    };
    QObject::connect(view, &widgets::ConsentDecisionsView::forgetRequested, view, [fill](const QStringList &ids) {
        SettingsConsentStore store;
        for (const QString &id : ids)
            store.forget(id.toStdString());
        fill();
    });
    fill();
}

} // namespace

Workspace::Workspace(widgets::MainWindow *window, QObject *parent) : QObject(parent), m_window(window)
{
    connect(window->contextSwitcher(), &widgets::ContextSwitcher::openRequested, this,
            [this](const QString &c) { open(c); });
    connect(window, &widgets::MainWindow::clusterCloseRequested, this, &Workspace::close);
    connect(window, &widgets::MainWindow::newObjectRequested, this, [this](widgets::ClusterView *view) {
        for (const auto &c : m_clusters)
            if (c.controller->view() == view)
                c.controller->openNewObject();
    });
    connect(window, &widgets::MainWindow::settingsOpened, this, [this](widgets::SettingsDialog *d) {
        fillSettings(d);
        showConsentDecisions(d->consentDecisions());
        showBackgroundRecording(d);
        offerSharedHistoryTest(d);
        connect(d, &widgets::SettingsDialog::backgroundRecordingRequested, this,
                [this, d = QPointer<widgets::SettingsDialog>(d)](const QString &context, bool on,
                                                                 const QString &resources) {
                    // The recorder reads what it records from the settings when it starts.
                    if (on)
                        if (const QString why = Settings::setBackgroundResources(resources); !why.isEmpty()) {
                            d->setBackgroundRecordingStatus(why);
                            return;
                        }
                    runSystemctl(d, context, on);
                });
        connect(d, &widgets::SettingsDialog::settingsAccepted, this,
                [this, identity = d->cluster().identity](const widgets::SettingsValues &v) {
                    saveSettings(v, identity);
                });
    });
    connect(&m_loading, &QFutureWatcherBase::finished, this, [this] {
        m_window->setBusy({}, false);
        const auto result = core::readResult(m_loading.future(), "reading kubeconfig");
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
        if (c.context == context
            || (c.controller->view() && c.controller->view()->contextName() == context && !context.isEmpty()))
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
    c->kindsModel()->setFavourites(Settings::favourites());
    c->setHistoryRetention(Settings::historyVersionsPerObject());
    connect(view->kindsView(), &widgets::ResourceKindsView::favouritesChanged, this, [this](const QStringList &fav) {
        Settings::setFavourites(fav);
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

void Workspace::showBackgroundRecording(widgets::SettingsDialog *d) const
{
    ClusterController *c = current();
    if (!c || c->historyDatabase().isEmpty())
        return;
    const auto &r = c->backgroundRecorder(); // as last checked (every 30 s, off the GUI thread)
    d->setBackgroundRecordingStatus(r ? tr("Recording %1 in the background since %2 (process %3).")
                                            .arg(r->resources,
                                                 QLocale().toString(r->since.toLocalTime(), QLocale::ShortFormat))
                                            .arg(r->pid)
                                      : tr("Not recorded while no window is open."));
}

namespace {

QString describeBackend(const core::HistoryStore::Backend &b, bool storeExists)
{
    QString text = QObject::tr("Connected: %1 %2 as %3. ")
                       .arg(QString::fromStdString(b.kind), QString::fromStdString(b.serverVersion),
                            QString::fromStdString(b.user));
    text += storeExists ? QObject::tr("This cluster's history is there (schema %1). ").arg(b.schemaVersion)
                        : QObject::tr("Nothing of this cluster is recorded there yet. ");
    text += b.mayWrite ? QObject::tr("This role may record into it.")
                       : QObject::tr("This role may only read: the window shows the team's history and records "
                                     "nothing.");
    return text;
}

} // namespace

void Workspace::offerSharedHistoryTest(widgets::SettingsDialog *d)
{
    d->setSharedUrlCheck([](const QString &url) { return Settings::checkSharedHistoryUrl(url); });
    connect(d, &widgets::SettingsDialog::sharedStoreTestRequested, this,
            [this, d = QPointer<widgets::SettingsDialog>(d)](const QString &url) {
                const std::string identity = d->cluster().identity.toStdString();
                auto *w = new QFutureWatcher<core::Result<core::HistoryStore::Backend>>(this);
                connect(w, &QFutureWatcherBase::finished, this, [w, d] {
                    w->deleteLater();
                    if (!d)
                        return;
                    auto taken = core::takeResult(w->future(), "testing the shared history");
                    auto result = taken ? std::move(*taken) : core::Result<core::HistoryStore::Backend>(taken.error());
                    d->setSharedStoreTestResult(
                        result ? describeBackend(*result, result->schemaVersion > 0)
                               : tr("Cannot use it: %1").arg(QString::fromStdString(result.error().describe())));
                });
                w->setFuture(QtConcurrent::run([url = url.toStdString(), identity] {
                    return core::HistoryStore::probe(url, identity);
                }));
            });
}

// systemctl --user enable|disable --now fieldscope-record@CONTEXT.service, without waiting.
void Workspace::runSystemctl(const QPointer<widgets::SettingsDialog> &d, const QString &context, bool on)
{
    const QString unit = QStringLiteral("fieldscope-record@%1.service").arg(systemdInstanceName(context));
    const QStringList args{QStringLiteral("--user"), on ? QStringLiteral("enable") : QStringLiteral("disable"),
                           QStringLiteral("--now"), unit};
    auto *p = new QProcess(this);
    p->setProcessChannelMode(QProcess::MergedChannels);
    connect(p, &QProcess::finished, this, [p, d, on, unit](int code, QProcess::ExitStatus status) {
        p->deleteLater();
        const QString out = QString::fromLocal8Bit(p->readAll()).trimmed();
        if (!d)
            return;
        if (status == QProcess::NormalExit && code == 0) {
            d->setBackgroundRecordingStatus(
                on ? tr("Started %1; it also starts at every login. The window shows it within 30 s.").arg(unit)
                   : tr("Stopped and disabled %1.").arg(unit));
            return;
        }
        d->setBackgroundRecordingStatus(
            tr("systemctl failed: %1").arg(out.isEmpty() ? tr("exit code %1").arg(code) : out));
    });
    connect(p, &QProcess::errorOccurred, this, [p, d, context](QProcess::ProcessError e) {
        if (e != QProcess::FailedToStart)
            return;
        p->deleteLater();
        if (d)
            d->setBackgroundRecordingStatus(
                tr("There is no systemctl here (no systemd user session). Run the recorder yourself: "
                   "fieldscope record --store --context %1")
                    .arg(context));
    });
    d->setBackgroundRecordingStatus(tr("Running systemctl --user %1…").arg(args.join(u' ').section(u' ', 1)));
    p->start(QStringLiteral("systemctl"), args);
}

void Workspace::fillSettings(widgets::SettingsDialog *d) const
{
    widgets::SettingsValues v;
    v.versionsPerObject = Settings::historyVersionsPerObject();
    v.minVersionsPerObject = Settings::kMinVersionsPerObject;
    v.maxVersionsPerObject = Settings::kMaxVersionsPerObject;
    v.fieldManager = Settings::fieldManager();
    v.recordSecretValues = Settings::recordsSecretValues(d->cluster().identity);
    v.backgroundResources = Settings::backgroundResources();
    v.sharedHistoryUrl = Settings::sharedHistoryUrl();
    d->setValues(v);
    // OK closes the dialog only on values the service keeps: nothing is half saved.
    d->setValuesCheck([](const widgets::SettingsValues &values) {
        for (const QString &why :
             {values.fieldManager.isEmpty() ? QString() : Settings::checkFieldManager(values.fieldManager),
              values.backgroundResources.isEmpty() ? QString()
                                                   : Settings::checkBackgroundResources(values.backgroundResources),
              Settings::checkSharedHistoryUrl(values.sharedHistoryUrl)})
            if (!why.isEmpty())
                return why;
        return QString();
    });
}

void Workspace::saveSettings(const widgets::SettingsValues &v, const QString &clusterIdentity)
{
    Settings::setHistoryVersionsPerObject(v.versionsPerObject);
    // An emptied name goes back to the default, as an emptied resource list keeps the last one.
    Settings::setFieldManager(v.fieldManager.isEmpty() ? QString::fromLatin1(Settings::kDefaultFieldManager)
                                                       : v.fieldManager);
    if (!v.backgroundResources.isEmpty())
        Settings::setBackgroundResources(v.backgroundResources);
    Settings::setSharedHistoryUrl(v.sharedHistoryUrl);
    if (!clusterIdentity.isEmpty())
        Settings::setRecordsSecretValues(clusterIdentity, v.recordSecretValues);
    applySettings();
}

void Workspace::applySettings()
{
    for (const auto &c : m_clusters) {
        c.controller->setHistoryRetention(Settings::historyVersionsPerObject());
        if (!c.controller->clusterIdentity().isEmpty())
            c.controller->setRecordSecretValues(Settings::recordsSecretValues(c.controller->clusterIdentity()));
        c.controller->updateHistoryLocation();
    }
}

} // namespace fieldscope::app
