#pragma once
// ClusterController: the owner of one cluster connection's parts in the GUI, and their one face
// to the window, tests and benches. It holds no state of its own beyond the view: each job is a
// part it owns and wires together (the constructor is the map of who tells whom):
//   ClusterNotices   the warnings and errors the view's banner shows;
//   ClusterSession   connect, discovery, the kinds tree's counts;
//   TableFeed        watch -> prepare -> apply into the table, the server's columns, the
//                    namespace and events watches, the status bar;
//   ClusterRecording the history: recorder feed and backlog, audit log, background recorder,
//                    History tab, giving freed heap back;
//   ObjectWrites     editor windows, delete, set-if-unchanged, new objects.
//   ClusterDrift     the Drift view's rows and the Ownership tab's drift badge, Give back.
// Lives on the GUI thread; which work runs on which worker is said in each part's header.
// Owned by the Workspace (one per tab), or by a test.
#include "app/gui/clusterdrift.h"
#include "app/gui/clusternotices.h"
#include "app/gui/clusterrecording.h"
#include "app/gui/clustersession.h"
#include "app/gui/objectwrites.h"
#include "app/gui/tablefeed.h"
#include "app/services/auditwebhook.h"
#include "app/services/backgroundrecording.h"
#include "app/services/historysource.h"
#include "core/history/historywriter.h"
#include "kube/connection.h"
#include "kube/discovery.h"
#include "kube/watcher.h"
#include "models/eventtablemodel.h"
#include "models/objecthistorymodel.h"
#include "models/objecttablemodel.h"
#include "models/resourcekindsmodel.h"
#include "widgets/clusterview.h"
#include "widgets/editorwindow.h"
#include "widgets/newobjectwindow.h"

#include <QObject>
#include <QPointer>

#include <memory>
#include <optional>

namespace fieldscope::app {

class ClusterController : public QObject
{
    Q_OBJECT
public:
    ClusterController(widgets::ClusterView *view, QObject *parent = nullptr);
    ~ClusterController() override;

    // Loads the kubeconfig on a worker thread and connects; "" = kubectl's defaults.
    void open(const QString &kubeconfigPath, const QString &context) { m_session.open(kubeconfigPath, context); }
    // Watches RESOURCE (any spelling discovery resolves) into the table.
    void showResource(const QString &resource) { m_table.showResource(resource); }
    // Follows the cluster's audit log (the sandbox's, or --audit-log) once recording starts, so
    // the History tab names the person behind each version and the refused writes.
    void followAuditLog(const QString &path) { m_recording.followAuditLog(path); }
    // Also receive the API server's audit webhook (with followAuditLog; the sandbox's).
    void receiveAuditWebhook(const AuditWebhookOptions &options) { m_recording.receiveAuditWebhook(options); }

