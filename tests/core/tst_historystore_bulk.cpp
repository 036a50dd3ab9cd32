// The team store's bulk writer (core/history/historystorebulk.cpp) on a real PostgreSQL (the
// `postgres` ctest fixture): batches larger than what it sends at once, heads read back after a
// restart, versions another scope or another recorder stored already, and a store made before
// the objects table left room for its updates.
#include "core/history/historystore.h"
#include "storefixtures.h"
#include "testpostgres.h"

#include <QDateTime>
#include <QTest>

#include <algorithm>
#include <map>

using namespace fieldscope::core;

namespace {

const WatchScope kMaps = WatchScope::of({"", "v1", "configmaps"}, "bulk");
const WatchScope kAllMaps = WatchScope::of({"", "v1", "configmaps"}, "");

// Version `n` of ConfigMap `i` with resourceVersion `rv`; `pad` makes some versions large enough
// that a delta is made against them, others small.
std::string configMap(int i, int n, long long rv)
{
    return R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm-)" + std::to_string(i)
         + R"(","namespace":"bulk","uid":"uid-)" + std::to_string(i) + R"(","resourceVersion":")" + std::to_string(rv)
         + R"("},"data":{"n":")" + std::to_string(n) + R"(","pad":")" + std::string(std::size_t(100 + i % 7 * 50), 'x')
         + R"("}})";
}

HistoryOpenOptions forCluster(const std::string &recorder)
{
    HistoryOpenOptions o;
    o.clusterIdentity = "sha256:bulk";
    o.clusterLabel = "https://bulk.example:6443";
    o.recorderName = recorder;
    return o;
}

std::unique_ptr<HistoryStore> openStore(const std::string &url, const std::string &recorder = "bulk-test")
{
    auto s = HistoryStore::open(url, HistoryStore::OpenMode::ReadWrite, forCluster(recorder));
    if (!s)
        qFatal("%s", s.error().describe().c_str());
    return std::move(*s);
}

// Why the transaction did not go through the bulk statements alone ("" when it did): without this
// check every test here would pass on the row writer.
std::string notInBulk(const CommitReport &report)
{
    if (!report.inBulk)
        return "written row by row";
    return report.bulkFallback.empty() ? std::string() : "done again row by row: " + report.bulkFallback;
}

#define QVERIFY_IN_BULK(report) QVERIFY2(notInBulk(report).empty(), notInBulk(report).c_str())

} // namespace

