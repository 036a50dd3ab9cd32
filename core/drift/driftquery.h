#pragma once
// Drift of a live object from the versions a history store recorded of it (its uid), with who
// made each change from the store's audit joins: the CLI's `fieldscope drift` and, later, the
// window's Drift view both call this. Blocking database reads and CPU work: call it on a worker
// thread that owns the store (HistoryStore is one connection, one thread at a time); the
// DriftReport it returns is a value type to hand to the GUI thread.
#include "core/drift/drifttracker.h"
#include "core/history/historyquery.h"

namespace fieldscope::core {

// Without a store, or when the store holds no version of this uid, what managedFields alone say
// (driftFromManagedFields). Reads the newest `maxVersions` versions (0 = all: a store someone else
// wrote may hold a million); older ones are taken as missing. A version whose row cannot be read
// costs that version (a note). Errors: the store could not be read (Io, or the database's own),
// or the live object's managedFields cannot be decoded (Parse).
Result<DriftReport> analyseDrift(HistoryStore *store, const Json &live, const DriftObjectRef &object,
                                 const DriftOptions &options = {},
                                 std::int64_t maxVersions = kDefaultMaxListedVersions);

} // namespace fieldscope::core
