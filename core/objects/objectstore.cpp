#include "core/objects/objectstore.h"

#include <algorithm>

namespace fieldscope::core {

void ObjectStore::reserve(std::size_t objects)
{
    m_index.reserve(std::min(objects, kMaxReserve));
}

bool ObjectStore::apply(const ObjectVersion &v)
{
    const int at = m_index.find(v.uid);
    if (v.type == WatchEventType::Deleted) {
        if (at < 0)
            return false;
        StoredObject &gone = m_slots[std::size_t(at)];
        m_bytes -= std::size_t(gone.json().size());
        m_index.erase(v.uid);
        gone = StoredObject();
        m_free.push_back(at);
        return true;
    }
    // A JSON that is null would read as a free slot; a decoded object never has one.
    QByteArray json = v.json.isNull() ? QByteArray("") : v.json;
    if (at >= 0) {
        StoredObject &o = m_slots[std::size_t(at)];
        if (o.resourceVersion() == v.resourceVersion)
            return false;
        m_bytes -= std::size_t(o.json().size());
        // The uid stays the same, so the slot's place in the index does too.
        o = StoredObject(std::move(json), v.uid, v.namespace_, v.name, v.resourceVersion);
    } else {
        int slot;
        if (!m_free.empty()) {
            slot = m_free.back();
            m_free.pop_back();
            m_slots[std::size_t(slot)] = StoredObject(std::move(json), v.uid, v.namespace_, v.name, v.resourceVersion);
        } else {
            slot = int(m_slots.size());
            m_slots.emplace_back(std::move(json), v.uid, v.namespace_, v.name, v.resourceVersion);
        }
        m_index.insert(slot);
    }
    m_bytes += std::size_t(v.json.size());
    return true;
}

const StoredObject *ObjectStore::find(std::string_view uid) const
{
    const int at = m_index.find(uid);
    return at < 0 ? nullptr : &m_slots[std::size_t(at)];
}

void ObjectStore::clear()
{
    m_slots.clear();
    std::vector<int>().swap(m_free);
    m_index.clear();
    m_bytes = 0;
}

} // namespace fieldscope::core
