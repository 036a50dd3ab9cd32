#include "app/gui/classlauncher.h"

#include "app/gui/clustercontroller.h"
#include "app/gui/workspace.h"
#include "app/services/sandbox.h"
#include "app/services/threadreaper.h"
#include "core/base/boundary.h"
#include "widgets/classview.h"
#include "widgets/mainwindow.h"
#include "widgets/plaintext.h"
#include "widgets/startclassdialog.h"

#include <QAction>
#include <QClipboard>
#include <QDesktopServices>
#include <QDir>
#include <QDockWidget>
#include <QFile>
#include <QFileInfo>
#include <QGuiApplication>
#include <QInputDialog>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QPushButton>
#include <QSet>
#include <QThreadPool>
#include <QTimer>
#include <QUrl>
#include <QtConcurrent>

namespace fieldscope::app {

namespace {

// The objects the race can be switched to; older ones are forgotten.
constexpr int kMaxObjects = 200;

models::ClassActivity activityOf(const ClassRequest &r)
{
    models::ClassActivity a;
    a.time = r.time;
    a.student = r.student;
    a.verb = r.verb;
    QStringList parts{r.resource};
    if (!r.namespaceName.isEmpty())
        parts << r.namespaceName;
    if (!r.name.isEmpty())
        parts << r.name;
    a.object = r.resource.isEmpty() ? QString() : parts.join(u'/');
    if (!r.subresource.isEmpty())
        a.object += u'/' + r.subresource;
    a.code = r.code;
    a.resourceVersion = r.resourceVersion;
    a.fieldManager = r.fieldManager;
    a.reason = r.reason;
    a.write = r.isWrite();
    a.refused = r.refused();
    return a;
}

// The roster file, read on the worker: bounded, then parsed by the class core's rules.
core::Result<QStringList> readRoster(const QString &path)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        return core::Error::make(core::ErrorCategory::Io,
                                 "cannot read the roster " + path.toStdString() + ": " + f.errorString().toStdString());
    const QByteArray text = f.read(kMaxRosterBytes + 1);
    if (text.size() > kMaxRosterBytes)
        return core::Error::make(core::ErrorCategory::Invalid, "the roster " + path.toStdString() + " is larger than "
                                                                   + std::to_string(kMaxRosterBytes) + " bytes");
    return parseRoster(text);
}

} // namespace

ClassLauncher::ClassLauncher(widgets::MainWindow *window, Workspace *workspace, QObject *parent)
    : QObject(parent), m_window(window), m_workspace(workspace), m_pool(new QThreadPool)
{
    m_pool->setMaxThreadCount(1);
    m_view = new widgets::ClassView;
    m_view->setModels(&m_students, &m_race);
    m_dock = new QDockWidget(tr("Class"), window);
    m_dock->setObjectName(QStringLiteral("classDock"));
    m_dock->setWidget(m_view);
    window->addDockWidget(Qt::BottomDockWidgetArea, m_dock);
    m_dock->hide();
    connect(m_view, &widgets::ClassView::raceObjectChosen, &m_race, &models::ClassRaceModel::setObject);
    connect(&m_feed, &ClassFeed::stateChanged, this, &ClassLauncher::onState);
    connect(&m_feed, &ClassFeed::requestsArrived, this, &ClassLauncher::onRequests);
    connect(&m_feed, &ClassFeed::failing, m_view, &widgets::ClassView::showProblem);
    connect(&m_job, &QFutureWatcher<QString>::finished, this, [this] {
        m_jobRunning = false;
        const auto r = core::takeResult(m_job.future(), "class");
        const QString error = r ? *r : QString::fromStdString(r.error().describe());
        m_feed.pollNow();
        updateActions();
        Q_EMIT actionFinished(error);
        if (!error.isEmpty() && m_window->isVisible()) {
            QMessageBox box(QMessageBox::Warning, tr("Class"), QString(), QMessageBox::Ok, m_window);
            widgets::setPlainText(&box, error);
            box.exec();
        }
    });
    buildMenu();
}

ClassLauncher::~ClassLauncher()
{
    reapWhenDone(std::exchange(m_pool, nullptr));
}

QString ClassLauncher::clusterDirOf(const QString &kubeconfigPath)
{
    if (kubeconfigPath.isEmpty())
        return {};
    const QDir dir = QFileInfo(kubeconfigPath).absoluteDir();
    if (QFileInfo(dir.filePath(QStringLiteral("logs"))).isDir()
        && QFileInfo(dir.filePath(QStringLiteral("pki"))).isDir())
        return dir.absolutePath();
    return {};
}

