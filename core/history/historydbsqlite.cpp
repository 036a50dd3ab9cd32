// The SQLite history database: one file per cluster, WAL, hardened against a hostile schema.
#include "core/history/historydb.h"

#include <sqlite3.h>

#include <unordered_map>

namespace fieldscope::core::historydb {

namespace {

class SqliteStatement : public Statement
{
public:
    explicit SqliteStatement(sqlite3_stmt *s) : m_s(s) {}
    ~SqliteStatement() override { sqlite3_finalize(m_s); }
    void bindInt(int i, std::int64_t v) override { sqlite3_bind_int64(m_s, i, v); }
    void bindText(int i, std::string_view v) override
    {
        sqlite3_bind_text(m_s, i, v.data(), int(v.size()), SQLITE_TRANSIENT);
    }
    void bindBlob(int i, std::string_view v) override
    {
        sqlite3_bind_blob(m_s, i, v.data(), int(v.size()), SQLITE_TRANSIENT);
    }
    int step() override
    {
        const int rc = sqlite3_step(m_s);
        return rc == SQLITE_ROW ? kRow : rc == SQLITE_DONE ? kDone : kError;
    }
    void reset() override
    {
        sqlite3_reset(m_s);
        sqlite3_clear_bindings(m_s);
    }
    std::int64_t i64(int col) const override { return sqlite3_column_int64(m_s, col); }
    std::string text(int col) const override
    {
        auto p = reinterpret_cast<const char *>(sqlite3_column_text(m_s, col));
        return p ? std::string(p, std::size_t(sqlite3_column_bytes(m_s, col))) : std::string();
    }
    std::string_view blob(int col) const override
    {
        auto p = static_cast<const char *>(sqlite3_column_blob(m_s, col));
        return p ? std::string_view(p, std::size_t(sqlite3_column_bytes(m_s, col))) : std::string_view();
    }

private:
    sqlite3_stmt *m_s;
};

class SqliteConnection : public Connection
{
public:
    ~SqliteConnection() override
    {
        m_stmts.clear();
        if (m_db)
            sqlite3_close(m_db);
    }
    Dialect dialect() const override { return Dialect::Sqlite; }

    Statement *prepare(const std::string &sql) override
    {
        auto it = m_stmts.find(sql);
        if (it == m_stmts.end()) {
            sqlite3_stmt *s = nullptr;
            if (sqlite3_prepare_v3(m_db, sql.c_str(), int(sql.size()), SQLITE_PREPARE_PERSISTENT, &s, nullptr)
                != SQLITE_OK)
                return nullptr;
            it = m_stmts.emplace(sql, std::make_unique<SqliteStatement>(s)).first;
        }
        return it->second.get();
    }

    Status exec(const std::string &sql) override
    {
        char *msg = nullptr;
        if (sqlite3_exec(m_db, sql.c_str(), nullptr, nullptr, &msg) != SQLITE_OK) {
            std::string m = msg ? msg : "unknown error";
            sqlite3_free(msg);
            return Error::make(ErrorCategory::Io, "history store: " + m, sql.substr(0, 40));
        }
        return success();
    }

    std::string lastMessage() const override { return m_db ? sqlite3_errmsg(m_db) : "not open"; }
    std::int64_t changes() const override { return sqlite3_changes64(m_db); }
    std::int64_t totalChanges() const override { return sqlite3_total_changes64(m_db); }
    // IMMEDIATE takes the write lock now, so what the transaction reads is what it writes over.
    Status beginWrite() override { return exec("BEGIN IMMEDIATE"); }

    Status beginSchemaChange() override { return beginWrite(); }
    Result<int> schemaVersion() override
    {
        Query v(prepare("PRAGMA user_version"));
        if (v.step() != kRow)
            return Error::make(ErrorCategory::Io, "history store: schema version: " + lastMessage());
        return int(v.i64(0));
    }
    Status setSchemaVersion(int version) override { return exec("PRAGMA user_version=" + std::to_string(version)); }

