// YAML -> JSON: one streaming pass over yaml-cpp's event parser. yaml-cpp's node API built a node
// graph of the whole input first (hundreds of bytes per node, before any limit applied) and shares
// aliased nodes, so a small document could still expand to gigabytes when walked; here every
// value is produced as its event arrives and each limit is checked before the work it bounds.
#include "core/yaml/yaml.h"

#include "core/yaml/yaml_p.h"

#include <yaml-cpp/depthguard.h>
#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/exceptions.h>
#include <yaml-cpp/mark.h>
#include <yaml-cpp/parser.h>

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <istream>
#include <memory>
#include <streambuf>
#include <unordered_map>

namespace fieldscope::core {

namespace yamldetail {
namespace {

bool isDigit(char c)
{
    return c >= '0' && c <= '9';
}
bool isHex(char c)
{
    return isDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}
template<class Pred>
bool allOf(std::string_view s, Pred pred)
{
    for (char c : s)
        if (!pred(c))
            return false;
    return true;
}

// (\.[0-9]+|[0-9][0-9_]*(\.[0-9_]*)?)([eE][-+]?[0-9]+)?  -- the character classes around each
// optional part are disjoint, so a greedy scan decides exactly what the regex did.
bool isFloatBody(std::string_view b)
{
    std::size_t p = 0;
    const std::size_t n = b.size();
    auto digitsOrUnderscore = [&] {
        while (p < n && (isDigit(b[p]) || b[p] == '_'))
            ++p;
    };
    if (p < n && b[p] == '.') {
        const std::size_t start = ++p;
        while (p < n && isDigit(b[p]))
            ++p;
        if (p == start)
            return false;
    } else if (p < n && isDigit(b[p])) {
        ++p;
        digitsOrUnderscore();
        if (p < n && b[p] == '.') {
            ++p;
            digitsOrUnderscore();
        }
    } else {
        return false;
    }
    if (p < n && (b[p] == 'e' || b[p] == 'E')) {
        ++p;
        if (p < n && (b[p] == '+' || b[p] == '-'))
            ++p;
        const std::size_t start = p;
        while (p < n && isDigit(b[p]))
            ++p;
        if (p == start)
            return false;
    }
    return p == n;
}

bool oneOf(std::string_view s, std::initializer_list<std::string_view> words)
{
    for (auto w : words)
        if (s == w)
            return true;
    return false;
}

} // namespace

PlainKind classifyPlain(std::string_view s)
{
    if (s.empty() || oneOf(s, {"~", "null", "Null", "NULL"}))
        return PlainKind::Null;
    if (oneOf(s, {"true", "True", "TRUE"}))
        return PlainKind::True;
    if (oneOf(s, {"false", "False", "FALSE"}))
        return PlainKind::False;
    if (oneOf(s, {"yes", "Yes", "YES", "on", "On", "ON", "y", "Y"}))
        return PlainKind::YesTrue;
    if (oneOf(s, {"no", "No", "NO", "off", "Off", "OFF", "n", "N"}))
        return PlainKind::NoFalse;
    const std::string_view b = s.substr(s[0] == '-' || s[0] == '+' ? 1 : 0);
    if (b.empty())
        return PlainKind::String;
    if (b == "0" || (b[0] >= '1' && b[0] <= '9' && allOf(b.substr(1), [](char c) { return isDigit(c) || c == '_'; })))
        return PlainKind::Int;
    if (b.size() >= 2 && b[0] == '0' && allOf(b.substr(1), [](char c) { return (c >= '0' && c <= '7') || c == '_'; }))
        return PlainKind::Octal;
    if (b.size() >= 3 && b[0] == '0' && b[1] == 'x' && allOf(b.substr(2), [](char c) { return isHex(c) || c == '_'; }))
        return PlainKind::Hex;
    if (isFloatBody(b))
        return PlainKind::Float;
    if (oneOf(b, {".inf", ".Inf", ".INF"}) || oneOf(s, {".nan", ".NaN", ".NAN"}))
        return PlainKind::Special;
    return PlainKind::String;
}

} // namespace yamldetail

namespace {

using yamldetail::PlainKind;

std::string where(const YAML::Mark &m)
{
    return "line " + std::to_string(m.line + 1) + ", column " + std::to_string(m.column + 1);
}

// Thrown from the event handler to stop yaml-cpp's parser at the first error; caught below.
struct Stop {
    Error error;
};

Json toInt(std::string_view text, int base)
{
    std::string digits(text);
    std::erase(digits, '_');
    bool neg = false;
    if (!digits.empty() && (digits[0] == '-' || digits[0] == '+')) {
        neg = digits[0] == '-';
        digits.erase(0, 1);
    }
    if (base == 16)
        digits.erase(0, 2);
    std::int64_t v = 0;
    auto [p, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), v, base);
    if (ec != std::errc() || p != digits.data() + digits.size())
        return std::string(text); // out of range: keep the text rather than lose digits
    return neg ? -v : v;
}

// YAML 1.1 resolution of an untagged plain scalar, as go-yaml v2 does it.
Json plainScalar(const std::string &s, const YAML::Mark &mark, std::vector<std::string> &warnings)
{
    switch (yamldetail::classifyPlain(s)) {
    case PlainKind::Null: return nullptr;
    case PlainKind::True: return true;
    case PlainKind::False: return false;
    case PlainKind::YesTrue:
        warnings.push_back(where(mark) + ": '" + s
                           + "' was read as the boolean true (YAML 1.1); quote it for a string");
        return true;
    case PlainKind::NoFalse:
        warnings.push_back(where(mark) + ": '" + s
                           + "' was read as the boolean false (YAML 1.1); quote it for a string");
        return false;
    case PlainKind::Int: return toInt(s, 10);
    case PlainKind::Octal:
        warnings.push_back(where(mark) + ": '" + s + "' was read as an octal number (YAML 1.1); quote it for a string");
        return toInt(s, 8);
    case PlainKind::Hex: return toInt(s, 16);
    case PlainKind::Float: {
        std::string d = s;
        std::erase(d, '_');
        errno = 0;
        const double v = std::strtod(d.c_str(), nullptr);
        // Out of a double's range (828e808000, 1e-400): a string, as go-yaml (kubectl) reads it,
        // not an infinity JSON cannot hold (found by fuzz_yaml: it came back as null).
        if (errno == ERANGE) {
            warnings.push_back(where(mark) + ": '" + s + "' is out of a number's range; kept as a string");
            return s;
        }
        return v;
    }
    case PlainKind::Special:
        warnings.push_back(where(mark) + ": '" + s + "' is not representable in JSON; kept as a string");
        return s;
    case PlainKind::String: break;
    }
    return s;
}

// Offset of the first byte that is not part of well-formed UTF-8 (no overlongs, surrogates or
// code points above U+10FFFF), or npos.
std::size_t invalidUtf8At(std::string_view s)
{
    const auto *p = reinterpret_cast<const unsigned char *>(s.data());
    const std::size_t n = s.size();
    std::size_t i = 0;
    while (i < n) {
        const unsigned char c = p[i];
        if (c < 0x80) {
            ++i;
            continue;
        }
        std::size_t len = 0;
        unsigned char lo = 0x80, hi = 0xBF; // allowed range of the second byte
        if (c >= 0xC2 && c <= 0xDF)
            len = 2;
        else if (c >= 0xE0 && c <= 0xEF) {
            len = 3;
            lo = c == 0xE0 ? 0xA0 : 0x80;
            hi = c == 0xED ? 0x9F : 0xBF;
        } else if (c >= 0xF0 && c <= 0xF4) {
            len = 4;
            lo = c == 0xF0 ? 0x90 : 0x80;
            hi = c == 0xF4 ? 0x8F : 0xBF;
        } else {
            return i;
        }
        if (i + len > n || p[i + 1] < lo || p[i + 1] > hi)
            return i;
        for (std::size_t k = 2; k < len; ++k)
            if ((p[i + k] & 0xC0) != 0x80)
                return i;
        i += len;
    }
    return std::string_view::npos;
}

// yaml-cpp reads UTF-16 and UTF-32 (it looks for NUL bytes and byte order marks in the first
// four bytes) and re-encodes them as valid UTF-8; anything else it passes through byte for byte.
bool yamlCppReadsAsUtf8(std::string_view s)
{
    if (s.size() >= 2 && ((s[0] == '\xFE' && s[1] == '\xFF') || (s[0] == '\xFF' && s[1] == '\xFE')))
        return false;
    for (std::size_t i = 0; i < s.size() && i < 4; ++i)
        if (s[i] == '\0')
            return false;
    return true;
}

// A read-only streambuf over the caller's bytes: yaml-cpp wants an istream, and a copy of a
// 16 MiB input would be wasted.
struct ViewBuf : std::streambuf {
    explicit ViewBuf(std::string_view text)
    {
        char *b = const_cast<char *>(text.data()); // never written: the get area only
        setg(b, b, b + text.size());
    }
};

class Builder : public YAML::EventHandler
{
public:
    Builder(const YamlLimits &limits, std::vector<std::string> &warnings, YamlLineMap *lines = nullptr)
        : m_limits(limits), m_warnings(warnings), m_lines(lines)
    {
    }

