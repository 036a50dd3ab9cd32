#include "models/classmodel.h"

#include "models/plaintooltip.h"

#include <QBrush>
#include <QColor>
#include <QFont>

#include <algorithm>

namespace fieldscope::models {

namespace {

QString clock(const QDateTime &t)
{
    return t.isValid() ? t.toLocalTime().toString(QStringLiteral("HH:mm:ss")) : QString();
}

// What a write came to: "200 create", "409 Conflict"-like text is the message column's job.
QString outcome(const ClassActivity &a)
{
    if (a.refused)
        return ClassRaceModel::tr("refused %1").arg(a.code);
    return ClassRaceModel::tr("%1 %2").arg(a.code).arg(a.verb);
}

} // namespace

ClassStudentsModel::ClassStudentsModel(QObject *parent) : QAbstractTableModel(parent) {}

void ClassStudentsModel::setRoster(const QStringList &names)
{
    QStringList wanted;
    for (const QString &n : names)
        if (!wanted.contains(n))
            wanted << n;
    // Rows that leave, from the bottom so the earlier indexes stay right.
    for (int r = int(m_rows.size()) - 1; r >= 0; --r)
        if (!wanted.contains(m_rows[std::size_t(r)].name)) {
            beginRemoveRows({}, r, r);
            m_rows.erase(m_rows.begin() + r);
            endRemoveRows();
        }
    QList<Row> added;
    for (const QString &n : wanted)
        if (std::none_of(m_rows.begin(), m_rows.end(), [&](const Row &r) { return r.name == n; }))
            added.append(Row{n});
    if (!added.isEmpty()) {
        beginInsertRows({}, int(m_rows.size()), int(m_rows.size() + added.size()) - 1);
        m_rows.insert(m_rows.end(), added.begin(), added.end());
        endInsertRows();
    }
    m_rowOf.clear();
    for (int r = 0; r < int(m_rows.size()); ++r)
        m_rowOf.insert(m_rows[std::size_t(r)].name, r);
}

void ClassStudentsModel::addRequests(const QList<ClassActivity> &batch)
{
    int first = -1, last = -1;
    for (const ClassActivity &a : batch) {
        const int r = m_rowOf.value(a.student, -1);
        if (r < 0)
            continue;
        Row &row = m_rows[std::size_t(r)];
        ++row.requests;
        ++m_total;
        if (a.write) {
            ++row.writes;
            if (a.refused)
                ++row.refused;
            if (!row.lastWrite.isValid() || a.time >= row.lastWrite) {
                row.lastWrite = a.time;
                row.lastObject = a.object;
            }
        }
        first = first < 0 ? r : std::min(first, r);
        last = std::max(last, r);
    }
    if (first >= 0)
        Q_EMIT dataChanged(index(first, 0), index(last, ColumnCount - 1));
}

void ClassStudentsModel::clear()
{
    beginResetModel();
    m_rows.clear();
    m_rowOf.clear();
    m_total = 0;
    endResetModel();
}

qint64 ClassStudentsModel::totalRefused() const
{
    qint64 n = 0;
    for (const Row &r : m_rows)
        n += r.refused;
    return n;
}

int ClassStudentsModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_rows.size());
}

int ClassStudentsModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant ClassStudentsModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid))
        return {};
    const Row &r = m_rows[std::size_t(index.row())];
    const int c = index.column();
    if (role == RefusedCountRole)
        return r.refused;
    if (role == SortRole) {
        switch (c) {
        case RequestsColumn: return r.requests;
        case WritesColumn: return r.writes;
        case RefusedColumn: return r.refused;
        case LastWriteColumn: return r.lastWrite;
        default: break;
        }
        role = Qt::DisplayRole;
    }
    if (role == Qt::DisplayRole) {
        switch (c) {
        case NameColumn: return r.name;
        case RequestsColumn: return r.requests;
        case WritesColumn: return r.writes;
        case RefusedColumn: return r.refused;
        case LastObjectColumn: return r.lastObject;
        case LastWriteColumn: return clock(r.lastWrite);
        default: return {};
        }
    }
    if (role == Qt::ToolTipRole && (c == NameColumn || c == LastObjectColumn))
        return plainToolTip(c == NameColumn ? r.name : r.lastObject);
    if (role == Qt::TextAlignmentRole && c >= RequestsColumn && c <= RefusedColumn)
        return int(Qt::AlignRight | Qt::AlignVCenter);
    if (role == Qt::ForegroundRole && c == RefusedColumn && r.refused > 0)
        return QBrush(QColor(0xb0, 0x20, 0x20));
    return {};
}

