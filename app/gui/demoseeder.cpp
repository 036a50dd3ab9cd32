#include "app/gui/demoseeder.h"

#include "app/gui/clustercontroller.h"
#include "app/services/lessoncatalog.h"
#include "core/base/boundary.h"
#include "core/base/jsonread.h"
#include "lessons/lessonrunner.h"
#include "widgets/clusterview.h"
#include "widgets/detailpane.h"
#include "widgets/objecttablepage.h"

#include <QDateTime>
#include <QTimer>
#include <QtConcurrent>

#include <map>

namespace fieldscope::app {

namespace {
constexpr unsigned long kStepPauseMs = 400;

core::HistoryEventType historyTypeOf(const std::string &watchType)
{
    if (watchType == "ADDED")
        return core::HistoryEventType::Added;
    if (watchType == "DELETED")
        return core::HistoryEventType::Deleted;
    return core::HistoryEventType::Modified;
}

// The versions the step's watch saw, with the plural the history files them under. The time is
// when the step ended: within the second of the write, which is managedFields' own precision.
void appendObserved(const core::LessonStepReport &report, const lessons::LessonRunner::ResolveKind &resolve,
                    std::vector<std::pair<std::string, core::WatchEvent>> &into)
{
    const std::int64_t now = QDateTime::currentMSecsSinceEpoch();
    for (const core::LessonEvent &e : report.events) {
        if (!e.object.is_object())
            continue;
        const kube::ResourceInfo *info = resolve(core::stringAt(e.object, "/apiVersion").value_or(""),
                                                 core::stringAt(e.object, "/kind").value_or(""));
        if (!info)
            continue;
        into.emplace_back(info->qualifiedName(),
                          core::WatchEvent{historyTypeOf(e.type), core::safeDump(e.object), now});
    }
}
} // namespace

DemoSeeder::DemoSeeder(ClusterController *cluster, bool showIt, QObject *parent)
    : QObject(parent), m_cluster(cluster), m_show(showIt)
{
    m_pool.setMaxThreadCount(1);
    connect(&m_job, &QFutureWatcher<Outcome>::finished, this, &DemoSeeder::onDone);
    if (cluster->isLoaded())
        seed();
    else
        connect(cluster, &ClusterController::loaded, this, &DemoSeeder::seed, Qt::SingleShotConnection);
}

DemoSeeder::~DemoSeeder()
{
    m_job.waitForFinished(); // a few requests; the runner gives up on its own timeouts
}

void DemoSeeder::seed()
{
    if (!m_cluster || !m_cluster->connection() || !m_cluster->discovery())
        return;
    auto lesson = readLessonFile(QStringLiteral(":/demo/demo.yaml"));
    if (!lesson) {
        Q_EMIT finished(QString::fromStdString(lesson.error().message));
        return;
    }
    if (m_show)
        m_cluster->showResource(QStringLiteral("configmaps")); // the versions arrive live in the table
    auto runner = std::make_shared<lessons::LessonRunner>(m_cluster->connection()->transport->config(),
                                                          lessons::LessonRunner::resolverFor(*m_cluster->discovery()),
                                                          *lesson);
    // alice and bob write with their own tokens (the sandbox's NAME-alice and NAME-bob contexts),
    // so the History tab's Who column names people, not the admin on every row.
    runner->setPeople(lessonPeople(m_cluster->connection()->config));
    auto resolve = lessons::LessonRunner::resolverFor(*m_cluster->discovery());
    // Shown: let the table's watch start first, so the versions also arrive live.
    const int delayMs = m_show ? 1500 : 0;
    m_job.setFuture(QtConcurrent::run(&m_pool, [runner, resolve, delayMs]() -> Outcome {
        QThread::msleep(delayMs);
        Outcome out;
        if (auto st = runner->reset(); !st) {
            out.error = QString::fromStdString(st.error().describe());
            return out;
        }
        for (std::size_t i = 0; i < runner->lesson().steps.size(); ++i) {
            // A moment between steps: the History tab places a refused write among the versions
            // by time, and a version's time is when a watch delivered it (up to a batch later).
            if (i > 0)
                QThread::msleep(kStepPauseMs);
            const core::LessonStepReport r = runner->runStep(i);
            appendObserved(r, resolve, out.versions);
            if (!r.passed()) {
                out.error = QString::fromStdString(r.title + ": " + r.mismatches.front());
                return out;
            }
        }
        return out;
    }));
}

void DemoSeeder::onDone()
{
    const auto taken = core::readResult(m_job.future(), "seeding the demo namespace");
    const QString error = taken ? taken->error : QString::fromStdString(taken.error().message);
    if (taken)
        recordVersions(*taken);
    if (!error.isEmpty())
        qWarning("fieldscope: the demo namespace is incomplete: %s", qUtf8Printable(error));
    if (m_show && m_cluster && error.isEmpty()) {
        // The table fills from the watch a moment later.
        auto *poll = new QTimer(this);
        auto tries = std::make_shared<int>(0);
        connect(poll, &QTimer::timeout, this, [this, poll, tries] {
            if (!m_cluster || ++*tries > 50) {
                poll->stop();
                return;
            }
            widgets::ClusterView *view = m_cluster->view();
            if (view->tablePage()->selectName(QStringLiteral("demo"), QStringLiteral("settings"))) {
                view->detailPane()->setCurrentTab(widgets::DetailPane::HistoryTab);
                poll->stop();
            }
        });
        poll->start(200);
    }
    Q_EMIT finished(error);
}

// One replay per resource, in the order the runner's watch saw the versions.
void DemoSeeder::recordVersions(const Outcome &outcome)
{
    if (!m_cluster)
        return;
    std::map<std::string, std::vector<core::WatchEvent>> byResource;
    for (const auto &[resource, event] : outcome.versions)
        byResource[resource].push_back(event);
    for (auto &[resource, events] : byResource)
        m_cluster->recordReplay(core::WatchScope{"demo:" + resource + "/demo", resource.substr(0, resource.find('.'))},
                                std::move(events));
}

} // namespace fieldscope::app
