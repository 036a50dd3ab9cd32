#pragma once
// LessonLauncher: the window's Lessons menu and --lesson. Loads the lesson catalog (shipped, the
// user's folder, --lessons), starts one lesson at a time on the current cluster, and offers
// presenter mode and saving the lesson's recorded history. Lives on the GUI thread.
#include "app/services/lessoncatalog.h"

#include <QObject>
#include <QPointer>

#include <memory>

class QAction;

namespace fieldscope::widgets {
class MainWindow;
}

namespace fieldscope::app {

class ClusterController;
class LessonController;
class Workspace;

struct LessonStart {
    QString name;
    bool confirmed = false; // --yes: the user already agreed to run on a non-sandbox cluster
    bool presenter = false;
    int step = 0; // run steps until this one (1-based); 0 = show the introduction
};

class LessonLauncher : public QObject
{
    Q_OBJECT
public:
    LessonLauncher(widgets::MainWindow *window, Workspace *workspace, const QStringList &extraDirs,
                   QObject *parent = nullptr);
    ~LessonLauncher() override;

    const LessonCatalog &catalog() const { return m_catalog; }
    // Starts the lesson on `cluster` once it is connected; false when there is no such lesson.
    bool start(ClusterController *cluster, const LessonStart &how);
    LessonController *current() const { return m_lesson.get(); }
    // Lessons → Presenter Mode (F5), checkable: the Class view follows it too.
    QAction *presenterAction() const { return m_presenter; }

Q_SIGNALS:
    void started(fieldscope::app::LessonController *lesson);

private:
    void buildMenu();
    void saveHistory();

    widgets::MainWindow *m_window;
    Workspace *m_workspace;
    LessonCatalog m_catalog;
    std::unique_ptr<LessonController> m_lesson;
    QAction *m_presenter = nullptr;
    QAction *m_save = nullptr;
};

} // namespace fieldscope::app
