#pragma once
// HistoryVersions: the objects behind the History tab's rows, loaded one version at a time when
// a diff or a field's timeline needs them, never all of them. The rows (models/objecthistorymodel.h)
// are small; a version of a large object is not, and 1,000 of them are gigabytes.
//
// Thread: json() and forEachVersion() block (database reads, decoding): call them on a worker
// thread. They are safe to call from several threads; m_mutex guards the reader (one SQLite
// connection is used by one thread at a time) and the cache.
#include "core/history/historystore.h"

#include <QByteArray>

#include <functional>
#include <list>
#include <map>
#include <memory>
#include <mutex>
#include <utility>

namespace fieldscope::models {

// Where versions come from: a history database (storeVersionReader) or, in tests, memory.
class VersionReader
{
public:
    using Visit = std::function<bool(std::int64_t seq, const core::Json &object)>;
    virtual ~VersionReader() = default;
    virtual core::Result<core::Json> load(std::int64_t objectId, std::int64_t seq) = 0;
    virtual core::Status forEachVersion(std::int64_t objectId, const Visit &visit) = 0;
};

// Reads the database at `path` through its own read-only connection, opened on first use (WAL
// lets it read while the recorder commits).
std::unique_ptr<VersionReader> storeVersionReader(const std::string &path);
// Versions held in memory, keyed by (object id, seq): for tests.
std::unique_ptr<VersionReader>
memoryVersionReader(std::map<std::pair<std::int64_t, std::int64_t>, core::Json> versions);

class HistoryVersions
{
public:
    // How many versions' JSON texts stay cached: the pair being diffed and a few around it, so
    // stepping through versions with the arrow keys decodes each one once.
    static constexpr std::size_t kCachedVersions = 8;

    explicit HistoryVersions(std::unique_ptr<VersionReader> reader, std::size_t capacity = kCachedVersions);

    // One version as compact JSON, a Secret's recorded hashes shown as "(hidden value 1a2b3c4d)".
    core::Result<QByteArray> json(std::int64_t objectId, std::int64_t seq);
    // Every version of one object in seq order, one decoded at a time (hashes described as above).
    core::Status forEachVersion(std::int64_t objectId, const VersionReader::Visit &visit);

    std::size_t cachedCount() const;
    int loads() const; // versions read from the reader (cache misses), for tests

private:
    mutable std::mutex m_mutex;
    std::unique_ptr<VersionReader> m_reader;
    std::size_t m_capacity;
    std::list<std::pair<std::pair<std::int64_t, std::int64_t>, QByteArray>> m_cache; // most recent first
    int m_loads = 0;
};

} // namespace fieldscope::models
