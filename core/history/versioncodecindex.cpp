// JsonIndex: one-pass validation and indexing of JSON text without building a DOM (the recorder's hot
// path), with the string unescaping it shares with key() and stringAt().
#include "core/history/versioncodec.h"

#include <algorithm>
#include <charconv>
#include <cstring>

namespace fieldscope::core {

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
        // The run up to the next escape in one append (managedFields' keys are mostly plain text).
        const std::size_t escape = std::min(token.find('\\', i), token.size() - 1);
        out.append(token.data() + i, escape - i);
        i = escape;
        if (i + 1 >= token.size())
            break;
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

    // Whether all 8 bytes at `at` are plain string bytes: none is '"', '\\', a control character
    // (< 0x20) or a byte of a multi-byte sequence (>= 0x80). Bit tricks on one 64-bit word; a
    // false "no" only costs the byte loop after it, which finds the byte.
    static bool plainEight(const char *at)
    {
        std::uint64_t x;
        std::memcpy(&x, at, 8);
        constexpr std::uint64_t ones = 0x0101010101010101ull, highs = 0x8080808080808080ull;
        const auto zeroByte = [](std::uint64_t v) { return (v - ones) & ~v & highs; };
        const std::uint64_t below20 = (x - ones * 0x20) & ~x & highs;
        return ((x & highs) | below20 | zeroByte(x ^ (ones * '"')) | zeroByte(x ^ (ones * '\\'))) == 0;
    }

    // p at the opening quote; on success p is past the closing quote.
    bool string(bool *escaped)
    {
        ++p;
        for (;;) {
            while (end - p >= 8 && plainEight(p))
                p += 8;
            while (p < end) {
                const auto c = static_cast<unsigned char>(*p);
                if (c < 0x20 || c == '"' || c == '\\' || c >= 0x80)
                    break;
                ++p;
            }
            if (p >= end)
                return invalid();
            const auto c = static_cast<unsigned char>(*p);
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
        case 'n': ok = literal("null"); break;
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

std::string_view JsonIndex::decodedKey(std::uint32_t node) const
{
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

} // namespace fieldscope::core
