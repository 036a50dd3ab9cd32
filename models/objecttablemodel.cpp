#include "models/objecttablemodel.h"

#include "core/base/visibletext.h"
#include "core/objects/objectstore.h"
#include "models/plaintooltip.h"

#include <QFont>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <climits>

namespace fieldscope::models {

QString humanAge(qint64 s)
{
    constexpr qint64 kHour = 3600, kDay = 86400; // 64-bit, so the products below are too
    if (s < 0)
        s = 0;
    if (s < 120)
        return QStringLiteral("%1s").arg(s);
    if (s < 3600)
        return QStringLiteral("%1m").arg(s / 60);
    if (s < 8 * kHour) {
        const qint64 m = (s % 3600) / 60;
        return m ? QStringLiteral("%1h%2m").arg(s / 3600).arg(m) : QStringLiteral("%1h").arg(s / 3600);
    }
    if (s < 2 * kDay)
        return QStringLiteral("%1h").arg(s / 3600);
    if (s < 8 * kDay) {
        const qint64 h = (s % 86400) / 3600;
        return h ? QStringLiteral("%1d%2h").arg(s / 86400).arg(h) : QStringLiteral("%1d").arg(s / 86400);
    }
    if (s < 2 * (365 * kDay))
        return QStringLiteral("%1d").arg(s / 86400);
    return QStringLiteral("%1y").arg(s / (365 * kDay));
}

namespace {

// SAX reader that keeps metadata.labels and stops at the end of metadata: the server writes
// metadata before spec/data, so a big ConfigMap's data is never lexed.
struct LabelsSax : nlohmann::json_sax<nlohmann::json> {
    Labels labels;
    int depth = 0;
    std::string keys[4];
    bool inLabels() const { return depth == 3 && keys[1] == "metadata" && keys[2] == "labels"; }
    bool null() override { return true; }
    bool boolean(bool) override { return true; }
    bool number_integer(number_integer_t) override { return true; }
    bool number_unsigned(number_unsigned_t) override { return true; }
    bool number_float(number_float_t, const string_t &) override { return true; }
    bool string(string_t &v) override
    {
        if (inLabels())
            labels.emplace_back(keys[3], std::move(v));
        return true;
    }
    bool binary(binary_t &) override { return true; }
    bool start_object(std::size_t) override
    {
        ++depth;
        if (depth < 4)
            keys[depth].clear();
        return true;
    }
    bool key(string_t &k) override
    {
        if (depth < 4)
            keys[depth] = k;
        return true;
    }
    bool end_object() override
    {
        if (depth == 2 && keys[1] == "metadata")
            return false; // done: abort the parse
        --depth;
        return true;
    }
    bool start_array(std::size_t) override
    {
        ++depth;
        if (depth < 4)
            keys[depth].clear();
        return true;
    }
    bool end_array() override
    {
        --depth;
        return true;
    }
    bool parse_error(std::size_t, const std::string &, const nlohmann::detail::exception &) override { return false; }
};

} // namespace

Labels labelsOf(const QByteArray &json)
{
    LabelsSax sax;
    try {
        nlohmann::json::sax_parse(json.constData(), json.constData() + json.size(), &sax);
    } catch (const std::exception &) {
        return {};
    }
    std::sort(sax.labels.begin(), sax.labels.end());
    return std::move(sax.labels);
}

const Labels &ObjectRow::labels() const
{
    static const Labels none;
    return labelSet ? *labelSet : none;
}

const QVariantList &ObjectRow::cells() const
{
    static const QVariantList none;
    return extras.get() ? extras.get()->cells : none;
}

std::string_view ObjectRow::cellsResourceVersion() const
{
    return extras.get() ? std::string_view(extras.get()->cellsResourceVersion) : std::string_view();
}

std::string_view ObjectRow::deletedAtResourceVersion() const
{
    return extras.get() ? std::string_view(extras.get()->deletedAtResourceVersion) : std::string_view();
}

ObjectTableModel::ObjectTableModel(QObject *parent) : QAbstractTableModel(parent) {}

std::size_t ObjectTableModel::LabelsHash::operator()(const std::shared_ptr<const Labels> &l) const
{
    std::size_t h = l->size();
    const std::hash<std::string> hs;
    for (const auto &[k, v] : *l)
        h = (h * 1000003u) ^ hs(k) ^ (hs(v) << 1);
    return h;
}

void ObjectTableModel::intern(ObjectRow &r)
{
    // Sets and texts no row uses any more (Job Pods, a rollout's old pod-template-hash) go first;
    // only when most are in use (every row different) does the sharing start over.
    if (m_labelSets.size() >= kMaxInterned) {
        std::erase_if(m_labelSets, [](const std::shared_ptr<const Labels> &l) { return l.use_count() == 1; });
        if (m_labelSets.size() >= kMaxInterned / 2)
            m_labelSets.clear();
    }
    if (m_managerTexts.size() >= qsizetype(kMaxInterned)) {
        m_managerTexts.removeIf([](const QString &t) { return t.isDetached(); });
        if (m_managerTexts.size() >= qsizetype(kMaxInterned) / 2)
            m_managerTexts.clear();
    }
    if (r.labelSet && !r.labelSet->empty())
        r.labelSet = *m_labelSets.insert(std::move(r.labelSet)).first;
    else
        r.labelSet.reset(); // no labels: labels() answers with a shared empty set
    if (!r.lastManager.isEmpty())
        r.lastManager = *m_managerTexts.insert(r.lastManager);
}

bool ObjectTableModel::cellsStale(const ObjectRow &r)
{
    // Opaque resourceVersions: only equality means anything (see ObjectViewModel's cmpRv).
    return !r.cells().isEmpty() && !r.cellsResourceVersion().empty() && r.cellsResourceVersion() != r.resourceVersion();
}

void ObjectTableModel::markDeleted(const std::map<std::string, std::string> &deletedAt)
{
    for (const auto &[uid, rv] : deletedAt) {
        const int s = m_index.find(uid);
        if (s < 0)
            continue;
        m_slots[std::size_t(s)].extras.edit().deletedAtResourceVersion = rv;
        const int r = m_slotRow[std::size_t(s)];
        Q_EMIT dataChanged(index(r, 0), index(r, columnCount() - 1), {Qt::FontRole, Qt::ToolTipRole});
    }
}

int ObjectTableModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_order.size());
}

int ObjectTableModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount + int(m_serverColumns.size());
}

qint64 ObjectTableModel::nowSecs() const
{
    return (m_now.isValid() ? m_now : QDateTime::currentDateTimeUtc()).toSecsSinceEpoch();
}

QString ObjectTableModel::ageText(qint64 createdSecs) const
{
    return createdSecs ? humanAge(nowSecs() - createdSecs) : QString();
}

QVariant ObjectTableModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid() || index.row() >= int(m_order.size()))
        return {};
    const ObjectRow &r = row(index.row());
    const int col = index.column();
    switch (role) {
    case UidRole: return viewText(r.uid());
    case ObjectJsonRole: return r.json();
    case LabelsRole: {
        QStringList parts;
        for (const auto &[k, v] : r.labels())
            parts << QString::fromStdString(k) + u'=' + QString::fromStdString(v);
        return parts.join(QStringLiteral(", "));
    }
    case SortRole:
        if (col == Age)
            return -r.createdSecs; // youngest first, like sorting ages ascending
        if (col == Managers)
            return r.managerCount;
        if (col >= ColumnCount)
            return r.cells().value(col - ColumnCount);
        return data(index, Qt::DisplayRole);
    case ServerCellsStaleRole: return cellsStale(r);
    case Qt::FontRole:
        if (!r.deletedAtResourceVersion().empty()) {
            QFont struck;
            struck.setStrikeOut(true);
            return struck;
        }
        if (col >= ColumnCount && cellsStale(r)) {
            QFont italic;
            italic.setItalic(true);
            return italic;
        }
        return {};
    case Qt::DisplayRole:
        switch (col) {
        case Name: return viewText(r.name());
        case Namespace: return viewText(r.namespace_());
        case Age: return ageText(r.createdSecs);
        case ResourceVersion: return viewText(r.resourceVersion());
        case Managers: return r.managerCount;
        case LastChangedBy: return r.lastManager;
        default: {
            const QVariant v = r.cells().value(col - ColumnCount);
            return v.typeId() == QMetaType::Bool ? QVariant(v.toBool() ? tr("true") : tr("false")) : v;
        }
        }
    case Qt::ToolTipRole:
        if (!r.deletedAtResourceVersion().empty())
            return tr("Deleted: the last recorded event is its deletion, at resourceVersion %1")
                .arg(viewText(r.deletedAtResourceVersion()));
        if (col == Name && !r.labels().empty())
            return data(index, LabelsRole);
        if (col >= ColumnCount && cellsStale(r))
            return tr("Rendered by the server at resourceVersion %1; the object is now at %2. Refreshing…")
                .arg(viewText(r.cellsResourceVersion()), viewText(r.resourceVersion()));
        return {};
    case Qt::TextAlignmentRole:
        if (col == Managers || col == ResourceVersion)
            return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
        if (col >= ColumnCount && col - ColumnCount < int(m_serverColumns.size())) {
            const QString &t = m_serverColumns[std::size_t(col - ColumnCount)].type;
            // Servers (1.20 to 1.37) type ConfigMaps' Data as "string" yet render numbers: the cell decides too.
            const int cellType = r.cells().value(col - ColumnCount).typeId();
            if (t == QLatin1String("integer") || t == QLatin1String("number") || cellType == QMetaType::LongLong
                || cellType == QMetaType::Double)
                return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
        }
        return {};
    default: return {};
    }
}

