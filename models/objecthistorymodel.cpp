#include "models/objecthistorymodel.h"

namespace fieldscope::models {

void SessionHistory::record(const core::WatchBatch &batch)
{
    for (const auto &e : batch.events) {
        auto &list = m_versions[e.uid];
        if (!list.empty() && list.back().resourceVersion == e.resourceVersion && list.back().type == e.type)
            continue; // a relist delivers a version we already hold
        SeenVersion v;
        v.resourceVersion = e.resourceVersion;
        v.type = e.type;
        v.fromList = e.fromList;
        v.observedAtMs = batch.observedAtMs;
        if (!e.lastManager.empty())
            v.changedBy = QString::fromStdString(e.lastManager) + QStringLiteral(" (") + QString::fromStdString(e.lastManagerOperation) + u')';
        v.json = e.json;
        list.push_back(std::move(v));
        while (int(list.size()) > m_max)
            list.pop_front();
    }
}

std::vector<SeenVersion> SessionHistory::versions(const std::string &uid) const
{
    auto it = m_versions.find(uid);
    return it == m_versions.end() ? std::vector<SeenVersion>{} : std::vector<SeenVersion>(it->second.begin(), it->second.end());
}

ObjectHistoryModel::ObjectHistoryModel(QObject *parent) : QAbstractTableModel(parent) {}

void ObjectHistoryModel::setVersions(const std::string &uid, std::vector<SeenVersion> versions)
{
    const std::size_t n = m_versions.size();
    const bool extends = uid == m_uid && versions.size() > n && n > 0
                      && versions[n - 1].resourceVersion == m_versions[n - 1].resourceVersion
                      && versions.front().resourceVersion == m_versions.front().resourceVersion;
    if (extends) {
        const int added = int(versions.size() - n);
        beginInsertRows({}, 0, added - 1);
        m_versions = std::move(versions);
        endInsertRows();
        Q_EMIT dataChanged(index(added, 0), index(rowCount() - 1, ColumnCount - 1)); // "previous" moved
        return;
    }
    beginResetModel(); // another object, or retention dropped the oldest: a new list
    m_uid = uid;
    m_versions = std::move(versions);
    endResetModel();
}

int ObjectHistoryModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_versions.size());
}

int ObjectHistoryModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant ObjectHistoryModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid() || index.row() >= int(m_versions.size()))
        return {};
    const std::size_t i = m_versions.size() - 1 - std::size_t(index.row());
    const SeenVersion &v = m_versions[i];
    switch (role) {
    case JsonRole: return v.json;
    case PreviousJsonRole: return i > 0 ? m_versions[i - 1].json : QByteArray();
    case Qt::DisplayRole:
        switch (index.column()) {
        case ResourceVersionColumn: return QString::fromStdString(v.resourceVersion);
        case EventColumn:
            if (v.fromList)
                return v.type == core::WatchEventType::Deleted ? tr("gone after relist") : tr("listed");
            return v.type == core::WatchEventType::Added ? tr("added") : (v.type == core::WatchEventType::Modified ? tr("modified") : tr("deleted"));
        case ObservedColumn:
            return v.observedAtMs ? QDateTime::fromMSecsSinceEpoch(v.observedAtMs).toLocalTime().toString(QStringLiteral("HH:mm:ss.zzz")) : QString();
        case ChangedByColumn: return v.changedBy;
        default: return {};
        }
    default: return {};
    }
}

QVariant ObjectHistoryModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case ResourceVersionColumn: return tr("Resource version");
    case EventColumn: return tr("Seen as");
    case ObservedColumn: return tr("Observed");
    case ChangedByColumn: return tr("Last changed by");
    default: return {};
    }
}

} // namespace fieldscope::models
