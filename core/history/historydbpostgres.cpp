// The PostgreSQL history database: a team's shared store. One database holds one store per
// cluster, each in its own schema (fieldscope_c1, fieldscope_c2, ...) listed in fieldscope.stores,
// so the store's SQL is the SQLite store's, unqualified, with search_path set to the schema.
#include "core/history/historydb.h"
#include "core/history/historydbpostgres_p.h"

#include <libpq-fe.h>
#include <poll.h>

#include <algorithm>
#include <cstdlib>
#include <optional>
#include <unordered_map>

namespace fieldscope::core::historydb {

namespace {

constexpr unsigned kByteaOid = 17;
constexpr unsigned kBoolOid = 16;
// Serialises creating stores and migrating their schemas across every recorder of the database.
constexpr const char *kSetupLock = "SELECT pg_advisory_xact_lock(7046329811)";

std::string trimmed(std::string s)
{
    while (!s.empty() && (s.back() == '\n' || s.back() == ' '))
        s.pop_back();
    return s;
}

// The server's message, which its lc_messages may translate: a refused privilege (SQLSTATE
// 42501) always also says "permission denied", which HistoryStore::open turns into Forbidden.
std::string errorText(const PGresult *r)
{
    std::string text = trimmed(PQresultErrorMessage(r));
    const char *state = PQresultErrorField(r, PG_DIAG_SQLSTATE);
    if (state && std::string_view(state) == "42501" && text.find("permission denied") == std::string::npos)
        text = "permission denied: " + text;
    return text;
}

std::string quoteIdent(const std::string &name)
{
    std::string out = "\"";
    for (char c : name) {
        if (c == '"')
            out += '"';
        out += c;
    }
    return out + '"';
}

bool isStoreSchemaName(const std::string &name)
{
    constexpr std::string_view prefix = "fieldscope_c";
    if (name.size() <= prefix.size() || name.size() > 30 || name.compare(0, prefix.size(), prefix) != 0)
        return false;
    return std::all_of(name.begin() + std::ptrdiff_t(prefix.size()), name.end(),
                       [](char c) { return c >= '0' && c <= '9'; });
}

// `?N` and `?` (numbered in order) become `$N`, outside quoted text.
std::string toDollarParameters(const std::string &sql, int &count)
{
    std::string out;
    out.reserve(sql.size() + 8);
    int next = 0;
    count = 0;
    bool quoted = false;
    for (std::size_t i = 0; i < sql.size(); ++i) {
        const char c = sql[i];
        if (c == '\'')
            quoted = !quoted;
        if (c != '?' || quoted) {
            out += c;
            continue;
        }
        std::size_t j = i + 1;
        while (j < sql.size() && sql[j] >= '0' && sql[j] <= '9')
            ++j;
        // As SQLite numbers them: a bare `?` takes one more than the largest number so far.
        const int n = j > i + 1 ? std::atoi(sql.substr(i + 1, j - i - 1).c_str()) : next + 1;
        next = std::max(next, n);
        count = std::max(count, n);
        out += '$' + std::to_string(n);
        i = j - 1;
    }
    return out;
}

class PgConnection;

class PgStatement : public Statement
{
public:
    PgStatement(PgConnection &c, std::string name, int params)
        : m_c(c)
        , m_name(std::move(name))
        , m_values(std::size_t(params))
        , m_set(std::size_t(params), false)
        , m_binary(std::size_t(params), 0)
    {
    }
    ~PgStatement() override { clear(); }
    void bindInt(int i, std::int64_t v) override { set(i, std::to_string(v), false); }
    void bindText(int i, std::string_view v) override { set(i, std::string(v), false); }
    void bindBlob(int i, std::string_view v) override { set(i, std::string(v), true); }
    int step() override;
    void reset() override
    {
        clear();
        std::fill(m_set.begin(), m_set.end(), false);
    }
    std::int64_t i64(int col) const override
    {
        if (!m_res || PQgetisnull(m_res, m_row, col))
            return 0;
        const char *v = PQgetvalue(m_res, m_row, col);
        if (PQftype(m_res, col) == kBoolOid)
            return v[0] == 't' ? 1 : 0;
        return std::strtoll(v, nullptr, 10);
    }
    std::string text(int col) const override
    {
        if (!m_res || PQgetisnull(m_res, m_row, col))
            return {};
        return std::string(PQgetvalue(m_res, m_row, col), std::size_t(PQgetlength(m_res, m_row, col)));
    }
    std::string_view blob(int col) const override
    {
        if (!m_res || PQgetisnull(m_res, m_row, col))
            return {};
        const std::string_view raw(PQgetvalue(m_res, m_row, col), std::size_t(PQgetlength(m_res, m_row, col)));
        if (PQftype(m_res, col) != kByteaOid || std::size_t(col) >= m_decoded.size())
            return raw;
        // libpq's own decoder reads both output formats (hex, and escape if a database sets it).
        std::size_t length = 0;
        unsigned char *bytes = PQunescapeBytea(reinterpret_cast<const unsigned char *>(PQgetvalue(m_res, m_row, col)),
                                               &length);
        std::string &out = m_decoded[std::size_t(col)];
        out.assign(bytes ? reinterpret_cast<const char *>(bytes) : "", bytes ? length : 0);
        PQfreemem(bytes);
        return out;
    }

private:
    void set(int i, std::string v, bool binary)
    {
        if (i < 1 || std::size_t(i) > m_values.size())
            return;
        m_values[std::size_t(i - 1)] = std::move(v);
        m_set[std::size_t(i - 1)] = true;
        m_binary[std::size_t(i - 1)] = binary ? 1 : 0;
    }
    void clear()
    {
        if (m_res)
            PQclear(m_res);
        m_res = nullptr;
        m_rows = 0;
        m_row = -1;
        m_executed = false;
    }

