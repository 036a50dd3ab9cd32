#include "widgets/consentdecisionsview.h"

#include "widgets/plaintext.h"

#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLocale>
#include <QPushButton>
#include <QTableWidget>
#include <QVBoxLayout>

#include <algorithm>

namespace fieldscope::widgets {

ConsentDecisionsView::ConsentDecisionsView(QWidget *parent) : QWidget(parent)
{
    setObjectName(QStringLiteral("consentDecisions"));
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    m_table = new QTableWidget(0, 6, this);
    m_table->setObjectName(QStringLiteral("consentDecisionsTable"));
    showPlainText(m_table);
    m_table->setHorizontalHeaderLabels({tr("Decision"), tr("Kubeconfig"), tr("Context"), tr("Command"), tr("Server"),
                                        tr("When")});
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->verticalHeader()->hide();
    m_table->horizontalHeader()->setStretchLastSection(true);
    m_table->setWordWrap(false);
    m_table->setToolTip(tr("Answers to \"run this exec credential plugin?\", shared with `fieldscope consent list`. "
                           "A forgotten answer is asked again."));
    layout->addWidget(m_table);
    m_forget = new QPushButton(tr("Forget"), this);
    m_forget->setObjectName(QStringLiteral("consentForget"));
    m_forget->setEnabled(false);
    auto *row = new QHBoxLayout;
    row->addStretch(1);
    row->addWidget(m_forget);
    layout->addLayout(row);
    connect(m_table, &QTableWidget::itemSelectionChanged, this,
            [this] { m_forget->setEnabled(!m_table->selectedItems().isEmpty()); });
    connect(m_forget, &QPushButton::clicked, this, [this] {
        QStringList ids;
        for (const QModelIndex &i : m_table->selectionModel()->selectedRows())
            if (i.row() < m_ids.size())
                ids << m_ids[i.row()];
        if (!ids.isEmpty())
            Q_EMIT forgetRequested(ids);
    });
}

void ConsentDecisionsView::setDecisions(const QList<ConsentDecisionRow> &rows)
{
    m_table->clearContents();
    m_table->setRowCount(int(rows.size()));
    m_ids.clear();
    for (int r = 0; r < rows.size(); ++r) {
        const auto &d = rows[r];
        m_ids << d.id;
        // QTableWidgetItem shows its text as plain text: kubeconfig strings stay literal.
        const QStringList cells{d.allowed ? tr("allowed") : tr("denied"),
                                d.kubeconfig,
                                d.context,
                                d.command,
                                d.server,
                                QLocale().toString(d.when.toLocalTime(), QLocale::ShortFormat)};
        for (int c = 0; c < cells.size(); ++c) {
            auto *item = new QTableWidgetItem(cells[c]);
            item->setToolTip(plainToolTip(cells[c]));
            m_table->setItem(r, c, item);
        }
    }
    m_table->resizeColumnsToContents();
    m_forget->setEnabled(false);
}

} // namespace fieldscope::widgets
