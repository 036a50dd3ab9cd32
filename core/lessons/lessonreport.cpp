#include "core/lessons/lessonreport.h"

#include "core/base/jsonread.h"
#include "core/ownership/ownershiptree.h"

#include <algorithm>
#include <set>

namespace fieldscope::core {

namespace {

std::optional<Json> valueAt(const Json &object, const std::string &pointer)
{
    try {
        const Json::json_pointer p(pointer);
        if (object.contains(p))
            return object.at(p);
    } catch (const std::exception &) { // a pointer into a string, or a malformed one
    }
    return std::nullopt;
}

// "{winner}" and "{last}" in an expectation: the client numbers the step found.
std::optional<std::string> expandOutcome(std::string text, const LessonStepReport &r, std::string *why)
{
    for (const auto &[token, value] :
         {std::pair{std::string("{winner}"), r.winner}, std::pair{std::string("{last}"), r.last}}) {
        for (std::size_t at; (at = text.find(token)) != std::string::npos;) {
            if (!value) {
                *why = token == "{winner}" ? "no single client succeeded, so there is no {winner}"
                                           : "no client's write is the one the object shows, so there is no {last}";
                return std::nullopt;
            }
            const std::string name = r.students.empty() ? std::to_string(*value) : r.clientName(*value);
            text.replace(at, token.size(), name);
        }
    }
    return text;
}

Json expandOutcome(const Json &v, const LessonStepReport &r, std::string *why)
{
    if (!v.is_string())
        return v;
    auto s = expandOutcome(v.get<std::string>(), r, why);
    return s ? Json(*s) : Json();
}

std::string show(const Json &v)
{
    return v.is_null() ? std::string("(absent)") : toJsonText(v);
}

std::string joined(std::vector<std::string> v)
{
    std::sort(v.begin(), v.end());
    std::string out;
    for (const std::string &s : v)
        out += (out.empty() ? "" : ", ") + s;
    return out.empty() ? std::string("nobody") : out;
}

} // namespace

std::string LessonStepReport::clientName(int client) const
{
    if (client >= 1 && std::size_t(client) <= students.size())
        return students[std::size_t(client - 1)];
    return "client " + std::to_string(client);
}

std::vector<LessonOwner> ownersAt(const OwnershipTree &tree, const std::string &pointer)
{
    std::vector<LessonOwner> out;
    auto id = tree.findByJsonPointer(pointer);
    if (!id)
        return out;
    for (const NodeOwner &o : tree.node(*id).owners) {
        const ManagedFieldsEntry &e = tree.entries()[o.entry];
        out.push_back({e.manager, operationName(e.operation), e.subresource});
    }
    return out;
}

bool tallyWrites(LessonStepReport &report, std::optional<int> previousWinner)
{
    std::set<int> winners;
    for (const LessonCall &c : report.calls) {
        if (!c.isWrite)
            continue;
        if (c.ok()) {
            ++report.succeeded;
            winners.insert(c.client);
        } else {
            ++report.errors[c.reason.empty() ? std::string("NoAnswer") : c.reason];
        }
    }
    const bool wrote = std::any_of(report.calls.begin(), report.calls.end(),
                                   [](const LessonCall &c) { return c.isWrite; });
    if (report.succeeded == 1)
        report.winner = *winners.begin();
    else if (!wrote)
        report.winner = previousWinner;
    return wrote;
}

std::optional<int> lastWriter(const LessonStepReport &report, bool wrote, std::optional<int> previousLast)
{
    const std::string rv = stringAt(report.object, "/metadata/resourceVersion").value_or(std::string());
    std::optional<int> last = wrote ? std::nullopt : previousLast;
    bool matched = false;
    for (const LessonCall &c : report.calls)
        if (c.isWrite && c.ok() && !rv.empty() && c.resourceVersion == rv) {
            last = c.client;
            matched = true;
        }
    // Students' writes come from an audit log that may not record the resulting version: then
    // the last one answered 2xx (the calls are in order of their answers).
    if (!matched && !report.students.empty())
        for (const LessonCall &c : report.calls)
            if (c.isWrite && c.ok() && c.resourceVersion.empty())
                last = c.client;
    return last;
}

namespace {

using Misses = std::vector<std::string>;

// A class step's `all` and `rest` as numbers: every student it waited for, and the writes the
// other counts leave.
std::map<std::string, int> resolvedErrors(const LessonExpectation &x, const LessonStepReport &report)
{
    int writes = 0;
    for (const LessonCall &c : report.calls)
        writes += c.isWrite ? 1 : 0;
    int counted = x.succeeded ? (*x.succeeded == kLessonCountAll ? report.awaited : *x.succeeded) : report.succeeded;
    for (const auto &[reason, n] : x.errors)
        counted += n >= 0 ? n : (n == kLessonCountAll ? report.awaited : 0);
    std::map<std::string, int> out;
    for (const auto &[reason, n] : x.errors)
        out[reason] = n >= 0 ? n : (n == kLessonCountAll ? report.awaited : std::max(0, writes - counted));
    return out;
}

void checkWrites(const LessonExpectation &x, const LessonStepReport &report, Misses &miss)
{
    const int succeeded = x.succeeded && *x.succeeded == kLessonCountAll ? report.awaited : x.succeeded.value_or(0);
    if (x.succeeded && succeeded != report.succeeded)
        miss.push_back("expected " + std::to_string(succeeded) + " writes to succeed, "
                       + std::to_string(report.succeeded) + " did");
    const std::map<std::string, int> errors = resolvedErrors(x, report);
    if (errors.empty() || errors == report.errors)
        return;
    std::string want, got;
    for (const auto &[reason, n] : errors)
        want += (want.empty() ? "" : ", ") + reason + " x" + std::to_string(n);
    for (const auto &[reason, n] : report.errors)
        got += (got.empty() ? "" : ", ") + reason + " x" + std::to_string(n);
    miss.push_back("expected refusals " + want + ", got " + (got.empty() ? std::string("none") : got));
}

// `values` of a class step whose pointer says "{student}": one check for each student.
std::vector<std::pair<std::string, Json>> perStudentValues(const LessonExpectation &x, const LessonStepReport &report)
{
    std::vector<std::pair<std::string, Json>> out;
    for (const auto &[pointer, want] : x.values) {
        if (pointer.find("{student}") == std::string::npos || report.students.empty()) {
            out.emplace_back(pointer, want);
            continue;
        }
        const std::size_t awaited = std::min(report.students.size(), std::size_t(std::max(0, report.awaited)));
        for (std::size_t i = 0; i < awaited; ++i)
            out.emplace_back(expandStudent(pointer, jsonPointerEscape(report.students[i])),
                             expandStudent(want, report.students[i]));
    }
    return out;
}

void checkValues(const LessonExpectation &x, const LessonStepReport &report, Misses &miss)
{
    for (const auto &[pointer, want] : perStudentValues(x, report)) {
        std::string why;
        const Json expected = expandOutcome(want, report, &why);
        if (!why.empty()) {
            miss.push_back(pointer + ": " + why);
            continue;
        }
        const auto actual = valueAt(report.object, pointer);
        if (!actual || !jsonEqual(*actual, expected))
            miss.push_back(pointer + " should be " + show(expected) + ", is "
                           + (actual ? show(*actual) : std::string("absent")));
    }
    for (const std::string &pointer : x.absent)
        if (auto actual = valueAt(report.object, pointer))
            miss.push_back(pointer + " should be gone, is " + show(*actual));
}

void checkOwners(const LessonExpectation &x, const LessonStepReport &report, Misses &miss)
{
    for (const LessonOwnerExpectation &o : x.owners) {
        std::vector<std::string> want, got;
        std::string why;
        // With subresources named, "scaler via /scale" and "scaler" are different owners.
        auto withSubresource = [&o](const std::string &manager, const std::string &subresource) {
            return o.subresources && !subresource.empty() ? manager + " via /" + subresource : manager;
        };
        for (std::size_t i = 0; i < o.managers.size(); ++i)
            if (auto s = expandOutcome(o.managers[i], report, &why))
                want.push_back(withSubresource(*s, o.subresources ? (*o.subresources)[i] : std::string()));
        if (auto found = report.owners.find(o.pointer); found != report.owners.end())
            for (const LessonOwner &owner : found->second)
                got.push_back(withSubresource(owner.manager, owner.subresource));
        std::sort(got.begin(), got.end());
        got.erase(std::unique(got.begin(), got.end()), got.end());
        if (!why.empty())
            miss.push_back(o.pointer + ": " + why);
        else if (joined(want) != joined(got))
            miss.push_back(o.pointer + " should be owned by " + joined(want) + ", is owned by " + joined(got));
    }
}

void checkConflicts(const LessonExpectation &x, const LessonStepReport &report, Misses &miss)
{
    for (const LessonConflictExpectation &c : x.conflicts) {
        std::string why;
        const auto manager = expandOutcome(c.manager, report, &why);
        if (!manager) {
            miss.push_back("conflict on " + c.field + ": " + why);
            continue;
        }
        auto names = [&](const LessonCall &call) {
            return std::any_of(call.conflicts.begin(), call.conflicts.end(),
                               [&](const FieldConflict &f) { return f.path == c.field && f.manager == *manager; });
        };
        const bool seen = std::any_of(report.calls.begin(), report.calls.end(), names);
        if (!seen)
            miss.push_back("expected a conflict on " + c.field + " with \"" + *manager + "\"");
        if (!c.every)
            continue;
        const auto other = std::find_if(report.calls.begin(), report.calls.end(), [&](const LessonCall &call) {
            return call.isWrite && call.status == 409 && !names(call);
        });
        if (other != report.calls.end())
            miss.push_back("expected every refused write to conflict on " + c.field + " with \"" + *manager + "\", "
                           + report.clientName(other->client)
                           + "'s was refused with: " + other->message.substr(0, 200));
    }
}

// Every event shows the `consistent` fields equal: a write arrived whole, never half-applied.
void checkEvents(const LessonExpectation &x, const LessonStepReport &report, Misses &miss)
{
    if (x.events && int(report.events.size()) != *x.events)
        miss.push_back("expected " + std::to_string(*x.events) + " watch events, saw "
                       + std::to_string(report.events.size()));
    if (x.consistent.empty())
        return;
    for (const LessonEvent &e : report.events) {
        const auto first = valueAt(e.object, x.consistent.front());
        for (const std::string &p : x.consistent) {
            const auto v = valueAt(e.object, p);
            if (v.has_value() != first.has_value() || (v && !jsonEqual(*v, *first))) {
                miss.push_back("event at resourceVersion " + e.resourceVersion
                               + " shows a half-applied write: " + x.consistent.front() + " = "
                               + (first ? show(*first) : "absent") + " but " + p + " = " + (v ? show(*v) : "absent"));
                break;
            }
        }
    }
}

} // namespace

void checkExpectation(const LessonExpectation &expectation, LessonStepReport &report, bool withEvents)
{
    checkWrites(expectation, report, report.mismatches);
    checkValues(expectation, report, report.mismatches);
    checkOwners(expectation, report, report.mismatches);
    checkConflicts(expectation, report, report.mismatches);
    if (withEvents)
        checkEvents(expectation, report, report.mismatches);
}

} // namespace fieldscope::core
