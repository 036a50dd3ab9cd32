#pragma once
// DemoSeeder: fills the sandbox's `demo` namespace (resources/demo/demo.yaml, in the lesson
// format) so a new user's first minute shows co-owned fields and a recorded history, written by
// the sandbox's alice and bob (their contexts NAME-alice, NAME-bob) with a refused write. Runs the
// writes with lessons::LessonRunner on a worker thread. The runner's own watch sees every version
// the demo makes; those versions are replayed into the cluster's history (recordReplay), so the
// History tab has them whatever kind the table showed meanwhile. Lives on the GUI thread.
#include "core/history/historytypes.h"

#include <QFutureWatcher>
#include <QObject>
#include <QPointer>
#include <QThreadPool>

namespace fieldscope::app {

class ClusterController;

class DemoSeeder : public QObject
{
    Q_OBJECT
public:
    // `showIt`: afterwards select the demo ConfigMap and its History tab (nothing else was asked for).
    DemoSeeder(ClusterController *cluster, bool showIt, QObject *parent = nullptr);
    ~DemoSeeder() override;

    struct Outcome {
        QString error; // "" when every step did what the demo says
        // What the runner's watch saw, per resource plural: replayed into the history.
        std::vector<std::pair<std::string, core::WatchEvent>> versions;
    };

Q_SIGNALS:
    void finished(const QString &error); // "" when the demo is in place

private:
    void seed();
    void onDone();
    void recordVersions(const Outcome &outcome);

    QPointer<ClusterController> m_cluster;
    bool m_show;
    QThreadPool m_pool;
    QFutureWatcher<Outcome> m_job;
};

} // namespace fieldscope::app
