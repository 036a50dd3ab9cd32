#include "widgets/plaintable.h"

#include "widgets/plaintext.h"

#include <QHeaderView>
#include <QTableView>

namespace fieldscope::widgets {

QTableView *plainTable(QWidget *parent, const char *objectName)
{
    auto *t = new QTableView(parent);
    t->setObjectName(QString::fromLatin1(objectName));
    t->setSelectionBehavior(QAbstractItemView::SelectRows);
    t->setSelectionMode(QAbstractItemView::SingleSelection);
    t->setShowGrid(false);
    t->setAlternatingRowColors(true);
    t->setWordWrap(false);
    t->verticalHeader()->hide();
    t->verticalHeader()->setDefaultSectionSize(t->fontMetrics().height() + 8);
    t->horizontalHeader()->setStretchLastSection(true);
    t->horizontalHeader()->setDefaultAlignment(Qt::AlignLeft | Qt::AlignVCenter);
    showPlainText(t); // events, versions: server strings
    return t;
}

} // namespace fieldscope::widgets
