#include "app/demoseeder.h"

#include "app/clustercontroller.h"
#include "app/lessoncatalog.h"
#include "core/boundary.h"
#include "kube/lessonrunner.h"
#include "widgets/clusterview.h"
#include "widgets/detailpane.h"
#include "widgets/objecttablepage.h"

#include <QTimer>
#include <QtConcurrent>

namespace fieldscope::app {

DemoSeeder::DemoSeeder(ClusterController *cluster, bool showIt, QObject *parent) : QObject(parent), m_cluster(cluster), m_show(showIt)
{
    m_pool.setMaxThreadCount(1);
    connect(&m_job, &QFutureWatcher<QString>::finished, this, &DemoSeeder::onDone);
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
        m_cluster->showResource(QStringLiteral("configmaps")); // recorded from the first version on
    auto runner = std::make_shared<kube::LessonRunner>(m_cluster->connection()->transport->config(),
                                                       kube::LessonRunner::resolverFor(*m_cluster->discovery()), *lesson);
    // The watch must have started before the first write, or the first version is not recorded.
    const int delayMs = m_show ? 1500 : 0;
    m_job.setFuture(QtConcurrent::run(&m_pool, [runner, delayMs]() -> QString {
        QThread::msleep(delayMs);
        if (auto st = runner->reset(); !st)
            return QString::fromStdString(st.error().describe());
        for (std::size_t i = 0; i < runner->lesson().steps.size(); ++i) {
            const kube::LessonStepReport r = runner->runStep(i);
            if (!r.passed())
                return QString::fromStdString(r.title + ": " + r.mismatches.front());
        }
        return QString();
    }));
}

void DemoSeeder::onDone()
{
    const auto taken = core::takeResult(m_job.future(), "seeding the demo namespace");
    const QString error = taken ? *taken : QString::fromStdString(taken.error().message);
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

} // namespace fieldscope::app
