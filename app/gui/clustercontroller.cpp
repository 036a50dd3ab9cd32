#include "app/gui/clustercontroller.h"

#include "app/gui/objecteditor.h"
#include "app/services/auditlogthread.h"
#include "app/services/backgroundrecording.h"
#include "app/services/settings.h"
#include "app/services/settingsconsentstore.h"
#include "core/base/boundary.h"
#include "core/base/json.h"
#include "kube/writes.h"
#include "widgets/clusterview.h"
#include "widgets/consentdialog.h"
#include "widgets/detailpane.h"
#include "widgets/newobjectwindow.h"
#include "widgets/objecttablepage.h"
#include "widgets/plaintext.h"

#include <QApplication>
#include <QLocale>
#include <QPointer>
#include <QStandardPaths>
#include <QTimer>
#include <QtConcurrent/QtConcurrentRun>

#include <algorithm>

namespace fieldscope::app {

namespace {

// "Deployments", "Ingresses", "NetworkPolicies"; the plural resource name when the kind's own
// plural is not obvious.
QString pluralTitle(const kube::ResourceInfo &info)
{
    const QString kind = QString::fromStdString(info.kind);
    QString res = QString::fromStdString(info.resource);
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

} // namespace

ClusterController::ClusterController(widgets::ClusterView *view, QObject *parent) : QObject(parent), m_view(view)
{
    m_pool.setMaxThreadCount(1);       // keeps batches in order
    m_recordPool.setMaxThreadCount(1); // and their recording
    // Finished batches are applied from one zero timer: several finishing in one event-loop turn
    // share that turn's budget instead of taking one each (a LIST page is prepared in slices).
    m_drainTimer.setSingleShot(true);
    m_drainTimer.setInterval(0);
    connect(&m_drainTimer, &QTimer::timeout, this, [this] { drainPrepared(m_generation); });
    m_memoryTimer.setInterval(1000);
    connect(&m_memoryTimer, &QTimer::timeout, this, &ClusterController::returnMemoryIfSettled);
    connect(&m_connecting, &QFutureWatcher<core::Result<kube::Connection>>::finished, this,
            [this] { onConnected(core::readResult(m_connecting.future(), "connecting")); });
    connect(view, &widgets::ClusterView::resourceKindChosen, this, &ClusterController::showResource);
    view->setKindsModel(&m_kinds);
    view->detailPane()->setEventsModel(&m_events);
    view->detailPane()->setHistoryModel(&m_historyModel);
    connect(view->tablePage(), &widgets::ObjectTablePage::currentObjectChanged, this,
            &ClusterController::onCurrentObject);
    view->detailPane()->setEditable(true);
    connect(view->detailPane(), &widgets::DetailPane::editRequested, this, &ClusterController::openEditor);
    connect(view->detailPane(), &widgets::DetailPane::deleteRequested, this,
            [this](const QString &uid) { deleteObject(uid, true); });
    connect(view->detailPane(), &widgets::DetailPane::setIfUnchangedRequested, this,
            &ClusterController::askSetIfUnchanged);
}

ClusterController::~ClusterController()
{
    closeEditors();
    if (m_view) { // the view may outlive the models it shows
        m_view->setKindsModel(nullptr);
        m_view->detailPane()->setEventsModel(nullptr);
        m_view->detailPane()->setHistoryModel(nullptr);
        m_view->setObjectModel(nullptr, {}, false, {});
    }
    m_tableFetcher.reset();
    m_watcher.reset();
    m_eventsWatcher.reset();
    m_namespaceWatcher.reset();
    m_discovery.reset();
    m_client.reset();
    m_connecting.waitForFinished();
    m_pool.waitForDone();
    letGoOfRecorder();
    m_recordPool.waitForDone();
}

// The recording thread must not wait for a recorder nobody holds any more: what it still has
// for it is recorded without waiting, or becomes the overflow gap.
void ClusterController::letGoOfRecorder()
{
    if (m_recordBacklog)
        m_recordBacklog->closing = true;
    if (m_recorder)
        m_recorder->setWaitingForRoom(false);
}

void ClusterController::open(const QString &kubeconfigPath, const QString &context)
{
    m_view->setConnecting(tr("Connecting…"));
    kube::ConnectionOptions opts;
    opts.kubeconfigPath = kubeconfigPath.toStdString();
    opts.context = context.toStdString();
    // Exec plugins are arbitrary programs: ask before the first run of each exact invocation
    // (fingerprint: file, context, user, server, command, arguments, env, provideClusterInfo).
    // Called on the network thread, which must not wait: the question is posted to the GUI thread
    // and answered whenever the user gets to it; meanwhile the credential is pending and other
    // requests go on. Decisions are shared with the command line and survive restarts.
    opts.credentials.consentStore = std::make_shared<SettingsConsentStore>();
    opts.credentials.askConsent = [view = QPointer<widgets::ClusterView>(m_view)](const kube::ExecConsentRequest &req,
                                                                                  kube::ConsentReply reply) {
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
    if (m_connection->config.insecureSkipTlsVerify)
        m_warnings << tr("TLS verification is off for this cluster");
    m_clusterIdentity = QString::fromStdString(clusterIdentityOf(m_connection->config));
    m_view->setClusterIdentity(m_clusterIdentity, QString::fromStdString(m_connection->config.server));
    m_recordSecretValues = m_recordSecretValues || Settings::recordsSecretValues(m_clusterIdentity);
    askAboutLegacySecretOptIn();
    startRecording();
    showWarnings();
    m_view->setConnection(m_contextName, QString::fromStdString(m_connection->config.server), tr("…"));
    m_client = std::make_unique<kube::ApiClient>(m_connection->transport);
    startDiscovery();
}

bool ClusterController::isSettled() const
{
    using S = kube::TableFetcher::State;
    const bool columnsSettled = !m_tableFetcher
                             || (m_tableFetcher->state() != S::Idle && m_tableFetcher->state() != S::Listing);
    return m_loaded && columnsSettled && m_countsPending == 0;
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
    followHealth(m_namespaceWatcher.get(), true);
    m_namespaceWatcher->start();
}

// An opt-in an earlier version kept for the context name is no consent for whichever cluster the
// name reaches now: the user says once whether it holds for this one; the old key then goes.
void ClusterController::askAboutLegacySecretOptIn()
{
    if (!Settings::hadLegacySecretValuesOptIn(m_contextName))
        return;
    if (m_recordSecretValues) { // already chosen for this cluster: nothing to ask
        Settings::removeLegacySecretValuesOptIn(m_contextName);
        return;
    }
    widgets::askKeepRecordingSecretValues(m_view, m_contextName, QString::fromStdString(m_connection->config.server),
                                          [self = QPointer<ClusterController>(this), context = m_contextName,
                                           identity = m_clusterIdentity](bool keep) {
                                              Settings::setRecordsSecretValues(identity, keep);
                                              Settings::removeLegacySecretValuesOptIn(context);
                                              if (self && self->m_clusterIdentity == identity)
                                                  self->setRecordSecretValues(keep);
                                          });
}

// One database per cluster (two kubeconfigs' `default` contexts may be two clusters), keyed and
// stamped with the cluster's identity; the recorder opens it on its own writer thread.
void ClusterController::startRecording()
{
    core::HistoryRecorder::Options ro;
    const std::string identity = clusterIdentityOf(m_connection->config);
    // Settings may keep histories in the team's PostgreSQL store: the same for reading and recording.
    m_historyDatabase = historyLocationFor(m_contextName, identity);
    ro.path = m_historyDatabase.toStdString();
    ro.open.clusterIdentity = identity;
    ro.open.clusterLabel = m_connection->config.server;
    ro.open.recordSecretValues = m_recordSecretValues;
    ro.open.folderIsPrivate = true;
    ro.open.recorderName = recorderNameFor("window");
    ro.browseReadOnlyStore = true; // a teammate whose role may only read still browses
    if (!isSharedHistoryLocation(m_historyDatabase))
        ro.adoptFrom = legacyHistoryDatabasesFor(m_contextName);
    ro.retention.maxVersionsPerObject = m_historyVersionsPerObject;
    // m_recordPool's thread waits out a list's burst; what waits there shares its bytes with the
    // table, so the queue of copies can stay small (bench_window: 150,000 Pods, RSS).
    ro.maxWaitForRoomMs = kRecordWaitForRoomMs;
    ro.maxQueuedBytes = 64ll << 20;
    letGoOfRecorder();
    m_recorder = core::HistoryRecorder::makeShared(ro); // a replaced or closed one drains on its own thread
    m_recordBacklog = std::make_shared<RecordBacklog>();
    connect(m_recorder.get(), &core::HistoryRecorder::committed, &m_historySource, &HistorySource::onCommitted,
            Qt::QueuedConnection);
    connect(
        m_recorder.get(), &core::HistoryRecorder::writeFailed, this,
        [this](const QString &message) {
            m_errors << tr("History recording is failing (the lost stretch is marked as a gap): %1").arg(message);
            m_errors.removeDuplicates();
            showWarnings();
        },
        Qt::QueuedConnection);
    m_historySource.setDatabase(m_historyDatabase);
    startAuditLog();
    updateBackgroundRecording();
    if (!m_backgroundCheck.isActive()) {
        connect(&m_backgroundCheck, &QTimer::timeout, this, &ClusterController::updateBackgroundRecording,
                Qt::UniqueConnection);
        m_backgroundCheck.start(30'000);
    }
}

void ClusterController::followAuditLog(const QString &path)
{
    m_auditLogPath = path;
    startAuditLog();
}

void ClusterController::receiveAuditWebhook(const AuditWebhookOptions &options)
{
    m_auditWebhook = options;
}

void ClusterController::startAuditLog()
{
    if (m_auditLogPath.isEmpty() || !m_recorder || m_auditLog || m_historyDatabase.isEmpty())
        return;
    core::HistoryOpenOptions options;
    options.clusterIdentity = m_clusterIdentity.toStdString();
    options.clusterLabel = m_connection->config.server;
    options.recordSecretValues = m_recordSecretValues;
    options.folderIsPrivate = true;
    // The follower opens the database only once the recorder has committed (it exists and is open
    // then): two connections creating the same database at once can fail the recorder's open.
    std::weak_ptr<core::HistoryRecorder> recorder = m_recorder;
    m_auditLog = std::make_unique<AuditLogThread>(
        m_historyDatabase.toStdString(), options, m_auditLogPath.toStdString(),
        [recorder] {
            const auto r = recorder.lock();
            return r && r->counters().transactions > 0;
        },
        m_auditWebhook);
    connect(m_auditLog.get(), &AuditLogThread::stored, &m_historySource, &HistorySource::reload);
    connect(m_auditLog.get(), &AuditLogThread::failing, this, [this](const QString &message) {
        m_warnings << tr("Who made each change is not known: the audit log %1 cannot be followed: %2")
                          .arg(widgets::visibleText(m_auditLogPath), widgets::visibleText(message));
        m_warnings.removeDuplicates();
        showWarnings();
    });
}

void ClusterController::recordReplay(const core::WatchScope &scope, std::vector<core::WatchEvent> events)
{
    if (m_recorder)
        m_recorder->recordReplay(scope, std::move(events));
}

// fieldscope-record@.service records into the same store: say so, and since when.
void ClusterController::updateBackgroundRecording()
{
    if (!m_view || m_historyDatabase.isEmpty())
        return;
    // A file read and a kill(pid, 0): small, but disk all the same, so not on the GUI thread.
    auto *watcher = new QFutureWatcher<std::optional<BackgroundRecorder>>(this);
    connect(watcher, &QFutureWatcherBase::finished, this, [this, watcher] {
        watcher->deleteLater();
        // A failed check shows what the last one found.
        if (auto found = core::takeResult(watcher->future(), "checking for the background recorder"))
            m_backgroundRecorder = std::move(*found);
        showBackgroundRecording();
    });
    watcher->setFuture(QtConcurrent::run([db = m_historyDatabase] { return runningBackgroundRecorder(db); }));
}

void ClusterController::showBackgroundRecording()
{
    if (!m_view)
        return;
    const auto &recorder = m_backgroundRecorder;
    if (!recorder) {
        m_view->setBackgroundRecording(QString(), QString());
        return;
    }
    const QDateTime since = recorder->since.toLocalTime();
    const QString when = since.date() == QDate::currentDate() ? QLocale().toString(since.time(), QLocale::ShortFormat)
                                                              : QLocale().toString(since, QLocale::ShortFormat);
    m_view->setBackgroundRecording(
        tr("Background recording since %1").arg(when),
        tr("fieldscope record (process %1) records %2 of this cluster into the history the window shows, "
           "also while no window is open.")
            .arg(recorder->pid)
            .arg(recorder->resources));
}

void ClusterController::showWarnings()
{
    if (!m_view)
        return;
    QStringList shown = m_warnings;
    if (m_recordSecretValues)
        shown.prepend(tr("Secret values are recorded for this cluster"));
    shown = m_errors + shown;
    m_view->setShownErrors(m_errors);
    m_view->setConnectionWarning(shown.join(QStringLiteral("; ")));
}

void ClusterController::setRecordSecretValues(bool on)
{
    if (on == m_recordSecretValues)
        return;
    m_recordSecretValues = on;
    if (!m_connection)
        return; // applies when connected
    showWarnings();
    // A new recorder with the new choice; the shown watch starts again so its feed begins with a
    // list (batches already queued go to the old recorder, which drains and closes).
    startRecording();
    restartShownWatch();
}

void ClusterController::updateHistoryLocation()
{
    if (!m_connection || m_historyDatabase.isEmpty()
        || historyLocationFor(m_contextName, m_clusterIdentity.toStdString()) == m_historyDatabase)
        return;
    m_auditLog.reset(); // it writes to the old store; startRecording() starts one for the new
    startRecording();
    restartShownWatch(); // the new store begins with a list
}

// Loaded: the shown resource's first list is in the table and the server's resource types are
// known. The rows may come first (the watch starts as soon as discovery can name the resource);
// what follows `loaded` (the demo namespace, lessons, screenshots) resolves other types too.
void ClusterController::noteLoaded()
{
    if (m_loaded || !m_listed || !m_discovery || !m_discovery->hasSnapshot())
        return;
    m_loaded = true;
    Q_EMIT loaded();
}

// The shown watch starts again (its feed goes to the recorder just made). It may have started
// before discovery finished (showResolved from a decided name), so restart what it shows.
void ClusterController::restartShownWatch()
{
    if (!m_watcher || !m_shownInfo)
        return;
    m_shownKind.clear();
    showResolved(kube::ResourceInfo(*m_shownInfo));
}

void ClusterController::showResource(const QString &resource)
{
    m_wantedResource = resource;
    if (!m_discovery || !m_discovery->hasSnapshot())
        return; // onDiscoveryProgress() shows it as soon as discovery can tell what it is
    const auto *info = m_discovery->snapshot().resolve(resource.toStdString());
    if (!info && m_discovery->isRunning()) {
        // The snapshot came from the cache; the server, asked now, may know the type.
        m_view->setWatchStatus(tr("Looking for resource type \"%1\"…").arg(resource), false);
        return;
    }
    if (!info) {
        m_view->setWatchStatus(tr("The server has no resource type \"%1\"").arg(resource), false);
        Q_EMIT failed(tr("The server has no resource type \"%1\"").arg(resource));
        return;
    }
    showResolved(*info);
}

void ClusterController::showResolved(const kube::ResourceInfo &resolved)
{
    // A copy on purpose: `resolved` may live in the discovery snapshot a refresh below replaces.
    const kube::ResourceInfo copy = resolved; // NOLINT(performance-unnecessary-copy-initialization)
    const kube::ResourceInfo *info = &copy;
    m_shownInfo = copy;
    const QString qualified = QString::fromStdString(info->qualifiedName());
    if (qualified == m_shownKind && m_watcher)
        return;
    ++m_generation;
    m_preparing.clear();
    m_loaded = false;
    m_listed = false;
    m_shownKind = qualified;
    m_watcher.reset();
    m_tableFetcher.reset();
    onCurrentObject({});
    m_model.clear();
    kube::WatchScope scope;
    scope.resource = *info;
    kube::WatcherOptions opts;
    opts.estimateStreamingLists = true; // the status bar's progress has a total on modern servers too
    m_watcher = std::make_unique<kube::Watcher>(m_client.get(), scope, opts);
    m_feed = m_recorder ? std::make_shared<core::HistoryFeed>(
                 *m_recorder, core::WatchScope::of({info->group, info->version, info->resource}, scope.namespace_))
                        : nullptr;
    connect(m_watcher.get(), &kube::Watcher::batchReady, this, &ClusterController::onBatch);
    followHealth(m_watcher.get(), false); // drainPrepared updates after the table has the batch
    m_view->setWatchStatus({}, false);    // the watches speak for the connection from here on
    m_view->setObjectModel(&m_model, pluralTitle(*info), info->namespaced, qualified);
    m_view->setCurrentKind(qualified);
    m_watcher->start();
    startTableFetch(scope);
    updateStatus();
}

// The detail pane follows the table's current object; its events come from a watch on core/v1
// events with fieldSelector involvedObject.uid (a field selector the events API supports).
void ClusterController::onCurrentObject(const QString &uid)
{
    if (uid == m_currentUid)
        return;
    m_currentUid = uid;
    m_eventsWatcher.reset();
    m_events.clear();
    updateStatus(); // the status bar drops the previous object's events watch
    const int row = uid.isEmpty() ? -1 : m_model.rowOf(uid.toStdString());
    m_view->detailPane()->showObject(row < 0 ? QString() : uid, row < 0 ? QByteArray() : m_model.objectJson(row));
    showHistory(row < 0 ? QString() : uid, row);
    const auto *info = m_discovery && !uid.isEmpty() ? m_discovery->snapshot().find("", "events") : nullptr;
    if (!info)
        return;
    kube::WatchScope scope;
    scope.resource = *info;
    scope.namespace_ = row < 0 ? std::string() : std::string(m_model.row(row).namespace_());
    scope.fieldSelector = "involvedObject.uid=" + uid.toStdString();
    kube::WatcherOptions opts;
    opts.tryWatchList = false;
    m_eventsWatcher = std::make_unique<kube::Watcher>(m_client.get(), scope, opts);
    connect(m_eventsWatcher.get(), &kube::Watcher::batchReady, &m_events, &models::EventTableModel::applyBatch);
    followHealth(m_eventsWatcher.get(), true);
    m_eventsWatcher->start();
}

void ClusterController::showHistory(const QString &uid, int row)
{
    if (uid.isEmpty() || !m_watcher) {
        m_historySource.clear();
        return;
    }
    const kube::ResourceInfo &r = m_watcher->scope().resource;
    core::ObjectQuery q;
    q.resource = r.group.empty() ? r.resource : r.resource + '.' + r.group;
    q.namespace_ = m_model.row(row).namespace_();
    q.name = m_model.row(row).name();
    m_historySource.show(q, uid);
}

// Editors write through m_client, so their ObjectEditors go with it. A window holding edits that
// were not written stays open, moved to the main window and detached, so closing a cluster's tab
// (or losing its connection) never throws a user's text away; the others close.
void ClusterController::closeEditors()
{
    QWidget *mainWindow = m_view ? m_view->window() : nullptr;
    const QString context = m_view ? m_view->contextName() : QString();
    for (const auto &editor : std::as_const(m_editors)) {
        widgets::EditorWindow *w = editor.data();
        if (!w)
            continue;
        qDeleteAll(w->findChildren<ObjectEditor *>(Qt::FindDirectChildrenOnly));
        if (!w->hasUnsentEdits() || !mainWindow || !mainWindow->isVisible()) {
            delete w;
            continue;
        }
        w->setParent(mainWindow, w->windowFlags()); // outlives the cluster's view
        w->detach(tr("The connection to %1 was closed: nothing can be written from this window. Your text is kept: "
                     "copy what you need, or open the object again and paste it.")
                      .arg(context));
        w->show();
    }
    m_editors.clear();
}

// One editor window per object, on the object as the table has it; the window's
// ObjectEditor writes through this connection's client with the shown kind's ResourceInfo.
void ClusterController::openEditor(const QString &uid)
{
    if (auto *open = m_editors.value(uid).data()) {
        open->show();
        open->raise();
        open->activateWindow();
        return;
    }
    const int row = uid.isEmpty() || !m_watcher || !m_client ? -1 : m_model.rowOf(uid.toStdString());
    if (row < 0)
        return;
    const kube::ResourceInfo &info = m_watcher->scope().resource;
    const auto &object = m_model.row(row);
    const QString where = object.namespace_().empty() ? QString() : models::viewText(object.namespace_()) + u'/';
    auto *window = new widgets::EditorWindow(QString::fromStdString(info.kind) + u' ' + where
                                                 + models::viewText(object.name()),
                                             m_view);
    window->setAttribute(Qt::WA_DeleteOnClose);
    if (!m_drafts)
        m_drafts = std::make_shared<core::DraftStore>((QStandardPaths::writableLocation(QStandardPaths::AppDataLocation)
                                                       + QStringLiteral("/drafts"))
                                                          .toStdString());
    // A Secret's buffer holds its values: kept on disk only with the opt-in (README.md, Security).
    const bool secret = info.group.empty() && info.kind == "Secret";
    // Kept per cluster (a uid is unique within one); earlier versions' per-context drafts move over.
    auto *drafts = new DraftKeeper(window, m_drafts, m_clusterIdentity.toStdString(), uid.toStdString(),
                                   window->windowTitle().toStdString(), !secret || m_recordSecretValues,
                                   m_contextName.toStdString());
    auto *editor = new ObjectEditor(m_client.get(), info, m_model.objectJson(row), window, Settings::fieldManager(),
                                    drafts);
    editor->setConnectionConfig(m_connection->config);
    // The version the table has now; later ones arrive from drainPrepared().
    window->noteServerVersion(models::viewText(object.resourceVersion()), false);
    m_editors.insert(uid, window);
    window->show();
}

void ClusterController::refreshDetail(const std::vector<std::string> &touched)
{
    if (touched.empty())
        return;
    const int row = m_model.rowOf(m_currentUid.toStdString());
    if (row >= 0)
        m_view->detailPane()->showObject(m_currentUid, m_model.objectJson(row));
}

namespace {
// What the status bar shows of one watcher; times become steady-clock points so the view can
// keep "3 s ago" and "retry in 4 s" current on its own.
widgets::WatchHealth healthOf(const kube::Watcher &w, const QString &name, const QString &purpose, qint64 objects)
{
    using S = kube::Watcher::State;
    using H = widgets::WatchHealth::State;
    const auto now = widgets::WatchHealth::Clock::now();
    widgets::WatchHealth h;
    h.name = name;
    h.purpose = purpose;
    h.objects = objects;
    h.expected = w.listTotalEstimate();
    h.resourceVersion = QString::fromStdString(w.lastResourceVersion());
    h.detail = w.stateDetail();
    for (const std::string &warning : w.serverWarnings())
        h.warnings << QString::fromStdString(warning);
    switch (w.state()) {
    case S::Idle: h.state = H::Idle; break;
    case S::Listing: h.state = H::Listing; break;
    case S::Watching: h.state = H::Live; break;
    case S::Relisting: h.state = H::Resyncing; break;
    case S::BackingOff: h.state = H::BackingOff; break;
    case S::Failed: h.state = H::Failed; break;
    }
    if (const qint64 ago = w.lastEventMsecsAgo(); ago >= 0)
        h.lastEvent = now - std::chrono::milliseconds(ago);
    if (const qint64 in = w.retryInMsecs(); in >= 0 && h.state == H::BackingOff)
        h.retryAt = now + std::chrono::milliseconds(in);
    return h;
}
} // namespace

// Every watch this cluster runs, the shown resource first (the status bar's main line).
void ClusterController::updateStatus()
{
    QList<widgets::WatchHealth> watches;
    if (m_watcher)
        watches << healthOf(*m_watcher, QString::fromStdString(m_watcher->scope().describe()), tr("object table"),
                            m_model.rowCount());
    if (m_namespaceWatcher)
        watches << healthOf(*m_namespaceWatcher, tr("namespaces"), tr("namespace selector"), m_namespaceNames.size());
    if (m_eventsWatcher) {
        const int row = m_model.rowOf(m_currentUid.toStdString());
        const QString object = row < 0 ? m_currentUid : models::viewText(m_model.row(row).name());
        watches << healthOf(*m_eventsWatcher, tr("events of %1").arg(object), tr("Events tab"), m_events.rowCount());
    }
    if (!watches.isEmpty())
        m_view->setWatches(watches);
}

// Status follows every watcher. Queued for state changes: a watcher starts its retry timer just
// after it announces BackingOff, and the countdown reads that timer.
void ClusterController::followHealth(kube::Watcher *watcher, bool batches)
{
    connect(watcher, &kube::Watcher::stateChanged, this, &ClusterController::updateStatus, Qt::QueuedConnection);
    connect(watcher, &kube::Watcher::listProgress, this, &ClusterController::updateStatus);
    connect(watcher, &kube::Watcher::warned, this, &ClusterController::updateStatus);
    if (batches) // the last event time and the count move with each batch
        connect(watcher, &kube::Watcher::batchReady, this, &ClusterController::updateStatus);
}

// --- server Table columns (`as=Table`, docs/architecture.md "Server columns") --------------------
// The watch decides which rows exist; the TableFetcher adds the server's columns to them, joined
// by uid, and keeps them current from the versions the watch reports (kube/tablefetcher.h).

namespace {
// The identity column (format "name") and the age ("Age", or "Created At" for types without a
// printer) repeat fixed columns; the server's age is text frozen at response time, ours ticks.
bool duplicatesFixedColumn(const kube::TableColumn &c)
{
    return c.format == "name" || c.name == "Age" || (c.name == "Created At" && c.type == "date");
}

bool sameColumns(const std::vector<models::ServerColumn> &a, const std::vector<models::ServerColumn> &b)
{
    return std::equal(a.begin(), a.end(), b.begin(), b.end(), [](const auto &x, const auto &y) {
        return x.name == y.name && x.type == y.type && x.format == y.format && x.priority == y.priority
            && x.description == y.description;
    });
}
} // namespace

void ClusterController::startTableFetch(const kube::WatchScope &scope)
{
    m_tableColumnOf.clear();
    m_tableFetcher = std::make_unique<kube::TableFetcher>(m_client.get(), scope);
    connect(m_tableFetcher.get(), &kube::TableFetcher::columnsChanged, this, &ClusterController::onTableColumns);
    connect(m_tableFetcher.get(), &kube::TableFetcher::rowsReady, this, &ClusterController::onTableRows);
    connect(m_tableFetcher.get(), &kube::TableFetcher::unwatchedRowsDropped, &m_model,
            &models::ObjectTableModel::dropUnjoinedCells);
    // unsupported() needs nothing: the fixed columns stay, and the watch reports real errors.
    m_tableFetcher->start();
}

void ClusterController::onTableColumns(const std::vector<kube::TableColumn> &columns)
{
    std::vector<models::ServerColumn> shown;
    m_tableColumnOf.clear();
    for (std::size_t i = 0; i < columns.size(); ++i) {
        const auto &c = columns[i];
        if (duplicatesFixedColumn(c))
            continue;
        m_tableColumnOf.push_back(int(i));
        shown.push_back({QString::fromStdString(c.name), QString::fromStdString(c.type),
                         QString::fromStdString(c.format), QString::fromStdString(c.description), c.priority});
    }
    // Same columns again (a relist): keep them, so the header layout is not rebuilt.
    if (!sameColumns(shown, m_model.serverColumns()))
        m_model.setServerColumns(shown);
}

void ClusterController::onTableRows(const std::vector<kube::TableRow> &rows)
{
    if (m_tableColumnOf.empty())
        return;
    std::vector<models::ServerRow> out;
    out.reserve(rows.size());
    for (const auto &r : rows) {
        QVariantList cells;
        cells.reserve(qsizetype(m_tableColumnOf.size()));
        for (const int i : m_tableColumnOf)
            cells.push_back(r.cells.value(i));
        out.push_back({r.uid, std::move(cells), r.resourceVersion});
    }
    m_model.applyServerRows(std::move(out));
}

void ClusterController::noteTableVersions(const core::WatchBatch &batch)
{
    if (!m_tableFetcher)
        return;
    for (const auto &e : batch.events) {
        if (e.type == core::WatchEventType::Deleted)
            m_tableFetcher->forget(e.uid);
        else
            m_tableFetcher->noteVersion(e.uid, e.namespace_, e.name, e.resourceVersion);
    }
}

} // namespace fieldscope::app
