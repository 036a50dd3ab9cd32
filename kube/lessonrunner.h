#pragma once
// LessonRunner: runs a teaching lesson (core/lesson.h) against a real API server.
//
// Concurrent clients are real: each gets its own Transport (its own network thread and
// connection), warmed up before the step so that their writes leave at the same moment, released
// together by a latch. A watch on the step's object records every event the server sends while
// the step runs, so the report can show that each write arrived whole.
//
// Threading: the calls block until the server has answered (seconds, for a step). The command
// line calls them directly; the window calls them on a worker thread and shows the reports.
#include "core/lesson.h"
#include "core/result.h"
#include "kube/resource.h"
#include "kube/discovery.h"
#include "kube/transport.h"

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace fieldscope::kube {

// One request of a step and the server's answer.
struct LessonCall {
    int client = 0;  // 1-based
    int write = 1;   // the client's write number (1..repeat)
    int attempt = 1; // retry loops: the attempt number
    bool isWrite = true; // false for the reads a read-modify-write client does
    bool unbuilt = false; // the request could not be built (core/lessonrequests.h): nothing was sent
    std::string method;
    std::string path;
    int status = 0;       // 0: no HTTP answer (network failure)
    std::string reason;   // Status reason ("AlreadyExists", "Conflict", "Invalid"), "" on success
    std::string message;  // Status message, or the network error
    std::string resourceVersion; // of the object in a 2xx answer
    std::vector<core::FieldConflict> conflicts;
    std::int64_t sentMs = 0, answeredMs = 0; // since the step started
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
    core::Json object;
};

struct LessonStepReport {
    std::size_t index = 0; // 0-based
    std::string title;
    std::vector<LessonCall> calls; // in order of arrival of the answers
    int succeeded = 0;             // writes answered 2xx
    std::map<std::string, int> errors; // writes refused, by Status reason
    std::optional<int> winner;     // the only client whose write succeeded
    std::optional<int> last;       // the client whose write the object shows now
    core::Json object;             // the step's object afterwards (null when it does not exist)
    std::map<std::string, std::vector<LessonOwner>> owners; // expected and highlighted pointers
    std::vector<LessonEvent> events; // watch events for the step's object during the step
    std::vector<std::string> mismatches; // where the outcome differs from the lesson's claim
    bool passed() const { return mismatches.empty(); }
};

class LessonRunner
{
public:
    using ResolveKind = std::function<const ResourceInfo *(const std::string &apiVersion, const std::string &kind)>;

    // `config` is the connection's transport configuration (credentials included); `ns`
    // overrides the lesson's namespace.
    LessonRunner(TransportConfig config, ResolveKind resolve, core::Lesson lesson, std::string ns = {});
    // Resolves kinds through a discovery snapshot the runner keeps alive.
    static ResolveKind resolverFor(DiscoverySnapshot snapshot);
    ~LessonRunner();
    LessonRunner(const LessonRunner &) = delete;
    LessonRunner &operator=(const LessonRunner &) = delete;

    const core::Lesson &lesson() const { return m_lesson; }
    const std::string &ns() const { return m_ns; }

    // Creates the namespace if needed and deletes every object the lesson writes, waiting until
    // they are gone: the lesson can be run (again) from step 1.
    core::Status reset();
    // Runs step `index` (0-based); steps are meant to run in order after reset().
    LessonStepReport runStep(std::size_t index);
    // Deletes the lesson's namespace (and so everything in it).
    core::Status removeNamespace();
    // Thread-safe: a reset() or runStep() running on another thread gives up within ~50 ms (at
    // its next poll or while waiting for an answer, whose request is cancelled) with a Cancelled
    // error. The runner stays stopped: a window that goes away calls this and does not wait.
    void stop();
    bool isStopped() const;

private:
    struct Impl;
    core::Lesson m_lesson;
    std::string m_ns;
    std::unique_ptr<Impl> m_impl;
};

} // namespace fieldscope::kube
