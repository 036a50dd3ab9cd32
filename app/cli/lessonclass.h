#pragma once
// `fieldscope lesson run NAME` for a class lesson (docs/lessons.md, "Class lessons"): the class
// the lesson runs with. With --simulate-students N, a class of N students started on the cluster
// directory for this run and stopped (purged) when it ends; without, the class already running
// there (`fieldscope class start`), whose students' writes come from the audit log.
#include "app/services/classlessons.h"
#include "core/base/result.h"
#include "lessons/lessonrunner.h"

#include <QString>
#include <QTemporaryDir>

#include <memory>

namespace fieldscope::app {

class LessonClass
{
public:
    // Starts a class of `simulate` students (1..kMaxSimulatedStudents), or with 0 reads the class
    // running on `clusterDir`. Errors say what the lesson needs (Config: exit 2). Simulated
    // students are refused where any class (running, or stopped with its namespace and report
    // kept) has its state: their class would overwrite and purge it.
    static core::Result<std::unique_ptr<LessonClass>> open(const QString &clusterDir, int simulate);
    ~LessonClass(); // stops and purges a class it started
    LessonClass(const LessonClass &) = delete;
    LessonClass &operator=(const LessonClass &) = delete;

    const ClassState &state() const { return m_state; }
    bool simulated() const { return m_simulated != nullptr; }
    // Gives the runner the class's namespace and its students (simulated or observed).
    void attach(lessons::LessonRunner &runner) const;
    // Stops and purges a class this run started (also done by the destructor); reports a failure.
    core::Status close();

private:
    LessonClass() = default;
    ClassState m_state;
    std::shared_ptr<SimulatedClass> m_simulated;
    std::unique_ptr<QTemporaryDir> m_kubeconfigs; // the simulated students' kubeconfigs
    bool m_started = false;
};

inline constexpr int kMaxSimulatedStudents = 200;

} // namespace fieldscope::app
