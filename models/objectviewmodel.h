#pragma once
// ObjectViewModel: the sorted, filtered view of an ObjectTableModel that the object table shows.
// Lives on the GUI thread.
//
// Why not QSortFilterProxyModel: at 100,000 rows its lessThan()/filterAcceptsRow() go through
// QVariant and QString conversions per comparison, and source inserts are mapped row by row;
// bench/bench_table.cpp measures both. Here the order is a vector of source rows compared on the
// rows' native fields, and:
//   - the orders hold the source's stable slots, not row numbers, so a removal or insertion in the
//     source renumbers nothing here;
//   - a batch of new rows is merged into the order: a few insert ranges when they land in a few
//     places, otherwise one append plus one layout change (persistent indexes remapped);
//   - deleted rows scattered over the view move to the end in one layout change and leave as one
//     range (rows a persistent index points at leave in place, see removeFromView());
//   - a filter change walks the full sorted order once (no sort), one layout change;
//   - changed rows that left their place are merged back in one layout change (persistent
//     indexes follow, so selection survives); otherwise only dataChanged is forwarded;
//   - the order is total (ties broken by arrival), so binary search finds any row's place.
// Invariants: m_all holds the slot of every source row in order; m_rows is the accepted
// subsequence; m_proxyOf[slot] is the slot's index in m_rows or -1.
#include "core/base/stringset.h"
#include "models/labelselector.h"

#include <QAbstractProxyModel>

#include <string>
#include <utility>
#include <vector>

namespace fieldscope::models {

class ObjectTableModel;
struct ObjectRow;

class ObjectViewModel : public QAbstractProxyModel
{
    Q_OBJECT
public:
    explicit ObjectViewModel(QObject *parent = nullptr);

    // Must be an ObjectTableModel (or null).
    void setSourceModel(QAbstractItemModel *source) override;
    ObjectTableModel *objectSource() const { return m_src; }

    QModelIndex index(int row, int column, const QModelIndex &parent = {}) const override;
    QModelIndex parent(const QModelIndex &child) const override;
    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    bool hasChildren(const QModelIndex &parent = {}) const override;
    QModelIndex mapToSource(const QModelIndex &proxyIndex) const override;
    QModelIndex mapFromSource(const QModelIndex &sourceIndex) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;
    void sort(int column, Qt::SortOrder order = Qt::AscendingOrder) override;

    int sortColumn() const { return m_sortColumn; }
    Qt::SortOrder sortOrder() const { return m_order; }

    // Quick filter text (see QuickFilter); the error of a bad selector term, "" when none.
    void setQuickFilter(const QString &text);
    QString quickFilterError() const { return m_filter.error; }
    // Namespaces to show; empty = all.
    void setNamespaces(const QStringList &namespaces);
    QStringList namespaces() const;

    // The view row of an object, or -1 (hidden or absent).
    int rowOfUid(const std::string &uid) const;

private:
    bool less(int a, int b) const;                                    // slots, total order
    bool orderedLess(int compared, int a, int b) const;               // applies the sort order, then arrival
    int compareRows(const ObjectRow &a, const ObjectRow &b) const;    // comparePrimary, then compareTies
    int comparePrimary(const ObjectRow &a, const ObjectRow &b) const; // the sort column
    int compareTies(const ObjectRow &a, const ObjectRow &b) const;    // namespace, name
    std::vector<int> primaryRanks(const std::vector<int> &slotList) const;
    void sortSlots(std::vector<int> &slotList) const; // sorts by less(), faster for repeated values
    bool accepts(int sourceRow) const;
    bool immutableSortColumn() const;
    void rebuildProxyOf();
    void refilter(); // inside a layout change
    void beginLayout();
    void endLayout();
    void insertSorted(std::vector<int> &into, std::vector<int> sortedNew) const;
    std::size_t lowerBound(std::size_t from, std::size_t to, int sourceRow) const;

    using Runs = std::vector<std::pair<std::size_t, std::size_t>>; // (view position, count)
    void onRowsInserted(const QModelIndex &parent, int first, int last);
    void insertScattered(const std::vector<int> &accepted, const Runs &runs);
    void onRowsAboutToBeRemoved(const QModelIndex &parent, int first, int last);
    void removeFromView(std::vector<int> rows);
    void removeRanges(std::vector<int> rows);
    void onDataChanged(const QModelIndex &topLeft, const QModelIndex &bottomRight);
    void onSourceReset();
    void repositionChanged(const std::vector<int> &changedSlots, int *lo, int *hi);

    ObjectTableModel *m_src = nullptr;
    std::vector<int> m_all;
    std::vector<int> m_rows;
    std::vector<int> m_proxyOf;
    int m_sortColumn = 0;
    Qt::SortOrder m_order = Qt::AscendingOrder;
    QString m_filterText;
    QuickFilter m_filter;
    core::StringSet m_namespaces; // finds a row's namespace (a view) without a copy
    QModelIndexList m_layoutFrom;
    std::vector<int> m_layoutSource;
    QList<QMetaObject::Connection> m_connections;
};

} // namespace fieldscope::models
