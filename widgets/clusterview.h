#pragma once
// ClusterView: everything shown for one open cluster: the connection banner, the resource kinds,
// the object table (and beside it, in a tab once asked for, the Drift view) and the detail pane.
// One tab of the MainWindow. It knows models and views only; the composition root
// (app/ClusterController) feeds it. Lives on the GUI thread.
#include "widgets/watchstatus.h"

#include <QWidget>

class QLabel;
class QSplitter;
class QTabWidget;

namespace fieldscope::models {
class ObjectTableModel;
class ResourceKindsModel;
} // namespace fieldscope::models

namespace fieldscope::widgets {

class ObjectTablePage;
class ResourceKindsView;
class DetailPane;
class DriftView;

class ClusterView : public QWidget
{
    Q_OBJECT
public:
    explicit ClusterView(QWidget *parent = nullptr);

    // Connection banner: context, server, version, and warnings such as insecure TLS.
    void setConnection(const QString &context, const QString &server, const QString &version);
    // A recorded history opened without a cluster (fieldscope --open FILE): nothing is connected.
    void setRecordedHistory(const QString &name, const QString &file);
    void setConnectionWarning(const QString &warning);
    // Which of what the banner shows are errors (recording failing), not described choices (TLS
    // verification off): screenshots and tests treat an unexpected error as a failure.
    void setShownErrors(const QStringList &errors);
    QStringList shownErrors() const;
    void setConnecting(const QString &what);
    void setConnectionError(const QString &error);
    void setSandboxState(const QString &state); // "" hides it
    // "Background recording since 14:02" while fieldscope-record@.service records this cluster.
    void setBackgroundRecording(const QString &text, const QString &toolTip); // "" hides it
    QString backgroundRecording() const;
    QString contextName() const { return m_context; }
    // Which cluster this is (app's clusterIdentityOf: SHA-256 of server URL and CA bundle) and
    // its server: per-cluster choices (Settings' Secret opt-in) are keyed by the identity.
    void setClusterIdentity(const QString &identity, const QString &server);
    QString clusterIdentity() const { return m_identity; }
    QString serverUrl() const { return m_server; }
    // The context this tab was opened with, before the connection names it ("" = the
    // kubeconfig's current one).
    void setRequestedContext(const QString &context);
    QString requestedContext() const { return m_requested; }
    QString connectionState() const { return m_state; }

    void setKindsModel(models::ResourceKindsModel *model);
    void setObjectModel(models::ObjectTableModel *model, const QString &title, bool namespaced,
                        const QString &resourceKey);
    void setCurrentKind(const QString &qualifiedName);
    // As if the user picked the kind in the list (command palette).
    void chooseKind(const QString &qualifiedName);

    // A line about the connection before (or besides) the watches: "Connecting…", an error.
    void setWatchStatus(const QString &status, bool busy);
    QString watchStatus() const { return m_watchStatus; }
    bool isBusy() const { return m_busy; }
    // Health of every watch this cluster runs, the shown resource first (the status bar shows
    // the current tab's).
    void setWatches(const QList<WatchHealth> &watches);
    const QList<WatchHealth> &watches() const { return m_watches; }

    // The splitters between kinds, table and detail (kept in QSettings by the main window).
    QByteArray saveLayout() const;
    void restoreLayout(const QByteArray &state);

    ObjectTablePage *tablePage() const { return m_table; }
    ResourceKindsView *kindsView() const { return m_kinds; }
    DetailPane *detailPane() const { return m_detail; }
    // The Drift view of the shown kind in the table's namespaces: a tab beside the objects from
    // the first showDriftView() (Go → Drift) until its tab is closed.
    DriftView *driftView() const { return m_drift; }
    void showDriftView();
    bool isDriftViewShown() const;

Q_SIGNALS:
    void resourceKindChosen(const QString &qualifiedName);
    // The Drift view was opened (or brought forward): its rows are computed again.
    void driftViewOpened();
    void statusChanged();
    void connectionChanged();

private:
    void buildTableTabs();

    QString m_context;
    QString m_identity, m_server;
    QString m_requested;
    QString m_state;
    QString m_connectionError;    // setConnectionError's, until the next connection attempt
    QStringList m_reportedErrors; // setShownErrors'
    QLabel *m_contextLabel;
    QLabel *m_versionLabel;
    QLabel *m_warningLabel;
    QLabel *m_sandboxLabel;
    QLabel *m_recordingLabel;
    ResourceKindsView *m_kinds;
    QTabWidget *m_tableTabs; // the objects, and the Drift view once opened
    ObjectTablePage *m_table;
    DriftView *m_drift;
    DetailPane *m_detail;
    QSplitter *m_split;
    QSplitter *m_rightSplit;
    QString m_watchStatus;
    bool m_busy = false;
    QList<WatchHealth> m_watches;
};

} // namespace fieldscope::widgets
