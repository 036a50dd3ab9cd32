#pragma once
// ObjectStore: the current state of every object of one watch scope, keyed by uid. Holds each
// object's raw JSON bytes plus a few identity strings, so its memory stays close to the JSON
// size (benchmark target: at most 1.5x the bytes it holds). Not thread-safe: owned by one thread
// (the watcher's owner).
#include "core/objects/watchtypes.h"

#include <string>
#include <unordered_map>

namespace fieldscope::core {

struct StoredObject {
    std::string namespace_;
    std::string name;
    std::string resourceVersion;
    QByteArray json;
};

class ObjectStore
{
public:
    // Applies one version; returns false when it is a duplicate of what is stored (same uid and
    // resourceVersion) or a deletion of an unknown object, which the caller must not deliver.
    bool apply(const ObjectVersion &v);
    const StoredObject *find(const std::string &uid) const;
    std::size_t size() const { return m_objects.size(); }
    std::size_t jsonBytes() const { return m_bytes; }
    // Room for `objects` (a list's announced size): the index then grows once, while small,
    // instead of rehashing every node at each growth step in the middle of a large list. The
    // count is the server's word: at most kMaxReserve are reserved (a server announcing 10^12
    // objects must not make the client allocate for them).
    void reserve(std::size_t objects);
    static constexpr std::size_t kMaxReserve = 2'000'000; // 16 MB of buckets
    void clear();
    const std::unordered_map<std::string, StoredObject> &objects() const { return m_objects; }

private:
    std::unordered_map<std::string, StoredObject> m_objects;
    std::size_t m_bytes = 0;
};

} // namespace fieldscope::core
