#pragma once
// ObjectTablePage: the objects of one resource kind: title, namespace selector, quick filter
// (name text and label selector terms), and the table over an ObjectViewModel ("/" in the main
// window focuses the filter). Lives on the GUI thread.
//
// Selection and scroll position survive watch updates: the view model keeps persistent indexes
// exact, and when the user has scrolled away from the top the page keeps the first visible
// object in place while rows are inserted or removed above it.
#include <QPersistentModelIndex>
#include <QWidget>

#include <string>

class QHBoxLayout;
class QLabel;
class QLineEdit;
class QTableView;

namespace fieldscope::models {
class ObjectTableModel;
class ObjectViewModel;
} // namespace fieldscope::models

namespace fieldscope::widgets {

class NamespaceSelector;

// The object table's look and behaviour: whole-row extended selection, sortable, movable
// columns, alternating rows, fixed row height, cached text painting (TextCellDelegate). Shared
// with bench/bench_table so the benchmark measures the table users get.
void setUpObjectTable(QTableView *table);

class ObjectTablePage : public QWidget
{
    Q_OBJECT
public:
    explicit ObjectTablePage(QWidget *parent = nullptr);

    // Shows MODEL (owned by the caller). `resourceKey` names the column layout to remember.
    void setModel(models::ObjectTableModel *model, const QString &title, bool namespaced,
                  const QString &resourceKey = {});
    void setAvailableNamespaces(const QStringList &namespaces);

    QTableView *table() const { return m_table; }
    QLineEdit *filterEdit() const { return m_filter; }
    NamespaceSelector *namespaceSelector() const { return m_namespaces; }
    models::ObjectViewModel *viewModel() const { return m_view; }

    QString currentUid() const;
    // Selects the object and scrolls to it; false when it is not shown.
    bool selectUid(const QString &uid);
    bool selectName(const QString &namespace_, const QString &name);
    void focusFilter();

protected:
    bool eventFilter(QObject *watched, QEvent *event) override;

public:
    // Header layout (order, widths, hidden columns, sort) for QSettings, per resource key and
    // number of columns ("columns/<key>/<n>"); saved when the kind changes, before server
    // columns leave, and by the main window on quit.
    QByteArray headerState() const;
    void restoreHeaderState(const QByteArray &state);
    void saveHeaderState();

Q_SIGNALS:
    void currentObjectChanged(const QString &uid); // "" when nothing is current
    void objectActivated(const QString &uid);      // Enter or double click

private:
    QHBoxLayout *buildTitleRow();
    void connectControls();
    void anchorBefore();
    void anchorAfter();
    void arrangeServerColumns();
    QString settingsKey() const;
    void restoreSavedHeaderState();
    void showHeaderMenu(const QPoint &pos);
    void updateCount();

    QLabel *m_title;
    QLabel *m_count;
    NamespaceSelector *m_namespaces;
    QLineEdit *m_filter;
    QLabel *m_filterError;
    QTableView *m_table;
    models::ObjectViewModel *m_view;
    QString m_resourceKey;
    QPersistentModelIndex m_anchor;
    int m_anchorOffset = 0;
    bool m_namespaced = true;
};

} // namespace fieldscope::widgets
