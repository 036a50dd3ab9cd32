#include "core/edit/fieldnotes.h"

#include <algorithm>

namespace fieldscope::core {
namespace {

void appendEscaped(std::string &out, std::string_view key)
{
    for (char c : key) {
        if (c == '~')
            out += "~0";
        else if (c == '/')
            out += "~1";
        else
            out += c;
    }
}

// A field path is a dotted name, a trailing ": ..." or text after it is not part of it.
bool isPathChar(char c)
{
    return c != '"' && c != ' ' && c != ',' && c != ':' && c != '\n';
}

// Where a server-side apply path that ends at END begins: structured-merge-diff writes list
// items by their keys, `.spec.containers[name="web"].image` or `[containerPort=80,protocol="TCP"]`
// (values are JSON), so a bracket's quotes, commas and spaces belong to the path.
std::size_t smdPathStart(std::string_view message, std::size_t end)
{
    std::size_t start = end;
    while (start > 0) {
        const char c = message[start - 1];
        if (c == ']') {
            const std::size_t open = message.rfind('[', start - 1);
            if (open == std::string_view::npos)
                break;
            start = open;
        } else if (isPathChar(c)) {
            --start;
        } else {
            break;
        }
    }
    return start;
}

// Splits "k=v,k2=v2" at the commas outside JSON strings.
std::vector<std::string_view> keyParts(std::string_view inside)
{
    std::vector<std::string_view> parts;
    bool quoted = false;
    std::size_t from = 0;
    for (std::size_t i = 0; i < inside.size(); ++i) {
        if (inside[i] == '\\' && quoted)
            ++i;
        else if (inside[i] == '"')
            quoted = !quoted;
        else if (inside[i] == ',' && !quoted) {
            parts.push_back(inside.substr(from, i - from));
            from = i + 1;
        }
    }
    parts.push_back(inside.substr(from));
    return parts;
}

using ItemKeys = std::vector<std::pair<std::string, Json>>;

// A bracket of a server-side apply path: `name="web"` (the keys of an associative list's item)
// or `="x"` (a set's value), each value JSON. nullopt for any other bracket: a key, as in
// `data[a.b]`, or an index.
std::optional<ItemKeys> itemKeys(std::string_view inside)
{
    if (inside.find('=') == std::string_view::npos)
        return std::nullopt;
    ItemKeys keys;
    for (std::string_view part : keyParts(inside)) {
        const std::size_t eq = part.find('=');
        if (eq == std::string_view::npos)
            return std::nullopt;
        auto value = parseJson(part.substr(eq + 1));
        if (!value)
            return std::nullopt;
        keys.emplace_back(std::string(part.substr(0, eq)), std::move(*value));
    }
    return keys;
}

// The index of LIST's item that KEYS describe; nullopt when LIST has none.
std::optional<std::size_t> itemByKeys(const Json *list, const ItemKeys &keys)
{
    if (!list || !list->is_array())
        return std::nullopt;
    for (std::size_t i = 0; i < list->size(); ++i) {
        const Json &item = (*list)[i];
        const bool matches = std::all_of(keys.begin(), keys.end(), [&item](const auto &k) {
            if (k.first.empty())
                return item == k.second; // a set: the value itself
            return item.is_object() && item.contains(k.first) && item[k.first] == k.second;
        });
        if (matches)
            return i;
    }
    return std::nullopt;
}

// Steps NODE into the member or item SEGMENT names (nullptr once the document has no such thing).
const Json *child(const Json *node, const std::string &segment)
{
    if (!node)
        return nullptr;
    if (node->is_object()) {
        auto it = node->find(segment);
        return it == node->end() ? nullptr : &*it;
    }
    if (node->is_array() && !segment.empty()
        && std::all_of(segment.begin(), segment.end(), [](char c) { return c >= '0' && c <= '9'; })
        && segment.size() < 10) {
        const std::size_t i = std::stoul(segment);
        return i < node->size() ? &(*node)[i] : nullptr;
    }
    return nullptr;
}

} // namespace

std::vector<std::string> fieldPathsInMessage(std::string_view message)
{
    std::vector<std::string> out;
    // unknown field "spec.foo" / duplicate field "data.a" (strict decoding, create and update)
    for (std::string_view marker : {std::string_view("unknown field \""), std::string_view("duplicate field \"")}) {
        for (std::size_t at = message.find(marker); at != std::string_view::npos; at = message.find(marker, at + 1)) {
            const std::size_t start = at + marker.size();
            const std::size_t end = message.find('"', start);
            if (end == std::string_view::npos || end == start)
                continue;
            out.emplace_back(message.substr(start, end - start));
        }
    }
    // .spec.foo: field not declared in schema / .data.a: duplicate field (server-side apply)
    for (std::string_view marker :
         {std::string_view(": field not declared in schema"), std::string_view(": duplicate field")}) {
        for (std::size_t at = message.find(marker); at != std::string_view::npos; at = message.find(marker, at + 1)) {
            const std::size_t start = smdPathStart(message, at);
            if (start < at && message[start] == '.')
                out.emplace_back(message.substr(start + 1, at - start - 1));
        }
    }
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
}

std::string pointerOfFieldPath(std::string_view path, const Json *document)
{
    std::string out;
    const Json *node = document;
    auto append = [&out, &node](const std::string &segment) {
        out += '/';
        appendEscaped(out, segment);
        node = child(node, segment);
    };
    std::size_t i = 0;
    if (!path.empty() && path.front() == '.')
        i = 1;
    while (i < path.size()) {
        if (path[i] == '[') {
            const std::size_t close = path.find(']', i + 1);
            const std::size_t end = close == std::string_view::npos ? path.size() : close;
            const std::string_view inside = path.substr(i + 1, end - i - 1);
            if (auto keys = itemKeys(inside)) {
                if (auto index = itemByKeys(node, *keys)) {
                    append(std::to_string(*index));
                } else {
                    out += "/\x01"; // an item the document does not have: no line is this one
                    node = nullptr;
                }
            } else {
                append(std::string(inside));
            }
            i = end + 1;
        } else {
            const std::size_t end = std::min(path.find_first_of(".[", i), path.size());
            append(std::string(path.substr(i, end - i)));
            i = end;
        }
        if (i < path.size() && path[i] == '.')
            ++i;
    }
    return out;
}

std::optional<FieldLine> lineOfFieldPath(const YamlLineMap &lines, std::string_view fieldPath, const Json *document)
{
    std::string pointer = pointerOfFieldPath(fieldPath, document);
    bool exact = true;
    while (!pointer.empty()) {
        if (auto it = lines.find(pointer); it != lines.end())
            return FieldLine{it->second, exact};
        pointer.erase(pointer.rfind('/'));
        exact = false;
    }
    return std::nullopt;
}

std::vector<LineNote> lineNotes(std::string_view text, const std::vector<std::string> &messages,
                                const std::vector<std::pair<std::string, std::string>> &fieldMessages)
{
    std::vector<LineNote> out;
    YamlLineMap lines;
    auto parsed = yamlToJsonWithLines(text, lines);
    if (!parsed)
        return out;
    auto add = [&](std::string_view path, const std::string &message) {
        if (auto at = lineOfFieldPath(lines, path, &parsed->value))
            out.push_back({at->line, message});
    };
    for (const std::string &m : messages)
        for (const std::string &path : fieldPathsInMessage(m))
            add(path, m);
    for (const auto &[field, message] : fieldMessages)
        if (!field.empty())
            add(field, message);
    std::stable_sort(out.begin(), out.end(), [](const LineNote &a, const LineNote &b) { return a.line < b.line; });
    return out;
}

} // namespace fieldscope::core
