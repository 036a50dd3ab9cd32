#pragma once
// ContextSwitcher: every context of the merged kubeconfig (current one first) with its server
// and connection state; choosing one opens it in its own tab, or shows its tab when already
// open. Lives on the GUI thread; the composition root supplies the contexts and states.
#include <QWidget>

class QComboBox;
class QToolButton;

namespace fieldscope::widgets {

struct ContextEntry {
    QString name;
    QString server;
    QString namespace_;
    bool isCurrent = false;
};

class ContextSwitcher : public QWidget
{
    Q_OBJECT
public:
    explicit ContextSwitcher(QWidget *parent = nullptr);

    void setContexts(const QList<ContextEntry> &contexts);
    // "connected · v1.20.2", "connecting…", "failed: …"; "" = not open.
    void setState(const QString &context, const QString &state);
    void setCurrentContext(const QString &context);
    QStringList contextNames() const;
    QComboBox *combo() const { return m_combo; }

Q_SIGNALS:
    void openRequested(const QString &context);

private:
    void updateItem(int index);

    QComboBox *m_combo;
    QToolButton *m_open;
    QList<ContextEntry> m_contexts;
    QHash<QString, QString> m_states;
    bool m_quiet = false;
};

} // namespace fieldscope::widgets
