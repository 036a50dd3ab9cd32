#include "models/objectviewmodel.h"

#include "models/objecttablemodel.h"

#include <QHash>

#include <algorithm>
#include <bit>
#include <climits>
#include <future>
#include <numeric>

namespace fieldscope::models {

namespace {

int cmp(std::string_view a, std::string_view b)
{
    return a.compare(b);
}

// resourceVersions are opaque (https://kubernetes.io/docs/reference/using-api/api-concepts/#resource-versions),
// but etcd's are decimal: shorter sorts first.
int cmpRv(std::string_view a, std::string_view b)
{
    if (a.size() != b.size())
        return a.size() < b.size() ? -1 : 1;
    return a.compare(b);
}

// Text with numbers in it ("1/1" vs "10/10" ready counts, "pod-2" vs "pod-10") compares digit
// runs by value, everything else case-insensitively, the way a person reads a table column.
int naturalCompare(const QString &a, const QString &b)
{
    qsizetype i = 0, j = 0;
    while (i < a.size() && j < b.size()) {
        if (a[i].isDigit() && b[j].isDigit()) {
            while (i < a.size() && a[i] == u'0')
                ++i;
            while (j < b.size() && b[j] == u'0')
                ++j;
            qsizetype ei = i, ej = j;
            while (ei < a.size() && a[ei].isDigit())
                ++ei;
            while (ej < b.size() && b[ej].isDigit())
                ++ej;
            if (ei - i != ej - j)
                return ei - i < ej - j ? -1 : 1; // more significant digits: larger
            if (const int c = QStringView(a).mid(i, ei - i).compare(QStringView(b).mid(j, ej - j)))
                return c;
            i = ei;
            j = ej;
            continue;
        }
        const char16_t x = a[i].toCaseFolded().unicode(), y = b[j].toCaseFolded().unicode();
        if (x != y)
            return x < y ? -1 : 1;
        ++i;
        ++j;
    }
    return (a.size() - i) == (b.size() - j) ? 0 : ((a.size() - i) < (b.size() - j) ? -1 : 1);
}

int cmpCell(const QVariant &a, const QVariant &b)
{
    const auto numeric = [](const QVariant &v) {
        const int t = v.typeId();
        return t == QMetaType::LongLong || t == QMetaType::Int || t == QMetaType::Double || t == QMetaType::Bool;
    };
    if (numeric(a) && numeric(b)) {
        const double x = a.toDouble(), y = b.toDouble();
        return x < y ? -1 : (x > y ? 1 : 0);
    }
    if (a.isNull() != b.isNull())
        return a.isNull() ? 1 : -1; // empty cells last
    return naturalCompare(a.toString(), b.toString());
}

} // namespace

ObjectViewModel::ObjectViewModel(QObject *parent) : QAbstractProxyModel(parent) {}

void ObjectViewModel::setSourceModel(QAbstractItemModel *source)
{
    beginResetModel();
    for (const auto &c : std::as_const(m_connections))
        disconnect(c);
    m_connections.clear();
    m_src = qobject_cast<ObjectTableModel *>(source);
    Q_ASSERT(!source || m_src);
    if (sourceModel() != m_src)
        QAbstractProxyModel::setSourceModel(m_src);
    if (m_src) {
        using S = ObjectTableModel;
        m_connections << connect(m_src, &S::rowsInserted, this, &ObjectViewModel::onRowsInserted)
                      << connect(m_src, &S::rowsAboutToBeRemoved, this, &ObjectViewModel::onRowsAboutToBeRemoved)
                      << connect(m_src, &S::dataChanged, this, &ObjectViewModel::onDataChanged)
                      << connect(m_src, &S::modelAboutToBeReset, this, [this] { beginResetModel(); })
                      << connect(m_src, &S::modelReset, this,
                                 [this] {
                                     onSourceReset();
                                     endResetModel();
                                 })
                      << connect(m_src, &S::columnsAboutToBeInserted, this,
                                 [this](const QModelIndex &, int f, int l) { beginInsertColumns({}, f, l); })
                      << connect(m_src, &S::columnsInserted, this, [this] { endInsertColumns(); })
                      << connect(m_src, &S::columnsAboutToBeRemoved, this,
                                 [this](const QModelIndex &, int f, int l) { beginRemoveColumns({}, f, l); })
                      << connect(m_src, &S::columnsRemoved, this,
                                 [this] {
                                     endRemoveColumns();
                                     if (m_sortColumn >= columnCount())
                                         sort(ObjectTableModel::Name, Qt::AscendingOrder);
                                 })
                      << connect(m_src, &S::headerDataChanged, this, &ObjectViewModel::headerDataChanged)
                      << connect(m_src, &QObject::destroyed, this, [this] { setSourceModel(nullptr); });
    }
    onSourceReset();
    endResetModel();
}

void ObjectViewModel::onSourceReset()
{
    m_all.resize(m_src ? std::size_t(m_src->rowCount()) : 0);
    for (std::size_t r = 0; r < m_all.size(); ++r)
        m_all[r] = m_src->slotOfRow(int(r));
    sortSlots(m_all);
    m_rows.clear();
    for (int s : m_all)
        if (accepts(s))
            m_rows.push_back(s);
    rebuildProxyOf();
}

QModelIndex ObjectViewModel::index(int row, int column, const QModelIndex &parent) const
{
    if (parent.isValid() || row < 0 || column < 0 || row >= int(m_rows.size()) || column >= columnCount())
        return {};
    return createIndex(row, column);
}

QModelIndex ObjectViewModel::parent(const QModelIndex &) const
{
    return {};
}

int ObjectViewModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_rows.size());
}

int ObjectViewModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() || !m_src ? 0 : m_src->columnCount();
}

bool ObjectViewModel::hasChildren(const QModelIndex &parent) const
{
    return !parent.isValid() && !m_rows.empty();
}

QModelIndex ObjectViewModel::mapToSource(const QModelIndex &proxyIndex) const
{
    if (!m_src || !proxyIndex.isValid() || proxyIndex.row() >= int(m_rows.size()))
        return {};
    return m_src->index(m_src->rowOfSlot(m_rows[std::size_t(proxyIndex.row())]), proxyIndex.column());
}

QModelIndex ObjectViewModel::mapFromSource(const QModelIndex &sourceIndex) const
{
    if (!m_src || !sourceIndex.isValid() || sourceIndex.row() >= m_src->rowCount())
        return {};
    const int slot = m_src->slotOfRow(sourceIndex.row());
    const int p = slot < int(m_proxyOf.size()) ? m_proxyOf[std::size_t(slot)] : -1;
    return p < 0 ? QModelIndex() : createIndex(p, sourceIndex.column());
}

QVariant ObjectViewModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (!m_src)
        return {};
    if (orientation == Qt::Vertical)
        return role == Qt::DisplayRole ? QVariant(section + 1) : QVariant();
    return m_src->headerData(section, orientation, role);
}

int ObjectViewModel::rowOfUid(const std::string &uid) const
{
    const int s = m_src ? m_src->rowOf(uid) : -1;
    return s < 0 ? -1 : m_proxyOf[std::size_t(m_src->slotOfRow(s))];
}

// --- order and filter -------------------------------------------------------------------------

bool ObjectViewModel::immutableSortColumn() const
{
    // Name, namespace and creation time never change for a uid.
    return m_sortColumn == ObjectTableModel::Name || m_sortColumn == ObjectTableModel::Namespace
        || m_sortColumn == ObjectTableModel::Age || m_sortColumn < 0;
}

int ObjectViewModel::compareRows(const ObjectRow &a, const ObjectRow &b) const
{
    const int c = comparePrimary(a, b);
    return c != 0 ? c : compareTies(a, b);
}

int ObjectViewModel::compareTies(const ObjectRow &a, const ObjectRow &b) const
{
    const int c = cmp(a.namespace_(), b.namespace_());
    return c == 0 && m_sortColumn != ObjectTableModel::Name ? cmp(a.name(), b.name()) : c;
}

