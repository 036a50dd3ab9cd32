#include "core/objects/objectstore.h"

#include <algorithm>

namespace fieldscope::core {

void ObjectStore::reserve(std::size_t objects)
{
    objects = std::min(objects, kMaxReserve);
    if (objects > m_objects.size() && double(objects) > double(m_objects.bucket_count()) * m_objects.max_load_factor())
        m_objects.reserve(objects);
}

bool ObjectStore::apply(const ObjectVersion &v)
{
    auto it = m_objects.find(v.uid);
    if (v.type == WatchEventType::Deleted) {
        if (it == m_objects.end())
            return false;
        m_bytes -= std::size_t(it->second.json.size());
        m_objects.erase(it);
        return true;
    }
    if (it != m_objects.end()) {
        if (it->second.resourceVersion == v.resourceVersion)
            return false;
        m_bytes -= std::size_t(it->second.json.size());
        it->second.resourceVersion = v.resourceVersion;
        it->second.json = v.json;
        it->second.name = v.name;
        it->second.namespace_ = v.namespace_;
    } else {
        m_objects.emplace(v.uid, StoredObject{v.namespace_, v.name, v.resourceVersion, v.json});
    }
    m_bytes += std::size_t(v.json.size());
    return true;
}

const StoredObject *ObjectStore::find(const std::string &uid) const
{
    auto it = m_objects.find(uid);
    return it == m_objects.end() ? nullptr : &it->second;
}

void ObjectStore::clear()
{
    m_objects.clear();
    m_bytes = 0;
}

} // namespace fieldscope::core
