#include "app/gui/screenshot.h"

#include "app/gui/clustercontroller.h"
#include "app/gui/historyfilecontroller.h"
#include "app/gui/lessoncontroller.h"
#include "widgets/clusterview.h"
#include "widgets/mainwindow.h"
#include "widgets/objecttablepage.h"

#include <QApplication>
#include <QDir>
#include <QElapsedTimer>
#include <QFileInfo>
#include <QRegularExpression>
#include <QTabWidget>
#include <QTableView>
#include <QTimer>

#include <cstdio>

namespace fieldscope::app {

namespace {
constexpr int kSettleMs = 400;            // lets the views lay out and paint before the grab
constexpr int kColumnsPatienceMs = 10000; // server columns or counts that never come do not block the picture

bool historyReady(HistorySource *source, models::ObjectHistoryModel *model)
{
    return !source->isLoading() && (model->rowCount() > 0 || !model->message().isEmpty());
}
} // namespace

std::optional<QSize> parseScreenshotSize(const QString &text)
{
    static const QRegularExpression re(QStringLiteral("^(\\d{1,5})x(\\d{1,5})$"));
    const auto m = re.match(text.trimmed());
    if (!m.hasMatch())
        return std::nullopt;
    const QSize size(m.captured(1).toInt(), m.captured(2).toInt());
    if (size.width() < 100 || size.height() < 100 || size.width() > 16384 || size.height() > 16384)
        return std::nullopt;
    return size;
}

ScreenshotTaker::ScreenshotTaker(widgets::MainWindow *window, QString file, ScreenshotTarget target, int timeoutMs,
                                 QObject *parent)
    : QObject(parent), m_window(window), m_file(std::move(file)), m_target(std::move(target))
{
    QTimer::singleShot(timeoutMs, this, [this, timeoutMs] {
        fail(tr("the view did not load within %1 s (--screenshot-timeout); the picture shows where it stopped")
                 .arg(timeoutMs / 1000));
    });
}

void ScreenshotTaker::follow(ClusterController *c)
{
    if (std::exchange(m_following, true))
        return; // only the first cluster is waited for
    connect(c, &ClusterController::failed, this, &ScreenshotTaker::fail);
    if (m_target.lesson)
        return; // the lesson says when
    connect(
        c, &ClusterController::loaded, this,
        [this, c] {
            whenReady(
                c, c->view(), [c] { return c->isSettled(); },
                [this, c] {
                    if (m_target.tab == widgets::DetailPane::EventsTab)
                        return c->eventsWatcher() && c->eventsWatcher()->initialListComplete();
                    return m_target.tab != widgets::DetailPane::HistoryTab
                        || historyReady(c->historySource(), c->historyModel());
                });
        },
        Qt::SingleShotConnection);
}

void ScreenshotTaker::follow(LessonController *lesson)
{
    connect(lesson, &LessonController::failed, this, &ScreenshotTaker::fail);
    connect(lesson, &LessonController::stepShown, this, [this, lesson](int index) {
        if (index != m_target.lessonStep)
            return;
        ClusterController *c = lesson->cluster();
        auto *poll = new QTimer(lesson);
        connect(poll, &QTimer::timeout, this, [this, poll, lesson, c] {
            widgets::DetailPane *detail = c->view()->detailPane();
            const bool historyShown = detail->tabs()->currentIndex() != widgets::DetailPane::HistoryTab
                                   || historyReady(c->historySource(), c->historyModel());
            if ((lesson->currentStep() < 0 || detail->isReady()) && historyShown) {
                poll->stop();
                QTimer::singleShot(kSettleMs, this, [this] { save(0); });
            }
        });
        poll->start(50);
    });
}

void ScreenshotTaker::follow(HistoryFileController *c)
{
    m_following = true;
    connect(c, &HistoryFileController::failed, this, &ScreenshotTaker::fail);
    connect(
        c, &HistoryFileController::loaded, this,
        [this, c] {
            whenReady(
                c, c->view(), [] { return true; },
                [this, c] {
                    return m_target.tab != widgets::DetailPane::HistoryTab
                        || historyReady(c->historySource(), c->historyModel());
                });
        },
        Qt::SingleShotConnection);
}

// Polls (cheaply, 20 times a second) because "ready" spans several objects' states, some of
// which (the server's columns, the counts) may never arrive from a server that lacks them. The
// poll belongs to CONTROLLER (whose view and models the checks read): it ends with it.
void ScreenshotTaker::whenReady(QObject *controller, widgets::ClusterView *view, std::function<bool()> viewSettled,
                                std::function<bool()> tabReady)
{
    auto *poll = new QTimer(controller);
    m_waiting.start();
    connect(poll, &QTimer::timeout, controller,
            [=, this, viewSettled = std::move(viewSettled), tabReady = std::move(tabReady)] {
                if (!viewSettled() && m_waiting.elapsed() < kColumnsPatienceMs)
                    return;
                if (!m_selected) {
                    m_selected = true;
                    widgets::ObjectTablePage *page = view->tablePage();
                    const bool wantsObject = !m_target.selectName.isEmpty() || m_target.tabGiven;
                    if (!m_target.selectName.isEmpty() && !page->selectName(m_target.selectNs, m_target.selectName)) {
                        poll->stop();
                        return fail(tr("no %1 named %2").arg(m_target.resource, m_target.selectName));
                    }
                    if (m_target.selectName.isEmpty() && m_target.tabGiven && page->table()->model()->rowCount() > 0)
                        page->table()->selectRow(0);
                    view->detailPane()->setCurrentTab(m_target.tab);
                    if (!wantsObject || view->detailPane()->uid().isEmpty()) {
                        poll->stop();
                        QTimer::singleShot(kSettleMs, this, [this] { save(0); });
                        return;
                    }
                }
                if (view->detailPane()->isReady() && tabReady()) {
                    poll->stop();
                    QTimer::singleShot(kSettleMs, this, [this] { save(0); });
                }
            });
    poll->start(50);
}

void ScreenshotTaker::fail(const QString &message)
{
    if (m_done)
        return;
    std::fprintf(stderr, "fieldscope: %s\n", qUtf8Printable(message));
    save(1);
}

QString ScreenshotTaker::shownErrors() const
{
    const auto *view = qobject_cast<const widgets::ClusterView *>(m_window->tabs()->currentWidget());
    return view ? view->shownErrors().join(QStringLiteral("; ")) : QString();
}

void ScreenshotTaker::save(int exitCode)
{
    if (std::exchange(m_done, true))
        return;
    // A picture of an error is what the script gets, with an exit code that says so.
    if (const QString errors = shownErrors(); exitCode == 0 && !errors.isEmpty()) {
        std::fprintf(stderr, "fieldscope: the window shows an error: %s\n", qUtf8Printable(errors));
        exitCode = 1;
    }
    QDir().mkpath(QFileInfo(m_file).absolutePath());
    const bool ok = m_window->grab().save(m_file, "PNG");
    std::fprintf(ok ? stdout : stderr, ok ? "%s\n" : "fieldscope: cannot write %s\n", qUtf8Printable(m_file));
    QApplication::exit(ok ? exitCode : 1);
}

} // namespace fieldscope::app