    std::vector<Json> documents;

    void OnDocumentStart(const YAML::Mark &) override
    {
        m_stack.clear();
        m_anchors.clear();
        m_root = Json();
        m_haveRoot = false;
    }
    void OnDocumentEnd() override
    {
        if (m_haveRoot && !m_root.is_null())
            documents.push_back(std::move(m_root));
    }

    void OnNull(const YAML::Mark &mark, YAML::anchor_t anchor) override
    {
        if (expectingKey())
            fail("a mapping key must be a scalar", mark);
        deliverScalar(Json(nullptr), std::string(), anchor, mark);
    }

    void OnScalar(const YAML::Mark &mark, const std::string &tag, YAML::anchor_t anchor,
                  const std::string &value) override
    {
        // UTF-16/32 input (yaml-cpp guesses the encoding from the first bytes, a BOM or NULs)
        // decodes to any code point, surrogates and values past U+10FFFF too, and yaml-cpp turns
        // a NUL in valid UTF-8 into a stray byte: such a string could be shown but never read
        // back, so it is refused here, whatever the input encoding (found by fuzz_yaml).
        if (invalidUtf8At(value) != std::string_view::npos)
            fail("the text decodes to invalid characters (it is neither UTF-8 nor valid UTF-16/32)", mark);
        if (expectingKey()) {
            setKey(value, mark, tag == "!");
            recordAnchor(anchor, Json(value), value, 1, value.size(), 0, mark);
            return;
        }
        Json v;
        if (tag == "?" || tag.empty() || tag == "tag:yaml.org,2002:int" || tag == "tag:yaml.org,2002:float"
            || tag == "tag:yaml.org,2002:bool" || tag == "tag:yaml.org,2002:null")
            v = plainScalar(value, mark, m_warnings);
        else // "!", !!str and unknown tags: the text as written
            v = value;
        deliverScalar(std::move(v), value, anchor, mark);
    }

