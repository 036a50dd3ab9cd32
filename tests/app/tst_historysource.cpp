// The History tab's loader (app/historysource.cpp) when its worker throws: a huge answer
// (std::bad_alloc) or a library's exception on a damaged file must show as the tab's message,
// never reach the GUI thread as an exception, and leave the source ready for the next load.
#include "app/historysource.h"
#include "core/base/json.h"
#include "core/history/historystore.h"
#include "models/objecthistorymodel.h"

#include <QAbstractItemModelTester>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

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
};

QTEST_GUILESS_MAIN(TestHistorySource)
#include "tst_historysource.moc"
