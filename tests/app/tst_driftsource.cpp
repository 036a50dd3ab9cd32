// The Drift view's and the drift badge's worker (app/services/driftsource.cpp): runs on one
// database share one read-only connection (the badge runs at every reload of the selected
// object's history), a new location opens anew, and a store that does not exist yet is looked
// for again by the next run.
#include "app/services/driftsource.h"
#include "core/base/json.h"
#include "core/history/historystore.h"

#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

using namespace fieldscope;
using core::Json;

namespace {

Json configMap(const std::string &rv)
{
    return {{"apiVersion", "v1"},
            {"kind", "ConfigMap"},
            {"metadata", {{"name", "settings"}, {"namespace", "lessons"}, {"uid", "u1"}, {"resourceVersion", rv}}},
            {"data", {{"mode", "blue"}}}};
}

bool record(const QString &db)
{
    auto store = core::HistoryStore::open(db.toStdString());
    if (!store)
        return false;
    const core::WatchScope scope = core::WatchScope::of({"", "v1", "configmaps"}, "lessons");
    return (*store)
        ->write({{scope, {{core::HistoryEventType::Added, configMap("10").dump(), 1'784'000'000'000}}, {}, {}, {}}})
        .ok();
}

app::DriftInput input()
{
    return {{"configmaps", "lessons", "settings", "u1"}, QByteArray::fromStdString(configMap("10").dump())};
}

// Starts a run and waits for its end; true when it finished without problems.
bool runOnce(app::DriftSource &source)
{
    QSignalSpy finished(&source, &app::DriftSource::finished);
    const int run = source.analyse({input()});
    if (!finished.wait(30000))
        return false;
    const QStringList problems = finished.last().at(1).toStringList();
    if (!problems.isEmpty())
        qWarning("%s", qPrintable(problems.join(u'\n')));
    return finished.last().at(0).toInt() == run && problems.isEmpty();
}

} // namespace

class TestDriftSource : public QObject
{
    Q_OBJECT
    QTemporaryDir m_dir;

private Q_SLOTS:
    void runsOnOneDatabaseShareOneConnection()
    {
        const QString db = m_dir.filePath(QStringLiteral("one.db"));
        QVERIFY(record(db));
        app::DriftSource source;
        source.setDatabase(db);
        for (int i = 0; i < 5; ++i)
            QVERIFY(runOnce(source));
        QCOMPARE(source.storeOpens(), 1);
    }

    // One object that cannot be analysed (its JSON is damaged) is that object's problem, not the
    // store's: the connection stays.
    void anObjectThatFailsKeepsTheConnection()
    {
        const QString db = m_dir.filePath(QStringLiteral("kept.db"));
        QVERIFY(record(db));
        app::DriftSource source;
        source.setDatabase(db);
        QSignalSpy finished(&source, &app::DriftSource::finished);
        app::DriftInput broken = input();
        broken.json = QByteArrayLiteral("{not json");
        source.analyse({broken});
        QVERIFY(finished.wait(30000));
        QCOMPARE(finished.last().at(1).toStringList().size(), 1);
        QVERIFY(runOnce(source));
        QCOMPARE(source.storeOpens(), 1);
    }

    void anotherLocationIsOpenedAnew()
    {
        const QString first = m_dir.filePath(QStringLiteral("first.db"));
        const QString second = m_dir.filePath(QStringLiteral("second.db"));
        QVERIFY(record(first) && record(second));
        app::DriftSource source;
        source.setDatabase(first);
        QVERIFY(runOnce(source));
        source.setDatabase(second);
        QVERIFY(runOnce(source));
        QVERIFY(runOnce(source));
        QCOMPARE(source.storeOpens(), 2);
    }

    void aStoreNotRecordedYetIsLookedForAgain()
    {
        const QString later = m_dir.filePath(QStringLiteral("later.db"));
        app::DriftSource source;
        source.setDatabase(later);
        QVERIFY(runOnce(source)); // nothing recorded yet: managedFields alone, no problem
        QVERIFY(record(later));
        QVERIFY(runOnce(source));
        QVERIFY(runOnce(source));
        QCOMPARE(source.storeOpens(), 1); // found by the second run, then kept
    }
};

QTEST_GUILESS_MAIN(TestDriftSource)
#include "tst_driftsource.moc"
