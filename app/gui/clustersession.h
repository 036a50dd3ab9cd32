#pragma once
// ClusterSession: one job: the connection to one cluster. Connects (the kubeconfig and the files
// it names are read on a worker of the global pool), keeps the connection and its ApiClient, runs
// discovery (the cached snapshot at once, refreshed from the server) and counts each kind's
// objects for the kinds tree, a few requests at a time. Lives on the GUI thread; the client's
// requests run on the transport's network thread and each count's page is decoded on a worker of
// the global pool. Owned by the ClusterController, which calls close() only after the parts that
// send through the client have stopped.
#include "kube/apiclient.h"
#include "kube/connection.h"
#include "kube/discovery.h"
#include "models/resourcekindsmodel.h"

#include <QFutureWatcher>
#include <QObject>
#include <QPointer>

#include <deque>
#include <memory>

namespace fieldscope::widgets {
class ClusterView;
}

namespace fieldscope::app {

class ClusterNotices;

class ClusterSession : public QObject
{
    Q_OBJECT
public:
    ClusterSession(widgets::ClusterView *view, ClusterNotices &notices);

    // Loads the kubeconfig on a worker thread and connects; "" = kubectl's defaults.
    void open(const QString &kubeconfigPath, const QString &context);
    // Teardown: drops discovery and the client (with every request still out), then waits for a
    // connect in flight.
    void close();

    // Null until connected.
    std::shared_ptr<kube::Connection> connection() const { return m_connection; }
    kube::ApiClient *client() const { return m_client.get(); }
    const kube::Discovery *discovery() const { return m_discovery.get(); }
    QString contextName() const { return m_contextName; }
    // clusterIdentityOf() the connection ("" until connected): per-cluster choices' key.
    QString clusterIdentity() const { return m_clusterIdentity; }
    models::ResourceKindsModel *kindsModel() { return &m_kinds; }
    // Every kind's count has been asked for and answered (or given up on).
    bool countsSettled() const { return m_countsPending == 0; }

    // The view leaves "Discovering resource types…": connected, the server's version not yet known.
    void showConnected();
    // What the table shows: its row in the kinds tree is made current again after the tree is
    // reset, and once its list is in (`listed`) the table's row count is its count, so a count
    // request answering later (older) is dropped.
    void setShownKind(const QString &kind, bool listed);

Q_SIGNALS:
    // Connected, before discovery starts: what records the cluster must exist by the time the
    // first answer of discovery (the cache file's, at once) may start the shown watch.
    void connected();
    // Discovery learned more but has not finished once for this connection.
    void discoveryProgressed();
    // Discovery finished: `first` for the first time on this connection (a refresh follows).
    void discovered(bool first);
    void failed(const QString &message);

private:
    void onConnected(core::Result<kube::Connection> result);
    void startDiscovery();
    void onDiscoveryProgress();
    void onDiscovered();
    void fetchCounts();
    void fetchNextCounts();
    void countKind(const kube::ResourceInfo &info, const QString &kind);

    QPointer<widgets::ClusterView> m_view;
    ClusterNotices &m_notices;
    QString m_contextName;
    QString m_clusterIdentity;
    std::shared_ptr<kube::Connection> m_connection;
    std::unique_ptr<kube::ApiClient> m_client;
    std::unique_ptr<kube::Discovery> m_discovery;
    models::ResourceKindsModel m_kinds;
    QString m_shownKind;                           // see setShownKind()
    bool m_shownListed = false;                    // ... and whether its list is in the table
    int m_countsPending = 0;                       // kinds whose count request has not answered yet (queued included)
    std::deque<models::ResourceKind> m_countQueue; // kinds whose count request is not sent yet
    int m_countsInFlight = 0;
    bool m_discovered = false;          // onDiscovered() ran once for this connection
    bool m_discoveryFromServer = false; // ... with what the server said, not only the cache file
    QFutureWatcher<core::Result<kube::Connection>> m_connecting;
};

} // namespace fieldscope::app
