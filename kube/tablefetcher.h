#pragma once
// TableFetcher: the server's Table of one watch scope (`as=Table`, see
// https://kubernetes.io/docs/reference/using-api/api-concepts/#receiving-resources-as-tables) for
// the object table's extra columns (Ready, Status, ...), on its ApiClient's (GUI) thread; responses decode on the
// network thread (simdjson), only value types come back. Stale results (stop(), newer round) are dropped by generation.
//
// The watch (kube::Watcher) stays the source of truth for which rows exist; this class only
// supplies cells, keyed by uid (each row's object.metadata.uid, asked for with
// includeObject=Metadata).
//
// Keeping cells current. Cells are rendered once by the server, so every watched change makes a
// row's cells stale. The owner reports each version the watch delivers with noteVersion(); the
// fetcher remembers the resourceVersion each uid's cells were rendered from, so a version it
// already has costs nothing (the initial list and the watch's list agree; a refresh usually
// arrives before the watch event of the same version). Stale uids are refreshed on a coalescing,
// rate-limited timer:
//   - the first stale uid arms a single-shot timer (refreshIntervalMs, 1 s); changes inside the
//     window merge, one entry per uid, latest version wins;
//   - a tick GETs the oldest stale objects by name as Table, never more than maxGetsPerTick (10)
//     in flight at once;
//   - when more than maxGetsPerTick are stale, the tick re-LISTs the whole Table instead (paged
//     like the first list; it covers every change noted before it started), but at most once per
//     max(relistMinIntervalMs = 30 s, relistDurationFactor (10) x the last full list's duration);
//     while a relist is not yet allowed, the oldest stale objects are still fetched by GET;
//   - failed GETs stay stale and slow the timer down (doubling up to 30 s).
// So 1,000 events/s on 100,000 rows costs at most 10 small GETs/s plus one full Table list per
// 30 s (or per ten list durations, when a list takes longer than 3 s), whatever the event rate;
// the stale set holds at most one entry per row. Until a refresh lands the model shows the old
// cells marked as rendered from an older resourceVersion (never silently stale).
//
// Bounded by the watch: the cells' versions are kept only for uids the watch holds (noted and not
// forgotten). Once the watch has listed (noteWatchListed), every Table list that ends drops the
// rows of uids the watch never reported (deleted meanwhile, or invented by the server) and says so
// with unwatchedRowsDropped(), so the model drops the cells it holds for rows it does not show.
// An object the watch reports later is then fetched as any changed one is.
//
// Servers or resources without Table support (a 406, or a response whose kind is not Table, as
// some aggregated APIs answer) end in State::Unsupported with the unsupported() signal: the caller
// keeps its fixed columns and shows no error. Other list failures retry with backoff.
#include "core/base/result.h"
#include "kube/apiclient.h"
#include "kube/watcher.h"

#include <QElapsedTimer>
#include <QObject>
#include <QTimer>
#include <QVariantList>

#include <cstdint>
#include <deque>
#include <functional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace fieldscope::kube {

// kubectl's Table Accept header minus v1beta1 (meta.k8s.io/v1 Table exists since 1.15), ending in
// plain JSON so servers without Table support (some aggregated APIs) answer with their usual list.
inline constexpr const char *kTableAccept = "application/json;as=Table;v=v1;g=meta.k8s.io, application/json";

// meta.k8s.io/v1 TableColumnDefinition.
struct TableColumn {
    std::string name;
    std::string type;   // "string", "integer", "number", "boolean", "date"
    std::string format; // "name" marks the identity column
    std::string description;
    int priority = 0; // 0: kubectl's default columns; > 0: "wide"
    bool operator==(const TableColumn &) const = default;
};

// One row: its cells (string -> QString, integer -> qlonglong, number -> double, boolean ->
// bool, null -> invalid QVariant, object/array -> its JSON text) and the object it renders.
struct TableRow {
    std::string uid;
    std::string namespace_;
    std::string name;
    std::string resourceVersion; // the version the cells were rendered from
    QVariantList cells;
};

// A server's Table may define any number of columns; the table shows the first ones (kubectl's
// widest built-in Table has 13). Cells past them are not kept.
inline constexpr std::size_t kMaxTableColumns = 64;

struct DecodedTable {
    bool isTable = false; // false: the server answered something else (kind below)
    std::string kind;
    std::string resourceVersion;
    std::string continueToken;
    std::vector<TableColumn> columns; // at most kMaxTableColumns
    std::size_t droppedColumns = 0;   // defined past kMaxTableColumns
    std::vector<TableRow> rows;       // rows without object.metadata.uid are dropped
};