QVariant ObjectTableModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal)
        return {};
    if (section >= ColumnCount) {
        const auto i = std::size_t(section - ColumnCount);
        if (i >= m_serverColumns.size())
            return {};
        // The server's words; a header shows its tooltip without a delegate: made plain here.
        if (role == Qt::DisplayRole)
            return core::visibleText(m_serverColumns[i].name);
        if (role == Qt::ToolTipRole)
            return plainToolTip(m_serverColumns[i].description);
        if (role == ServerColumnRole)
            return true;
        return {};
    }
    if (role == ServerColumnRole)
        return false;
    if (role != Qt::DisplayRole)
        return {};
    switch (section) {
    case Name: return tr("Name");
    case Namespace: return tr("Namespace");
    case Age: return tr("Age");
    case ResourceVersion: return tr("Resource version");
    case Managers: return tr("Managers");
    case LastChangedBy: return tr("Last changed by");
    default: return {};
    }
}

PreparedBatch ObjectTableModel::prepare(core::WatchBatch batch)
{
    PreparedBatch p;
    p.rows.reserve(batch.events.size());
    for (const auto &e : batch.events)
        p.rows.push_back(e.type == core::WatchEventType::Deleted ? ObjectRow{} : rowFrom(e, labelsOf(e.json)));
    p.batch = std::move(batch);
    return p;
}

ObjectRow ObjectTableModel::rowFrom(const core::ObjectVersion &v, Labels labels)
{
    ObjectRow r;
    r.object = core::ObjectBytes(v.json, v.uid, v.namespace_, v.name, v.resourceVersion);
    if (!labels.empty())
        r.labelSet = std::make_shared<const Labels>(std::move(labels));
    if (!v.creationTimestamp.empty())
        r.createdSecs =
            QDateTime::fromString(QString::fromStdString(v.creationTimestamp), Qt::ISODate).toSecsSinceEpoch();
    r.managerCount = v.managerCount;
    if (!v.lastManager.empty())
        r.lastManager = QString::fromStdString(v.lastManager) + QStringLiteral(" (")
                      + QString::fromStdString(v.lastManagerOperation) + u')';
    return r;
}

void ObjectTableModel::expectRows(std::size_t rows)
{
    rows = std::min(rows, core::ObjectStore::kMaxReserve); // the server's word, bounded
    if (rows <= m_expectedRows)
        return; // an estimate that shrank: the index keeps its buckets
    m_expectedRows = rows;
    m_index.reserve(rows);
    m_order.reserve(rows);
    m_slotRow.reserve(rows);
}

