#include "models/objecttablemodel.h"

#include <algorithm>

namespace fieldscope::models {

QString humanAge(qint64 s)
{
    if (s < 0)
        s = 0;
    if (s < 120)
        return QStringLiteral("%1s").arg(s);
    if (s < 3600)
        return QStringLiteral("%1m").arg(s / 60);
    if (s < 8 * 3600) {
        const qint64 m = (s % 3600) / 60;
        return m ? QStringLiteral("%1h%2m").arg(s / 3600).arg(m) : QStringLiteral("%1h").arg(s / 3600);
    }
    if (s < 2 * 86400)
        return QStringLiteral("%1h").arg(s / 3600);
    if (s < 8 * 86400) {
        const qint64 h = (s % 86400) / 3600;
        return h ? QStringLiteral("%1d%2h").arg(s / 86400).arg(h) : QStringLiteral("%1d").arg(s / 86400);
    }
    if (s < 2 * 365 * 86400)
        return QStringLiteral("%1d").arg(s / 86400);
    return QStringLiteral("%1y").arg(s / (365 * 86400));
}

ObjectTableModel::ObjectTableModel(QObject *parent) : QAbstractTableModel(parent) {}

int ObjectTableModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_rows.size());
}

int ObjectTableModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QString ObjectTableModel::ageText(qint64 createdSecs) const
{
    if (!createdSecs)
        return {};
    const QDateTime now = m_now.isValid() ? m_now : QDateTime::currentDateTimeUtc();
    return humanAge(now.toSecsSinceEpoch() - createdSecs);
}

QVariant ObjectTableModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid() || index.row() >= int(m_rows.size()))
        return {};
    const Row &r = m_rows[std::size_t(index.row())];
    if (role == UidRole)
        return QString::fromStdString(r.uid);
    if (role == ObjectJsonRole)
        return r.json;
    if (role == SortRole) {
        switch (index.column()) {
        case Age: return -r.createdSecs; // youngest last, like sorting ages ascending
        case Managers: return r.managerCount;
        default: break;
        }
        role = Qt::DisplayRole;
    }
    if (role == Qt::DisplayRole) {
        switch (index.column()) {
        case Name: return QString::fromStdString(r.name);
        case Namespace: return QString::fromStdString(r.namespace_);
        case Age: return ageText(r.createdSecs);
        case ResourceVersion: return QString::fromStdString(r.resourceVersion);
        case Managers: return r.managerCount;
        case LastChangedBy: return r.lastManager;
        default: break;
        }
    }
    if (role == Qt::TextAlignmentRole && (index.column() == Managers || index.column() == ResourceVersion))
        return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
    return {};
}

QVariant ObjectTableModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case Name: return tr("Name");
    case Namespace: return tr("Namespace");
    case Age: return tr("Age");
    case ResourceVersion: return tr("Resource version");
    case Managers: return tr("Managers");
    case LastChangedBy: return tr("Last changed by");
    default: return {};
    }
}

ObjectTableModel::Row ObjectTableModel::rowFrom(const core::ObjectVersion &v)
{
    Row r;
    r.uid = v.uid;
    r.namespace_ = v.namespace_;
    r.name = v.name;
    r.resourceVersion = v.resourceVersion;
    r.json = v.json;
    if (!v.creationTimestamp.empty())
        r.createdSecs = QDateTime::fromString(QString::fromStdString(v.creationTimestamp), Qt::ISODate).toSecsSinceEpoch();
    r.managerCount = v.managerCount;
    if (!v.lastManager.empty())
        r.lastManager = QString::fromStdString(v.lastManager) + QStringLiteral(" (") + QString::fromStdString(v.lastManagerOperation) + QStringLiteral(")");
    return r;
}

void ObjectTableModel::applyBatch(const core::WatchBatch &batch)
{
    // Coalesce the batch per uid first: only the last state of each object matters to a table.
    std::unordered_map<std::string, const core::ObjectVersion *> last;
    std::vector<const core::ObjectVersion *> order;
    for (const auto &e : batch.events) {
        auto [it, inserted] = last.try_emplace(e.uid, &e);
        if (inserted)
            order.push_back(&e);
        else
            it->second = &e;
    }
    std::vector<int> removed;
    std::vector<Row> added;
    int minChanged = INT_MAX, maxChanged = -1;
    for (const auto *first : order) {
        const core::ObjectVersion &e = *last[first->uid];
        auto it = m_index.find(e.uid);
        if (e.type == core::WatchEventType::Deleted) {
            if (it != m_index.end())
                removed.push_back(it->second);
            continue;
        }
        if (it != m_index.end()) {
            m_rows[std::size_t(it->second)] = rowFrom(e);
            minChanged = std::min(minChanged, it->second);
            maxChanged = std::max(maxChanged, it->second);
        } else {
            added.push_back(rowFrom(e));
        }
    }
    if (maxChanged >= 0)
        Q_EMIT dataChanged(index(minChanged, 0), index(maxChanged, ColumnCount - 1));
    if (!removed.empty())
        removeRows(std::move(removed));
    if (!added.empty()) {
        const int first = int(m_rows.size());
        beginInsertRows({}, first, first + int(added.size()) - 1);
        for (auto &r : added) {
            m_index[r.uid] = int(m_rows.size());
            m_rows.push_back(std::move(r));
        }
        endInsertRows();
    }
}

void ObjectTableModel::removeRows(std::vector<int> rows)
{
    std::sort(rows.begin(), rows.end(), std::greater<>());
    std::size_t i = 0;
    while (i < rows.size()) {
        // Contiguous descending run [last..first]
        std::size_t j = i;
        while (j + 1 < rows.size() && rows[j + 1] == rows[j] - 1)
            ++j;
        const int hi = rows[i], lo = rows[j];
        beginRemoveRows({}, lo, hi);
        for (int r = lo; r <= hi; ++r)
            m_index.erase(m_rows[std::size_t(r)].uid);
        m_rows.erase(m_rows.begin() + lo, m_rows.begin() + hi + 1);
        endRemoveRows();
        i = j + 1;
    }
    // Rows after the removed ones moved up.
    for (int r = 0; r < int(m_rows.size()); ++r)
        m_index[m_rows[std::size_t(r)].uid] = r;
}

void ObjectTableModel::clear()
{
    if (m_rows.empty())
        return;
    beginRemoveRows({}, 0, int(m_rows.size()) - 1);
    m_rows.clear();
    m_index.clear();
    endRemoveRows();
}

int ObjectTableModel::rowOf(const std::string &uid) const
{
    auto it = m_index.find(uid);
    return it == m_index.end() ? -1 : it->second;
}

QByteArray ObjectTableModel::objectJson(int row) const
{
    return row >= 0 && row < int(m_rows.size()) ? m_rows[std::size_t(row)].json : QByteArray();
}

} // namespace fieldscope::models
