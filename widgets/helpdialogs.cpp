#include "widgets/helpdialogs.h"

#include <QAction>
#include <QDialogButtonBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QTableWidget>
#include <QVBoxLayout>

#include <algorithm>

namespace fieldscope::widgets {

// Keys handled inside views rather than by the window's menu actions.
QList<QPair<QString, QString>> ShortcutsDialog::keysInViews()
{
    return {
        {tr("↑ ↓ / Page Up / Page Down"), tr("Move in lists and tables")},
        {tr("Enter (kinds list, Find a kind)"), tr("Show the chosen kind's objects")},
        {tr("Enter (object table)"), tr("Go into the object's detail (the current tab)")},
        {tr("Esc (detail)"), tr("Back to the object table")},
        {tr("↓ or Enter (filter)"), tr("Into the table")},
        {tr("Esc (filter)"), tr("Clear the filter")},
        {tr("Ctrl+click (namespaces)"), tr("Show several namespaces")},
        {tr("F (kinds list)"), tr("Pin or unpin the chosen kind")},
        {tr("↑ ↓ (History)"), tr("Step through versions; the diff follows")},
        {tr("Ctrl+click (History)"), tr("Compare any two versions")},
        {tr("Ctrl+Return (editor)"), tr("Write the buffer")},
        {tr("Enter (context list)"), tr("Open the chosen context")},
    };
}

// Every window action with a key, as its menu names it: the list cannot miss one.
QList<QPair<QString, QString>> ShortcutsDialog::shortcuts(const QList<QAction *> &windowActions)
{
    QList<QPair<QString, QString>> rows;
    for (const QAction *a : windowActions)
        if (!a->shortcut().isEmpty())
            rows.append({a->shortcut().toString(QKeySequence::NativeText),
                         QString(a->text()).remove(u'&').remove(u'…')});
    return rows + keysInViews();
}

ShortcutsDialog::ShortcutsDialog(const QList<QAction *> &windowActions, QWidget *parent) : QDialog(parent)
{
    setObjectName(QStringLiteral("shortcutsDialog"));
    setWindowTitle(tr("Keyboard shortcuts"));
    resize(620, 560);
    auto *layout = new QVBoxLayout(this);
    const auto list = shortcuts(windowActions);
    auto *table = new QTableWidget(int(list.size()), 2, this);
    table->setObjectName(QStringLiteral("shortcutsTable"));
    table->setHorizontalHeaderLabels({tr("Keys"), tr("Action")});
    table->verticalHeader()->hide();
    table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    table->setShowGrid(false);
    table->horizontalHeader()->setStretchLastSection(true);
    table->horizontalHeader()->setDefaultAlignment(Qt::AlignLeft);
    for (int i = 0; i < list.size(); ++i) {
        table->setItem(i, 0, new QTableWidgetItem(list[i].first));
        table->setItem(i, 1, new QTableWidgetItem(list[i].second));
    }
    table->resizeColumnToContents(0);
    layout->addWidget(table);
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    layout->addWidget(buttons);
}

} // namespace fieldscope::widgets
