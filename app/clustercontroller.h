#pragma once
// ClusterController: the composition root for one cluster connection in the GUI. Connects off
// the GUI thread, runs discovery, watches the chosen resource kind and feeds the table model;
// tells the MainWindow what happens. Lives on the GUI thread.
#include "kube/apiclient.h"
#include "kube/connection.h"
#include "kube/discovery.h"
#include "kube/watcher.h"
#include "models/objecttablemodel.h"

#include <QFutureWatcher>
#include <QObject>

#include <memory>

namespace fieldscope::widgets {
class MainWindow;
}

namespace fieldscope::app {

class ClusterController : public QObject
{
    Q_OBJECT
public:
    ClusterController(widgets::MainWindow *window, QObject *parent = nullptr);
    ~ClusterController() override;

    // Loads the kubeconfig on a worker thread and connects; "" = kubectl's defaults.
    void open(const QString &kubeconfigPath, const QString &context);
    // Watches RESOURCE (any spelling discovery resolves) into the table.
    void showResource(const QString &resource);

    bool isLoaded() const { return m_watcher && m_watcher->initialListComplete(); }
    models::ObjectTableModel *model() { return &m_model; }
    kube::Watcher *watcher() const { return m_watcher.get(); }
    const kube::DiscoverySnapshot *discovery() const { return m_discovery ? &m_discovery->snapshot() : nullptr; }

Q_SIGNALS:
    void loaded();  // the shown resource's first list completed
    void failed(const QString &message);

private:
    void onConnected(core::Result<kube::Connection> result);
    void onDiscovered();
    void updateStatus();

    widgets::MainWindow *m_window;
    QString m_contextName;
    QString m_wantedResource = QStringLiteral("namespaces");
    std::shared_ptr<kube::Connection> m_connection;
    std::unique_ptr<kube::ApiClient> m_client;
    std::unique_ptr<kube::Discovery> m_discovery;
    std::unique_ptr<kube::Watcher> m_watcher;
    models::ObjectTableModel m_model;
    QFutureWatcher<core::Result<kube::Connection>> m_connecting;
};

} // namespace fieldscope::app
