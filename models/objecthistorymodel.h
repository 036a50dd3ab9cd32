#pragma once
// The versions of objects this session has seen (issue 6's History tab, until the on-disk
// history store is wired to the GUI): SessionHistory keeps, per uid, the versions the watcher
// delivered (bounded per object), and ObjectHistoryModel lists one object's versions, newest
// first. Both live on the GUI thread; the JSON bytes are implicitly shared with the table rows.
#include "core/watchtypes.h"

#include <QAbstractTableModel>
#include <QDateTime>

#include <deque>
#include <string>
#include <unordered_map>
#include <vector>

namespace fieldscope::models {

struct SeenVersion {
    std::string resourceVersion;
    core::WatchEventType type = core::WatchEventType::Added;
    bool fromList = false;
    qint64 observedAtMs = 0;
    QString changedBy; // "kubectl (Update)"
    QByteArray json;
};

class SessionHistory
{
public:
    void setMaxVersionsPerObject(int n) { m_max = n > 0 ? n : 1; }
    int maxVersionsPerObject() const { return m_max; }
    void record(const core::WatchBatch &batch);
    std::vector<SeenVersion> versions(const std::string &uid) const; // oldest first
    void clear() { m_versions.clear(); }

private:
    int m_max = 50;
    std::unordered_map<std::string, std::deque<SeenVersion>> m_versions;
};

class ObjectHistoryModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Column { ResourceVersionColumn, EventColumn, ObservedColumn, ChangedByColumn, ColumnCount };
    enum Role { JsonRole = Qt::UserRole + 300, PreviousJsonRole };

    explicit ObjectHistoryModel(QObject *parent = nullptr);

    // Versions oldest first (as SessionHistory returns them); shown newest first. Appending to
    // the same object inserts rows on top instead of resetting, so the selection survives.
    void setVersions(const std::string &uid, std::vector<SeenVersion> versions);
    const std::string &uid() const { return m_uid; }

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    std::string m_uid;
    std::vector<SeenVersion> m_versions; // oldest first; row r shows m_versions[n-1-r]
};

} // namespace fieldscope::models
