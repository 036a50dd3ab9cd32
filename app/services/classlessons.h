#pragma once
// A class lesson (docs/lessons.md, "Class lessons") with the class of app/services/classroom.h: the
// runner (lessons/lessonrunner.h) sits below this layer, so it is handed the students from here:
// real students' writes as the API server's audit log recorded them (ClassAuditTail), or
// connections for simulated students from the kubeconfigs `startClass` wrote.
//
// Blocking (files, connections): the command line calls these directly, the window from a worker
// thread (ClassWriteSource::writesSince runs on the runner's thread).
#include "app/services/classrequestdecode.h"
#include "app/services/classroom.h"
#include "core/base/result.h"
#include "kube/connection.h"
#include "lessons/studentwrites.h"

#include <deque>
#include <memory>
#include <vector>

namespace fieldscope::app {

// The students' writes of a running class, from its audit log. The log is followed (ClassAuditTail:
// file offset kept, rotation followed), not re-read: each call reads what the log gained since the
// last, at most kMaxBytesPerCall, starting about a minute before the first call's `since`. The
// writes read are kept (at most kMaxKeptWrites, the newest) until a call's `since` passes them, so
// `since` is expected not to go back (a lesson's steps follow each other).
class ClassWriteSource : public lessons::StudentWriteSource
{
public:
    static constexpr qint64 kMaxBytesPerCall = 16 << 20;
    static constexpr std::size_t kMaxKeptWrites = 100000;

    explicit ClassWriteSource(ClassState state);
    ~ClassWriteSource() override;
    std::vector<std::string> students() const override;
    core::Result<std::vector<lessons::StudentWrite>> writesSince(std::chrono::system_clock::time_point since) override;

private:
    ClassState m_state;
    std::unique_ptr<ClassAuditTail> m_tail;
    std::deque<lessons::StudentWrite> m_writes; // read so far, in the log's order
};

// One write of a student as the runner reads it (bounded, empty fields for what the log lacks).
lessons::StudentWrite studentWrite(const ClassRequest &request);

// Simulated students: one connection each, from the kubeconfig the class wrote for them (their own
// identity). The connections stay open as long as this lives; the runner uses their configurations.
struct SimulatedClass {
    std::vector<kube::Connection> connections;
    std::vector<lessons::SimulatedStudent> students;
};
core::Result<std::shared_ptr<SimulatedClass>> connectStudents(const ClassState &state);

// The names of N simulated students: "student1" ... "studentN" (valid names for a class).
QStringList simulatedStudentNames(int count);

} // namespace fieldscope::app