QVariant ClassStudentsModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case NameColumn: return tr("Student");
    case RequestsColumn: return tr("Requests");
    case WritesColumn: return tr("Writes");
    case RefusedColumn: return tr("Refused");
    case LastObjectColumn: return tr("Last write");
    case LastWriteColumn: return tr("At");
    default: return {};
    }
}

ClassRaceModel::ClassRaceModel(QObject *parent) : QAbstractTableModel(parent) {}

void ClassRaceModel::setObject(const QString &object)
{
    if (object == m_object)
        return;
    beginResetModel();
    m_object = object;
    m_rows.clear();
    m_versions = m_refusals = 0;
    endResetModel();
}

void ClassRaceModel::addRequests(const QList<ClassActivity> &batch)
{
    std::vector<ClassActivity> fresh;
    for (const ClassActivity &a : batch)
        if (a.write && !m_object.isEmpty() && a.object == m_object)
            fresh.push_back(a);
    if (fresh.empty())
        return;
    for (const ClassActivity &a : fresh)
        ++(a.refused ? m_refusals : m_versions);
    // Only the newest kMaxRows of a batch can be shown.
    if (fresh.size() > std::size_t(kMaxRows))
        fresh.erase(fresh.begin(), fresh.end() - kMaxRows);
    const std::size_t overflow = m_rows.size() + fresh.size() > std::size_t(kMaxRows)
                                   ? m_rows.size() + fresh.size() - std::size_t(kMaxRows)
                                   : 0;
    if (overflow > 0) { // the oldest leave at the top
        beginRemoveRows({}, 0, int(overflow) - 1);
        m_rows.erase(m_rows.begin(), m_rows.begin() + std::ptrdiff_t(overflow));
        endRemoveRows();
    }
    beginInsertRows({}, int(m_rows.size()), int(m_rows.size() + fresh.size()) - 1);
    m_rows.insert(m_rows.end(), fresh.begin(), fresh.end());
    endInsertRows();
}

void ClassRaceModel::clear()
{
    beginResetModel();
    m_rows.clear();
    m_versions = m_refusals = 0;
    endResetModel();
}

int ClassRaceModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_rows.size());
}

int ClassRaceModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant ClassRaceModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid))
        return {};
    const ClassActivity &a = m_rows[std::size_t(index.row())];
    const int c = index.column();
    if (role == RefusedRole)
        return a.refused;
    if (role == Qt::DisplayRole) {
        switch (c) {
        case TimeColumn:
            return a.time.isValid() ? a.time.toLocalTime().toString(QStringLiteral("HH:mm:ss.zzz")) : QString();
        case StudentColumn: return a.student;
        case OutcomeColumn: return outcome(a);
        case ResourceVersionColumn: return a.refused ? QString() : a.resourceVersion;
        case ManagerColumn: return a.fieldManager;
        case MessageColumn: return a.reason.left(300).replace(QLatin1Char('\n'), QLatin1Char(' '));
        default: return {};
        }
    }
    if (role == Qt::ToolTipRole && (c == StudentColumn || c == MessageColumn || c == ManagerColumn))
        return plainToolTip(c == StudentColumn ? a.student : c == ManagerColumn ? a.fieldManager : a.reason);
    if (role == Qt::ForegroundRole && a.refused)
        return QBrush(QColor(0xb0, 0x20, 0x20));
    if (role == Qt::ForegroundRole && c == OutcomeColumn) // a new version: the round's winner
        return QBrush(QColor(0x1c, 0x6b, 0x2a));
    if (role == Qt::FontRole && c == OutcomeColumn) {
        QFont f;
        f.setBold(true);
        return f;
    }
    return {};
}

QVariant ClassRaceModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case TimeColumn: return tr("Time");
    case StudentColumn: return tr("Student");
    case OutcomeColumn: return tr("Answer");
    case ResourceVersionColumn: return tr("Version");
    case ManagerColumn: return tr("Field manager");
    case MessageColumn: return tr("Why refused");
    default: return {};
    }
}

} // namespace fieldscope::models
