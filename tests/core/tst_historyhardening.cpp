// History files we did not write, and recorders we let go of:
// - `--open FILE` and `history --db FILE` open any SQLite file: a view in it may not call what
//   needs a trusted schema (here pragma_database_list, which would read out our file paths into
//   an object's name): the store refuses it (SQLITE_DBCONFIG_DEFENSIVE, trusted_schema=OFF).
// - A recorder released by its last owner drains on a finisher thread, never in the caller, and
//   HistoryRecorder::waitForReleased() still sees its last batch committed.
#include "core/history/historystore.h"
#include "core/history/historywriter.h"

#include <QDateTime>
#include <QElapsedTimer>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include <sqlite3.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <set>
#include <thread>

using namespace fieldscope::core;

namespace {

const WatchScope kConfigMaps = WatchScope::of({"", "v1", "configmaps"}, "prod");

std::string configMap(int rv)
{
    return "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"uid\":\"u-1\",\"name\":\"a\",\"namespace\":\"prod\","
           "\"resourceVersion\":\""
         + std::to_string(rv) + "\"},\"data\":{\"n\":\"" + std::to_string(rv) + "\"}}";
}

bool execAll(const std::string &path, const char *sql)
{
    sqlite3 *db = nullptr;
    const bool ok = sqlite3_open(path.c_str(), &db) == SQLITE_OK
                 && sqlite3_exec(db, sql, nullptr, nullptr, nullptr) == SQLITE_OK;
    sqlite3_close(db);
    return ok;
}

// Holds the recorder's writer inside its first commit (up to `maxMs`) until released: the
// queue fills behind it.
struct HeldWriter {
    std::shared_ptr<std::atomic<bool>> entered = std::make_shared<std::atomic<bool>>(false);
    std::shared_ptr<std::atomic<bool>> released = std::make_shared<std::atomic<bool>>(false);
    void holdIn(HistoryRecorder::Options &o, int maxMs)
    {
        o.onCommitted = [entered = entered, released = released, maxMs](const CommitReport &) {
            *entered = true;
            for (int i = 0; i < maxMs / 10 && !*released; ++i)
                std::this_thread::sleep_for(std::chrono::milliseconds(10));
        };
    }
    void release() { *released = true; }
};

// Records versions 2..39 of the ConfigMap on a thread of its own; `fed` says when all returned.
std::thread feedVersions(HistoryRecorder &recorder, std::atomic<bool> &fed, qint64 now)
{
    return std::thread([&recorder, &fed, now] {
        for (int rv = 2; rv < 40; ++rv)
            recorder.record(kConfigMaps, {{HistoryEventType::Modified, configMap(rv), now}});
        fed = true;
    });
}

} // namespace

