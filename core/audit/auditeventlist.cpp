// EventList bodies and JSON lines of audit events (core/audit/auditevent.h).
#include "core/audit/auditevent.h"

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

} // namespace

Result<AuditDecodeResult> decodeAuditEventList(std::string_view body)
{
    if (body.size() > kMaxAuditListBytes)
        return Error::make(ErrorCategory::Parse, "audit EventList body is " + std::to_string(body.size())
                                                     + " bytes, more than the limit of "
                                                     + std::to_string(kMaxAuditListBytes));
    // Validation without a DOM (nlohmann's SAX parser keeps an explicit stack: no recursion), so a
    // body of many small items costs no memory beyond the item being decoded.
    bool valid = false;
    try {
        valid = Json::accept(body.begin(), body.end());
    } catch (const std::exception &) {
        valid = false;
    }
    if (!valid)
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
            auto event = decodeAuditEventText(l, where);
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
