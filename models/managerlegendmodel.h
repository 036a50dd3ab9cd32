#pragma once
// ManagerLegendModel: one row per metadata.managedFields entry (manager, operation, subresource,
// time, field count) with the manager's colour; clicking a row filters OwnershipTreeModel via
// EntryIndexRole. Lives on the GUI thread. A new tree updates rows in place, matched by entry
// identity (manager, operation, subresource, apiVersion), so the selected manager survives watch updates.
// "Last written by": the person who last wrote as each entry, from the History tab's audit joins.
#include "core/ownership/ownershiptree.h"
#include "models/managercolors.h"

#include <QAbstractTableModel>

#include <map>
#include <string>

namespace fieldscope::models {

class ManagerLegendModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    // The person beside the manager: the legend is narrow, and who wrote is what is asked first.
    enum Column {
        ManagerColumn,
        WrittenByColumn,
        OperationColumn,
        SubresourceColumn,
        TimeColumn,
        FieldCountColumn,
        ColumnCount
    };

    explicit ManagerLegendModel(QObject *parent = nullptr);

    void setTree(const core::OwnershipTree &tree);
    void setPaletteTone(PaletteTone tone);
    // Entry label ("kubectl(Apply)") -> person ("alice", "bob (probable)"); empty: nobody known.
    void setWriters(std::map<std::string, std::string> writers);
    // Row of the entry with this index in the current tree, -1 if none.
    int rowOfEntry(int entryIndex) const;

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    struct Row {
        core::ManagedFieldsEntry entry; // fields cleared: only the attributes are kept
        std::size_t fieldCount = 0;
        int entryIndex = 0;
    };
    static bool sameRow(const Row &a, const Row &b);

    std::vector<Row> m_rows;
    std::map<std::string, std::string> m_writers;
    PaletteTone m_tone = PaletteTone::Light;
};

} // namespace fieldscope::models
