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
class SettingsDialog;
class ContextSwitcher;
class WatchStatusWidget;

class MainWindow : public QMainWindow
{
    Q_OBJECT
public:
    // Geometry, dock layout and table headers into the settings (closing does it; so does a quit
    // on SIGTERM, which closes no window).
    void saveWindowState();
    explicit MainWindow(QWidget *parent = nullptr);

    // A new tab for a cluster; the window owns it.
    ClusterView *addCluster(const QString &title);
    ClusterView *currentCluster() const;
    ClusterView *cluster(int index) const;
    int clusterCount() const;
    void setCurrentCluster(ClusterView *view);
    QTabWidget *tabs() const { return m_tabs; }
    ContextSwitcher *contextSwitcher() const { return m_contexts; }
    WatchStatusWidget *watchStatus() const { return m_watchStatus; }
    bool isBusyIndicatorShown() const;

    // Ctrl+K: the palette over the current cluster's kinds and objects (returns the open dialog).
    class CommandPalette *openCommandPalette();
    void showShortcuts();
    void showSettings();
    // The busy indicator for long operations outside the watches (connecting, loading contexts).
    void setBusy(const QString &what, bool busy);

Q_SIGNALS:
    void clusterCloseRequested(fieldscope::widgets::ClusterView *view);
    // File → New Object… on the cluster of `view`.
    void newObjectRequested(fieldscope::widgets::ClusterView *view);
    // The settings dialog was just created (before it shows): the app fills it with the settings
    // and keeps what OK accepts (SettingsDialog::settingsAccepted).
    void settingsOpened(fieldscope::widgets::SettingsDialog *dialog);

protected:
    void closeEvent(QCloseEvent *event) override;

private:
    bool confirmUnsentEdits();
    void updateStatus();
    void createActions();
    void showOpenContext();

    QTabWidget *m_tabs;
    QList<QAction *> m_windowActions; // every menu action, for the shortcuts list
    ContextSwitcher *m_contexts;
    QString m_busyWhat;
    WatchStatusWidget *m_watchStatus;
    QLabel *m_busyLabel;
    QProgressBar *m_busy;
};

} // namespace fieldscope::widgets
