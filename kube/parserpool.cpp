#include "kube/parserlease.h"

#include <mutex>
#include <vector>

namespace fieldscope::kube {

namespace {

// More idle parsers than threads ever decode at once are not kept (the pool cannot grow without
// bound if some caller leases from many short-lived threads).
constexpr std::size_t kMaxIdle = 16;

struct Pool {
    std::mutex mutex;
    std::vector<std::unique_ptr<PooledParser>> idle;
};

Pool &pool()
{
    static Pool *p = new Pool; // never destroyed: leases may be returned during static destruction
    return *p;
}

} // namespace

ParserLease::ParserLease()
{
    Pool &p = pool();
    {
        std::lock_guard lock(p.mutex);
        if (!p.idle.empty()) {
            m_entry = std::move(p.idle.back());
            p.idle.pop_back();
        }
    }
    if (!m_entry)
        m_entry = std::make_unique<PooledParser>();
}

ParserLease::~ParserLease()
{
    Pool &p = pool();
    std::unique_ptr<PooledParser> surplus;
    {
        std::lock_guard lock(p.mutex);
        if (p.idle.size() < kMaxIdle)
            p.idle.push_back(std::move(m_entry));
        else
            surplus = std::move(m_entry);
    }
}

ParserPoolStats parserPoolStats()
{
    Pool &p = pool();
    std::lock_guard lock(p.mutex);
    ParserPoolStats s;
    s.idle = p.idle.size();
    for (const auto &e : p.idle)
        s.idleCapacity += e->parser.capacity() + e->scratch.capacity();
    return s;
}

std::size_t releaseIdleParsers()
{
    Pool &p = pool();
    std::vector<std::unique_ptr<PooledParser>> freed;
    {
        std::lock_guard lock(p.mutex);
        freed.swap(p.idle);
    }
    std::size_t capacity = 0;
    for (const auto &e : freed)
        capacity += e->parser.capacity() + e->scratch.capacity();
    return capacity; // `freed` goes out of scope here, outside the lock
}

} // namespace fieldscope::kube
