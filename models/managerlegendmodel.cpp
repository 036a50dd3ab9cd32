#include "models/managerlegendmodel.h"

#include "models/roles.h"

#include <QDateTime>

#include <algorithm>

namespace fieldscope::models {

ManagerLegendModel::ManagerLegendModel(QObject *parent) : QAbstractTableModel(parent) {}

bool ManagerLegendModel::sameRow(const Row &a, const Row &b)
{
    return a.entry.time == b.entry.time && a.entry.apiVersion == b.entry.apiVersion && a.fieldCount == b.fieldCount
        && a.entryIndex == b.entryIndex;
}

void ManagerLegendModel::setTree(const core::OwnershipTree &tree)
{
    std::vector<Row> next;
    next.reserve(tree.entries().size());
    for (std::size_t i = 0; i < tree.entries().size(); ++i) {
        Row r;
        r.entry = tree.entries()[i];
        r.fieldCount = r.entry.fields.memberCount();
        r.entry.fields = core::FieldSet();
        r.entryIndex = int(i);
        next.push_back(std::move(r));
    }
    auto inNext = [&](const Row &r) {
        return std::any_of(next.begin(), next.end(), [&](const Row &n) { return n.entry.sameIdentity(r.entry); });
    };
    for (int i = int(m_rows.size()) - 1; i >= 0; --i) {
        if (inNext(m_rows[std::size_t(i)]))
            continue;
        beginRemoveRows({}, i, i);
        m_rows.erase(m_rows.begin() + i);
        endRemoveRows();
    }
    // Entries reorder as their times change (the server orders by operation, then time); move rows rather than
    // re-inserting them so a selected manager stays selected.
    for (std::size_t i = 0; i < next.size(); ++i) {
        auto found = std::find_if(m_rows.begin() + std::ptrdiff_t(std::min(i, m_rows.size())), m_rows.end(),
                                  [&](const Row &r) { return r.entry.sameIdentity(next[i].entry); });
        if (found == m_rows.end()) {
            beginInsertRows({}, int(i), int(i));
            m_rows.insert(m_rows.begin() + std::ptrdiff_t(i), next[i]);
            endInsertRows();
            continue;
        }
        const int j = int(found - m_rows.begin());
        if (j != int(i)) {
            beginMoveRows({}, j, j, {}, int(i));
            std::rotate(m_rows.begin() + std::ptrdiff_t(i), found, found + 1);
            endMoveRows();
        }
        if (!sameRow(m_rows[i], next[i])) {
            m_rows[i] = next[i];
            Q_EMIT dataChanged(index(int(i), 0), index(int(i), ColumnCount - 1));
        }
    }
}

void ManagerLegendModel::setPaletteTone(PaletteTone tone)
{
    if (tone == m_tone)
        return;
    m_tone = tone;
    if (!m_rows.empty())
        Q_EMIT dataChanged(index(0, 0), index(rowCount() - 1, ColumnCount - 1), {Qt::DecorationRole, ManagerColorRole});
}

void ManagerLegendModel::setWriters(std::map<std::string, std::string> writers)
{
    if (writers == m_writers)
        return;
    m_writers = std::move(writers);
    if (!m_rows.empty())
        Q_EMIT dataChanged(index(0, WrittenByColumn), index(rowCount() - 1, WrittenByColumn));
}

int ManagerLegendModel::rowOfEntry(int entryIndex) const
{
    for (std::size_t r = 0; r < m_rows.size(); ++r)
        if (m_rows[r].entryIndex == entryIndex)
            return int(r);
    return -1;
}

int ManagerLegendModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_rows.size());
}

int ManagerLegendModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant ManagerLegendModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const Row &r = m_rows[std::size_t(index.row())];
    const QString manager = QString::fromStdString(r.entry.manager);
    switch (role) {
    case Qt::DisplayRole:
        switch (index.column()) {
        case ManagerColumn: return manager;
        case OperationColumn: return QString::fromLatin1(core::operationName(r.entry.operation));
        case SubresourceColumn: return QString::fromStdString(r.entry.subresource);
        case TimeColumn: return QString::fromStdString(r.entry.time);
        case FieldCountColumn: return qulonglong(r.fieldCount);
        case WrittenByColumn: {
            const auto w = m_writers.find(r.entry.label());
            return w == m_writers.end() ? QString() : QString::fromStdString(w->second);
        }
        }
        return {};
    case Qt::DecorationRole:
        return index.column() == ManagerColumn ? QVariant(managerColor(manager, m_tone)) : QVariant();
    case Qt::ToolTipRole:
        if (index.column() == WrittenByColumn)
            return tr("Who last wrote as this manager: the newest recorded version it made that an audit event "
                      "joined (History tab). Empty when no recorded version names a person.");
        return QString::fromStdString(r.entry.label() + " " + r.entry.apiVersion);
    case ManagerColorRole: return managerColor(manager, m_tone);
    case ManagerNamesRole: return QStringList{manager};
    case OwnerLabelsRole: return QStringList{QString::fromStdString(r.entry.label())};
    case EntryIndexRole: return r.entryIndex;
    case FieldCountRole: return int(r.fieldCount);
    case LastChangedRole:
        return r.entry.timeSeconds ? QDateTime::fromSecsSinceEpoch(*r.entry.timeSeconds, Qt::UTC) : QDateTime();
    case SortRole:
        if (index.column() == TimeColumn)
            return qint64(r.entry.timeSeconds.value_or(-1));
        if (index.column() == FieldCountColumn)
            return qulonglong(r.fieldCount);
        return data(index, Qt::DisplayRole);
    }
    return {};
}

QVariant ManagerLegendModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case ManagerColumn: return tr("Manager");
    case OperationColumn: return tr("Operation");
    case SubresourceColumn: return tr("Subresource");
    case TimeColumn: return tr("Time");
    case FieldCountColumn: return tr("Fields");
    case WrittenByColumn: return tr("Last written by");
    }
    return {};
}

} // namespace fieldscope::models
