// `fieldscope record --store` (what fieldscope-record@.service runs) records a cluster
// while no window is open, into the store the window reads; a window opened later shows those
// versions and says that background recording is on. Both write the same file safely.
#include "app/gui/clustercontroller.h"
#include "app/services/backgroundrecording.h"
#include "app/services/historysource.h"
#include "clusterenv.h"
#include "guitesting.h"
#include "models/objecthistorymodel.h"
#include "widgets/clusterview.h"
#include "widgets/detailpane.h"
#include "widgets/mainwindow.h"
#include "widgets/objecttablepage.h"

#include <QDir>
#include <QTabWidget>
#include <QTest>

#include <csignal>

using namespace fieldscope;

namespace {
const char *kNs = "bg-record";

std::string configMap(const std::string &value)
{
    return core::toJsonText({{"metadata", {{"name", "watched"}}}, {"data", {{"v", value}}}});
}
} // namespace

class TestBackgroundRecord : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase()
    {
        // CMake gives this test its own XDG folders: the store is this run's alone.
        QVERIFY(app::historyFolder().contains(QStringLiteral("backgroundrecord-home")));
        QDir(app::historyFolder()).removeRecursively();
    }

    void versionsRecordedWithoutAWindowShowInTheWindowOpenedLater()
    {
        kube::Connection conn = testing::connectTo(testing::ctxToken());
        kube::ApiClient client(conn.transport);
        auto ns = testing::call(client, testing::request("POST", "/api/v1/namespaces",
                                                         core::toJsonText({{"metadata", {{"name", kNs}}}})));
        QVERIFY(ns.ok() || ns.error().httpStatus == 409);
        (void)testing::call(client, testing::request("DELETE",
                                                     std::string("/api/v1/namespaces/") + kNs + "/configmaps/watched"));

        // The service's command line, with the test cluster's kubeconfig.
        QProcess service;
        service.setProcessChannelMode(QProcess::SeparateChannels);
        service.start(testing::fieldscopeBinary(),
                      {QStringLiteral("record"), QStringLiteral("--store"), QStringLiteral("configmaps"),
                       QStringLiteral("-n"), QString::fromLatin1(kNs), QStringLiteral("--kubeconfig"),
                       testing::testKubeconfig(), QStringLiteral("--context"),
                       QString::fromStdString(testing::ctxToken())});
        QVERIFY(service.waitForStarted());
        QByteArray err;
        QVERIFY(QTest::qWaitFor(
            [&] {
                err += service.readAllStandardError();
                return err.contains("recording configmaps") && err.contains("from resourceVersion");
            },
            30000));

        // Three versions while no window runs.
        const std::string path = std::string("/api/v1/namespaces/") + kNs + "/configmaps";
        QVERIFY(testing::call(client, testing::request("POST", path, configMap("1"))).ok());
        for (const char *v : {"2", "3"})
            QVERIFY(testing::call(client,
                                  testing::request("PATCH", path + "/watched", core::toJsonText({{"data", {{"v", v}}}}),
                                                   "application/merge-patch+json"))
                        .ok());

        // The window, later: it reads the store the service writes and says who records.
        widgets::MainWindow window;
        widgets::ClusterView *view = window.addCluster(QStringLiteral("test"));
        app::ClusterController controller{view};
        window.resize(1400, 800);
        controller.showResource(QStringLiteral("configmaps"));
        controller.open(testing::testKubeconfig(), QString::fromStdString(testing::ctxToken()));
        window.show();
        QTRY_VERIFY_WITH_TIMEOUT(controller.isLoaded(), 30000);
        QVERIFY2(QFile::exists(app::backgroundMarkerFor(controller.historyDatabase())),
                 qPrintable(controller.historyDatabase()));
        QTRY_VERIFY_WITH_TIMEOUT(view->backgroundRecording().startsWith(QStringLiteral("Background recording since")),
                                 10000);
        QTRY_VERIFY_WITH_TIMEOUT(view->tablePage()->selectName(QString::fromLatin1(kNs), QStringLiteral("watched")),
                                 10000);
        view->detailPane()->setCurrentTab(widgets::DetailPane::HistoryTab);
        // The create and both changes, all made before the window opened.
        QTRY_VERIFY_WITH_TIMEOUT(controller.historyModel()->rowCount() >= 3, 15000);
        QTest::qWait(300);
        QVERIFY(testing::saveShot(&window, QStringLiteral("background-recording.png")));

        // The service stops (systemctl stop sends SIGTERM): it flushes, removes its marker, and
        // the window stops saying it records.
        ::kill(pid_t(service.processId()), SIGTERM);
        QVERIFY(service.waitForFinished(30000));
        QCOMPARE(service.exitCode(), 0);
        QVERIFY(!QFile::exists(app::backgroundMarkerFor(controller.historyDatabase())));
        controller.updateBackgroundRecording();
        QTRY_COMPARE_WITH_TIMEOUT(view->backgroundRecording(), QString(), 5000);
    }

    void aStaleOrForeignMarkerIsIgnored()
    {
        const QString db = QDir(app::historyFolder()).filePath(QStringLiteral("marker-test.db"));
        QDir().mkpath(app::historyFolder());
        app::BackgroundRecorder me{QCoreApplication::applicationPid(),
                                   QDateTime::currentDateTimeUtc(),
                                   {},
                                   QStringLiteral("configmaps"),
                                   QStringLiteral("x")};
        QVERIFY(app::writeBackgroundMarker(db, me).ok());
        QVERIFY(app::runningBackgroundRecorder(db).has_value());
        QCOMPARE(QFile(app::backgroundMarkerFor(db)).permissions() & (QFileDevice::ReadOther | QFileDevice::ReadGroup),
                 QFileDevice::Permissions());
        // Two minutes later without a heartbeat: the recorder is gone (killed, or the machine slept).
        QVERIFY(!app::runningBackgroundRecorder(db, QDateTime::currentDateTimeUtc().addSecs(120)).has_value());
        // A process that no longer exists.
        QProcess gone;
        gone.start(QStringLiteral("true"));
        QVERIFY(gone.waitForStarted());
        me.pid = gone.processId();
        QVERIFY(gone.waitForFinished()); // reaped: the pid names no process now
        QVERIFY(app::writeBackgroundMarker(db, me).ok());
        QVERIFY(!app::runningBackgroundRecorder(db).has_value());
        QFile junk(app::backgroundMarkerFor(db));
        QVERIFY(junk.open(QIODevice::WriteOnly));
        junk.write("{\"pid\": \"not a number\"}");
        junk.close();
        QVERIFY(!app::runningBackgroundRecorder(db).has_value());
    }
};

QTEST_MAIN(TestBackgroundRecord)
#include "tst_backgroundrecord.moc"