    PgConnection &m_c;
    std::string m_name;
    std::vector<std::string> m_values;
    std::vector<bool> m_set;
    std::vector<int> m_binary;
    PGresult *m_res = nullptr;
    int m_rows = 0;
    int m_row = -1;
    bool m_executed = false;
    mutable std::vector<std::string> m_decoded;
};

class PgConnection : public PostgresConnection
{
public:
    explicit PgConnection(PGconn *pg) : m_pg(pg) {}
    ~PgConnection() override
    {
        m_stmts.clear();
        PQfinish(m_pg);
    }
    Dialect dialect() const override { return Dialect::Postgres; }

    Statement *prepare(const std::string &sql) override
    {
        auto it = m_stmts.find(sql);
        if (it != m_stmts.end())
            return it->second.get();
        if (!settled())
            return nullptr;
        int params = 0;
        const std::string pgSql = toDollarParameters(sql, params);
        const std::string name = "fs" + std::to_string(++m_statementCount);
        PGresult *r = PQprepare(m_pg, name.c_str(), pgSql.c_str(), 0, nullptr);
        const bool ok = PQresultStatus(r) == PGRES_COMMAND_OK;
        if (!ok)
            m_message = errorText(r);
        PQclear(r);
        if (!ok)
            return nullptr;
        return m_stmts.emplace(sql, std::make_unique<PgStatement>(*this, name, params)).first->second.get();
    }

    Status exec(const std::string &sql) override
    {
        if (sql == "ROLLBACK" && m_copyInFlight >= 0) { // the rows in flight are not to be stored first
            m_copyInFlight = -1;
            (void)pgbulk::awaitCopy(m_pg, 0, m_changes, "the transaction is rolled back");
        }
        if (!settled() && sql != "ROLLBACK")
            return Error::make(ErrorCategory::Io, "history store: " + m_message);
        PGresult *r = PQexec(m_pg, sql.c_str());
        const auto status = PQresultStatus(r);
        bool ok = status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK;
        if (!ok)
            m_message = errorText(r);
        else
            countChanges(r);
        // COMMIT of a transaction a failed statement aborted "succeeds" as a ROLLBACK.
        if (ok && sql == "COMMIT" && std::string_view(PQcmdStatus(r)) == "ROLLBACK") {
            ok = false;
            m_message = "the transaction was rolled back: an earlier statement in it failed";
        }
        PQclear(r);
        if (!ok && connectionLost())
            return Error::make(ErrorCategory::Network, "history store: " + lastMessage(), sql.substr(0, 40));
        if (!ok)
            return Error::make(ErrorCategory::Io, "history store: " + m_message, sql.substr(0, 40));
        return success();
    }

