#pragma once
// DemoSeeder: fills the sandbox's `demo` namespace (resources/demo/demo.yaml, in the lesson
// format) so a new user's first minute shows co-owned fields and a recorded history. Runs the
// writes with kube::LessonRunner on a worker thread while the table watches ConfigMaps, so the
// app records every version it makes. Lives on the GUI thread.
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

Q_SIGNALS:
    void finished(const QString &error); // "" when the demo is in place

private:
    void seed();
    void onDone();

    QPointer<ClusterController> m_cluster;
    bool m_show;
    QThreadPool m_pool;
    QFutureWatcher<QString> m_job;
};

} // namespace fieldscope::app
