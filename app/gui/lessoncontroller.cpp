#include "app/gui/lessoncontroller.h"

#include "app/gui/classlauncher.h"
#include "app/gui/clustercontroller.h"
#include "app/services/classlessons.h"
#include "app/services/classroom.h"
#include "app/services/lessoncatalog.h"
#include "app/services/sandbox.h"
#include "core/base/boundary.h"
#include "core/history/historyexport.h"
#include "core/history/historystore.h"
#include "widgets/clusterview.h"
#include "widgets/detailpane.h"
#include "widgets/lessonpanel.h"
#include "widgets/mainwindow.h"
#include "widgets/objecttablepage.h"
#include "widgets/plaintext.h"

#include <QCoreApplication>
#include <QDir>
#include <QDockWidget>
#include <QFileInfo>
#include <QGuiApplication>
#include <QLocale>
#include <QMessageBox>
#include <QScreen>
#include <QTableView>
#include <QTimer>
#include <QtConcurrent>

namespace fieldscope::app {

struct LessonController::Job {
    std::optional<core::Error> error;
    bool wasReset = false;
    std::vector<core::LessonStepReport> reports; // in step order, from `first`
    int first = 0;
    std::string classNamespace; // a class lesson's reset: the namespace of the class it found
    bool needsClass = false;    // `error` says what a class lesson needs (no class runs there, ...)
};

struct LessonController::ClassLookup {
    QString kubeconfig; // the connection's file: its folder is the cluster's directory
    QString context;
    std::function<void(const lessons::StudentPrompt &)> prompt; // called on the runner's thread
};

namespace {

constexpr const char *kNoClassYet = "the class lesson has not found its class yet: nothing of it was recorded";

widgets::DetailPane::Tab tabFor(core::LessonView v)
{
    switch (v) {
    case core::LessonView::Yaml: return widgets::DetailPane::YamlTab;
    case core::LessonView::Ownership: return widgets::DetailPane::OwnershipTab;
    case core::LessonView::History: return widgets::DetailPane::HistoryTab;
    case core::LessonView::Editor: return widgets::DetailPane::YamlTab;
    case core::LessonView::Table: break;
    }
    return widgets::DetailPane::SummaryTab;
}

} // namespace

LessonController::LessonController(widgets::MainWindow *window, ClusterController *cluster, core::Lesson lesson,
                                   QObject *parent)
    : QObject(parent)
    , m_window(window)
    , m_cluster(cluster)
    , m_lesson(std::move(lesson))
    , m_ns(m_lesson.isClass ? std::string() : m_lesson.ns)
    , m_panel(new widgets::LessonPanel)
    , m_dock(new QDockWidget(tr("Lesson"), window))
    , m_focusTimer(new QTimer(this))
{
    m_dock->setObjectName(QStringLiteral("lessonDock"));
    m_dock->setWidget(m_panel);
    window->addDockWidget(Qt::RightDockWidgetArea, m_dock);
    m_reports.resize(m_lesson.steps.size());
    const QString where = m_lesson.isClass
                            ? tr("The class namespace on %1").arg(cluster->contextName())
                            : tr("Namespace %1 on %2").arg(QString::fromStdString(m_ns), cluster->contextName());
    m_panel->setLesson(m_lesson, where);
    connect(m_panel, &widgets::LessonPanel::nextRequested, this, &LessonController::next);
    connect(m_panel, &widgets::LessonPanel::backRequested, this, &LessonController::back);
    connect(m_panel, &widgets::LessonPanel::resetRequested, this, &LessonController::reset);
    connect(m_panel, &widgets::LessonPanel::runAgainRequested, this, &LessonController::runAgain);
    connect(m_panel, &widgets::LessonPanel::presenterToggled, this, &LessonController::setPresenter);
    connect(&m_job, &QFutureWatcher<std::shared_ptr<Job>>::finished, this, &LessonController::onJobDone);
    m_focusTimer->setInterval(200);
    connect(m_focusTimer, &QTimer::timeout, this, [this] { focusViews(m_index); });
}

LessonController::~LessonController()
{
    m_focusTimer->stop();
    // Never waits: a reset can poll for minutes (a namespace stuck in Terminating). The job holds
    // the runner (a shared_ptr) and nothing of this object; stopped, it gives up at its next poll
    // or answer on the pool's thread, and its result reaches no one (the watcher dies with us).
    if (m_runner)
        m_runner->stop();
    delete m_dock;
}

// One thread for every lesson job of the process: steps run in order, and a stopped job of a
// closed window finishes there without anyone waiting for it (the pool is joined at exit, when
// every job was stopped).
QThreadPool *LessonController::jobPool()
{
    static QThreadPool *pool = [] {
        auto *p = new QThreadPool(QCoreApplication::instance());
        p->setMaxThreadCount(1);
        return p;
    }();
    return pool;
}

bool LessonController::isSandbox() const
{
    if (!m_cluster || !m_cluster->connection())
        return false;
    const kube::ResolvedConfig &c = m_cluster->connection()->config;
    const QString dir = QDir(SandboxController::dataDir()).canonicalPath();
    const QString file = QFileInfo(QString::fromStdString(c.sourceFile)).canonicalFilePath();
    return !dir.isEmpty() && file.startsWith(dir + QLatin1Char('/'))
        && c.contextName == SandboxController::contextName().toStdString();
}

void LessonController::start(bool confirmed)
{
    if (!m_cluster || !m_cluster->connection()) {
        m_panel->setError(tr("Not connected yet: the lesson starts once the cluster is."));
        return;
    }
    // The table follows the lesson's kind from the start, so that the History tab has every
    // version the lesson makes.
    if (const kube::DiscoverySnapshot *d = m_cluster->discovery())
        if (const kube::ResourceInfo *r = d->findKind(m_lesson.focus.apiVersion, m_lesson.focus.kind))
            m_cluster->showResource(QString::fromStdString(r->qualifiedName()));
    // A class lesson writes only in the namespace of a class on a cluster of this machine (the
    // class made it): no question first. Whether a class runs there is read by the job.
    if (m_lesson.isClass) {
        auto lookup = std::make_shared<ClassLookup>();
        lookup->kubeconfig = QString::fromStdString(m_cluster->connection()->config.sourceFile);
        lookup->context = m_cluster->contextName();
        lookup->prompt = [self = QPointer<LessonController>(this)](const lessons::StudentPrompt &p) {
            QMetaObject::invokeMethod(
                qApp,
                [self, p] {
                    if (self)
                        self->showStudentPrompt(p);
                },
                Qt::QueuedConnection);
        };
        m_class = std::move(lookup);
        resetNamespace();
        return;
    }
    m_confirmed = m_confirmed || confirmed;
    if (m_confirmed || isSandbox()) {
        resetNamespace();
        return;
    }
    QStringList objects;
    for (const core::LessonTarget &t : m_lesson.objects())
        objects << QString::fromStdString(t.describe());
    auto *box = new QMessageBox(
        QMessageBox::Warning, widgets::windowTitleText(tr("Run the lesson on %1?").arg(m_cluster->contextName())),
        tr("%1 is not the sandbox cluster.\n\nThe lesson \"%2\" will create the namespace %3 and delete and rewrite "
           "%4 in it, with real requests from several clients at once.")
            .arg(m_cluster->contextName(), QString::fromStdString(m_lesson.title), QString::fromStdString(m_lesson.ns),
                 objects.join(QStringLiteral(", "))),
        QMessageBox::Cancel, m_window);
    box->setTextFormat(Qt::PlainText);
    box->addButton(tr("Run the lesson"), QMessageBox::AcceptRole);
    box->setAttribute(Qt::WA_DeleteOnClose);
    connect(box, &QMessageBox::finished, this, [this, box] {
        if (box->buttonRole(box->clickedButton()) == QMessageBox::AcceptRole)
            resetNamespace();
        else
            m_panel->setError(
                tr("Not started: nothing was changed on %1.").arg(m_cluster ? m_cluster->contextName() : QString()));
    });
    box->open();
}

void LessonController::ensureRunner()
{
    if (m_runner || !m_cluster || !m_cluster->connection() || !m_cluster->discovery())
        return;
    m_runner = std::make_shared<lessons::LessonRunner>(m_cluster->connection()->transport->config(),
                                                       lessons::LessonRunner::resolverFor(*m_cluster->discovery()),
                                                       m_lesson);
    m_runner->setPeople(lessonPeople(m_cluster->connection()->config));
}

void LessonController::launch(const QString &what, std::function<Job(lessons::LessonRunner &)> work)
{
    ensureRunner();
    if (!m_runner) {
        m_panel->setError(tr("Not connected yet: the lesson starts once the cluster is."));
        return;
    }
    m_busy = true;
    m_panel->setBusy(what);
    auto runner = m_runner;
    m_job.setFuture(QtConcurrent::run(jobPool(), [runner, work = std::move(work)] {
        return std::make_shared<Job>(work(*runner));
    }));
}

void LessonController::onJobDone()
{
    m_busy = false;
    auto taken = core::readResult(m_job.future(), "the lesson step");
    std::shared_ptr<Job> job = taken ? std::move(*taken) : std::make_shared<Job>();
    if (!taken) // the runner threw: the step failed, the lesson stays usable
        job->error = taken.error();
    // The runner works in the class's namespace from the moment it found the class, a reset
    // that failed after that included.
    if (!job->classNamespace.empty() && job->classNamespace != m_ns) {
        m_ns = job->classNamespace;
        m_panel->setLesson(m_lesson,
                           tr("Namespace %1 (the class's) on %2")
                               .arg(QString::fromStdString(m_ns), m_cluster ? m_cluster->contextName() : QString()));
    }
    if (job->error) {
        // A reset that failed leaves the namespace in no known state (and a class lesson perhaps
        // without its class): back to the introduction, where Start resets again.
        if (job->wasReset) {
            m_started = false;
            for (auto &r : m_reports)
                r.reset();
            m_index = -1;
            m_panel->showStep(-1, nullptr);
        }
        // What a class lesson needs (attachClass) is said as it is: nothing failed yet.
        const QString why = QString::fromStdString(job->needsClass ? job->error->message : job->error->describe());
        m_panel->setError(job->needsClass ? why : tr("The lesson could not go on: %1").arg(why));
        Q_EMIT failed(why);
        return;
    }
    if (job->wasReset) {
        m_started = true;
        for (auto &r : m_reports)
            r.reset();
        m_index = -1;
    }
    for (std::size_t i = 0; i < job->reports.size(); ++i)
        m_reports[std::size_t(job->first) + i] = job->reports[i];
    const int shown = job->reports.empty() ? m_index : job->first + int(job->reports.size()) - 1;
    m_panel->setBusy(QString());
    show(shown);
    if (m_target > shown && shown + 1 < int(m_lesson.steps.size()))
        next();
    else if (shown >= m_target)
        m_target = -1; // reached: a later Start or Reset does not run on by itself
}

void LessonController::show(int index)
{
    m_index = index;
    m_panel->showStep(index, index >= 0 && m_reports[std::size_t(index)] ? &*m_reports[std::size_t(index)] : nullptr);
    m_focusTries = 0;
    if (index < 0) {
        Q_EMIT stepShown(index);
        return;
    }
    focusViews(index);
}

// The step's view: its kind in the table, its object selected, its tab and field shown. The
// table fills from the watch a moment after the write, so this retries for a few seconds.
void LessonController::focusViews(int index)
{
    if (!m_cluster || !m_cluster->view() || index != m_index || index < 0) {
        m_focusTimer->stop();
        return;
    }
    const core::LessonStep &step = m_lesson.steps[std::size_t(index)];
    widgets::ClusterView *view = m_cluster->view();
    const bool selected = view->tablePage()->selectName(QString::fromStdString(m_ns),
                                                        QString::fromStdString(step.focus.name));
    if (selected) {
        view->detailPane()->setCurrentTab(tabFor(step.view));
        const bool highlighted = step.highlight.empty()
                              || view->detailPane()->highlight(QString::fromStdString(step.highlight));
        if (highlighted || ++m_focusTries > 25) {
            m_focusTimer->stop();
            if (step.view == core::LessonView::Editor)
                view->detailPane()->requestEdit();
            Q_EMIT stepShown(index);
            return;
        }
    } else if (++m_focusTries > 50) { // 10 s: the object is gone (a lesson about deletes) or not shown
        m_focusTimer->stop();
        Q_EMIT stepShown(index);
        return;
    }
    if (!m_focusTimer->isActive())
        m_focusTimer->start();
}

void LessonController::next()
{
    if (m_busy || m_index + 1 >= int(m_lesson.steps.size()))
        return;
    // Not reset yet (not started, refused, or the reset failed): Start starts, asking first where
    // start() asks, and a class lesson looks for its class again.
    if (!m_started) {
        start();
        return;
    }
    const int step = m_index + 1;
    if (m_reports[std::size_t(step)]) { // already run (after Back): show it again
        show(step);
        if (m_target > step)
            next();
        else
            m_target = -1;
        return;
    }
    launch(tr("Running step %1…").arg(step + 1), [step](lessons::LessonRunner &r) {
        Job job;
        job.first = step;
        job.reports.push_back(r.runStep(std::size_t(step)));
        return job;
    });
}

void LessonController::back()
{
    if (!m_busy && m_index >= 0)
        show(m_index - 1);
}

void LessonController::reset()
{
    if (m_busy)
        return;
    if (!m_started) { // as Start: asking first where start() asks
        start();
        return;
    }
    m_target = -1;
    resetNamespace();
}

void LessonController::resetNamespace()
{
    const QString what = m_class && !m_started ? tr("Looking for the class on %1…").arg(m_class->context)
                                               : tr("Resetting namespace %1…").arg(QString::fromStdString(m_ns));
    launch(what, [lookup = m_class](lessons::LessonRunner &r) {
        Job job;
        resetForJob(r, lookup.get(), job);
        return job;
    });
}

void LessonController::runAgain()
{
    if (m_busy || m_index < 0)
        return;
    const int upTo = m_index;
    launch(tr("Running steps 1 to %1 again…").arg(upTo + 1), [upTo, lookup = m_class](lessons::LessonRunner &r) {
        Job job;
        resetForJob(r, lookup.get(), job);
        if (job.error)
            return job;
        for (int i = 0; i <= upTo; ++i)
            job.reports.push_back(r.runStep(std::size_t(i)));
        return job;
    });
}

void LessonController::resetForJob(lessons::LessonRunner &runner, const ClassLookup *lookup, Job &job)
{
    job.wasReset = true;
    // Every reset reads the class again: one stopped and started since has other students.
    if (lookup) {
        auto ns = attachClass(runner, *lookup);
        if (!ns) {
            job.needsClass = ns.error().category == core::ErrorCategory::Config;
            job.error = ns.error();
            return;
        }
        job.classNamespace = std::move(*ns);
    }
    if (auto st = runner.reset(); !st)
        job.error = st.error();
}

core::Result<std::string> LessonController::attachClass(lessons::LessonRunner &runner, const ClassLookup &lookup)
{
    const auto needs = [](const QString &why) {
        return core::Error::make(core::ErrorCategory::Config, why.toStdString());
    };
    const QString rehearse = tr("To rehearse it without students: fieldscope lesson run %1 --simulate-students N")
                                 .arg(QString::fromStdString(runner.lesson().name));
    // The directory's own kubeconfig, as `lesson run` writes without asking only through it: any
    // other file there may name another cluster.
    const QString dir = QFileInfo(lookup.kubeconfig).fileName() == QLatin1String("kubeconfig")
                          ? ClassLauncher::clusterDirOf(lookup.kubeconfig)
                          : QString();
    if (dir.isEmpty())
        return needs(tr("This is a class lesson: it runs with a class on the sandbox, or on a cluster that "
                        "scripts/fieldscope-cluster started, and %1 is neither. Connect to the sandbox and start "
                        "a class from the Class menu. %2")
                         .arg(lookup.context, rehearse));
    const QString startOne = tr("Start one from the Class menu (Start Class from a Roster…), then press Start again.");
    auto state = readClassState(dir);
    if (!state && state.error().category == core::ErrorCategory::NotFound)
        return needs(tr("This is a class lesson: its steps wait for the students' writes, and no class runs on "
                        "%1. %2 %3")
                         .arg(lookup.context, startOne, rehearse));
    if (!state)
        return needs(tr("The class on %1 cannot be read: %2. Remove it with fieldscope class stop --cluster-dir %3 "
                        "--purge, then start a new one.")
                         .arg(lookup.context, QString::fromStdString(state.error().message), dir));
    if (!state->running)
        return needs(tr("This is a class lesson, and the class on %1 was stopped. %2 %3")
                         .arg(lookup.context, startOne, rehearse));
    if (state->expires <= QDateTime::currentDateTimeUtc())
        return needs(tr("This is a class lesson, and the class on %1 expired at %2: its students can no longer "
                        "write. Stop it from the Class menu and start a new one.")
                         .arg(lookup.context, QLocale().toString(state->expires.toLocalTime(), QLocale::ShortFormat)));
    if (state->students.isEmpty())
        return needs(tr("The class on %1 has no students: stop it from the Class menu and start one with a "
                        "roster. %2")
                         .arg(lookup.context, rehearse));
    runner.setClassNamespace(state->classNamespace.toStdString());
    runner.setStudentWrites(std::make_shared<ClassWriteSource>(*state));
    runner.setStudentPrompt(lookup.prompt);
    return state->classNamespace.toStdString();
}

// What a class step asks everyone, shown while it waits, under the step's own narrative (the
// class reads it from the screen): the command line prints the same words. It reaches this
// thread before the step's end does (both are posted by the runner's thread), whose report then
// replaces it.
void LessonController::showStudentPrompt(const lessons::StudentPrompt &p)
{
    if (p.step < m_lesson.steps.size())
        m_panel->showStep(int(p.step), nullptr);
    m_panel->showStudentPrompt(QString::fromStdString(lessons::promptHeading(p, m_lesson.steps.size(), false)),
                               QString::fromStdString(p.instruction), QString::fromStdString(lessons::promptObject(p)));
}

void LessonController::runTo(int index)
{
    m_target = std::min(index, int(m_lesson.steps.size()) - 1);
    if (m_started && !m_busy && m_index < m_target)
        next();
}

void LessonController::setPresenter(bool on)
{
    m_panel->setPresenter(on);
    const QList<QScreen *> screens = QGuiApplication::screens();
    if (on && screens.size() > 1 && m_window) {
        // The narrative goes to the second screen (the projector); the views stay on the laptop.
        QScreen *other = screens.at(0) == m_window->screen() ? screens.at(1) : screens.at(0);
        m_dock->setFloating(true);
        m_dock->setGeometry(other->availableGeometry());
    } else if (!on) {
        m_dock->setFloating(false);
    }
}

const core::LessonStepReport *LessonController::report(int index) const
{
    if (index < 0 || index >= int(m_reports.size()) || !m_reports[std::size_t(index)])
        return nullptr;
    return &*m_reports[std::size_t(index)];
}

core::Result<std::int64_t> LessonController::saveHistory(const QString &file) const
{
    if (!m_cluster || m_cluster->historyDatabase().isEmpty())
        return core::Error::make(core::ErrorCategory::Io, "nothing was recorded for this cluster");
    if (m_ns.empty())
        return core::Error::make(core::ErrorCategory::NotFound, kNoClassYet);
    return exportHistory(m_cluster->historyDatabase(), m_ns, file);
}

core::Result<std::int64_t> LessonController::exportHistory(const QString &database, const std::string &ns,
                                                           const QString &file)
{
    auto store = core::HistoryStore::open(database.toStdString(), core::HistoryStore::OpenMode::ReadOnly);
    if (!store)
        return store.error();
    core::ObjectQuery q;
    q.namespace_ = ns;
    return core::exportJsonLines(**store, q, file.toStdString());
}

} // namespace fieldscope::app