void ClassLauncher::setClusterDir(const QString &dir)
{
    if (dir == m_dir)
        return;
    m_dir = dir;
    m_feed.setClusterDir(dir);
    updateActions();
}

void ClassLauncher::buildMenu()
{
    // Before Help, beside Lessons.
    m_menu = new QMenu(tr("&Class"), m_window->menuBar());
    m_menu->setObjectName(QStringLiteral("classMenu"));
    m_menu->setToolTipsVisible(true);
    const QList<QAction *> menus = m_window->menuBar()->actions();
    if (menus.isEmpty())
        m_window->menuBar()->addMenu(m_menu);
    else
        m_window->menuBar()->insertMenu(menus.last(), m_menu);
    m_start = m_menu->addAction(tr("&Start Class from a Roster…"), this, &ClassLauncher::askToStart);
    m_folder = m_menu->addAction(tr("Open the &Kubeconfig Folder"), this, &ClassLauncher::openFolder);
    m_copy = m_menu->addAction(tr("&Copy a Student's Kubeconfig Path…"), this, &ClassLauncher::copyKubeconfig);
    m_menu->addSeparator();
    m_show = m_menu->addAction(tr("Show the Class &View"), this, [this] {
        m_dock->show();
        m_dock->raise();
    });
    m_stop = m_menu->addAction(tr("S&top Class…"), this, &ClassLauncher::askToStop);
    connect(m_menu, &QMenu::aboutToShow, this, [this] {
        // The current cluster decides: its kubeconfig's folder is a cluster directory or not.
        // A running class keeps the feed (and its banner, with a listen address the dock that
        // cannot close) whichever tab is current: it ends with Stop Class, not with a tab switch.
        ClusterController *c = m_workspace ? m_workspace->current() : nullptr;
        if (c && c->connection() && !m_feed.isRunning())
            setClusterDir(clusterDirOf(QString::fromStdString(c->connection()->config.sourceFile)));
        updateActions();
    });
    updateActions();
}

void ClassLauncher::updateActions()
{
    const bool here = !m_dir.isEmpty();
    const bool running = m_feed.isRunning();
    const QString notHere = tr("Classes run on the sandbox (fieldscope --sandbox) or a cluster directory that "
                               "scripts/fieldscope-cluster made; this cluster is neither");
    const QString busy = tr("A start or stop of the class is in progress");
    m_start->setEnabled(here && !running && !m_jobRunning);
    m_start->setToolTip(!here          ? notHere
                        : running      ? tr("A class is running: stop it first")
                        : m_jobRunning ? busy
                                       : QString());
    for (QAction *a : {m_folder, m_copy, m_stop}) {
        a->setEnabled(here && running && !m_jobRunning);
        a->setToolTip(!here ? notHere : !running ? tr("No class is running") : m_jobRunning ? busy : QString());
    }
    m_show->setEnabled(here);
    m_show->setToolTip(here ? QString() : notHere);
}

void ClassLauncher::askToStart()
{
    widgets::StartClassDialog dialog(m_dir + QStringLiteral("/class/kubeconfigs"), m_window);
    if (dialog.exec() != QDialog::Accepted)
        return;
    startClass(dialog.rosterFile(), dialog.expiresHours(), dialog.listen(), dialog.outDir());
}

void ClassLauncher::startClass(const QString &rosterFile, int expiresHours, const QString &listen,
                               const QString &outDir)
{
    const QString dir = m_dir;
    runJob([dir, rosterFile, expiresHours, listen, outDir]() -> QString {
        auto names = readRoster(rosterFile);
        if (!names)
            return QString::fromStdString(names.error().describe());
        ClassStartOptions o;
        o.clusterDir = dir;
        o.students = *names;
        o.listen = listen;
        o.expires = std::chrono::hours(expiresHours);
        o.outDir = outDir;
        auto started = app::startClass(o);
        return started ? QString() : QString::fromStdString(started.error().describe());
    });
    m_dock->show();
}

void ClassLauncher::askToStop()
{
    QMessageBox box(QMessageBox::Question, tr("Stop the Class"), QString(), QMessageBox::Cancel, m_window);
    box.setObjectName(QStringLiteral("stopClassBox"));
    widgets::setPlainText(&box, tr("Stop the class? The API server refuses every student from then on; their "
                                   "namespaces and what they wrote stay."));
    QPushButton *stop = box.addButton(tr("Stop Class"), QMessageBox::DestructiveRole);
    box.exec();
    if (box.clickedButton() == static_cast<QAbstractButton *>(stop))
        stopClass();
}

