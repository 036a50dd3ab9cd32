#include "app/gui/lessonlauncher.h"

#include "app/gui/clustercontroller.h"
#include "app/gui/lessoncontroller.h"
#include "app/gui/workspace.h"
#include "core/base/boundary.h"
#include "core/base/visibletext.h"
#include "widgets/lessonpanel.h"
#include "widgets/mainwindow.h"
#include "widgets/plaintext.h"

#include <QAction>
#include <QFileDialog>
#include <QFutureWatcher>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QtConcurrent>

#include <cstdio>

namespace fieldscope::app {

LessonLauncher::LessonLauncher(widgets::MainWindow *window, Workspace *workspace, const QStringList &extraDirs,
                               QObject *parent)
    : QObject(parent), m_window(window), m_workspace(workspace), m_catalog(loadLessons(extraDirs))
{
    for (const std::string &e : m_catalog.errors)
        std::fprintf(stderr, "fieldscope: skipped lesson %s\n", core::visibleEscapes(e).c_str());
    buildMenu();
}

LessonLauncher::~LessonLauncher() = default;

void LessonLauncher::buildMenu()
{
    // Before Help, where menus that do things end.
    auto *menu = new QMenu(tr("&Lessons"), m_window->menuBar());
    const QList<QAction *> menus = m_window->menuBar()->actions();
    if (menus.isEmpty())
        m_window->menuBar()->addMenu(menu);
    else
        m_window->menuBar()->insertMenu(menus.last(), menu);
    menu->setObjectName(QStringLiteral("lessonsMenu"));
    for (const core::Lesson &l : m_catalog.lessons) {
        QAction *a = menu->addAction(widgets::actionText(QString::fromStdString(l.title)));
        a->setToolTip(widgets::plainToolTip(QString::fromStdString(l.summary)));
        const QString name = QString::fromStdString(l.name);
        connect(a, &QAction::triggered, this, [this, name] {
            ClusterController *c = m_workspace->current();
            if (!c || !c->connection()) {
                QMessageBox::information(m_window, tr("Lessons"),
                                         tr("Connect to a cluster first (the sandbox is the place for lessons)."));
                return;
            }
            start(c, {name, false, m_presenter->isChecked(), 0});
        });
    }
    menu->addSeparator();
    m_presenter = menu->addAction(tr("&Presenter Mode"));
    m_presenter->setCheckable(true);
    m_presenter->setShortcut(QKeySequence(Qt::Key_F5));
    connect(m_presenter, &QAction::toggled, this, [this](bool on) {
        if (m_lesson)
            m_lesson->setPresenter(on);
    });
    m_save = menu->addAction(tr("&Save the Lesson's History…"));
    m_save->setEnabled(false);
    connect(m_save, &QAction::triggered, this, &LessonLauncher::saveHistory);
}

bool LessonLauncher::start(ClusterController *cluster, const LessonStart &how)
{
    const core::Lesson *lesson = m_catalog.find(how.name.toStdString());
    if (!lesson || !cluster)
        return false;
    auto begin = [this, cluster = QPointer<ClusterController>(cluster), lesson = *lesson, how] {
        if (!cluster)
            return;
        m_lesson.reset(); // one lesson at a time
        m_lesson = std::make_unique<LessonController>(m_window, cluster, lesson);
        connect(m_lesson->panel(), &widgets::LessonPanel::presenterToggled, m_presenter, &QAction::setChecked);
        m_lesson->setPresenter(how.presenter);
        m_presenter->setChecked(how.presenter);
        m_save->setEnabled(true);
        if (how.step > 0)
            m_lesson->runTo(how.step - 1);
        m_lesson->start(how.confirmed);
        Q_EMIT started(m_lesson.get());
    };
    if (cluster->isLoaded())
        begin();
    else
        connect(cluster, &ClusterController::loaded, this, begin, Qt::SingleShotConnection);
    return true;
}

void LessonLauncher::saveHistory()
{
    if (!m_lesson)
        return;
    const QString file = QFileDialog::getSaveFileName(m_window, tr("Save the Lesson's History"),
                                                      QString::fromStdString(m_lesson->lesson().name)
                                                          + QStringLiteral(".jsonl"),
                                                      tr("JSON Lines (*.jsonl)"));
    if (file.isEmpty())
        return;
    // The export reads the whole store: a worker thread does it, the window stays responsive.
    auto *watcher = new QFutureWatcher<core::Result<std::int64_t>>(this);
    connect(watcher, &QFutureWatcherBase::finished, this, [this, watcher] {
        watcher->deleteLater();
        const auto n = core::takeResult(watcher->future(), "saving the lesson's history");
        if (!n) { // names the chosen file and SQLite's words: plain text
            auto *box = new QMessageBox(QMessageBox::Warning, tr("Save the Lesson's History"), QString(),
                                        QMessageBox::Ok, m_window);
            widgets::setPlainText(box, QString::fromStdString(n.error().describe()));
            box->setAttribute(Qt::WA_DeleteOnClose);
            box->open();
        } else
            QMessageBox::information(m_window, tr("Save the Lesson's History"),
                                     tr("%n version(s) saved. Students open the file with: fieldscope --open FILE",
                                        nullptr, int(*n)));
    });
    ClusterController *cluster = m_lesson->cluster();
    if (!cluster || cluster->historyDatabase().isEmpty() || m_lesson->ns().empty()) {
        QMessageBox::warning(m_window, tr("Save the Lesson's History"),
                             m_lesson->ns().empty()
                                 ? tr("Nothing to save yet: the class lesson has not found its class.")
                                 : tr("Nothing was recorded for this cluster."));
        watcher->deleteLater();
        return;
    }
    watcher->setFuture(QtConcurrent::run(&LessonController::exportHistory, cluster->historyDatabase(), m_lesson->ns(),
                                         file));
}

} // namespace fieldscope::app
