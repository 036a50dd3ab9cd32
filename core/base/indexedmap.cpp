#include "core/base/indexedmap.h"

#include <random>

namespace fieldscope::core::indexedmap_detail {
namespace {

struct SipKey {
    std::uint64_t k0 = 0, k1 = 0;
};

// Random per process: a peer cannot precompute keys that collide in our index.
const SipKey &sipKey()
{
    static const SipKey key = [] {
        std::random_device rd;
        SipKey k;
        k.k0 = (std::uint64_t(rd()) << 32) ^ rd();
        k.k1 = (std::uint64_t(rd()) << 32) ^ rd();
        return k;
    }();
    return key;
}

inline std::uint64_t rotl(std::uint64_t x, int b)
{
    return (x << b) | (x >> (64 - b));
}

struct SipState {
    std::uint64_t v0, v1, v2, v3;
    void round()
    {
        v0 += v1;
        v1 = rotl(v1, 13);
        v1 ^= v0;
        v0 = rotl(v0, 32);
        v2 += v3;
        v3 = rotl(v3, 16);
        v3 ^= v2;
        v0 += v3;
        v3 = rotl(v3, 21);
        v3 ^= v0;
        v2 += v1;
        v1 = rotl(v1, 17);
        v1 ^= v2;
        v2 = rotl(v2, 32);
    }
};

} // namespace

// SipHash-1-3 (one compression round, three finalisation rounds), as Rust's HashMap uses it.
std::uint64_t hashKey(std::string_view bytes) noexcept
{
    const SipKey &key = sipKey();
    SipState s{key.k0 ^ 0x736f6d6570736575ull, key.k1 ^ 0x646f72616e646f6dull, key.k0 ^ 0x6c7967656e657261ull,
               key.k1 ^ 0x7465646279746573ull};
    const auto *p = reinterpret_cast<const unsigned char *>(bytes.data());
    const std::size_t n = bytes.size();
    const std::size_t whole = n & ~std::size_t(7);
    for (std::size_t i = 0; i < whole; i += 8) {
        std::uint64_t m;
        std::memcpy(&m, p + i, 8); // little-endian hosts only matter for the value, not correctness
        s.v3 ^= m;
        s.round();
        s.v0 ^= m;
    }
    std::uint64_t last = std::uint64_t(n & 0xff) << 56;
    for (std::size_t i = 0; i < (n & 7); ++i)
        last |= std::uint64_t(p[whole + i]) << (8 * i);
    s.v3 ^= last;
    s.round();
    s.v0 ^= last;
    s.v2 ^= 0xff;
    s.round();
    s.round();
    s.round();
    return s.v0 ^ s.v1 ^ s.v2 ^ s.v3;
}

} // namespace fieldscope::core::indexedmap_detail
