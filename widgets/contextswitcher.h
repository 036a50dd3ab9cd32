#pragma once
// ContextSwitcher: every context of the merged kubeconfig (current one first) with its server
// and connection state; choosing one opens it in its own tab, or shows its tab when already
// open. Lives on the GUI thread; the composition root supplies the contexts and states.
#include "widgets/icons.h"

#include <QWidget>

class QComboBox;
class QToolButton;

namespace fieldscope::widgets {

struct ContextEntry {
    QString name;
    QString server;
    QString namespace_;
    bool isCurrent = false;
    bool listed = true; // false: the open context, not (yet) in the loaded list
};

class ContextSwitcher : public QWidget
{
    Q_OBJECT
public:
    explicit ContextSwitcher(QWidget *parent = nullptr);

    void setContexts(const QList<ContextEntry> &contexts);
    // "connected · v1.20.2", "connecting…", "failed: …"; "" = not open.
    void setState(const QString &context, const QString &state);
    // The open context to show; "" = the kubeconfig's current one. Kept until the next call, so
    // a list that arrives later (it is read on a worker thread) still shows it; a context that
    // is open but not in the list is shown anyway.
    void setCurrentContext(const QString &context);
    QString currentContext() const;
    QStringList contextNames() const; // the kubeconfig's contexts
    QComboBox *combo() const { return m_combo; }
    static Icon stateIconFor(const QString &state);

Q_SIGNALS:
    void openRequested(const QString &context);

private:
    void updateItem(int index);
    void rebuild();
    void selectWanted();

    QComboBox *m_combo;
    QToolButton *m_open;
    QList<ContextEntry> m_contexts;
    QHash<QString, QString> m_states;
    QString m_wanted; // see setCurrentContext
    bool m_quiet = false;
};

} // namespace fieldscope::widgets
