#include "models/resourcekindsmodel.h"

#include <QFont>
#include <QLocale>

#include <algorithm>
#include <map>

namespace fieldscope::models {

// internalId: 0 for a group row, groupId + 1 for a kind row of that group.

ResourceKindsModel::ResourceKindsModel(QObject *parent) : QAbstractItemModel(parent) {}

void ResourceKindsModel::setKinds(std::vector<ResourceKind> kinds)
{
    const QStringList fav = favourites() + m_pendingFavourites;
    beginResetModel();
    std::sort(kinds.begin(), kinds.end(), [](const ResourceKind &a, const ResourceKind &b) {
        if (a.group != b.group)
            return a.group.isEmpty() || (!b.group.isEmpty() && a.group < b.group);
        return a.kind.compare(b.kind, Qt::CaseInsensitive) < 0;
    });
    m_kinds = std::move(kinds);
    m_counts.assign(m_kinds.size(), -1);
    m_favourite.assign(m_kinds.size(), false);
    m_groupOf.assign(m_kinds.size(), 0);
    m_groups.assign(1, Group{tr("Favourites"), {}});
    m_order.clear();
    std::map<QString, int> byName;
    for (int i = 0; i < int(m_kinds.size()); ++i) {
        const QString &g = m_kinds[std::size_t(i)].group;
        auto [it, added] = byName.try_emplace(g, int(m_groups.size()));
        if (added) {
            m_groups.push_back(Group{g.isEmpty() ? tr("core") : g, {}});
            m_order.push_back(it->second);
        }
        m_groups[std::size_t(it->second)].members.push_back(i);
        m_groupOf[std::size_t(i)] = it->second;
    }
    m_pendingFavourites.clear();
    for (const QString &q : fav) {
        const int k = kindIndex(q);
        if (k < 0) {
            m_pendingFavourites << q;
            continue;
        }
        if (!m_favourite[std::size_t(k)]) {
            m_favourite[std::size_t(k)] = true;
            m_groups[0].members.push_back(k);
        }
    }
    auto byKind = [this](int a, int b) {
        return m_kinds[std::size_t(a)].kind.compare(m_kinds[std::size_t(b)].kind, Qt::CaseInsensitive) < 0;
    };
    std::sort(m_groups[0].members.begin(), m_groups[0].members.end(), byKind);
    if (!m_groups[0].members.empty())
        m_order.insert(m_order.begin(), 0);
    endResetModel();
}

int ResourceKindsModel::kindIndex(const QString &q) const
{
    for (int i = 0; i < int(m_kinds.size()); ++i)
        if (m_kinds[std::size_t(i)].qualifiedName() == q)
            return i;
    return -1;
}

const ResourceKind *ResourceKindsModel::kind(const QString &q) const
{
    const int i = kindIndex(q);
    return i < 0 ? nullptr : &m_kinds[std::size_t(i)];
}

int ResourceKindsModel::displayRow(int groupId) const
{
    const auto it = std::find(m_order.begin(), m_order.end(), groupId);
    return it == m_order.end() ? -1 : int(it - m_order.begin());
}

void ResourceKindsModel::emitKindChanged(int k, int column)
{
    for (int g : {0, m_groupOf[std::size_t(k)]}) {
        const int gr = displayRow(g);
        if (gr < 0)
            continue;
        const auto &m = m_groups[std::size_t(g)].members;
        const auto it = std::find(m.begin(), m.end(), k);
        if (it == m.end())
            continue;
        const QModelIndex i = createIndex(int(it - m.begin()), column, quintptr(g + 1));
        Q_EMIT dataChanged(i, i);
    }
}

void ResourceKindsModel::setCount(const QString &q, qint64 count)
{
    const int k = kindIndex(q);
    if (k < 0 || m_counts[std::size_t(k)] == count)
        return;
    m_counts[std::size_t(k)] = count;
    emitKindChanged(k, CountColumn);
}

qint64 ResourceKindsModel::count(const QString &q) const
{
    const int k = kindIndex(q);
    return k < 0 ? -1 : m_counts[std::size_t(k)];
}

void ResourceKindsModel::setFavourites(const QStringList &names)
{
    for (const QString &q : favourites())
        if (!names.contains(q))
            setFavourite(q, false);
    m_pendingFavourites.clear();
    for (const QString &q : names) {
        if (kindIndex(q) < 0)
            m_pendingFavourites << q;
        else
            setFavourite(q, true);
    }
}

QStringList ResourceKindsModel::favourites() const
{
    QStringList out;
    if (m_groups.empty())
        return m_pendingFavourites;
    for (int k : m_groups[0].members)
        out << m_kinds[std::size_t(k)].qualifiedName();
    return out + m_pendingFavourites;
}

bool ResourceKindsModel::isFavourite(const QString &q) const
{
    const int k = kindIndex(q);
    return k >= 0 ? bool(m_favourite[std::size_t(k)]) : m_pendingFavourites.contains(q);
}

void ResourceKindsModel::setFavourite(const QString &q, bool on)
{
    const int k = kindIndex(q);
    if (k < 0) {
        if (on && !m_pendingFavourites.contains(q))
            m_pendingFavourites << q;
        else if (!on)
            m_pendingFavourites.removeAll(q);
        return;
    }
    if (bool(m_favourite[std::size_t(k)]) == on)
        return;
    auto &fav = m_groups[0].members;
    if (on) {
        if (fav.empty()) {
            beginInsertRows({}, 0, 0);
            fav.push_back(k);
            m_favourite[std::size_t(k)] = true;
            m_order.insert(m_order.begin(), 0);
            endInsertRows();
        } else {
            const auto pos = std::lower_bound(fav.begin(), fav.end(), k, [this](int a, int b) {
                return m_kinds[std::size_t(a)].kind.compare(m_kinds[std::size_t(b)].kind, Qt::CaseInsensitive) < 0;
            });
            const int row = int(pos - fav.begin());
            beginInsertRows(createIndex(0, 0, quintptr(0)), row, row);
            fav.insert(pos, k);
            m_favourite[std::size_t(k)] = true;
            endInsertRows();
        }
    } else {
        if (fav.size() == 1) {
            beginRemoveRows({}, 0, 0);
            fav.clear();
            m_favourite[std::size_t(k)] = false;
            m_order.erase(m_order.begin());
            endRemoveRows();
        } else {
            const int row = int(std::find(fav.begin(), fav.end(), k) - fav.begin());
            beginRemoveRows(createIndex(0, 0, quintptr(0)), row, row);
            fav.erase(fav.begin() + row);
            m_favourite[std::size_t(k)] = false;
            endRemoveRows();
        }
    }
    emitKindChanged(k, KindColumn);
}

QModelIndex ResourceKindsModel::indexOf(const QString &q) const
{
    const int k = kindIndex(q);
    if (k < 0)
        return {};
    const int g = m_groupOf[std::size_t(k)];
    const auto &m = m_groups[std::size_t(g)].members;
    return createIndex(int(std::find(m.begin(), m.end(), k) - m.begin()), 0, quintptr(g + 1));
}

QModelIndex ResourceKindsModel::index(int row, int column, const QModelIndex &parent) const
{
    if (column < 0 || column >= ColumnCount || row < 0)
        return {};
    if (!parent.isValid())
        return row < int(m_order.size()) ? createIndex(row, column, quintptr(0)) : QModelIndex();
    if (parent.internalId() != 0)
        return {};
    const int g = m_order[std::size_t(parent.row())];
    return row < int(m_groups[std::size_t(g)].members.size()) ? createIndex(row, column, quintptr(g + 1))
                                                              : QModelIndex();
}

QModelIndex ResourceKindsModel::parent(const QModelIndex &child) const
{
    if (!child.isValid() || child.internalId() == 0)
        return {};
    const int row = displayRow(int(child.internalId()) - 1);
    return row < 0 ? QModelIndex() : createIndex(row, 0, quintptr(0));
}

int ResourceKindsModel::rowCount(const QModelIndex &parent) const
{
    if (!parent.isValid())
        return int(m_order.size());
    if (parent.internalId() != 0 || parent.column() != 0)
        return 0;
    return int(m_groups[std::size_t(m_order[std::size_t(parent.row())])].members.size());
}

int ResourceKindsModel::columnCount(const QModelIndex &) const
{
    return ColumnCount;
}

QVariant ResourceKindsModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid())
        return {};
    if (index.internalId() == 0) {
        const Group &g = m_groups[std::size_t(m_order[std::size_t(index.row())])];
        if (role == IsGroupRole)
            return true;
        if (role == Qt::DisplayRole && index.column() == KindColumn)
            return g.title;
        if (role == Qt::FontRole) {
            QFont f;
            f.setBold(true);
            return f;
        }
        return {};
    }
    const int g = int(index.internalId()) - 1;
    const int k = m_groups[std::size_t(g)].members[std::size_t(index.row())];
    const ResourceKind &rk = m_kinds[std::size_t(k)];
    const qint64 n = m_counts[std::size_t(k)];
    switch (role) {
    case Qt::DisplayRole:
        if (index.column() == KindColumn)
            return rk.kind.isEmpty() ? rk.resource : rk.kind;
        // Text, grouped by the locale like the table's and the status bar's counts ("10,006"):
        // item views print numbers without group separators. CountRole keeps the number.
        return n < 0 ? QVariant() : QVariant(QLocale().toString(n));
    case Qt::ToolTipRole:
        return QStringLiteral("%1 (%2)").arg(rk.qualifiedName(),
                                             rk.group.isEmpty() ? rk.version : rk.group + u'/' + rk.version);
    case Qt::TextAlignmentRole:
        return index.column() == CountColumn ? QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter) : QVariant();
    case QualifiedNameRole: return rk.qualifiedName();
    case IsGroupRole: return false;
    case FavouriteRole: return bool(m_favourite[std::size_t(k)]);
    case NamespacedRole: return rk.namespaced;
    case CountRole: return n;
    default: return {};
    }
}

QVariant ResourceKindsModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    return section == KindColumn ? tr("Kind") : tr("Objects");
}

} // namespace fieldscope::models