int ObjectViewModel::comparePrimary(const ObjectRow &a, const ObjectRow &b) const
{
    int c = 0;
    switch (m_sortColumn) {
    case ObjectTableModel::Name: c = cmp(a.name(), b.name()); break;
    case ObjectTableModel::Namespace: c = cmp(a.namespace_(), b.namespace_()); break;
    case ObjectTableModel::Age:
        c = a.createdSecs == b.createdSecs ? 0 : (a.createdSecs > b.createdSecs ? -1 : 1);
        break;
    case ObjectTableModel::ResourceVersion: c = cmpRv(a.resourceVersion(), b.resourceVersion()); break;
    case ObjectTableModel::Managers: c = a.managerCount - b.managerCount; break;
    case ObjectTableModel::LastChangedBy: c = a.lastManager.compare(b.lastManager); break;
    default:
        if (m_sortColumn >= ObjectTableModel::ColumnCount) {
            const int i = m_sortColumn - ObjectTableModel::ColumnCount;
            c = cmpCell(a.cells().value(i), b.cells().value(i));
        }
        break;
    }
    return c;
}

bool ObjectViewModel::less(int a, int b) const
{
    if (a == b)
        return false;
    return orderedLess(m_sortColumn < 0 ? 0 : compareRows(m_src->slotRow(a), m_src->slotRow(b)), a, b);
}

bool ObjectViewModel::orderedLess(int c, int a, int b) const
{
    if (m_order == Qt::DescendingOrder)
        c = -c;
    return c != 0 ? c < 0 : m_src->rowOfSlot(a) < m_src->rowOfSlot(b); // ties: arrival order
}

// A full sort by a column whose values repeat ("Last changed by"; most server columns: Ready,
// Status, Node) ranks each distinct value once, so most comparisons read two ints instead of two
// heap strings reached through two rows: at 100k rows those cache misses made "Last changed by"
// take 0.6-1.1 s. The ranks follow comparePrimary() exactly (values it calls equal share a rank);
// empty when the values are mostly distinct, where ranking would only add work. Only the slots
// being sorted are ranked (a batch of new rows costs its own size, not the table's).
std::vector<int> ObjectViewModel::primaryRanks(const std::vector<int> &slotList) const
{
    const bool byManager = m_sortColumn == ObjectTableModel::LastChangedBy;
    const int cell = m_sortColumn - ObjectTableModel::ColumnCount;
    if (!m_src || (!byManager && cell < 0))
        return {};
    std::vector<int> valueOf(std::size_t(m_src->slotCount()), -1);
    std::vector<QVariant> values;
    QHash<QString, int> seen;
    for (const int s : slotList) {
        const ObjectRow &r = m_src->slotRow(s);
        const QVariant v = byManager ? QVariant(r.lastManager) : r.cells().value(cell);
        const QString key = byManager ? r.lastManager : QString::number(v.typeId()) + u':' + v.toString();
        auto it = seen.find(key); // a non-const iterator, like insert()'s (clazy strict-iterators)
        if (it == seen.end()) {
            it = seen.insert(key, int(values.size()));
            values.push_back(v);
        }
        valueOf[std::size_t(s)] = *it;
    }
    if (values.size() * 2 > slotList.size())
        return {};
    const auto compare = [byManager](const QVariant &a, const QVariant &b) {
        return byManager ? a.toString().compare(b.toString()) : cmpCell(a, b);
    };
    std::vector<int> order(values.size());
    std::iota(order.begin(), order.end(), 0);
    std::sort(order.begin(), order.end(),
              [&](int a, int b) { return compare(values[std::size_t(a)], values[std::size_t(b)]) < 0; });
    std::vector<int> rankOfValue(values.size());
    for (std::size_t i = 0, rank = 0; i < order.size(); ++i) {
        if (i > 0 && compare(values[std::size_t(order[i - 1])], values[std::size_t(order[i])]) != 0)
            ++rank;
        rankOfValue[std::size_t(order[i])] = int(rank);
    }
    std::vector<int> ranks(valueOf.size(), 0);
    for (const int s : slotList)
        ranks[std::size_t(s)] = rankOfValue[std::size_t(valueOf[std::size_t(s)])];
    return ranks;
}

