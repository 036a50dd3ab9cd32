#include "models/historyversions.h"

#include "core/base/jsonread.h"
#include "core/history/secretredaction.h"

namespace fieldscope::models {

namespace {

class StoreReader : public VersionReader
{
public:
    explicit StoreReader(std::string path) : m_path(std::move(path)) {}

    core::Result<core::Json> load(std::int64_t objectId, std::int64_t seq) override
    {
        if (auto st = open(); !st)
            return st.error();
        auto loaded = m_store->loadVersion(objectId, seq);
        if (!loaded)
            m_store.reset(); // a shared store's connection may have broken: the next read reconnects
        return loaded;
    }
    core::Status forEachVersion(std::int64_t objectId, const Visit &visit) override
    {
        if (auto st = open(); !st)
            return st;
        auto walked = m_store->forEachVersion(objectId, visit);
        if (!walked)
            m_store.reset();
        return walked;
    }

private:
    core::Status open()
    {
        if (m_store)
            return core::success();
        auto store = core::HistoryStore::open(m_path, core::HistoryStore::OpenMode::ReadOnly);
        if (!store)
            return store.error();
        m_store = std::move(*store);
        return core::success();
    }

    std::string m_path;
    std::unique_ptr<core::HistoryStore> m_store;
};

class MemoryReader : public VersionReader
{
public:
    explicit MemoryReader(std::map<std::pair<std::int64_t, std::int64_t>, core::Json> versions)
        : m_versions(std::move(versions))
    {
    }

    core::Result<core::Json> load(std::int64_t objectId, std::int64_t seq) override
    {
        auto it = m_versions.find({objectId, seq});
        if (it == m_versions.end())
            return core::Error::make(core::ErrorCategory::NotFound, "no such version");
        return it->second;
    }
    core::Status forEachVersion(std::int64_t objectId, const Visit &visit) override
    {
        for (auto it = m_versions.lower_bound({objectId, INT64_MIN});
             it != m_versions.end() && it->first.first == objectId; ++it)
            if (!visit(it->first.second, it->second))
                break;
        return core::success();
    }

private:
    std::map<std::pair<std::int64_t, std::int64_t>, core::Json> m_versions;
};

} // namespace

std::unique_ptr<VersionReader> storeVersionReader(const std::string &path)
{
    return std::make_unique<StoreReader>(path);
}

std::unique_ptr<VersionReader> memoryVersionReader(std::map<std::pair<std::int64_t, std::int64_t>, core::Json> versions)
{
    return std::make_unique<MemoryReader>(std::move(versions));
}

HistoryVersions::HistoryVersions(std::unique_ptr<VersionReader> reader, std::size_t capacity)
    : m_reader(std::move(reader)), m_capacity(std::max<std::size_t>(capacity, 2))
{
}

core::Result<QByteArray> HistoryVersions::json(std::int64_t objectId, std::int64_t seq)
{
    const std::pair<std::int64_t, std::int64_t> key{objectId, seq};
    std::lock_guard lock(m_mutex);
    for (auto it = m_cache.begin(); it != m_cache.end(); ++it)
        if (it->first == key) {
            m_cache.splice(m_cache.begin(), m_cache, it);
            return m_cache.front().second;
        }
    auto object = m_reader->load(objectId, seq);
    if (!object)
        return object.error();
    ++m_loads;
    core::describeRedactedValues(*object);
    QByteArray text = QByteArray::fromStdString(core::safeDump(*object));
    m_cache.emplace_front(key, text);
    if (m_cache.size() > m_capacity)
        m_cache.pop_back();
    return text;
}

core::Status HistoryVersions::forEachVersion(std::int64_t objectId, const VersionReader::Visit &visit)
{
    std::lock_guard lock(m_mutex);
    return m_reader->forEachVersion(objectId, [&](std::int64_t seq, const core::Json &object) {
        if (!core::isSecretObject(object))
            return visit(seq, object);
        core::Json shown = object;
        core::describeRedactedValues(shown);
        return visit(seq, shown);
    });
}

std::size_t HistoryVersions::cachedCount() const
{
    std::lock_guard lock(m_mutex);
    return m_cache.size();
}

int HistoryVersions::loads() const
{
    std::lock_guard lock(m_mutex);
    return m_loads;
}

} // namespace fieldscope::models