class TestHistoryHardening : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void viewThatNeedsATrustedSchemaIsRefused()
    {
        QTemporaryDir dir;
        const std::string path = dir.filePath(QStringLiteral("hostile.db")).toStdString();
        {
            // A well-formed store first, then its tables swapped for views reading the connection's
            // database list (pragma_database_list: not innocuous).
            auto store = HistoryStore::open(path);
            QVERIFY(store.ok());
        }
        QVERIFY(execAll(
            path,
            "DROP TABLE meta; CREATE VIEW meta(key, value) AS SELECT 'total_bytes', seq FROM pragma_database_list;"
            "DROP TABLE objects; CREATE VIEW objects(id, uid, api_group, api_version, kind, resource, namespace, name,"
            " version_count, pruned_count, deleted) AS SELECT seq, 'u', '', 'v1', 'ConfigMap', 'configmaps', 'prod',"
            " file, 1, 0, 0 FROM pragma_database_list;"));
        {
            // --open and `history --db` read: the view's call is refused.
            auto store = HistoryStore::open(path, HistoryStore::OpenMode::ReadOnly);
            QVERIFY(!store.ok());
            QVERIFY2(store.error().describe().find("unsafe use of virtual table") != std::string::npos,
                     store.error().describe().c_str());
        }
        {
            // A writer never gets as far as reading through the views.
            auto store = HistoryStore::open(path, HistoryStore::OpenMode::ReadWrite);
            QVERIFY(!store.ok() || !(*store)->allObjects().ok());
        }
    }

    // A version written into the file behind the store's back, under an order the store does
    // not look at for other writers' changes (a negative id), leaves the writer's head wrong:
    // its next version meets that seq. It is stored after the heads are read again, never
    // counted as a duplicate and lost.
    void aVersionWrittenBehindTheStoresBackDoesNotLoseTheNext()
    {
        QTemporaryDir dir;
        const std::string path = dir.filePath(QStringLiteral("behind.db")).toStdString();
        auto opened = HistoryStore::open(path);
        QVERIFY2(opened.ok(), opened ? "" : opened.error().describe().c_str());
        auto &store = **opened;
        QVERIFY(store.write({{kConfigMaps, {{HistoryEventType::Added, configMap(10), 1}}, {}, {}}}).ok());
        QVERIFY(execAll(path, "INSERT INTO versions(id, object_id, seq, rv, event, observed_ms, scope, snapshot,"
                              " raw_size, data, recorder) SELECT -5, object_id, 2, '15', event, observed_ms, scope,"
                              " snapshot, raw_size, data, recorder FROM versions WHERE seq = 1;"
                              " UPDATE objects SET last_seq = 2, version_count = 2"));
        auto report = store.write({{kConfigMaps, {{HistoryEventType::Modified, configMap(20), 2}}, {}, {}}});
        QVERIFY2(report.ok(), report ? "" : report.error().describe().c_str());
        QCOMPARE(report->skippedDuplicates, 0);
        QCOMPARE(report->versions.size(), std::size_t(1));
        const auto objects = store.allObjects().value();
        QCOMPARE(objects.size(), std::size_t(1));
        const auto versions = store.versions(objects[0].id).value();
        QCOMPARE(versions.size(), std::size_t(3));
        QCOMPARE(versions.back().resourceVersion, std::string("20"));
        QCOMPARE(toJsonText(store.loadVersion(objects[0].id, versions.back().seq).value()),
                 toJsonText(parseJson(configMap(20)).value()));
    }

    void releasedRecorderDrainsOnAnotherThreadAndCommitsItsLastBatch()
    {
        QTemporaryDir dir;
        const std::string path = dir.filePath(QStringLiteral("release.db")).toStdString();
        struct Shared {
            std::mutex mutex;
            std::set<std::thread::id> committers;
            std::atomic<bool> entered{false}, release{false};
        };
        auto shared = std::make_shared<Shared>();
        HistoryRecorder::Options o{path};
        o.onCommitted = [shared](const CommitReport &) {
            {
                std::lock_guard lock(shared->mutex);
                shared->committers.insert(std::this_thread::get_id());
            }
            shared->entered = true;
            // The first commit holds the writer (a slow disk) until the test lets it go, 5 s at most.
            for (int i = 0; i < 500 && !shared->release; ++i)
                std::this_thread::sleep_for(std::chrono::milliseconds(10));
        };
        auto recorder = HistoryRecorder::makeShared(o);
        const qint64 now = QDateTime::currentMSecsSinceEpoch();
        recorder->record(kConfigMaps, {{HistoryEventType::Added, configMap(1), now}});
        QTRY_VERIFY_WITH_TIMEOUT(shared->entered.load(), 5'000);
        recorder->record(kConfigMaps,
                         {{HistoryEventType::Modified, configMap(2), now}}); // queued behind the slow commit

        QElapsedTimer clock;
        clock.start();
        recorder.reset(); // the last owner lets go, on this (the "GUI") thread
        QVERIFY2(clock.elapsed() < 100, qPrintable(QString::number(clock.elapsed())));

        shared->release = true;
        HistoryRecorder::waitForReleased();
        {
            std::lock_guard lock(shared->mutex);
            QVERIFY(!shared->committers.empty());
            QVERIFY(!shared->committers.count(std::this_thread::get_id()));
        }
        auto store = HistoryStore::open(path, HistoryStore::OpenMode::ReadOnly);
        QVERIFY(store.ok());
        auto objects = (*store)->allObjects();
        QVERIFY(objects.ok());
        QCOMPARE(int(objects->size()), 1);
        auto versions = (*store)->versions(objects->front().id);
        QVERIFY(versions.ok());
        QCOMPARE(int(versions->size()), 2); // the batch queued when it was released is there too
    }
    void queueOverflowIsReportedAsARecordingFailure()
    {
        QTemporaryDir dir;
        HistoryRecorder::Options o{dir.filePath(QStringLiteral("overflow.db")).toStdString()};
        o.maxQueuedBytes = 1'000;
        HeldWriter writer;
        writer.holdIn(o, 5'000);
        HistoryRecorder recorder(o);
        QSignalSpy failed(&recorder, &HistoryRecorder::writeFailed);
        const qint64 now = QDateTime::currentMSecsSinceEpoch();
        recorder.record(kConfigMaps, {{HistoryEventType::Added, configMap(1), now}});
        QTRY_VERIFY_WITH_TIMEOUT(writer.entered->load(), 5'000); // the writer is busy: the queue fills
        for (int rv = 2; rv < 40; ++rv)
            recorder.record(kConfigMaps, {{HistoryEventType::Modified, configMap(rv), now}});
        QVERIFY(recorder.counters().droppedEvents > 0);
        QCOMPARE(failed.size(), 1); // once per overflow gap, not once per dropped batch
        const QString message = failed.front().front().toString();
        QVERIFY2(message.contains(QStringLiteral("overflow")) && message.contains(QStringLiteral("dropped")),
                 qPrintable(message));
        writer.release();
        QVERIFY(recorder.flush().ok());
    }

    // The window's recording thread: a burst waits for the writer instead of becoming a gap.
    void recorderAllowedToWaitTakesABurstWithoutDroppingAnything()
    {
        QTemporaryDir dir;
        HistoryRecorder::Options o{dir.filePath(QStringLiteral("burst.db")).toStdString()};
        o.maxQueuedBytes = 1'000;
        o.maxWaitForRoomMs = 20'000;
        HeldWriter writer;
        writer.holdIn(o, 5'000);
        HistoryRecorder recorder(o);
        const qint64 now = QDateTime::currentMSecsSinceEpoch();
        recorder.record(kConfigMaps, {{HistoryEventType::Added, configMap(1), now}});
        QTRY_VERIFY_WITH_TIMEOUT(writer.entered->load(), 5'000); // the writer is busy: the queue fills
        std::atomic<bool> fed = false;
        std::thread feeder = feedVersions(recorder, fed, now);
        QTest::qWait(200);
        QVERIFY(!fed); // waiting for room, not dropping
        writer.release();
        feeder.join();
        QVERIFY(recorder.flush().ok());
        QCOMPARE(recorder.counters().droppedEvents, 0);
        QCOMPARE(recorder.counters().committedVersions, 39);
    }

    void batchLargerThanTheQueueGoesInAloneWhenTheRecorderMayWait()
    {
        QTemporaryDir dir;
        HistoryRecorder::Options o{dir.filePath(QStringLiteral("large.db")).toStdString()};
        o.maxQueuedBytes = 1'000;
        o.maxWaitForRoomMs = 20'000;
        HistoryRecorder recorder(o);
        const qint64 now = QDateTime::currentMSecsSinceEpoch();
        std::vector<WatchEvent> relist; // a relist's difference: far more than the whole queue
        for (int rv = 1; rv <= 40; ++rv)
            relist.push_back({HistoryEventType::Modified, configMap(rv), now});
        recorder.record(kConfigMaps, std::move(relist));
        QVERIFY(recorder.flush().ok());
        QCOMPARE(recorder.counters().droppedEvents, 0);
        QCOMPARE(recorder.counters().committedVersions, 40);
    }

    void waitingForRoomTurnedOffEndsAWaitWithTheHonestGap()
    {
        QTemporaryDir dir;
        HistoryRecorder::Options o{dir.filePath(QStringLiteral("stop.db")).toStdString()};
        o.maxQueuedBytes = 1'000;
        o.maxWaitForRoomMs = 60'000;
        HeldWriter writer;
        writer.holdIn(o, 10'000);
        HistoryRecorder recorder(o);
        const qint64 now = QDateTime::currentMSecsSinceEpoch();
        recorder.record(kConfigMaps, {{HistoryEventType::Added, configMap(1), now}});
        QTRY_VERIFY_WITH_TIMEOUT(writer.entered->load(), 5'000);
        std::atomic<bool> fed = false;
        std::thread feeder = feedVersions(recorder, fed, now);
        QTest::qWait(100);
        QVERIFY(!fed);
        QElapsedTimer t;
        t.start();
        recorder.setWaitingForRoom(false); // the owner lets go: the waiting caller must not hang
        QTRY_VERIFY_WITH_TIMEOUT(fed.load(), 5'000);
        QVERIFY(t.elapsed() < 5'000);
        QVERIFY(recorder.counters().droppedEvents > 0);
        writer.release();
        feeder.join();
        QVERIFY(recorder.flush().ok());
    }
};

QTEST_GUILESS_MAIN(TestHistoryHardening)
#include "tst_historyhardening.moc"
