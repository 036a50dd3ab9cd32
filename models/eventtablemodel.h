#pragma once
// EventTableModel: the Kubernetes Events about one object (core/v1 Event), newest first, fed
// with WatchBatches of a watch on `events` with fieldSelector involvedObject.uid=UID. Events are
// small, so the model reads their JSON itself. Lives on the GUI thread.
//
// Bounded: a server (or a controller in a loop) can send events without end, so the model keeps
// the newest kMaxEvents; older ones are dropped and counted, and the Message column's header says
// how many. Rows are kept oldest first in a deque with a uid -> sort key hash, so new events
// (the newest, as in a flood) are appended and the oldest popped: amortised O(1) each, and a
// batch's new events on top are one insert signal and the dropped ones one removal; an event
// that arrives out of order or changes is found by binary search (O(log n)).
#include "core/objects/watchtypes.h"

#include <QAbstractTableModel>
#include <QDateTime>

#include <deque>
#include <unordered_map>
#include <utility>
#include <vector>

namespace fieldscope::models {

class EventTableModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Column { TypeColumn, ReasonColumn, MessageColumn, CountColumn, LastSeenColumn, SourceColumn, ColumnCount };
    static constexpr int kMaxEvents = 5000; // per view: the newest are kept

    explicit EventTableModel(QObject *parent = nullptr, int maxEvents = kMaxEvents);
    qint64 droppedCount() const { return m_dropped; } // older events not kept since the last clear()

    void applyBatch(const core::WatchBatch &batch);
    void clear();
    void setNow(const QDateTime &now) { m_now = now; }

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    // Sort key: last seen (ms; events without a time sort oldest), then arrival order, so among
    // events seen in the same millisecond the one received last is shown first.
    using Key = std::pair<qint64, quint64>;
    struct Row {
        std::string uid;
        QString type, reason, message, source;
        qint64 count = 1;
        QDateTime lastSeen;
        Key key;
    };
    static Row rowFrom(const core::ObjectVersion &v);
    std::size_t positionOf(const Key &key) const; // index in m_rows (oldest first)
    int viewRow(std::size_t position) const { return int(m_rows.size() - 1 - position); }
    void remove(const std::string &uid);
    void insert(Row row);
    void setDropped(qint64 dropped);

    std::deque<Row> m_rows;                       // oldest first; view row r shows m_rows[n-1-r]
    std::unordered_map<std::string, Key> m_keyOf; // uid -> its row's key
    int m_max;
    quint64 m_arrivals = 0;
    qint64 m_dropped = 0;
    qint64 m_pendingDrops = 0; // dropped by the batch being applied
    QDateTime m_now;
};

} // namespace fieldscope::models
