#include "widgets/conflictpanel.h"

#include "core/edit/editsession.h"
#include "widgets/plaintext.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QTableWidget>
#include <QVBoxLayout>

namespace fieldscope::widgets {

namespace {

constexpr int kChoiceColumn = 4;

QStringList qList(const std::vector<std::string> &list)
{
    QStringList out;
    for (const auto &s : list)
        out << QString::fromStdString(s);
    return out;
}

} // namespace

ConflictPanel::ConflictPanel(QWidget *parent) : QWidget(parent)
{
    auto *l = new QVBoxLayout(this);
    l->setContentsMargins(0, 0, 0, 0);
    m_table = new QTableWidget(0, 5, this);
    m_table->setObjectName(QStringLiteral("conflictTable"));
    showPlainText(m_table); // managers and values from the server
    m_table->setHorizontalHeaderLabels({tr("Field"), tr("Owned by"), tr("Live value"), tr("Your value"),
                                        tr("Resolution")});
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->verticalHeader()->hide();
    m_table->horizontalHeader()->setStretchLastSection(true);
    l->addWidget(m_table, 1);
    auto *buttons = new QHBoxLayout;
    auto *force = new QPushButton(tr("Force (take the fields)"), this);
    force->setObjectName(QStringLiteral("forceButton"));
    force->setToolTip(tr("Send again with force: you become the only owner of these fields"));
    auto *giveUp = new QPushButton(tr("Give the fields up"), this);
    giveUp->setObjectName(QStringLiteral("giveUpButton"));
    giveUp->setToolTip(
        tr("Remove these fields from your buffer and send again: the live values stay, owned by the others"));
    auto *coOwn = new QPushButton(tr("Co-own (take the live values)"), this);
    coOwn->setObjectName(QStringLiteral("coOwnButton"));
    coOwn->setToolTip(tr("Set these fields in your buffer to the live values and send again: an equal value is shared "
                         "with the other owners instead of conflicting"));
    connect(force, &QPushButton::clicked, this, &ConflictPanel::forceRequested);
    connect(giveUp, &QPushButton::clicked, this, [this] { Q_EMIT giveUpRequested(paths()); });
    connect(coOwn, &QPushButton::clicked, this, [this] { Q_EMIT coOwnRequested(paths()); });
    buttons->addWidget(new QLabel(tr("Resolve every conflicting field:"), this), 1);
    buttons->addWidget(giveUp);
    buttons->addWidget(coOwn);
    buttons->addWidget(force);
    l->addLayout(buttons);
    l->addWidget(buildRowChoices());
}

// Field by field: a choice per row (never preselected), then one re-send built from them.
QWidget *ConflictPanel::buildRowChoices()
{
    auto *row = new QWidget(this);
    auto *perRow = new QHBoxLayout(row);
    perRow->setContentsMargins(0, 0, 0, 0);
    m_sendChoices = new QPushButton(tr("Send with these choices"), row);
    m_sendChoices->setObjectName(QStringLiteral("sendChoicesButton"));
    m_sendChoices->setToolTip(
        tr("Rebuild your buffer from each row's choice (give up: removed; co-own: the live value) and send "
           "again, with force only if a row says Force"));
    m_sendChoices->setEnabled(false);
    connect(m_sendChoices, &QPushButton::clicked, this, &ConflictPanel::sendRowChoices);
    perRow->addWidget(new QLabel(tr("Or choose per field in the Resolution column:"), row), 1);
    perRow->addWidget(m_sendChoices);
    return row;
}

QStringList ConflictPanel::paths() const
{
    QStringList out;
    for (const auto &c : m_rows)
        if (!out.contains(c.path))
            out << c.path;
    return out;
}

void ConflictPanel::setRows(const QList<ConflictRow> &rows)
{
    m_rows = rows;
    m_table->setRowCount(int(rows.size()));
    for (int i = 0; i < int(rows.size()); ++i) {
        const ConflictRow &c = rows[i];
        const QString cells[] = {c.path, c.manager, c.liveValue, c.yourValue};
        for (int col = 0; col < kChoiceColumn; ++col)
            m_table->setItem(i, col, new QTableWidgetItem(cells[col]));
        auto *choice = new QComboBox(m_table);
        choice->setObjectName(QStringLiteral("resolution%1").arg(i));
        choice->addItem(tr("— choose —"), int(core::Resolution::Undecided)); // never Force by default
        choice->addItem(tr("Force (take it)"), int(core::Resolution::Force));
        choice->addItem(tr("Give it up"), int(core::Resolution::GiveUp));
        choice->addItem(tr("Co-own (live value)"), int(core::Resolution::CoOwn));
        connect(choice, &QComboBox::currentIndexChanged, this, &ConflictPanel::updateSendChoices);
        m_table->setCellWidget(i, kChoiceColumn, choice);
    }
    m_sendChoices->setEnabled(false);
    m_table->resizeColumnsToContents();
}

void ConflictPanel::updateSendChoices()
{
    bool all = m_table->rowCount() > 0;
    for (int row = 0; row < m_table->rowCount(); ++row)
        if (auto *c = qobject_cast<QComboBox *>(m_table->cellWidget(row, kChoiceColumn));
            !c || c->currentData().toInt() == int(core::Resolution::Undecided))
            all = false;
    m_sendChoices->setEnabled(all);
}

void ConflictPanel::sendRowChoices()
{
    std::vector<std::pair<std::string, core::Resolution>> choices;
    for (int row = 0; row < m_table->rowCount(); ++row) {
        auto *choice = qobject_cast<QComboBox *>(m_table->cellWidget(row, kChoiceColumn));
        const auto resolution = choice ? core::Resolution(choice->currentData().toInt()) : core::Resolution::Undecided;
        choices.emplace_back(m_rows.value(row).path.toStdString(), resolution);
    }
    const auto plan = core::EditSession::planResolution(choices);
    if (!plan)
        return; // a row without a choice: the button is off then anyway
    Q_EMIT rowChoicesMade(qList(plan->giveUp), qList(plan->coOwn), plan->force);
}

} // namespace fieldscope::widgets