void ObjectTableModel::applyPrepared(PreparedBatch prepared)
{
    const auto &events = prepared.batch.events;
    // Coalesce per uid first: only the last state of each object matters to a table.
    std::unordered_map<std::string, std::size_t> last;
    std::vector<std::size_t> order;
    for (std::size_t i = 0; i < events.size(); ++i) {
        auto [it, inserted] = last.try_emplace(events[i].uid, i);
        if (inserted)
            order.push_back(i);
        else
            it->second = i;
    }
    std::vector<int> removed;
    std::vector<ObjectRow> added;
    m_changed.clear();
    for (const std::size_t first : order) {
        const std::size_t i = last[events[first].uid];
        const core::ObjectVersion &e = events[i];
        const int at = m_index.find(e.uid);
        if (e.type == core::WatchEventType::Deleted) {
            if (at >= 0)
                removed.push_back(m_slotRow[std::size_t(at)]);
            m_pendingCells.erase(e.uid);
            continue;
        }
        ObjectRow r = std::move(prepared.rows[i]);
        intern(r);
        if (at >= 0) {
            ObjectRow &slot = m_slots[std::size_t(at)];
            if (const RowExtras *had = slot.extras.get(); had && !had->cells.isEmpty()) {
                RowExtras &x = r.extras.edit();
                x.cells = had->cells;
                x.cellsResourceVersion = had->cellsResourceVersion;
            }
            slot = std::move(r);
            m_changed.push_back(m_slotRow[std::size_t(at)]);
        } else {
            auto p = m_pendingCells.empty() ? m_pendingCells.end() : m_pendingCells.find(std::string(r.uid()));
            if (p != m_pendingCells.end()) {
                RowExtras &x = r.extras.edit();
                x.cells = std::move(p->second.cells);
                x.cellsResourceVersion = std::move(p->second.resourceVersion);
                m_pendingCells.erase(p);
            }
            added.push_back(std::move(r));
        }
    }
    if (!m_changed.empty()) {
        const auto [lo, hi] = std::minmax_element(m_changed.begin(), m_changed.end());
        Q_EMIT dataChanged(index(*lo, 0), index(*hi, columnCount() - 1));
        m_changed.clear();
    }
    if (!removed.empty())
        removeRowList(std::move(removed));
    if (!added.empty()) {
        const int first = int(m_order.size());
        beginInsertRows({}, first, first + int(added.size()) - 1);
        for (auto &r : added) {
            int slot;
            if (!m_freeSlots.empty()) {
                slot = m_freeSlots.back();
                m_freeSlots.pop_back();
                m_slots[std::size_t(slot)] = std::move(r);
            } else {
                slot = int(m_slots.size());
                m_slots.push_back(std::move(r));
                m_slotRow.push_back(-1);
            }
            m_index.insert(slot);
            m_slotRow[std::size_t(slot)] = int(m_order.size());
            m_order.push_back(slot);
        }
        endInsertRows();
    }
}

void ObjectTableModel::removeRowList(std::vector<int> rows)
{
    std::sort(rows.begin(), rows.end());
    const int count = int(rows.size());
    int lo = rows.front();
    if (rows.back() - lo + 1 != count) {
        moveRowsToEnd(rows);
        lo = int(m_order.size()) - count;
    }
    const int hi = lo + count - 1;
    beginRemoveRows({}, lo, hi);
    for (int r = lo; r <= hi; ++r) {
        const int slot = m_order[std::size_t(r)];
        ObjectRow &dead = m_slots[std::size_t(slot)];
        m_index.erase(dead.uid());
        dead = ObjectRow{};
        m_slotRow[std::size_t(slot)] = -1;
        m_freeSlots.push_back(slot);
    }
    m_order.erase(m_order.begin() + lo, m_order.begin() + hi + 1);
    // Keep slot->row exact for rowOf() calls made by views while the signal runs.
    for (auto r = std::size_t(lo); r < m_order.size(); ++r)
        m_slotRow[std::size_t(m_order[r])] = int(r);
    endRemoveRows();
}

