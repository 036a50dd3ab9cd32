#include "app/cli/lessonclass.h"

#include <QDateTime>
#include <QFileInfo>
#include <QRandomGenerator>

#include <chrono>

namespace fieldscope::app {

namespace {

core::Error needs(const QString &message)
{
    return core::Error::make(core::ErrorCategory::Config, message.toStdString());
}

} // namespace

core::Result<std::unique_ptr<LessonClass>> LessonClass::open(const QString &clusterDir, int simulate)
{
    std::unique_ptr<LessonClass> out(new LessonClass);
    auto running = readClassState(clusterDir);
    const bool classRuns = running.ok() && running->running;
    if (simulate == 0) {
        if (!classRuns)
            return needs(QStringLiteral("this is a class lesson: its steps wait for students' writes, and no class "
                                        "is running on %1. Start one (fieldscope class start --cluster-dir %1 "
                                        "--students NAME,... --out DIR) or rehearse the lesson with simulated "
                                        "students (--simulate-students N)")
                             .arg(clusterDir));
        if (running->students.isEmpty())
            return needs(QStringLiteral("the class running on %1 has no students").arg(clusterDir));
        // Its certificates are refused from then on: the lesson would wait out every class step.
        if (running->expires <= QDateTime::currentDateTimeUtc())
            return needs(QStringLiteral("the class running on %1 expired at %2: the API server refuses its students' "
                                        "certificates. Stop it (fieldscope class stop --cluster-dir %1) and start "
                                        "a new one")
                             .arg(clusterDir, running->expires.toUTC().toString(Qt::ISODate)));
        out->m_state = std::move(*running);
        return out;
    }
    if (classRuns)
        return needs(QStringLiteral("a class of %1 students is running on %2; --simulate-students starts a class "
                                    "of its own. Stop that one first (fieldscope class stop) or run the lesson "
                                    "with it (without --simulate-students)")
                         .arg(running->students.size())
                         .arg(clusterDir));
    // A stopped class keeps its namespace and its report (class stop without --purge) in the same
    // files a rehearsal's class would write (DIR/class/state.json, app/services/classroom.h): never
    // overwrite or purge them.
    const QString kept = clusterDir + QStringLiteral("/class/state.json");
    if (QFileInfo::exists(kept))
        return needs(QStringLiteral("a class that ran on %1 kept its namespace and report (%2); --simulate-students "
                                    "would overwrite and purge them. Remove them first (fieldscope class stop "
                                    "--cluster-dir %1 --purge) or rehearse on another --cluster-dir")
                         .arg(clusterDir, kept));
    // The simulated students' kubeconfigs hold their keys: a private folder (0700), gone afterwards.
    out->m_kubeconfigs = std::make_unique<QTemporaryDir>();
    if (!out->m_kubeconfigs->isValid())
        return needs(QStringLiteral("cannot make a private folder for the students' kubeconfigs: %1")
                         .arg(out->m_kubeconfigs->errorString()));
    ClassStartOptions options;
    options.clusterDir = clusterDir;
    options.students = simulatedStudentNames(simulate);
    options.expires = std::chrono::hours(1);
    options.outDir = out->m_kubeconfigs->path();
    // Namespaces of this rehearsal's own: the last rehearsal's purge may still be deleting its
    // namespaces, and startClass would wait for them (a minute or more on a busy machine).
    options.namespacePrefix =
        QStringLiteral("rehearsal-%1").arg(QRandomGenerator::global()->generate() & 0xffffff, 6, 16, QLatin1Char('0'));
    auto started = startClass(options);
    if (!started)
        return started.error();
    out->m_started = true;
    out->m_state = std::move(*started);
    auto connected = connectStudents(out->m_state);
    if (!connected)
        return connected.error(); // the destructor stops the class
    out->m_simulated = std::move(*connected);
    return out;
}

void LessonClass::attach(lessons::LessonRunner &runner) const
{
    runner.setClassNamespace(m_state.classNamespace.toStdString());
    if (m_simulated)
        runner.setSimulatedStudents(m_simulated->students);
    else
        runner.setStudentWrites(std::make_shared<ClassWriteSource>(m_state));
}

core::Status LessonClass::close()
{
    if (!m_started)
        return core::success();
    m_started = false;
    m_simulated.reset();
    return stopClass(m_state.clusterDir, true);
}

LessonClass::~LessonClass()
{
    (void)close();
}

} // namespace fieldscope::app
