// The window's recorder of one cluster (app/services/windowrecorder.h): a history file of this
// computer is pruned to the user's Settings, the team's store never (a teammate's window used to
// prune everyone's history to its own Settings); the store's recorders keep it to its policy.
#include "app/services/windowrecorder.h"
#include "testpostgres.h"

#include <QDateTime>
#include <QTemporaryDir>
#include <QTest>

using namespace fieldscope;

namespace {

const core::WatchScope kMaps = core::WatchScope::of({"", "v1", "configmaps"}, "team");

core::WatchEvent version(int n)
{
    return {n == 1 ? core::HistoryEventType::Added : core::HistoryEventType::Modified,
            R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm","namespace":"team","uid":"uid-1",)"
            R"("resourceVersion":")"
                + std::to_string(100 + n) + R"("},"data":{"n":")" + std::to_string(n) + R"("}})",
            QDateTime::currentMSecsSinceEpoch()};
}

// Records versions 1..n, one batch each, with a retention round after every batch.
bool record(core::HistoryRecorder::Options options, int from, int to)
{
    options.retentionIntervalMs = 0;
    core::HistoryRecorder recorder(std::move(options));
    for (int n = from; n <= to; ++n) {
        recorder.record(kMaps, {version(n)});
        if (!recorder.flush())
            return false;
    }
    return true;
}

std::size_t keptVersions(const std::string &location)
{
    auto reader = core::HistoryStore::open(location, core::HistoryStore::OpenMode::ReadOnly);
    if (!reader)
        return 0;
    const auto objects = (*reader)->allObjects().value();
    return objects.empty() ? 0 : (*reader)->versions(objects[0].id).value().size();
}

app::WindowRecorderChoices choices(const std::string &location)
{
    app::WindowRecorderChoices c;
    c.location = location;
    c.clusterIdentity = "sha256:team";
    c.clusterLabel = "https://team.example:6443";
    c.contextName = QStringLiteral("tst-windowrecorder-no-such-context");
    c.versionsPerObject = 2; // Settings -> History: keep 2
    return c;
}

} // namespace

class TestWindowRecorder : public QObject
{
    Q_OBJECT
    QTemporaryDir m_dir;

private Q_SLOTS:
    void theWindowsRecorderNeverPrunesASharedStore()
    {
        if (testpostgres::folder().isEmpty())
            QSKIP("needs the postgres fixture (ctest starts it)");
        const std::string url = testpostgres::freshDatabase(QStringLiteral("window-retention")) + "#sha256:team";
        const core::HistoryRecorder::Options window = app::windowRecorderOptions(choices(url));
        QVERIFY(record(window, 1, 12));
        // The store's own policy would keep 2 as well: still the window does not prune.
        {
            auto owner = core::HistoryStore::open(url, core::HistoryStore::OpenMode::ReadWrite);
            QVERIFY(owner);
            core::RetentionChange keep2;
            keep2.maxVersionsPerObject = 2;
            QVERIFY((*owner)->setStoreRetention(keep2, 1).ok());
        }
        QVERIFY(record(window, 13, 20));
        QCOMPARE(keptVersions(url), std::size_t(20));
        QVERIFY((*core::HistoryStore::open(url, core::HistoryStore::OpenMode::ReadOnly))->prunings(10).value().empty());
        // A recorder of the store (`fieldscope record`) prunes it to the store's policy.
        core::HistoryRecorder::Options recorder;
        recorder.path = url;
        recorder.open.clusterIdentity = "sha256:team";
        recorder.open.recorderName = "record@host";
        QVERIFY(record(recorder, 21, 21));
        QCOMPARE(keptVersions(url), std::size_t(2));
    }

    void theWindowsRecorderPrunesItsOwnFileToTheUsersSettings()
    {
        const std::string file = m_dir.filePath(QStringLiteral("team.db")).toStdString();
        QVERIFY(record(app::windowRecorderOptions(choices(file)), 1, 12));
        QCOMPARE(keptVersions(file), std::size_t(2));
    }
};

QTEST_GUILESS_MAIN(TestWindowRecorder)
#include "tst_windowrecorder.moc"
