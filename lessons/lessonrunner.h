#pragma once
// LessonRunner: runs a teaching lesson (core/lessons/lesson.h) against a real API server and
// reports each step (core/lessons/lessonreport.h). It sits above kube/ (it talks to the server)
// and core/lessons (what a lesson claims and how a step is checked).
//
// Concurrent clients are real: each gets its own Transport (its own network thread and
// connection), warmed up before the step so that their writes leave at the same moment, released
// together by a latch. A watch on the step's object records every event the server sends while
// the step runs, so the report can show that each write arrived whole.
//
// A class step (core::LessonStudentTask) waits for students instead: simulated ones, whose writes
// the runner sends itself on each student's own connection, or real ones whose writes a
// StudentWriteSource observes (lessons/studentwrites.h; the class's audit log, given by the caller).
//
// Threading: the calls block until the server has answered (seconds, for a step). The command
// line calls them directly; the window calls them on a worker thread and shows the reports.
#include "core/base/result.h"
#include "core/lessons/lesson.h"
#include "core/lessons/lessonreport.h"
#include "kube/discovery.h"
#include "kube/resource.h"
#include "kube/transport.h"
#include "lessons/studentwrites.h"

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace fieldscope::lessons {

using kube::DiscoverySnapshot;
using kube::ResourceInfo;
using kube::TransportConfig;

using core::LessonCall;
using core::LessonEvent;
using core::LessonOwner;
using core::LessonStepReport;

class LessonRunner
{
public:
    using ResolveKind = std::function<const ResourceInfo *(const std::string &apiVersion, const std::string &kind)>;
    // The connection of a person a request is sent as (core::LessonRequest::as); called on the
    // runner's thread, once per person.
    using ResolvePerson = std::function<core::Result<TransportConfig>(const std::string &person)>;

    // `config` is the connection's transport configuration (credentials included); `ns`
    // overrides the lesson's namespace.
    LessonRunner(TransportConfig config, ResolveKind resolve, core::Lesson lesson, std::string ns = {});
    // Resolves kinds through a discovery snapshot the runner keeps alive.
    static ResolveKind resolverFor(DiscoverySnapshot snapshot);
    ~LessonRunner();
    LessonRunner(const LessonRunner &) = delete;
    LessonRunner &operator=(const LessonRunner &) = delete;

    // Without it, a request with `as` fails its step with a message.
    void setPeople(ResolvePerson people);

    // A class lesson (core::Lesson::isClass) runs in the class's namespace `ns`, which the class
    // made: reset() neither creates nor labels it (it must exist) and removeNamespace() deletes
    // only the lesson's objects in it.
    void setClassNamespace(std::string ns);
    // The students of its class steps: simulated ones (the runner sends each one's writes on its
    // own connection, all at once), or real ones whose writes `source` observes. Without either,
    // a class step fails with what it needs.
    void setSimulatedStudents(std::vector<SimulatedStudent> students);
    void setStudentWrites(std::shared_ptr<StudentWriteSource> source);
    // Called on the runner's thread when a class step asks the students, before it waits.
    void setStudentPrompt(std::function<void(const StudentPrompt &)> prompt);

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

} // namespace fieldscope::lessons