    void OnAlias(const YAML::Mark &mark, YAML::anchor_t anchor) override
    {
        auto it = m_anchors.find(anchor);
        if (it == m_anchors.end() || !it->second.value)
            fail("an alias refers to a node that contains it", mark);
        const Anchored &a = it->second;
        if (expectingKey()) {
            if (!a.isScalar)
                fail("a mapping key must be a scalar", mark);
            setKey(a.rawScalar, mark);
            return;
        }
        // The whole budget is checked before the copy that would spend it.
        charge(a.nodes, a.bytes, mark);
        if (m_stack.size() + a.depth > std::size_t(m_limits.maxDepth))
            fail("nesting deeper than " + std::to_string(m_limits.maxDepth), mark);
        noteLine(mark);
        deliver(Json(*a.value), mark);
    }

    void OnSequenceStart(const YAML::Mark &mark, const std::string &, YAML::anchor_t anchor,
                         YAML::EmitterStyle::value) override
    {
        open(Json::array(), anchor, mark);
    }
    void OnSequenceEnd() override { close(); }
    void OnMapStart(const YAML::Mark &mark, const std::string &, YAML::anchor_t anchor,
                    YAML::EmitterStyle::value) override
    {
        open(Json::object(), anchor, mark);
    }
    void OnMapEnd() override { close(); }

private:
    struct Frame {
        Json value;
        YAML::anchor_t anchor = 0;
        YAML::Mark mark;
        std::size_t nodesAtStart = 0, bytesAtStart = 0;
        bool haveKey = false;
        std::string key;
        std::string pointer; // JSON Pointer of this container (only when lines are recorded)
    };
    struct Anchored {
        std::shared_ptr<const Json> value; // null while the anchored node is still open
        std::string rawScalar;             // scalars: the text, for use as a mapping key
        bool isScalar = false;
        std::size_t nodes = 0, bytes = 0, depth = 0;
    };

