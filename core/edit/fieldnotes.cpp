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
            std::size_t start = at;
            while (start > 0 && isPathChar(message[start - 1]))
                --start;
            if (start < at && message[start] == '.')
                out.emplace_back(message.substr(start + 1, at - start - 1));
        }
    }
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
}

std::string pointerOfFieldPath(std::string_view path)
{
    std::string out;
    std::size_t i = 0;
    if (!path.empty() && path.front() == '.')
        i = 1;
    while (i < path.size()) {
        if (path[i] == '[') {
            const std::size_t close = path.find(']', i + 1);
            const std::size_t end = close == std::string_view::npos ? path.size() : close;
            out += '/';
            appendEscaped(out, path.substr(i + 1, end - i - 1));
            i = end + 1;
        } else {
            const std::size_t end = std::min(path.find_first_of(".[", i), path.size());
            out += '/';
            appendEscaped(out, path.substr(i, end - i));
            i = end;
        }
        if (i < path.size() && path[i] == '.')
            ++i;
    }
    return out;
}

std::optional<FieldLine> lineOfFieldPath(const YamlLineMap &lines, std::string_view fieldPath)
{
    std::string pointer = pointerOfFieldPath(fieldPath);
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
    if (!yamlToJsonWithLines(text, lines))
        return out;
    auto add = [&](std::string_view path, const std::string &message) {
        if (auto at = lineOfFieldPath(lines, path))
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
