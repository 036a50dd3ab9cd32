#pragma once
// The students of a class step (core::LessonStudentTask): where their writes come from. The runner
// (lessons/lessonrunner.h) sits below app/services, where the class and its audit log are
// (app/services/classroom.h), so the caller hands it either simulated students (a connection
// each, and the runner sends their writes itself) or a StudentWriteSource that observes what real
// students sent. Both end as the same LessonCalls, checked the same way.
//
// Everything read from a source is the students' doing (names, messages, versions): it is
// bounded here before it reaches a report.
#include "core/base/result.h"
#include "core/lessons/lessonreport.h"
#include "kube/transportconfig.h"

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace fieldscope::lessons {

// One write a real student sent, as the API server recorded it.
struct StudentWrite {
    std::chrono::system_clock::time_point time;
    std::string student;
    std::string verb;                            // create, update, patch, delete
    std::string resource, ns, name, subresource; // "configmaps", "class", "race", ""
    int code = 0;                                // the HTTP status the server answered
    std::string resourceVersion;                 // of the object the write made, when recorded
    std::string fieldManager;                    // from the request, when given
    std::string message;                         // a refusal's message
};

// What real students sent. Called on the runner's thread, about once a second while a step waits.
class StudentWriteSource
{
public:
    virtual ~StudentWriteSource() = default;
    // The class's students in roster order: client i of a step is students()[i-1].
    virtual std::vector<std::string> students() const = 0;
    // Every write a student sent at or after `since`, oldest first.
    virtual core::Result<std::vector<StudentWrite>> writesSince(std::chrono::system_clock::time_point since) = 0;
};

// A simulated student: a name and a connection of its own (its own identity). The configuration
// must stay usable as long as the runner (keep the connection it came from alive).
struct SimulatedStudent {
    std::string name;
    kube::TransportConfig config;
};

// What a class step asks, for the caller to show before the runner waits (the CLI prints it; the
// window shows it to the class).
struct StudentPrompt {
    std::size_t step = 0; // 0-based
    std::string instruction;
    std::string object;          // "ConfigMap race"
    std::string ns;              // the class namespace
    std::string resourceVersion; // the one on the screen ("" when the object does not exist)
    int awaited = 0;             // how many students the step waits for
    int timeoutSeconds = 0;
};

// What a class step asks, in the words the command line prints and the window shows: the heading
// ("Step 2/3 asks the class (waiting up to 180 s for 3 students):", or "(simulated: 3 students)")
// and the object ("ConfigMap fight in namespace class, resourceVersion on the screen: 812").
// `steps`: the lesson's number of steps. Neither escapes the lesson file's words: callers do.
std::string promptHeading(const StudentPrompt &prompt, std::size_t steps, bool simulated);
std::string promptObject(const StudentPrompt &prompt);

// Parses the message of an apply conflict as the server writes it (k8s.io/apimachinery
// pkg/util/managedfields/internal/conflict.go): `Apply failed with 1 conflict: conflict with
// "alice": .data.color`, or one "conflicts with "M":" line per manager followed by "- FIELD" lines.
std::vector<core::FieldConflict> conflictsFromMessage(const std::string &message);

// The Status reason a refused write most likely carried, from its code and message (an audit
// record keeps the code and message): 409 "already exists" -> AlreadyExists, 409 -> Conflict,
// 422 Invalid, 403 Forbidden, 404 NotFound, 400 BadRequest; "" for 2xx.
std::string reasonFor(int code, const std::string &message);

// The writes of a step's object, as the step's calls: a student's later writes are dropped unless
// the step retries (a race is everyone's first write), names not in `roster` are ignored, and
// every text is bounded. `since` is when the step asked.
struct StudentObject {
    std::string resource, ns, name; // the step's object ("configmaps", "class", "race")
};
std::vector<core::LessonCall> studentCalls(const std::vector<StudentWrite> &writes,
                                           const std::vector<std::string> &roster, const StudentObject &object,
                                           bool everyWrite, std::chrono::system_clock::time_point since);

// Whether `calls` satisfy the step's wait: `awaited` students wrote (or succeeded, for `until: succeeded`).
int studentsDone(const std::vector<core::LessonCall> &calls, core::LessonStudentsUntil until);

} // namespace fieldscope::lessons
