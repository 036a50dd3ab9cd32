// The History tab's loader (app/services/historysource.cpp) when its worker throws: a huge answer
// (std::bad_alloc) or a library's exception on a damaged file must show as the tab's message,
// never reach the GUI thread as an exception, and leave the source ready for the next load.
// Closing its tab never waits for the database, and a shared store that refuses LISTEN is
// retried with backoff.
#include "app/services/historysource.h"
#include "app/services/threadreaper.h"
#include "blockedwork.h"
#include "core/base/json.h"
#include "core/history/historyquery.h"
#include "core/history/historystore.h"
#include "models/objecthistorymodel.h"
#include "testpostgres.h"

#include <QAbstractItemModelTester>
#include <QProcess>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include <atomic>
#include <memory>
#include <new>
#include <stdexcept>

using namespace fieldscope;
using core::Json;

class TestHistorySource : public QObject
{
    Q_OBJECT
    QTemporaryDir m_dir;
    QString m_db;
    core::ObjectQuery m_query;

private Q_SLOTS:
    void initTestCase()
    {
        m_db = m_dir.filePath(QStringLiteral("recorded.db"));
        auto store = core::HistoryStore::open(m_db.toStdString()).value();
        const Json cm{
            {"apiVersion", "v1"},
            {"kind", "ConfigMap"},
            {"metadata", {{"name", "settings"}, {"namespace", "lessons"}, {"uid", "u1"}, {"resourceVersion", "10"}}},
            {"data", {{"mode", "blue"}}}};
        const core::WatchScope scope = core::WatchScope::of({"", "v1", "configmaps"}, "lessons");
        QVERIFY(
            store->write({{scope, {{core::HistoryEventType::Added, cm.dump(), 1'784'000'000'000}}, {}, {}, {}}}).ok());
        m_query.resource = "configmaps";
        m_query.namespace_ = "lessons";
        m_query.name = "settings";
    }

    void aLoadWhoseWorkerThrowsShowsTheErrorAndTheNextLoadWorks_data()
    {
        QTest::addColumn<int>("kind");
        QTest::addColumn<QString>("expected");
        QTest::newRow("bad_alloc")
            << 0 << QStringLiteral("Cannot read the recorded history: history load failed: out of memory");
        QTest::newRow("nlohmann type_error") << 1 << QStringLiteral("history load failed: [json.exception.type_error.");
        QTest::newRow("runtime_error") << 2 << QStringLiteral("history load failed: damaged page");
        QTest::newRow("int") << 3 << QStringLiteral("history load failed: unknown exception");
    }
    void aLoadWhoseWorkerThrowsShowsTheErrorAndTheNextLoadWorks()
    {
        QFETCH(int, kind);
        QFETCH(QString, expected);
        models::ObjectHistoryModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        app::HistorySource source(&model);
        source.setDatabase(m_db);
        source.setLoadProbe([kind] {
            switch (kind) {
            case 0: throw std::bad_alloc();
            case 1: {
                Json j = "text";
                (void)j.at("metadata");
                return;
            }
            case 2: throw std::runtime_error("damaged page");
            default: throw 7;
            }
        });
        QSignalSpy loaded(&source, &app::HistorySource::loaded);
        source.show(m_query, QStringLiteral("u1"));
        QTRY_COMPARE_WITH_TIMEOUT(loaded.size(), 1, 10000);
        QVERIFY2(model.message().contains(expected), qPrintable(model.message()));
        QCOMPARE(model.rowCount(), 0);
        QVERIFY(!source.isLoading());

        // The failed load is over: the next one runs and shows the recorded version.
        source.setLoadProbe({});
        source.show(m_query, QStringLiteral("u1"));
        QTRY_COMPARE_WITH_TIMEOUT(loaded.size(), 2, 10000);
        QCOMPARE(model.rowCount(), 1);
        QVERIFY(model.message().isEmpty());
    }

