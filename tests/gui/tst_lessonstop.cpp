// A lesson whose reset cannot finish (its namespace stays Terminating on the server) must never
// hold the window: LessonRunner::stop() ends a blocked reset within a poll, and closing the
// lesson (destroying its LessonController) returns at once while the job is still blocked.
// Against a local HTTP server, no cluster needed.
#include "app/gui/clustercontroller.h"
#include "app/gui/lessoncontroller.h"
#include "core/history/historywriter.h"
#include "core/lessons/lesson.h"
#include "lessons/lessonrunner.h"
#include "transcriptserver.h"
#include "widgets/clusterview.h"
#include "widgets/mainwindow.h"

#include <QElapsedTimer>
#include <QTemporaryDir>
#include <QTest>

#include <future>
#include <memory>

using namespace fieldscope;
using namespace fieldscope::testing;

namespace {

const char *kNs = "fs-lesson-stuck";

const char *kLesson = R"(name: stuck
order: 1
title: Stuck
summary: A lesson whose namespace never finishes terminating.
namespace: fs-lesson-stuck
object: {apiVersion: v1, kind: ConfigMap, name: demo}
steps:
- title: One create
  narrative: One client creates the object.
  view: table
  requests:
  - verb: create
    clients: 1
    object: {apiVersion: v1, kind: ConfigMap, metadata: {name: demo}}
  expect:
    succeeded: 1
)";

const char *kLegacyV1 = R"({"kind":"APIResourceList","groupVersion":"v1","resources":[
  {"name":"configmaps","singularName":"configmap","namespaced":true,"kind":"ConfigMap","verbs":["create","delete","get","list","watch"]},
  {"name":"namespaces","singularName":"namespace","namespaced":false,"kind":"Namespace","verbs":["create","delete","get","list","watch"]}]})";

// A legacy 1.30-like server whose lesson namespace is being deleted forever: POST answers 409
// AlreadyExists, GET answers phase Terminating.
void serve(TranscriptServer &server)
{
    const std::string nsPath = std::string("/api/v1/namespaces/") + kNs;
    server.on("/version").exactPath().reply(TranscriptReply::json(200, R"({"gitVersion":"v1.30.0"})")).repeatLast();
    server.on("/api")
        .exactPath()
        .reply(TranscriptReply::json(200, R"({"kind":"APIVersions","versions":["v1"]})"))
        .repeatLast();
    server.on("/apis")
        .exactPath()
        .reply(TranscriptReply::json(200, R"({"kind":"APIGroupList","groups":[]})"))
        .repeatLast();
    server.on("/api/v1").exactPath().reply(TranscriptReply::json(200, kLegacyV1)).repeatLast();
    server.on("/api/v1/namespaces")
        .exactPath()
        .method("POST")
        .reply(TranscriptReply::json(
            409, R"({"kind":"Status","apiVersion":"v1","status":"Failure","reason":"AlreadyExists","code":409})"))
        .repeatLast();
    server.on(nsPath)
        .exactPath()
        .reply(TranscriptReply::json(200, std::string(R"({"kind":"Namespace","apiVersion":"v1","metadata":{"name":")")
                                              + kNs + R"(","resourceVersion":"5"},"status":{"phase":"Terminating"}})"))
        .repeatLast();
    server.on("/api/v1/namespaces")
        .exactPath()
        .lacksQuery("watch")
        .reply(TranscriptReply::json(
            200, R"({"kind":"NamespaceList","apiVersion":"v1","metadata":{"resourceVersion":"10"},"items":[]})"))
        .repeatLast();
    server.on("/api/v1/configmaps")
        .lacksQuery("watch")
        .reply(TranscriptReply::json(
            200, R"({"kind":"ConfigMapList","apiVersion":"v1","metadata":{"resourceVersion":"10"},"items":[]})"))
        .repeatLast();
    server.on("/api/v1")
        .query("sendInitialEvents", "true")
        .reply(TranscriptReply::json(
            422, R"({"kind":"Status","apiVersion":"v1","status":"Failure","reason":"Invalid","code":422})"))
        .repeatLast();
    server.on("/api/v1").hasQuery("watch").reply(TranscriptReply::stream({}, TranscriptReply::End::Hang)).repeatLast();
}

