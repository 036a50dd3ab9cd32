#pragma once
// `fieldscope --screenshot FILE.png`: renders the real main window once the view asked
// for has loaded, saves it and quits. "Loaded" means what a person would wait for: the table's
// first list with the server's columns (or the knowledge that it has none) and the kinds'
// counts; with --select (or --tab alone: the first object) that object selected, its detail on
// screen and, for the History and Events tabs, their first list. A script gets a picture in
// every case: when the view has not loaded within the timeout, or the window shows an error
// (a failed connection, history recording failing), the picture shows it and the exit code is 1.
// Lives on the GUI thread.
#include "widgets/detailpane.h"

#include <QElapsedTimer>
#include <QObject>
#include <QSize>

#include <functional>
#include <optional>

namespace fieldscope::widgets {
class ClusterView;
class MainWindow;
} // namespace fieldscope::widgets

namespace fieldscope::app {

class ClusterController;
class HistoryFileController;
class LessonController;

struct ScreenshotTarget {
    QString resource, selectNs, selectName; // selectName "" = no --select
    widgets::DetailPane::Tab tab = widgets::DetailPane::SummaryTab;
    bool tabGiven = false; // --tab without --select shows that tab of the first object
    int lessonStep = -1;   // --lesson: shoot when this step (0-based, -1 = introduction) is shown
    bool lesson = false;
};

// "1280x800" -> QSize; nullopt for anything else or a side outside 100..16384.
std::optional<QSize> parseScreenshotSize(const QString &text);

class ScreenshotTaker : public QObject
{
    Q_OBJECT
public:
    ScreenshotTaker(widgets::MainWindow *window, QString file, ScreenshotTarget target, int timeoutMs = 60'000,
                    QObject *parent = nullptr);

    void follow(ClusterController *controller); // the first cluster opened
    void follow(HistoryFileController *controller);
    void follow(LessonController *lesson); // --lesson: the lesson's step, not the first list

    // Writes what is on screen and exits with 1 after printing MESSAGE.
    void fail(const QString &message);

private:
    void whenReady(QObject *controller, widgets::ClusterView *view, std::function<bool()> viewSettled,
                   std::function<bool()> tabReady);
    void save(int exitCode);
    // The errors the window's current tab shows right now ("" when none).
    QString shownErrors() const;

    widgets::MainWindow *m_window;
    QString m_file;
    ScreenshotTarget m_target;
    bool m_following = false;
    bool m_done = false;
    // The one wait under way: since when, and whether the object to show was selected yet.
    QElapsedTimer m_waiting;
    bool m_selected = false;
};

} // namespace fieldscope::app
