#pragma once
// ObjectTableModel: one row per object of a watch scope, fed with WatchBatches. Lives on the GUI
// thread. Rows keep arrival order; views sort and filter through ObjectViewModel.
//
// Each batch becomes one insert range at the end, one removal range and one dataChanged span;
// the uid->slot hash never needs re-indexing (row payloads live in stable slots, rows are an int
// vector over them), so a deletion costs a memmove of ints, not a rehash. Deletions scattered over
// the rows are first moved to the end in one layout change (survivors keep their order), because
// every removal signal costs each listener a pass over all rows. The model is never reset for an
// update, so selection and scroll position survive.
//
// The work of turning an event into a row (labels from the JSON, the creation time parsed, the
// strings converted) is done by prepare(), a pure function meant for a worker thread;
// applyPrepared() on the GUI thread only moves values in.
//
// Server-side columns (`as=Table`) are extra columns after the fixed ones, joined
// to rows by uid; the watch stream stays the source of truth for which rows exist.
#include "core/objects/objectbytes.h"
#include "core/objects/slotindex.h"
#include "core/objects/watchtypes.h"
#include "models/labelselector.h"

#include <QAbstractTableModel>
#include <QDateTime>
#include <QSet>
#include <QVariantList>

#include <deque>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace fieldscope::models {

// What few rows have: a server Table's cells (not every resource has a Table rendering) and the
// offline deletion mark. Kept behind a pointer so a row without them does not carry 88 bytes of
// empty containers (150,000 Pods: 13 MB).
struct RowExtras {
    QVariantList cells; // server Table cells, one per server column (may be empty)
    // The version the cells were rendered from: when the watch has moved the row past it, the
    // cells are shown as stale (italic, with a tooltip) until the refresh lands.
    std::string cellsResourceVersion;
    // Offline (a recorded history): the object's last recorded event was its deletion, at this
    // resourceVersion. Shown struck through: it is not there any more.
    std::string deletedAtResourceVersion;
};

// A RowExtras owned by one row; copying a row copies them.
class RowExtrasBox
{
public:
    RowExtrasBox() = default;
    RowExtrasBox(const RowExtrasBox &o) : m_p(o.m_p ? std::make_unique<RowExtras>(*o.m_p) : nullptr) {}
    RowExtrasBox &operator=(const RowExtrasBox &o)
    {
        if (this != &o)
            m_p = o.m_p ? std::make_unique<RowExtras>(*o.m_p) : nullptr;
        return *this;
    }
    RowExtrasBox(RowExtrasBox &&) noexcept = default;
    RowExtrasBox &operator=(RowExtrasBox &&) noexcept = default;
    ~RowExtrasBox() = default;
    const RowExtras *get() const { return m_p.get(); }
    RowExtras &edit()
    {
        if (!m_p)
            m_p = std::make_unique<RowExtras>();
        return *m_p;
    }
    void reset() { m_p.reset(); }

private:
    std::unique_ptr<RowExtras> m_p;
};

struct ObjectRow {
    core::ObjectBytes object; // the JSON, with uid, namespace, name and resourceVersion in it
    std::string_view uid() const { return object.uid(); }
    std::string_view namespace_() const { return object.namespace_(); }
    std::string_view name() const { return object.name(); }
    std::string_view resourceVersion() const { return object.resourceVersion(); }
    const QByteArray &json() const { return object.json(); }
    qint64 createdSecs = 0; // since epoch; 0 = unknown
    int managerCount = 0;
    // "kubectl (Update)"; the model shares one copy per distinct text among its rows.
    QString lastManager;
    // Sorted by key. The model shares one set among rows with equal labels (the replicas of one
    // workload: ~230 bytes a Pod otherwise).
    std::shared_ptr<const Labels> labelSet;
    RowExtrasBox extras;

    const Labels &labels() const;
    const QVariantList &cells() const;
    std::string_view cellsResourceVersion() const;
    std::string_view deletedAtResourceVersion() const;
};

// A column of the server's Table format (meta.k8s.io/v1 TableColumnDefinition).
struct ServerColumn {
    QString name;
    QString type;   // "string", "integer", "number", "boolean", "date"
    QString format; // "name" marks the identity column
    QString description;
    int priority = 0; // 0: default column; >0: "wide" column
};

// One row of a server Table, joined to the model by uid.
struct ServerRow {
    std::string uid;
    QVariantList cells;
    std::string resourceVersion; // the version the server rendered ("" = unknown)
};

// A watch batch with the table's rows already built (see prepare()).
struct PreparedBatch {
    core::WatchBatch batch;
    std::vector<ObjectRow> rows; // parallel to batch.events; empty for deletions
};

class ObjectTableModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Column { Name, Namespace, Age, ResourceVersion, Managers, LastChangedBy, ColumnCount };
    enum Role {
        UidRole = Qt::UserRole + 100,
        SortRole,            // a value that sorts naturally (ages as seconds, counts as numbers)
        ObjectJsonRole,      // the object's JSON bytes (QByteArray)
        LabelsRole,          // "k=v, k2=v2"
        ServerColumnRole,    // header: true for a column of the server's Table
        ServerCellsStaleRole // true when the row changed after its server cells were rendered
    };

    explicit ObjectTableModel(QObject *parent = nullptr);

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

    // Thread-safe and pure: builds the row of every event. Run it on a worker thread.
    static PreparedBatch prepare(core::WatchBatch batch);
    void applyPrepared(PreparedBatch prepared);
    void applyBatch(const core::WatchBatch &batch) { applyPrepared(prepare(batch)); }
    void clear(); // rows and server columns

    // Server Table columns (the ones that duplicate Name and Age are left out by the caller).
    void setServerColumns(const std::vector<ServerColumn> &columns);
    const std::vector<ServerColumn> &serverColumns() const { return m_serverColumns; }
    // Cells for rows by uid; cells for a uid the watch has not delivered yet wait for it.
    void applyServerRows(std::vector<ServerRow> rows);
    // Drops the cells still waiting for a row (the Table fetcher dropped those uids: the watch
    // does not hold them), so cells of objects the watch never reports are not kept.
    void dropUnjoinedCells() { m_pendingCells.clear(); }
    std::size_t unjoinedCellCount() const { return m_pendingCells.size(); }

    // Marks recorded objects whose last event was their deletion (uid -> resourceVersion of it).
    void markDeleted(const std::map<std::string, std::string> &deletedAt);

    // Row of an object, -1 when absent.
    int rowOf(const std::string &uid) const;
    const ObjectRow &row(int row) const { return m_slots[std::size_t(m_order[std::size_t(row)])]; }
    QByteArray objectJson(int row) const;
    // Rows whose content changed in the batch being applied; valid while dataChanged is emitted
    // (ObjectViewModel uses it to re-sort only those rows of a wide dataChanged span).
    const std::vector<int> &changedRows() const { return m_changed; }
    // Stable slots, for a view that orders rows by slot: a removal renumbers the rows after it but
    // never moves a row to another slot. A slot is reused once its row has been removed.
    int slotCount() const { return int(m_slots.size()); }
    // The number of rows a list will bring, once the server has said it: the uid index grows to
    // it now, while small, instead of rehashing every node mid-list at each of its growth steps
    // (42,043 and 85,229 buckets: 12 and 18 ms on the GUI thread while 150,000 Pods came in).
    void expectRows(std::size_t rows);
    std::size_t indexBuckets() const { return m_index.buckets(); }     // for tests
    std::size_t sharedLabelSets() const { return m_labelSets.size(); } // for tests
    int slotOfRow(int row) const { return m_order[std::size_t(row)]; }
    int rowOfSlot(int slot) const { return m_slotRow[std::size_t(slot)]; } // -1 when free
    const ObjectRow &slotRow(int slot) const { return m_slots[std::size_t(slot)]; }
    // Age is relative to this clock; tests pin it.
    void setNow(const QDateTime &now) { m_now = now; }
    qint64 nowSecs() const;

private:
    static ObjectRow rowFrom(const core::ObjectVersion &v, Labels labels);
    static bool cellsStale(const ObjectRow &r);
    void removeRowList(std::vector<int> rows);
    void moveRowsToEnd(const std::vector<int> &sortedRows);
    QString ageText(qint64 createdSecs) const;

    // Stable storage; a deque so that growing past its capacity moves no rows (a vector's
    // reallocation moved all 100k rows on the GUI thread: a ~15 ms stall at each doubling).
    std::deque<ObjectRow> m_slots;
    std::vector<int> m_freeSlots;
    std::vector<int> m_order;   // row -> slot
    std::vector<int> m_slotRow; // slot -> row (-1 when free)
    struct SlotUid {
        const std::deque<ObjectRow> *slots;
        std::string_view operator()(int slot) const { return (*slots)[std::size_t(slot)].uid(); }
    };
    core::SlotIndex<SlotUid> m_index{SlotUid{&m_slots}};       // uid -> slot
    std::unordered_map<std::string, ServerRow> m_pendingCells; // uid -> cells not yet joined
    std::vector<ServerColumn> m_serverColumns;
    std::vector<int> m_changed;
    std::size_t m_expectedRows = 0;
    QDateTime m_now;
    // Shared copies of the rows' repeated values (see ObjectRow); cleared when they grow past
    // kMaxInterned distinct values (a server may make every row different), which only stops
    // the sharing for the rows that come after.
    void intern(ObjectRow &r);
    struct LabelsHash {
        std::size_t operator()(const std::shared_ptr<const Labels> &l) const;
    };
    struct LabelsEqual {
        bool operator()(const std::shared_ptr<const Labels> &a, const std::shared_ptr<const Labels> &b) const
        {
            return *a == *b;
        }
    };
    static constexpr std::size_t kMaxInterned = 65536;
    std::unordered_set<std::shared_ptr<const Labels>, LabelsHash, LabelsEqual> m_labelSets;
    QSet<QString> m_managerTexts;
};

// A row's identity string (UTF-8 from the JSON) as text for a view.
inline QString viewText(std::string_view s)
{
    return QString::fromUtf8(s.data(), qsizetype(s.size()));
}
// "3d2h", "5m", "42s", like kubectl's age column.
QString humanAge(qint64 seconds);
// Labels of an object's JSON (metadata.labels), sorted by key; empty on any parse problem.
Labels labelsOf(const QByteArray &json);

} // namespace fieldscope::models
