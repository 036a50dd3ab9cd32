#pragma once
// ObjectStore: the current state of every object of one watch scope, keyed by uid. Holds each
// object's raw JSON bytes with its identity strings found inside them (ObjectBytes) and an index
// of slot numbers (SlotIndex), so its memory stays close to the JSON size: ~90 bytes an object
// besides its JSON (benchmark target: the window at most 1.2x the JSON it holds). Not
// thread-safe: owned by one thread (the watcher's owner).
#include "core/objects/objectbytes.h"
#include "core/objects/slotindex.h"
#include "core/objects/watchtypes.h"

#include <deque>
#include <string_view>
#include <vector>

namespace fieldscope::core {

using StoredObject = ObjectBytes;

class ObjectStore
{
public:
    ObjectStore() = default;
    // The index reads keys through a pointer to this store's slots: a copy would read the source's.
    ObjectStore(const ObjectStore &) = delete;
    ObjectStore &operator=(const ObjectStore &) = delete;

    // Applies one version; returns false when it is a duplicate of what is stored (same uid and
    // resourceVersion) or a deletion of an unknown object, which the caller must not deliver.
    bool apply(const ObjectVersion &v);
    const StoredObject *find(std::string_view uid) const;
    std::size_t size() const { return m_index.size(); }
    std::size_t jsonBytes() const { return m_bytes; }
    // Room for `objects` (a list's announced size): the index then grows once, while small,
    // instead of rehashing every entry at each growth step in the middle of a large list. The
    // count is the server's word: at most kMaxReserve are reserved (a server announcing 10^12
    // objects must not make the client allocate for them).
    void reserve(std::size_t objects);
    static constexpr std::size_t kMaxReserve = 2'000'000;          // 16 MB of 4-byte buckets
    std::size_t indexBuckets() const { return m_index.buckets(); } // for tests
    void clear();
    // Calls f(const StoredObject &) for every stored object, in no particular order.
    template<class F>
    void forEach(F f) const
    {
        for (const StoredObject &o : m_slots) {
            if (!o.json().isNull())
                f(o);
        }
    }

private:
    struct SlotUid {
        const std::deque<StoredObject> *slots;
        std::string_view operator()(int slot) const { return (*slots)[std::size_t(slot)].uid(); }
    };
    // A deque: growing it moves no stored object. A free slot has null JSON.
    std::deque<StoredObject> m_slots;
    std::vector<int> m_free;
    SlotIndex<SlotUid> m_index{SlotUid{&m_slots}};
    std::size_t m_bytes = 0;
};

} // namespace fieldscope::core
