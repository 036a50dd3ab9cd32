#pragma once
// LessonController: a lesson in the window (docs/lessons.md). Runs the lesson's steps with
// lessons::LessonRunner on a worker thread (the runner blocks on the server), shows each step's
// narrative and report in a LessonPanel docked beside the cluster's views, and brings up the view
// the step names: the object selected, the tab chosen, the field highlighted. Asks before it
// touches a cluster that is not the sandbox. A class lesson runs with the class running on the
// cluster's directory (the sandbox's, or one scripts/fieldscope-cluster made): its steps wait for
// the students' writes, read from that directory's audit log, and the panel shows what each step
// asks the class while it waits. Lives on the GUI thread.
#include "core/lessons/lesson.h"
#include "lessons/lessonrunner.h"

#include <QFutureWatcher>
#include <QObject>
#include <QPointer>
#include <QThreadPool>

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

class QDockWidget;
class QTimer;

namespace fieldscope::widgets {
class LessonPanel;
class MainWindow;
} // namespace fieldscope::widgets

namespace fieldscope::app {

class ClusterController;

class LessonController : public QObject
{
    Q_OBJECT
public:
    LessonController(widgets::MainWindow *window, ClusterController *cluster, core::Lesson lesson,
                     QObject *parent = nullptr);
    ~LessonController() override;

    // Asks first when the cluster is not the sandbox (`confirmed` skips that: the user already
    // said yes, e.g. with --yes), then resets the lesson's namespace and shows the introduction.
    // A class lesson asks nothing (it writes only in its class's namespace): it finds the class
    // running on the cluster's directory first, or says what it needs.
    void start(bool confirmed = false);
    void next();
    void back();
    void reset();
    void runAgain();
    // Runs steps until `index` (0-based) is shown: --lesson-step and the tests.
    void runTo(int index);
    void setPresenter(bool on);

    widgets::LessonPanel *panel() const { return m_panel; }
    int currentStep() const { return m_index; }
    bool isBusy() const { return m_busy; }
    const core::LessonStepReport *report(int index) const;
    const core::Lesson &lesson() const { return m_lesson; }
    // Where the lesson's objects are: its namespace, or its class's once the class was found ("" until then).
    const std::string &ns() const { return m_ns; }
    ClusterController *cluster() const { return m_cluster; }
    // Saves what the app recorded about ns() as JSON Lines (fieldscope --open).
    core::Result<std::int64_t> saveHistory(const QString &file) const;
    // The same from values only, for a worker thread: reads the store, writes `file`.
    static core::Result<std::int64_t> exportHistory(const QString &database, const std::string &ns,
                                                    const QString &file);

Q_SIGNALS:
    // The step is shown and its view brought up (object selected and highlighted, or given up).
    void stepShown(int index);
    void failed(const QString &message);

private:
    struct Job;         // what a worker run produced
    struct ClassLookup; // how a class lesson's jobs find the class
    static QThreadPool *jobPool();
    // A class lesson: finds the class running on the cluster's directory and gives the runner its
    // namespace, its students' writes and the prompt callback. The class namespace, or why not.
    static core::Result<std::string> attachClass(lessons::LessonRunner &runner, const ClassLookup &lookup);
    // The namespace reset, after attachClass for a class lesson (`lookup` non-null).
    static void resetForJob(lessons::LessonRunner &runner, const ClassLookup *lookup, Job &job);
    void showStudentPrompt(const lessons::StudentPrompt &prompt);
    void ensureRunner();
    void launch(const QString &what, std::function<Job(lessons::LessonRunner &)> work);
    void onJobDone();
    void resetNamespace(); // reset() without forgetting runTo's target
    void show(int index);
    void focusViews(int index);
    bool isSandbox() const;

    QPointer<widgets::MainWindow> m_window;
    QPointer<ClusterController> m_cluster;
    core::Lesson m_lesson;
    std::string m_ns;                           // where its objects are: the lesson's namespace, or its class's
    std::shared_ptr<const ClassLookup> m_class; // a class lesson, once start() was called
    widgets::LessonPanel *m_panel;
    QDockWidget *m_dock;
    std::shared_ptr<lessons::LessonRunner> m_runner; // used on jobPool()'s thread only while a job runs
    std::vector<std::optional<core::LessonStepReport>> m_reports;
    int m_index = -1;
    int m_target = -1; // runTo: keep going until this step
    bool m_busy = false;
    bool m_started = false;   // the namespace was reset once: steps may run
    bool m_confirmed = false; // the user said yes to a cluster that is not the sandbox (or --yes)
    QFutureWatcher<std::shared_ptr<Job>> m_job;
    QTimer *m_focusTimer;
    int m_focusTries = 0;
};

} // namespace fieldscope::app
