#pragma once
// IndexedOrderedMap: the object type of core::Json. Like nlohmann::ordered_map it is a vector of
// (key, value) pairs in insertion order (so YAML shown to users follows the server's field order,
// and basic_json's object iterators are vector iterators), but objects with more than
// kIndexThreshold keys also carry an open-addressing hash index, so a lookup or an insert costs
// O(1) instead of a linear search: parsing an object with n keys is O(n), not O(n^2) (measured:
// `blame` of a 40,000-key ConfigMap took 5.3 s with ordered_map).
//
// The interface is exactly the part of ordered_map that nlohmann::basic_json 3.11 uses (emplace,
// operator[], at, find, count, erase by key / iterator / range, insert), with the same semantics:
// keys compare with std::equal_to<> (transparent, so string_view lookups work), an insert of an
// existing key keeps the first position, erase keeps the order of the remaining keys.
// The vector operations that would bypass the index (push_back, pop_back, resize, assign) are
// private.
//
// The index hashes keys with SipHash-1-3 under a per-process random key: the keys come from
// servers and files, and a fixed hash would let someone who knows it send 100,000 colliding keys
// (hash flooding) and get the quadratic parse back. Iteration order never depends on the hash.
//
// Thread safety: like std::vector. Const members never write (no lazily built index), so many
// threads may read one Json at once.
#include <cstdint>
#include <cstring>
#include <functional>
#include <initializer_list>
#include <iterator>
#include <memory>
#include <new>
#include <stdexcept>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

namespace fieldscope::core {

namespace indexedmap_detail {
// SipHash-1-3 of `bytes` under the process's random key (initialised once, thread-safe).
std::uint64_t hashKey(std::string_view bytes) noexcept;

// A heterogeneous key (string_view, const char *, ...): not the key type itself and not an
// iterator, so the exact overloads keep their meaning.
template<class K, class Key, class Iter, class ConstIter>
constexpr bool isKeyLike()
{
    using Bare = std::remove_cv_t<std::remove_reference_t<K>>;
    return std::is_convertible_v<
               K,
               std::
                   string_view> && !std::is_same_v<Bare, Key> && !std::is_same_v<Bare, Iter> && !std::is_same_v<Bare, ConstIter>;
}
} // namespace indexedmap_detail

template<class Key, class T, class IgnoredLess = std::less<Key>,
         class Allocator = std::allocator<std::pair<const Key, T>>>
class IndexedOrderedMap : public std::vector<std::pair<const Key, T>, Allocator>
{
public:
    using key_type = Key;
    using mapped_type = T;
    using Container = std::vector<std::pair<const Key, T>, Allocator>;
    using iterator = typename Container::iterator;
    using const_iterator = typename Container::const_iterator;
    using size_type = typename Container::size_type;
    using value_type = typename Container::value_type;
    using key_compare = std::equal_to<>;

    // Below this many keys a linear search is as fast as hashing, and most Kubernetes maps
    // (metadata, a container, a port) stay there without an index allocation.
    static constexpr size_type kIndexThreshold = 16;

    static_assert(std::is_convertible_v<const Key &, std::string_view>, "IndexedOrderedMap hashes keys as string_view");

    IndexedOrderedMap() noexcept(noexcept(Container())) : Container{} {}
    explicit IndexedOrderedMap(const Allocator &alloc) noexcept(noexcept(Container(alloc))) : Container{alloc} {}
    template<class It>
    IndexedOrderedMap(It first, It last, const Allocator &alloc = Allocator()) : Container{alloc}
    {
        insert(first, last);
    }
    IndexedOrderedMap(std::initializer_list<value_type> init, const Allocator &alloc = Allocator()) : Container{alloc}
    {
        insert(init.begin(), init.end());
    }
    IndexedOrderedMap(const IndexedOrderedMap &other)
        : Container(other), m_index(other.m_index ? std::make_unique<Index>(*other.m_index) : nullptr)
    {
    }
    IndexedOrderedMap(IndexedOrderedMap &&other) noexcept
        : Container(std::move(other)), m_index(std::move(other.m_index))
    {
    }
    IndexedOrderedMap &operator=(const IndexedOrderedMap &other)
    {
        if (this != &other) {
            IndexedOrderedMap copy(other);
            swap(copy);
        }
        return *this;
    }
    IndexedOrderedMap &operator=(IndexedOrderedMap &&other) noexcept
    {
        Container::operator=(std::move(other));
        m_index = std::move(other.m_index);
        return *this;
    }
    ~IndexedOrderedMap() = default;

    void swap(IndexedOrderedMap &other) noexcept
    {
        Container::swap(other);
        m_index.swap(other.m_index);
    }

    void clear() noexcept
    {
        Container::clear();
        m_index.reset();
    }

    // --- lookups ---------------------------------------------------------------------------

