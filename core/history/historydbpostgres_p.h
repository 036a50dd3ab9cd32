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
Result<std::vector<RunRow>> versionRuns(Connection &c, const std::vector<VersionRun> &runs, std::int64_t maxBytes);
Result<std::vector<std::int64_t>> insertObjects(Connection &c, const std::vector<NewObjectRow> &rows);
Status updateObjects(Connection &c, const std::vector<ObjectUpdateRow> &rows);
// One COPY ... FROM STDIN (text format) per run of versions: startCopy() opens it, putCopyRows()
// streams rows into it (the server stores them as they arrive, while the writer encodes the
// next ones), awaitCopy() ends the data (`failure`: why the client gave up, or nullptr) and reads
// the server's answer (`changes`: the rows it took, to be `expected`).
Status startCopy(PGconn *pg);
Status putCopyRows(PGconn *pg, const std::vector<VersionRow> &rows);
Status awaitCopy(PGconn *pg, std::int64_t expected, std::int64_t &changes, const char *failure = nullptr);

} // namespace fieldscope::core::historydb::pgbulk
