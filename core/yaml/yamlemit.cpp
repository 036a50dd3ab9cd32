// JSON -> block YAML (kubectl's layout), optionally with the JSON Pointer of every output line.
#include "core/base/visibletext.h"
#include "core/yaml/yaml.h"
#include "core/yaml/yaml_p.h"

namespace fieldscope::core {
namespace {

using yamldetail::PlainKind;

bool isInfOrNan(std::string_view s)
{
    if (!s.empty() && (s[0] == '+' || s[0] == '-'))
        s.remove_prefix(1);
    if (s.size() != 4 || s[0] != '.')
        return false;
    std::string lower;
    for (char c : s.substr(1))
        lower += char(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
    return lower == "inf" || lower == "nan";
}

// Whether a plain scalar would not read back as this string: anything YAML 1.1 resolves to
// another type (the reader's own rules, so the two cannot drift apart), YAML syntax characters,
// and surrounding or control whitespace.
// Bidi overrides, C1 controls and invisible characters (core/base/visibletext.h) in UTF-8 text.
bool hasInvisibles(const std::string &s)
{
    for (unsigned char c : s)
        if (c >= 0x80) // all of them are outside ASCII: only then is the full check needed
            return visibleEscapes(s) != s;
    return false;
}

bool isDigit(char c)
{
    return c >= '0' && c <= '9';
}

// YAML 1.1 reads more plain scalars as non-strings than our reader does (it keeps them strings):
// timestamps and dates ("2021-11-12T11:13:20Z", "2021-11-12") and base-60 numbers ("22:30" is
// 1350). kubectl quotes them so that every YAML 1.1 reader gets the string back; so do we. The
// checks are wider than the YAML 1.1 patterns on purpose: an unneeded quote costs nothing.
bool yaml11ReadsAsNonString(const std::string &s)
{
    // yyyy-m[m]-d[d]...: a date, or the start of a timestamp.
    std::size_t i = 0;
    while (i < s.size() && isDigit(s[i]))
        ++i;
    if (i == 4 && i < s.size() && s[i] == '-') {
        std::size_t j = i + 1, n = 0;
        while (j < s.size() && isDigit(s[j]))
            ++j, ++n;
        if (n >= 1 && n <= 2 && j < s.size() && s[j] == '-' && j + 1 < s.size() && isDigit(s[j + 1]))
            return true;
    }
    // [-+]digits(:digits)+[.digits]: sexagesimal int or float.
    std::size_t k = (!s.empty() && (s[0] == '-' || s[0] == '+')) ? 1 : 0;
    const std::size_t start = k;
    while (k < s.size() && (isDigit(s[k]) || s[k] == '_'))
        ++k;
    if (k == start || k >= s.size() || s[k] != ':')
        return false;
    while (k < s.size() && s[k] == ':') {
        const std::size_t digitsAt = ++k;
        while (k < s.size() && isDigit(s[k]))
            ++k;
        if (k == digitsAt)
            return false;
    }
    if (k < s.size() && s[k] == '.') {
        ++k;
        while (k < s.size() && isDigit(s[k]))
            ++k;
    }
    return k == s.size();
}

bool needsQuotes(const std::string &s)
{
    if (s.empty())
        return true;
    if (yamldetail::classifyPlain(s) != PlainKind::String || isInfOrNan(s) || yaml11ReadsAsNonString(s))
        return true;
    const char first = s.front();
    if (std::string_view("-?:,[]{}#&*!|>'\"%@`").find(first) != std::string_view::npos)
        return true;
    if (s.back() == ' ' || first == ' ')
        return true;
    // "..." at the start of a line ends the document (found by fuzz_yaml: a key "... t").
    if (s.rfind("...", 0) == 0)
        return true;
    if (s == "<<") // a merge key when plain, which the reader refuses
        return true;
    if (s.find(": ") != std::string::npos || s.find(" #") != std::string::npos || s.back() == ':')
        return true;
    for (unsigned char c : s)
        if (c < 0x20 || c == 0x7f)
            return true;
    return hasInvisibles(s);
}

std::string quoted(const std::string &s)
{
    // JSON string syntax is valid double-quoted YAML; YAML reads \uXXXX there too, so bidi and
    // invisible characters are written as escapes: the text shows them instead of obeying them
    // (an override would display the rest of the line reversed) and reads back the same.
    return visibleEscapes(Json(s).dump(-1, ' ', false, Json::error_handler_t::replace));
}

std::string scalarText(const Json &v)
{
    if (v.is_null())
        return "null";
    if (v.is_string()) {
        const auto &s = v.get_ref<const std::string &>();
        return needsQuotes(s) ? quoted(s) : s;
    }
    return toJsonText(v);
}

// Longer keys are written as explicit "? key" entries (found by fuzz_yaml: a 1,100-byte key read
// back as "illegal map value").
constexpr std::size_t kMaxImplicitKey = 1000;

std::string keyText(const std::string &key)
{
    return needsQuotes(key) ? quoted(key) : key;
}

void emitBlockString(const std::string &s, int indent, std::string &out)
{
    out += s.back() == '\n' ? "|\n" : "|-\n";
    std::size_t start = 0;
    while (start < s.size()) {
        auto nl = s.find('\n', start);
        const std::string_view line = std::string_view(s).substr(start, nl == std::string::npos ? std::string::npos
                                                                                                : nl - start);
        if (!line.empty()) {
            out.append(std::size_t(indent), ' ');
            out += line;
        }
        out += '\n';
        if (nl == std::string::npos)
            break;
        start = nl + 1;
    }
}

bool isMultilineBlockable(const Json &v)
{
    if (!v.is_string())
        return false;
    const auto &s = v.get_ref<const std::string &>();
    if (s.find('\n') == std::string::npos || s.front() == ' ' || s.front() == '\n')
        return false;
    for (unsigned char c : s)
        if ((c < 0x20 && c != '\n') || c == 0x7f)
            return false;
    if (hasInvisibles(s)) // a block scalar cannot escape them: quoted instead
        return false;
    return s.find(" \n") == std::string::npos && s.find("\n\n\n") == std::string::npos;
}

// Writes block YAML and, when `lines` is set, the JSON Pointer each output line shows. Recursion
// depth follows the value's nesting, which the callers check against kMaxJsonDepth first.
struct Emitter {
    std::string &out;
    std::vector<std::string> *lines = nullptr;
    std::size_t scanned = 0;

    // Attributes every line completed since the last call to `ptr`.
    void claim(const std::string &ptr)
    {
        if (!lines)
            return;
        for (; scanned < out.size(); ++scanned)
            if (out[scanned] == '\n')
                lines->push_back(ptr);
    }

    std::string childPointer(const std::string &ptr, const std::string &token) const
    {
        return lines ? ptr + "/" + jsonPointerEscape(token) : std::string();
    }

    // A scalar, an empty container or a block string after "key:" or "-".
    void inlineValue(const Json &v, int indent, const std::string &ptr)
    {
        out += ' ';
        if (isMultilineBlockable(v)) {
            emitBlockString(v.get_ref<const std::string &>(), indent + 2, out);
        } else {
            out += v.is_object() ? "{}" : v.is_array() ? "[]" : scalarText(v);
            out += '\n';
        }
        claim(ptr);
    }

    void valueAfterKey(const Json &v, int indent, const std::string &ptr)
    {
        if (v.is_object() && !v.empty()) {
            out += '\n';
            claim(ptr);
            emit(v, indent + 2, ptr, false);
        } else if (v.is_array() && !v.empty()) {
            out += '\n';
            claim(ptr);
            emit(v, indent, ptr, false); // kubectl style: list items at the key's indentation
        } else {
            inlineValue(v, indent, ptr);
        }
    }

    void arrayItem(const Json &item, int indent, const std::string &ptr)
    {
        if (item.is_object() && !item.empty()) {
            // First key on the dash line, the rest aligned under it; the dash line shows that key.
            emit(item, indent + 2, ptr, true);
        } else if (item.is_array() && !item.empty()) {
            out += '\n';
            claim(ptr);
            emit(item, indent + 2, ptr, false);
        } else {
            inlineValue(item, indent, ptr);
        }
    }

    // `afterDash`: the first key continues the "-" line of a list item instead of a new line.
    void emit(const Json &v, int indent, const std::string &ptr, bool afterDash)
    {
        if (v.is_object()) {
            bool first = true;
            for (auto it = v.begin(); it != v.end(); ++it) {
                if (first && afterDash)
                    out += ' ';
                else
                    out.append(std::size_t(indent), ' ');
                first = false;
                const std::string key = keyText(it.key());
                if (key.size() > kMaxImplicitKey) { // YAML limits implicit keys to 1024 characters
                    out += "? ";
                    out += key;
                    out += '\n';
                    out.append(std::size_t(indent), ' ');
                } else {
                    out += key;
                }
                out += ':';
                valueAfterKey(it.value(), indent, childPointer(ptr, it.key()));
            }
        } else if (v.is_array()) {
            for (std::size_t i = 0; i < v.size(); ++i) {
                out.append(std::size_t(indent), ' ');
                out += '-';
                arrayItem(v[i], indent, childPointer(ptr, std::to_string(i)));
            }
        } else {
            out.append(std::size_t(indent), ' ');
            out += scalarText(v);
            out += '\n';
            claim(ptr);
        }
    }
};

Status renderable(const Json &value)
{
    return checkJsonDepth(value, "the value to show as YAML");
}

std::string errorComment(const Error &e)
{
    std::string text = e.describe();
    for (auto &c : text)
        if (c == '\n' || c == '\r')
            c = ' ';
    return "# " + text + "\n";
}

} // namespace

Result<std::string> tryJsonToYaml(const Json &value)
{
    if (auto ok = renderable(value); !ok)
        return ok.error();
    std::string out;
    if ((value.is_object() || value.is_array()) && value.empty())
        return std::string(value.is_object() ? "{}\n" : "[]\n");
    Emitter{out}.emit(value, 0, std::string(), false);
    return out;
}

std::string jsonToYaml(const Json &value)
{
    auto y = tryJsonToYaml(value);
    return y ? std::move(*y) : errorComment(y.error());
}

Result<AnnotatedYaml> tryJsonToAnnotatedYaml(const Json &value)
{
    if (auto ok = renderable(value); !ok)
        return ok.error();
    AnnotatedYaml y;
    if ((value.is_object() || value.is_array()) && value.empty()) {
        y.text = value.is_object() ? "{}\n" : "[]\n";
        y.linePointers.emplace_back();
        return y;
    }
    Emitter{y.text, &y.linePointers}.emit(value, 0, std::string(), false);
    return y;
}

AnnotatedYaml jsonToAnnotatedYaml(const Json &value)
{
    auto y = tryJsonToAnnotatedYaml(value);
    if (y)
        return std::move(*y);
    AnnotatedYaml out;
    out.text = errorComment(y.error());
    out.linePointers.emplace_back();
    return out;
}

} // namespace fieldscope::core
