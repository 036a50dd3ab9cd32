#pragma once
// TableFeed: one job: what the object table and the detail pane show, kept current. Watches the
// chosen resource kind; prepares each batch's rows on the batch worker and applies finished ones
// within a frame's budget per event-loop turn; adds the server's Table columns (kube::TableFetcher);
// watches the namespaces (the namespace selector) and the current object's events (the Events
// tab); tells the status bar how each of those watches is doing. Lives on the GUI thread; row
// preparation runs on m_pool, one thread so that batches stay in order (ObjectWrites borrows it to
// parse manifests). Owned by the ClusterController, which stops the watches and then waits for
// m_pool at teardown; the ClusterSession it reads outlives it.
#include "core/objects/watchtypes.h"
#include "kube/tablefetcher.h"
#include "kube/watcher.h"
#include "models/eventtablemodel.h"
#include "models/objecttablemodel.h"

#include <QFuture>
#include <QObject>
#include <QPointer>
#include <QSet>
#include <QThreadPool>
#include <QTimer>

#include <deque>
#include <memory>
#include <optional>

namespace fieldscope::widgets {
class ClusterView;
}

namespace fieldscope::app {

class ClusterNotices;
class ClusterSession;

class TableFeed : public QObject
{
    Q_OBJECT
public:
    TableFeed(widgets::ClusterView *view, ClusterSession &session, ClusterNotices &notices);

    // Watches RESOURCE (any spelling discovery resolves) into the table.
    void showResource(const QString &resource);
    QString wantedResource() const { return m_wantedResource; }
    // The shown watch starts again (its feed goes to the recorder just made).
    void restartShownWatch();
    // The detail pane follows the table's current object ("" = none).
    void onCurrentObject(const QString &uid);
    // From the ClusterSession: discovery learned more, or finished (`first` on this connection).
    void onDiscoveryProgress();
    void onDiscovered(bool first);
    // Teardown: the watches and the fetcher go (they send through the session's client), then the
    // batch worker's tasks are waited for (one slice of rows, or one manifest, each).
    void stopWatching();
    void waitForBatchWorker() { m_pool.waitForDone(); }

    // Listed and discovered: see noteLoaded().
    bool isLoaded() const { return m_loaded; }
    // The shown resource's first list is in the table (discovery may still be running).
    bool isListed() const { return m_listed; }
    // The server's Table columns are listed, or known to be missing.
    bool columnsSettled() const;
    // Rows wait to be prepared or applied, or a list is still coming: the heap is still in use.
    bool isBusy() const;
    models::ObjectTableModel *model() { return &m_model; }
    const models::ObjectTableModel &rows() const { return m_model; }
    models::EventTableModel *eventsModel() { return &m_events; }
    kube::Watcher *watcher() const { return m_watcher.get(); }
    kube::Watcher *eventsWatcher() const { return m_eventsWatcher.get(); }
    QThreadPool *batchWorker() { return &m_pool; }

Q_SIGNALS:
    void loaded(); // the shown resource's first list is in the table and resource types are known
    void failed(const QString &message);
    // A watch of the shown resource starts (before its first batch): its versions begin with a list.
    void watchStarting(const kube::WatchScope &scope);
    // Each batch as it arrives, shared with the rows being prepared from it; `jsonBytes` is the
    // size of its objects.
    void batchArrived(const std::shared_ptr<const core::WatchBatch> &batch, std::int64_t jsonBytes);
    // A prepared batch (or slice) is about to go into the table.
    void applying(const core::WatchBatch &batch);
    // The current object changed: `row` in the table, -1 (and "") for none.
    void currentObjectChanged(const QString &uid, int row);

private:
    void showResolved(const kube::ResourceInfo &resolved);
    void noteLoaded();
    void watchNamespaces();
    void onBatch(const core::WatchBatch &batch);
    void drainPrepared(int generation);
    void applyToTable(models::PreparedBatch prepared, std::vector<std::string> &touched);
    void refreshDetail(const std::vector<std::string> &touched);
    void watchEventsOf(const QString &uid, int row);
    void updateStatus();
    void followHealth(kube::Watcher *watcher, bool batches);
    void startTableFetch(const kube::WatchScope &scope);
    void onTableColumns(const std::vector<kube::TableColumn> &columns);
    void onTableRows(const std::vector<kube::TableRow> &rows);
    void noteTableVersions(const core::WatchBatch &batch);

    QPointer<widgets::ClusterView> m_view;
    ClusterSession &m_session;
    ClusterNotices &m_notices;
    QString m_wantedResource = QStringLiteral("namespaces");
    std::unique_ptr<kube::Watcher> m_watcher;
    std::unique_ptr<kube::Watcher> m_namespaceWatcher;
    std::unique_ptr<kube::TableFetcher> m_tableFetcher;
    std::vector<int> m_tableColumnOf; // model server column -> column of the server's Table
    QSet<QString> m_namespaceNames;
    models::ObjectTableModel m_model;
    models::EventTableModel m_events;
    std::unique_ptr<kube::Watcher> m_eventsWatcher;
    QString m_currentUid;
    QString m_shownKind;                           // qualified name of what m_watcher watches
    std::optional<kube::ResourceInfo> m_shownInfo; // and the resource itself
    bool m_loaded = false;                         // listed and discovered: see noteLoaded()
    bool m_listed = false;                         // the shown resource's first list is in the table
    // Batches are decoded in arrival order on one worker thread, applied in that order here.
    QThreadPool m_pool;
    static constexpr std::size_t kApplySliceEvents = 250; // the most events one table update applies
    QTimer m_drainTimer;
    std::deque<QFuture<models::PreparedBatch>> m_preparing;
    int m_generation = 0;
};

} // namespace fieldscope::app