    bool connectionLost() const override { return PQstatus(m_pg) == CONNECTION_BAD; }

    std::string lastMessage() const override
    {
        if (PQstatus(m_pg) == CONNECTION_BAD)
            return "the connection to PostgreSQL was lost: " + trimmed(PQerrorMessage(m_pg));
        return m_message;
    }
    std::int64_t changes() const override { return m_changes; }
    std::int64_t totalChanges() const override { return m_totalChanges; }

    // EXCLUSIVE lets readers (ACCESS SHARE) on while the other writers wait for this commit.
    Status beginWrite() override
    {
        return exec("BEGIN; LOCK TABLE meta IN EXCLUSIVE MODE"); // one round trip
    }

    // A new index on a large store's versions may take minutes: the one statement that may run
    // past statement_timeout, once per store and version; waiting for locks stays bounded.
    Status beginSchemaChange() override
    {
        if (auto st = exec("BEGIN; SET LOCAL statement_timeout TO 0"); !st)
            return st;
        return exec(kSetupLock);
    }
    Result<int> schemaVersion() override
    {
        auto has = hasTable("meta");
        if (!has || !*has)
            return has ? Result<int>(0) : Result<int>(has.error());
        Query v(prepare("SELECT COALESCE((SELECT value FROM meta WHERE key = 'schema_version'), 0)"));
        if (v.step() != kRow)
            return Error::make(ErrorCategory::Io, "history store: schema version: " + lastMessage());
        return int(v.i64(0));
    }
    Status setSchemaVersion(int version) override
    {
        Query v(prepare("INSERT INTO meta(key, value) VALUES('schema_version', ?1) "
                        "ON CONFLICT(key) DO UPDATE SET value = ?1"));
        v.bind(1, std::int64_t(version));
        if (v.step() != kDone)
            return Error::make(ErrorCategory::Io, "history store: schema version: " + lastMessage());
        return success();
    }

    Result<std::int64_t> dataVersion() override
    {
        Query q(prepare("SELECT COALESCE((SELECT value FROM meta WHERE key = 'commits'), 0)"));
        if (q.step() != kRow)
            return Error::make(ErrorCategory::Io, "history store: commit count: " + lastMessage());
        return q.i64(0);
    }

    // The notification is delivered when the transaction commits, and not at all if it rolls back.
    // One round trip: the count, the notification and the count read back (our own dataVersion).
    Result<std::int64_t> beforeCommit(std::int64_t versions) override
    {
        static constexpr const char *kCount = "INSERT INTO meta(key, value) VALUES('commits', 1) "
                                              "ON CONFLICT(key) DO UPDATE SET value = meta.value + 1 RETURNING value";
        // Retention and audit joins change nothing a window lists: counted, not announced.
        Query c(prepare(versions > 0 ? std::string("WITH c AS (") + kCount + ") SELECT value, pg_notify(?1, ?2) FROM c"
                                     : std::string(kCount)));
        if (versions > 0)
            c.bind(1, channelOf(m_schema)).bind(2, std::to_string(versions) + " " + m_recorder);
        if (c.step() != kRow)
            return Error::make(ErrorCategory::Io, "history store: commit count: " + lastMessage());
        return c.i64(0);
    }

    Result<std::string> durability() override
    {
        std::string out;
        for (const char *setting : {"fsync", "synchronous_commit"}) {
            Query v(prepare(std::string("SELECT current_setting('") + setting + "')"));
            if (v.step() != kRow)
                return Error::make(ErrorCategory::Io, "history store: " + std::string(setting) + ": " + lastMessage());
            out += (out.empty() ? "" : ", ") + std::string(setting) + "=" + v.text(0);
        }
        return out;
    }