// Above 20,000 rows the two halves are sorted on two threads and merged: a sort of 100k rows
// spends its time waiting on memory (rows are far apart), which a second core overlaps. The
// comparators only read; the GUI thread waits for the other half.
void ObjectViewModel::sortSlots(std::vector<int> &slotList) const
{
    const std::vector<int> ranks = slotList.size() > 1000 ? primaryRanks(slotList) : std::vector<int>{};
    const auto lt = [&](int a, int b) {
        if (ranks.empty() || a == b)
            return less(a, b);
        const int ra = ranks[std::size_t(a)], rb = ranks[std::size_t(b)];
        return orderedLess(ra != rb ? (ra < rb ? -1 : 1) : compareTies(m_src->slotRow(a), m_src->slotRow(b)), a, b);
    };
    constexpr std::size_t kParallelFrom = 20'000;
    if (slotList.size() < kParallelFrom) {
        std::sort(slotList.begin(), slotList.end(), lt);
        return;
    }
    const auto mid = slotList.begin() + std::ptrdiff_t(slotList.size() / 2);
    auto firstHalf = std::async(std::launch::async, [&] { std::sort(slotList.begin(), mid, lt); });
    std::sort(mid, slotList.end(), lt);
    firstHalf.get();
    std::inplace_merge(slotList.begin(), mid, slotList.end(), lt);
}

bool ObjectViewModel::accepts(int s) const
{
    const ObjectRow &r = m_src->slotRow(s);
    if (!m_namespaces.empty() && !m_namespaces.count(r.namespace_()))
        return false;
    return m_filter.matchesName(r.namespace_(), r.name()) && m_filter.selector.matches(r.labels());
}

void ObjectViewModel::rebuildProxyOf()
{
    m_proxyOf.assign(m_src ? std::size_t(m_src->slotCount()) : 0, -1);
    for (std::size_t i = 0; i < m_rows.size(); ++i)
        m_proxyOf[std::size_t(m_rows[i])] = int(i);
}

std::size_t ObjectViewModel::lowerBound(std::size_t from, std::size_t to, int s) const
{
    return std::size_t(std::lower_bound(m_rows.begin() + std::ptrdiff_t(from), m_rows.begin() + std::ptrdiff_t(to), s,
                                        [this](int a, int b) { return less(a, b); })
                       - m_rows.begin());
}

void ObjectViewModel::insertSorted(std::vector<int> &into, std::vector<int> sortedNew) const
{
    if (sortedNew.empty())
        return;
    auto lt = [this](int a, int b) { return less(a, b); };
    std::vector<int> merged;
    merged.reserve(into.size() + sortedNew.size());
    // Comparisons (of strings) are the costly part: a merge makes n + k of them, binary searches
    // k log n; either way the ints are copied once (inserting one by one would memmove n each).
    if (sortedNew.size() * std::size_t(std::bit_width(into.size())) > into.size() + sortedNew.size()) {
        std::merge(into.begin(), into.end(), sortedNew.begin(), sortedNew.end(), std::back_inserter(merged), lt);
    } else {
        auto from = into.begin();
        for (int s : sortedNew) {
            const auto at = std::upper_bound(from, into.end(), s, lt);
            merged.insert(merged.end(), from, at);
            merged.push_back(s);
            from = at;
        }
        merged.insert(merged.end(), from, into.end());
    }
    into.swap(merged);
}

void ObjectViewModel::beginLayout()
{
    Q_EMIT layoutAboutToBeChanged({}, QAbstractItemModel::VerticalSortHint);
    m_layoutFrom = persistentIndexList();
    m_layoutSource.clear();
    for (const QModelIndex &i : std::as_const(m_layoutFrom))
        m_layoutSource.push_back(i.row() < int(m_rows.size()) ? m_rows[std::size_t(i.row())] : -1);
}

