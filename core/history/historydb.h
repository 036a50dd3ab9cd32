#pragma once
// Private to HistoryStore: the two databases a history lives in, behind one small interface.
// The store's SQL is written once for both: `?N` placeholders (rewritten to `$N` for PostgreSQL),
// ON CONFLICT upserts, INSERT ... RETURNING, and integer 0/1 flags. What differs (the schema's
// types, the write lock, how another writer is noticed, integrity checks) is asked of the
// Connection by name, never by testing which database it is in the store's logic.
//
// Thread: one Connection is used by one thread at a time, like the HistoryStore that owns it.
#include "core/base/result.h"

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace fieldscope::core::historydb {

// What Statement::step() answers.
constexpr int kRow = 100;
constexpr int kDone = 101;
constexpr int kError = 1;

class Statement
{
public:
    virtual ~Statement() = default;
    virtual void bindInt(int i, std::int64_t v) = 0;
    virtual void bindText(int i, std::string_view v) = 0;
    virtual void bindBlob(int i, std::string_view v) = 0;
    virtual int step() = 0;
    virtual void reset() = 0;
    virtual std::int64_t i64(int col) const = 0;
    virtual std::string text(int col) const = 0;
    virtual std::string_view blob(int col) const = 0; // valid until the next step() or reset()
};

enum class Dialect { Sqlite, Postgres };

// The rows of one write transaction, sent in a few statements instead of one per version by a
// database that supports it (Connection::writesInBulk; historystorebulk.cpp).
struct NewObjectRow {
    std::string uid, group, apiVersion, kind, resource, namespace_, name;
};
struct VersionRow {
    std::int64_t id = 0, objectId = 0, seq = 0;
    std::string rv;
    std::int64_t event = 0, observedMs = 0;
    std::string scope;
    std::int64_t snapshot = 0, rawSize = 0;
    std::string data;
    std::int64_t recorder = 0;
};
// What the versions of one object in the transaction change on its objects row.
struct ObjectUpdateRow {
    std::int64_t id = 0, added = 0, lastSeq = 0, deleted = 0;
    std::string apiVersion, kind;
};
// An object's rows from its last snapshot to its newest version: what its head's body decodes
// from (Connection::versionRuns), and one such row.
struct VersionRun {
    std::int64_t objectId = 0, firstSeq = 0, lastSeq = 0;
};
struct RunRow {
    std::int64_t objectId = 0, seq = 0, snapshot = 0;
    std::string data;
};

// An object's newest stored version, as the writer needs it to go on from there.
struct HeadRow {
    std::string uid;
    std::int64_t objectId = 0, lastSeq = 0, deleted = 0, lastSnapshotSeq = 0;
    std::string rv;
};

class Connection
{
public:
    virtual ~Connection() = default;
    virtual Dialect dialect() const = 0;
    // Cached by its text; nullptr when it does not compile (lastMessage() says why).
    virtual Statement *prepare(const std::string &sql) = 0;
    // One or more statements without parameters or results.
    virtual Status exec(const std::string &sql) = 0;
    virtual std::string lastMessage() const = 0;
    // The connection itself is gone (a server restart, a dropped socket): every statement on it
    // fails until it is opened again.
    virtual bool connectionLost() const { return false; }
    // Rows changed by the last statement, and by every statement since the connection opened.
    virtual std::int64_t changes() const = 0;
    virtual std::int64_t totalChanges() const = 0;
    // Starts a transaction holding the store's write lock: writers take turns, readers go on.
    virtual Status beginWrite() = 0;
    // Starts the transaction that creates or migrates the store's tables (one setup at a time,
    // across every process using the database).
    virtual Status beginSchemaChange() = 0;
    // The schema version the store was written with (0: a new, empty store).
    virtual Result<int> schemaVersion() = 0;
    virtual Status setSchemaVersion(int version) = 0;
    // A number that changes when another connection committed to the store since this one last
    // asked (inside a write transaction: what that transaction sees).
    virtual Result<std::int64_t> dataVersion() = 0;
    // Called just before COMMIT of a write transaction: the PostgreSQL store counts its commits
    // (its dataVersion) and tells listening windows. `versions`: how many this commit stored.
    // Returns the dataVersion this commit leaves, or -1 when dataVersion() is to be asked.
    virtual Result<std::int64_t> beforeCommit(std::int64_t versions) = 0;
    // Whether the store has this table (a file older than the table reads as "nothing yet").
    virtual Result<bool> hasTable(const std::string &table) = 0;
    virtual Result<bool> hasColumn(const std::string &table, const std::string &column) = 0;
    // The database's own consistency check ("ok" or what is wrong).
    virtual Result<std::string> integrityCheck() = 0;
    // How a commit is made durable (HistoryStore::durability).
    virtual Result<std::string> durability() = 0;

    // Bulk writing (PostgreSQL: a round trip per statement, so a transaction's rows go in a few
    // statements). A database without it answers false and the writer goes row by row.
    virtual bool writesInBulk() const { return false; }
    // The heads of those uids the store holds (one query).
    virtual Result<std::vector<HeadRow>> headRows(const std::vector<std::string> &uids);
    // The stored rows of these runs (object id, first seq, last seq) whose blobs are up to
    // maxBytes each (one query), ordered by object and seq: what a head's body decodes from.
    virtual Result<std::vector<RunRow>> versionRuns(const std::vector<VersionRun> &runs, std::int64_t maxBytes);
    // Which of these (uid, resourceVersion) pairs are stored (one query).
    virtual Result<std::vector<std::pair<std::string, std::string>>>
    storedVersions(const std::vector<std::pair<std::string, std::string>> &pairs);
    // Inserts the objects; their ids, in order.
    virtual Result<std::vector<std::int64_t>> insertObjects(const std::vector<NewObjectRow> &rows);
    // Sends the versions (PostgreSQL: COPY) and returns without waiting for the server, which
    // stores them while the writer encodes the next ones; awaitVersions() waits and says how it
    // went. A version stored already fails with ErrorCategory::Conflict (the unique keys), and the
    // transaction is to be rolled back. Any other statement waits for the versions first.
    virtual Status sendVersions(const std::vector<VersionRow> &rows);
    virtual Status awaitVersions();
    virtual Status updateObjects(const std::vector<ObjectUpdateRow> &rows);
};

// A cached prepared statement in use; resets it on scope exit so the cache can hand it out again.
class Query
{
public:
    explicit Query(Statement *s) : m_s(s) {}
    Query(Query &&o) noexcept : m_s(o.m_s) { o.m_s = nullptr; }
    Query(const Query &) = delete;
    Query &operator=(const Query &) = delete;
    ~Query() { reset(); }

    Query &bind(int i, std::int64_t v)
    {
        if (m_s)
            m_s->bindInt(i, v);
        return *this;
    }
    Query &bind(int i, std::string_view v)
    {
        if (m_s)
            m_s->bindText(i, v);
        return *this;
    }
    Query &bind(int i, const std::string &v) { return bind(i, std::string_view(v)); }
    Query &bind(int i, const char *v) { return bind(i, std::string_view(v)); }
    Query &bindBlob(int i, std::string_view v)
    {
        if (m_s)
            m_s->bindBlob(i, v);
        return *this;
    }
    int step() { return m_s ? m_s->step() : kError; }
    void reset()
    {
        if (m_s)
            m_s->reset();
    }
    std::int64_t i64(int col) const { return m_s ? m_s->i64(col) : 0; }
    std::string text(int col) const { return m_s ? m_s->text(col) : std::string(); }
    std::string_view blob(int col) const { return m_s ? m_s->blob(col) : std::string_view(); }

private:
    Statement *m_s = nullptr;
};

// --- SQLite (historydbsqlite.cpp) ---------------------------------------------------------------
// Opens (ReadWrite: creates) the file hardened against a hostile schema, WAL, busy timeout 10 s.
Result<std::unique_ptr<Connection>> openSqlite(const std::string &path, bool readOnly);
std::string sqliteLibraryVersion();

// --- PostgreSQL (historydbpostgres.cpp) ---------------------------------------------------------
// Where a PostgreSQL history lives: a libpq connection URI and, after '#', the cluster identity
// whose store to read (a database holds one store per cluster, each in its own schema).
struct PostgresLocation {
    std::string uri;      // handed to libpq unchanged
    std::string selector; // "" = the only store in the database
};
bool isPostgresLocation(std::string_view location);
PostgresLocation parsePostgresLocation(std::string_view location);
// The URI with any password replaced by "***" (for messages and logs).
std::string redactPostgresUri(std::string_view uri);
// A password in the URI itself is refused: it would sit in settings, shell history and `ps`.
Status checkNoPasswordInUri(std::string_view uri);

struct PostgresStoreInfo {
    std::string schema;
    std::string clusterIdentity;
    std::string clusterLabel;
};

class PostgresConnection;
// Connects (libpq: ~/.pgpass, PG* environment, service files, sslmode as the URI says) with a
// 10 s connect timeout unless the URI sets one.
Result<std::unique_ptr<PostgresConnection>> connectPostgres(const std::string &uri);

class PostgresConnection : public Connection
{
public:
    ~PostgresConnection() override = default;
    // The stores in this database (none when Fieldscope never wrote to it).
    virtual Result<std::vector<PostgresStoreInfo>> stores() = 0;
    // The store of this cluster identity: found, or (create) made with its schema, in one
    // transaction under a database-wide lock so two recorders starting at once make one.
    virtual Result<PostgresStoreInfo> storeFor(const std::string &identity, const std::string &label, bool create) = 0;
    // Makes the store's schema the one unqualified names resolve in; grants readers access.
    virtual Status use(const PostgresStoreInfo &store) = 0;
    // Lets the role fieldscope_read (when the database has it) read the store in use.
    virtual Status grantReaders() = 0;
    // Readers (fieldscope_read) see every store_info row but the Secret redaction key.
    virtual Status protectRedactionKey() = 0;
    virtual std::string serverVersion() const = 0;
    virtual std::string userName() const = 0;
    // The LISTEN channel a store's commits are announced on.
    static std::string channelOf(const std::string &schema) { return schema; }
    // Blocks up to timeoutMs for a notification; its payload, "" on timeout; an error when the
    // connection broke.
    virtual Result<std::string> waitForNotification(int timeoutMs) = 0;
    void setRecorderName(std::string name) { m_recorder = std::move(name); }

protected:
    std::string m_recorder;
};

} // namespace fieldscope::core::historydb