void ClassLauncher::stopClass()
{
    runJob([dir = m_dir]() -> QString {
        auto stopped = app::stopClass(dir, false);
        return stopped ? QString() : QString::fromStdString(stopped.error().describe());
    });
}

void ClassLauncher::runJob(std::function<QString()> job)
{
    if (m_jobRunning || m_dir.isEmpty())
        return;
    m_jobRunning = true;
    updateActions();
    m_job.setFuture(QtConcurrent::run(m_pool, std::move(job)));
}

void ClassLauncher::copyKubeconfig()
{
    const auto &state = m_feed.state();
    if (!state || state->students.isEmpty())
        return;
    QStringList names;
    for (const ClassStudent &s : state->students)
        names << s.name;
    QInputDialog ask(m_window);
    ask.setObjectName(QStringLiteral("copyKubeconfigDialog"));
    ask.setWindowTitle(tr("Copy a Student's Kubeconfig Path"));
    widgets::setPlainLabelText(&ask, tr("The kubeconfig holds the student's key: give it to that student only."));
    ask.setComboBoxItems(names);
    ask.setComboBoxEditable(false);
    if (ask.exec() != QDialog::Accepted)
        return;
    const qsizetype i = names.indexOf(ask.textValue());
    if (i < 0)
        return;
    QGuiApplication::clipboard()->setText(state->students[i].kubeconfigPath);
}

void ClassLauncher::openFolder()
{
    if (const auto &state = m_feed.state(); state && !state->outDir.isEmpty())
        QDesktopServices::openUrl(QUrl::fromLocalFile(state->outDir));
}

void ClassLauncher::setPresenter(bool on)
{
    m_view->setPresenter(on);
    if (on && m_dock->isVisible() && !m_dock->isFloating()) // the room reads the race: give it the window
        QTimer::singleShot(0, m_dock, [this] {              // once the dock is laid out
            m_window->resizeDocks({m_dock}, {m_window->height() * 2 / 3}, Qt::Vertical);
        });
}

void ClassLauncher::onState()
{
    const auto &state = m_feed.state();
    // Another class (or none): its counts, race and objects start from nothing.
    const QDateTime started = state ? state->started : QDateTime();
    if (started != m_shownClassStarted) {
        m_shownClassStarted = started;
        m_students.clear();
        m_race.clear();
        m_objects.clear();
        m_view->setRaceObjects(m_objects);
    }
    if (state && state->running) {
        QStringList names;
        for (const ClassStudent &s : state->students)
            names << s.name;
        m_students.setRoster(names);
        m_view->showRunning(int(names.size()), state->expires, state->listen);
        const bool shown = m_dock->isVisible();
        m_dock->show();
        if (!shown && m_view->isPresenter())
            setPresenter(true);
    } else {
        m_view->showStopped(state ? tr("The class has stopped: the API server refuses its students.") : QString());
    }
    // While the sandbox answers beyond this machine, its address stays in sight.
    const bool exposed = state && state->running && !state->listen.isEmpty();
    m_dock->setFeatures(exposed ? QDockWidget::DockWidgetMovable | QDockWidget::DockWidgetFloatable
                                : QDockWidget::DockWidgetClosable | QDockWidget::DockWidgetMovable
                                      | QDockWidget::DockWidgetFloatable);
    if (exposed)
        m_dock->show();
    updateActions();
}

void ClassLauncher::onRequests(const QList<ClassRequest> &batch)
{
    QList<models::ClassActivity> activity;
    activity.reserve(batch.size());
    QStringList written; // this batch's objects, oldest first
    for (const ClassRequest &r : batch) {
        activity.append(activityOf(r));
        if (activity.back().write && !activity.back().object.isEmpty())
            written.append(activity.back().object);
    }
    if (!written.isEmpty()) {
        // Newest first, each once, at most kMaxObjects: linear in the batch (a student writing
        // thousands of objects a tick must not cost the window a quadratic pass).
        QStringList objects;
        QSet<QString> seen;
        for (auto it = written.crbegin(); it != written.crend() && objects.size() < kMaxObjects; ++it)
            if (!seen.contains(*it)) {
                seen.insert(*it);
                objects.append(*it);
            }
        for (const QString &o : std::as_const(m_objects))
            if (objects.size() < kMaxObjects && !seen.contains(o)) {
                seen.insert(o);
                objects.append(o);
            }
        m_objects = std::move(objects);
        m_view->setRaceObjects(m_objects); // first: the race may follow the newest object
    }
    m_students.addRequests(activity);
    m_race.addRequests(activity);
}

} // namespace fieldscope::app
