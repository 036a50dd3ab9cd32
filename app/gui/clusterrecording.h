#pragma once
// ClusterRecording: one job: this cluster's history. Records every version the table's watch
// delivers (core::HistoryRecorder), keeping the recording thread's backlog bounded; follows the
// audit log (who made each version); says whether the background recorder records the cluster
// too; shows the current object's recorded history (the History tab); and, once a burst of watch
// data is absorbed, gives the freed heap back. Lives on the GUI thread. Batches are fed to the
// recorder in arrival order on m_recordPool (one thread, which may wait for the history writer);
// the recorder writes on its own writer thread, the audit log follower on AuditLogThread's, and
// the background recorder check and the heap return on workers of the global pool. Owned by the
// ClusterController, which lets go of the recorder and waits for m_recordPool at teardown; the
// ClusterSession and TableFeed it reads outlive it.
#include "app/services/auditwebhook.h"
#include "app/services/backgroundrecording.h"
#include "app/services/heaptuning.h"
#include "app/services/historysource.h"
#include "core/history/historyfeed.h"
#include "core/history/historywriter.h"
#include "kube/watcher.h"
#include "models/objecthistorymodel.h"

#include <QObject>
#include <QPointer>
#include <QThreadPool>
#include <QTimer>

#include <atomic>
#include <memory>
#include <optional>

namespace fieldscope::widgets {
class ClusterView;
}

namespace fieldscope::app {

class AuditLogThread;
class ClusterNotices;
class ClusterSession;
class TableFeed;

class ClusterRecording : public QObject
{
    Q_OBJECT
public:
    ClusterRecording(widgets::ClusterView *view, const ClusterSession &session, const TableFeed &table,
                     ClusterNotices &notices);
    ~ClusterRecording() override;

    // The session connected: settles the Secret values choice and starts recording.
    void onConnected();
    // Follows the cluster's audit log (the sandbox's, or --audit-log) once recording starts.
    void followAuditLog(const QString &path);
    // Also receive the API server's audit webhook (with followAuditLog; the sandbox's).
    void receiveAuditWebhook(const AuditWebhookOptions &options) { m_auditWebhook = options; }
    // Versions watched outside the table's watch: core::HistoryRecorder::recordReplay.
    void recordReplay(const core::WatchScope &scope, std::vector<core::WatchEvent> events);
    // Both return whether a new recorder started: the shown watch must then start again, so that
    // its feed begins with a list.
    bool setRecordSecretValues(bool on);
    bool updateHistoryLocation();

    // From the TableFeed: a new watch of the shown resource, each batch it delivers, the current object.
    void followWatch(const kube::WatchScope &scope);
    void onBatch(const std::shared_ptr<const core::WatchBatch> &batch, std::int64_t jsonBytes);
    void showHistory(const QString &uid, int row);

    // Re-reads whether fieldscope-record@.service records this cluster (also every 30 s).
    void updateBackgroundRecording();
    // Teardown: the recording thread must not wait for a recorder nobody holds any more; then it
    // is waited for (what it still has is recorded without waiting, or becomes the overflow gap).
    void letGoOfRecorder();
    void waitForRecordingThread() { m_recordPool.waitForDone(); }

    const core::HistoryRecorder *recorder() const { return m_recorder.get(); }
    void setHistoryRetention(int versionsPerObject) { m_historyVersionsPerObject = versionsPerObject; }
    QString historyDatabase() const { return m_historyDatabase; }
    bool recordsSecretValues() const { return m_recordSecretValues; }
    HistorySource *historySource() { return &m_historySource; }
    models::ObjectHistoryModel *historyModel() { return &m_historyModel; }
    const std::optional<BackgroundRecorder> &backgroundRecorder() const { return m_backgroundRecorder; }
    int memoryReturns() const { return m_memoryReturns; }
    void setReturnMemoryAfterBytes(std::int64_t bytes) { m_returnMemoryAfterBytes = bytes; }

Q_SIGNALS:
    // The person answered whether a legacy opt-in to record Secret values holds for this cluster.
    void secretValuesChosen(bool record);
    // Heap return started (on a worker) / is done: ClusterController's signals of the same names.
    void memoryReturnStarted();
    void memoryReturned();

private:
    void start();
    core::HistoryRecorder::Options recorderOptions(const std::string &identity) const;
    void startAuditLog();
    void askAboutLegacySecretOptIn();
    void showBackgroundRecording();
    void record(const std::shared_ptr<const core::WatchBatch> &batch, std::int64_t bytes);
    void noteBatchBytes(std::int64_t bytes);
    void returnMemoryIfSettled();

    QPointer<widgets::ClusterView> m_view;
    const ClusterSession &m_session;
    const TableFeed &m_table;
    ClusterNotices &m_notices;
    models::ObjectHistoryModel m_historyModel;
    HistorySource m_historySource{&m_historyModel};
    // Every version the shown resource's watch delivers is recorded. The feed is used
    // on m_recordPool's thread only; both are shared with the batch tasks that may still be running.
    std::shared_ptr<core::HistoryRecorder> m_recorder;
    std::shared_ptr<core::HistoryFeed> m_feed;
    QString m_historyDatabase;
    int m_historyVersionsPerObject = 1000;
    bool m_recordSecretValues = false;
    // Batches are recorded in arrival order on one thread, which may wait for the history writer up to:
    static constexpr int kRecordWaitForRoomMs = 30'000;
    // The recording thread's backlog (JSON bytes of batches not yet handed to the recorder).
    static constexpr std::int64_t kRecordBacklogBytes = 1ll << 30;
    struct RecordBacklog {
        std::atomic<std::int64_t> bytes = 0;
        std::atomic<bool> closing = false; // its recorder was let go of: never wait for it again
    };
    std::shared_ptr<RecordBacklog> m_recordBacklog; // one per recorder
    QThreadPool m_recordPool;
    // Returning freed heap (glibc keeps what a burst's copies used, ~0.3x the JSON at 150,000 Pods).
    std::int64_t m_bytesSinceReturn = 0;
    std::int64_t m_returnMemoryAfterBytes = kReturnHeapAfterBytes;
    int m_memoryReturns = 0;
    QTimer m_memoryTimer;
    QTimer m_backgroundCheck;
    std::optional<BackgroundRecorder> m_backgroundRecorder; // re-reads the background recorder's marker
    QString m_auditLogPath;
    std::optional<AuditWebhookOptions> m_auditWebhook;
    std::unique_ptr<AuditLogThread> m_auditLog; // after the recorder: it writes into the same database
};

} // namespace fieldscope::app
