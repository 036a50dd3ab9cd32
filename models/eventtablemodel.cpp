#include "models/eventtablemodel.h"

#include "core/base/json.h"
#include "core/base/jsonread.h"
#include "models/objecttablemodel.h"

#include <QBrush>
#include <QColor>

#include <algorithm>

namespace fieldscope::models {

EventTableModel::EventTableModel(QObject *parent, int maxEvents)
    : QAbstractTableModel(parent), m_max(std::max(1, maxEvents))
{
}

EventTableModel::Row EventTableModel::rowFrom(const core::ObjectVersion &v)
{
    Row r;
    r.uid = v.uid;
    auto j = core::parseJson(std::string_view(v.json.constData(), std::size_t(v.json.size())));
    if (!j || !j->is_object())
        return r;
    // Type-checked reads: a field of the wrong type reads as absent.
    auto s = [&](const char *pointer) {
        return QString::fromStdString(core::stringAt(*j, pointer).value_or(std::string()));
    };
    r.type = s("/type");
    r.reason = s("/reason");
    r.message = s("/message").simplified();
    r.source = s("/source/component");
    if (r.source.isEmpty())
        r.source = s("/reportingComponent");
    if (auto c = j->find("count"); c != j->end() && c->is_number_integer())
        r.count = c->is_number_unsigned() ? qint64(std::min<std::uint64_t>(c->get<std::uint64_t>(), INT64_MAX))
                                          : c->get<qint64>();
    // lastTimestamp for core events; eventTime (micro time) for events.k8s.io writers.
    QString when = s("/lastTimestamp");
    if (when.isEmpty())
        when = s("/eventTime");
    if (when.isEmpty())
        when = s("/metadata/creationTimestamp");
    r.lastSeen = QDateTime::fromString(when, Qt::ISODateWithMs);
    return r;
}

std::size_t EventTableModel::positionOf(const Key &key) const
{
    return std::size_t(std::lower_bound(m_rows.begin(), m_rows.end(), key,
                                        [](const Row &r, const Key &k) { return r.key < k; })
                       - m_rows.begin());
}

void EventTableModel::remove(const std::string &uid)
{
    const auto it = m_keyOf.find(uid);
    if (it == m_keyOf.end())
        return;
    const std::size_t at = positionOf(it->second);
    m_keyOf.erase(it);
    if (at >= m_rows.size() || m_rows[at].uid != uid)
        return; // cannot happen: every key in the hash is a row's
    const int row = viewRow(at);
    beginRemoveRows({}, row, row);
    m_rows.erase(m_rows.begin() + std::ptrdiff_t(at));
    endRemoveRows();
}

void EventTableModel::insert(Row r)
{
    if (int(m_rows.size()) >= m_max && r.key < m_rows.front().key) {
        ++m_pendingDrops; // older than every kept event: not kept either
        return;
    }
    const std::size_t at = positionOf(r.key);
    const int row = int(m_rows.size() - at); // view row once inserted
    m_keyOf[r.uid] = r.key;
    beginInsertRows({}, row, row);
    m_rows.insert(m_rows.begin() + std::ptrdiff_t(at), std::move(r));
    endInsertRows();
}

void EventTableModel::setDropped(qint64 dropped)
{
    if (dropped == m_dropped)
        return;
    m_dropped = dropped;
    Q_EMIT headerDataChanged(Qt::Horizontal, MessageColumn, MessageColumn);
}

void EventTableModel::applyBatch(const core::WatchBatch &batch)
{
    // Only the last event of each uid in the batch matters (a flood repeats the same events).
    std::unordered_map<std::string, std::size_t> last;
    for (std::size_t i = 0; i < batch.events.size(); ++i)
        last[batch.events[i].uid] = i;
    std::vector<Row> fresh;
    for (std::size_t i = 0; i < batch.events.size(); ++i) {
        const auto &e = batch.events[i];
        if (last[e.uid] != i)
            continue;
        remove(e.uid); // a changed event (count, last seen) moves; an expired one (TTL) goes
        if (e.type == core::WatchEventType::Deleted)
            continue;
        Row r = rowFrom(e);
        r.key = {r.lastSeen.isValid() ? r.lastSeen.toMSecsSinceEpoch() : INT64_MIN, ++m_arrivals};
        fresh.push_back(std::move(r));
    }
    std::sort(fresh.begin(), fresh.end(), [](const Row &a, const Row &b) { return a.key < b.key; });
    // Rows newer than every kept one (the usual case) are one block on top: one insert signal.
    auto block = fresh.begin();
    if (!m_rows.empty())
        block = std::upper_bound(fresh.begin(), fresh.end(), m_rows.back().key,
                                 [](const Key &k, const Row &r) { return k < r.key; });
    for (auto it = fresh.begin(); it != block; ++it)
        insert(std::move(*it));
    if (block != fresh.end()) {
        beginInsertRows({}, 0, int(fresh.end() - block) - 1);
        for (auto it = block; it != fresh.end(); ++it) {
            m_keyOf[it->uid] = it->key;
            m_rows.push_back(std::move(*it));
        }
        endInsertRows();
    }
    // Over the bound: the oldest go, in one removal at the bottom.
    if (int(m_rows.size()) > m_max) {
        const int excess = int(m_rows.size()) - m_max;
        beginRemoveRows({}, m_max, int(m_rows.size()) - 1);
        for (int n = 0; n < excess; ++n) {
            m_keyOf.erase(m_rows.front().uid);
            m_rows.pop_front();
        }
        endRemoveRows();
        m_pendingDrops += excess;
    }
    setDropped(m_dropped + std::exchange(m_pendingDrops, 0));
}

void EventTableModel::clear()
{
    setDropped(0);
    if (m_rows.empty())
        return;
    beginRemoveRows({}, 0, int(m_rows.size()) - 1);
    m_rows.clear();
    m_keyOf.clear();
    endRemoveRows();
}

int EventTableModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_rows.size());
}

int EventTableModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant EventTableModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid() || index.row() >= int(m_rows.size()))
        return {};
    const Row &r = m_rows[m_rows.size() - 1 - std::size_t(index.row())];
    if (role == Qt::DisplayRole) {
        switch (index.column()) {
        case TypeColumn: return r.type;
        case ReasonColumn: return r.reason;
        case MessageColumn: return r.message;
        case CountColumn: return r.count;
        case LastSeenColumn: {
            if (!r.lastSeen.isValid())
                return QString();
            const QDateTime now = m_now.isValid() ? m_now : QDateTime::currentDateTimeUtc();
            return tr("%1 ago").arg(humanAge(r.lastSeen.secsTo(now)));
        }
        case SourceColumn: return r.source;
        default: return {};
        }
    }
    if (role == Qt::ToolTipRole && index.column() == MessageColumn)
        return r.message;
    if (role == Qt::ForegroundRole && index.column() == TypeColumn && r.type == QLatin1String("Warning"))
        return QBrush(QColor(0xd8, 0x43, 0x15));
    return {};
}

QVariant EventTableModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case TypeColumn: return tr("Type");
    case ReasonColumn: return tr("Reason");
    case MessageColumn:
        // The bound is visible: what is not shown is counted, never silently missing.
        return m_dropped > 0 ? tr("Message (%1 older events not kept; the newest %2 are)").arg(m_dropped).arg(m_max)
                             : tr("Message");
    case CountColumn: return tr("Count");
    case LastSeenColumn: return tr("Last seen");
    case SourceColumn: return tr("Source");
    default: return {};
    }
}

} // namespace fieldscope::models
