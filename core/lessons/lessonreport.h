#pragma once
// What a lesson step did and whether it matched the lesson's claim: the report types the runner
// (lessons/lessonrunner.h) fills and the window and command line show, and the checks of a step's
// expectation (core/lessons/lesson.h) against that report. No network: the checks are unit-tested
// with hand-built reports.
#include "core/base/error.h"
#include "core/base/json.h"
#include "core/lessons/lesson.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace fieldscope::core {

class OwnershipTree;

// One request of a step and the server's answer.
struct LessonCall {
    int client = 0;       // 1-based (a class step: the student's place in the roster)
    int write = 1;        // the client's write number (1..repeat)
    int attempt = 1;      // retry loops: the attempt number
    bool isWrite = true;  // false for the reads a read-modify-write client does
    bool unbuilt = false; // the request could not be built (core/lessons/lessonrequests.h): nothing was sent
    std::string method;
    std::string path;
    int status = 0;              // 0: no HTTP answer (network failure)
    std::string reason;          // Status reason ("AlreadyExists", "Conflict", "Invalid"), "" on success
    std::string message;         // Status message, or the network error
    std::string resourceVersion; // of the object in a 2xx answer
    std::vector<FieldConflict> conflicts;
    std::int64_t sentMs = 0, answeredMs = 0; // since the step started
    std::string student;                     // a class step: the student who sent it
    bool ok() const { return status >= 200 && status < 300; }
};

struct LessonOwner {
    std::string manager;
    std::string operation;   // Apply / Update
    std::string subresource; // "" for the main resource
};

struct LessonEvent {
    std::string type; // ADDED, MODIFIED, DELETED
    std::string resourceVersion;
    Json object;
};

struct LessonStepReport {
    std::size_t index = 0; // 0-based
    std::string title;
    std::vector<LessonCall> calls;     // in order of arrival of the answers
    int succeeded = 0;                 // writes answered 2xx
    std::map<std::string, int> errors; // writes refused, by Status reason
    std::optional<int> winner;         // the only client whose write succeeded
    std::optional<int> last;           // the client whose write the object shows now
    Json object;                       // the step's object afterwards (null when it does not exist)
    std::map<std::string, std::vector<LessonOwner>> owners; // expected and highlighted pointers
    std::vector<LessonEvent> events;                        // watch events for the step's object during the step
    std::vector<std::string> mismatches;                    // where the outcome differs from the lesson's claim
    // A class step: the students by client number (client i is students[i-1]; {winner} and
    // {last} are names), how many the step waited for (`all` in its counts) and what they were told.
    std::vector<std::string> students;
    int awaited = 0;
    std::string instruction;
    std::string shownResourceVersion; // the resourceVersion on the screen when the step asked
    bool passed() const { return mismatches.empty(); }
    // "client 3", or the student's name in a class step.
    std::string clientName(int client) const;
};

// Counts the step's writes into `succeeded` and `errors` (by Status reason, "NoAnswer" without
// an answer) and sets `winner` when exactly one client succeeded. A step that sent no write
// refers to `previousWinner` (the latest step that wrote). Returns whether the step wrote.
bool tallyWrites(LessonStepReport &report, std::optional<int> previousWinner);

// The client whose write the object now shows (its resourceVersion matches a 2xx answer); a step
// that sent no write keeps `previousLast`.
std::optional<int> lastWriter(const LessonStepReport &report, bool wrote, std::optional<int> previousLast);

// The managers of the field at a JSON pointer, as the step reports them.
std::vector<LessonOwner> ownersAt(const OwnershipTree &tree, const std::string &pointer);

// Appends to `report.mismatches` every way the report differs from the expectation.
// `withEvents`: false while the watch is still collecting (event counts and consistency are
// checked only once it has caught up).
void checkExpectation(const LessonExpectation &expectation, LessonStepReport &report, bool withEvents);

} // namespace fieldscope::core