void ObjectViewModel::endLayout()
{
    QModelIndexList to;
    to.reserve(m_layoutFrom.size());
    for (qsizetype i = 0; i < m_layoutFrom.size(); ++i) {
        const int s = m_layoutSource[std::size_t(i)];
        const int p = s >= 0 && s < int(m_proxyOf.size()) ? m_proxyOf[std::size_t(s)] : -1;
        to << (p >= 0 ? createIndex(p, m_layoutFrom[i].column()) : QModelIndex());
    }
    changePersistentIndexList(m_layoutFrom, to);
    m_layoutFrom.clear();
    Q_EMIT layoutChanged({}, QAbstractItemModel::VerticalSortHint);
}

void ObjectViewModel::refilter()
{
    m_rows.clear();
    // A keystroke re-tests every row (100k rows of label lookups: ~40 ms on one core); above a
    // size where a second thread pays off, the first half is tested on one while this thread
    // tests the second. accepts() only reads.
    constexpr std::size_t kParallelFrom = 20'000;
    if (m_all.size() < kParallelFrom) {
        for (int s : m_all)
            if (accepts(s))
                m_rows.push_back(s);
    } else {
        const auto mid = m_all.begin() + std::ptrdiff_t(m_all.size() / 2);
        auto firstHalf = std::async(std::launch::async, [this, mid] {
            std::vector<int> out;
            for (auto it = m_all.begin(); it != mid; ++it)
                if (accepts(*it))
                    out.push_back(*it);
            return out;
        });
        std::vector<int> second;
        for (auto it = mid; it != m_all.end(); ++it)
            if (accepts(*it))
                second.push_back(*it);
        m_rows = firstHalf.get();
        m_rows.insert(m_rows.end(), second.begin(), second.end());
    }
    rebuildProxyOf();
}

void ObjectViewModel::sort(int column, Qt::SortOrder order)
{
    if (!m_src) {
        m_sortColumn = column;
        m_order = order;
        return;
    }
    beginLayout();
    const bool reverseOnly = column == m_sortColumn && order != m_order;
    m_sortColumn = column;
    m_order = order;
    if (reverseOnly)
        std::reverse(m_all.begin(), m_all.end()); // ties are by arrival: fix them up below
    sortSlots(m_all);
    refilter();
    endLayout();
}

void ObjectViewModel::setQuickFilter(const QString &text)
{
    if (text == m_filterText)
        return;
    m_filterText = text;
    m_filter = QuickFilter::parse(text);
    if (!m_src)
        return;
    beginLayout();
    refilter();
    endLayout();
}

void ObjectViewModel::setNamespaces(const QStringList &namespaces)
{
    m_namespaces.clear();
    for (const QString &n : namespaces)
        m_namespaces.insert(n.toStdString());
    if (!m_src)
        return;
    beginLayout();
    refilter();
    endLayout();
}

QStringList ObjectViewModel::namespaces() const
{
    QStringList out;
    for (const auto &n : m_namespaces)
        out << QString::fromStdString(n);
    out.sort();
    return out;
}

// --- source changes ---------------------------------------------------------------------------

void ObjectViewModel::onRowsInserted(const QModelIndex &parent, int first, int last)
{
    if (parent.isValid())
        return;
    // Orders hold slots, so rows inserted before others renumber nothing here.
    std::vector<int> fresh;
    fresh.reserve(std::size_t(last - first + 1));
    for (int r = first; r <= last; ++r)
        fresh.push_back(m_src->slotOfRow(r));
    sortSlots(fresh);
    insertSorted(m_all, fresh);
    m_proxyOf.resize(std::size_t(m_src->slotCount()), -1);

    std::vector<int> accepted;
    for (int s : fresh)
        if (accepts(s))
            accepted.push_back(s);
    if (accepted.empty())
        return;
    // Where each lands in the current view; runs of equal positions are one insert.
    Runs runs;
    std::size_t from = 0;
    for (int s : accepted) {
        const std::size_t pos = lowerBound(from, m_rows.size(), s);
        if (!runs.empty() && runs.back().first == pos)
            ++runs.back().second;
        else
            runs.emplace_back(pos, 1);
        from = pos;
    }
    // Each insert signal costs the view an O(rows) header update (measured: ~7 ms at 100k rows),
    // so rows landing in more than two places go through one layout change instead.
    if (runs.size() <= 2) {
        std::size_t offset = 0, next = 0;
        for (const auto &[pos, n] : runs) {
            const int at = int(pos + offset);
            beginInsertRows({}, at, at + int(n) - 1);
            m_rows.insert(m_rows.begin() + at, accepted.begin() + std::ptrdiff_t(next),
                          accepted.begin() + std::ptrdiff_t(next + n));
            for (auto i = std::size_t(at); i < m_rows.size(); ++i)
                m_proxyOf[std::size_t(m_rows[i])] = int(i);
            endInsertRows();
            offset += n;
            next += n;
        }
        return;
    }
    insertScattered(accepted, runs);
}

