#pragma once
// The remembered exec-plugin decisions in Settings: a small table (decision, kubeconfig, context,
// command, server, when) and a Forget button. It only shows rows and asks: the composition root
// (app/gui/workspace.cpp) reads and changes the store, the same one `fieldscope consent` uses.
// Lives on the GUI thread; every cell is plain text.
#include <QDateTime>
#include <QList>
#include <QWidget>

class QPushButton;
class QTableWidget;

namespace fieldscope::widgets {

struct ConsentDecisionRow {
    QString id; // what forgetRequested() names
    bool allowed = false;
    QString kubeconfig;
    QString context;
    QString command;
    QString server;
    QDateTime when;
};

class ConsentDecisionsView : public QWidget
{
    Q_OBJECT
public:
    explicit ConsentDecisionsView(QWidget *parent = nullptr);
    void setDecisions(const QList<ConsentDecisionRow> &rows);
    QTableWidget *table() const { return m_table; }
    QPushButton *forgetButton() const { return m_forget; }

Q_SIGNALS:
    // The selected rows' ids; the owner forgets them and calls setDecisions() again.
    void forgetRequested(const QStringList &ids);

private:
    QTableWidget *m_table;
    QPushButton *m_forget;
    QStringList m_ids; // per row
};

} // namespace fieldscope::widgets
