#pragma once
// DriftModel: the window's Drift view (docs/history.md, "Drift"): one row per field an Apply
// manager set that another manager has changed or taken since, for the objects of one kind in the
// namespaces the table shows. Lives on the GUI thread; the reports are computed on a worker
// (core/drift/driftquery.h, app/services/driftsource.h) and fed here whole, in batches.
//
// A run over the objects is beginRun(), addReports() per batch, endRun(). Rows stay grouped by
// object in the order the objects were first reported; a report replaces its object's rows with
// dataChanged where the count stays and inserts or removes the rest, and endRun() removes the
// objects the run did not report. So a Refresh never resets the model: the selection and the
// scroll position survive. clear() (another kind or namespace) resets it.
#include "core/drift/driftreport.h"

#include <QAbstractTableModel>
#include <QStringList>

#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace fieldscope::models {

class DriftModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Column {
        ObjectColumn,
        FieldColumn,
        AppliedByColumn,
        AppliedValueColumn,
        NowColumn,
        ChangedByColumn,
        WhoColumn,
        WhenColumn,
        SourceColumn,
        ColumnCount
    };
    enum Role {
        UidRole = Qt::UserRole + 400, // QString: the object's uid
        ResourceVersionRole,          // QString: the recorded version that made the field what it is ("" = none)
    };
    // Notes (an unreadable version, a report that failed) beyond this many are only counted.
    static constexpr int kMaxNotes = 50;

    explicit DriftModel(QObject *parent = nullptr);

    // Objects of this namespace show their name only; others "namespace/name" ("" = always both).
    void setShownNamespace(const QString &namespace_);
    void beginRun();
    void addReports(const std::vector<core::DriftReport> &reports);
    void endRun();
    void clear();

    // The finding a (source) row shows; null past the end.
    const core::DriftFinding *findingAt(int row) const;
    int objectCount() const { return int(m_blocks.size()); }
    int driftedObjectCount() const;
    // The reports' notes, "namespace/name: note", at most kMaxNotes; noteCount() counts all.
    QStringList notes() const;
    int noteCount() const;

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    struct Block {
        core::DriftObjectRef object;
        std::vector<core::DriftFinding> findings;
        std::vector<std::string> notes;
    };
    void replace(std::size_t block, core::DriftReport report);
    void removeBlocks(const std::vector<std::size_t> &blocks);
    void reindex();
    std::pair<std::size_t, std::size_t> locate(int row) const; // block, finding
    QVariant display(const core::DriftFinding &f, int column) const;
    QVariant toolTip(const core::DriftFinding &f, int column) const;
    QVariant sortKey(const core::DriftFinding &f, int column) const;

    std::vector<Block> m_blocks;                            // in the order first reported
    std::vector<int> m_firstRow;                            // per block; one more entry: the row count
    std::unordered_map<std::string, std::size_t> m_blockOf; // uid -> block
    std::unordered_set<std::string> m_seen;                 // uids the current run reported
    std::string m_shownNamespace;
};

} // namespace fieldscope::models