    iterator find(const key_type &key) { return this->begin() + difference(position(std::string_view(key))); }
    const_iterator find(const key_type &key) const
    {
        return this->begin() + difference(position(std::string_view(key)));
    }
    template<class KeyType,
             std::enable_if_t<indexedmap_detail::isKeyLike<KeyType, Key, iterator, const_iterator>(), int> = 0>
    iterator find(KeyType &&key)
    {
        return this->begin() + difference(position(std::string_view(key)));
    }
    template<class KeyType,
             std::enable_if_t<indexedmap_detail::isKeyLike<KeyType, Key, iterator, const_iterator>(), int> = 0>
    const_iterator find(KeyType &&key) const
    {
        return this->begin() + difference(position(std::string_view(key)));
    }

    size_type count(const key_type &key) const { return position(std::string_view(key)) != this->size() ? 1 : 0; }
    template<class KeyType,
             std::enable_if_t<indexedmap_detail::isKeyLike<KeyType, Key, iterator, const_iterator>(), int> = 0>
    size_type count(KeyType &&key) const
    {
        return position(std::string_view(key)) != this->size() ? 1 : 0;
    }

    T &at(const key_type &key) { return atPosition(position(std::string_view(key))); }
    const T &at(const key_type &key) const { return atPosition(position(std::string_view(key))); }
    template<class KeyType,
             std::enable_if_t<indexedmap_detail::isKeyLike<KeyType, Key, iterator, const_iterator>(), int> = 0>
    T &at(KeyType &&key)
    {
        return atPosition(position(std::string_view(key)));
    }
    template<class KeyType,
             std::enable_if_t<indexedmap_detail::isKeyLike<KeyType, Key, iterator, const_iterator>(), int> = 0>
    const T &at(KeyType &&key) const
    {
        return atPosition(position(std::string_view(key)));
    }

    // --- inserts ---------------------------------------------------------------------------

    std::pair<iterator, bool> emplace(const key_type &key, T &&t) { return emplaceImpl(key, std::move(t)); }
    std::pair<iterator, bool> emplace(key_type &&key, T &&t) { return emplaceImpl(std::move(key), std::move(t)); }
    template<class KeyType,
             std::enable_if_t<indexedmap_detail::isKeyLike<KeyType, Key, iterator, const_iterator>(), int> = 0>
    std::pair<iterator, bool> emplace(KeyType &&key, T &&t)
    {
        return emplaceImpl(std::forward<KeyType>(key), std::move(t));
    }

    T &operator[](const key_type &key) { return emplaceImpl(key, T{}).first->second; }
    T &operator[](key_type &&key) { return emplaceImpl(std::move(key), T{}).first->second; }
    template<class KeyType,
             std::enable_if_t<indexedmap_detail::isKeyLike<KeyType, Key, iterator, const_iterator>(), int> = 0>
    T &operator[](KeyType &&key)
    {
        return emplaceImpl(std::forward<KeyType>(key), T{}).first->second;
    }
    const T &operator[](const key_type &key) const { return at(key); }
    template<class KeyType,
             std::enable_if_t<indexedmap_detail::isKeyLike<KeyType, Key, iterator, const_iterator>(), int> = 0>
    const T &operator[](KeyType &&key) const
    {
        return at(std::forward<KeyType>(key));
    }

    std::pair<iterator, bool> insert(value_type &&value) { return emplaceImpl(value.first, std::move(value.second)); }
    std::pair<iterator, bool> insert(const value_type &value) { return emplaceImpl(value.first, T(value.second)); }
    template<class InputIt,
             std::enable_if_t<std::is_convertible_v<typename std::iterator_traits<InputIt>::iterator_category,
                                                    std::input_iterator_tag>,
                              int> = 0>
    void insert(InputIt first, InputIt last)
    {
        for (auto it = first; it != last; ++it)
            insert(*it);
    }

    // --- erase -----------------------------------------------------------------------------

    size_type erase(const key_type &key) { return eraseKey(std::string_view(key)); }
    template<class KeyType,
             std::enable_if_t<indexedmap_detail::isKeyLike<KeyType, Key, iterator, const_iterator>(), int> = 0>
    size_type erase(KeyType &&key)
    {
        return eraseKey(std::string_view(key));
    }
    iterator erase(iterator pos) { return erase(pos, std::next(pos)); }
    iterator erase(iterator first, iterator last)
    {
        if (first == last)
            return first;
        const auto count = size_type(std::distance(first, last));
        const auto offset = size_type(std::distance(this->begin(), first));
        if (m_index && count == 1)
            m_index->removeAt(offset, hashOf(first->first));
        // pair<const Key, T> cannot be move-assigned: rebuild each moved element in place (as
        // nlohmann::ordered_map does), then drop the tail.
        for (auto it = first; std::next(it, difference(count)) != this->end(); ++it) {
            it->~value_type();
            new (&*it) value_type{std::move(*std::next(it, difference(count)))};
        }
        Container::resize(this->size() - count);
        if (m_index && count != 1)
            rebuildIndex();
        if (this->size() < kIndexThreshold / 2)
            m_index.reset();
        return this->begin() + difference(offset);
    }

private:
    using Container::assign;
    using Container::emplace_back;
    using Container::pop_back;
    using Container::push_back;
    using Container::resize;