    Result<bool> hasTable(const std::string &table) override
    {
        Query q(prepare("SELECT count(*) FROM information_schema.tables WHERE table_schema = current_schema()"
                        " AND table_name = ?1"));
        q.bind(1, table);
        if (q.step() != kRow)
            return Error::make(ErrorCategory::Io, "history store: tables: " + lastMessage());
        return q.i64(0) == 1;
    }
    Result<bool> hasColumn(const std::string &table, const std::string &column) override
    {
        Query q(prepare("SELECT count(*) FROM information_schema.columns WHERE table_schema = current_schema()"
                        " AND table_name = ?1 AND column_name = ?2"));
        q.bind(1, table).bind(2, column);
        if (q.step() != kRow)
            return Error::make(ErrorCategory::Io, "history store: columns: " + lastMessage());
        return q.i64(0) == 1;
    }
    bool writesInBulk() const override { return true; }
    Result<std::vector<HeadRow>> headRows(const std::vector<std::string> &uids) override
    {
        return pgbulk::headRows(*this, uids);
    }
    Result<std::vector<std::pair<std::string, std::string>>>
    storedVersions(const std::vector<std::pair<std::string, std::string>> &pairs) override
    {
        return pgbulk::storedVersions(*this, pairs);
    }
    Result<std::vector<RunRow>> versionRuns(const std::vector<VersionRun> &runs, std::int64_t maxBytes) override
    {
        return pgbulk::versionRuns(*this, runs, maxBytes);
    }
    Result<std::vector<std::int64_t>> insertObjects(const std::vector<NewObjectRow> &rows) override
    {
        return pgbulk::insertObjects(*this, rows);
    }
    // Rows join the COPY already open (one per run of versions, not per call): the server stores
    // them as they come while the writer encodes the next. Any other statement ends it first.
    Status sendVersions(const std::vector<VersionRow> &rows) override
    {
        if (rows.empty())
            return success();
        if (m_copyInFlight < 0) {
            if (auto st = pgbulk::startCopy(m_pg); !st) {
                m_message = st.error().message;
                return st;
            }
            m_copyInFlight = 0;
        }
        m_copyInFlight += std::int64_t(rows.size());
        if (auto st = pgbulk::putCopyRows(m_pg, rows); !st) {
            m_message = st.error().message;
            const std::int64_t expected = m_copyInFlight;
            m_copyInFlight = -1;
            (void)pgbulk::awaitCopy(m_pg, expected, m_changes, "the client could not send a row"); // free again
            return st;
        }
        return success();
    }
    Status awaitVersions() override
    {
        if (m_copyInFlight < 0)
            return success();
        const std::int64_t expected = m_copyInFlight;
        m_copyInFlight = -1;
        auto st = pgbulk::awaitCopy(m_pg, expected, m_changes);
        m_totalChanges += m_changes;
        if (!st)
            m_message = st.error().message;
        return st;
    }
    // Every other statement waits for the versions in flight; when they failed, so does it.
    bool settled() { return m_copyInFlight < 0 || bool(awaitVersions()); }
    Status updateObjects(const std::vector<ObjectUpdateRow> &rows) override
    {
        return pgbulk::updateObjects(*this, rows);
    }

    // PostgreSQL checks its pages itself; what is left to check is that the store is reachable.
    Result<std::string> integrityCheck() override
    {
        Query q(prepare("SELECT 'ok'"));
        if (q.step() != kRow)
            return lastMessage();
        return q.text(0);
    }

    Result<std::vector<PostgresStoreInfo>> stores() override
    {
        std::vector<PostgresStoreInfo> out;
        Query exists(prepare("SELECT to_regclass('fieldscope.stores') IS NOT NULL"));
        if (exists.step() != kRow)
            return Error::make(ErrorCategory::Io, "history store: list stores: " + lastMessage());
        if (exists.i64(0) == 0)
            return out;
        exists.reset();
        Query q(prepare("SELECT schema_name, cluster_identity, cluster_label FROM fieldscope.stores ORDER BY id"));
        int rc;
        while ((rc = q.step()) == kRow)
            // Names Fieldscope made only: a name is quoted into LISTEN and GRANT statements.
            if (isStoreSchemaName(q.text(0)))
                out.push_back({q.text(0), q.text(1), q.text(2)});
        if (rc != kDone)
            return Error::make(ErrorCategory::Io, "history store: list stores: " + lastMessage());
        return out;
    }

