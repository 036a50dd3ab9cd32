// HistoryStore::write(items, next): the caller's next write is read while this one is written,
// and that next write stores exactly what it would have stored unread, on the SQLite file and (run as
// tst_historystore_next_postgres) on the test PostgreSQL; a write of any other batch reads its own. The
// HistoryRecorder names the work queued behind the one it writes.
#include "core/history/historystore.h"
#include "core/history/historywriter.h"
#include "storefixtures.h"

#include <QTemporaryDir>
#include <QTest>

#include <condition_variable>
#include <map>
#include <mutex>
#include <string>

using namespace fieldscope::core;
using namespace storefixtures;

namespace {

const WatchScope kMaps = WatchScope::of({"", "v1", "configmaps"}, "next");

std::string configMap(int i, long long rv, const std::string &value)
{
    return "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"cm-" + std::to_string(i)
         + "\",\"namespace\":\"next\",\"uid\":\"uid-" + std::to_string(i) + "\",\"resourceVersion\":\""
         + std::to_string(rv) + "\"},\"data\":{\"v\":\"" + value + "\",\"pad\":\"" + std::string(200, 'p') + "\"}}";
}

// `rounds` writes of `objects` ConfigMaps each, one version of each object per write.
std::vector<HistoryStore::Batch> rounds(int count, int objects)
{
    std::vector<HistoryStore::Batch> out;
    long long rv = 1000;
    for (int r = 0; r < count; ++r) {
        std::vector<WatchEvent> events;
        events.reserve(std::size_t(objects));
        for (int i = 0; i < objects; ++i)
            events.push_back({r == 0 ? HistoryEventType::Added : HistoryEventType::Modified,
                              configMap(i, ++rv, "round " + std::to_string(r)), 1'784'000'000'000 + rv});
        out.push_back(std::make_shared<const std::vector<HistoryWriteItem>>(std::vector<HistoryWriteItem>{
            {kMaps, std::move(events), {}, {}}}));
    }
    return out;
}

// What the events say: uid -> (rv -> text).
std::map<std::string, std::map<std::string, std::string>> expected(const std::vector<HistoryStore::Batch> &all)
{
    std::map<std::string, std::map<std::string, std::string>> out;
    for (const auto &write : all)
        for (const auto &item : *write)
            for (const auto &e : item.events) {
                const Json j = parseJson(e.objectJson).value();
                out[j["metadata"]["uid"].get<std::string>()][j["metadata"]["resourceVersion"].get<std::string>()] =
                    toJsonText(j);
            }
    return out;
}

} // namespace

class TestHistoryStoreNext : public QObject
{
    Q_OBJECT
    QTemporaryDir m_dir;

    std::string location(const char *name) const { return storeLocation(m_dir, name); }

    std::unique_ptr<HistoryStore> openStore(const char *name)
    {
        HistoryOpenOptions options;
        options.clusterIdentity = "sha256:next";
        auto store = HistoryStore::open(location(name), HistoryStore::OpenMode::ReadWrite, options);
        if (!store)
            qFatal("%s", store.error().describe().c_str());
        return std::move(*store);
    }

private Q_SLOTS:
    void eachWriteNamingTheNextHasItReadAndStoredAsWrittenAlone()
    {
        auto store = openStore("next_chain");
        const auto all = rounds(5, 300);
        for (std::size_t w = 0; w < all.size(); ++w) {
            const auto report = store->write(all[w], w + 1 < all.size() ? all[w + 1] : nullptr);
            QVERIFY2(report.ok(), report ? "" : report.error().describe().c_str());
            QCOMPARE(report->versions.size(), std::size_t(300));
            // The first write was named by none; each after it was read while the one before was written.
            QCOMPARE(report->readBeforehand, w == 0 ? std::int64_t(0) : std::int64_t(300));
        }
        QVERIFY(everyVersion(*store) == expected(all));
    }

    // An equal copy is another batch: read again, never taken for the one named.
    void aWriteOfAnotherBatchThanTheOneNamedReadsItsOwn()
    {
        auto store = openStore("next_other");
        const auto all = rounds(2, 20);
        QVERIFY(store->write(all[0], all[1]).ok());
        const auto copy = std::make_shared<const std::vector<HistoryWriteItem>>(*all[1]);
        const auto report = store->write(copy, nullptr);
        QVERIFY2(report.ok(), report ? "" : report.error().describe().c_str());
        QCOMPARE(report->readBeforehand, std::int64_t(0));
        QCOMPARE(report->skippedDuplicates, std::int64_t(0));
        QVERIFY(everyVersion(*store) == expected(all));
    }