// One append, then the rows move to their places (found already: `runs`) in one layout change,
// persistent indexes following.
void ObjectViewModel::insertScattered(const std::vector<int> &accepted, const Runs &runs)
{
    const int n = int(m_rows.size());
    beginInsertRows({}, n, n + int(accepted.size()) - 1);
    m_rows.insert(m_rows.end(), accepted.begin(), accepted.end());
    for (auto i = std::size_t(n); i < m_rows.size(); ++i)
        m_proxyOf[std::size_t(m_rows[i])] = int(i);
    endInsertRows();
    beginLayout();
    std::vector<int> merged;
    merged.reserve(m_rows.size());
    std::size_t prev = 0, next = 0;
    for (const auto &[pos, count] : runs) {
        merged.insert(merged.end(), m_rows.begin() + std::ptrdiff_t(prev), m_rows.begin() + std::ptrdiff_t(pos));
        merged.insert(merged.end(), accepted.begin() + std::ptrdiff_t(next),
                      accepted.begin() + std::ptrdiff_t(next + count));
        prev = pos;
        next += count;
    }
    merged.insert(merged.end(), m_rows.begin() + std::ptrdiff_t(prev), m_rows.begin() + n);
    m_rows.swap(merged);
    rebuildProxyOf();
    endLayout();
}

void ObjectViewModel::onRowsAboutToBeRemoved(const QModelIndex &parent, int first, int last)
{
    if (parent.isValid())
        return;
    std::vector<char> gone(std::size_t(m_src->slotCount()), 0);
    std::vector<int> shown;
    for (int r = first; r <= last; ++r) {
        const int slot = m_src->slotOfRow(r);
        gone[std::size_t(slot)] = 1;
        if (const int p = m_proxyOf[std::size_t(slot)]; p >= 0)
            shown.push_back(p);
    }
    removeFromView(std::move(shown));
    m_all.erase(std::remove_if(m_all.begin(), m_all.end(), [&](int s) { return gone[std::size_t(s)] != 0; }),
                m_all.end());
}

// Each removal signal costs the view a pass over all rows (QHeaderView's hidden-section
// bookkeeping), so more than a couple of rows are first moved to the end in one layout change
// and leave as one range. Rows a persistent index points at (the current row, selection corners,
// a scroll anchor, taken after layoutAboutToBeChanged so listeners' own snapshots count) stay in
// place and leave through ordinary removals: QItemSelectionModel then moves the current index to
// a neighbour, as for any removal.
void ObjectViewModel::removeFromView(std::vector<int> rows)
{
    std::vector<int> inPlace; // slots
    if (rows.size() > 2) {
        beginLayout();
        std::vector<int> held;
        for (const QModelIndex &i : std::as_const(m_layoutFrom))
            held.push_back(i.row());
        std::sort(held.begin(), held.end());
        std::vector<char> toEnd(m_rows.size(), 0);
        for (int p : rows) {
            if (std::binary_search(held.begin(), held.end(), p))
                inPlace.push_back(m_rows[std::size_t(p)]);
            else
                toEnd[std::size_t(p)] = 1;
        }
        std::stable_partition(m_rows.begin(), m_rows.end(),
                              [&](int s) { return !toEnd[std::size_t(m_proxyOf[std::size_t(s)])]; });
        rebuildProxyOf();
        endLayout();
        const int moved = int(rows.size() - inPlace.size());
        rows.clear();
        if (moved > 0)
            for (int p = int(m_rows.size()) - moved; p < int(m_rows.size()); ++p)
                rows.push_back(p);
        for (int s : inPlace)
            rows.push_back(m_proxyOf[std::size_t(s)]);
    }
    removeRanges(std::move(rows));
}

