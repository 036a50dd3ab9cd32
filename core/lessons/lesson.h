#pragma once
// Teaching lessons (docs/lessons.md): a lesson file is data a teacher writes, so every mistake in
// it is refused with its line and the reason, never half-loaded. Pure values; running a lesson is
// lessons/lessonrunner.h.
#include "core/base/json.h"
#include "core/base/result.h"

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fieldscope::core {

// What one lesson request does to its object. Each maps to one write the API server offers (POST, PUT, PATCH, DELETE).
enum class LessonVerb {
    Create,     // POST the manifest
    Update,     // PUT the manifest (with precondition: the object as read, manifest merged in)
    Apply,      // server-side apply of the manifest
    MergePatch, // PATCH application/merge-patch+json
    JsonPatch,  // PATCH application/json-patch+json
};
const char *lessonVerbName(LessonVerb v);

enum class LessonView { Table, Yaml, Ownership, History, Editor };
const char *lessonViewName(LessonView v);

// The object a request or a step addresses.
struct LessonTarget {
    std::string apiVersion; // "v1", "apps/v1"
    std::string kind;       // "ConfigMap"
    std::string name;
    bool operator==(const LessonTarget &) const = default;
    std::string describe() const; // "ConfigMap demo"
};

enum class LessonPrecondition {
    None,      // no resourceVersion: last write wins
    Read,      // every client uses the resourceVersion read just before the request is sent
    AfterStep, // the resourceVersion the target had after step `afterStep` (1-based)
};

struct LessonRequest {
    LessonVerb verb = LessonVerb::Create;
    LessonTarget target;
    int clients = 1;     // concurrent clients, each with its own connection
    int repeat = 1;      // writes each client sends, one after another
    std::string manager; // field manager; "{i}" becomes the client number, "{n}" the write number
    // A person the request is sent as ("alice"): the credentials of the kubeconfig context
    // CONTEXT-alice next to the one the lesson runs on (the sandbox has alice and bob). "" = the
    // lesson's own connection.
    std::string as;
    Json object;             // create / update / apply: the manifest ("{i}" expanded in strings)
    Json patch;              // merge-patch / json-patch
    bool force = false;      // apply
    std::string subresource; // "", "status", "scale"
    LessonPrecondition precondition = LessonPrecondition::None;
    int afterStep = 0;
    bool retry = false; // update: read-modify-write until it succeeds (at most maxAttempts)
    int maxAttempts = 20;
    int line = 0;
};

struct LessonOwnerExpectation {
    std::string pointer;               // "/metadata/labels/label1"
    std::vector<std::string> managers; // exactly these, in any order
    // Given when the lesson named a subresource for any owner ({manager, subresource} entries):
    // then every owner is compared with its subresource ("" = the main resource), one per manager.
    std::optional<std::vector<std::string>> subresources;
};

struct LessonConflictExpectation {
    std::string field;   // server syntax, ".metadata.labels.label1"
    std::string manager; // the current owner the conflict names
    bool every = false;  // every write refused with 409 names it (not only some answer)
};

// Counts a class step cannot know before the class meets (core::LessonStudentTask): `all` is every
// student the step waits for, `rest` every write the step's other counts leave.
inline constexpr int kLessonCountAll = -1;
inline constexpr int kLessonCountRest = -2;

// What the step's narrative claims. Values may say "{winner}" (the number of the only client
// that succeeded) or "{last}" (the client whose write the object shows now); in a class step
// both are the student's name, and a pointer with "{student}" is checked for every student.
struct LessonExpectation {
    std::optional<int> succeeded;                     // requests answered 2xx (class steps: or kLessonCountAll)
    std::map<std::string, int> errors;                // Status reason -> how many (class steps: or all/rest)
    std::vector<std::pair<std::string, Json>> values; // pointer -> value after the step
    std::vector<std::string> absent;                  // pointers the object no longer has
    std::vector<LessonOwnerExpectation> owners;
    std::vector<LessonConflictExpectation> conflicts;
    std::optional<int> events;           // watch events for the step's object during the step
    std::vector<std::string> consistent; // pointers that hold the same value in every event seen
    int waitSeconds = 0;                 // values/owners written by a controller: wait this long
    bool empty() const;
};

// A class step (docs/lessons.md "Class lessons"): instead of simulated clients, the step asks the
// students of a class to write, waits for their writes and checks the lesson's claim on them. With
// simulated students each one sends `request` once (retrying when it says so), on its own
// connection and identity; real students are shown `instruction`.
enum class LessonStudentsUntil {
    Wrote,     // a student counts once they sent a write to the object
    Succeeded, // ... once one of their writes succeeded (a retry loop)
};
struct LessonStudentTask {
    std::string instruction; // what the teacher's screen asks everyone to do
    // What each student sends: verb, object or patch ("{student}" becomes the student's name),
    // manager (default "{student}"), precondition (none, or the resourceVersion on the screen:
    // read when the step starts), retry, force. `clients` and `repeat` are unused.
    LessonRequest request;
    int writes = 0; // students to wait for: 0 = every student of the class
    LessonStudentsUntil until = LessonStudentsUntil::Wrote;
    int timeoutSeconds = 120;
    int line = 0;
};

// The longest a class step may wait for its students, and the largest count it may name.
inline constexpr int kMaxStudentWaitSeconds = 3600;
inline constexpr int kMaxLessonStudents = 500;

struct LessonStep {
    std::string title;
    std::string narrative;
    LessonView view = LessonView::Table;
    LessonTarget focus;    // the object the views select (defaults to the lesson's)
    std::string highlight; // JSON Pointer the views highlight, "" for none
    std::vector<LessonRequest> requests;
    std::optional<LessonStudentTask> students; // a class step: waits for the students' writes
    LessonExpectation expect;
    int line = 0;
};

struct Lesson {
    std::string name; // identifier: `fieldscope lesson run NAME`
    int order = 0;    // position in lists (0 = after the numbered ones)
    std::string title;
    std::string summary;
    std::string ns; // namespace the lesson creates, resets and deletes
    LessonTarget focus;
    std::vector<LessonStep> steps;
    std::string source; // file it was read from, for messages
    // `class: true`: some steps wait for students' writes, so the lesson runs in a class's
    // namespace with its students (or simulated ones), never alone.
    bool isClass = false;

    // Every object the lesson writes (what a reset deletes), the focus first.
    std::vector<LessonTarget> objects() const;
};

// Lesson files are small; a bigger one is a mistake (or not a lesson).
inline constexpr std::size_t kMaxLessonFileBytes = 1u << 20;

// Parses and checks one lesson file. `fileName` names it in errors and gives the default name
// (its base name without .yaml). Errors say "FILE:LINE: reason" in Error::where/message.
Result<Lesson> parseLesson(std::string_view text, const std::string &fileName);

// "{i}" -> client number and "{n}" -> the number of the client's write (1..repeat), in every
// string of `value` (keys included).
Json expandClient(const Json &value, int client, int write = 1);
std::string expandClient(const std::string &text, int client, int write = 1);

// "{student}" -> the student's name, in every string of `value` (keys included); and what one
// student of a class step sends (object, patch and manager expanded).
Json expandStudent(const Json &value, const std::string &student);
std::string expandStudent(const std::string &text, const std::string &student);
LessonRequest studentRequest(const LessonStudentTask &task, const std::string &student);

} // namespace fieldscope::core
