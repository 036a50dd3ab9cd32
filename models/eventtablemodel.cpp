#include "models/eventtablemodel.h"

#include "core/json.h"
#include "models/objecttablemodel.h"

#include <QBrush>
#include <QColor>

#include <algorithm>

namespace fieldscope::models {

EventTableModel::EventTableModel(QObject *parent) : QAbstractTableModel(parent) {}

EventTableModel::Row EventTableModel::rowFrom(const core::ObjectVersion &v)
{
    Row r;
    r.uid = v.uid;
    auto j = core::parseJson(std::string_view(v.json.constData(), std::size_t(v.json.size())));
    if (!j || !j->is_object())
        return r;
    auto s = [&](const core::Json &o, const char *k) {
        return o.is_object() && o.contains(k) && o[k].is_string() ? QString::fromStdString(o[k].get<std::string>()) : QString();
    };
    r.type = s(*j, "type");
    r.reason = s(*j, "reason");
    r.message = s(*j, "message").simplified();
    const core::Json src = j->contains("source") ? (*j)["source"] : core::Json();
    r.source = s(src, "component");
    if (r.source.isEmpty())
        r.source = s(*j, "reportingComponent");
    if (j->contains("count") && (*j)["count"].is_number_integer())
        r.count = (*j)["count"].get<qint64>();
    // lastTimestamp for core events; eventTime (micro time) for events.k8s.io writers.
    QString when = s(*j, "lastTimestamp");
    if (when.isEmpty())
        when = s(*j, "eventTime");
    if (when.isEmpty())
        when = s((*j)["metadata"], "creationTimestamp");
    r.lastSeen = QDateTime::fromString(when, Qt::ISODateWithMs);
    return r;
}

int EventTableModel::rowOf(const std::string &uid) const
{
    for (std::size_t i = 0; i < m_rows.size(); ++i)
        if (m_rows[i].uid == uid)
            return int(i);
    return -1;
}

void EventTableModel::applyBatch(const core::WatchBatch &batch)
{
    for (const auto &e : batch.events) {
        const int at = rowOf(e.uid);
        if (e.type == core::WatchEventType::Deleted) { // expired (events have a TTL)
            if (at >= 0) {
                beginRemoveRows({}, at, at);
                m_rows.erase(m_rows.begin() + at);
                endRemoveRows();
            }
            continue;
        }
        Row r = rowFrom(e);
        if (at >= 0) {
            beginRemoveRows({}, at, at);
            m_rows.erase(m_rows.begin() + at);
            endRemoveRows();
        }
        const auto pos = std::find_if(m_rows.begin(), m_rows.end(), [&](const Row &o) { return o.lastSeen < r.lastSeen; });
        const int row = int(pos - m_rows.begin());
        beginInsertRows({}, row, row);
        m_rows.insert(pos, std::move(r));
        endInsertRows();
    }
}

void EventTableModel::clear()
{
    if (m_rows.empty())
        return;
    beginRemoveRows({}, 0, int(m_rows.size()) - 1);
    m_rows.clear();
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
    const Row &r = m_rows[std::size_t(index.row())];
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
    case MessageColumn: return tr("Message");
    case CountColumn: return tr("Count");
    case LastSeenColumn: return tr("Last seen");
    case SourceColumn: return tr("Source");
    default: return {};
    }
}

} // namespace fieldscope::models
