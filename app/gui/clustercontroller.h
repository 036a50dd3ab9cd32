#pragma once
// ClusterController: the composition root for one cluster connection in the GUI. Connects off
// the GUI thread, runs discovery, watches the chosen resource kind (and the namespaces, for the
// namespace selector), decodes what the table needs on a worker thread and feeds the models;
// tells its ClusterView what happens. Lives on the GUI thread.
#include "app/services/auditwebhook.h"
#include "app/services/backgroundrecording.h"
#include "app/services/heaptuning.h"
#include "app/services/historysource.h"
#include "core/edit/drafts.h"
#include "core/history/historyfeed.h"
#include "core/history/historywriter.h"
#include "core/yaml/manifest.h"
#include "kube/apiclient.h"
#include "kube/connection.h"
#include "kube/discovery.h"
#include "kube/tablefetcher.h"
#include "kube/watcher.h"
#include "models/eventtablemodel.h"
#include "models/objecthistorymodel.h"
#include "models/objecttablemodel.h"
#include "models/resourcekindsmodel.h"
#include "widgets/clusterview.h"
#include "widgets/editorwindow.h"
#include "widgets/newobjectwindow.h"

#include <QFuture>
#include <QFutureWatcher>
#include <QHash>
#include <QObject>
#include <QPointer>
#include <QSet>
#include <QThreadPool>
#include <QTimer>

#include <atomic>
#include <deque>
#include <memory>
#include <optional>

namespace fieldscope::app {

class AuditLogThread;

class ClusterController : public QObject
{
    Q_OBJECT
public:
    ClusterController(widgets::ClusterView *view, QObject *parent = nullptr);
    ~ClusterController() override;

    // Loads the kubeconfig on a worker thread and connects; "" = kubectl's defaults.
    void open(const QString &kubeconfigPath, const QString &context);
    // Watches RESOURCE (any spelling discovery resolves) into the table.
    void showResource(const QString &resource);
    // Follows the cluster's audit log (the sandbox's, or --audit-log) once recording starts, so
    // the History tab names the person behind each version and the refused writes.
    void followAuditLog(const QString &path);
    // Also receive the API server's audit webhook (with followAuditLog; the sandbox's).
    void receiveAuditWebhook(const AuditWebhookOptions &options);