class TestHistoryStoreBulk : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void aLargeBatchOfNewAndChangingObjectsReadsBackExactlyInEventOrder()
    {
        auto store = openStore(testpostgres::freshDatabase(QStringLiteral("bulk-large")));
        // 2,600 events over 300 objects: more than one lookup batch and many sends, each object
        // new in the middle of the batch and changed again after its first version was sent.
        std::vector<WatchEvent> events;
        std::map<std::string, std::map<std::string, std::string>> expected;
        long long rv = 1000;
        for (int n = 1; n <= 9; ++n)
            for (int i = 0; i < 300 && events.size() < 2600; ++i) {
                const std::string text = configMap(i, n, ++rv);
                events.push_back({n == 1 ? HistoryEventType::Added : HistoryEventType::Modified, text, 1});
                expected["uid-" + std::to_string(i)][std::to_string(rv)] = toJsonText(parseJson(text).value());
            }
        events.push_back({HistoryEventType::Deleted, configMap(5, 10, ++rv), 2});
        expected["uid-5"][std::to_string(rv)] = toJsonText(parseJson(events.back().objectJson).value());
        auto report = store->write({{kMaps, events, {}, {}}});
        QVERIFY2(report.ok(), report ? "" : report.error().describe().c_str());
        QCOMPARE(report->versions.size(), events.size());
        QCOMPARE(report->skippedDuplicates, 0);
        QVERIFY_IN_BULK(*report);
        QVERIFY(storefixtures::everyVersion(*store) == expected);

        std::int64_t lastOrd = 0;
        std::vector<VersionInfo> all;
        const auto objects = store->allObjects().value();
        for (const auto &o : objects) {
            const auto versions = store->versions(o.id).value();
            QCOMPARE(o.versionCount, std::int64_t(versions.size()));
            QCOMPARE(o.deleted, o.ref.uid == "uid-5");
            for (std::size_t k = 0; k < versions.size(); ++k)
                QCOMPARE(versions[k].seq, std::int64_t(k + 1));
            all.insert(all.end(), versions.begin(), versions.end());
        }
        // The global order is the events' order: ords follow resourceVersions here.
        std::sort(all.begin(), all.end(), [](const auto &a, const auto &b) { return a.ord < b.ord; });
        for (const auto &v : all) {
            QVERIFY(v.ord > lastOrd);
            lastOrd = v.ord;
        }
        for (std::size_t k = 1; k < all.size(); ++k)
            QVERIFY(std::stoll(all[k].resourceVersion) > std::stoll(all[k - 1].resourceVersion));
    }

    void headsReadBackAfterARestartMakeDeltasThatDecode()
    {
        const std::string url = testpostgres::freshDatabase(QStringLiteral("bulk-restart"));
        std::map<std::string, std::map<std::string, std::string>> expected;
        long long rv = 1000;
        auto round = [&](HistoryStore &store, int n, int objects) {
            std::vector<WatchEvent> events;
            for (int i = 0; i < objects; ++i) {
                const std::string text = configMap(i, n, ++rv);
                events.push_back({n == 1 ? HistoryEventType::Added : HistoryEventType::Modified, text, 1});
                expected["uid-" + std::to_string(i)][std::to_string(rv)] = toJsonText(parseJson(text).value());
            }
            auto report = store.write({{kMaps, events, {}, {}}});
            return report.ok() && notInBulk(*report).empty() && report->headsReadAlone == 0;
        };
        {
            auto store = openStore(url);
            QVERIFY(round(*store, 1, 40)); // snapshots
            QVERIFY(round(*store, 2, 20)); // the first 20 end in a delta, the others in a snapshot
        }
        // A new connection holds no heads: each is read back with the batch's lookup, in one
        // query for all (a snapshot is its stored text, a chain is decoded from its rows), before
        // the next delta is made against it; none by a query of its own.
        auto store = openStore(url);
        QVERIFY(round(*store, 3, 40));
        QVERIFY(round(*store, 4, 40));
        QVERIFY(storefixtures::everyVersion(*store) == expected);
        int deltas = 0;
        const auto objects = store->allObjects().value();
        for (const auto &o : objects) {
            const auto versions = store->versions(o.id).value();
            for (const auto &v : versions)
                deltas += v.snapshot ? 0 : 1;
        }
        QVERIFY2(deltas >= 100, std::to_string(deltas).c_str());
    }

    void aHeadEvictedInTheMiddleOfABatchIsReadBackWithTheRowsHeldBeforeIt()
    {
        const std::string url = testpostgres::freshDatabase(QStringLiteral("bulk-evicted"));
        // 55 objects of ~1 MB pass what the writer keeps of a batch's heads (3 x 16 MiB): by the
        // time each comes back in the same batch its head was evicted, and what the batch held
        // must reach the database before the head is read from it. The first versions are
        // written by an earlier run of the store, and their text does not compress below the
        // rows a batch's read takes inline (256 KiB): each head is read alone, without its rows,
        // so none is kept cold (keepCold) and the read after the eviction is the database's.
        std::vector<std::string> noise(55);
        for (int i = 0; i < 55; ++i) {
            std::uint32_t x = 2463534242u + std::uint32_t(i);
            noise[std::size_t(i)].reserve(1'000'000);
            for (int k = 0; k < 1'000'000; ++k) {
                x ^= x << 13, x ^= x >> 17, x ^= x << 5; // xorshift32
                noise[std::size_t(i)] += char('a' + x % 26);
            }
        }
        auto big = [&noise](int i, int n, long long rv) {
            const std::string text = configMap(i, n, rv);
            return text.substr(0, text.size() - 2) + ",\"big\":\"" + noise[std::size_t(i)] + "\"}}";
        };
        std::map<std::string, std::map<std::string, std::string>> expected;
        long long rv = 5000;
        auto versions = [&](int from, int to) {
            std::vector<WatchEvent> events;
            for (int n = from; n <= to; ++n)
                for (int i = 0; i < 55; ++i) {
                    events.push_back({n == 1 ? HistoryEventType::Added : HistoryEventType::Modified, big(i, n, ++rv),
                                      1});
                    // Compact, keys in order: its own text is what reading it back gives.
                    expected["uid-" + std::to_string(i)][std::to_string(rv)] = events.back().objectJson;
                }
            return events;
        };
        QVERIFY(openStore(url)->write({{kMaps, versions(1, 1), {}, {}}}).ok());
        auto store = openStore(url);
        const auto events = versions(2, 3);
        auto report = store->write({{kMaps, events, {}, {}}});
        QVERIFY2(report.ok(), report ? "" : report.error().describe().c_str());
        QCOMPARE(report->versions.size(), events.size());
        QVERIFY_IN_BULK(*report);
        QVERIFY(report->headsReadAlone > 0); // the evicted heads: the case this test is about
        QVERIFY(storefixtures::everyVersion(*store) == expected);
    }

    // The same heads, stored by this writer: evicted from the cache mid-batch, they are kept as
    // their stored blobs and decoded back, never read from the database; the versions made
    // against them decode exactly.
    void aHeadThisWriterStoredIsDecodedFromItsBlobsWhenEvictedNotReadBack()
    {
        auto store = openStore(testpostgres::freshDatabase(QStringLiteral("bulk-cold")));
        auto big = [](int i, int n, long long rv) {
            const std::string text = configMap(i, n, rv);
            return text.substr(0, text.size() - 2) + ",\"big\":\"" + std::string(400000, char('a' + i % 26)) + "\"}}";
        };
        std::vector<WatchEvent> events;
        std::map<std::string, std::map<std::string, std::string>> expected;
        long long rv = 5000;
        for (int n = 1; n <= 2; ++n) // ~60 MB of heads: the first ones evicted before their second version
            for (int i = 0; i < 150; ++i) {
                events.push_back({n == 1 ? HistoryEventType::Added : HistoryEventType::Modified, big(i, n, ++rv), 1});
                expected["uid-" + std::to_string(i)][std::to_string(rv)] = events.back().objectJson; // compact already
            }
        auto report = store->write({{kMaps, events, {}, {}}});
        QVERIFY2(report.ok(), report ? "" : report.error().describe().c_str());
        QCOMPARE(report->versions.size(), events.size());
        QVERIFY_IN_BULK(*report);
        QCOMPARE(report->headsReadAlone, 0);
        QVERIFY(storefixtures::everyVersion(*store) == expected);
    }

    // A cold head is this writer's view like any cached one: once another recorder stored a
    // newer version of the object, it is forgotten, and the next version is made against the
    // store's head, not against the blobs this writer kept.
    void aColdHeadAnotherRecorderMovedOnIsForgottenNotDeltaedAgainst()
    {
        const std::string url = testpostgres::freshDatabase(QStringLiteral("bulk-cold-moved"));
        auto a = openStore(url, "recorder-a");
        auto b = openStore(url, "recorder-b");
        auto big = [](int i, int n, long long rv, const std::string &extra = {}) {
            const std::string text = configMap(i, n, rv);
            return text.substr(0, text.size() - 2) + extra + ",\"big\":\"" + std::string(200000, char('a' + i % 26))
                 + "\"}}";
        };
        std::map<std::string, std::map<std::string, std::string>> expected;
        auto expect = [&](const WatchEvent &ev) {
            const Json o = parseJson(ev.objectJson).value();
            expected[o["metadata"]["uid"].get<std::string>()][o["metadata"]["resourceVersion"].get<std::string>()] =
                toJsonText(o);
        };
        // 100 heads of ~200 KB pass the cache's 16 MiB: the first is evicted and kept cold (the
        // rows are sent 100 at a time, and a head is kept once its new object has its id).
        std::vector<WatchEvent> first;
        for (int i = 0; i < 100; ++i) {
            first.push_back({HistoryEventType::Added, big(i, 1, 7000 + i), 1});
            expect(first.back());
        }
        QVERIFY(a->write({{kMaps, first, {}, {}}}).ok());
        const WatchEvent byB{HistoryEventType::Modified, big(0, 2, 8000, ",\"onlyInB\":\"yes\""), 2};
        expect(byB);
        QCOMPARE(b->write({{kMaps, {byB}, {}, {}}})->versions.size(), std::size_t(1));
        const WatchEvent byA{HistoryEventType::Modified, big(0, 3, 9000), 3};
        expect(byA);
        auto report = a->write({{kMaps, {byA}, {}, {}}});
        QVERIFY2(report.ok(), report ? "" : report.error().describe().c_str());
        QCOMPARE(report->versions.size(), std::size_t(1));
        QVERIFY_IN_BULK(*report);
        QVERIFY(storefixtures::everyVersion(*a) == expected); // byA decodes without b's field
    }

    // A batch's heads stay cached while it is decided (up to 3 x the budget): 2,000 Pod-sized
    // heads would not fit the 16 MiB, and one evicted before its event came would be read back
    // by a query of its own.
    void aBatchLargerThanTheHeadBudgetKeepsItsHeadsUntilItIsDone()
    {
        auto store = openStore(testpostgres::freshDatabase(QStringLiteral("bulk-hold")));
        auto sized = [](int i, int n, long long rv) {
            const std::string text = configMap(i, n, rv);
            return text.substr(0, text.size() - 2) + ",\"big\":\"" + std::string(12000, char('a' + n)) + "\"}}";
        };
        std::vector<WatchEvent> first, second;
        long long rv = 9000;
        for (int i = 0; i < 1500; ++i)
            first.push_back({HistoryEventType::Added, sized(i, 1, ++rv), 1});
        for (int i = 0; i < 1500; ++i)
            second.push_back({HistoryEventType::Modified, sized(i, 2, ++rv), 1});
        QVERIFY(store->write({{kMaps, first, {}, {}}}).ok());
        // The cache kept the last ~1,300 heads of the first write and the others' blobs (cold);
        // the second's lookup finds them all in memory, and each new head then pushes an older
        // one out. headsReadBackAfterARestartMakeDeltasThatDecode covers the batch's read of heads not in memory.
        auto report = store->write({{kMaps, second, {}, {}}});
        QVERIFY2(report.ok(), report ? "" : report.error().describe().c_str());
        QVERIFY_IN_BULK(*report);
        QCOMPARE(report->versions.size(), std::size_t(1500));
        QCOMPARE(report->headsReadAlone, 0);
    }

    // A recorder that met versions as duplicates of what another recorder stored holds their
    // heads without a body; when it then stores the next versions, those bodies are read with the
    // batch's lookup, not one query per object (the burst of bench_teamhistory).
    void headsCachedWithoutTheirBodyAreReadWithTheBatchNotOneByOne()
    {
        const std::string url = testpostgres::freshDatabase(QStringLiteral("bulk-pending"));
        auto a = openStore(url, "recorder-a");
        auto b = openStore(url, "recorder-b");
        std::map<std::string, std::map<std::string, std::string>> expected;
        auto events = [&](int n, long long rv) {
            std::vector<WatchEvent> out;
            for (int i = 0; i < 50; ++i) {
                out.push_back({n == 1 ? HistoryEventType::Added : HistoryEventType::Modified, configMap(i, n, rv + i),
                               1});
                expected["uid-" + std::to_string(i)][std::to_string(rv + i)] =
                    toJsonText(parseJson(out.back().objectJson).value());
            }
            return out;
        };
        const auto firstRound = events(1, 7000);
        QVERIFY(b->write({{kMaps, firstRound, {}, {}}}).ok());
        auto dup = a->write({{kMaps, firstRound, {}, {}}});
        QVERIFY(dup.ok());
        QCOMPARE(dup->skippedDuplicates, 50);
        auto report = a->write({{kMaps, events(2, 8000), {}, {}}});
        QVERIFY2(report.ok(), report ? "" : report.error().describe().c_str());
        QVERIFY_IN_BULK(*report);
        QCOMPARE(report->versions.size(), std::size_t(50));
        QCOMPARE(report->headsReadAlone, 0);
        QVERIFY(storefixtures::everyVersion(*a) == expected);
    }

    // A head whose rows someone else rewrote (a delta marked as a snapshot) does not decode
    // from the batch's query: it is left to the one-by-one read, which cannot decode it either,
    // and the next version is stored whole; recording goes on and reads back exactly.
    void aHeadWhoseRowsWereTamperedWithIsStoredWholeNotMisdecoded()
    {
        const std::string db = "t_bulk_tampered";
        const std::string url = testpostgres::freshDatabase(QStringLiteral("bulk-tampered"));
        std::map<std::string, std::map<std::string, std::string>> expected;
        auto write = [&](HistoryStore &store, int n, long long rv) {
            const std::string text = configMap(7, n, rv);
            expected["uid-7"][std::to_string(rv)] = toJsonText(parseJson(text).value());
            return store.write(
                {{kMaps, {{n == 1 ? HistoryEventType::Added : HistoryEventType::Modified, text, 1}}, {}, {}}});
        };
        {
            auto store = openStore(url);
            for (int n = 1; n <= 3; ++n)
                QVERIFY(write(*store, n, 4000 + n).ok());
        }
        testpostgres::run(db, "UPDATE fieldscope_c1.versions SET snapshot = 1 WHERE seq = 2");
        auto store = openStore(url);
        auto report = write(*store, 4, 4004);
        QVERIFY2(report.ok(), report ? "" : report.error().describe().c_str());
        QVERIFY_IN_BULK(*report);
        QCOMPARE(report->headsReadAlone, 1);
        const auto objects = store->allObjects().value();
        const auto versions = store->versions(objects.front().id).value();
        QCOMPARE(versions.back().resourceVersion, std::string("4004"));
        QVERIFY(versions.back().snapshot);
        QCOMPARE(toJsonText(store->loadVersion(objects.front().id, versions.back().seq).value()),
                 expected["uid-7"]["4004"]);
    }

    // Heads read back with their batch (after a restart) keep the rows they were decoded from:
    // evicted, they are kept cold like heads this writer stored. The next version is then made
    // against the head in memory, not read again: here the rows were tampered with after the
    // read, and a read would find the head unreadable and store a snapshot.
    void aHeadReadBackWithItsBatchIsKeptColdWithTheRowsItWasDecodedFrom()
    {
        const std::string db = "t_bulk_read_cold";
        const std::string url = testpostgres::freshDatabase(QStringLiteral("bulk-read-cold"));
        auto big = [](int i, int n, long long rv) {
            const std::string text = configMap(i, n, rv);
            return text.substr(0, text.size() - 2) + ",\"big\":\"" + std::string(200000, char('a' + i % 26)) + "\"}}";
        };
        std::vector<WatchEvent> first, second;
        for (int i = 0; i < 100; ++i) {
            first.push_back({HistoryEventType::Added, big(i, 1, 3000 + i), 1});
            second.push_back({HistoryEventType::Modified, big(i, 2, 4000 + i), 2});
        }
        QVERIFY(openStore(url)->write({{kMaps, first, {}, {}}}).ok());
        auto store = openStore(url);                         // no head in memory
        auto read = store->write({{kMaps, second, {}, {}}}); // heads read with the batch; uid-0 then cold
        QVERIFY2(read.ok(), read ? "" : read.error().describe().c_str());
        QVERIFY_IN_BULK(*read);
        testpostgres::run(db, "UPDATE fieldscope_c1.versions SET snapshot = 1 WHERE seq = 2");
        auto report = store->write({{kMaps, {{HistoryEventType::Modified, big(0, 3, 5000), 3}}, {}, {}}});
        QVERIFY2(report.ok(), report ? "" : report.error().describe().c_str());
        QVERIFY_IN_BULK(*report);
        const auto objects = store->allObjects().value();
        const auto it = std::find_if(objects.begin(), objects.end(),
                                     [](const auto &o) { return o.ref.uid == "uid-0"; });
        QVERIFY(it != objects.end());
        const auto versions = store->versions(it->id).value();
        QCOMPARE(versions.back().resourceVersion, std::string("5000"));
        QVERIFY(!versions.back().snapshot); // a delta against the head in memory
    }

    void aVersionAnotherScopeStoredAlreadyIsCountedAsADuplicateNotStoredTwice()
    {
        auto store = openStore(testpostgres::freshDatabase(QStringLiteral("bulk-scopes")));
        QVERIFY(store
                    ->write({{kMaps,
                              {{HistoryEventType::Added, configMap(1, 1, 2001), 1},
                               {HistoryEventType::Modified, configMap(1, 2, 2002), 1}},
                              {},
                              {}}})
                    .ok());
        // The cluster-wide watch delivers the older version after the newer one was stored, in a
        // batch with versions nobody stored yet: the bulk write meets the unique key and the
        // transaction is done again row by row.
        auto report = store->write({{kAllMaps,
                                     {{HistoryEventType::Added, configMap(2, 1, 2003), 1},
                                      {HistoryEventType::Modified, configMap(1, 1, 2001), 1},
                                      {HistoryEventType::Added, configMap(3, 1, 2004), 1}},
                                     {},
                                     {}}});
        QVERIFY2(report.ok(), report ? "" : report.error().describe().c_str());
        QCOMPARE(report->skippedDuplicates, 1);
        QCOMPARE(report->versions.size(), std::size_t(2));
        // The one fallback this store expects, reported with the reason.
        QVERIFY2(report->bulkFallback.find("duplicate key") != std::string::npos, report->bulkFallback.c_str());
        const auto all = storefixtures::everyVersion(*store);
        QCOMPARE(all.at("uid-1").size(), std::size_t(2));
        QCOMPARE(all.at("uid-2").size(), std::size_t(1));
        QCOMPARE(all.at("uid-3").size(), std::size_t(1));
        // Later batches look versions up first, and go on in bulk.
        auto again = store->write({{kAllMaps,
                                    {{HistoryEventType::Modified, configMap(1, 1, 2001), 1},
                                     {HistoryEventType::Modified, configMap(2, 2, 2005), 1}},
                                    {},
                                    {}}});
        QVERIFY(again.ok());
        QCOMPARE(again->skippedDuplicates, 1);
        QCOMPARE(again->versions.size(), std::size_t(1));
        QVERIFY_IN_BULK(*again);
    }

    void aUidWithANulWritesAsTheRowWriterDoes()
    {
        // PostgreSQL's text ends a bound value at a NUL: the row writer finds "uid-7" for it. The
        // bulk write takes it for a new object, meets the unique uid, and the row writer decides.
        auto store = openStore(testpostgres::freshDatabase(QStringLiteral("bulk-nul")));
        QVERIFY(store->write({{kMaps, {{HistoryEventType::Added, configMap(7, 1, 4001), 1}}, {}, {}}}).ok());
        std::string hostile = configMap(7, 2, 4002);
        hostile.replace(hostile.find("\"uid-7\""), 7, "\"uid-7\\u0000x\"");
        auto report = store->write({{kMaps,
                                     {{HistoryEventType::Modified, hostile, 1},
                                      {HistoryEventType::Added, configMap(8, 1, 4003), 1}},
                                     {},
                                     {}}});
        QVERIFY2(report.ok(), report ? "" : report.error().describe().c_str());
        QCOMPARE(report->versions.size(), std::size_t(2));
        QCOMPARE(store->allObjects().value().size(), std::size_t(2));
    }

    void twoRecordersOfOneClusterStoreEachVersionOnceWhoeverIsAhead()
    {
        const std::string url = testpostgres::freshDatabase(QStringLiteral("bulk-two"));
        auto a = openStore(url, "recorder-a");
        auto b = openStore(url, "recorder-b");
        auto batch = [](int n, long long firstRv) {
            std::vector<WatchEvent> events;
            events.reserve(150);
            for (int i = 0; i < 150; ++i)
                events.push_back({n == 1 ? HistoryEventType::Added : HistoryEventType::Modified,
                                  configMap(i, n, firstRv + i), 1});
            return HistoryWriteItem{kMaps, events, {}, {}};
        };
        QCOMPARE(a->write({batch(1, 10000)})->versions.size(), std::size_t(150));
        auto behind = b->write({batch(1, 10000)});
        QVERIFY(behind.ok());
        QCOMPARE(behind->skippedDuplicates, 150);
        QVERIFY_IN_BULK(*behind); // b knows another recorder writes: it looks versions up first
        // b is ahead by two versions; a then sees both, the first older than what b stored last.
        QCOMPARE(b->write({batch(2, 20000)})->versions.size(), std::size_t(150));
        QCOMPARE(b->write({batch(3, 30000)})->versions.size(), std::size_t(150));
        auto late = a->write({batch(2, 20000), batch(3, 30000), batch(4, 40000)});
        QVERIFY2(late.ok(), late ? "" : late.error().describe().c_str());
        QCOMPARE(late->skippedDuplicates, 300);
        QCOMPARE(late->versions.size(), std::size_t(150));
        QVERIFY_IN_BULK(*late);
        const auto all = storefixtures::everyVersion(*a);
        for (const auto &[uid, versions] : all)
            QCOMPARE(versions.size(), std::size_t(4));
    }

    // Recorders of one store writing their own objects do not ask the store about versions of
    // objects whose head they stored themselves and no other wrote since; a head read from the
    // store, or one another recorder moved on, is still asked about.
    void aRecorderDoesNotAskAboutObjectsWhoseHeadItStoredAndNoOtherMovedOn()
    {
        const std::string url = testpostgres::freshDatabase(QStringLiteral("bulk-own-heads"));
        auto a = openStore(url, "recorder-a");
        auto b = openStore(url, "recorder-b");
        auto batch = [](int from, int n, long long firstRv) {
            std::vector<WatchEvent> events;
            for (int i = from; i < from + 100; ++i)
                events.push_back({n == 1 ? HistoryEventType::Added : HistoryEventType::Modified,
                                  configMap(i, n, firstRv + i), 1});
            return HistoryWriteItem{kMaps, events, {}, {}};
        };
        QVERIFY(a->write({batch(0, 1, 10000)}).ok());
        QVERIFY(b->write({batch(100, 1, 10000)}).ok());
        // a knows another recorder writes; b wrote none of a's objects.
        auto own = a->write({batch(0, 2, 20000)});
        QVERIFY2(own.ok(), own ? "" : own.error().describe().c_str());
        QCOMPARE(own->versions.size(), std::size_t(100));
        QCOMPARE(own->storedChecks, 0);
        QVERIFY_IN_BULK(*own);
        // b watches the same objects, behind a: an older version than the head it reads is asked
        // about, and found.
        auto behind = b->write({batch(0, 1, 10000)});
        QVERIFY2(behind.ok(), behind ? "" : behind.error().describe().c_str());
        QCOMPARE(behind->storedChecks, 100);
        QCOMPARE(behind->skippedDuplicates, 100);
        QVERIFY(behind->versions.empty());
        QVERIFY_IN_BULK(*behind);
        // b now stores the next versions of a's objects first: a's heads of them are forgotten,
        // and a asks about the versions it then brings.
        QCOMPARE(b->write({batch(0, 3, 30000)})->versions.size(), std::size_t(100));
        auto late = a->write({batch(0, 3, 30000), batch(0, 4, 40000)});
        QVERIFY2(late.ok(), late ? "" : late.error().describe().c_str());
        QCOMPARE(late->skippedDuplicates, 100);
        QCOMPARE(late->versions.size(), std::size_t(100));
        QCOMPARE(late->storedChecks, 100); // the second item's: the first's are each their head
        QVERIFY_IN_BULK(*late);
        // a's watch replays versions it stored itself, older than its own heads: not asked
        // about, refused by the unique key, and the transaction done again row by row (once:
        // later writes ask first).
        auto replay = a->write({batch(0, 2, 20000)});
        QVERIFY2(replay.ok(), replay ? "" : replay.error().describe().c_str());
        QCOMPARE(replay->skippedDuplicates, 100);
        QVERIFY(replay->versions.empty());
        QVERIFY2(replay->bulkFallback.find("duplicate key") != std::string::npos, replay->bulkFallback.c_str());
        auto next = a->write({batch(0, 5, 50000)});
        QVERIFY(next.ok());
        QCOMPARE(next->storedChecks, 100);
        QVERIFY_IN_BULK(*next);
        const auto all = storefixtures::everyVersion(*a);
        QCOMPARE(all.size(), std::size_t(200));
        for (int i = 0; i < 200; ++i)
            QCOMPARE(all.at("uid-" + std::to_string(i)).size(), std::size_t(i < 100 ? 5 : 1));
    }

    // The second recorder asks the store only about versions that are not its heads; a version
    // that is the head when the batch is looked up, with a newer one of its object before it in
    // the same batch, is asked about too: the head has moved by the time it is decided.
    void aStoredVersionBehindANewerOneInTheSameBatchIsADuplicateNotStoredTwice()
    {
        const std::string url = testpostgres::freshDatabase(QStringLiteral("bulk-behind"));
        auto a = openStore(url, "recorder-a");
        auto b = openStore(url, "recorder-b");
        std::vector<WatchEvent> first, newerThenStored;
        for (int i = 0; i < 120; ++i) {
            first.push_back({HistoryEventType::Added, configMap(i, 1, 10000 + i), 1});
            newerThenStored.push_back({HistoryEventType::Modified, configMap(i, 2, 20000 + i), 2});
            newerThenStored.push_back({HistoryEventType::Added, configMap(i, 1, 10000 + i), 1});
        }
        QCOMPARE(a->write({{kMaps, first, {}, {}}})->versions.size(), std::size_t(120));
        auto late = b->write({{kMaps, newerThenStored, {}, {}}});
        QVERIFY2(late.ok(), late ? "" : late.error().describe().c_str());
        QVERIFY_IN_BULK(*late); // not found by the unique key and done again row by row
        QCOMPARE(late->versions.size(), std::size_t(120));
        QCOMPARE(late->skippedDuplicates, 120);
        const auto all = storefixtures::everyVersion(*a);
        QCOMPARE(all.size(), std::size_t(120));
        for (const auto &[uid, versions] : all)
            QCOMPARE(versions.size(), std::size_t(2));
    }

    void aStoreWhoseObjectsTableWasMadeBeforeRecordsOnAndANewOneLeavesRoomForUpdates()
    {
        const std::string db = "t_bulk_old_layout";
        const std::string url = testpostgres::freshDatabase(QStringLiteral("bulk-old-layout"));
        auto rows = [&](const std::string &sql) {
            PGconn *c = PQconnectdb(testpostgres::urlOf(db).c_str());
            PGresult *r = PQexec(c, sql.c_str());
            std::string v = PQresultStatus(r) == PGRES_TUPLES_OK && PQntuples(r) ? PQgetvalue(r, 0, 0) : "";
            PQclear(r);
            PQfinish(c);
            return v;
        };
        {
            auto store = openStore(url);
            QVERIFY(store->write({{kMaps, {{HistoryEventType::Added, configMap(1, 1, 3001), 1}}, {}, {}}}).ok());
        }
        QCOMPARE(rows("SELECT array_to_string(reloptions, ',') FROM pg_class WHERE relname = 'objects'"),
                 std::string("fillfactor=50"));
        // The layout before this writer: the table's default fill.
        testpostgres::run(db, "ALTER TABLE fieldscope_c1.objects RESET (fillfactor)");
        auto store = openStore(url);
        auto report = store->write({{kMaps,
                                     {{HistoryEventType::Modified, configMap(1, 2, 3002), 1},
                                      {HistoryEventType::Added, configMap(2, 1, 3003), 1}},
                                     {},
                                     {}}});
        QVERIFY(report.ok());
        QCOMPARE(report->versions.size(), std::size_t(2));
        QVERIFY_IN_BULK(*report);
        QCOMPARE(storefixtures::everyVersion(*store).at("uid-1").size(), std::size_t(2));
    }

    // A connection the server ended (a restart, pg_terminate_backend) is a network failure, not
    // an I/O one, and the transaction is not written again row by row on the dead connection.
    void aLostConnectionIsANetworkErrorAndNotRetriedRowByRow()
    {
        const std::string url = testpostgres::freshDatabase(QStringLiteral("bulk-lost"));
        auto store = openStore(url);
        QVERIFY(store->write({{kMaps, {{HistoryEventType::Added, configMap(1, 1, 6001), 1}}, {}, {}}}).ok());
        testpostgres::run("postgres", "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = "
                                      "'t_bulk_lost' AND pid <> pg_backend_pid()");
        auto lost = store->write({{kMaps, {{HistoryEventType::Modified, configMap(1, 2, 6002), 1}}, {}, {}}});
        QVERIFY(!lost.ok());
        QCOMPARE(lost.error().category, ErrorCategory::Network);
        QVERIFY2(lost.error().describe().find("lost") != std::string::npos, lost.error().describe().c_str());
    }

    // COPY's text format gives tab, newline, carriage return and backslash a meaning (and `\N` is
    // NULL): a hostile server's resourceVersion and namespace carrying them are stored as sent.
    void copyEscapesWhatCopysTextFormatWouldReadAsSyntax()
    {
        auto store = openStore(testpostgres::freshDatabase(QStringLiteral("bulk-escape")));
        const std::string rvJson = "9\\t\\\\N\\n\\r\\\\"; // as JSON: 9 TAB \N LF CR backslash
        const std::string rv = "9\t\\N\n\r\\";
        const WatchScope odd = WatchScope::of({"", "v1", "configmaps"}, "a\tb\\N\n");
        std::string text = configMap(1, 1, 1);
        const std::string plain = "\"resourceVersion\":\"1\"";
        text.replace(text.find(plain), plain.size(), "\"resourceVersion\":\"" + rvJson + "\"");
        auto report = store->write({{odd, {{HistoryEventType::Added, text, 1}}, {}, {}}});
        QVERIFY2(report.ok(), report ? "" : report.error().describe().c_str());
        QCOMPARE(report->versions.size(), std::size_t(1));
        QVERIFY_IN_BULK(*report);
        const auto objects = store->allObjects().value();
        QCOMPARE(objects.size(), std::size_t(1));
        const auto versions = store->versions(objects[0].id).value();
        QCOMPARE(versions.size(), std::size_t(1));
        QCOMPARE(versions[0].resourceVersion, rv);
        QCOMPARE(versions[0].scope, odd.id);
    }
};

QTEST_GUILESS_MAIN(TestHistoryStoreBulk)
#include "tst_historystore_bulk.moc"
