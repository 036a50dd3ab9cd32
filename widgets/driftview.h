#pragma once
// DriftView: the window's Drift view (docs/history.md, "Drift"): the fields of one kind's objects,
// in the namespaces the table shows, that an Apply manager set and another manager has changed or
// taken since (models/driftmodel.h), sortable by any column. A click or Enter on a row asks to see
// that object's History at the change. "Give back to <applier>" asks first, naming the object, the
// field and both values, then asks for the applied value to be written back only if the field
// still has the value shown (a JSON Patch test + replace); where that cannot be said honestly
// (the applied value was not recorded, the field is gone, the applier never set it) the button is
// off and its tooltip says why. It knows models and views only: the composition root
// (app/gui/clusterdrift.h) computes the drift and writes. Lives on the GUI thread.
#include "core/drift/driftreport.h"

#include <QWidget>

class QLabel;
class QMessageBox;
class QPushButton;
class QSortFilterProxyModel;
class QTableView;

namespace fieldscope::models {
class DriftModel;
}

namespace fieldscope::widgets {

class DriftView : public QWidget
{
    Q_OBJECT
public:
    explicit DriftView(QWidget *parent = nullptr);

    // The rows (owned by the caller; null: nothing can be computed here, a recorded history).
    void setModel(models::DriftModel *model);
    models::DriftModel *model() const { return m_model; }
    // What the rows are about: "configmaps in gui-drift".
    void setScope(const QString &scope);
    // A run over `objects` objects started.
    void showComputing(int objects);
    // The run finished: the status line counts the rows, and says what limited them.
    void showFinished(const QStringList &problems);
    // A line about something else (a write's outcome); replaces the status until the next run.
    void showMessage(const QString &message);
    bool isComputing() const { return m_computing; }
    QString statusText() const;

    QTableView *table() const { return m_table; }
    QPushButton *refreshButton() const { return m_refresh; }
    QPushButton *giveBackButton() const { return m_giveBack; }
    // The finding of the current row; null when none.
    const core::DriftFinding *currentFinding() const;
    // Why `finding` cannot be given back to its applier ("" = it can).
    static QString giveBackRefusal(const core::DriftFinding &finding);
    // Asks (a QMessageBox named "giveBackBox", not waited for); Give back emits giveBackConfirmed.
    void requestGiveBack();

Q_SIGNALS:
    void refreshRequested();
    // A click or Enter on a row: show that object's History at finding.now.resourceVersion.
    void findingActivated(const fieldscope::core::DriftFinding &finding);
    // The person confirmed: write finding.appliedValue only if the field is still finding.now.value.
    void giveBackConfirmed(const fieldscope::core::DriftFinding &finding);

private:
    void activate(const QModelIndex &proxyIndex);
    void updateGiveBack();
    void updateCounts();

    models::DriftModel *m_model = nullptr;
    QSortFilterProxyModel *m_proxy;
    QLabel *m_title;
    QLabel *m_status;
    QTableView *m_table;
    QPushButton *m_giveBack;
    QPushButton *m_refresh;
    QStringList m_problems;
    bool m_computing = false;
};

} // namespace fieldscope::widgets