    [[noreturn]] static void fail(const std::string &why, const YAML::Mark &mark)
    {
        throw Stop{Error::make(ErrorCategory::Parse, why, where(mark))};
    }

    bool expectingKey() const
    {
        return !m_stack.empty() && m_stack.back().value.is_object() && !m_stack.back().haveKey;
    }

    void charge(std::size_t nodes, std::size_t bytes, const YAML::Mark &mark)
    {
        m_nodes += nodes;
        m_bytes += bytes;
        if (m_nodes > m_limits.maxNodes)
            fail("document expands to more than " + std::to_string(m_limits.maxNodes) + " nodes (alias bomb?)", mark);
        if (m_bytes > m_limits.maxExpandedBytes)
            fail("document expands to more than " + std::to_string(m_limits.maxExpandedBytes)
                     + " bytes of text (alias bomb?)",
                 mark);
    }

    // `quoted`: "<<" in quotes is an ordinary key; plain, it is YAML 1.1's merge key.
    void setKey(const std::string &key, const YAML::Mark &mark, bool quoted = false)
    {
        Frame &f = m_stack.back();
        if (key == "<<" && !quoted)
            fail("merge keys (<<) are not supported", mark);
        if (f.value.contains(key))
            fail("duplicate key \"" + key + "\"", mark);
        charge(0, key.size(), mark);
        f.key = key;
        f.haveKey = true;
        if (m_lines) // a member's line is its key's line: where a reader looks for it
            m_lines->emplace(childPointer(), int(mark.line) + 1);
    }

    // The pointer the next value delivered to the open container will have.
    std::string childPointer() const
    {
        if (m_stack.empty())
            return std::string();
        const Frame &f = m_stack.back();
        if (f.value.is_array())
            return f.pointer + "/" + std::to_string(f.value.size());
        return f.pointer + "/" + jsonPointerEscape(f.key);
    }

    // Records where a value starts, unless its key already gave its line.
    void noteLine(const YAML::Mark &mark)
    {
        if (m_lines && (m_stack.empty() || m_stack.back().value.is_array()))
            m_lines->emplace(childPointer(), int(mark.line) + 1);
    }

    void recordAnchor(YAML::anchor_t anchor, const Json &value, const std::string &raw, std::size_t nodes,
                      std::size_t bytes, std::size_t depth, const YAML::Mark &)
    {
        if (anchor == 0)
            return;
        Anchored &a = m_anchors[anchor];
        a.value = std::make_shared<const Json>(value);
        a.rawScalar = raw;
        a.isScalar = !value.is_structured();
        a.nodes = nodes;
        a.bytes = bytes;
        a.depth = depth;
    }

    void deliverScalar(Json v, const std::string &raw, YAML::anchor_t anchor, const YAML::Mark &mark)
    {
        charge(1, raw.size(), mark);
        recordAnchor(anchor, v, raw, 1, raw.size(), 0, mark);
        noteLine(mark);
        deliver(std::move(v), mark);
    }

    // Hands a finished value to the open container (or makes it the document).
    void deliver(Json v, const YAML::Mark &mark)
    {
        if (m_stack.empty()) {
            m_root = std::move(v);
            m_haveRoot = true;
            return;
        }
        Frame &f = m_stack.back();
        if (f.value.is_array()) {
            f.value.push_back(std::move(v));
            return;
        }
        if (!f.haveKey)
            fail("a mapping key must be a scalar", mark);
        f.value[f.key] = std::move(v);
        f.haveKey = false;
    }

    void open(Json container, YAML::anchor_t anchor, const YAML::Mark &mark)
    {
        if (expectingKey())
            fail("a mapping key must be a scalar", mark);
        charge(1, 0, mark);
        if (m_stack.size() >= std::size_t(m_limits.maxDepth))
            fail("nesting deeper than " + std::to_string(m_limits.maxDepth), mark);
        if (anchor != 0)
            m_anchors[anchor] = Anchored{}; // open: an alias to it now would be a cycle
        noteLine(mark);
        std::string pointer = m_lines ? childPointer() : std::string();
        m_stack.push_back(Frame{
            std::move(container), anchor, mark, m_nodes - 1, m_bytes, false, {}, std::move(pointer)});
    }