// Decodes a complete response body. Not a Table (another kind) is a value, not an error; only
// malformed JSON is. Pure; runs on the network thread. `body` may grow by simdjson's padding.
core::Result<DecodedTable> decodeTable(std::string &body);

struct TableFetcherOptions {
    int pageSize = 500;
    int refreshIntervalMs = 1000;
    int maxGetsPerTick = 10;
    int relistMinIntervalMs = 30'000;
    int relistDurationFactor = 10;
    int maxRefreshIntervalMs = 30'000;                  // after failed GETs
    int backoffInitialMs = 1000, backoffMaxMs = 60'000; // failed lists
};

class TableFetcher : public QObject
{
    Q_OBJECT
public:
    enum class State { Idle, Listing, Live, Unsupported, Failed };
    Q_ENUM(State)

    TableFetcher(ApiClient *client, WatchScope scope, TableFetcherOptions options = {}, QObject *parent = nullptr);
    ~TableFetcher() override;

    void start(); // the first paged LIST
    void stop();

    // A version of an object the watch delivered (ADDED or MODIFIED): its cells are refreshed
    // unless they were rendered from this very version.
    void noteVersion(const std::string &uid, const std::string &namespace_, const std::string &name,
                     const std::string &resourceVersion);
    // The object was deleted: nothing more to fetch for it.
    void forget(const std::string &uid);
    // The watch's list is complete: rows of uids it did not report are dropped now and after
    // every later Table list.
    void noteWatchListed();
    bool watches(const std::string &uid) const { return m_watched.count(uid) != 0; }
    std::size_t cachedRowCount() const { return m_cellRv.size(); } // rows whose rendered version is kept

    State state() const { return m_state; }
    const std::vector<TableColumn> &columns() const { return m_columns; }
    std::size_t staleCount() const { return m_stale.size(); }
    int listsStarted() const { return m_lists; } // full lists (first one included)
    int getsStarted() const { return m_getsStarted; }

Q_SIGNALS:
    void columnsChanged(const std::vector<fieldscope::kube::TableColumn> &columns);
    void rowsReady(const std::vector<fieldscope::kube::TableRow> &rows);
    void unsupported(const QString &reason); // quiet fallback to the fixed columns
    void errorOccurred(const QString &message);
    // Rows of uids the watch does not hold were dropped (the model drops its unjoined cells).
    void unwatchedRowsDropped();

private:
    struct Stale {
        std::string namespace_, name, resourceVersion;
        std::uint64_t seq = 0; // when it was last noted; a list started later covers it
    };
    using Handler = std::function<void(core::Result<DecodedTable>)>;
    Transport::RequestId fetch(std::string path, Handler handler);
    void list(const std::string &continueToken);
    void onListPage(core::Result<DecodedTable> page, bool firstPage);
    void finishList();
    void listFailed(const core::Error &e);
    void becomeUnsupported(const QString &why);
    void tick();
    void get(const std::string &uid, const Stale &s);
    void onGet(const std::string &uid, std::uint64_t seq, core::Result<DecodedTable> t);
    void accept(std::vector<TableRow> &rows);
    void arm();
    bool relistAllowed() const;
    void dropUnwatchedRows();

    ApiClient *m_client;
    WatchScope m_scope;
    TableFetcherOptions m_opts;
    State m_state = State::Idle;
    int m_gen = 0;
    Transport::RequestId m_listRequest = 0;
    std::unordered_map<std::string, Transport::RequestId> m_getByUid; // GETs in flight
    std::vector<TableColumn> m_columns;
    std::unordered_map<std::string, std::string> m_cellRv; // uid -> RV its cells were rendered from
    std::unordered_set<std::string> m_watched;             // uids the watch reported and did not delete
    bool m_watchListed = false;
    std::unordered_map<std::string, Stale> m_stale;
    std::deque<std::string> m_queue; // stale uids, oldest first (entries may be obsolete)
    std::uint64_t m_seq = 0;
    std::uint64_t m_listStartSeq = 0;
    QElapsedTimer m_listClock; // since the current or last full list started
    qint64 m_lastListMs = 0;   // how long the last full list took
    QTimer m_tick;
    QTimer m_retry;
    int m_refreshMs;
    int m_backoffMs = 0;
    int m_lists = 0, m_getsStarted = 0;
};

} // namespace fieldscope::kube
