#include "core/base/json.h"

#include <algorithm>
#include <optional>
#include <utility>
#include <vector>

namespace fieldscope::core {
namespace {

// Offset of the bracket that opens level maxDepth + 1, or npos. Brackets inside strings do not
// count; text that is not JSON may be misjudged here, but the parser rejects it anyway, and for
// any text it accepts the bracket depth is the value's depth.
std::size_t tooDeepAt(std::string_view text, int maxDepth)
{
    int depth = 0;
    bool inString = false;
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (inString) {
            if (c == '\\')
                ++i;
            else if (c == '"')
                inString = false;
        } else if (c == '"') {
            inString = true;
        } else if (c == '[' || c == '{') {
            if (++depth > maxDepth)
                return i;
        } else if (c == ']' || c == '}') {
            --depth;
        }
    }
    return std::string_view::npos;
}

bool numbersEqual(const Json &a, const Json &b)
{
    if (a.is_number_float() || b.is_number_float())
        return a.get<double>() == b.get<double>();
    if (a.is_number_unsigned() && b.is_number_unsigned())
        return a.get<std::uint64_t>() == b.get<std::uint64_t>();
    return a.get<std::int64_t>() == b.get<std::int64_t>();
}

// Equal without looking into children: numbers by value, other scalars exactly, containers by
// type and size only (the caller compares their children).
bool shallowEqual(const Json &a, const Json &b)
{
    if (a.is_number() && b.is_number())
        return numbersEqual(a, b);
    if (a.type() != b.type())
        return false;
    if (a.is_structured())
        return a.size() == b.size();
    return a == b;
}

} // namespace

Result<Json> parseJson(std::string_view text, int maxDepth)
{
    // nlohmann takes a NUL byte for the end of the text and would drop everything after it;
    // JSON never holds one raw (a string escapes it), so the text is refused instead.
    if (const std::size_t nul = text.find('\0'); nul != std::string_view::npos)
        return Error::make(ErrorCategory::Parse, "a NUL byte in JSON text", "byte " + std::to_string(nul + 1));
    if (const std::size_t at = tooDeepAt(text, maxDepth); at != std::string_view::npos)
        return Error::make(ErrorCategory::Parse, "JSON nested deeper than " + std::to_string(maxDepth) + " levels",
                           "byte " + std::to_string(at + 1));
    try {
        return Json::parse(text.begin(), text.end());
    } catch (const Json::parse_error &e) {
        return Error::make(ErrorCategory::Parse, e.what(), "byte " + std::to_string(e.byte));
    } catch (const std::exception &e) {
        return Error::make(ErrorCategory::Parse, e.what());
    }
}

std::string toJsonText(const Json &j)
{
    // Replacement instead of throwing on invalid UTF-8 from a user buffer.
    return j.dump(-1, ' ', false, Json::error_handler_t::replace);
}

std::string toJsonText(const Json &j, int indent)
{
    return j.dump(indent, ' ', false, Json::error_handler_t::replace);
}

namespace {

// Depth-first walk with an explicit stack; stops at the first container deeper than maxDepth and
// returns the JSON Pointer of that container (nullopt when none is).
std::optional<std::string> firstTooDeep(const Json &value, std::size_t maxDepth, std::size_t *deepest)
{
    struct Frame {
        const Json *node;
        Json::const_iterator it;
        std::size_t index;
    };
    std::vector<Frame> stack;
    *deepest = 0;
    auto pointer = [&stack] {
        std::string p;
        for (std::size_t i = 0; i + 1 < stack.size(); ++i) {
            const Frame &f = stack[i];
            const std::size_t at = f.index - 1; // index of the child being visited
            p += '/';
            p += f.node->is_object() ? jsonPointerEscape(std::prev(f.it).key()) : std::to_string(at);
        }
        return p;
    };
    if (!value.is_structured())
        return std::nullopt;
    stack.push_back({&value, value.begin(), 0});
    *deepest = 1;
    if (maxDepth < 1)
        return std::string();
    while (!stack.empty()) {
        Frame &f = stack.back();
        if (f.it == f.node->end()) {
            stack.pop_back();
            continue;
        }
        const Json &child = *f.it;
        ++f.it;
        ++f.index;
        if (!child.is_structured())
            continue;
        stack.push_back({&child, child.begin(), 0});
        *deepest = std::max(*deepest, stack.size());
        if (stack.size() > maxDepth)
            return pointer();
    }
    return std::nullopt;
}

} // namespace

std::size_t jsonDepth(const Json &value)
{
    std::size_t deepest = 0;
    (void)firstTooDeep(value, std::size_t(-1), &deepest);
    return deepest;
}

Status checkJsonDepth(const Json &value, const std::string &what, int maxDepth)
{
    std::size_t deepest = 0;
    if (auto at = firstTooDeep(value, std::size_t(std::max(maxDepth, 0)), &deepest))
        return Error::make(ErrorCategory::Parse,
                           what + " is nested deeper than " + std::to_string(maxDepth) + " levels",
                           at->empty() ? std::string("<root>") : *at);
    return success();
}

std::string jsonPointerEscape(std::string_view token)
{
    std::string out;
    out.reserve(token.size());
    for (char c : token) {
        if (c == '~')
            out += "~0";
        else if (c == '/')
            out += "~1";
        else
            out += c;
    }
    return out;
}

std::string jsonPointerUnescape(std::string_view token)
{
    std::string out;
    out.reserve(token.size());
    for (std::size_t i = 0; i < token.size(); ++i) {
        if (token[i] == '~' && i + 1 < token.size() && (token[i + 1] == '0' || token[i + 1] == '1')) {
            out += token[i + 1] == '0' ? '~' : '/';
            ++i;
        } else {
            out += token[i];
        }
    }
    return out;
}

bool jsonEqual(const Json &a, const Json &b)
{
    if (!shallowEqual(a, b))
        return false;
    if (!a.is_structured() || a.empty())
        return true;
    std::vector<std::pair<const Json *, const Json *>> todo{{&a, &b}};
    while (!todo.empty()) {
        const auto [x, y] = todo.back();
        todo.pop_back();
        if (x->is_object()) {
            for (auto it = x->begin(); it != x->end(); ++it) {
                auto o = y->find(it.key());
                if (o == y->end() || !shallowEqual(it.value(), *o))
                    return false;
                if (o->is_structured() && !o->empty())
                    todo.emplace_back(&it.value(), &*o);
            }
        } else {
            for (std::size_t i = 0; i < x->size(); ++i) {
                const Json &l = (*x)[i], &r = (*y)[i];
                if (!shallowEqual(l, r))
                    return false;
                if (r.is_structured() && !r.empty())
                    todo.emplace_back(&l, &r);
            }
        }
    }
    return true;
}

std::string jsonPreview(const Json &v, std::size_t maxChars)
{
    std::string s;
    if (v.is_object())
        s = "{" + std::to_string(v.size()) + (v.size() == 1 ? " key}" : " keys}");
    else if (v.is_array())
        s = "[" + std::to_string(v.size()) + (v.size() == 1 ? " item]" : " items]");
    else if (v.is_string())
        s = v.get<std::string>();
    else
        s = toJsonText(v);
    if (s.size() > maxChars) {
        std::size_t cut = maxChars;
        while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80)
            --cut; // do not split a UTF-8 sequence
        s = s.substr(0, cut) + "…";
    }
    for (auto &c : s)
        if (c == '\n' || c == '\r' || c == '\t')
            c = ' ';
    return s;
}

} // namespace fieldscope::core