    // The batch named next, written only after another write, is read again then: what was read
    // for it was dropped by the write in between.
    void aNamedBatchWrittenLaterIsReadAgain()
    {
        auto store = openStore("next_later");
        const auto all = rounds(3, 20);
        QVERIFY(store->write(all[0], all[2]).ok());
        const auto between = store->write(all[1], nullptr);
        QVERIFY(between.ok());
        QCOMPARE(between->readBeforehand, std::int64_t(0));
        const auto later = store->write(all[2], nullptr);
        QVERIFY(later.ok());
        QCOMPARE(later->readBeforehand, std::int64_t(0));
        QVERIFY(everyVersion(*store) == expected(all));
    }

    // A recorder that is behind names the work queued after the one it writes. The first commit
    // waits until all 40 batches are queued, so the rest are written one work (100 events) at a
    // time with the next one named.
    void aRecorderBehindReadsEachQueuedWorkWhileItWritesTheOneBefore()
    {
        std::mutex mutex;
        std::condition_variable queued;
        bool allQueued = false;
        std::int64_t readBeforehand = 0, commits = 0;
        HistoryRecorder::Options options;
        options.path = location("next_recorder");
        const std::string where = options.path;
        options.open.clusterIdentity = "sha256:next";
        options.maxEventsPerTransaction = 100;
        options.onCommitted = [&](const CommitReport &report) {
            std::unique_lock lock(mutex);
            queued.wait(lock, [&] { return allQueued; });
            readBeforehand += report.readBeforehand;
            ++commits;
        };
        const auto all = rounds(40, 100);
        {
            HistoryRecorder recorder(options);
            for (const auto &batch : all)
                recorder.record(kMaps, (*batch)[0].events);
            {
                std::lock_guard lock(mutex);
                allQueued = true;
            }
            queued.notify_all();
            QVERIFY(recorder.flush().ok());
            QCOMPARE(recorder.counters().committedVersions, std::int64_t(4000));
        }
        QCOMPARE(commits, std::int64_t(40));
        // Each work is one batch (maxEventsPerTransaction). The first was taken before the store
        // was open, so it named none and the second was read in its own write; each of the other
        // 38 was named while the one before it was written.
        QCOMPARE(readBeforehand, std::int64_t(38 * 100));
        HistoryOpenOptions open;
        open.clusterIdentity = "sha256:next";
        auto store = HistoryStore::open(where, HistoryStore::OpenMode::ReadOnly, open);
        QVERIFY(store.ok());
        QVERIFY(everyVersion(**store) == expected(all));
    }

    // A relist queues its gap and then its difference: the two commit together even when the
    // difference is larger than a transaction's cap, so no reader sees the gap alone.
    void aGapAndTheBatchAfterItCommitTogetherPastTheCap()
    {
        std::mutex mutex;
        std::condition_variable queued;
        bool allQueued = false;
        std::vector<std::pair<std::size_t, std::size_t>> commits; // (gaps, versions)
        HistoryRecorder::Options options;
        options.path = location("gap_with_batch");
        options.open.clusterIdentity = "sha256:next";
        options.maxEventsPerTransaction = 100;
        options.onCommitted = [&](const CommitReport &report) {
            std::unique_lock lock(mutex);
            queued.wait(lock, [&] { return allQueued; });
            commits.emplace_back(report.gaps.size(), report.versions.size());
        };
        const auto all = rounds(3, 150);
        {
            HistoryRecorder recorder(options);
            recorder.record(kMaps, (*all[0])[0].events); // taken at once: its commit waits
            recorder.recordGap(kMaps, "1", "2", "relist after 410", 1);
            recorder.record(kMaps, (*all[1])[0].events);
            recorder.record(kMaps, (*all[2])[0].events);
            {
                std::lock_guard lock(mutex);
                allQueued = true;
            }
            queued.notify_all();
            QVERIFY(recorder.flush().ok());
        }
        const std::vector<std::pair<std::size_t, std::size_t>> expected = {{0, 150}, {1, 150}, {0, 150}};
        QCOMPARE(commits, expected);
    }
};

QTEST_GUILESS_MAIN(TestHistoryStoreNext)
#include "tst_historystore_next.moc"
