#include "app/gui/clusterrecording.h"

#include "app/gui/clusternotices.h"
#include "app/gui/clustersession.h"
#include "app/gui/tablefeed.h"
#include "app/services/auditlogthread.h"
#include "app/services/settings.h"
#include "app/services/windowrecorder.h"
#include "core/base/boundary.h"
#include "widgets/clusterview.h"
#include "widgets/consentdialog.h"
#include "widgets/plaintext.h"

#include <QApplication>
#include <QFutureWatcher>
#include <QLocale>
#include <QtConcurrent/QtConcurrentRun>

namespace fieldscope::app {

ClusterRecording::ClusterRecording(widgets::ClusterView *view, const ClusterSession &session, const TableFeed &table,
                                   ClusterNotices &notices)
    : m_view(view), m_session(session), m_table(table), m_notices(notices)
{
    m_recordPool.setMaxThreadCount(1); // keeps the batches' recording in order
    m_memoryTimer.setInterval(1000);
    connect(&m_memoryTimer, &QTimer::timeout, this, &ClusterRecording::returnMemoryIfSettled);
}

ClusterRecording::~ClusterRecording() = default;

void ClusterRecording::onConnected()
{
    m_recordSecretValues = m_recordSecretValues || Settings::recordsSecretValues(m_session.clusterIdentity());
    m_notices.setSecretValuesRecorded(m_recordSecretValues);
    askAboutLegacySecretOptIn();
    start();
}

// An opt-in an earlier version kept for the context name is no consent for whichever cluster the
// name reaches now: the user says once whether it holds for this one; the old key then goes.
void ClusterRecording::askAboutLegacySecretOptIn()
{
    const QString context = m_session.contextName();
    if (!Settings::hadLegacySecretValuesOptIn(context))
        return;
    if (m_recordSecretValues) { // already chosen for this cluster: nothing to ask
        Settings::removeLegacySecretValuesOptIn(context);
        return;
    }
    widgets::askKeepRecordingSecretValues(m_view, context,
                                          QString::fromStdString(m_session.connection()->config.server),
                                          [self = QPointer<ClusterRecording>(this), context,
                                           identity = m_session.clusterIdentity()](bool keep) {
                                              Settings::setRecordsSecretValues(identity, keep);
                                              Settings::removeLegacySecretValuesOptIn(context);
                                              if (self && self->m_session.clusterIdentity() == identity)
                                                  Q_EMIT self->secretValuesChosen(keep);
                                          });
}

bool ClusterRecording::setRecordSecretValues(bool on)
{
    if (on == m_recordSecretValues)
        return false;
    m_recordSecretValues = on;
    m_notices.setSecretValuesRecorded(on);
    if (!m_session.connection())
        return false; // applies when connected
    m_notices.show();
    // A new recorder with the new choice (batches already queued go to the old recorder, which
    // drains and closes).
    start();
    return true;
}

// Settings -> History changed where histories are kept: record and read there from now on.
bool ClusterRecording::updateHistoryLocation()
{
    if (!m_session.connection() || m_historyDatabase.isEmpty()
        || historyLocationFor(m_session.contextName(), m_session.clusterIdentity().toStdString()) == m_historyDatabase)
        return false;
    m_auditLog.reset(); // it writes to the old store; start() starts one for the new
    start();
    return true;
}

// --- the recorder ---------------------------------------------------------------------------------

// One database per cluster (two kubeconfigs' `default` contexts may be two clusters), keyed and
// stamped with the cluster's identity; the recorder opens it on its own writer thread.
core::HistoryRecorder::Options ClusterRecording::recorderOptions(const std::string &identity) const
{
    core::HistoryRecorder::Options ro = windowRecorderOptions({m_historyDatabase.toStdString(), identity,
                                                               m_session.connection()->config.server,
                                                               m_session.contextName(), m_recordSecretValues,
                                                               m_historyVersionsPerObject});
    // m_recordPool's thread waits out a list's burst; what waits there shares its bytes with the
    // table, so the queue of copies can stay small (bench_window: 150,000 Pods, RSS).
    ro.maxWaitForRoomMs = kRecordWaitForRoomMs;
    ro.maxQueuedBytes = 64ll << 20;
    return ro;
}

void ClusterRecording::start()
{
    const std::string identity = clusterIdentityOf(m_session.connection()->config);
    // Settings may keep histories in the team's PostgreSQL store: the same for reading and recording.
    m_historyDatabase = historyLocationFor(m_session.contextName(), identity);
    letGoOfRecorder();
    // A replaced or closed recorder drains on its own thread.
    m_recorder = core::HistoryRecorder::makeShared(recorderOptions(identity));
    m_recordBacklog = std::make_shared<RecordBacklog>();
    connect(m_recorder.get(), &core::HistoryRecorder::committed, &m_historySource, &HistorySource::onCommitted,
            Qt::QueuedConnection);
    connect(
        m_recorder.get(), &core::HistoryRecorder::writeFailed, this,
        [this](const QString &message) {
            m_notices.addError(
                tr("History recording is failing (the lost stretch is marked as a gap): %1").arg(message));
            m_notices.show();
        },
        Qt::QueuedConnection);
    m_historySource.setDatabase(m_historyDatabase);
    startAuditLog();
    updateBackgroundRecording();
    if (!m_backgroundCheck.isActive()) {
        connect(&m_backgroundCheck, &QTimer::timeout, this, &ClusterRecording::updateBackgroundRecording,
                Qt::UniqueConnection);
        m_backgroundCheck.start(30'000);
    }
}

// The recording thread must not wait for a recorder nobody holds any more: what it still has
// for it is recorded without waiting, or becomes the overflow gap.
void ClusterRecording::letGoOfRecorder()
{
    if (m_recordBacklog)
        m_recordBacklog->closing = true;
    if (m_recorder)
        m_recorder->setWaitingForRoom(false);
}

void ClusterRecording::recordReplay(const core::WatchScope &scope, std::vector<core::WatchEvent> events)
{
    if (m_recorder)
        m_recorder->recordReplay(scope, std::move(events));
}

void ClusterRecording::followWatch(const kube::WatchScope &scope)
{
    const kube::ResourceInfo &info = scope.resource;
    m_feed = m_recorder ? std::make_shared<core::HistoryFeed>(
                 *m_recorder, core::WatchScope::of({info.group, info.version, info.resource}, scope.namespace_))
                        : nullptr;
}

void ClusterRecording::onBatch(const std::shared_ptr<const core::WatchBatch> &batch, std::int64_t jsonBytes)
{
    noteBatchBytes(jsonBytes);
    if (m_feed && m_recordBacklog)
        record(batch, jsonBytes);
}

// Recording copies every object's bytes, in arrival order, on a thread of its own: it may wait
// for the history writer (a large first list), and the table must not wait with it.
void ClusterRecording::record(const std::shared_ptr<const core::WatchBatch> &batch, std::int64_t bytes)
{
    // The batches waiting here mostly share their bytes with the table, but a server that
    // sends faster than the disk writes must not grow them without end: past the bound the
    // recorder stops waiting (its overflow gap), and waits again once the backlog is halved.
    if ((m_recordBacklog->bytes += bytes) > kRecordBacklogBytes && m_recorder)
        m_recorder->setWaitingForRoom(false);
    m_recordPool.start([shared = batch, bytes, feed = m_feed, recorder = m_recorder, backlog = m_recordBacklog,
                        self = QPointer<ClusterRecording>(this)] {
        const core::Status st = core::guarded("recording a batch", [&] { feed->feed(*shared); });
        if (const auto left = backlog->bytes -= bytes; left < kRecordBacklogBytes / 2 && !backlog->closing)
            recorder->setWaitingForRoom(true);
        if (!st)
            QMetaObject::invokeMethod(
                qApp,
                [self, why = QString::fromStdString(st.error().message)] {
                    if (!self)
                        return;
                    self->m_notices.addError(tr("History recording is failing: %1").arg(why));
                    self->m_notices.show();
                },
                Qt::QueuedConnection);
    });
}

// --- who made each version: the audit log -------------------------------------------------------

void ClusterRecording::followAuditLog(const QString &path)
{
    m_auditLogPath = path;
    startAuditLog();
}

void ClusterRecording::startAuditLog()
{
    if (m_auditLogPath.isEmpty() || !m_recorder || m_auditLog || m_historyDatabase.isEmpty())
        return;
    core::HistoryOpenOptions options;
    options.clusterIdentity = m_session.clusterIdentity().toStdString();
    options.clusterLabel = m_session.connection()->config.server;
    options.recordSecretValues = m_recordSecretValues;
    options.folderIsPrivate = true;
    options.recorderName = recorderNameFor("window"); // its own position in the followed log
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
        m_notices.addDistinctWarning(tr("Who made each change is not known: the audit log %1 cannot be followed: %2")
                                         .arg(widgets::visibleText(m_auditLogPath), widgets::visibleText(message)));
        m_notices.show();
    });
}