int namespaceGets(const TranscriptServer &server)
{
    const std::string nsPath = std::string("/api/v1/namespaces/") + kNs;
    return server.count([&](const RecordedRequest &r) { return r.method == "GET" && r.path == nsPath; });
}

core::Lesson lesson()
{
    auto l = core::parseLesson(kLesson, "stuck.yaml");
    if (!l)
        qFatal("lesson: %s", l.error().describe().c_str());
    return *l;
}

} // namespace

class TestLessonStop : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_home.isValid());
        qputenv("XDG_DATA_HOME", m_home.filePath(QStringLiteral("data")).toUtf8());
        qputenv("XDG_CONFIG_HOME", m_home.filePath(QStringLiteral("config")).toUtf8());
    }

    void stoppedRunnerGivesUpAResetStuckOnATerminatingNamespace()
    {
        TranscriptServer server;
        serve(server);
        kube::TransportConfig config;
        config.server = server.url();
        config.qps = 0;
        kube::ResourceInfo namespaces, configMaps;
        namespaces.version = configMaps.version = "v1";
        namespaces.resource = "namespaces";
        namespaces.kind = "Namespace";
        configMaps.resource = "configmaps";
        configMaps.kind = "ConfigMap";
        configMaps.namespaced = true;
        auto runner = std::make_shared<lessons::LessonRunner>(
            config,
            [&](const std::string &, const std::string &kind) {
                return kind == "Namespace" ? &namespaces : &configMaps;
            },
            lesson());
        auto reset = std::async(std::launch::async, [runner] { return runner->reset(); });
        QTRY_VERIFY_WITH_TIMEOUT(namespaceGets(server) >= 2, 10'000); // polling the Terminating namespace
        QElapsedTimer clock;
        clock.start();
        runner->stop();
        QCOMPARE(reset.wait_for(std::chrono::seconds(2)), std::future_status::ready);
        QVERIFY2(clock.elapsed() < 500, qPrintable(QString::number(clock.elapsed())));
        const core::Status st = reset.get();
        QVERIFY(!st.ok());
        QCOMPARE(st.error().category, core::ErrorCategory::Cancelled);
    }

    void closingALessonWhoseResetIsBlockedReturnsAtOnce()
    {
        TranscriptServer server;
        serve(server);
        const QString kubeconfig = m_home.filePath(QStringLiteral("stuck.kubeconfig"));
        {
            QFile f(kubeconfig);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write(
                QStringLiteral(
                    "apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster:\n    server: %1\n"
                    "users:\n- name: u\n  user:\n    token: t\ncontexts:\n- name: x\n  context:\n    cluster: c\n    user: u\n"
                    "current-context: x\n")
                    .arg(QString::fromStdString(server.url()))
                    .toUtf8());
        }
        widgets::MainWindow window;
        widgets::ClusterView *view = window.addCluster(QStringLiteral("x"));
        auto cluster = std::make_unique<app::ClusterController>(view);
        cluster->open(kubeconfig, QStringLiteral("x"));
        window.show();
        QTRY_VERIFY_WITH_TIMEOUT(cluster->discovery() && !cluster->discovery()->resources.empty(), 20'000);

        auto *lessonController = new app::LessonController(&window, cluster.get(), lesson());
        lessonController->start(true); // confirmed: no question
        QTRY_VERIFY_WITH_TIMEOUT(lessonController->isBusy(), 5'000);
        QTRY_VERIFY_WITH_TIMEOUT(namespaceGets(server) >= 2, 10'000); // the reset polls and would for 120 s
        QElapsedTimer clock;
        clock.start();
        delete lessonController;
        QVERIFY2(clock.elapsed() < 200, qPrintable(QString::number(clock.elapsed())));
        // The abandoned job stopped polling on its own thread (and touched nothing of the
        // destroyed controller: this process would crash).
        QTest::qWait(1'500);
        const int after = namespaceGets(server);
        QTest::qWait(1'500);
        QCOMPARE(namespaceGets(server), after);
        cluster.reset();
        core::HistoryRecorder::waitForReleased();
    }

private:
    QTemporaryDir m_home;
};

QTEST_MAIN(TestLessonStop)
#include "tst_lessonstop.moc"
