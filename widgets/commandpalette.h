#pragma once
// CommandPalette (Ctrl+K): go to a resource kind or an object of the shown kind by typing part
// of its name; arrows and Enter pick. Matching is a plain scan capped at the first matches, fast
// enough for 100,000 objects per keystroke. Lives on the GUI thread.
#include <QDialog>

class QLineEdit;
class QListWidget;

namespace fieldscope::widgets {

class CommandPalette : public QDialog
{
    Q_OBJECT
public:
    struct Entry {
        QString text;   // what is shown and matched: "Deployment  deployments.apps", "default/web"
        QString detail; // shown greyed after the text
        bool isKind = false;
        QString key; // qualified kind name, or object uid
    };
    explicit CommandPalette(QWidget *parent = nullptr);
    void setEntries(std::vector<Entry> entries);
    QLineEdit *input() const { return m_input; }
    QListWidget *list() const { return m_list; }

Q_SIGNALS:
    void kindChosen(const QString &qualifiedName);
    void objectChosen(const QString &uid);

protected:
    bool eventFilter(QObject *watched, QEvent *event) override;

private:
    void refresh();
    void choose();

    QLineEdit *m_input;
    QListWidget *m_list;
    std::vector<Entry> m_entries;
};

} // namespace fieldscope::widgets