// --- the History tab ------------------------------------------------------------------------------

void ClusterRecording::showHistory(const QString &uid, int row)
{
    if (uid.isEmpty() || !m_table.watcher()) {
        m_historySource.clear();
        return;
    }
    const kube::ResourceInfo &r = m_table.watcher()->scope().resource;
    const auto &object = m_table.rows().row(row);
    core::ObjectQuery q;
    q.resource = r.group.empty() ? r.resource : r.resource + '.' + r.group;
    q.namespace_ = object.namespace_();
    q.name = object.name();
    m_historySource.show(q, uid);
}

// --- the background recorder ----------------------------------------------------------------------

// fieldscope-record@.service records into the same store: say so, and since when.
void ClusterRecording::updateBackgroundRecording()
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

void ClusterRecording::showBackgroundRecording()
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

// --- giving freed heap back -------------------------------------------------------------------------

void ClusterRecording::noteBatchBytes(std::int64_t bytes)
{
    m_bytesSinceReturn += bytes;
    if (m_bytesSinceReturn >= m_returnMemoryAfterBytes && !m_memoryTimer.isActive())
        m_memoryTimer.start();
}

// Once a second after a large amount of data came in: when nothing waits to be applied or
// recorded any more, the freed heap goes back to the system (returnFreedHeap, on a worker).
void ClusterRecording::returnMemoryIfSettled()
{
    const bool recording = (m_recordBacklog && m_recordBacklog->bytes > 0)
                        || (m_recorder && m_recorder->counters().queuedBytes > 0);
    if (m_table.isBusy() || recording)
        return;
    m_memoryTimer.stop();
    m_bytesSinceReturn = 0;
    Q_EMIT memoryReturnStarted();
    // A watcher owned by this object, not qApp as the context: the work may still run while the
    // application quits (SIGTERM), and the result is then simply not delivered.
    auto *done = new QFutureWatcher<void>(this);
    connect(done, &QFutureWatcher<void>::finished, this, [this, done] {
        done->deleteLater();
        ++m_memoryReturns;
        Q_EMIT memoryReturned();
    });
    done->setFuture(QtConcurrent::run(returnFreedHeap));
}

} // namespace fieldscope::app
