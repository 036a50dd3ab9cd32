#include "widgets/objecttablepage.h"

#include "models/objecttablemodel.h"
#include "models/objectviewmodel.h"
#include "widgets/namespaceselector.h"
#include "widgets/plaintext.h"
#include "widgets/textcelldelegate.h"

#include <QAction>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QKeyEvent>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QMenu>
#include <QScrollBar>
#include <QSettings>
#include <QTableView>
#include <QVBoxLayout>

namespace fieldscope::widgets {

using models::ObjectTableModel;

void setUpObjectTable(QTableView *table)
{
    table->setItemDelegate(new TextCellDelegate(table));
    table->setSelectionBehavior(QAbstractItemView::SelectRows);
    table->setSelectionMode(QAbstractItemView::ExtendedSelection);
    table->setVerticalScrollMode(QAbstractItemView::ScrollPerItem);
    table->setHorizontalScrollMode(QAbstractItemView::ScrollPerPixel);
    table->setSortingEnabled(true);
    table->setAlternatingRowColors(true);
    table->setShowGrid(false);
    table->setWordWrap(false);
    table->setTabKeyNavigation(false);
    table->verticalHeader()->hide();
    table->verticalHeader()->setSectionResizeMode(QHeaderView::Fixed);
    table->verticalHeader()->setDefaultSectionSize(table->fontMetrics().height() + 8);
    QHeaderView *h = table->horizontalHeader();
    h->setStretchLastSection(true);
    h->setSectionsMovable(true);
    h->setHighlightSections(false);
    h->setDefaultAlignment(Qt::AlignLeft | Qt::AlignVCenter);
}

ObjectTablePage::ObjectTablePage(QWidget *parent) : QWidget(parent), m_view(new models::ObjectViewModel(this))
{
    setObjectName(QStringLiteral("objectTablePage"));
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(4);
    layout->addLayout(buildTitleRow());

    m_filterError = plainLabel(new QLabel(this));
    m_filterError->setObjectName(QStringLiteral("filterError"));
    m_filterError->setVisible(false);
    QPalette warn = m_filterError->palette();
    warn.setColor(QPalette::WindowText, QColor(0xc6, 0x28, 0x28));
    m_filterError->setPalette(warn);
    layout->addWidget(m_filterError);

    m_table = new QTableView(this);
    m_table->setObjectName(QStringLiteral("objectTable"));
    m_table->setModel(m_view);
    setUpObjectTable(m_table);
    QHeaderView *h = m_table->horizontalHeader();
    h->setContextMenuPolicy(Qt::CustomContextMenu);
    connect(h, &QHeaderView::customContextMenuRequested, this, &ObjectTablePage::showHeaderMenu);
    layout->addWidget(m_table, 1);

    connectControls();
    // Down from the filter goes to the table, Escape clears the filter.
    m_filter->installEventFilter(this);
}

// The kind's title, the object count, the namespace selector and the filter.
QHBoxLayout *ObjectTablePage::buildTitleRow()
{
    auto *row = new QHBoxLayout;
    m_title = plainLabel(new QLabel(this));
    m_title->setObjectName(QStringLiteral("resourceTitle"));
    QFont bold = m_title->font();
    bold.setBold(true);
    bold.setPointSizeF(bold.pointSizeF() * 1.1);
    m_title->setFont(bold);
    m_count = plainLabel(new QLabel(this));
    m_count->setObjectName(QStringLiteral("objectCount"));
    m_count->setForegroundRole(QPalette::PlaceholderText);
    m_namespaces = new NamespaceSelector(this);
    m_filter = new QLineEdit(this);
    m_filter->setObjectName(QStringLiteral("filterEdit"));
    m_filter->setPlaceholderText(tr("Filter by name, or labels: app=web, tier!=db, env in (a,b), -l selector   ( / )"));
    m_filter->setClearButtonEnabled(true);
    m_filter->setMinimumWidth(280);
    row->addWidget(m_title);
    row->addWidget(m_count);
    row->addStretch(1);
    row->addWidget(m_namespaces);
    row->addWidget(m_filter, 2);
    return row;
}

// The filter and namespace choice narrow the view; the table reports the current object; the
// view's row and column changes keep the scroll position and the column layout.
void ObjectTablePage::connectControls()
{
    connect(m_filter, &QLineEdit::textChanged, this, [this](const QString &t) {
        m_view->setQuickFilter(t);
        const QString err = m_view->quickFilterError();
        m_filterError->setText(err.isEmpty() ? QString() : tr("Label selector ignored: %1").arg(err));
        m_filterError->setVisible(!err.isEmpty());
        updateCount();
    });
    connect(m_namespaces, &NamespaceSelector::selectionChanged, this, [this](const QStringList &ns) {
        m_view->setNamespaces(ns);
        updateCount();
    });
    connect(m_table->selectionModel(), &QItemSelectionModel::currentRowChanged, this, [this](const QModelIndex &cur) {
        Q_EMIT currentObjectChanged(cur.isValid() ? cur.data(ObjectTableModel::UidRole).toString() : QString());
    });
    connect(m_table, &QTableView::activated, this,
            [this](const QModelIndex &i) { Q_EMIT objectActivated(i.data(ObjectTableModel::UidRole).toString()); });

    // Keep the first visible object in place while rows change above it.
    connect(m_view, &QAbstractItemModel::rowsAboutToBeInserted, this, &ObjectTablePage::anchorBefore);
    connect(m_view, &QAbstractItemModel::rowsAboutToBeRemoved, this, &ObjectTablePage::anchorBefore);
    connect(m_view, &QAbstractItemModel::layoutAboutToBeChanged, this, &ObjectTablePage::anchorBefore);
    connect(m_view, &QAbstractItemModel::rowsInserted, this, &ObjectTablePage::anchorAfter);
    connect(m_view, &QAbstractItemModel::rowsRemoved, this, &ObjectTablePage::anchorAfter);
    connect(m_view, &QAbstractItemModel::layoutChanged, this, &ObjectTablePage::anchorAfter);
    connect(m_view, &QAbstractItemModel::columnsInserted, this, &ObjectTablePage::arrangeServerColumns);
    // The server's columns leave before the next kind's model is set (and on a relist that
    // changes them): remember the layout they were part of while the header still has them.
    connect(m_view, &QAbstractItemModel::columnsAboutToBeRemoved, this, &ObjectTablePage::saveHeaderState);
}

void ObjectTablePage::setModel(ObjectTableModel *model, const QString &title, bool namespaced,
                               const QString &resourceKey)
{
    saveHeaderState();
    m_resourceKey = resourceKey;
    m_namespaced = namespaced;
    if (m_view->objectSource() != model) {
        m_view->setSourceModel(model);
        if (model)
            connect(model, &QAbstractItemModel::rowsInserted, this, &ObjectTablePage::updateCount,
                    Qt::UniqueConnection);
        if (model)
            connect(model, &QAbstractItemModel::rowsRemoved, this, &ObjectTablePage::updateCount, Qt::UniqueConnection);
    }
    m_title->setText(visibleText(title));
    m_namespaces->setVisible(namespaced);
    m_view->setNamespaces(namespaced ? m_namespaces->selected() : QStringList());
    QHeaderView *h = m_table->horizontalHeader();
    m_table->setColumnHidden(ObjectTableModel::Namespace, !namespaced);
    // Defaults that leave "Last changed by" readable beside a server column or two at 1280 px;
    // each kind then keeps what the user makes of them.
    h->resizeSection(ObjectTableModel::Name, 250);
    h->resizeSection(ObjectTableModel::Namespace, 130);
    h->resizeSection(ObjectTableModel::Age, 60);
    h->resizeSection(ObjectTableModel::ResourceVersion, 125);
    h->resizeSection(ObjectTableModel::Managers, 85);
    m_table->sortByColumn(ObjectTableModel::Name, Qt::AscendingOrder);
    restoreSavedHeaderState();
    updateCount();
}

void ObjectTablePage::setAvailableNamespaces(const QStringList &namespaces)
{
    m_namespaces->setAvailable(namespaces);
}

QString ObjectTablePage::currentUid() const
{
    const QModelIndex cur = m_table->currentIndex();
    return cur.isValid() ? cur.data(ObjectTableModel::UidRole).toString() : QString();
}

bool ObjectTablePage::selectUid(const QString &uid)
{
    const int row = m_view->rowOfUid(uid.toStdString());
    if (row < 0)
        return false;
    const QModelIndex i = m_view->index(row, ObjectTableModel::Name);
    m_table->selectionModel()->setCurrentIndex(i, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
    m_table->scrollTo(i, QAbstractItemView::PositionAtCenter);
    return true;
}

bool ObjectTablePage::selectName(const QString &namespace_, const QString &name)
{
    auto *src = m_view->objectSource();
    if (!src)
        return false;
    const std::string wantName = name.toStdString(), wantNamespace = namespace_.toStdString();
    for (int r = 0; r < src->rowCount(); ++r) {
        const auto &row = src->row(r);
        if (row.name() == wantName && (wantNamespace.empty() || row.namespace_() == wantNamespace))
            return selectUid(models::viewText(row.uid()));
    }
    return false;
}

void ObjectTablePage::focusFilter()
{
    m_filter->setFocus(Qt::ShortcutFocusReason);
    m_filter->selectAll();
}

bool ObjectTablePage::eventFilter(QObject *watched, QEvent *event)
{
    if (watched == m_filter && event->type() == QEvent::KeyPress) {
        auto *k = static_cast<QKeyEvent *>(event);
        if (k->key() == Qt::Key_Down || k->key() == Qt::Key_Return || k->key() == Qt::Key_Enter) {
            m_table->setFocus(Qt::OtherFocusReason);
            if (!m_table->currentIndex().isValid() && m_view->rowCount() > 0)
                m_table->setCurrentIndex(m_view->index(0, ObjectTableModel::Name));
            return true;
        }
        if (k->key() == Qt::Key_Escape && !m_filter->text().isEmpty()) {
            m_filter->clear();
            return true;
        }
    }
    return QWidget::eventFilter(watched, event);
}

void ObjectTablePage::anchorBefore()
{
    if (m_anchor.isValid())
        return;
    if (m_table->verticalScrollBar()->value() == 0)
        return; // at the top, new rows at the top should become visible
    m_anchor = m_table->indexAt(QPoint(1, 1));
}

void ObjectTablePage::anchorAfter()
{
    if (!m_anchor.isValid())
        return;
    const int row = m_anchor.row();
    m_anchor = QPersistentModelIndex();
    QScrollBar *sb = m_table->verticalScrollBar();
    if (sb->value() == row)
        return;
    if (row > sb->maximum()) // the range is updated lazily; widen it so the value is not clamped
        sb->setMaximum(row);
    sb->setValue(row);
}

void ObjectTablePage::arrangeServerColumns()
{
    auto *src = m_view->objectSource();
    if (!src)
        return;
    QHeaderView *h = m_table->horizontalHeader();
    const auto &cols = src->serverColumns();
    // Server columns (Ready, Status, Data, ...) right after name and namespace, kubectl's
    // default (priority 0) columns shown, the "wide" ones hidden until asked for.
    int visual = 2;
    for (std::size_t i = 0; i < cols.size(); ++i) {
        const int logical = ObjectTableModel::ColumnCount + int(i);
        h->moveSection(h->visualIndex(logical), visual++);
        m_table->setColumnHidden(logical, cols[i].priority > 0);
        h->resizeSection(logical, std::max(80, m_table->fontMetrics().horizontalAdvance(cols[i].name) + 40));
    }
    restoreSavedHeaderState();
}

void ObjectTablePage::showHeaderMenu(const QPoint &pos)
{
    QMenu menu(this);
    for (int c = 0; c < m_view->columnCount(); ++c) {
        if (c == ObjectTableModel::Name || (c == ObjectTableModel::Namespace && !m_namespaced))
            continue;
        QAction *a =
            menu.addAction(actionText(m_view->headerData(c, Qt::Horizontal).toString())); // server column names
        a->setCheckable(true);
        a->setChecked(!m_table->isColumnHidden(c));
        connect(a, &QAction::toggled, this, [this, c](bool on) { m_table->setColumnHidden(c, !on); });
    }
    menu.exec(m_table->horizontalHeader()->mapToGlobal(pos));
}

void ObjectTablePage::updateCount()
{
    auto *src = m_view->objectSource();
    const int total = src ? src->rowCount() : 0, shown = m_view->rowCount();
    const QLocale loc;
    m_count->setText(shown == total ? (total == 1 ? tr("1 object") : tr("%1 objects").arg(loc.toString(total)))
                                    : tr("%1 of %2").arg(loc.toString(shown), loc.toString(total)));
}

QByteArray ObjectTablePage::headerState() const
{
    return m_table->horizontalHeader()->saveState();
}

// A kind's layout is kept per number of columns: while its server columns are on their way (or
// after they left) the header holds only the fixed ones, and that state must not overwrite the
// full one the user arranged.
QString ObjectTablePage::settingsKey() const
{
    return QStringLiteral("columns/%1/%2").arg(m_resourceKey).arg(m_view->columnCount());
}

// Settings are written on this (the GUI) thread; most kind switches change no layout, and the
// value QSettings holds in memory tells so without touching the disk.
void ObjectTablePage::saveHeaderState()
{
    if (m_resourceKey.isEmpty())
        return;
    QSettings settings;
    const QString key = settingsKey();
    const QByteArray state = headerState();
    if (settings.value(key).toByteArray() != state)
        settings.setValue(key, state);
}

void ObjectTablePage::restoreSavedHeaderState()
{
    if (!m_resourceKey.isEmpty())
        restoreHeaderState(QSettings().value(settingsKey()).toByteArray());
}

void ObjectTablePage::restoreHeaderState(const QByteArray &state)
{
    if (state.isEmpty())
        return;
    // A state saved with another set of server columns does not fit; keep the defaults then.
    QHeaderView *h = m_table->horizontalHeader();
    const QByteArray before = h->saveState();
    if (!h->restoreState(state) || h->count() != m_view->columnCount())
        h->restoreState(before);
    m_table->setColumnHidden(ObjectTableModel::Namespace, !m_namespaced);
    // restoreState() sets the sort indicator without sorting the rows.
    const int column = h->sortIndicatorSection();
    if (column >= 0 && column < m_view->columnCount()
        && (column != m_view->sortColumn() || h->sortIndicatorOrder() != m_view->sortOrder()))
        m_table->sortByColumn(column, h->sortIndicatorOrder());
}

} // namespace fieldscope::widgets
