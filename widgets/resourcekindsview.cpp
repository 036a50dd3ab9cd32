#include "widgets/resourcekindsview.h"

#include "models/resourcekindsmodel.h"
#include "widgets/kindsproxy.h"
#include "widgets/plaintext.h"

#include <QAction>
#include <QHeaderView>
#include <QLineEdit>
#include <QMenu>
#include <QTreeView>
#include <QVBoxLayout>

namespace fieldscope::widgets {

using models::ResourceKindsModel;

ResourceKindsView::ResourceKindsView(QWidget *parent)
    : QWidget(parent), m_search(new QLineEdit(this)), m_tree(new QTreeView(this)), m_proxy(new KindsProxy(this))
{
    setObjectName(QStringLiteral("resourceKindsView"));
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(4);
    m_search->setObjectName(QStringLiteral("kindSearch"));
    m_search->setPlaceholderText(tr("Find a kind"));
    m_search->setClearButtonEnabled(true);
    layout->addWidget(m_search);

    connect(m_search, &QLineEdit::textChanged, this, [this](const QString &t) {
        m_proxy->setSearchText(t);
        m_tree->expandAll();
    });

    m_tree->setObjectName(QStringLiteral("resourceKinds"));
    m_tree->setModel(m_proxy);
    showPlainText(m_tree); // kinds and groups of aggregated APIs and CRDs
    m_tree->setUniformRowHeights(true);
    m_tree->setRootIsDecorated(true);
    m_tree->setAllColumnsShowFocus(true);
    m_tree->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_tree->header()->setStretchLastSection(false);
    // Long kinds and API groups ("MutatingWebhookConfiguration", "flowcontrol.apiserver.k8s.io")
    // keep both ends readable; the tooltip has the whole name. A narrow indent leaves them room.
    m_tree->setTextElideMode(Qt::ElideMiddle);
    m_tree->setIndentation(14);
    m_tree->setContextMenuPolicy(Qt::CustomContextMenu);
    connect(m_tree, &QTreeView::customContextMenuRequested, this, &ResourceKindsView::showMenu);
    layout->addWidget(m_tree, 1);

    connect(m_tree->selectionModel(), &QItemSelectionModel::currentRowChanged, this, [this](const QModelIndex &cur) {
        const QString q = cur.siblingAtColumn(0).data(ResourceKindsModel::QualifiedNameRole).toString();
        if (!q.isEmpty() && !m_quiet)
            Q_EMIT kindChosen(q);
    });
    auto *fav = new QAction(tr("Pin to favourites"), this);
    fav->setShortcut(QKeySequence(Qt::Key_F));
    fav->setShortcutContext(Qt::WidgetShortcut);
    connect(fav, &QAction::triggered, this, [this] { toggleFavourite(m_tree->currentIndex()); });
    m_tree->addAction(fav);
    // Down from the search box goes into the tree.
    connect(m_search, &QLineEdit::returnPressed, this, [this] {
        m_tree->setFocus();
        for (QModelIndex i = m_proxy->index(0, 0); i.isValid(); i = m_tree->indexBelow(i))
            if (!i.data(ResourceKindsModel::IsGroupRole).toBool()) {
                m_tree->setCurrentIndex(i);
                break;
            }
    });
}

void ResourceKindsView::setModel(ResourceKindsModel *model)
{
    m_model = model;
    m_proxy->setSourceModel(model);
    if (!model)
        return;
    m_tree->header()->setSectionResizeMode(ResourceKindsModel::KindColumn, QHeaderView::Stretch);
    m_tree->header()->setSectionResizeMode(ResourceKindsModel::CountColumn, QHeaderView::ResizeToContents);
    connect(model, &QAbstractItemModel::modelReset, m_tree, &QTreeView::expandAll);
    connect(model, &QAbstractItemModel::rowsInserted, m_tree, &QTreeView::expandAll);
    m_tree->expandAll();
}

void ResourceKindsView::setCurrentKind(const QString &q)
{
    if (!m_model)
        return;
    const QModelIndex i = m_proxy->mapFromSource(m_model->indexOf(q));
    if (!i.isValid())
        return;
    m_quiet = true;
    m_tree->setCurrentIndex(i);
    m_tree->scrollTo(i);
    m_quiet = false;
}

QString ResourceKindsView::currentKind() const
{
    return m_tree->currentIndex().siblingAtColumn(0).data(ResourceKindsModel::QualifiedNameRole).toString();
}

void ResourceKindsView::toggleFavourite(const QModelIndex &index)
{
    const QString q = index.siblingAtColumn(0).data(ResourceKindsModel::QualifiedNameRole).toString();
    if (q.isEmpty() || !m_model)
        return;
    const QString current = currentKind();
    m_model->setFavourite(q, !m_model->isFavourite(q));
    setCurrentKind(current);
    Q_EMIT favouritesChanged(m_model->favourites());
}

void ResourceKindsView::showMenu(const QPoint &pos)
{
    const QModelIndex i = m_tree->indexAt(pos);
    const QString q = i.siblingAtColumn(0).data(ResourceKindsModel::QualifiedNameRole).toString();
    if (q.isEmpty() || !m_model)
        return;
    QMenu menu(this);
    QAction *a = menu.addAction(m_model->isFavourite(q) ? tr("Unpin from favourites") : tr("Pin to favourites"));
    connect(a, &QAction::triggered, this, [this, i] { toggleFavourite(i); });
    menu.exec(m_tree->viewport()->mapToGlobal(pos));
}

} // namespace fieldscope::widgets