    // Changes exactly when another connection committed (https://www.sqlite.org/pragma.html#pragma_data_version).
    Result<std::int64_t> dataVersion() override
    {
        Query v(prepare("PRAGMA data_version"));
        if (v.step() != kRow)
            return Error::make(ErrorCategory::Io, "history store: data version: " + lastMessage());
        return v.i64(0);
    }
    Result<std::int64_t> beforeCommit(std::int64_t) override { return std::int64_t(-1); }
    Result<std::string> durability() override
    {
        Query v(prepare("PRAGMA synchronous"));
        if (v.step() != kRow)
            return Error::make(ErrorCategory::Io, "history store: synchronous: " + lastMessage());
        static constexpr const char *kLevels[] = {"OFF", "NORMAL", "FULL", "EXTRA"};
        const std::int64_t level = v.i64(0);
        return std::string("synchronous=") + (level >= 0 && level <= 3 ? kLevels[level] : "?");
    }

    Result<bool> hasTable(const std::string &table) override
    {
        Query t(prepare("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = ?"));
        t.bind(1, table);
        if (t.step() != kRow)
            return Error::make(ErrorCategory::Io, "history store: tables: " + lastMessage());
        return t.i64(0) == 1;
    }
    Result<bool> hasColumn(const std::string &table, const std::string &column) override
    {
        Query t(prepare("SELECT count(*) FROM pragma_table_info(?1) WHERE name = ?2"));
        t.bind(1, table).bind(2, column);
        if (t.step() != kRow)
            return Error::make(ErrorCategory::Io, "history store: columns: " + lastMessage());
        return t.i64(0) == 1;
    }
    Result<std::string> integrityCheck() override
    {
        Query q(prepare("PRAGMA integrity_check"));
        if (q.step() != kRow)
            return lastMessage();
        return q.text(0);
    }

    sqlite3 *m_db = nullptr;

private:
    std::unordered_map<std::string, std::unique_ptr<SqliteStatement>> m_stmts;
};

} // namespace

Result<std::unique_ptr<Connection>> openSqlite(const std::string &path, bool readOnly)
{
    auto c = std::make_unique<SqliteConnection>();
    const int flags = (readOnly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE)
                    | SQLITE_OPEN_NOMUTEX;
    if (sqlite3_open_v2(path.c_str(), &c->m_db, flags, nullptr) != SQLITE_OK)
        return Error::make(ErrorCategory::Io,
                           "history store: cannot open history store " + path + ": " + c->lastMessage(), path);
    // Any file can be handed to --open or `history --db`: its schema is not ours to trust. Defensive
    // mode refuses what could corrupt the file (writable_schema, shadow-table writes), and with
    // trusted_schema off a view or trigger in the file may not call functions or virtual tables
    // that are not innocuous (pragma_database_list would read out our paths, say).
    // https://www.sqlite.org/security.html
    if (sqlite3_db_config(c->m_db, SQLITE_DBCONFIG_DEFENSIVE, 1, nullptr) != SQLITE_OK
        || sqlite3_db_config(c->m_db, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, nullptr) != SQLITE_OK)
        return Error::make(ErrorCategory::Io, "history store: cannot harden the connection to " + path, path);
    if (auto st = c->exec("PRAGMA trusted_schema=OFF"); !st)
        return st.error();
    sqlite3_busy_timeout(c->m_db, 10000);
    // NORMAL is durable against a killed process in WAL mode (core/history/historystore.h); FULL would
    // add an fsync per commit for power-loss safety we do not promise. secure_delete: pages freed
    // by retention are zeroed, not left readable in the file.
    for (const char *pragma : {"PRAGMA journal_mode=WAL", "PRAGMA synchronous=NORMAL", "PRAGMA secure_delete=ON"}) {
        if (readOnly)
            break;
        if (auto st = c->exec(pragma); !st)
            return st.error();
    }
    return std::unique_ptr<Connection>(std::move(c));
}

std::string sqliteLibraryVersion()
{
    return sqlite3_libversion();
}

} // namespace fieldscope::core::historydb