    Result<PostgresStoreInfo> storeFor(const std::string &identity, const std::string &label, bool create) override
    {
        auto found = find(identity);
        if (!found || found->has_value() || !create)
            return found ? found->value_or(PostgresStoreInfo{}) : Result<PostgresStoreInfo>(found.error());
        if (auto st = exec("BEGIN"); !st)
            return st.error();
        auto made = makeStore(identity, label);
        if (!made) {
            (void)exec("ROLLBACK");
            return made;
        }
        if (auto st = exec("COMMIT"); !st)
            return st.error();
        return made;
    }

    Status use(const PostgresStoreInfo &store) override
    {
        // Quoted into LISTEN, GRANT and policy statements: only a name Fieldscope makes.
        if (!isStoreSchemaName(store.schema))
            return Error::make(ErrorCategory::Parse, "history store: \"" + store.schema + "\" is not a store's schema");
        m_schema = store.schema;
        return exec("SET search_path TO " + quoteIdent(store.schema));
    }

    std::string serverVersion() const override
    {
        const int v = PQserverVersion(m_pg);
        return std::to_string(v / 10000) + "." + std::to_string(v % 10000);
    }
    std::string userName() const override { return PQuser(m_pg) ? PQuser(m_pg) : ""; }

    Result<std::string> waitForNotification(int timeoutMs) override
    {
        if (!m_listening) {
            if (auto st = exec("LISTEN " + quoteIdent(channelOf(m_schema))); !st)
                return st.error();
            m_listening = true;
        }
        for (int round = 0; round < 2; ++round) {
            if (PQconsumeInput(m_pg) == 0)
                return Error::make(ErrorCategory::Network, lastMessage());
            if (PGnotify *n = PQnotifies(m_pg)) {
                std::string payload = n->extra ? n->extra : "";
                PQfreemem(n);
                return payload.empty() ? std::string(" ") : payload;
            }
            if (round == 1)
                break;
            pollfd p{PQsocket(m_pg), POLLIN, 0};
            if (p.fd < 0)
                return Error::make(ErrorCategory::Network, lastMessage());
            if (poll(&p, 1, timeoutMs) <= 0)
                return std::string();
        }
        return std::string();
    }

    PGconn *pg() const { return m_pg; }
    void setMessage(std::string m) { m_message = std::move(m); }
    // Rows written: PQcmdTuples also counts the rows a SELECT returned.
    void countChanges(PGresult *r)
    {
        const std::string_view tag = PQcmdStatus(r);
        const bool write = tag.rfind("INSERT", 0) == 0 || tag.rfind("UPDATE", 0) == 0 || tag.rfind("DELETE", 0) == 0;
        const char *n = PQcmdTuples(r);
        m_changes = write && n && *n ? std::strtoll(n, nullptr, 10) : 0;
        m_totalChanges += m_changes;
    }

private:
    Result<std::optional<PostgresStoreInfo>> find(const std::string &identity)
    {
        auto all = stores();
        if (!all)
            return all.error();
        for (auto &s : *all)
            if (s.clusterIdentity == identity)
                return std::optional<PostgresStoreInfo>(std::move(s));
        return std::optional<PostgresStoreInfo>();
    }

