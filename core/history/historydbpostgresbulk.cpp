// Bulk writing for the PostgreSQL store (historydb.h: Connection::writesInBulk). Each call is one
// statement whatever the number of rows: arrays bound as one parameter each (unnest), and the
// versions by COPY, so a transaction of 500 versions costs a handful of round trips, not 1,500.
#include "core/history/historydbpostgres_p.h"

#include <libpq-fe.h>

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
    for (unsigned char c : bytes) {
        out += kHex[c >> 4];
        out += kHex[c & 15];
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

void appendCopyRow(std::string &out, const VersionRow &r)
{
    for (std::int64_t v : {r.id, r.objectId, r.seq}) {
        out += std::to_string(v);
        out += '\t';
    }
    appendCopyText(out, r.rv);
    out += '\t';
    out += std::to_string(r.event);
    out += '\t';
    out += std::to_string(r.observedMs);
    out += '\t';
    appendCopyText(out, r.scope);
    for (std::int64_t v : {r.snapshot, r.rawSize}) {
        out += '\t';
        out += std::to_string(v);
    }
    out += "\t\\\\x"; // bytea's hex input, its backslash escaped for COPY
    appendHex(out, r.data);
    out += '\t';
    out += std::to_string(r.recorder);
    out += '\n';
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
Result<std::vector<std::pair<std::int64_t, std::string>>>
Connection::versionBlobs(const std::vector<std::pair<std::int64_t, std::int64_t>> &, std::int64_t)
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

Result<std::vector<std::pair<std::int64_t, std::string>>>
versionBlobs(Connection &c, const std::vector<std::pair<std::int64_t, std::int64_t>> &rows, std::int64_t maxBytes)
{
    std::vector<std::pair<std::int64_t, std::string>> out;
    if (rows.empty())
        return out;
    std::vector<std::int64_t> ids, seqs;
    for (const auto &[id, seq] : rows) {
        ids.push_back(id);
        seqs.push_back(seq);
    }
    Query q(c.prepare("SELECT v.object_id, v.data FROM unnest(?1::bigint[], ?2::bigint[]) AS h(id, seq)"
                      " JOIN versions v ON v.object_id = h.id AND v.seq = h.seq WHERE length(v.data) <= ?3"));
    q.bind(1, intArray(ids)).bind(2, intArray(seqs)).bind(3, maxBytes);
    int rc;
    while ((rc = q.step()) == kRow)
        out.emplace_back(q.i64(0), std::string(q.blob(1)));
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

Status sendCopy(PGconn *pg, const std::vector<VersionRow> &rows)
{
    PGresult *r = PQexec(pg, "COPY versions(id, object_id, seq, rv, event, observed_ms, scope, snapshot, raw_size,"
                             " data, recorder) FROM STDIN");
    const bool started = PQresultStatus(r) == PGRES_COPY_IN;
    std::string message = started ? std::string() : PQresultErrorMessage(r);
    PQclear(r);
    if (!started)
        return Error::make(ErrorCategory::Io, "history store: bulk write: " + message);
    // Sent in pieces of about 1 MiB (a large Pod's rows do not wait for the rest).
    std::string buffer;
    bool sent = true;
    for (std::size_t i = 0; i < rows.size() && sent; ++i) {
        appendCopyRow(buffer, rows[i]);
        if (buffer.size() >= (1u << 20) || i + 1 == rows.size()) {
            sent = PQputCopyData(pg, buffer.data(), int(buffer.size())) == 1;
            buffer.clear();
        }
    }
    if (PQputCopyEnd(pg, sent ? nullptr : "the client could not send a row") != 1)
        return Error::make(ErrorCategory::Io, std::string("history store: bulk write: ") + PQerrorMessage(pg));
    return success();
}

Status awaitCopy(PGconn *pg, std::int64_t expected, std::int64_t &changes)
{
    changes = 0;
    Status out = success();
    while (PGresult *res = PQgetResult(pg)) {
        if (PQresultStatus(res) == PGRES_COMMAND_OK) {
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
