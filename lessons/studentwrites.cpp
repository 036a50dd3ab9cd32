#include "lessons/studentwrites.h"

#include "kube/apierror.h"

#include <algorithm>
#include <set>

namespace fieldscope::lessons {
namespace {

// A student's text in a report: bounded (an audit record may carry anything a student sent).
std::string bounded(const std::string &s, std::size_t max)
{
    return s.size() <= max ? s : s.substr(0, max) + "...";
}

constexpr std::size_t kMaxMessage = 1024;
constexpr std::size_t kMaxConflicts = 64;

std::string methodOf(const std::string &verb)
{
    if (verb == "create")
        return "POST";
    if (verb == "update")
        return "PUT";
    if (verb == "patch")
        return "PATCH";
    if (verb == "delete")
        return "DELETE";
    return "?";
}

std::string trimmed(const std::string &s)
{
    const auto first = s.find_first_not_of(" \t\r");
    const auto last = s.find_last_not_of(" \t\r");
    return first == std::string::npos ? std::string() : s.substr(first, last - first + 1);
}

} // namespace

std::string promptHeading(const StudentPrompt &prompt, std::size_t steps, bool simulated)
{
    return "Step " + std::to_string(prompt.step + 1) + "/" + std::to_string(steps) + " asks the class ("
         + (simulated ? "simulated: " : "waiting up to " + std::to_string(prompt.timeoutSeconds) + " s for ")
         + std::to_string(prompt.awaited) + " students):";
}

std::string promptObject(const StudentPrompt &prompt)
{
    return prompt.object + " in namespace " + prompt.ns
         + (prompt.resourceVersion.empty() ? std::string(", not there yet")
                                           : ", resourceVersion on the screen: " + prompt.resourceVersion);
}

std::vector<core::FieldConflict> conflictsFromMessage(const std::string &message)
{
    std::vector<core::FieldConflict> out;
    // After "Apply failed with N conflict(s): " come either one "conflict with M: FIELD" or, for
    // each manager, "conflicts with M:" and its fields as "- FIELD" lines.
    const std::string head = "Apply failed with ";
    const auto start = message.find(head);
    if (start == std::string::npos)
        return out;
    const auto colon = message.find(": ", start);
    if (colon == std::string::npos)
        return out;
    std::string manager; // the cause text of the current "conflicts with" line
    std::size_t from = colon + 2;
    while (from <= message.size() && out.size() < kMaxConflicts) {
        const auto nl = message.find('\n', from);
        const std::string line = trimmed(message.substr(from, nl == std::string::npos ? std::string::npos : nl - from));
        from = nl == std::string::npos ? message.size() + 1 : nl + 1;
        if (line.rfind("conflicts with ", 0) == 0 && line.back() == ':') {
            manager = "conflict with " + line.substr(15, line.size() - 16); // without "conflicts with " and ':'

        } else if (line.rfind("- ", 0) == 0 && !manager.empty()) {
            out.push_back(kube::parseConflictCause(manager, line.substr(2)));
        } else if (line.rfind("conflict with ", 0) == 0) {
            // The manager is quoted, and the field follows the last ": ".
            const auto sep = line.rfind(": ");
            if (sep != std::string::npos)
                out.push_back(kube::parseConflictCause(line.substr(0, sep), line.substr(sep + 2)));
        }
    }
    return out;
}

std::string reasonFor(int code, const std::string &message)
{
    if (code >= 200 && code < 300)
        return {};
    switch (code) {
    case 409: return message.find("already exists") != std::string::npos ? "AlreadyExists" : "Conflict";
    case 422: return "Invalid";
    case 403: return "Forbidden";
    case 404: return "NotFound";
    case 400: return "BadRequest";
    case 401: return "Unauthorized";
    case 429: return "TooManyRequests";
    case 0: return "NoAnswer";
    default: return "Status" + std::to_string(code);
    }
}

std::vector<core::LessonCall> studentCalls(const std::vector<StudentWrite> &writes,
                                           const std::vector<std::string> &roster, const StudentObject &object,
                                           bool everyWrite, std::chrono::system_clock::time_point since)
{
    std::vector<core::LessonCall> out;
    std::set<std::string> seen;
    for (const StudentWrite &w : writes) {
        if (w.time < since || w.resource != object.resource || w.ns != object.ns || w.name != object.name
            || !w.subresource.empty())
            continue;
        const auto at = std::find(roster.begin(), roster.end(), w.student);
        if (at == roster.end() || methodOf(w.verb) == "?")
            continue;
        if (!everyWrite && !seen.insert(w.student).second)
            continue; // a race counts each student's first write
        core::LessonCall c;
        c.client = int(at - roster.begin()) + 1;
        c.student = w.student;
        c.method = methodOf(w.verb);
        c.path = object.resource + "/" + object.ns + "/" + object.name;
        c.status = w.code;
        c.reason = reasonFor(w.code, w.message);
        if (!c.ok()) {
            c.message = bounded(w.message, kMaxMessage);
            if (w.code == 409)
                c.conflicts = conflictsFromMessage(c.message);
        }
        c.resourceVersion = bounded(w.resourceVersion, 64);
        c.sentMs = c.answeredMs = std::chrono::duration_cast<std::chrono::milliseconds>(w.time - since).count();
        out.push_back(std::move(c));
    }
    std::stable_sort(out.begin(), out.end(),
                     [](const core::LessonCall &a, const core::LessonCall &b) { return a.answeredMs < b.answeredMs; });
    return out;
}

int studentsDone(const std::vector<core::LessonCall> &calls, core::LessonStudentsUntil until)
{
    std::set<int> done;
    for (const core::LessonCall &c : calls)
        if (c.isWrite && (until == core::LessonStudentsUntil::Wrote || c.ok()))
            done.insert(c.client);
    return int(done.size());
}

} // namespace fieldscope::lessons
