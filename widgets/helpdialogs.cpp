#include "widgets/helpdialogs.h"

#include <QDialogButtonBox>
#include <QFormLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QSettings>
#include <QSpinBox>
#include <QTableWidget>
#include <QVBoxLayout>

namespace fieldscope::widgets {

QList<QPair<QString, QString>> ShortcutsDialog::shortcuts()
{
    return {
        {tr("Ctrl+K"), tr("Go to a kind or an object")},
        {tr("/"), tr("Filter the object table (names, or labels: app=web, tier!=db, env in (a,b))")},
        {tr("Esc"), tr("Clear the filter")},
        {tr("↑ ↓ / Page Up / Page Down"), tr("Move in lists and tables")},
        {tr("Enter"), tr("Open the chosen kind, object or context")},
        {tr("Ctrl+1 … Ctrl+5"), tr("Detail tabs: Summary, YAML, Ownership, History, Events")},
        {tr("Ctrl+E"), tr("Edit the selected object in its own window (apply, replace, merge patch)")},
        {tr("Ctrl+Return (editor)"), tr("Write the buffer")},
        {tr("↑ ↓ (History)"), tr("Step through versions; the diff follows")},
        {tr("Ctrl+click (History)"), tr("Compare any two versions")},
        {tr("F"), tr("Pin or unpin the chosen kind (in the kinds list)")},
        {tr("Ctrl+Tab / Ctrl+Shift+Tab"), tr("Next / previous cluster tab")},
        {tr("Ctrl+O"), tr("Open another context")},
        {tr("Ctrl+W"), tr("Close the cluster tab")},
        {tr("Ctrl+,"), tr("Settings")},
        {tr("F1"), tr("This list")},
    };
}

ShortcutsDialog::ShortcutsDialog(QWidget *parent) : QDialog(parent)
{
    setObjectName(QStringLiteral("shortcutsDialog"));
    setWindowTitle(tr("Keyboard shortcuts"));
    resize(620, 440);
    auto *layout = new QVBoxLayout(this);
    const auto list = shortcuts();
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

int SettingsDialog::historyVersionsPerObject()
{
    return QSettings().value(QStringLiteral("history/versionsPerObject"), 1000).toInt();
}

QString SettingsDialog::fieldManager()
{
    return QSettings().value(QStringLiteral("writes/fieldManager"), QStringLiteral("fieldscope")).toString();
}

SettingsDialog::SettingsDialog(QWidget *parent) : QDialog(parent)
{
    setObjectName(QStringLiteral("settingsDialog"));
    setWindowTitle(tr("Settings"));
    auto *layout = new QVBoxLayout(this);
    auto *form = new QFormLayout;
    m_retention = new QSpinBox(this);
    m_retention->setObjectName(QStringLiteral("historyRetention"));
    m_retention->setRange(2, 100000);
    m_retention->setValue(historyVersionsPerObject());
    m_retention->setSuffix(tr(" versions per object"));
    m_manager = new QLineEdit(fieldManager(), this);
    m_manager->setObjectName(QStringLiteral("fieldManagerEdit"));
    m_manager->setToolTip(tr("The fieldManager name Fieldscope writes with; it appears in managedFields."));
    form->addRow(tr("History recorded on disk:"), m_retention);
    form->addRow(tr("Field manager name:"), m_manager);
    layout->addLayout(form);
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    connect(buttons, &QDialogButtonBox::accepted, this, [this] {
        QSettings s;
        s.setValue(QStringLiteral("history/versionsPerObject"), m_retention->value());
        const QString m = m_manager->text().trimmed();
        s.setValue(QStringLiteral("writes/fieldManager"), m.isEmpty() ? QStringLiteral("fieldscope") : m);
        accept();
        Q_EMIT settingsChanged();
    });
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    layout->addWidget(buttons);
}

} // namespace fieldscope::widgets
