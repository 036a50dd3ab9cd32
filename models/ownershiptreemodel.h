#pragma once
// OwnershipTreeModel: an object's fields as a tree with every owner per field. Lives on
// the GUI thread; the tree itself is built in core (OwnershipTree::build, on a worker thread) and
// handed over by value. A new tree of the same object updates rows in place (inserts, removes and
// dataChanged matched by path), so selection and expansion survive watch updates; a tree of
// another object resets the model. The manager filter works the same way, without resets.
#include "core/drift/driftreport.h"
#include "core/ownership/ownershiptree.h"
#include "models/managercolors.h"

#include <QAbstractItemModel>

#include <string>
#include <unordered_map>
#include <vector>

namespace fieldscope::models {

class OwnershipTreeModel : public QAbstractItemModel
{
    Q_OBJECT
public:
    enum Column { FieldColumn, ValueColumn, OwnersColumn, OperationColumn, LastChangedColumn, ColumnCount };

    explicit OwnershipTreeModel(QObject *parent = nullptr);

    void setTree(core::OwnershipTree tree);
    const core::OwnershipTree &tree() const { return m_tree; }

    // Shows only fields owned (directly or through an atomic ancestor) by the chosen managedFields
    // entries, plus their ancestors. setManagerFilter selects every entry of a manager name,
    // setEntryFilter one entry (a legend row). An empty name / -1 shows everything.
    void setManagerFilter(const QString &manager);
    void setEntryFilter(int entryIndex);
    QString managerFilter() const { return m_filterManager; }
    int entryFilter() const { return m_filterEntry; }

    // The drift of the shown object (docs/history.md, "Drift"): each drifted field gets a
    // "[drift]" tag and a colour in the Value column and a tooltip (DriftRole) naming the applier,
    // what it applied and who changed it since; a field no longer in the object marks its nearest
    // ancestor shown. A report about another object than the tree's marks nothing until that
    // object's tree comes; an empty report clears the marks.
    void setDrift(const core::DriftReport &report);
    const core::DriftReport &drift() const { return m_drift; }

    // Colours returned by ManagerColorRole / OwnerColorsRole; widgets follow the palette.
    void setPaletteTone(PaletteTone tone);

    // Navigation for the blame view and 409 causes: the visible row of a node, if any.
    QModelIndex indexForNode(core::NodeId node, int column = 0) const;
    QModelIndex indexForJsonPointer(const QString &pointer, int column = 0) const;
    QModelIndex indexForPath(const core::FieldPath &path, int column = 0) const;
    // The node a row shows in tree(); nullopt for invalid indexes.
    std::optional<core::NodeId> nodeForIndex(const QModelIndex &index) const;
    // The field an index shows, in the server's syntax (empty for an invalid index).
    core::FieldPath pathForIndex(const QModelIndex &index) const;

    QModelIndex index(int row, int column, const QModelIndex &parent = {}) const override;
    QModelIndex parent(const QModelIndex &child) const override;
    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    struct Item {
        core::NodeId node = 0;
        std::size_t parent = 0;
        int row = 0;
        unsigned generation = 0; // == m_generation: `node` is in m_tree, else in m_previous
        std::string key;         // FieldsV1 key of the node's element: stable across trees
        std::vector<std::size_t> children;
    };

    const core::OwnershipTree &treeOf(const Item &item) const;
    QModelIndex indexOfItem(std::size_t item, int column = 0) const;
    void computeVisibility();
    std::size_t newItem(std::size_t parent, core::NodeId node, int row);
    void populate(std::size_t item);
    void releaseItem(std::size_t item);
    void resync();
    void sync(std::size_t item, core::NodeId node);
    void removeMissing(std::size_t item, const std::vector<std::string> &wantedKeys);
    void insertAndUpdate(std::size_t item, const std::vector<core::NodeId> &wanted,
                         const std::vector<std::string> &wantedKeys);
    void renumber(std::size_t item);
    std::vector<core::NodeId> visibleChildren(core::NodeId node) const;
    std::string rowSignature(const core::OwnershipTree &tree, core::NodeId node) const;
    static std::string objectIdentity(const core::OwnershipTree &tree);
    QVariant displayData(const core::OwnershipTree &tree, core::NodeId node, int column) const;
    QVariant roleData(const core::OwnershipTree &tree, core::NodeId node, int role) const;
    void applyDrift(); // m_driftOf for m_tree, and the rows whose mark changed told
    QString driftOf(const Item &item) const;

    core::OwnershipTree m_tree;
    core::OwnershipTree m_previous; // the tree unsynced items still point into, during setTree()
    unsigned m_generation = 1;
    std::vector<Item> m_items; // [0] is the invisible root; ids are quintptr internal ids
    std::vector<std::size_t> m_free;
    std::vector<char> m_visible;       // per node of m_tree
    std::vector<std::size_t> m_itemOf; // per node of m_tree: item id, 0 when not shown
    QString m_filterManager;
    int m_filterEntry = -1;
    PaletteTone m_tone = PaletteTone::Light;
    core::DriftReport m_drift;
    std::unordered_map<core::NodeId, QString> m_driftOf; // node of m_tree -> its drift text
    std::vector<core::FieldPath> m_driftPaths;           // the marked nodes, to unmark after a change
};

} // namespace fieldscope::models