    // The window on a team's store: versions another recorder commits appear without this
    // window recording anything (LISTEN/NOTIFY), and a database that goes away is said, then
    // forgotten once it is back.
    void aSharedStoreShowsAnotherRecordersCommitsAsTheyHappen()
    {
        if (testpostgres::folder().isEmpty())
            QSKIP("needs the postgres fixture (ctest starts it)");
        const std::string url = testpostgres::freshDatabase(QStringLiteral("window-notify"));
        core::HistoryOpenOptions options;
        options.clusterIdentity = "sha256:team";
        options.recorderName = "night-shift";
        auto recorder = core::HistoryStore::open(url, core::HistoryStore::OpenMode::ReadWrite, options).value();
        const core::WatchScope scope = core::WatchScope::of({"", "v1", "configmaps"}, "lessons");
        auto version = [](int rv) {
            return Json{{"apiVersion", "v1"},
                        {"kind", "ConfigMap"},
                        {"metadata",
                         {{"name", "settings"},
                          {"namespace", "lessons"},
                          {"uid", "u1"},
                          {"resourceVersion", std::to_string(rv)}}},
                        {"data", {{"mode", rv % 2 ? "blue" : "green"}}}}
                .dump();
        };
        QVERIFY(recorder
                    ->write({{scope, {{core::HistoryEventType::Added, version(10), 1'784'000'000'000}}, {}, {}, {}}})
                    .ok());
        models::ObjectHistoryModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        app::HistorySource source(&model);
        QSignalSpy availability(&source, &app::HistorySource::availabilityChanged);
        source.setDatabase(QString::fromStdString(url + "#sha256:team"));
        source.show(m_query, QStringLiteral("u1"));
        QTRY_COMPARE_WITH_TIMEOUT(model.rowCount(), 1, 10000);
        // Nobody tells this source about the commit but the database itself.
        for (int rv = 11; rv <= 13; ++rv)
            QVERIFY(recorder
                        ->write({{scope,
                                  {{core::HistoryEventType::Modified, version(rv), 1'784'000'000'000 + rv}},
                                  {},
                                  {},
                                  {}}})
                        .ok());
        QTRY_COMPARE_WITH_TIMEOUT(model.rowCount(), 4, 10000);

        QProcess kill;
        kill.start(qEnvironmentVariable("FIELDSCOPE_PG_SCRIPT"), {QStringLiteral("restart"), testpostgres::folder()});
        QVERIFY(kill.waitForFinished(90000));
        QCOMPARE(kill.exitCode(), 0);
        // The listener saw its connection break and reconnected: the window is told, then cleared.
        QTRY_VERIFY_WITH_TIMEOUT(!availability.isEmpty(), 10000);
        QVERIFY2(availability.front().front().toString().contains(QLatin1String("connection")),
                 qPrintable(availability.front().front().toString()));
        QTRY_VERIFY_WITH_TIMEOUT(availability.back().front().toString().isEmpty(), 20000);
        auto again = core::HistoryStore::open(url, core::HistoryStore::OpenMode::ReadWrite, options).value();
        QVERIFY(again
                    ->write({{scope, {{core::HistoryEventType::Modified, version(14), 1'784'000'000'014}}, {}, {}, {}}})
                    .ok());
        QTRY_COMPARE_WITH_TIMEOUT(model.rowCount(), 5, 10000);
    }

    // A store may hold far more versions of one object than a list shows: the newest are listed,
    // the model says how many older ones are not, and asking for older ones lists them too.
    void theNewestVersionsAreListedAndOlderOnesComeOnRequest()
    {
        const QString db = m_dir.filePath(QStringLiteral("many.db"));
        {
            auto store = core::HistoryStore::open(db.toStdString()).value();
            const core::WatchScope scope = core::WatchScope::of({"", "v1", "configmaps"}, "lessons");
            core::HistoryWriteItem item{scope, {}, {}, {}, {}};
            for (int i = 0; i <= int(core::kDefaultMaxListedVersions); ++i) {
                const Json cm{{"apiVersion", "v1"},
                              {"kind", "ConfigMap"},
                              {"metadata",
                               {{"name", "busy"},
                                {"namespace", "lessons"},
                                {"uid", "u-busy"},
                                {"resourceVersion", std::to_string(100 + i)}}},
                              {"data", {{"n", std::to_string(i)}}}};
                item.events.push_back({i == 0 ? core::HistoryEventType::Added : core::HistoryEventType::Modified,
                                       cm.dump(), 1'784'000'000'000 + i});
            }
            QVERIFY(store->write({item}).ok());
        }
        models::ObjectHistoryModel model;
        app::HistorySource source(&model);
        source.setDatabase(db);
        core::ObjectQuery busy = m_query;
        busy.name = "busy";
        QSignalSpy loaded(&source, &app::HistorySource::loaded);
        source.show(busy, QStringLiteral("u-busy"));
        QTRY_COMPARE_WITH_TIMEOUT(loaded.size(), 1, 30000);
        QCOMPARE(model.olderNotShown(), qint64(1));
        QCOMPARE(qint64(model.rows().size()), core::kDefaultMaxListedVersions);
        QCOMPARE(model.rows().front().resourceVersion, std::string("101")); // the oldest is 100
        model.requestOlder();                                               // the History tab's "Show older versions"
        QTRY_COMPARE_WITH_TIMEOUT(loaded.size(), 2, 30000);
        QCOMPARE(model.olderNotShown(), qint64(0));
        QCOMPARE(qint64(model.rows().size()), core::kDefaultMaxListedVersions + 1);
        QCOMPARE(model.rows().front().resourceVersion, std::string("100"));
    }

