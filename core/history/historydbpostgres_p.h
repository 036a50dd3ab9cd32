#pragma once
// Private to the PostgreSQL connection (historydbpostgres.cpp): its bulk statements
// (historydbpostgresbulk.cpp).
#include "core/history/historydb.h"

using PGconn = struct pg_conn;

namespace fieldscope::core::historydb::pgbulk {

// Array literals for one parameter (`?1::text[]`): every element quoted, '"' and '\' escaped.
std::string textArray(const std::vector<std::string_view> &values);
std::string intArray(const std::vector<std::int64_t> &values);

Result<std::vector<HeadRow>> headRows(Connection &c, const std::vector<std::string> &uids);
Result<std::vector<std::pair<std::string, std::string>>>
storedVersions(Connection &c, const std::vector<std::pair<std::string, std::string>> &pairs);
Result<std::vector<std::pair<std::int64_t, std::string>>>
versionBlobs(Connection &c, const std::vector<std::pair<std::int64_t, std::int64_t>> &rows, std::int64_t maxBytes);
Result<std::vector<std::int64_t>> insertObjects(Connection &c, const std::vector<NewObjectRow> &rows);
Status updateObjects(Connection &c, const std::vector<ObjectUpdateRow> &rows);
// COPY ... FROM STDIN in text format, the rows sent and the end of the data; awaitCopy() reads
// the server's answer (`changes`: the rows it took, to be `expected`).
Status sendCopy(PGconn *pg, const std::vector<VersionRow> &rows);
Status awaitCopy(PGconn *pg, std::int64_t expected, std::int64_t &changes);

} // namespace fieldscope::core::historydb::pgbulk