    static typename Container::difference_type difference(size_type n)
    {
        return typename Container::difference_type(n);
    }
    static std::uint64_t hashOf(std::string_view key) { return indexedmap_detail::hashKey(key); }

    // Open addressing with linear probing. A slot is 0 (empty) or (low 32 hash bits << 32 |
    // position + 1); the stored hash bits pick the home slot on growth without rehashing keys
    // and reject most non-matching slots without a string compare. Load factor <= 1/2.
    struct Index {
        std::vector<std::uint64_t> slots;
        std::uint64_t mask = 0;
        size_type used = 0;

        static std::uint64_t slotOf(std::uint64_t hash, size_type pos)
        {
            return (hash << 32) | (std::uint64_t(pos) + 1);
        }
        static size_type positionIn(std::uint64_t slot) { return size_type((slot & 0xffffffffu) - 1); }
        static std::uint64_t tagOf(std::uint64_t slot) { return slot >> 32; }

        explicit Index(size_type capacity) : slots(capacity, 0), mask(capacity - 1) {}

        void place(std::uint64_t slot)
        {
            std::uint64_t i = tagOf(slot) & mask;
            while (slots[i] != 0)
                i = (i + 1) & mask;
            slots[i] = slot;
            ++used;
        }
        bool needsGrowth() const { return (used + 1) * 2 > slots.size(); }
        void grow()
        {
            Index bigger(slots.size() * 2);
            for (std::uint64_t s : slots)
                if (s != 0)
                    bigger.place(s);
            *this = std::move(bigger);
        }
        // Removes the entry for `pos` (whose key hashes to `hash`) and renumbers the positions
        // after it, as the vector's erase shifts them down by one.
        void removeAt(size_type pos, std::uint64_t hash)
        {
            const std::uint64_t want = slotOf(hash, pos);
            std::uint64_t i = hash & 0xffffffffu & mask;
            while (slots[i] != want)
                i = (i + 1) & mask;
            // Backward-shift deletion keeps every probe chain unbroken without tombstones.
            for (std::uint64_t j = i;;) {
                j = (j + 1) & mask;
                if (slots[j] == 0)
                    break;
                const std::uint64_t home = tagOf(slots[j]) & mask;
                const bool stays = i <= j ? (i < home && home <= j) : (i < home || home <= j);
                if (!stays) {
                    slots[i] = slots[j];
                    i = j;
                }
            }
            slots[i] = 0;
            --used;
            for (auto &s : slots)
                if (s != 0 && positionIn(s) > pos)
                    --s;
        }
    };

    // Position of `key`, or size() when absent.
    size_type position(std::string_view key) const
    {
        if (!m_index) {
            for (size_type i = 0; i < this->size(); ++i)
                if (std::string_view(Container::operator[](i).first) == key)
                    return i;
            return this->size();
        }
        const std::uint64_t hash = hashOf(key);
        const std::uint64_t tag = hash & 0xffffffffu;
        for (std::uint64_t i = tag & m_index->mask;; i = (i + 1) & m_index->mask) {
            const std::uint64_t s = m_index->slots[i];
            if (s == 0)
                return this->size();
            if (Index::tagOf(s) == tag) {
                const size_type pos = Index::positionIn(s);
                if (std::string_view(Container::operator[](pos).first) == key)
                    return pos;
            }
        }
    }

    T &atPosition(size_type pos)
    {
        if (pos == this->size())
            throw std::out_of_range("key not found");
        return Container::operator[](pos).second;
    }
    const T &atPosition(size_type pos) const
    {
        if (pos == this->size())
            throw std::out_of_range("key not found");
        return Container::operator[](pos).second;
    }

    template<class K>
    std::pair<iterator, bool> emplaceImpl(K &&key, T &&t)
    {
        const std::string_view view(key);
        const size_type found = position(view);
        if (found != this->size())
            return {this->begin() + difference(found), false};
        const size_type pos = this->size();
        if (pos >= 0xfffffffeu)
            throw std::length_error("IndexedOrderedMap: too many keys");
        // Hash before the key is moved into the vector.
        const std::uint64_t hash = m_index ? hashOf(view) : 0;
        Container::emplace_back(std::forward<K>(key), std::move(t));
        if (m_index) {
            if (m_index->needsGrowth())
                m_index->grow();
            m_index->place(Index::slotOf(hash & 0xffffffffu, pos));
        } else if (this->size() > kIndexThreshold) {
            rebuildIndex();
        }
        return {std::prev(this->end()), true};
    }

    size_type eraseKey(std::string_view key)
    {
        const size_type pos = position(key);
        if (pos == this->size())
            return 0;
        erase(this->begin() + difference(pos));
        return 1;
    }

    void rebuildIndex()
    {
        size_type capacity = 64;
        while (capacity < this->size() * 2 + 2)
            capacity *= 2;
        auto index = std::make_unique<Index>(capacity);
        for (size_type i = 0; i < this->size(); ++i)
            index->place(Index::slotOf(hashOf(Container::operator[](i).first) & 0xffffffffu, i));
        m_index = std::move(index);
    }

    std::unique_ptr<Index> m_index;
};

} // namespace fieldscope::core
