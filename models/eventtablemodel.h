#pragma once
// EventTableModel: the Kubernetes Events about one object (core/v1 Event), newest first, fed
// with WatchBatches of a watch on `events` with fieldSelector involvedObject.uid=UID. Events are
// small and few per object, so the model reads their JSON itself. Lives on the GUI thread.
#include "core/watchtypes.h"

#include <QAbstractTableModel>
#include <QDateTime>

#include <vector>

namespace fieldscope::models {

class EventTableModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Column { TypeColumn, ReasonColumn, MessageColumn, CountColumn, LastSeenColumn, SourceColumn, ColumnCount };

    explicit EventTableModel(QObject *parent = nullptr);

    void applyBatch(const core::WatchBatch &batch);
    void clear();
    void setNow(const QDateTime &now) { m_now = now; }

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    struct Row {
        std::string uid;
        QString type, reason, message, source;
        qint64 count = 1;
        QDateTime lastSeen;
    };
    static Row rowFrom(const core::ObjectVersion &v);
    int rowOf(const std::string &uid) const;

    std::vector<Row> m_rows; // newest first
    QDateTime m_now;
};

} // namespace fieldscope::models
