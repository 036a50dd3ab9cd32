#pragma once
// Workspace: the GUI's set of open clusters. Loads the merged kubeconfig's contexts for the
// context switcher (on a worker thread: it reads files), opens a context in its own tab with its
// own ClusterController, closes tabs, and keeps per-user settings (favourites, history
// retention) applied to every cluster. Lives on the GUI thread.
#include "app/gui/clustercontroller.h"
#include "kube/kubeconfig.h"
#include "widgets/settingsdialog.h"

#include <QFutureWatcher>
#include <QObject>
#include <QPointer>

#include <memory>
#include <vector>

namespace fieldscope::widgets {
class MainWindow;
}

namespace fieldscope::app {

class Workspace : public QObject
{
    Q_OBJECT
public:
    explicit Workspace(widgets::MainWindow *window, QObject *parent = nullptr);
    ~Workspace() override;

    // "" = kubectl's defaults ($KUBECONFIG, ~/.kube/config).
    void setKubeconfig(const QString &path);
    void loadContexts();
    // Opens CONTEXT ("" = the kubeconfig's current one) in a new tab, or shows its tab.
    ClusterController *open(const QString &context);
    ClusterController *current() const;
    ClusterController *controllerFor(const QString &context) const;
    int count() const { return int(m_clusters.size()); }

Q_SIGNALS:
    void contextsLoaded(const QStringList &names);
    void opened(fieldscope::app::ClusterController *controller);

private:
    struct Cluster {
        QString context; // as requested ("" = current)
        std::unique_ptr<ClusterController> controller;
    };
    void close(widgets::ClusterView *view);
    void showBackgroundRecording(widgets::SettingsDialog *dialog) const;
    // Settings -> History -> Shared: the URL check and Test connection (off the GUI thread).
    void offerSharedHistoryTest(widgets::SettingsDialog *dialog);
    void runSystemctl(const QPointer<widgets::SettingsDialog> &dialog, const QString &context, bool on);
    // The dialog shows the settings service's values (app/services/settings.h) and keeps what OK
    // accepted through it; then every open cluster follows them.
    void fillSettings(widgets::SettingsDialog *dialog) const;
    void saveSettings(const widgets::SettingsValues &values, const QString &clusterIdentity);
    void applySettings();

    widgets::MainWindow *m_window;
    QString m_kubeconfig;
    std::vector<Cluster> m_clusters;
    QFutureWatcher<core::Result<kube::Kubeconfig>> m_loading;
};

} // namespace fieldscope::app