    bool isLoaded() const { return m_loaded; }
    // The shown resource's first list is in the table (discovery may still be running).
    bool isListed() const { return m_listed; }
    // The open connection (null until connected): lessons start their own clients from it.
    std::shared_ptr<kube::Connection> connection() const { return m_connection; }
    // Loaded, the server's Table columns listed (or known to be missing) and every kind's count
    // asked for: what a screenshot waits for.
    bool isSettled() const;
    widgets::ClusterView *view() const { return m_view; }
    QString contextName() const { return m_contextName; }
    // clusterIdentityOf() the connection ("" until connected): per-cluster choices' key.
    QString clusterIdentity() const { return m_clusterIdentity; }
    models::ObjectTableModel *model() { return &m_model; }
    models::ResourceKindsModel *kindsModel() { return &m_kinds; }
    kube::Watcher *watcher() const { return m_watcher.get(); }
    // The server's resource types; null until discovery has a snapshot.
    const kube::DiscoverySnapshot *discovery() const
    {
        return m_discovery && m_discovery->hasSnapshot() ? &m_discovery->snapshot() : nullptr;
    }
    QString currentResource() const { return m_wantedResource; }
    models::EventTableModel *eventsModel() { return &m_events; }
    models::ObjectHistoryModel *historyModel() { return &m_historyModel; }
    kube::Watcher *eventsWatcher() const { return m_eventsWatcher.get(); }
    // This cluster's recorder of history (null before connected, or with recording off): its
    // counters say whether it keeps up (bench_window).
    const core::HistoryRecorder *recorder() const { return m_recorder.get(); }
    // Versions kept per object in the history database (applies from the next connection).
    void setHistoryRetention(int versionsPerObject) { m_historyVersionsPerObject = versionsPerObject; }
    QString historyDatabase() const { return m_historyDatabase; }
    // Versions watched outside the table's watch (the demo's own): stored for objects this
    // cluster's history holds nothing of yet (core::HistoryRecorder::recordReplay).
    void recordReplay(const core::WatchScope &scope, std::vector<core::WatchEvent> events);
    // Record Secret values (an explicit per-cluster opt-in, README.md "Security"): off, Secrets are stored
    // with hashed values and their editors keep no draft on disk. Changing it while connected
    // restarts recording (and the shown watch); the status bar says when it is on.
    void setRecordSecretValues(bool on);
    // Settings -> History changed where histories are kept: record and read there from now on.
    void updateHistoryLocation();
    bool recordsSecretValues() const { return m_recordSecretValues; }
    HistorySource *historySource() { return &m_historySource; }
    // File → New Object…: a window whose Create posts each object of its buffer (null before connected).
    widgets::NewObjectWindow *openNewObject();
    // "Set only if unchanged": a JSON Patch test(expected) + replace(value) at `pointer` of `uid`;
    // setIfUnchangedFinished() tells how it went. askSetIfUnchanged() asks for the value first.
    void setIfUnchanged(const QString &uid, const QString &pointer, const core::Json &expected,
                        const core::Json &value);
    void askSetIfUnchanged(const QString &uid, const QString &pointer, const QString &currentJson);
    // Deletes the object `uid` as the table shows it (uid and resourceVersion preconditions);
    // `ask`: confirm first, naming the object. deleteFinished() tells how it went.
    void deleteObject(const QString &uid, bool ask);
    // Re-reads whether fieldscope-record@.service records this cluster (also every 30 s).
    void updateBackgroundRecording();
    // What the last check found (nullopt: no background recorder).
    const std::optional<BackgroundRecorder> &backgroundRecorder() const { return m_backgroundRecorder; }
    int memoryReturns() const { return m_memoryReturns; }
    // How much watch data (JSON bytes) makes the window give back freed heap once it is absorbed.
    void setReturnMemoryAfterBytes(std::int64_t bytes) { m_returnMemoryAfterBytes = bytes; }
    // The editor window open for the object `uid`, if any (one per object).
    widgets::EditorWindow *editor(const QString &uid) const { return m_editors.value(uid); }

Q_SIGNALS:
    void loaded(); // the shown resource's first list is in the table and resource types are known
    void failed(const QString &message);
    void deleteFinished(bool deleted, const QString &message);
    void setIfUnchangedFinished(bool written, const QString &message);
    // The window decided that nothing waits to be applied or recorded and starts giving freed
    // heap back (on a worker); memoryReturned() follows when it is done.
    void memoryReturnStarted();
    // After a large amount of watch data went through (a first list, a relist, a burst) and the
    // table and the recorder have taken all of it: the heap the transient copies used has been
    // handed back to the system (memoryReturns() counts these).
    void memoryReturned();

private:
    void onConnected(core::Result<kube::Connection> result);
    void startDiscovery();
    void onDiscoveryProgress();
    void onDiscovered();
    void fetchCounts();
    void fetchNextCounts();
    void showResolved(const kube::ResourceInfo &resolved);
    void restartShownWatch();
    void noteLoaded();
    void watchNamespaces();
    void onBatch(const core::WatchBatch &batch);
    void drainPrepared(int generation);
    void updateStatus();
    void followHealth(kube::Watcher *watcher, bool batches);
    void onCurrentObject(const QString &uid);
    void refreshDetail(const std::vector<std::string> &touchedUids);
    void startTableFetch(const kube::WatchScope &scope);
    void onTableColumns(const std::vector<kube::TableColumn> &columns);
    void onTableRows(const std::vector<kube::TableRow> &rows);
    void noteTableVersions(const core::WatchBatch &batch);
    void startRecording();
    void startAuditLog();
    void askAboutLegacySecretOptIn();
    void showBackgroundRecording();
    void createObjects(const QPointer<widgets::NewObjectWindow> &window,
                       const core::Result<core::ManifestObjects> &parsed, bool dryRun);

    void showWarnings();
    void showHistory(const QString &uid, int row);
    void letGoOfRecorder();
    void closeEditors();
    void openEditor(const QString &uid);