void ObjectViewModel::removeRanges(std::vector<int> rows)
{
    std::sort(rows.begin(), rows.end(), std::greater<>());
    std::size_t i = 0;
    while (i < rows.size()) {
        std::size_t j = i;
        while (j + 1 < rows.size() && rows[j + 1] == rows[j] - 1)
            ++j;
        const int hi = rows[i], lo = rows[j];
        beginRemoveRows({}, lo, hi);
        for (int k = lo; k <= hi; ++k)
            m_proxyOf[std::size_t(m_rows[std::size_t(k)])] = -1;
        m_rows.erase(m_rows.begin() + lo, m_rows.begin() + hi + 1);
        for (auto k = std::size_t(lo); k < m_rows.size(); ++k)
            m_proxyOf[std::size_t(m_rows[k])] = int(k);
        endRemoveRows();
        i = j + 1;
    }
}

void ObjectViewModel::onDataChanged(const QModelIndex &topLeft, const QModelIndex &bottomRight)
{
    if (!topLeft.isValid())
        return;
    std::vector<int> rows = m_src->changedRows();
    if (rows.empty()) {
        rows.resize(std::size_t(bottomRight.row() - topLeft.row() + 1));
        std::iota(rows.begin(), rows.end(), topLeft.row());
    }
    for (int &r : rows)
        r = m_src->slotOfRow(r);
    int lo = INT_MAX, hi = -1;
    const bool byServerColumn = m_sortColumn >= ObjectTableModel::ColumnCount;
    const bool orderMayChange = !immutableSortColumn()
                             && (!byServerColumn || bottomRight.column() >= ObjectTableModel::ColumnCount);
    if (orderMayChange || !m_filter.selector.isEmpty()) {
        repositionChanged(rows, &lo, &hi);
    } else {
        for (int s : rows)
            if (const int p = m_proxyOf[std::size_t(s)]; p >= 0) {
                lo = std::min(lo, p);
                hi = std::max(hi, p);
            }
    }
    if (hi >= 0)
        Q_EMIT dataChanged(index(lo, topLeft.column()), index(hi, bottomRight.column()));
}

void ObjectViewModel::repositionChanged(const std::vector<int> &changedSlots, int *lo, int *hi)
{
    std::vector<char> changed(std::size_t(m_src->slotCount()), 0);
    for (int s : changedSlots)
        changed[std::size_t(s)] = 1;
    if (!immutableSortColumn()) {
        // Take the changed rows out of the full order and merge them back in at their new place.
        m_all.erase(std::remove_if(m_all.begin(), m_all.end(), [&](int s) { return changed[std::size_t(s)] != 0; }),
                    m_all.end());
        std::vector<int> sorted = changedSlots;
        std::sort(sorted.begin(), sorted.end(), [this](int a, int b) { return less(a, b); });
        insertSorted(m_all, std::move(sorted));
    }
    // The new view order is the full order filtered, re-testing only the changed rows. Several
    // rows may move at once, so one layout change (persistent indexes follow) is both simpler and
    // cheaper than a cascade of moves.
    std::vector<int> next;
    next.reserve(m_rows.size() + changedSlots.size());
    for (int s : m_all)
        if (changed[std::size_t(s)] ? accepts(s) : m_proxyOf[std::size_t(s)] >= 0)
            next.push_back(s);
    if (next != m_rows) {
        beginLayout();
        m_rows.swap(next);
        rebuildProxyOf();
        endLayout();
    }
    for (int s : changedSlots)
        if (const int p = m_proxyOf[std::size_t(s)]; p >= 0) {
            *lo = std::min(*lo, p);
            *hi = std::max(*hi, p);
        }
}

} // namespace fieldscope::models
