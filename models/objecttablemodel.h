#pragma once
// ObjectTableModel: one row per object of a watch scope, fed with WatchBatches. Lives on the GUI
// thread. Each batch becomes one insert range, removals by contiguous range and dataChanged
// ranges found through a uid->row hash; the model is never reset for an update, so selection
// and scroll position survive.
#include "core/watchtypes.h"

#include <QAbstractTableModel>
#include <QDateTime>

#include <string>
#include <unordered_map>
#include <vector>

namespace fieldscope::models {

class ObjectTableModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Column { Name, Namespace, Age, ResourceVersion, Managers, LastChangedBy, ColumnCount };
    enum Role {
        UidRole = Qt::UserRole + 100,
        SortRole,      // a value that sorts naturally (ages as seconds, counts as numbers)
        ObjectJsonRole // the object's JSON bytes (QByteArray)
    };

    explicit ObjectTableModel(QObject *parent = nullptr);

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

    void applyBatch(const core::WatchBatch &batch);
    void clear();
    // Row of an object, -1 when absent.
    int rowOf(const std::string &uid) const;
    QByteArray objectJson(int row) const;
    // Age is relative to this clock; tests pin it.
    void setNow(const QDateTime &now) { m_now = now; }

private:
    struct Row {
        std::string uid, namespace_, name, resourceVersion;
        QByteArray json;
        qint64 createdSecs = 0; // since epoch; 0 = unknown
        int managerCount = 0;
        QString lastManager;
    };
    static Row rowFrom(const core::ObjectVersion &v);
    void removeRows(std::vector<int> rows);
    QString ageText(qint64 createdSecs) const;

    std::vector<Row> m_rows;
    std::unordered_map<std::string, int> m_index; // uid -> row
    QDateTime m_now;
};

// "3d2h", "5m", "42s", like kubectl's age column.
QString humanAge(qint64 seconds);

} // namespace fieldscope::models
