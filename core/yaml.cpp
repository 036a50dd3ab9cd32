#include "core/yaml.h"

#include <yaml-cpp/yaml.h>

#include <charconv>
#include <cmath>
#include <regex>

namespace fieldscope::core {
namespace {

struct Converter {
    const YamlLimits &limits;
    std::vector<std::string> &warnings;
    std::size_t nodes = 0;

    static std::string where(const YAML::Mark &m)
    {
        return "line " + std::to_string(m.line + 1) + ", column " + std::to_string(m.column + 1);
    }

    // YAML 1.1 resolution of an untagged plain scalar, as go-yaml v2 does it.
    Json plainScalar(const std::string &s, const YAML::Mark &mark)
    {
        static const char *trueWords[] = {"true", "True", "TRUE", "yes", "Yes", "YES", "on", "On", "ON", "y", "Y"};
        static const char *falseWords[] = {"false", "False", "FALSE", "no", "No", "NO", "off", "Off", "OFF", "n", "N"};
        if (s.empty() || s == "~" || s == "null" || s == "Null" || s == "NULL")
            return nullptr;
        for (auto *w : trueWords)
            if (s == w) {
                if (s != "true" && s != "True" && s != "TRUE")
                    warnings.push_back(where(mark) + ": '" + s + "' was read as the boolean true (YAML 1.1); quote it for a string");
                return true;
            }
        for (auto *w : falseWords)
            if (s == w) {
                if (s != "false" && s != "False" && s != "FALSE")
                    warnings.push_back(where(mark) + ": '" + s + "' was read as the boolean false (YAML 1.1); quote it for a string");
                return false;
            }
        static const std::regex intRe(R"([-+]?(0|[1-9][0-9_]*))");
        static const std::regex octRe(R"([-+]?0[0-7_]+)");
        static const std::regex hexRe(R"([-+]?0x[0-9a-fA-F_]+)");
        static const std::regex floatRe(R"([-+]?(\.[0-9]+|[0-9][0-9_]*(\.[0-9_]*)?)([eE][-+]?[0-9]+)?)");
        auto toInt = [&](std::string digits, int base) -> Json {
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
                return s; // out of range: keep the text rather than lose digits
            return neg ? -v : v;
        };
        if (std::regex_match(s, intRe))
            return toInt(s, 10);
        if (std::regex_match(s, octRe)) {
            warnings.push_back(where(mark) + ": '" + s + "' was read as an octal number (YAML 1.1); quote it for a string");
            return toInt(s, 8);
        }
        if (std::regex_match(s, hexRe))
            return toInt(s, 16);
        if (std::regex_match(s, floatRe)) {
            std::string d = s;
            std::erase(d, '_');
            return std::strtod(d.c_str(), nullptr);
        }
        if (s == ".inf" || s == ".Inf" || s == "+.inf" || s == "-.inf" || s == ".nan" || s == ".NaN")
            warnings.push_back(where(mark) + ": '" + s + "' is not representable in JSON; kept as a string");
        return s;
    }

