#pragma once
// MainWindow: composes one ClusterView per open cluster (tabs) and the status bar, which shows
// the current cluster's watch health. It knows views only; the composition root (app/) creates
// a controller per cluster and feeds its ClusterView.
#include <QMainWindow>

class QLabel;
class QProgressBar;
class QTabWidget;

namespace fieldscope::widgets {

class ClusterView;

class MainWindow : public QMainWindow
{
    Q_OBJECT
public:
    explicit MainWindow(QWidget *parent = nullptr);

    // A new tab for a cluster; the window owns it.
    ClusterView *addCluster(const QString &title);
    ClusterView *currentCluster() const;
    ClusterView *cluster(int index) const;
    int clusterCount() const;
    void setCurrentCluster(ClusterView *view);
    QTabWidget *tabs() const { return m_tabs; }

Q_SIGNALS:
    void clusterCloseRequested(fieldscope::widgets::ClusterView *view);
    void currentClusterChanged(fieldscope::widgets::ClusterView *view);

private:
    void updateStatus();

    QTabWidget *m_tabs;
    QLabel *m_watchLabel;
    QProgressBar *m_busy;
};

} // namespace fieldscope::widgets
