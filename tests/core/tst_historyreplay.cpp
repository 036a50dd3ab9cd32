// Replayed versions (HistoryRecorder::recordReplay): what the sandbox demo's own watch saw is
// stored for objects no watch recorded, and never repeats or reorders what a watch recorded.
#include "core/history/historywriter.h"

#include <QDateTime>
#include <QTemporaryDir>
#include <QTest>

using namespace fieldscope::core;

namespace {

std::string configMap(const std::string &uid, const std::string &rv, const std::string &manager)
{
    Json cm = Json::object();
    cm["apiVersion"] = "v1";
    cm["kind"] = "ConfigMap";
    cm["metadata"] = Json::object();
    cm["metadata"]["name"] = "settings";
    cm["metadata"]["namespace"] = "demo";
    cm["metadata"]["uid"] = uid;
    cm["metadata"]["resourceVersion"] = rv;
    cm["data"] = Json::object();
    cm["data"]["writer"] = manager;
    return toJsonText(cm);
}

WatchEvent watched(HistoryEventType type, const std::string &json)
{
    return {type, json, QDateTime::currentMSecsSinceEpoch()};
}

const WatchScope kWatched = WatchScope::of({"", "v1", "configmaps"}, "");
const WatchScope kReplay{"replay:configmaps.v1/demo", "configmaps"};

std::vector<std::string> storedRvs(HistoryStore &store, const std::string &uid)
{
    ObjectQuery q;
    q.uid = uid;
    q.allNamespaces = true;
    auto objects = store.findObjects(q);
    if (!objects || objects->size() != 1)
        return {};
    auto versions = store.versions(objects->front().id);
    std::vector<std::string> rvs;
    for (const VersionInfo &v : versions.value())
        rvs.push_back(v.resourceVersion);
    return rvs;
}

} // namespace

class TestHistoryReplay : public QObject
{
    Q_OBJECT
    QTemporaryDir m_dir;

    std::unique_ptr<HistoryStore> reopen(const QString &path)
    {
        auto s = HistoryStore::open(path.toStdString(), HistoryStore::OpenMode::ReadOnly);
        if (!s)
            qFatal("%s", s.error().describe().c_str());
        return std::move(*s);
    }

private Q_SLOTS:
    void replayStoresEveryVersionOfAnObjectNoWatchRecorded()
    {
        const QString path = m_dir.filePath(QStringLiteral("unwatched.db"));
        {
            HistoryRecorder recorder({path.toStdString()});
            recorder.recordReplay(kReplay, {watched(HistoryEventType::Added, configMap("u1", "10", "create")),
                                            watched(HistoryEventType::Modified, configMap("u1", "11", "edit")),
                                            watched(HistoryEventType::Modified, configMap("u1", "12", "operator"))});
            QVERIFY(recorder.flush().ok());
        }
        auto store = reopen(path);
        QCOMPARE(storedRvs(*store, "u1"), (std::vector<std::string>{"10", "11", "12"}));
        // The replay observed one object, not the scope: no resume point is claimed for it.
        QCOMPARE(store->lastResourceVersion(kReplay.id).value(), std::string());
    }

    void replayOfAnObjectAWatchRecordedAddsNothing()
    {
        const QString path = m_dir.filePath(QStringLiteral("watched.db"));
        {
            HistoryRecorder recorder({path.toStdString()});
            // The table's watch started late: it listed version 11 and then saw 12.
            recorder.record(kWatched, {watched(HistoryEventType::Listed, configMap("u2", "11", "edit"))}, "11");
            recorder.record(kWatched, {watched(HistoryEventType::Modified, configMap("u2", "12", "operator"))});
            recorder.recordReplay(kReplay, {watched(HistoryEventType::Added, configMap("u2", "10", "create")),
                                            watched(HistoryEventType::Modified, configMap("u2", "11", "edit")),
                                            watched(HistoryEventType::Modified, configMap("u2", "12", "operator"))});
            QVERIFY(recorder.flush().ok());
        }
        auto store = reopen(path);
        // Version 10 would land after 12 if it were stored: the replay leaves the object alone.
        QCOMPARE(storedRvs(*store, "u2"), (std::vector<std::string>{"11", "12"}));
    }

    void watchAfterAReplayDoesNotRepeatTheReplayedVersion()
    {
        const QString path = m_dir.filePath(QStringLiteral("later.db"));
        {
            HistoryRecorder recorder({path.toStdString()});
            recorder.recordReplay(kReplay, {watched(HistoryEventType::Added, configMap("u3", "20", "create")),
                                            watched(HistoryEventType::Modified, configMap("u3", "21", "edit"))});
            // The user opens ConfigMaps afterwards: the list shows the version the replay ended on.
            recorder.record(kWatched, {watched(HistoryEventType::Listed, configMap("u3", "21", "edit"))}, "30");
            QVERIFY(recorder.flush().ok());
        }
        auto store = reopen(path);
        QCOMPARE(storedRvs(*store, "u3"), (std::vector<std::string>{"20", "21"}));
    }
};

QTEST_GUILESS_MAIN(TestHistoryReplay)
#include "tst_historyreplay.moc"