    Result<PostgresStoreInfo> makeStore(const std::string &identity, const std::string &label)
    {
        if (auto st = exec(kSetupLock); !st)
            return st.error();
        if (auto st = exec("CREATE SCHEMA IF NOT EXISTS fieldscope;"
                           "CREATE TABLE IF NOT EXISTS fieldscope.stores(id BIGINT PRIMARY KEY,"
                           " schema_name TEXT NOT NULL UNIQUE, cluster_identity TEXT NOT NULL UNIQUE,"
                           " cluster_label TEXT NOT NULL, created TIMESTAMPTZ NOT NULL DEFAULT now())");
            !st)
            return st.error();
        grantReaders("fieldscope", "GRANT SELECT ON fieldscope.stores TO fieldscope_read");
        auto again = find(identity); // another recorder made it while we waited for the lock
        if (!again)
            return again.error();
        if (again->has_value())
            return **again;
        Query next(prepare("SELECT COALESCE(MAX(id), 0) + 1 FROM fieldscope.stores"));
        if (next.step() != kRow)
            return Error::make(ErrorCategory::Io, "history store: new store: " + lastMessage());
        const std::int64_t id = next.i64(0);
        next.reset();
        PostgresStoreInfo info{"fieldscope_c" + std::to_string(id), identity, label};
        Query add(prepare("INSERT INTO fieldscope.stores(id, schema_name, cluster_identity, cluster_label)"
                          " VALUES(?1, ?2, ?3, ?4)"));
        add.bind(1, id).bind(2, info.schema).bind(3, identity).bind(4, label);
        if (add.step() != kDone)
            return Error::make(ErrorCategory::Io, "history store: new store: " + lastMessage());
        if (auto st = exec("CREATE SCHEMA " + quoteIdent(info.schema)); !st)
            return st.error();
        return info;
    }

public:
    Status grantReaders() override
    {
        if (m_schema.empty())
            return success();
        const std::string s = quoteIdent(m_schema);
        grantReaders(m_schema, "GRANT SELECT ON ALL TABLES IN SCHEMA " + s + " TO fieldscope_read");
        return success();
    }

    // The Secret redaction key is in store_info with the store's other facts. A reader who could
    // read it could test guesses of Secret values offline against the stored hashes, so readers
    // see every row but that one: a restrictive row policy for fieldscope_read (and a permissive
    // one for everyone, so enabling row security hides nothing from anyone else). Run at every
    // writable open by the owner, so stores made before get it too; a recorder that does not own
    // the store may not change policies, and the owner's stand.
    Status protectRedactionKey() override
    {
        if (m_schema.empty() || !isStoreSchemaName(m_schema))
            return success();
        // Each policy is made when missing (a store may have one from an interrupted open);
        // the schema is a name Fieldscope made (fieldscope_cN), passed through format('%I').
        const std::string sql =
            "DO $$ DECLARE s text := '" + m_schema
            + "'; BEGIN "
              "IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'fieldscope_read') THEN "
              "IF NOT EXISTS (SELECT 1 FROM pg_policies WHERE schemaname = s AND tablename = 'store_info' "
              "AND policyname = 'fieldscope_all_rows') THEN "
              "EXECUTE format('CREATE POLICY fieldscope_all_rows ON %I.store_info USING (true) WITH CHECK (true)', s); "
              "END IF; "
              "IF NOT EXISTS (SELECT 1 FROM pg_policies WHERE schemaname = s AND tablename = 'store_info' "
              "AND policyname = 'fieldscope_readers_no_key') THEN "
              "EXECUTE format('CREATE POLICY fieldscope_readers_no_key ON %I.store_info AS RESTRICTIVE FOR SELECT "
              "TO fieldscope_read USING (key <> %L)', s, 'redaction_key'); "
              "END IF; "
              "EXECUTE format('ALTER TABLE %I.store_info ENABLE ROW LEVEL SECURITY', s); "
              "END IF; EXCEPTION WHEN insufficient_privilege THEN NULL; END $$";
        // A recorder that does not own the store may not change policies (insufficient_privilege,
        // caught: the owner's stand); anything else fails the open with its reason.
        return exec(sql);
    }