    bool isLoaded() const { return m_table.isLoaded(); }
    // The shown resource's first list is in the table (discovery may still be running).
    bool isListed() const { return m_table.isListed(); }
    // The open connection (null until connected): lessons start their own clients from it.
    std::shared_ptr<kube::Connection> connection() const { return m_session.connection(); }
    // Loaded, the server's Table columns listed (or known to be missing) and every kind's count
    // asked for: what a screenshot waits for.
    bool isSettled() const;
    widgets::ClusterView *view() const { return m_view; }
    QString contextName() const { return m_session.contextName(); }
    // clusterIdentityOf() the connection ("" until connected): per-cluster choices' key.
    QString clusterIdentity() const { return m_session.clusterIdentity(); }
    models::ObjectTableModel *model() { return m_table.model(); }
    models::ResourceKindsModel *kindsModel() { return m_session.kindsModel(); }
    kube::Watcher *watcher() const { return m_table.watcher(); }
    // The server's resource types; null until discovery has a snapshot.
    const kube::DiscoverySnapshot *discovery() const
    {
        const kube::Discovery *d = m_session.discovery();
        return d && d->hasSnapshot() ? &d->snapshot() : nullptr;
    }
    QString currentResource() const { return m_table.wantedResource(); }
    models::EventTableModel *eventsModel() { return m_table.eventsModel(); }
    models::ObjectHistoryModel *historyModel() { return m_recording.historyModel(); }
    kube::Watcher *eventsWatcher() const { return m_table.eventsWatcher(); }
    // This cluster's recorder of history (null before connected, or with recording off): its
    // counters say whether it keeps up (bench_window).
    const core::HistoryRecorder *recorder() const { return m_recording.recorder(); }
    // Versions kept per object in the history database (applies from the next connection).
    void setHistoryRetention(int versionsPerObject) { m_recording.setHistoryRetention(versionsPerObject); }
    QString historyDatabase() const { return m_recording.historyDatabase(); }
    // Versions watched outside the table's watch (the demo's own): stored for objects this
    // cluster's history holds nothing of yet (core::HistoryRecorder::recordReplay).
    void recordReplay(const core::WatchScope &scope, std::vector<core::WatchEvent> events)
    {
        m_recording.recordReplay(scope, std::move(events));
    }
    // Record Secret values (an explicit per-cluster opt-in, README.md "Security"): off, Secrets are stored
    // with hashed values and their editors keep no draft on disk. Changing it while connected
    // restarts recording (and the shown watch); the status bar says when it is on.
    void setRecordSecretValues(bool on);
    // Settings -> History changed where histories are kept: record and read there from now on.
    void updateHistoryLocation();
    bool recordsSecretValues() const { return m_recording.recordsSecretValues(); }
    HistorySource *historySource() { return m_recording.historySource(); }
    // File → New Object…: a window whose Create posts each object of its buffer (null before connected).
    widgets::NewObjectWindow *openNewObject() { return m_writes.openNewObject(); }
    // "Set only if unchanged": a JSON Patch test(expected) + replace(value) at `pointer` of `uid`;
    // setIfUnchangedFinished() tells how it went. askSetIfUnchanged() asks for the value first.
    void setIfUnchanged(const QString &uid, const QString &pointer, const core::Json &expected, const core::Json &value)
    {
        m_writes.setIfUnchanged(uid, pointer, expected, value);
    }
    void askSetIfUnchanged(const QString &uid, const QString &pointer, const QString &currentJson)
    {
        m_writes.askSetIfUnchanged(uid, pointer, currentJson);
    }
    // Deletes the object `uid` as the table shows it (uid and resourceVersion preconditions);
    // `ask`: confirm first, naming the object. deleteFinished() tells how it went.
    void deleteObject(const QString &uid, bool ask) { m_writes.deleteObject(uid, ask); }
    // Re-reads whether fieldscope-record@.service records this cluster (also every 30 s).
    void updateBackgroundRecording() { m_recording.updateBackgroundRecording(); }
    // What the last check found (nullopt: no background recorder).
    const std::optional<BackgroundRecorder> &backgroundRecorder() const { return m_recording.backgroundRecorder(); }
    int memoryReturns() const { return m_recording.memoryReturns(); }
    // How much watch data (JSON bytes) makes the window give back freed heap once it is absorbed.
    void setReturnMemoryAfterBytes(std::int64_t bytes) { m_recording.setReturnMemoryAfterBytes(bytes); }
    // The editor window open for the object `uid`, if any (one per object).
    widgets::EditorWindow *editor(const QString &uid) const { return m_writes.editor(uid); }
    // Drift: the Drift view's rows (computed when it opens and on Refresh) and the badge's runs.
    ClusterDrift *drift() { return &m_drift; }

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
    void wireParts();
    void wireView(widgets::ClusterView *view);

    QPointer<widgets::ClusterView> m_view;
    // Declared in the order they are made: each part holds references only to parts above it,
    // and is destroyed before them (see ~ClusterController for the whole teardown).
    ClusterNotices m_notices;
    ClusterSession m_session;
    TableFeed m_table;
    ClusterRecording m_recording;
    ObjectWrites m_writes;
    ClusterDrift m_drift;
};

} // namespace fieldscope::app