    QPointer<widgets::ClusterView> m_view;
    QString m_contextName;
    QString m_clusterIdentity;
    QString m_wantedResource = QStringLiteral("namespaces");
    std::shared_ptr<kube::Connection> m_connection;
    std::unique_ptr<kube::ApiClient> m_client;
    std::unique_ptr<kube::Discovery> m_discovery;
    std::unique_ptr<kube::Watcher> m_watcher;
    std::unique_ptr<kube::Watcher> m_namespaceWatcher;
    std::unique_ptr<kube::TableFetcher> m_tableFetcher;
    std::vector<int> m_tableColumnOf; // model server column -> column of the server's Table
    QSet<QString> m_namespaceNames;
    models::ObjectTableModel m_model;
    models::ResourceKindsModel m_kinds;
    models::EventTableModel m_events;
    std::unique_ptr<kube::Watcher> m_eventsWatcher;
    models::ObjectHistoryModel m_historyModel;
    HistorySource m_historySource{&m_historyModel};
    // Every version the shown resource's watch delivers is recorded. The feed is used
    // on m_pool's thread only; both are shared with the batch tasks that may still be running.
    std::shared_ptr<core::HistoryRecorder> m_recorder;
    std::shared_ptr<core::HistoryFeed> m_feed;
    QString m_historyDatabase;
    int m_historyVersionsPerObject = 1000;
    bool m_recordSecretValues = false;
    QStringList m_warnings;
    QStringList m_errors; // shown before the warnings
    QString m_currentUid;
    // Open editors by object uid; each owns its ObjectEditor, which uses m_client.
    QHash<QString, QPointer<widgets::EditorWindow>> m_editors;
    std::shared_ptr<core::DraftStore> m_drafts;    // unsent editor text kept on disk (made on first use)
    QString m_shownKind;                           // qualified name of what m_watcher watches
    std::optional<kube::ResourceInfo> m_shownInfo; // and the resource itself
    bool m_loaded = false;                         // listed and discovered: see noteLoaded()
    bool m_listed = false;                         // the shown resource's first list is in the table
    int m_countsPending = 0;                       // kinds whose count request has not answered yet (queued included)
    std::deque<models::ResourceKind> m_countQueue; // kinds whose count request is not sent yet
    int m_countsInFlight = 0;
    bool m_discovered = false;          // onDiscovered() ran once for this connection
    bool m_discoveryFromServer = false; // ... with what the server said, not only the cache file
    // Batches are decoded in arrival order on one worker thread, applied in that order here.
    QThreadPool m_pool;
    // ... and recorded in that order on another, which may wait for the history writer up to:
    static constexpr int kRecordWaitForRoomMs = 30'000;
    static constexpr std::size_t kApplySliceEvents = 250; // the most events one table update applies
    // The recording thread's backlog (JSON bytes of batches not yet handed to the recorder).
    static constexpr std::int64_t kRecordBacklogBytes = 1ll << 30;
    struct RecordBacklog {
        std::atomic<std::int64_t> bytes = 0;
        std::atomic<bool> closing = false; // its recorder was let go of: never wait for it again
    };
    std::shared_ptr<RecordBacklog> m_recordBacklog; // one per recorder
    QThreadPool m_recordPool;
    QTimer m_drainTimer;
    // Returning freed heap (glibc keeps what a burst's copies used, ~0.3x the JSON at 150,000 Pods).
    void noteBatchBytes(std::int64_t bytes);
    void returnMemoryIfSettled();
    std::int64_t m_bytesSinceReturn = 0;
    std::int64_t m_returnMemoryAfterBytes = kReturnHeapAfterBytes;
    int m_memoryReturns = 0;
    QTimer m_memoryTimer;
    std::deque<QFuture<models::PreparedBatch>> m_preparing;
    int m_generation = 0;
    QFutureWatcher<core::Result<kube::Connection>> m_connecting;
    QTimer m_backgroundCheck;
    std::optional<BackgroundRecorder> m_backgroundRecorder; // re-reads the background recorder's marker
    QString m_auditLogPath;
    std::optional<AuditWebhookOptions> m_auditWebhook;
    std::unique_ptr<AuditLogThread> m_auditLog; // after the recorder: it writes into the same database
};

} // namespace fieldscope::app
