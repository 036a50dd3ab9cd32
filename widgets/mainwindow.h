#pragma once
// MainWindow: composes the pages of one cluster connection. It knows models and views only; the
// composition root (app/) connects watchers to models and tells it about connection state.
#include <QMainWindow>

class QLabel;
class QLineEdit;
class QSortFilterProxyModel;
class QTableView;
class QListWidget;
class QProgressBar;

namespace fieldscope::models {
class ObjectTableModel;
}

namespace fieldscope::widgets {

class MainWindow : public QMainWindow
{
    Q_OBJECT
public:
    explicit MainWindow(QWidget *parent = nullptr);

    // Connection banner: context, server, version, and warnings such as insecure TLS.
    void setConnection(const QString &context, const QString &server, const QString &version);
    void setConnectionWarning(const QString &warning);
    void setConnecting(const QString &what);
    void setConnectionError(const QString &error);
    void setSandboxState(const QString &state); // "" hides it

    // The object table of the current resource kind.
    void setObjectModel(models::ObjectTableModel *model, const QString &resourceTitle, bool namespaced);
    QTableView *objectTable() const { return m_table; }
    QLineEdit *filterEdit() const { return m_filter; }

    // Resource kinds from discovery (grouped label, count unknown until watched).
    void setResourceKinds(const QStringList &kinds, const QString &current);

    // Status bar: watch health of the shown resource.
    void setWatchStatus(const QString &status, bool busy);

Q_SIGNALS:
    void resourceKindChosen(const QString &kind);

private:
    QLabel *m_contextLabel;
    QLabel *m_versionLabel;
    QLabel *m_warningLabel;
    QLabel *m_sandboxLabel;
    QLabel *m_titleLabel;
    QLineEdit *m_filter;
    QTableView *m_table;
    QListWidget *m_kinds;
    QSortFilterProxyModel *m_proxy;
    QLabel *m_watchLabel;
    QProgressBar *m_busy;
};

} // namespace fieldscope::widgets
