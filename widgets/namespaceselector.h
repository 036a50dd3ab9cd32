#pragma once
// NamespaceSelector: a tool button whose menu picks all namespaces, one, or several. Lives on
// the GUI thread. The object table filters client-side, so switching is instant.
#include <QToolButton>

class QMenu;

namespace fieldscope::widgets {

class NamespaceSelector : public QToolButton
{
    Q_OBJECT
public:
    explicit NamespaceSelector(QWidget *parent = nullptr);

    void setAvailable(const QStringList &namespaces); // keeps the current choice where possible
    QStringList available() const { return m_available; }
    void setSelected(const QStringList &namespaces); // empty = all
    QStringList selected() const { return m_selected; }

Q_SIGNALS:
    void selectionChanged(const QStringList &namespaces);

private:
    void rebuildMenu();
    void updateText();

    QMenu *m_menu;
    QStringList m_available;
    QStringList m_selected;
};

} // namespace fieldscope::widgets
