#pragma once
// ClassLauncher: the window's Class menu and Class view (docs/lessons.md, "Running a class").
// The menu starts a class from a roster file, opens the folder of the students' kubeconfigs,
// copies the path of one student's kubeconfig (the teacher's explicit act: the file holds the
// student's key, which is never logged), and stops the class. It works on the sandbox or a cluster
// directory that `scripts/fieldscope-cluster start DIR` made (the kubeconfig's folder, with logs/
// and pki/); elsewhere its actions are off and their tooltips say why.
//
// The class functions (app/services/classroom.h) block: each runs on this object's one-thread
// pool. The Class view is a dock fed by a ClassFeed (app/services/classfeed.h): one batch of
// requests a tick goes to the students model and the live race model as one delta each. While a
// class listens beyond this machine, the dock cannot be closed: its banner names the address.
// Lives on the GUI thread and waits for nothing.
#include "app/services/classfeed.h"
#include "models/classmodel.h"

#include <QDateTime>
#include <QFutureWatcher>
#include <QObject>
#include <QPointer>

class QAction;
class QDockWidget;
class QMenu;
class QThreadPool;

namespace fieldscope::widgets {
class ClassView;
class MainWindow;
} // namespace fieldscope::widgets

namespace fieldscope::app {

class Workspace;

class ClassLauncher : public QObject
{
    Q_OBJECT
public:
    ClassLauncher(widgets::MainWindow *window, Workspace *workspace, QObject *parent = nullptr);
    ~ClassLauncher() override;

    // The cluster directory a kubeconfig belongs to: its folder when that holds logs/ and pki/ (as
    // scripts/fieldscope-cluster makes it, the sandbox's too); "" otherwise. Stats two paths.
    static QString clusterDirOf(const QString &kubeconfigPath);
    // Follow the class of this directory ("" = none: the actions are off). The menu sets it from
    // the current cluster when it opens; tests set it directly.
    void setClusterDir(const QString &dir);
    const QString &clusterDir() const { return m_dir; }

    ClassFeed *feed() { return &m_feed; }
    models::ClassStudentsModel *students() { return &m_students; }
    models::ClassRaceModel *race() { return &m_race; }
    widgets::ClassView *view() const { return m_view; }
    QDockWidget *dock() const { return m_dock; }
    QMenu *menu() const { return m_menu; }
    // Presenter mode (F5): the Class view in large type, the race given the room.
    void setPresenter(bool on);
    // The objects students wrote, newest first (what the race can show).
    const QStringList &writtenObjects() const { return m_objects; }

    // What the menu's actions do, without their dialogs (tests, and the dialogs once answered).
    // Each runs on the pool; `done` gets "" or the error, on the GUI thread.
    void startClass(const QString &rosterFile, int expiresHours, const QString &listen, const QString &outDir);
    void stopClass();

Q_SIGNALS:
    // A start or a stop the menu asked for ended: "" or why not.
    void actionFinished(const QString &error);

private:
    void buildMenu();
    void updateActions();
    void askToStart();
    void askToStop();
    void copyKubeconfig();
    void openFolder();
    void onState();
    void onRequests(const QList<ClassRequest> &batch);
    void runJob(std::function<QString()> job);

    widgets::MainWindow *m_window;
    QPointer<Workspace> m_workspace;
    QString m_dir;
    ClassFeed m_feed;
    models::ClassStudentsModel m_students;
    models::ClassRaceModel m_race;
    QStringList m_objects;         // written by students, newest first, at most kMaxObjects
    QDateTime m_shownClassStarted; // the class the models count (its start), invalid: none
    widgets::ClassView *m_view = nullptr;
    QDockWidget *m_dock = nullptr;
    QMenu *m_menu = nullptr;
    QAction *m_start = nullptr, *m_folder = nullptr, *m_copy = nullptr, *m_stop = nullptr, *m_show = nullptr;
    QThreadPool *m_pool;
    QFutureWatcher<QString> m_job;
    bool m_jobRunning = false;
};

} // namespace fieldscope::app
