#include "core/versioncodec.h"

#include <zstd.h>

#include <algorithm>
#include <charconv>
#include <cstring>

namespace fieldscope::core {
namespace {

constexpr char kTagZstd = 'Z';
constexpr char kTagRaw = 'R';
// Below this size zstd's frame header costs more than it saves on JSON text.
constexpr std::size_t kMinCompress = 48;
// Small payloads decompress into a bounded buffer: a corrupt header must not allocate gigabytes.
constexpr unsigned long long kMaxObjectBytes = 256ull << 20;

// True when `to`'s keys are `from`'s surviving keys in the same order followed by the new keys:
// exactly the order that erase-then-append reproduces.
bool keyOrderReproducible(const Json &from, const Json &to)
{
    auto t = to.begin();
    for (auto f = from.begin(); f != from.end(); ++f) {
        if (!to.contains(f.key()))
            continue;
        if (t == to.end() || t.key() != f.key())
            return false;
        ++t;
    }
    for (; t != to.end(); ++t)
        if (from.contains(t.key()))
            return false;
    return true;
}

void diffInto(const Json &a, const Json &b, Json &path, Json &ops)
{
    // Exact type comparison: 80 and 80.0 differ on the wire and must round-trip as sent.
    if (a.type() != b.type() || !a.is_structured()) {
        if (a.type() != b.type() || a != b)
            ops.push_back(Json::array({path, b}));
        return;
    }
    if (a.is_object()) {
        if (!keyOrderReproducible(a, b)) {
            ops.push_back(Json::array({path, b}));
            return;
        }
        for (auto it = a.begin(); it != a.end(); ++it) {
            if (!b.contains(it.key())) {
                path.push_back(it.key());
                ops.push_back(Json::array({path}));
                path.erase(path.size() - 1);
            }
        }
        for (auto it = b.begin(); it != b.end(); ++it) {
            path.push_back(it.key());
            auto old = a.find(it.key());
            if (old != a.end())
                diffInto(*old, it.value(), path, ops);
            else
                ops.push_back(Json::array({path, it.value()}));
            path.erase(path.size() - 1);
        }
        return;
    }
    // Arrays compare index by index: status/managedFields updates keep positions stable, and a
    // reordering merely costs bytes (the store falls back to a snapshot when a delta is large).
    const std::size_t common = std::min(a.size(), b.size());
    for (std::size_t i = 0; i < common; ++i) {
        path.push_back(i);
        diffInto(a[i], b[i], path, ops);
        path.erase(path.size() - 1);
    }
    for (std::size_t i = a.size(); i > b.size(); --i) {
        path.push_back(i - 1);
        ops.push_back(Json::array({path}));
        path.erase(path.size() - 1);
    }
    for (std::size_t i = a.size(); i < b.size(); ++i) {
        path.push_back(i);
        ops.push_back(Json::array({path, b[i]}));
        path.erase(path.size() - 1);
    }
}

Error deltaError(const std::string &why, std::size_t op)
{
    return Error::make(ErrorCategory::Parse, "history delta does not apply: " + why, "op " + std::to_string(op));
}

Status applyOne(Json &doc, const Json &op, std::size_t n)
{
    if (!op.is_array() || op.empty() || op.size() > 2 || !op[0].is_array())
        return deltaError("malformed op", n);
    const Json &path = op[0];
    const bool isSet = op.size() == 2;
    if (path.empty()) {
        if (!isSet)
            return deltaError("cannot remove the root", n);
        doc = op[1];
        return success();
    }
    Json *parent = &doc;
    for (std::size_t i = 0; i + 1 < path.size(); ++i) {
        const Json &tok = path[i];
        if (tok.is_string() && parent->is_object() && parent->contains(tok.get_ref<const std::string &>()))
            parent = &(*parent)[tok.get_ref<const std::string &>()];
        else if (tok.is_number_unsigned() && parent->is_array() && tok.get<std::size_t>() < parent->size())
            parent = &(*parent)[tok.get<std::size_t>()];
        else
            return deltaError("path not found", n);
    }
    const Json &last = path.back();
    if (last.is_string() && parent->is_object()) {
        const auto &key = last.get_ref<const std::string &>();
        if (isSet)
            (*parent)[key] = op[1];
        else if (parent->erase(key) == 0)
            return deltaError("member to remove not found", n);
        return success();
    }
    if (last.is_number_unsigned() && parent->is_array()) {
        const auto idx = last.get<std::size_t>();
        if (isSet && idx < parent->size())
            (*parent)[idx] = op[1];
        else if (isSet && idx == parent->size())
            parent->push_back(op[1]);
        else if (!isSet && idx < parent->size())
            parent->erase(idx);
        else
            return deltaError("index out of range", n);
        return success();
    }
    return deltaError("path does not match the document", n);
}

} // namespace

Json makeDelta(const Json &from, const Json &to)
{
    Json ops = Json::array();
    Json path = Json::array();
    diffInto(from, to, path, ops);
    return ops;
}

Status applyDelta(Json &doc, const Json &delta)
{
    if (!delta.is_array())
        return deltaError("not an array", 0);
    for (std::size_t i = 0; i < delta.size(); ++i) {
        if (auto st = applyOne(doc, delta[i], i); !st)
            return st;
    }
    return success();
}

// ---- JsonIndex --------------------------------------------------------------------------------

namespace {

int hexValue(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

void appendUtf8(std::string &out, std::uint32_t cp)
{
    if (cp < 0x80) {
        out += char(cp);
    } else if (cp < 0x800) {
        out += char(0xC0 | (cp >> 6));
        out += char(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
        out += char(0xE0 | (cp >> 12));
        out += char(0x80 | ((cp >> 6) & 0x3F));
        out += char(0x80 | (cp & 0x3F));
    } else {
        out += char(0xF0 | (cp >> 18));
        out += char(0x80 | ((cp >> 12) & 0x3F));
        out += char(0x80 | ((cp >> 6) & 0x3F));
        out += char(0x80 | (cp & 0x3F));
    }
}

std::uint32_t hex4(const char *p)
{
    return std::uint32_t(hexValue(p[0]) << 12 | hexValue(p[1]) << 8 | hexValue(p[2]) << 4 | hexValue(p[3]));
}

// Decodes a string token already validated by the indexer (quotes included).
std::string unescapeJsonString(std::string_view token)
{
    std::string out;
    out.reserve(token.size());
    for (std::size_t i = 1; i + 1 < token.size(); ++i) {
        const char c = token[i];
        if (c != '\\') {
            out += c;
            continue;
        }
        const char e = token[++i];
        switch (e) {
        case 'b': out += '\b'; break;
        case 'f': out += '\f'; break;
        case 'n': out += '\n'; break;
        case 'r': out += '\r'; break;
        case 't': out += '\t'; break;
        case 'u': {
            std::uint32_t cp = hex4(token.data() + i + 1);
            i += 4;
            if (cp >= 0xD800 && cp <= 0xDBFF) { // validated: a low surrogate escape follows
                cp = 0x10000 + ((cp - 0xD800) << 10) + (hex4(token.data() + i + 3) - 0xDC00);
                i += 6;
            }
            appendUtf8(out, cp);
            break;
        }
        default: out += e; break; // '"', '\\', '/'
        }
    }
    return out;
}

} // namespace

// Recursive descent over the text, mirroring nlohmann's lexer and parser rules (RFC 8259 plus its
// UTF-8 and surrogate checks) so that Ok means "parseJson accepts this and decodes the same tree".
struct JsonIndexer {
    JsonIndex &ix;
    const char *base;
    const char *p;
    const char *end;
    JsonIndex::Status status = JsonIndex::Status::Ok;
    int depth = 0;

    bool fail(JsonIndex::Status s)
    {
        if (status == JsonIndex::Status::Ok)
            status = s;
        return false;
    }
    bool invalid() { return fail(JsonIndex::Status::Invalid); }

    void skipWs()
    {
        while (p < end && (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t'))
            ++p;
    }

    // p at the opening quote; on success p is past the closing quote.
    bool string(bool *escaped)
    {
        ++p;
        for (;;) {
            while (p < end) {
                const unsigned char c = static_cast<unsigned char>(*p);
                if (c < 0x20 || c == '"' || c == '\\' || c >= 0x80)
                    break;
                ++p;
            }
            if (p >= end)
                return invalid();
            const unsigned char c = static_cast<unsigned char>(*p);
            if (c == '"') {
                ++p;
                return true;
            }
            if (c < 0x20)
                return invalid();
            if (c == '\\') {
                *escaped = true;
                if (end - p < 2)
                    return invalid();
                const char e = p[1];
                if (e == 'u') {
                    if (!unicodeEscape())
                        return false;
                    continue;
                }
                if (e != '"' && e != '\\' && e != '/' && e != 'b' && e != 'f' && e != 'n' && e != 'r' && e != 't')
                    return invalid();
                p += 2;
                continue;
            }
            if (!utf8Sequence())
                return false;
        }
    }

    bool hex4At(const char *at, std::uint32_t *cp)
    {
        if (end - at < 4)
            return invalid();
        for (int i = 0; i < 4; ++i)
            if (hexValue(at[i]) < 0)
                return invalid();
        *cp = hex4(at);
        return true;
    }

    // p at the backslash of "\uXXXX"; a high surrogate must be followed by "\u" + a low one.
    bool unicodeEscape()
    {
        std::uint32_t cp = 0;
        if (!hex4At(p + 2, &cp))
            return false;
        p += 6;
        if (cp >= 0xDC00 && cp <= 0xDFFF)
            return invalid();
        if (cp >= 0xD800 && cp <= 0xDBFF) {
            std::uint32_t low = 0;
            if (end - p < 2 || p[0] != '\\' || p[1] != 'u' || !hex4At(p + 2, &low) || low < 0xDC00 || low > 0xDFFF)
                return invalid();
            p += 6;
        }
        return true;
    }

    // Well-formed UTF-8 (RFC 3629), the table nlohmann's lexer checks.
    bool utf8Sequence()
    {
        const auto byte = [&](std::ptrdiff_t i) { return static_cast<unsigned char>(p[i]); };
        const unsigned char c = byte(0);
        int n = 0;
        unsigned char lo = 0x80, hi = 0xBF;
        if (c >= 0xC2 && c <= 0xDF) {
            n = 1;
        } else if (c == 0xE0) {
            n = 2, lo = 0xA0;
        } else if ((c >= 0xE1 && c <= 0xEC) || c == 0xEE || c == 0xEF) {
            n = 2;
        } else if (c == 0xED) {
            n = 2, hi = 0x9F;
        } else if (c == 0xF0) {
            n = 3, lo = 0x90;
        } else if (c >= 0xF1 && c <= 0xF3) {
            n = 3;
        } else if (c == 0xF4) {
            n = 3, hi = 0x8F;
        } else {
            return invalid();
        }
        if (end - p <= n)
            return invalid();
        if (byte(1) < lo || byte(1) > hi)
            return invalid();
        for (int i = 2; i <= n; ++i)
            if (byte(i) < 0x80 || byte(i) > 0xBF)
                return invalid();
        p += n + 1;
        return true;
    }

    bool digits()
    {
        const char *start = p;
        while (p < end && *p >= '0' && *p <= '9')
            ++p;
        return p > start || invalid();
    }

    bool number()
    {
        const char *start = p;
        if (*p == '-')
            ++p;
        if (p >= end)
            return invalid();
        if (*p == '0')
            ++p;
        else if (*p >= '1' && *p <= '9')
            digits();
        else
            return invalid();
        bool isFloat = false;
        if (p < end && *p == '.') {
            ++p;
            isFloat = true;
            if (!digits())
                return false;
        }
        if (p < end && (*p == 'e' || *p == 'E')) {
            ++p;
            isFloat = true;
            if (p < end && (*p == '+' || *p == '-'))
                ++p;
            if (!digits())
                return false;
        }
        // nlohmann reads integers that fit 64 bits exactly and everything else as a double,
        // refusing non-finite results; 300 digits cannot overflow a double.
        if (isFloat || p - start > 300) {
            double d = 0;
            const auto r = std::from_chars(start, p, d);
            if (r.ec != std::errc() || r.ptr != p)
                return fail(JsonIndex::Status::Unsupported); // under/overflow: let nlohmann decide
        }
        return true;
    }

    bool literal(std::string_view word)
    {
        if (std::size_t(end - p) < word.size() || std::memcmp(p, word.data(), word.size()) != 0)
            return invalid();
        p += word.size();
        return true;
    }

    bool sameKey(std::uint32_t a, std::uint32_t b) { return ix.key(a) == ix.key(b); }

    // Duplicate keys collapse in nlohmann (the last value wins at the first position): not modelled.
    bool uniqueKeys(std::uint32_t object)
    {
        const auto &nodes = ix.m_nodes;
        const std::uint32_t end = nodes[object].next;
        std::size_t count = 0;
        for (std::uint32_t c = object + 1; c < end && count <= 16; c = nodes[c].next)
            ++count;
        if (count <= 16) {
            for (std::uint32_t c = nodes[object + 1 < end ? object + 1 : object].next; c < end; c = nodes[c].next)
                for (std::uint32_t d = object + 1; d < c; d = nodes[d].next)
                    if (sameKey(c, d))
                        return fail(JsonIndex::Status::Unsupported);
            return true;
        }
        std::vector<std::string_view> keys;
        for (std::uint32_t c = object + 1; c < end; c = nodes[c].next)
            keys.push_back(ix.key(c));
        std::sort(keys.begin(), keys.end());
        return std::adjacent_find(keys.begin(), keys.end()) == keys.end() || fail(JsonIndex::Status::Unsupported);
    }

    bool value(std::uint32_t keyBegin, std::uint32_t keyLen, bool keyEscaped)
    {
        if (p >= end)
            return invalid();
        const auto idx = std::uint32_t(ix.m_nodes.size());
        ix.m_nodes.push_back({std::uint32_t(p - base), 0, 0, keyBegin, keyLen, JsonIndex::Type::Null, keyEscaped});
        if (keyEscaped)
            ix.m_decodedKeys.emplace_back(idx, unescapeJsonString(std::string_view(base + keyBegin, keyLen)));
        JsonIndex::Type type = JsonIndex::Type::Null;
        bool ok = true;
        switch (*p) {
        case '{':
            type = JsonIndex::Type::Object;
            ok = container('}');
            break;
        case '[':
            type = JsonIndex::Type::Array;
            ok = container(']');
            break;
        case '"': {
            type = JsonIndex::Type::String;
            bool escaped = false;
            ok = string(&escaped);
            break;
        }
        case 't':
            type = JsonIndex::Type::True;
            ok = literal("true");
            break;
        case 'f':
            type = JsonIndex::Type::False;
            ok = literal("false");
            break;
        case 'n':
            ok = literal("null");
            break;
        default:
            type = JsonIndex::Type::Number;
            ok = number();
            break;
        }
        if (!ok)
            return false;
        auto &n = ix.m_nodes[idx];
        n.type = type;
        n.end = std::uint32_t(p - base);
        n.next = std::uint32_t(ix.m_nodes.size());
        if (type == JsonIndex::Type::Object)
            return uniqueKeys(idx);
        return true;
    }

    bool container(char close)
    {
        if (++depth > JsonIndex::kMaxDepth)
            return fail(JsonIndex::Status::Unsupported);
        const bool object = close == '}';
        ++p;
        skipWs();
        if (p < end && *p == close) {
            ++p;
            --depth;
            return true;
        }
        for (;;) {
            std::uint32_t keyBegin = 0, keyLen = 0;
            bool escaped = false;
            if (object) {
                if (p >= end || *p != '"')
                    return invalid();
                keyBegin = std::uint32_t(p - base);
                if (!string(&escaped))
                    return false;
                keyLen = std::uint32_t(p - base) - keyBegin;
                skipWs();
                if (p >= end || *p != ':')
                    return invalid();
                ++p;
                skipWs();
            }
            if (!value(keyBegin, keyLen, escaped))
                return false;
            skipWs();
            if (p < end && *p == ',') {
                ++p;
                skipWs();
                continue;
            }
            if (p < end && *p == close) {
                ++p;
                --depth;
                return true;
            }
            return invalid();
        }
    }
};

JsonIndex::Status JsonIndex::build(std::string text)
{
    m_text = std::move(text);
    m_nodes.clear();
    m_decodedKeys.clear();
    // nlohmann skips a UTF-8 byte order mark; offsets are 32-bit.
    if ((!m_text.empty() && static_cast<unsigned char>(m_text[0]) == 0xEF) || m_text.size() >= UINT32_MAX)
        return Status::Unsupported;
    m_nodes.reserve(m_text.size() / 12 + 8);
    JsonIndexer ix{*this, m_text.data(), m_text.data(), m_text.data() + m_text.size()};
    ix.skipWs();
    if (ix.value(0, 0, false)) {
        ix.skipWs();
        if (ix.p != ix.end)
            ix.invalid();
    }
    if (ix.status != Status::Ok) {
        m_text = std::string();
        m_nodes = {};
        m_decodedKeys.clear();
    }
    return ix.status;
}

std::string_view JsonIndex::key(std::uint32_t node) const
{
    const Node &n = m_nodes[node];
    if (!n.keyEscaped)
        return std::string_view(m_text).substr(n.keyBegin + 1, n.keyLen - 2);
    auto it = std::lower_bound(m_decodedKeys.begin(), m_decodedKeys.end(), node,
                               [](const auto &e, std::uint32_t v) { return e.first < v; });
    return it->second;
}

std::int64_t JsonIndex::member(std::uint32_t object, std::string_view name) const
{
    if (object >= m_nodes.size() || m_nodes[object].type != Type::Object)
        return -1;
    for (std::uint32_t c = object + 1; c < m_nodes[object].next; c = m_nodes[c].next)
        if (key(c) == name)
            return c;
    return -1;
}

std::string JsonIndex::stringAt(std::int64_t node) const
{
    if (node < 0 || std::size_t(node) >= m_nodes.size() || m_nodes[std::size_t(node)].type != Type::String)
        return {};
    const std::string_view token = raw(m_nodes[std::size_t(node)]);
    if (token.find('\\') == std::string_view::npos)
        return std::string(token.substr(1, token.size() - 2));
    return unescapeJsonString(token);
}

// ---- delta on indexes --------------------------------------------------------------------------

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

struct VersionCodec::Contexts {
    ZSTD_CCtx *c = ZSTD_createCCtx();
    ZSTD_DCtx *d = ZSTD_createDCtx();
    ~Contexts()
    {
        ZSTD_freeCCtx(c);
        ZSTD_freeDCtx(d);
    }
};

VersionCodec::VersionCodec() : m_ctx(std::make_unique<Contexts>()) {}
VersionCodec::~VersionCodec() = default;

std::string VersionCodec::compress(std::string_view text)
{
    std::string out;
    if (text.size() >= kMinCompress) {
        out.resize(1 + ZSTD_compressBound(text.size()));
        out[0] = kTagZstd;
        // Level 3 (zstd's default): JSON compresses ~5-10x at well over 100 MB/s.
        const std::size_t n = ZSTD_compressCCtx(m_ctx->c, out.data() + 1, out.size() - 1, text.data(), text.size(), 3);
        if (!ZSTD_isError(n) && n < text.size()) {
            out.resize(1 + n);
            return out;
        }
    }
    out.assign(1, kTagRaw);
    out.append(text);
    return out;
}

Result<std::string> VersionCodec::decompress(std::string_view blob)
{
    if (blob.empty())
        return Error::make(ErrorCategory::Parse, "empty history blob");
    if (blob[0] == kTagRaw)
        return std::string(blob.substr(1));
    if (blob[0] != kTagZstd)
        return Error::make(ErrorCategory::Parse, "unknown history blob tag");
    const auto size = ZSTD_getFrameContentSize(blob.data() + 1, blob.size() - 1);
    if (size == ZSTD_CONTENTSIZE_ERROR || size == ZSTD_CONTENTSIZE_UNKNOWN || size > kMaxObjectBytes)
        return Error::make(ErrorCategory::Parse, "corrupt zstd frame in history blob");
    std::string out(size, '\0');
    const std::size_t n = ZSTD_decompressDCtx(m_ctx->d, out.data(), out.size(), blob.data() + 1, blob.size() - 1);
    if (ZSTD_isError(n) || n != size)
        return Error::make(ErrorCategory::Parse, std::string("zstd: ") + (ZSTD_isError(n) ? ZSTD_getErrorName(n) : "short frame"));
    return out;
}

Result<Json> VersionCodec::decodeSnapshot(std::string_view blob)
{
    auto text = decompress(blob);
    if (!text)
        return text.error();
    return parseJson(*text);
}

Status VersionCodec::applyDeltaBlob(Json &doc, std::string_view blob)
{
    auto delta = decodeSnapshot(blob);
    if (!delta)
        return delta.error();
    return applyDelta(doc, *delta);
}

} // namespace fieldscope::core