    // Readers are whoever holds the role fieldscope_read (docs/team-history.md): they may read
    // every store, and nothing else. A database without that role has no separate readers; a
    // recorder that does not own the store may not grant, and the owner's grant stands.
    void grantReaders(const std::string &schema, const std::string &more)
    {
        (void)exec("DO $$ BEGIN IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'fieldscope_read') THEN "
                   "EXECUTE 'GRANT USAGE ON SCHEMA "
                   + quoteIdent(schema) + " TO fieldscope_read'; " + (more.empty() ? "" : "EXECUTE '" + more + "'; ")
                   + "END IF; EXCEPTION WHEN insufficient_privilege THEN NULL; END $$");
    }

private:
    PGconn *m_pg;
    std::string m_message;
    std::string m_schema;
    std::unordered_map<std::string, std::unique_ptr<PgStatement>> m_stmts;
    int m_statementCount = 0;
    std::int64_t m_changes = 0, m_totalChanges = 0;
    bool m_listening = false;
    std::int64_t m_copyInFlight = -1; // rows sent into the open COPY; -1: none open
};

int PgStatement::step()
{
    if (!m_executed) {
        if (!m_c.settled())
            return kError;
        std::vector<const char *> values(m_values.size());
        std::vector<int> lengths(m_values.size());
        for (std::size_t i = 0; i < m_values.size(); ++i) {
            values[i] = m_set[i] ? m_values[i].c_str() : nullptr;
            lengths[i] = int(m_values[i].size());
        }
        m_res = PQexecPrepared(m_c.pg(), m_name.c_str(), int(values.size()), values.data(), lengths.data(),
                               m_binary.data(), 0);
        m_executed = true;
        const auto status = PQresultStatus(m_res);
        if (status != PGRES_TUPLES_OK && status != PGRES_COMMAND_OK) {
            m_c.setMessage(errorText(m_res));
            return kError;
        }
        m_c.countChanges(m_res);
        m_rows = PQntuples(m_res);
        // One buffer per column, sized once: a view blob() returned stays valid for its row.
        m_decoded.assign(std::size_t(PQnfields(m_res)), std::string());
        m_row = -1;
    }
    if (!m_res || PQresultStatus(m_res) == PGRES_FATAL_ERROR)
        return kError;
    ++m_row;
    return m_row < m_rows ? kRow : kDone;
}

} // namespace

bool isPostgresLocation(std::string_view location)
{
    return location.rfind("postgresql://", 0) == 0 || location.rfind("postgres://", 0) == 0;
}

PostgresLocation parsePostgresLocation(std::string_view location)
{
    // The last '#' whose tail cannot be part of a URI's authority or path: an identity
    // ("sha256:HEX") or a schema name. A '#' inside a (refused) password stays in the URI.
    PostgresLocation out;
    const auto hash = location.rfind('#');
    if (hash != std::string_view::npos && location.substr(hash + 1).find_first_of("@/?&=") == std::string_view::npos) {
        out.uri = std::string(location.substr(0, hash));
        out.selector = std::string(location.substr(hash + 1));
    } else {
        out.uri = std::string(location);
    }
    return out;
}

namespace {

// The userinfo of a URI: between "://" and the first '@' before the host's '/'.
std::pair<std::size_t, std::size_t> userInfo(std::string_view uri)
{
    const auto scheme = uri.find("://");
    if (scheme == std::string_view::npos)
        return {std::string_view::npos, 0};
    // libpq takes everything up to the last '@' before the path as user and password, '?' and
    // '#' included.
    const std::size_t start = scheme + 3;
    const auto end = uri.find('/', start);
    const auto at = uri.substr(0, end).rfind('@');
    if (at == std::string_view::npos || at < start)
        return {std::string_view::npos, 0};
    return {start, at - start};
}

} // namespace

namespace {

bool uriCarriesPassword(std::string_view uri);

// The userinfo's password and any literal password= value; see redactPostgresUri.
std::string redactKnownPasswords(std::string_view uri)
{
    std::string out(uri);
    const auto [start, length] = userInfo(uri);
    if (start != std::string_view::npos) {
        const auto colon = out.substr(start, length).find(':');
        if (colon != std::string::npos)
            out.replace(start + colon + 1, length - colon - 1, "***");
    }
    // password=... in the query string
    for (std::size_t p = out.find("password="); p != std::string::npos; p = out.find("password=", p + 1)) {
        const std::size_t v = p + 9;
        const std::size_t e = out.find('&', v);
        out.replace(v, (e == std::string::npos ? out.size() : e) - v, "***");
    }
    return out;
}

} // namespace

std::string redactPostgresUri(std::string_view uri)
{
    std::string out = redactKnownPasswords(uri);
    // libpq still finds one (a percent-encoded keyword): the whole query goes.
    if (uriCarriesPassword(out))
        if (const auto q = out.find('?'); q != std::string::npos)
            out = out.substr(0, q) + "?***";
    return out;
}

namespace {

// What libpq itself would read as the password (the URI's userinfo, or a password= parameter
// however it is spelled or percent-encoded).
bool uriCarriesPassword(std::string_view uri)
{
    if (redactKnownPasswords(uri) != std::string(uri))
        return true;
    char *error = nullptr;
    PQconninfoOption *options = PQconninfoParse(std::string(uri).c_str(), &error);
    if (error)
        PQfreemem(error);
    if (!options)
        return false; // libpq will refuse it as malformed, without connecting
    bool found = false;
    for (PQconninfoOption *o = options; o->keyword; ++o)
        if (std::string_view(o->keyword) == "password" && o->val && *o->val)
            found = true;
    PQconninfoFree(options);
    return found;
}

} // namespace

Status checkNoPasswordInUri(std::string_view uri)
{
    if (!uriCarriesPassword(uri))
        return success();
    return Error::make(ErrorCategory::Config,
                       "the database URL " + redactPostgresUri(uri)
                           + " carries a password; Fieldscope does not keep passwords: put it in ~/.pgpass, "
                             "the PGPASSWORD or PGPASSFILE environment, or a service file (pg_service.conf)");
}

Result<std::unique_ptr<PostgresConnection>> connectPostgres(const std::string &uri)
{
    // Later keywords override earlier ones, and the URI comes last: its own settings win.
    const char *keys[] = {"connect_timeout",
                          "application_name",
                          "keepalives_idle",
                          "keepalives_interval",
                          "keepalives_count",
                          "dbname",
                          nullptr};
    const char *values[] = {"10", "fieldscope", "30", "10", "3", uri.c_str(), nullptr};
    PGconn *pg = PQconnectdbParams(keys, values, 1);
    if (!pg)
        return Error::make(ErrorCategory::Io, "cannot connect to " + redactPostgresUri(uri) + ": out of memory");
    if (PQstatus(pg) != CONNECTION_OK) {
        std::string why = trimmed(PQerrorMessage(pg));
        PQfinish(pg);
        const bool auth = why.find("password") != std::string::npos || why.find("authentication") != std::string::npos;
        return Error::make(auth ? ErrorCategory::Auth : ErrorCategory::Network,
                           "cannot connect to the history database " + redactPostgresUri(uri) + ": " + why);
    }
    // IF NOT EXISTS and friends send NOTICEs; libpq would print them on stderr.
    PQsetNoticeProcessor(
        pg, [](void *, const char *) {}, nullptr);
    auto c = std::make_unique<PgConnection>(pg);
    // Hex bytea whatever the database's default (escape output would read as empty blobs); a lock
    // held elsewhere (a DBA's open transaction) fails the batch after 30 s, to be retried, rather
    // than hanging the writer. No statement of ours runs long (reads are per object or paged,
    // writes per batch), so one past 60 s is a server in trouble: it fails, and the thread that
    // waited (a load, an audit step, the last work of a closed tab) ends instead of holding on.
    // A transaction left idle 60 s (a client stopped in a debugger, its network gone without a
    // reset) is ended by the server, with the meta lock that would stop every other recorder.
    // The keepalives above find a dead connection in about a minute.
    if (auto st = c->exec("SET client_min_messages TO warning; SET bytea_output TO 'hex'; SET lock_timeout TO '30s';"
                          " SET statement_timeout TO '60s'; SET idle_in_transaction_session_timeout TO '60s'");
        !st)
        return st.error();
    return std::unique_ptr<PostgresConnection>(std::move(c));
}

} // namespace fieldscope::core::historydb
