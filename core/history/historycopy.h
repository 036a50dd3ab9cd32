#pragma once
// `fieldscope store copy FROM TO`: a history moved between stores (a laptop's SQLite file into
// the team's PostgreSQL and back), in recording order, with its gaps, resume points, deletion
// marks and audit joins and refused writes. Versions the destination holds already are skipped
// by the store's uid+resourceVersion rule, so a copy can be repeated or resumed.
// Thread: blocking database I/O on both stores; call on a worker thread (or the CLI's).
#include "core/history/historyexport.h"
#include "core/history/historystore.h"

namespace fieldscope::core {

struct CopyReport {
    std::int64_t objects = 0;
    std::int64_t versions = 0;          // stored in the destination
    std::int64_t skippedDuplicates = 0; // the destination had them
    std::int64_t gaps = 0;
    std::int64_t joins = 0;           // who made a version (audit joins)
    std::int64_t attempts = 0;        // refused writes
    bool adoptedRedactionKey = false; // an empty destination took the source's Secret hash key
    UnreadableVersions unreadable;    // versions whose source rows cannot be read: not copied
};

Result<CopyReport> copyHistory(HistoryStore &from, HistoryStore &to);

} // namespace fieldscope::core