    // Closing a cluster's tab destroys its source: that returns while the load is still inside
    // the database (here: blocked in the probe until after the destructor), and the load's
    // thread is deleted once the load has ended.
    void closingATabWhileItsHistoryLoadIsBlockedReturnsAtOnce()
    {
        // Earlier tests' sources may still be finishing their own loads: count from none.
        QTRY_COMPARE_WITH_TIMEOUT(app::orphanCount(), 0, 20000);
        models::ObjectHistoryModel model;
        testsupport::BlockedWork work;
        auto source = std::make_unique<app::HistorySource>(&model);
        source->setDatabase(m_db);
        source->setLoadProbe(work.probe());
        source->show(m_query, QStringLiteral("u1"));
        QVERIFY(work.waitUntilEntered());
        source.reset();
        QVERIFY2(!work.releasedByWatchdog(), "the destructor waited for the blocked load");
        QCOMPARE(app::orphanCount(), 1);
        work.release();
        QTRY_COMPARE_WITH_TIMEOUT(app::orphanCount(), 0, 10000);
    }

    void reconnectWaitsDoubleToThirtySecondsAndStartOverOnlyAfterALongListen()
    {
        app::ReconnectBackoff b;
        for (int expected : {500, 1000, 2000, 4000, 8000, 16000, 30000, 30000})
            QCOMPARE(b.failed(), expected);
        b.listenedFor(5000); // a LISTEN that broke after 5 s: the server is still in trouble
        QCOMPARE(b.failed(), 30000);
        b.listenedFor(app::ReconnectBackoff::kHealthyMs);
        QCOMPARE(b.failed(), 500);
        QCOMPARE(b.failed(), 1000);
    }

    // A hot standby refuses LISTEN ("cannot execute LISTEN during recovery") every time, although
    // the store opens. The fixture's server is no standby and no role or setting makes a primary
    // refuse LISTEN (default_transaction_read_only allows it), so the refusal comes from the
    // listener's probe; the connection before it is real. What this checks: the attempts back
    // off (0.5 s, 1 s, 2 s, ...) instead of reconnecting in a loop, and the window is told once.
    void aListenTheServerRefusesBacksOffAndIsSaidOnce()
    {
        if (testpostgres::folder().isEmpty())
            QSKIP("needs the postgres fixture (ctest starts it)");
        const std::string url = testpostgres::freshDatabase(QStringLiteral("listen-refused"));
        core::HistoryOpenOptions options;
        options.clusterIdentity = "sha256:standby";
        options.recorderName = "night-shift";
        QVERIFY(core::HistoryStore::open(url, core::HistoryStore::OpenMode::ReadWrite, options).ok());
        models::ObjectHistoryModel model;
        app::HistorySource source(&model);
        QSignalSpy availability(&source, &app::HistorySource::availabilityChanged);
        auto attempts = std::make_shared<std::atomic<int>>(0); // the listener thread may outlive this test
        source.setListenProbe([attempts] {
            ++*attempts;
            return core::Status(core::Error::make(core::ErrorCategory::Server,
                                                  "ERROR:  cannot execute LISTEN during recovery"));
        });
        source.setDatabase(QString::fromStdString(url + "#sha256:standby"));
        QTRY_COMPARE_WITH_TIMEOUT(availability.size(), 1, 10000);
        QVERIFY2(availability.front().front().toString().contains(QLatin1String("cannot execute LISTEN")),
                 qPrintable(availability.front().front().toString()));
        // Attempts start 0.5 s, then 1 s, then 2 s apart: at most 3 in the first 2.5 s, however
        // fast the machine (a loop makes one per connection: dozens).
        QTest::qWait(2500);
        QVERIFY2(*attempts <= 3, qPrintable(QString::number(*attempts)));
        QCOMPARE(availability.size(), 1);
    }
};

QTEST_GUILESS_MAIN(TestHistorySource)
#include "tst_historysource.moc"