// One layout change instead of one removal per contiguous range: each removal signal costs every
// listener (a proxy, QHeaderView's hidden-section bookkeeping) a pass over all rows.
void ObjectTableModel::moveRowsToEnd(const std::vector<int> &sortedRows)
{
    Q_EMIT layoutAboutToBeChanged({}, QAbstractItemModel::VerticalSortHint);
    const QModelIndexList from = persistentIndexList();
    std::vector<int> fromSlots;
    fromSlots.reserve(std::size_t(from.size()));
    for (const QModelIndex &i : from)
        fromSlots.push_back(m_order[std::size_t(i.row())]);
    // Stable partition of the rows from the first moved one: survivors keep arrival order.
    const auto first = std::size_t(sortedRows.front());
    std::vector<int> moved;
    moved.reserve(sortedRows.size());
    std::size_t out = first, next = 0;
    for (std::size_t r = first; r < m_order.size(); ++r) {
        if (next < sortedRows.size() && sortedRows[next] == int(r)) {
            moved.push_back(m_order[r]);
            ++next;
        } else {
            m_order[out++] = m_order[r];
        }
    }
    std::copy(moved.begin(), moved.end(), m_order.begin() + std::ptrdiff_t(out));
    for (std::size_t r = first; r < m_order.size(); ++r)
        m_slotRow[std::size_t(m_order[r])] = int(r);
    QModelIndexList to;
    to.reserve(from.size());
    for (qsizetype i = 0; i < from.size(); ++i)
        to << index(m_slotRow[std::size_t(fromSlots[std::size_t(i)])], from[i].column());
    changePersistentIndexList(from, to);
    Q_EMIT layoutChanged({}, QAbstractItemModel::VerticalSortHint);
}

void ObjectTableModel::clear()
{
    if (!m_order.empty()) {
        beginRemoveRows({}, 0, int(m_order.size()) - 1);
        m_order.clear();
        m_slotRow.clear();
        m_index.clear();
        endRemoveRows();
    }
    // Free slots stay after their rows are deleted: they go with the rest (the next row would
    // otherwise reuse a slot that m_slotRow no longer has).
    m_slots.clear();
    m_freeSlots.clear();
    // A reservation made for an announced list goes with it (the next list announces its own).
    m_expectedRows = 0;
    m_index.clear();
    std::vector<int>().swap(m_order);
    std::vector<int>().swap(m_slotRow);
    m_pendingCells.clear();
    m_labelSets.clear();
    m_managerTexts.clear();
    setServerColumns({});
}

void ObjectTableModel::setServerColumns(const std::vector<ServerColumn> &columns)
{
    if (!m_serverColumns.empty()) {
        beginRemoveColumns({}, ColumnCount, ColumnCount + int(m_serverColumns.size()) - 1);
        m_serverColumns.clear();
        for (auto &s : m_slots) {
            if (const RowExtras *x = s.extras.get(); x && x->deletedAtResourceVersion.empty())
                s.extras.reset();
            else if (x)
                s.extras.edit().cells.clear();
        }
        endRemoveColumns();
    }
    if (!columns.empty()) {
        beginInsertColumns({}, ColumnCount, ColumnCount + int(columns.size()) - 1);
        m_serverColumns = columns;
        endInsertColumns();
    }
}

void ObjectTableModel::applyServerRows(std::vector<ServerRow> rows)
{
    int lo = INT_MAX, hi = -1;
    for (auto &sr : rows) {
        const int at = m_index.find(sr.uid);
        if (at < 0) {
            std::string uid = sr.uid;
            m_pendingCells[std::move(uid)] = std::move(sr);
            continue;
        }
        ObjectRow &slot = m_slots[std::size_t(at)];
        RowExtras &x = slot.extras.edit();
        x.cells = std::move(sr.cells);
        x.cellsResourceVersion = std::move(sr.resourceVersion);
        const int r = m_slotRow[std::size_t(at)];
        m_changed.push_back(r);
        lo = std::min(lo, r);
        hi = std::max(hi, r);
    }
    if (hi >= 0 && !m_serverColumns.empty())
        Q_EMIT dataChanged(index(lo, ColumnCount), index(hi, columnCount() - 1));
    m_changed.clear();
}

int ObjectTableModel::rowOf(const std::string &uid) const
{
    const int s = m_index.find(uid);
    return s < 0 ? -1 : m_slotRow[std::size_t(s)];
}

QByteArray ObjectTableModel::objectJson(int r) const
{
    return r >= 0 && r < int(m_order.size()) ? row(r).json() : QByteArray();
}

} // namespace fieldscope::models
