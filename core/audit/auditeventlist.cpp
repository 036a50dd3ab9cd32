// EventList bodies and JSON lines of audit events (core/audit/auditevent.h).
#include "core/audit/auditevent.h"
#include "core/audit/auditevent_p.h"

#include <algorithm>
#include <optional>

namespace fieldscope::core {

namespace {

bool isSpace(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

std::size_t skipSpace(std::string_view s, std::size_t i)
{
    while (i < s.size() && isSpace(s[i]))
        ++i;
    return i;
}

// End (one past) of the JSON value starting at i. The text was validated as JSON beforehand, so
// this only needs to respect strings and brackets; it never recurses.
std::size_t valueEnd(std::string_view s, std::size_t i)
{
    if (i >= s.size())
        return s.size();
    if (s[i] != '"' && s[i] != '{' && s[i] != '[') {
        while (i < s.size() && s[i] != ',' && s[i] != '}' && s[i] != ']' && !isSpace(s[i]))
            ++i;
        return i;
    }
    std::size_t depth = 0;
    bool inString = false;
    for (; i < s.size(); ++i) {
        const char c = s[i];
        if (inString) {
            if (c == '\\')
                ++i;
            else if (c == '"') {
                inString = false;
                if (depth == 0)
                    return i + 1;
            }
        } else if (c == '"') {
            inString = true;
        } else if (c == '{' || c == '[') {
            ++depth;
        } else if (c == '}' || c == ']') {
            if (--depth == 0)
                return i + 1;
        }
    }
    return s.size();
}

struct ListScan {
    std::string kind;
    std::string apiVersion;
    std::vector<std::string_view> items;
    bool itemsNotArray = false;
    bool tooManyItems = false;
};

std::string stringOrEmpty(std::string_view text)
{
    auto v = parseJson(text, 2);
    return v.ok() && v->is_string() ? v->get<std::string>() : std::string();
}

// The top-level keys of a validated JSON object: kind, apiVersion and the spans of items[].
void scanList(std::string_view s, ListScan &scan)
{
    std::size_t i = skipSpace(s, 0);
    if (i >= s.size() || s[i] != '{')
        return;
    i = skipSpace(s, i + 1);
    while (i < s.size() && s[i] == '"') {
        const std::size_t keyEnd = valueEnd(s, i);
        const std::string key = stringOrEmpty(s.substr(i, keyEnd - i));
        i = skipSpace(s, keyEnd);
        i = skipSpace(s, i + 1); // ':'
        const std::size_t end = valueEnd(s, i);
        const std::string_view value = s.substr(i, end - i);
        if (key == "kind") {
            scan.kind = stringOrEmpty(value);
        } else if (key == "apiVersion") {
            scan.apiVersion = stringOrEmpty(value);
        } else if (key == "items") {
            scan.items.clear(); // a repeated key: the last one counts, as in a DOM parse
            scan.itemsNotArray = value != "null" && (value.empty() || value[0] != '[');
            std::size_t j = value.empty() || value[0] != '[' ? value.size() : skipSpace(value, 1);
            while (j < value.size() && value[j] != ']' && !scan.tooManyItems) {
                const std::size_t itemEnd = valueEnd(value, j);
                if (scan.items.size() == kMaxAuditListItems)
                    scan.tooManyItems = true;
                else
                    scan.items.push_back(value.substr(j, itemEnd - j));
                j = skipSpace(value, itemEnd);
                if (j < value.size() && value[j] == ',')
                    j = skipSpace(value, j + 1);
            }
        }
        i = skipSpace(s, end);
        if (i < s.size() && s[i] == ',')
            i = skipSpace(s, i + 1);
    }
}

Error tooLargeList(std::size_t size)
{
    return Error::make(ErrorCategory::Parse, "audit EventList body is " + std::to_string(size)
                                                 + " bytes, more than the limit of "
                                                 + std::to_string(kMaxAuditListBytes));
}

// The indexed path checks a body piece by piece (each member's key and value, each item) instead
// of validating it whole first: a body whose pieces are each valid JSON and whose punctuation
// between them is valid is valid as a whole, and each item's check is the index it is read from.
enum class Piece {
    Indexed, // valid, and `index` holds it
    Valid,   // valid, but not something JsonIndex models (a repeated key, deep nesting): the DOM reads it
    Unsure,  // invalid, or not known to be valid: the whole body goes to the DOM path
};

// Whether `text` is JSON, validated without a DOM (nlohmann's SAX parser keeps an explicit
// stack: no recursion). nlohmann takes a NUL for the end of the text: refused first, as parseJson
// does (core/base/json.cpp).
bool acceptsAsJson(std::string_view text)
{
    if (text.find('\0') != std::string_view::npos)
        return false;
    try {
        return Json::accept(text.begin(), text.end());
    } catch (const std::exception &) {
        return false;
    }
}

Piece checkPiece(std::string_view piece, JsonIndex &index)
{
    // A piece above the event limit is only validated (an item that large is skipped unread), so
    // the index's memory follows the limit, not the body.
    if (piece.size() <= kMaxAuditEventBytes) {
        const JsonIndex::Status status = index.build(std::string(piece));
        if (status == JsonIndex::Status::Ok)
            return Piece::Indexed;
        if (status == JsonIndex::Status::Invalid)
            return Piece::Unsure;
    }
    // A container's end is fixed by its brackets; a scalar could start with a byte order mark,
    // which nlohmann skips at the start of a text but not inside a body.
    if (piece.empty() || (piece[0] != '{' && piece[0] != '['))
        return Piece::Unsure;
    return acceptsAsJson(piece) ? Piece::Valid : Piece::Unsure;
}

void decodeItem(std::string_view item, std::size_t k, const JsonIndex *indexed, AuditDecodeResult &out)
{
    if (indexed && item.size() <= kMaxAuditEventBytes)
        if (auto event = decodeIndexedAuditEvent(*indexed, true)) {
            out.events.push_back(std::move(*event));
            return;
        }
    // Not a well-formed event: the DOM decoder skips it with the problem it always named.
    if (item.size() > kMaxAuditEventBytes)
        ++out.tooLarge;
    auto event = decodeAuditEventTextDom(item, "items[" + std::to_string(k) + "]", true);
    if (event.ok())
        out.events.push_back(std::move(*event));
    else
        out.skip(event.error().message);
}

// items[] from s[i] (its '['), each item checked and decoded as it passes; the end of the array,
// or nullopt when the body is not certainly valid or holds more than kMaxAuditListItems items.
std::optional<std::size_t> decodeItems(std::string_view s, std::size_t i, JsonIndex &index, AuditDecodeResult &out)
{
    std::size_t j = skipSpace(s, i + 1);
    if (j < s.size() && s[j] == ']')
        return j + 1;
    for (std::size_t k = 0;; ++k) {
        if (k == kMaxAuditListItems)
            return std::nullopt; // the DOM path refuses the body, naming the limit
        const std::size_t itemEnd = valueEnd(s, j);
        const std::string_view item = s.substr(j, itemEnd - j);
        const Piece piece = checkPiece(item, index);
        if (piece == Piece::Unsure)
            return std::nullopt;
        decodeItem(item, k, piece == Piece::Indexed ? &index : nullptr, out);
        j = skipSpace(s, itemEnd);
        if (j < s.size() && s[j] == ',') {
            j = skipSpace(s, j + 1);
            continue;
        }
        if (j < s.size() && s[j] == ']')
            return j + 1;
        return std::nullopt;
    }
}

// One top-level member's value from s[i]: items decoded, kind and apiVersion read, any other
// member only checked. The end of the value, or nullopt when the body is not certainly valid.
std::optional<std::size_t> memberValue(std::string_view s, std::size_t i, const std::string &key, JsonIndex &index,
                                       std::string &kind, std::string &apiVersion, AuditDecodeResult &out)
{
    if (key == "items" && i < s.size() && s[i] == '[')
        return decodeItems(s, i, index, out);
    const std::size_t end = valueEnd(s, i);
    const std::string_view value = s.substr(i, end - i);
    if (key == "items")
        return value == "null" ? std::optional<std::size_t>(end) : std::nullopt; // else the DOM path refuses it
    const Piece piece = checkPiece(value, index);
    if (piece == Piece::Unsure)
        return std::nullopt;
    if (key != "kind" && key != "apiVersion")
        return end;
    if (piece != Piece::Indexed || index.nodes().front().type != JsonIndex::Type::String)
        return std::nullopt;
    (key == "kind" ? kind : apiVersion) = index.stringAt(0);
    return end;
}

// The webhook's hot path: an EventList in the shape the API server writes (an object of distinct
// keys), each piece checked by the index it is read from, so the body is lexed once and no DOM
// is built. nullopt when the body is not certainly a valid EventList within the bounds: the DOM
// path then decides, with the errors it always gave.
std::optional<AuditDecodeResult> decodeIndexedEventList(std::string_view s)
{
    JsonIndex index;
    std::vector<std::string> keys;
    std::string kind, apiVersion;
    AuditDecodeResult out;
    std::size_t i = skipSpace(s, 0);
    if (i >= s.size() || s[i] != '{')
        return std::nullopt;
    i = skipSpace(s, i + 1);
    for (;;) {
        if (i >= s.size() || s[i] != '"')
            return std::nullopt;
        const std::size_t keyEnd = valueEnd(s, i);
        if (checkPiece(s.substr(i, keyEnd - i), index) != Piece::Indexed)
            return std::nullopt;
        std::string key = index.stringAt(0);
        if (std::find(keys.begin(), keys.end(), key) != keys.end())
            return std::nullopt; // a repeated key: the last one counts, as the DOM path reads it
        i = skipSpace(s, keyEnd);
        if (i >= s.size() || s[i] != ':')
            return std::nullopt;
        const auto end = memberValue(s, skipSpace(s, i + 1), key, index, kind, apiVersion, out);
        if (!end)
            return std::nullopt;
        keys.push_back(std::move(key));
        i = skipSpace(s, *end);
        if (i < s.size() && s[i] == ',') {
            i = skipSpace(s, i + 1);
            continue;
        }
        if (i >= s.size() || s[i] != '}' || skipSpace(s, i + 1) != s.size())
            return std::nullopt;
        break;
    }
    if (kind != "EventList" || apiVersion != "audit.k8s.io/v1")
        return std::nullopt;
    return out;
}

} // namespace

Result<AuditDecodeResult> decodeAuditEventList(std::string_view body)
{
    if (body.size() > kMaxAuditListBytes)
        return tooLargeList(body.size());
    if (auto indexed = decodeIndexedEventList(body))
        return std::move(*indexed);
    return decodeAuditEventListDom(body);
}

Result<AuditDecodeResult> decodeAuditEventListDom(std::string_view body)
{
    if (body.size() > kMaxAuditListBytes)
        return tooLargeList(body.size());
    // Validated without a DOM, so a body of many small items costs no memory beyond the item
    // being decoded.
    if (!acceptsAsJson(body))
        return Error::make(ErrorCategory::Parse, "audit EventList body is not JSON");
    ListScan scan;
    scanList(body, scan);
    if (scan.kind != "EventList" || scan.apiVersion != "audit.k8s.io/v1")
        return Error::make(ErrorCategory::Parse, "not an audit.k8s.io/v1 EventList");
    if (scan.itemsNotArray)
        return Error::make(ErrorCategory::Parse, "audit EventList: items is not an array");
    if (scan.tooManyItems)
        return Error::make(ErrorCategory::Parse,
                           "audit EventList has more than " + std::to_string(kMaxAuditListItems) + " items");
    AuditDecodeResult out;
    out.events.reserve(scan.items.size());
    for (std::size_t k = 0; k < scan.items.size(); ++k) {
        const std::string where = "items[" + std::to_string(k) + "]";
        if (scan.items[k].size() > kMaxAuditEventBytes)
            ++out.tooLarge;
        auto event = decodeAuditEventText(scan.items[k], where, true);
        if (event.ok())
            out.events.push_back(std::move(*event));
        else
            out.skip(event.error().message);
    }
    return out;
}

AuditDecodeResult decodeAuditLines(std::string_view text, std::int64_t firstLine)
{
    AuditDecodeResult out;
    JsonIndex scratch;
    std::int64_t line = firstLine;
    while (!text.empty()) {
        const std::size_t nl = text.find('\n');
        std::string_view l = text.substr(0, nl);
        text = nl == std::string_view::npos ? std::string_view() : text.substr(nl + 1);
        if (!l.empty() && l.back() == '\r')
            l.remove_suffix(1);
        const std::size_t first = skipSpace(l, 0);
        if (first < l.size()) {
            const std::string where = "line " + std::to_string(line);
            if (l.size() > kMaxAuditEventBytes)
                ++out.tooLarge;
            auto event = decodeAuditEventText(l, where, false, scratch);
            if (event.ok())
                out.events.push_back(std::move(*event));
            else
                out.skip(event.error().message);
        }
        ++line;
    }
    return out;
}

void AuditLineDecoder::takeLine(std::string_view line, AuditDecodeResult &out)
{
    AuditDecodeResult one = decodeAuditLines(line, m_line);
    for (auto &e : one.events)
        out.events.push_back(std::move(e));
    out.tooLarge += one.tooLarge;
    out.skipped += one.skipped;
    for (auto &p : one.problems)
        if (out.problems.size() < kMaxAuditProblems)
            out.problems.push_back(std::move(p));
    ++m_line;
}

void AuditLineDecoder::feed(std::string_view bytes, AuditDecodeResult &out)
{
    while (!bytes.empty()) {
        const std::size_t nl = bytes.find('\n');
        const std::string_view piece = bytes.substr(0, nl);
        bytes = nl == std::string_view::npos ? std::string_view() : bytes.substr(nl + 1);
        if (!m_overlong && m_partial.size() + piece.size() > kMaxAuditEventBytes + 1) { // +1: a '\r'
            m_overlong = true;
            m_partial.clear();
            m_partial.shrink_to_fit();
        }
        if (!m_overlong)
            m_partial.append(piece);
        if (nl == std::string_view::npos)
            return;
        if (m_overlong) {
            ++out.tooLarge;
            out.skip("audit event line " + std::to_string(m_line) + " is more than "
                     + std::to_string(kMaxAuditEventBytes) + " bytes");
            ++m_line;
        } else {
            takeLine(m_partial, out);
        }
        m_partial.clear();
        m_overlong = false;
    }
}

void AuditLineDecoder::finish(AuditDecodeResult &out)
{
    if (m_overlong || !m_partial.empty())
        feed("\n", out);
}

} // namespace fieldscope::core
