#include "widgets/namespaceselector.h"

#include "widgets/plaintext.h"

#include <QGuiApplication>
#include <QMenu>

namespace fieldscope::widgets {

NamespaceSelector::NamespaceSelector(QWidget *parent) : QToolButton(parent), m_menu(new QMenu(this))
{
    setObjectName(QStringLiteral("namespaceSelector"));
    setPopupMode(QToolButton::InstantPopup);
    setToolButtonStyle(Qt::ToolButtonTextOnly);
    setMenu(m_menu);
    setToolTip(tr("Namespaces to show (Ctrl+click an entry to pick several)"));
    rebuildMenu();
    updateText();
}

void NamespaceSelector::setAvailable(const QStringList &namespaces)
{
    QStringList sorted = namespaces;
    sorted.sort();
    if (sorted == m_available)
        return;
    m_available = sorted;
    rebuildMenu();
}

void NamespaceSelector::setSelected(const QStringList &namespaces)
{
    QStringList sorted = namespaces;
    sorted.sort();
    sorted.removeDuplicates();
    if (sorted == m_selected)
        return;
    m_selected = sorted;
    rebuildMenu();
    updateText();
    Q_EMIT selectionChanged(m_selected);
}

void NamespaceSelector::rebuildMenu()
{
    m_menu->clear();
    QAction *all = m_menu->addAction(tr("All namespaces"));
    all->setCheckable(true);
    all->setChecked(m_selected.isEmpty());
    connect(all, &QAction::triggered, this, [this] { setSelected({}); });
    m_menu->addSeparator();
    QStringList shown = m_available;
    for (const QString &s : std::as_const(m_selected)) // a chosen namespace that vanished stays visible
        if (!shown.contains(s))
            shown << s;
    for (const QString &ns : std::as_const(shown)) {
        QAction *a = m_menu->addAction(actionText(ns));
        a->setCheckable(true);
        a->setChecked(m_selected.contains(ns));
        connect(a, &QAction::triggered, this, [this, ns](bool checked) {
            // A plain click picks one namespace; Ctrl+click adds or removes it.
            if (!(QGuiApplication::keyboardModifiers() & Qt::ControlModifier)) {
                setSelected({ns});
                return;
            }
            QStringList next = m_selected;
            if (checked)
                next << ns;
            else
                next.removeAll(ns);
            setSelected(next);
        });
    }
}

void NamespaceSelector::updateText()
{
    if (m_selected.isEmpty())
        setText(tr("All namespaces"));
    else if (m_selected.size() == 1)
        setText(tr("Namespace: %1").arg(actionText(m_selected.first()))); // a server's name: '&' is no mnemonic
    else
        setText(tr("%n namespaces", nullptr, int(m_selected.size())));
}

} // namespace fieldscope::widgets