    void close()
    {
        Frame f = std::move(m_stack.back());
        m_stack.pop_back();
        if (f.anchor != 0)
            recordAnchor(f.anchor, f.value, std::string(), m_nodes - f.nodesAtStart, m_bytes - f.bytesAtStart,
                         jsonDepth(f.value), f.mark);
        deliver(std::move(f.value), f.mark);
    }

    const YamlLimits &m_limits;
    std::vector<std::string> &m_warnings;
    YamlLineMap *m_lines;
    std::vector<Frame> m_stack;
    std::unordered_map<YAML::anchor_t, Anchored> m_anchors;
    Json m_root;
    bool m_haveRoot = false;
    std::size_t m_nodes = 0, m_bytes = 0; // for the whole input: limits are per input, not per document
};

Result<std::vector<Json>> parseAll(std::string_view text, const YamlLimits &limits, std::vector<std::string> &warnings,
                                   YamlLineMap *lines = nullptr)
{
    if (text.size() > limits.maxBytes)
        return Error::make(ErrorCategory::Parse, "input larger than " + std::to_string(limits.maxBytes) + " bytes");
    if (yamlCppReadsAsUtf8(text))
        if (const std::size_t bad = invalidUtf8At(text); bad != std::string_view::npos)
            return Error::make(ErrorCategory::Parse, "invalid UTF-8", "byte " + std::to_string(bad + 1));
    Builder builder(limits, warnings, lines);
    try {
        ViewBuf buf(text);
        std::istream in(&buf);
        YAML::Parser parser(in);
        // Every document consumes input, so more documents than bytes means yaml-cpp is stuck:
        // fuzz_yaml found 22 bytes of UTF-32-looking input on which it reports empty documents
        // forever.
        std::size_t calls = 0;
        while (parser.HandleNextDocument(builder)) {
            if (++calls > text.size() + 1)
                return Error::make(ErrorCategory::Parse,
                                   "the YAML reader made no progress on this input (is it text?)");
        }
    } catch (const Stop &s) {
        return s.error;
    } catch (const YAML::DeepRecursion &e) { // a caller's maxDepth above yaml-cpp's own guard
        return Error::make(ErrorCategory::Parse, "YAML nested deeper than " + std::to_string(kMaxYamlDepth) + " levels",
                           e.mark.is_null() ? std::string() : where(e.mark));
    } catch (const YAML::Exception &e) {
        return Error::make(ErrorCategory::Parse, e.msg, e.mark.is_null() ? std::string() : where(e.mark));
    } catch (const std::exception &e) { // bad_alloc, or a library surprise: this input fails, we go on
        return Error::make(ErrorCategory::Parse, std::string("YAML: ") + e.what());
    }
    return std::move(builder.documents);
}

} // namespace

namespace {
// Exactly one document; `lines` (may be null) records where each value came from.
Result<YamlParseResult> oneDocument(std::string_view text, const YamlLimits &limits, YamlLineMap *lines)
{
    YamlParseResult out;
    auto docs = parseAll(text, limits, out.warnings, lines);
    if (!docs)
        return docs.error();
    if (docs->empty())
        return Error::make(ErrorCategory::Parse, "the document is empty");
    if (docs->size() > 1)
        return Error::make(ErrorCategory::Parse, "expected one YAML document, found " + std::to_string(docs->size()));
    out.value = std::move(docs->front());
    return out;
}
} // namespace

Result<YamlParseResult> yamlToJson(std::string_view text, const YamlLimits &limits)
{
    return oneDocument(text, limits, nullptr);
}

Result<YamlParseResult> yamlToJsonWithLines(std::string_view text, YamlLineMap &lines, const YamlLimits &limits)
{
    return oneDocument(text, limits, &lines);
}

Result<std::vector<Json>> yamlDocumentsToJson(std::string_view text, const YamlLimits &limits,
                                              std::vector<std::string> *warnings)
{
    return parseAll(text, limits, *warnings);
}

Result<std::vector<Json>> yamlDocumentsToJson(std::string_view text, const YamlLimits &limits)
{
    std::vector<std::string> ignored;
    return parseAll(text, limits, ignored);
}

} // namespace fieldscope::core
