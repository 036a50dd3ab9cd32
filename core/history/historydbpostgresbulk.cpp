// Bulk writing for the PostgreSQL store (historydb.h: Connection::writesInBulk). Each call is one
// statement whatever the number of rows: arrays bound as one parameter each (unnest), and the
// versions by COPY, so a transaction of 500 versions costs a handful of round trips, not 1,500.
#include "core/history/historydbpostgres_p.h"

#include <libpq-fe.h>

#include <charconv>

namespace fieldscope::core::historydb {

namespace {

Error unsupported()
{
    return Error::make(ErrorCategory::Io, "history store: this database writes row by row");
}

// PostgreSQL's text cannot hold NUL: as with a bound parameter (a C string), a value ends there.
std::string_view upToNul(std::string_view v)
{
    const auto nul = v.find('\0');
    return nul == std::string_view::npos ? v : v.substr(0, nul);
}

void appendHex(std::string &out, std::string_view bytes)
{
    static constexpr char kHex[] = "0123456789abcdef";
    const std::size_t at = out.size();
    out.resize(at + 2 * bytes.size());
    char *p = out.data() + at;
    for (unsigned char c : bytes) {
        *p++ = kHex[c >> 4];
        *p++ = kHex[c & 15];
    }
}

// A field of COPY's text format: backslash, tab, newline and carriage return escaped.
void appendCopyText(std::string &out, std::string_view v)
{
    for (char c : upToNul(v)) {
        switch (c) {
        case '\\': out += "\\\\"; break;
        case '\t': out += "\\t"; break;
        case '\n': out += "\\n"; break;
        case '\r': out += "\\r"; break;
        default: out += c;
        }
    }
}

void appendInt(std::string &out, std::int64_t v, char after)
{
    char digits[24];
    const auto end = std::to_chars(digits, digits + sizeof digits, v).ptr;
    out.append(digits, end);
    out += after;
}

void appendCopyRow(std::string &out, const VersionRow &r)
{
    out.reserve(out.size() + 96 + r.rv.size() + r.scope.size() + 2 * r.data.size());
    appendInt(out, r.id, '\t');
    appendInt(out, r.objectId, '\t');
    appendInt(out, r.seq, '\t');
    appendCopyText(out, r.rv);
    out += '\t';
    appendInt(out, r.event, '\t');
    appendInt(out, r.observedMs, '\t');
    appendCopyText(out, r.scope);
    out += '\t';
    appendInt(out, r.snapshot, '\t');
    appendInt(out, r.rawSize, '\t');
    out += "\\\\x"; // bytea's hex input, its backslash escaped for COPY
    appendHex(out, r.data);
    out += '\t';
    appendInt(out, r.recorder, '\n');
}

Error conflictOr(const std::string &state, const std::string &message)
{
    // 23505: unique_violation (another copy of a version: the caller rolls back and goes row by row)
    return Error::make(state == "23505" ? ErrorCategory::Conflict : ErrorCategory::Io,
                       "history store: bulk write: " + message);
}

} // namespace

Result<std::vector<HeadRow>> Connection::headRows(const std::vector<std::string> &)
{
    return unsupported();
}
Result<std::vector<std::pair<std::string, std::string>>>
Connection::storedVersions(const std::vector<std::pair<std::string, std::string>> &)
{
    return unsupported();
}
Result<std::vector<RunRow>> Connection::versionRuns(const std::vector<VersionRun> &, std::int64_t)
{
    return unsupported();
}
Result<std::vector<std::int64_t>> Connection::insertObjects(const std::vector<NewObjectRow> &)
{
    return unsupported();
}
Status Connection::sendVersions(const std::vector<VersionRow> &)
{
    return unsupported();
}
Status Connection::awaitVersions()
{
    return success();
}
Status Connection::updateObjects(const std::vector<ObjectUpdateRow> &)
{
    return unsupported();
}

namespace pgbulk {

std::string textArray(const std::vector<std::string_view> &values)
{
    std::string out = "{";
    for (std::size_t i = 0; i < values.size(); ++i) {
        if (i)
            out += ',';
        out += '"';
        for (char c : upToNul(values[i])) {
            if (c == '"' || c == '\\')
                out += '\\';
            out += c;
        }
        out += '"';
    }
    return out + "}";
}

std::string intArray(const std::vector<std::int64_t> &values)
{
    std::string out = "{";
    for (std::size_t i = 0; i < values.size(); ++i) {
        if (i)
            out += ',';
        out += std::to_string(values[i]);
    }
    return out + "}";
}

Result<std::vector<HeadRow>> headRows(Connection &c, const std::vector<std::string> &uids)
{
    std::vector<HeadRow> out;
    if (uids.empty())
        return out;
    std::vector<std::string_view> views(uids.begin(), uids.end());
    Query q(c.prepare("SELECT o.uid, o.id, o.last_seq, o.deleted, v.rv,"
                      " (SELECT MAX(seq) FROM versions WHERE object_id = o.id AND snapshot = 1)"
                      " FROM objects o JOIN versions v ON v.object_id = o.id AND v.seq = o.last_seq"
                      " WHERE o.uid = ANY(?1::text[])"));
    q.bind(1, textArray(views));
    int rc;
    while ((rc = q.step()) == kRow)
        out.push_back({q.text(0), q.i64(1), q.i64(2), q.i64(3), q.i64(5), q.text(4)});
    if (rc != kDone)
        return Error::make(ErrorCategory::Io, "history store: head lookup: " + c.lastMessage());
    return out;
}

Result<std::vector<std::pair<std::string, std::string>>>
storedVersions(Connection &c, const std::vector<std::pair<std::string, std::string>> &pairs)
{
    std::vector<std::pair<std::string, std::string>> out;
    if (pairs.empty())
        return out;
    std::vector<std::string_view> uids, rvs;
    for (const auto &[uid, rv] : pairs) {
        uids.push_back(uid);
        rvs.push_back(rv);
    }
    Query q(c.prepare("SELECT e.uid, e.rv FROM unnest(?1::text[], ?2::text[]) AS e(uid, rv)"
                      " JOIN objects o ON o.uid = e.uid JOIN versions v ON v.object_id = o.id AND v.rv = e.rv"));
    q.bind(1, textArray(uids)).bind(2, textArray(rvs));
    int rc;
    while ((rc = q.step()) == kRow)
        out.emplace_back(q.text(0), q.text(1));
    if (rc != kDone)
        return Error::make(ErrorCategory::Io, "history store: duplicate check: " + c.lastMessage());
    return out;
}

Result<std::vector<RunRow>> versionRuns(Connection &c, const std::vector<VersionRun> &runs, std::int64_t maxBytes)
{
    std::vector<RunRow> out;
    if (runs.empty())
        return out;
    std::vector<std::int64_t> ids, first, last;
    for (const auto &r : runs) {
        ids.push_back(r.objectId);
        first.push_back(r.firstSeq);
        last.push_back(r.lastSeq);
    }
    Query q(c.prepare("SELECT v.object_id, v.seq, v.snapshot, v.data FROM unnest(?1::bigint[], ?2::bigint[],"
                      " ?3::bigint[]) AS h(id, lo, hi) JOIN versions v ON v.object_id = h.id AND v.seq >= h.lo"
                      " AND v.seq <= h.hi WHERE length(v.data) <= ?4 ORDER BY v.object_id, v.seq"));
    q.bind(1, intArray(ids)).bind(2, intArray(first)).bind(3, intArray(last)).bind(4, maxBytes);
    int rc;
    while ((rc = q.step()) == kRow)
        out.push_back({q.i64(0), q.i64(1), q.i64(2), std::string(q.blob(3))});
    if (rc != kDone)
        return Error::make(ErrorCategory::Io, "history store: head versions: " + c.lastMessage());
    return out;
}

Result<std::vector<std::int64_t>> insertObjects(Connection &c, const std::vector<NewObjectRow> &rows)
{
    std::vector<std::int64_t> ids;
    if (rows.empty())
        return ids;
    std::vector<std::string_view> cols[7];
    for (const auto &r : rows) {
        std::size_t i = 0;
        for (const std::string *v : {&r.uid, &r.group, &r.apiVersion, &r.kind, &r.resource, &r.namespace_, &r.name})
            cols[i++].push_back(*v);
    }
    // WITH ORDINALITY: the ids come back beside the row each was made for.
    Query q(c.prepare("WITH r AS (SELECT * FROM unnest(?1::text[], ?2::text[], ?3::text[], ?4::text[], ?5::text[],"
                      " ?6::text[], ?7::text[]) WITH ORDINALITY AS r(uid, g, av, k, res, ns, n, i)),"
                      " ins AS (INSERT INTO objects(uid, api_group, api_version, kind, resource, namespace, name)"
                      " SELECT uid, g, av, k, res, ns, n FROM r ORDER BY i RETURNING id, uid)"
                      " SELECT ins.id FROM ins JOIN r ON r.uid = ins.uid ORDER BY r.i"));
    for (int i = 0; i < 7; ++i)
        q.bind(i + 1, textArray(cols[i]));
    int rc;
    while ((rc = q.step()) == kRow)
        ids.push_back(q.i64(0));
    if (rc != kDone)
        return Error::make(ErrorCategory::Io, "history store: insert objects: " + c.lastMessage());
    if (ids.size() != rows.size())
        return Error::make(ErrorCategory::Io, "history store: insert objects: an object uid came twice");
    return ids;
}

Status updateObjects(Connection &c, const std::vector<ObjectUpdateRow> &rows)
{
    if (rows.empty())
        return success();
    std::vector<std::int64_t> ids, added, seqs, deleted;
    std::vector<std::string_view> versions, kinds;
    for (const auto &r : rows) {
        ids.push_back(r.id);
        added.push_back(r.added);
        seqs.push_back(r.lastSeq);
        deleted.push_back(r.deleted);
        versions.push_back(r.apiVersion);
        kinds.push_back(r.kind);
    }
    Query q(c.prepare("UPDATE objects o SET version_count = o.version_count + u.n, last_seq = u.seq,"
                      " deleted = u.del, api_version = u.av, kind = CASE WHEN u.k = '' THEN o.kind ELSE u.k END"
                      " FROM unnest(?1::bigint[], ?2::bigint[], ?3::bigint[], ?4::bigint[], ?5::text[], ?6::text[])"
                      " AS u(id, n, seq, del, av, k) WHERE o.id = u.id"));
    q.bind(1, intArray(ids)).bind(2, intArray(added)).bind(3, intArray(seqs)).bind(4, intArray(deleted));
    q.bind(5, textArray(versions)).bind(6, textArray(kinds));
    if (q.step() != kDone)
        return Error::make(ErrorCategory::Io, "history store: update objects: " + c.lastMessage());
    return success();
}

Status startCopy(PGconn *pg)
{
    PGresult *r = PQexec(pg, "COPY versions(id, object_id, seq, rv, event, observed_ms, scope, snapshot, raw_size,"
                             " data, recorder) FROM STDIN");
    const bool started = PQresultStatus(r) == PGRES_COPY_IN;
    std::string message = started ? std::string() : PQresultErrorMessage(r);
    PQclear(r);
    if (!started)
        return Error::make(ErrorCategory::Io, "history store: bulk write: " + message);
    return success();
}

Status putCopyRows(PGconn *pg, const std::vector<VersionRow> &rows)
{
    // Handed to libpq in pieces of about 64 KiB (it sends what it holds past 8 KiB): the server
    // reads rows as they come, and a large Pod's rows do not wait for the rest.
    std::string buffer;
    for (std::size_t i = 0; i < rows.size(); ++i) {
        appendCopyRow(buffer, rows[i]);
        if (buffer.size() >= (64u << 10) || i + 1 == rows.size()) {
            if (PQputCopyData(pg, buffer.data(), int(buffer.size())) != 1)
                return Error::make(ErrorCategory::Io, std::string("history store: bulk write: ") + PQerrorMessage(pg));
            buffer.clear();
        }
    }
    return success();
}

Status awaitCopy(PGconn *pg, std::int64_t expected, std::int64_t &changes, const char *failure)
{
    changes = 0;
    Status out = success();
    if (PQputCopyEnd(pg, failure) != 1)
        out = Error::make(ErrorCategory::Io, std::string("history store: bulk write: ") + PQerrorMessage(pg));
    while (PGresult *res = PQgetResult(pg)) {
        const auto status = PQresultStatus(res);
        if (status == PGRES_COPY_IN || status == PGRES_COPY_BOTH) {
            // The end could not be sent and the connection still waits for data: no further
            // answer comes; the connection is given up rather than waited on forever.
            PQclear(res);
            if (out)
                out = Error::make(ErrorCategory::Network, "history store: bulk write: the COPY could not be ended");
            break;
        }
        if (status == PGRES_COMMAND_OK) {
            const char *n = PQcmdTuples(res);
            changes = n && *n ? std::strtoll(n, nullptr, 10) : 0;
        } else if (out) {
            const char *state = PQresultErrorField(res, PG_DIAG_SQLSTATE);
            out = conflictOr(state ? state : "", PQresultErrorMessage(res));
        }
        PQclear(res);
    }
    if (out && changes != expected)
        out = Error::make(ErrorCategory::Io, "history store: bulk write: " + std::to_string(changes) + " of "
                                                 + std::to_string(expected) + " versions stored");
    return out;
}

} // namespace pgbulk

} // namespace fieldscope::core::historydb
