// makeDeltaText: the structural delta computed on two JsonIndexes, values copied as the server's
// bytes; the same ops makeDelta() (versioncodec.cpp) produces on the parsed trees.
#include "core/history/versioncodec.h"

#include <algorithm>

namespace fieldscope::core {

namespace {

// Mirrors diffInto() on two indexes; values are copied as the server's bytes.
struct IndexDiff {
    const JsonIndex &a;
    const JsonIndex &b;
    std::string &out;
    std::size_t maxBytes;
    struct Token {
        const JsonIndex *index = nullptr; // key token: the member node's raw key in this index
        std::uint32_t node = 0;
        std::size_t position = 0; // array index when index == nullptr
    };
    std::vector<Token> path;
    bool first = true;

    const JsonIndex::Node &na(std::uint32_t i) const { return a.nodes()[i]; }
    const JsonIndex::Node &nb(std::uint32_t i) const { return b.nodes()[i]; }

    void beginOp()
    {
        out += first ? "[[" : ",[";
        first = false;
        out += '[';
        for (std::size_t i = 0; i < path.size(); ++i) {
            if (i)
                out += ',';
            if (path[i].index)
                out += path[i].index->rawKey(path[i].index->nodes()[path[i].node]);
            else
                out += std::to_string(path[i].position);
        }
        out += ']';
    }
    bool set(std::uint32_t bNode)
    {
        beginOp();
        out += ',';
        out += b.raw(nb(bNode));
        out += ']';
        return out.size() <= maxBytes;
    }
    bool remove()
    {
        beginOp();
        out += ']';
        return out.size() <= maxBytes;
    }

    // The member of object `obj` (in `ix`) whose key equals key `k` of node `kn` in `kix`, or 0.
    static std::uint32_t findKey(const JsonIndex &ix, std::uint32_t obj, std::string_view k)
    {
        const auto &nodes = ix.nodes();
        for (std::uint32_t c = obj + 1; c < nodes[obj].next; c = nodes[c].next)
            if (ix.key(c) == k)
                return c;
        return 0; // node 0 is the root, never a member
    }

    // See keyOrderReproducible(); `aligned` = same keys in the same order (the common case).
    bool orderReproducible(std::uint32_t ai, std::uint32_t bi, bool *aligned)
    {
        std::uint32_t x = ai + 1, y = bi + 1;
        *aligned = true;
        for (; x < na(ai).next && y < nb(bi).next; x = na(x).next, y = nb(y).next)
            if (a.key(x) != b.key(y)) {
                *aligned = false;
                break;
            }
        if (*aligned && x == na(ai).next && y == nb(bi).next)
            return true;
        *aligned = false;
        std::uint32_t t = bi + 1;
        for (std::uint32_t f = ai + 1; f < na(ai).next; f = na(f).next) {
            if (!findKey(b, bi, a.key(f)))
                continue;
            if (t >= nb(bi).next || b.key(t) != a.key(f))
                return false;
            t = nb(t).next;
        }
        for (; t < nb(bi).next; t = nb(t).next)
            if (findKey(a, ai, b.key(t)))
                return false;
        return true;
    }

    bool diff(std::uint32_t ai, std::uint32_t bi)
    {
        const auto &x = na(ai);
        const auto &y = nb(bi);
        if (a.raw(x) == b.raw(y))
            return true; // same bytes, same value
        if (x.type != y.type || (x.type != JsonIndex::Type::Object && x.type != JsonIndex::Type::Array))
            return set(bi);
        if (x.type == JsonIndex::Type::Object) {
            bool aligned = false;
            if (!orderReproducible(ai, bi, &aligned))
                return set(bi);
            if (aligned) {
                for (std::uint32_t f = ai + 1, t = bi + 1; t < y.next; f = na(f).next, t = nb(t).next) {
                    path.push_back({&b, t, 0});
                    const bool ok = diff(f, t);
                    path.pop_back();
                    if (!ok)
                        return false;
                }
                return true;
            }
            for (std::uint32_t f = ai + 1; f < x.next; f = na(f).next) {
                if (findKey(b, bi, a.key(f)))
                    continue;
                path.push_back({&a, f, 0});
                const bool ok = remove();
                path.pop_back();
                if (!ok)
                    return false;
            }
            for (std::uint32_t t = bi + 1; t < y.next; t = nb(t).next) {
                path.push_back({&b, t, 0});
                const std::uint32_t f = findKey(a, ai, b.key(t));
                const bool ok = f ? diff(f, t) : set(t);
                path.pop_back();
                if (!ok)
                    return false;
            }
            return true;
        }
        // Arrays: index by index, then removals from the back, then appends (as diffInto).
        std::vector<std::uint32_t> as, bs;
        for (std::uint32_t f = ai + 1; f < x.next; f = na(f).next)
            as.push_back(f);
        for (std::uint32_t t = bi + 1; t < y.next; t = nb(t).next)
            bs.push_back(t);
        const std::size_t common = std::min(as.size(), bs.size());
        for (std::size_t i = 0; i < common; ++i) {
            path.push_back({nullptr, 0, i});
            const bool ok = diff(as[i], bs[i]);
            path.pop_back();
            if (!ok)
                return false;
        }
        for (std::size_t i = as.size(); i > bs.size(); --i) {
            path.push_back({nullptr, 0, i - 1});
            const bool ok = remove();
            path.pop_back();
            if (!ok)
                return false;
        }
        for (std::size_t i = as.size(); i < bs.size(); ++i) {
            path.push_back({nullptr, 0, i});
            const bool ok = set(bs[i]);
            path.pop_back();
            if (!ok)
                return false;
        }
        return true;
    }
};

} // namespace

bool makeDeltaText(const JsonIndex &from, const JsonIndex &to, std::size_t maxBytes, std::string &out)
{
    out.clear();
    if (from.empty() || to.empty())
        return false;
    IndexDiff d{from, to, out, maxBytes, {}, true};
    if (!d.diff(0, 0))
        return false;
    out += d.first ? "[]" : "]";
    return out.size() <= maxBytes;
}

} // namespace fieldscope::core
