#include "core/drift/driftreport.h"

#include "core/base/visibletext.h"

#include <algorithm>
#include <array>

namespace fieldscope::core {
namespace {

Json textOrNull(const std::string &s)
{
    return s.empty() ? Json() : Json(s);
}

// A table cell shows at most this many characters: a value or a name someone else chose may be
// a megabyte long.
constexpr std::size_t kMaxCell = 60;

// Code points, so that a non-ASCII name does not shift the columns after it.
std::size_t displayWidth(const std::string &s)
{
    return std::size_t(std::count_if(s.begin(), s.end(),
                                     [](char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; }));
}

std::string cell(std::string_view text)
{
    std::string shown = visibleEscapes(text.substr(0, kMaxCell * 4));
    if (displayWidth(shown) <= kMaxCell)
        return shown;
    std::size_t keep = 0, width = 0;
    while (keep < shown.size() && width < kMaxCell - 3) {
        ++keep;
        while (keep < shown.size() && (static_cast<unsigned char>(shown[keep]) & 0xC0) == 0x80)
            ++keep;
        ++width;
    }
    return shown.substr(0, keep) + "...";
}

std::string valueCell(bool known, bool present, const Json &value)
{
    if (!known)
        return "?";
    return present ? cell(jsonPreview(value, kMaxCell)) : std::string("(absent)");
}

std::string managerCell(const DriftNow &now)
{
    if (now.manager.empty())
        return "?";
    std::string s = now.manager;
    if (now.operation)
        s += std::string(" (") + operationName(*now.operation) + (now.subresource.empty() ? "" : "/" + now.subresource)
           + ")";
    return cell(s);
}

using Row = std::array<std::string, 10>;

Row rowOf(const DriftFinding &f)
{
    return {cell(f.object.namespace_.empty() ? "-" : f.object.namespace_),
            cell(f.object.resource + "/" + f.object.name),
            cell(f.path.toString()),
            cell(f.appliedBy),
            valueCell(f.appliedKnown, f.appliedPresent, f.appliedValue),
            valueCell(true, f.now.present, f.now.value),
            managerCell(f.now),
            f.now.user.empty() ? std::string("-") : cell(f.now.user),
            f.now.time.empty() ? std::string("?") : cell(f.now.time),
            driftSourceName(f.source)};
}

} // namespace

const char *driftSourceName(DriftSource source)
{
    return source == DriftSource::History ? "history" : "managedFields";
}

Json driftFindingJson(const DriftFinding &f)
{
    Json now{{"manager", textOrNull(f.now.manager)},
             {"operation", f.now.operation ? Json(operationName(*f.now.operation)) : Json()},
             {"value", f.now.present ? f.now.value : Json()},
             {"user", textOrNull(f.now.user)},
             {"resourceVersion", textOrNull(f.now.resourceVersion)},
             {"time", textOrNull(f.now.time)}};
    return Json{{"object",
                 {{"resource", f.object.resource},
                  {"namespace", f.object.namespace_},
                  {"name", f.object.name},
                  {"uid", f.object.uid}}},
                {"path", f.path.toString()},
                {"appliedBy", f.appliedBy},
                {"appliedValue", f.appliedKnown && f.appliedPresent ? f.appliedValue : Json()},
                {"appliedAt", textOrNull(f.appliedAt)},
                {"now", std::move(now)},
                {"source", driftSourceName(f.source)}};
}

Json driftJson(const std::vector<DriftFinding> &findings)
{
    Json out = Json::array();
    for (const auto &f : findings)
        out.push_back(driftFindingJson(f));
    return out;
}

std::string driftText(const std::vector<DriftFinding> &findings)
{
    std::vector<Row> rows{
        {"NAMESPACE", "OBJECT", "PATH", "APPLIED BY", "APPLIED", "NOW", "CHANGED BY", "USER", "WHEN", "SOURCE"}};
    for (const auto &f : findings)
        rows.push_back(rowOf(f));
    std::array<std::size_t, 10> widths{};
    for (const auto &r : rows)
        for (std::size_t i = 0; i < r.size(); ++i)
            widths[i] = std::max(widths[i], displayWidth(r[i]));
    std::string out;
    for (const auto &r : rows) {
        std::string line;
        for (std::size_t i = 0; i < r.size(); ++i) {
            line += r[i];
            if (i + 1 < r.size())
                line += std::string(widths[i] - displayWidth(r[i]) + 2, ' ');
        }
        out += line + "\n";
    }
    return out;
}

} // namespace fieldscope::core
