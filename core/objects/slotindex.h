#pragma once
// A hash index from a row's key (a uid) to its slot that stores only slot numbers: the key is
// read from the row itself through KeyOf, so the index costs 4-8 bytes a row instead of a hash
// node holding its own copy of the uid (~120 bytes a row, 18 MB for 150,000 Pods).
//
// Open addressing with linear probing and backward-shift deletion (no tombstones, so lookups
// stay short however rows come and go). Not thread-safe; the key of a slot must not change
// while the slot is in the index.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string_view>
#include <vector>

namespace fieldscope::core {

template<class KeyOf> // std::string_view KeyOf::operator()(int slot) const
class SlotIndex
{
public:
    explicit SlotIndex(KeyOf keyOf) : m_keyOf(keyOf) {}

    std::size_t size() const { return m_size; }
    std::size_t buckets() const { return m_table.size(); }

    // The slot whose key is `key`, or -1.
    int find(std::string_view key) const
    {
        if (m_table.empty())
            return -1;
        for (std::size_t i = home(key);; i = (i + 1) & m_mask) {
            const int s = m_table[i];
            if (s < 0)
                return -1;
            if (m_keyOf(s) == key)
                return s;
        }
    }

    // Adds `slot`, whose key must not be in the index yet.
    void insert(int slot)
    {
        if ((m_size + 1) * kLoadDen > m_table.size() * kLoadNum)
            rehash(std::max<std::size_t>(16, m_table.size() * 2));
        place(slot);
        ++m_size;
    }

    // Removes the slot with key `key`; returns whether there was one.
    bool erase(std::string_view key)
    {
        if (m_table.empty())
            return false;
        std::size_t i = home(key);
        for (;; i = (i + 1) & m_mask) {
            const int s = m_table[i];
            if (s < 0)
                return false;
            if (m_keyOf(s) == key)
                break;
        }
        // Backward shift: move later members of the probe run into the hole when their home
        // position does not lie cyclically in (hole, their position].
        for (std::size_t j = i;;) {
            j = (j + 1) & m_mask;
            const int s = m_table[j];
            if (s < 0)
                break;
            const std::size_t k = home(m_keyOf(s));
            const bool stays = i <= j ? (i < k && k <= j) : (i < k || k <= j);
            if (!stays) {
                m_table[i] = s;
                i = j;
            }
        }
        m_table[i] = -1;
        --m_size;
        return true;
    }

    // Room for `count` keys without growing (a rehash reads every key).
    void reserve(std::size_t count)
    {
        count = std::min<std::size_t>(count, std::size_t(1) << 40); // callers cap it; so does the index
        std::size_t want = 16;
        while (count * kLoadDen > want * kLoadNum)
            want *= 2;
        if (want > m_table.size())
            rehash(want);
    }

    void clear() { std::vector<int>().swap(m_table), m_size = 0, m_mask = 0; }

private:
    // At most 3/4 full.
    static constexpr std::size_t kLoadNum = 3, kLoadDen = 4;

    std::size_t home(std::string_view key) const { return std::hash<std::string_view>()(key) & m_mask; }

    void place(int slot)
    {
        std::size_t i = home(m_keyOf(slot));
        while (m_table[i] >= 0)
            i = (i + 1) & m_mask;
        m_table[i] = slot;
    }

    void rehash(std::size_t buckets)
    {
        std::vector<int> old(buckets, -1);
        old.swap(m_table);
        m_mask = buckets - 1;
        for (const int s : old) {
            if (s >= 0)
                place(s);
        }
    }

    KeyOf m_keyOf;
    std::vector<int> m_table; // slot numbers, -1 for an empty bucket; size a power of two
    std::size_t m_size = 0;
    std::size_t m_mask = 0;
};

} // namespace fieldscope::core