    Result<Json> convert(const YAML::Node &n, int depth)
    {
        if (++nodes > limits.maxNodes)
            return Error::make(ErrorCategory::Parse, "document expands to more than " + std::to_string(limits.maxNodes) + " nodes (alias bomb?)", where(n.Mark()));
        if (depth > limits.maxDepth)
            return Error::make(ErrorCategory::Parse, "nesting deeper than " + std::to_string(limits.maxDepth), where(n.Mark()));
        switch (n.Type()) {
        case YAML::NodeType::Undefined:
        case YAML::NodeType::Null:
            return Json(nullptr);
        case YAML::NodeType::Scalar: {
            const std::string &tag = n.Tag();
            if (tag == "!" || tag == "tag:yaml.org,2002:str" || tag == "!!str")
                return Json(n.Scalar());
            if (tag == "?" || tag.empty())
                return plainScalar(n.Scalar(), n.Mark());
            if (tag == "tag:yaml.org,2002:int" || tag == "tag:yaml.org,2002:float" || tag == "tag:yaml.org,2002:bool" || tag == "tag:yaml.org,2002:null")
                return plainScalar(n.Scalar(), n.Mark());
            return Json(n.Scalar());
        }
        case YAML::NodeType::Sequence: {
            Json arr = Json::array();
            for (const auto &child : n) {
                auto c = convert(child, depth + 1);
                if (!c)
                    return c;
                arr.push_back(std::move(*c));
            }
            return arr;
        }
        case YAML::NodeType::Map: {
            Json obj = Json::object();
            for (const auto &kv : n) {
                if (!kv.first.IsScalar())
                    return Error::make(ErrorCategory::Parse, "a mapping key must be a scalar", where(kv.first.Mark()));
                const std::string key = kv.first.Scalar();
                if (key == "<<")
                    return Error::make(ErrorCategory::Parse, "merge keys (<<) are not supported", where(kv.first.Mark()));
                if (obj.contains(key))
                    return Error::make(ErrorCategory::Parse, "duplicate key \"" + key + "\"", where(kv.first.Mark()));
                auto c = convert(kv.second, depth + 1);
                if (!c)
                    return c;
                obj[key] = std::move(*c);
            }
            return obj;
        }
        }
        return Json(nullptr);
    }
};

Error fromYamlException(const YAML::Exception &e)
{
    return Error::make(ErrorCategory::Parse, e.msg,
                       e.mark.is_null() ? std::string() : "line " + std::to_string(e.mark.line + 1) + ", column " + std::to_string(e.mark.column + 1));
}

} // namespace

Result<YamlParseResult> yamlToJson(std::string_view text, const YamlLimits &limits)
{
    auto docs = yamlDocumentsToJson(text, limits);
    if (!docs)
        return docs.error();
    if (docs->empty())
        return Error::make(ErrorCategory::Parse, "the document is empty");
    if (docs->size() > 1)
        return Error::make(ErrorCategory::Parse, "expected one YAML document, found " + std::to_string(docs->size()));
    // Warnings are produced per conversion; redo the single document to collect them.
    YamlParseResult out;
    try {
        YAML::Node n = YAML::Load(std::string(text));
        Converter conv{limits, out.warnings};
        auto j = conv.convert(n, 0);
        if (!j)
            return j.error();
        out.value = std::move(*j);
    } catch (const YAML::Exception &e) {
        return fromYamlException(e);
    }
    return out;
}

Result<std::vector<Json>> yamlDocumentsToJson(std::string_view text, const YamlLimits &limits)
{
    if (text.size() > limits.maxBytes)
        return Error::make(ErrorCategory::Parse, "input larger than " + std::to_string(limits.maxBytes) + " bytes");
    std::vector<Json> out;
    try {
        std::vector<std::string> ignored;
        for (const auto &doc : YAML::LoadAll(std::string(text))) {
            if (doc.IsNull())
                continue;
            Converter conv{limits, ignored};
            auto j = conv.convert(doc, 0);
            if (!j)
                return j.error();
            out.push_back(std::move(*j));
        }
    } catch (const YAML::Exception &e) {
        return fromYamlException(e);
    }
    return out;
}

namespace {

bool needsQuotes(const std::string &s)
{
    if (s.empty())
        return true;
    static const std::regex plainUnsafe(
        R"(^(y|Y|yes|Yes|YES|n|N|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON|off|Off|OFF|null|Null|NULL|~)$)");
    static const std::regex numberLike(R"(^[-+]?(\.[0-9]+|[0-9][0-9_]*(\.[0-9_]*)?([eE][-+]?[0-9]+)?|0x[0-9a-fA-F_]+|\.inf|\.nan)$)");
    if (std::regex_match(s, plainUnsafe) || std::regex_match(s, numberLike))
        return true;
    const char first = s.front();
    if (std::string_view("-?:,[]{}#&*!|>'\"%@`").find(first) != std::string_view::npos)
        return true;
    if (s.back() == ' ' || first == ' ')
        return true;
    if (s.find(": ") != std::string::npos || s.find(" #") != std::string::npos || s.back() == ':')
        return true;
    for (unsigned char c : s)
        if (c < 0x20 || c == 0x7f)
            return true;
    return false;
}

std::string quoted(const std::string &s)
{
    // JSON string syntax is valid double-quoted YAML.
    return Json(s).dump(-1, ' ', false, Json::error_handler_t::replace);
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

void emitBlockString(const std::string &s, int indent, std::string &out)
{
    out += s.back() == '\n' ? "|\n" : "|-\n";
    std::size_t start = 0;
    while (start < s.size()) {
        auto nl = s.find('\n', start);
        std::string line = s.substr(start, nl == std::string::npos ? std::string::npos : nl - start);
        out += line.empty() ? std::string() : std::string(indent, ' ') + line;
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
    return s.find(" \n") == std::string::npos && s.find("\n\n\n") == std::string::npos;
}

// Writes block YAML and, when `lines` is set, the JSON Pointer each output line shows.
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

    void valueAfterKey(const Json &v, int indent, const std::string &ptr)
    {
        if (v.is_object() && !v.empty()) {
            out += '\n';
            claim(ptr);
            emit(v, indent + 2, ptr);
        } else if (v.is_array() && !v.empty()) {
            out += '\n';
            claim(ptr);
            emit(v, indent, ptr); // kubectl style: list items at the key's indentation
        } else if (isMultilineBlockable(v)) {
            out += ' ';
            emitBlockString(v.get_ref<const std::string &>(), indent + 2, out);
            claim(ptr);
        } else {
            out += ' ';
            out += v.is_object() ? "{}" : v.is_array() ? "[]" : scalarText(v);
            out += '\n';
            claim(ptr);
        }
    }

    void arrayItem(const Json &item, int indent, const std::string &ptr)
    {
        if (item.is_object() && !item.empty()) {
            // First key on the dash line, the rest aligned under it; the dash line shows that key.
            std::string nested;
            std::vector<std::string> nestedLines;
            Emitter sub{nested, lines ? &nestedLines : nullptr};
            sub.emit(item, indent + 2, ptr);
            out += ' ';
            out += nested.substr(std::size_t(indent) + 2);
            if (lines) {
                lines->insert(lines->end(), nestedLines.begin(), nestedLines.end());
                scanned = out.size();
            }
        } else if (item.is_array() && !item.empty()) {
            out += '\n';
            claim(ptr);
            emit(item, indent + 2, ptr);
        } else if (isMultilineBlockable(item)) {
            out += ' ';
            emitBlockString(item.get_ref<const std::string &>(), indent + 2, out);
            claim(ptr);
        } else {
            out += ' ';
            out += item.is_object() ? "{}" : item.is_array() ? "[]" : scalarText(item);
            out += '\n';
            claim(ptr);
        }
    }

    void emit(const Json &v, int indent, const std::string &ptr)
    {
        const std::string pad(std::size_t(indent), ' ');
        if (v.is_object()) {
            for (auto it = v.begin(); it != v.end(); ++it) {
                out += pad + scalarText(Json(it.key())) + ":";
                valueAfterKey(it.value(), indent, childPointer(ptr, it.key()));
            }
        } else if (v.is_array()) {
            for (std::size_t i = 0; i < v.size(); ++i) {
                out += pad + "-";
                arrayItem(v[i], indent, childPointer(ptr, std::to_string(i)));
            }
        } else {
            out += pad + scalarText(v) + '\n';
            claim(ptr);
        }
    }
};

} // namespace

std::string jsonToYaml(const Json &value)
{
    std::string out;
    if ((value.is_object() || value.is_array()) && value.empty())
        return value.is_object() ? "{}\n" : "[]\n";
    Emitter{out}.emit(value, 0, std::string());
    return out;
}

AnnotatedYaml jsonToAnnotatedYaml(const Json &value)
{
    AnnotatedYaml y;
    if ((value.is_object() || value.is_array()) && value.empty()) {
        y.text = value.is_object() ? "{}\n" : "[]\n";
        y.linePointers.emplace_back();
        return y;
    }
    Emitter{y.text, &y.linePointers}.emit(value, 0, std::string());
    return y;
}

} // namespace fieldscope::core
