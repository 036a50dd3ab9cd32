#include "widgets/kindsproxy.h"

#include "models/resourcekindsmodel.h"
#include "widgets/icons.h"

namespace fieldscope::widgets {

using models::ResourceKindsModel;

KindsProxy::KindsProxy(QObject *parent) : QSortFilterProxyModel(parent)
{
    setRecursiveFilteringEnabled(true); // a matching kind keeps its group row
    setAutoAcceptChildRows(true);       // a matching group keeps its kinds
    setFilterCaseSensitivity(Qt::CaseInsensitive);
    setFilterKeyColumn(ResourceKindsModel::KindColumn);
}

void KindsProxy::setSearchText(const QString &text)
{
    setFilterFixedString(text);
}

QVariant KindsProxy::data(const QModelIndex &index, int role) const
{
    if (index.column() != ResourceKindsModel::KindColumn || (role != Qt::DecorationRole && role != Qt::ToolTipRole))
        return QSortFilterProxyModel::data(index, role);
    const QModelIndex src = mapToSource(index);
    const bool group = src.data(ResourceKindsModel::IsGroupRole).toBool();
    if (role == Qt::ToolTipRole) {
        if (!group) // the kind's own name too: it may be the part that is elided
            return src.data().toString() + u'\n' + QSortFilterProxyModel::data(index, role).toString();
        const int kinds = sourceModel()->rowCount(src);
        return kinds == 1 ? tr("%1: 1 kind").arg(src.data().toString())
                          : tr("%1: %2 kinds").arg(src.data().toString()).arg(kinds);
    }
    if (group)
        return icon(src.data().toString() == ResourceKindsModel::tr("Favourites") ? Icon::Favourite : Icon::ApiGroup);
    if (src.data(ResourceKindsModel::FavouriteRole).toBool())
        return icon(Icon::Favourite);
    return icon(src.data(ResourceKindsModel::QualifiedNameRole).toString() == QLatin1String("namespaces")
                    ? Icon::Namespace
                    : Icon::Kind);
}

} // namespace fieldscope::widgets
