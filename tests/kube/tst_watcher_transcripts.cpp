// The LIST+WATCH state machine against replayed answers of 1.33-1.34 servers: streaming lists
// (WatchList) and their 422 fallback, pagination with expired continue tokens, relists after
// ERROR 410 / HTTP 410 / 504 ResourceVersionTooLarge, APF throttling, dropped, stalled and
// corrupt streams, bookmarks, exactly-once delivery and backoff (k8s.io/client-go/tools/cache/reflector.go).
// A 1.20 integration cluster cannot produce most of these; the transcripts can.
#include "kube/watcher.h"
#include "transcriptserver.h"

#include <QLoggingCategory>
#include <QSignalSpy>
#include <QTest>

#include <map>

using namespace fieldscope;
using namespace fieldscope::testing;
using core::WatchEventType;

namespace {

const std::string kPath = "/api/v1/namespaces/test/configmaps";
const std::string kUidA = "6f1c2f0e-8d3a-4c55-9a51-0c2b1e7a9a01";
const std::string kUidB = "0b7d9e4c-2f61-4f0a-8f0e-5d9c3a1b2c02";
const std::string kUidC = "9a2e4b7d-1c3f-4e8a-b6d5-7f0a2c4e6b03";
const std::string kUidD = "3c8f1a6e-5b2d-4a97-8e14-2d6b9f0c7e04";
const std::string kToken4711 = "eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6NDcxMSwic3RhcnQiOiJ0ZXN0L2JcdTAwMDAifQ";
const std::string kToken4800 = "eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6NDgwMCwic3RhcnQiOiJ0ZXN0L2NcdTAwMDAifQ";
const std::string kInconsistentToken = "eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6LTEsInN0YXJ0IjoidGVzdC9iXHUwMDAwIn0";

kube::ResourceInfo configMaps()
{
    kube::ResourceInfo r;
    r.version = "v1";
    r.resource = "configmaps";
    r.singular = "configmap";
    r.kind = "ConfigMap";
    r.namespaced = true;
    r.verbs = {"create", "delete", "get", "list", "patch", "update", "watch"};
    return r;
}

kube::WatcherOptions fastOptions(bool tryWatchList = false)
{
    kube::WatcherOptions o;
    o.tryWatchList = tryWatchList;
    o.flushIntervalMs = 20;
    o.backoffInitialMs = 50;
    o.backoffMaxMs = 200;
    return o;
}

bool isWatch(const RecordedRequest &r)
{
    return r.path == kPath && r.queryValue("watch") == "1";
}
bool isList(const RecordedRequest &r)
{
    return r.path == kPath && !r.queryValue("watch");
}

struct Delivered {
    WatchEventType type;
    std::string rv;
    bool fromList;
    QByteArray json;
};

// One transcript server, a transport pointed at it and one watcher on the test's namespace.
// Destruction order matters: the watcher and client go first, the server (hung streams) last.
struct Harness {
    TranscriptServer server;
    kube::ApiClient client;
    std::unique_ptr<kube::Watcher> watcher;
    std::vector<core::WatchBatch> batches;
    std::map<std::string, std::vector<Delivered>> byUid;
    std::vector<std::pair<qint64, qint64>> progress;
    QStringList errors;

    Harness() : client(makeTransport(server)) {}

    static std::shared_ptr<kube::Transport> makeTransport(const TranscriptServer &s)
    {
        kube::TransportConfig config;
        config.server = s.url();
        config.qps = 0;
        return std::make_shared<kube::Transport>(config);
    }

    TranscriptServer::Rule &list() { return server.on(kPath).exactPath().lacksQuery("watch"); }
    TranscriptServer::Rule &watchFrom(std::string rv)
    {
        return server.on(kPath)
            .exactPath()
            .query("watch", "1")
            .lacksQuery("sendInitialEvents")
            .query("resourceVersion", std::move(rv));
    }
    TranscriptServer::Rule &watchList()
    {
        return server.on(kPath).exactPath().query("watch", "1").query("sendInitialEvents", "true");
    }

    void start(kube::WatcherOptions options)
    {
        watcher = std::make_unique<kube::Watcher>(&client, kube::WatchScope{configMaps(), "test", {}, {}}, options);
        QObject::connect(watcher.get(), &kube::Watcher::batchReady, [this](const core::WatchBatch &b) {
            batches.push_back(b);
            for (const auto &e : b.events)
                byUid[e.uid].push_back({e.type, e.resourceVersion, e.fromList, e.json});
        });
        QObject::connect(watcher.get(), &kube::Watcher::listProgress,
                         [this](qint64 loaded, qint64 remaining) { progress.emplace_back(loaded, remaining); });
        QObject::connect(watcher.get(), &kube::Watcher::errorOccurred, [this](const QString &m) { errors << m; });
        watcher->start();
    }

    std::vector<std::string> rvs(const std::string &uid) const
    {
        std::vector<std::string> out;
        if (auto it = byUid.find(uid); it != byUid.end())
            for (const auto &d : it->second)
                out.push_back(d.rv);
        return out;
    }
    bool delivered(const std::string &uid, const std::string &rv) const
    {
        const auto v = rvs(uid);
        return std::find(v.begin(), v.end(), rv) != v.end();
    }
    std::vector<RecordedRequest> watches() const
    {
        std::vector<RecordedRequest> out;
        for (const auto &r : server.requests())
            if (isWatch(r))
                out.push_back(r);
        return out;
    }
    int lists() const { return server.count(isList); }
    std::vector<core::ObservationGap> gaps() const
    {
        std::vector<core::ObservationGap> out;
        for (const auto &b : batches)
            out.insert(out.end(), b.gaps.begin(), b.gaps.end());
        return out;
    }
    int completedInitialLists() const
    {
        return int(std::count_if(batches.begin(), batches.end(), [](const auto &b) { return b.initialListComplete; }));
    }
};

QString str(const std::optional<std::string> &s)
{
    return s ? QString::fromStdString(*s) : QStringLiteral("<absent>");
}

QString join(const std::vector<std::string> &v)
{
    QStringList l;
    for (const auto &s : v)
        l << QString::fromStdString(s);
    return l.join(u',');
}

} // namespace

// One MODIFIED event of object A at `rv`, padded with a data value to exactly `bytes` bytes.
std::string modifiedOfSize(const std::string &rv, std::size_t bytes)
{
    const std::string head =
        R"({"type":"MODIFIED","object":{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"a","namespace":"test","uid":")"
        + kUidA + R"(","resourceVersion":")" + rv + R"("},"data":{"k":")";
    const std::string tail = "\"}}}";
    return head + std::string(bytes - head.size() - tail.size(), 'x') + tail;
}

class TestWatcherTranscripts : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    // --- streaming lists (WatchList) -------------------------------------------------------------

    void streamingListBuildsStateUntilInitialEventsEndThenResumesFromTheBookmark()
    {
        Harness h;
        h.watchList().replyFile(QStringLiteral("watch/watchlist-1.34-initial.http"));
        h.watchFrom("10245").replyFile(QStringLiteral("watch/watch-1.34-from-10245.http"));
        h.start(fastOptions(true));
        QTRY_VERIFY_WITH_TIMEOUT(h.delivered(kUidA, "10300"), 10'000);

        const auto watches = h.watches();
        QCOMPARE(int(watches.size()), 2);
        const auto &first = watches[0];
        QCOMPARE(str(first.queryValue("sendInitialEvents")), QStringLiteral("true"));
        QCOMPARE(str(first.queryValue("resourceVersionMatch")), QStringLiteral("NotOlderThan"));
        QCOMPARE(str(first.queryValue("resourceVersion")), QString()); // present and empty: consistent read
        QCOMPARE(str(first.queryValue("allowWatchBookmarks")), QStringLiteral("true"));
        QCOMPARE(h.lists(), 0); // no LIST at all on a server with WatchList

        // The resume point is the bookmark's RV, not a synthetic ADDED event's.
        QCOMPARE(str(watches[1].queryValue("resourceVersion")), QStringLiteral("10245"));
        QVERIFY(!watches[1].queryValue("sendInitialEvents"));
        QVERIFY(!watches[1].queryValue("resourceVersionMatch"));

        QCOMPARE(join(h.rvs(kUidA)), QStringLiteral("8467,10300"));
        QCOMPARE(join(h.rvs(kUidB)), QStringLiteral("5726"));
        const auto &a = h.byUid[kUidA];
        QCOMPARE(a[0].type, WatchEventType::Added);
        QVERIFY(a[0].fromList);
        QCOMPARE(a[1].type, WatchEventType::Modified);
        QVERIFY(!a[1].fromList);
        QCOMPARE(h.completedInitialLists(), 1);
        // The batch that completes the initial state carries the bookmark's RV as resume point,
        // and no batch before it claimed a synthetic RV.
        for (const auto &b : h.batches) {
            if (b.initialListComplete) {
                QCOMPARE(QString::fromStdString(b.resourceVersion), QStringLiteral("10245"));
                break;
            }
            QCOMPARE(QString::fromStdString(b.resourceVersion), QString());
        }
        QVERIFY(h.gaps().empty());
        QCOMPARE(QString::fromStdString(h.watcher->lastResourceVersion()), QStringLiteral("10300"));
        QCOMPARE(h.watcher->state(), kube::Watcher::State::Watching);
        QVERIFY(h.server.unmatched().empty());
    }

    void streamingListDroppedBeforeItsEndRestartsItInsteadOfResumingFromASyntheticRv()
    {
        Harness h;
        h.watchList()
            .replyFile(QStringLiteral("watch/watchlist-1.34-dropped-before-end.http"))
            .replyFile(QStringLiteral("watch/watchlist-1.34-initial.http"));
        h.watchFrom("10245").replyFile(QStringLiteral("watch/watch-1.34-from-10245.http"));
        h.start(fastOptions(true));
        QTRY_VERIFY_WITH_TIMEOUT(h.delivered(kUidA, "10300"), 10'000);

        const auto watches = h.watches();
        QCOMPARE(int(watches.size()), 3);
        // The second attempt is a fresh streaming list: 8467 and 5726 were synthetic ADDED RVs.
        QCOMPARE(str(watches[1].queryValue("sendInitialEvents")), QStringLiteral("true"));
        QCOMPARE(str(watches[1].queryValue("resourceVersion")), QString());
        QCOMPARE(str(watches[2].queryValue("resourceVersion")), QStringLiteral("10245"));
        // The cut-off third ADDED (object c) was never decoded, and a and b came once each.
        QVERIFY(!h.byUid.count(kUidC));
        QCOMPARE(join(h.rvs(kUidA)), QStringLiteral("8467,10300"));
        QCOMPARE(join(h.rvs(kUidB)), QStringLiteral("5726"));
        QCOMPARE(h.completedInitialLists(), 1);
        QCOMPARE(h.watcher->relistCount(), 0);
        QVERIFY(h.server.unmatched().empty());
    }

    void streamingListRejectedWith422FallsBackToPaginatedListForGood()
    {
        Harness h;
        h.watchList().replyFile(QStringLiteral("watch/watchlist-1.33-gate-off-422.http")).repeatLast();
        h.list()
            .replyFile(QStringLiteral("watch/list-4711-single.http"))
            .replyFile(QStringLiteral("watch/relist-4950.http"));
        h.watchFrom("4711").replyFile(QStringLiteral("watch/watch-from-4711-modify-a-then-end.http"));
        h.watchFrom("4720").replyFile(QStringLiteral("watch/watch-error-410.http"));
        h.watchFrom("4950").replyFile(QStringLiteral("watch/watch-hang.http"));
        h.start(fastOptions(true));
        // The relist after ERROR 410 is where a watcher would try WatchList again: it must not.
        QTRY_VERIFY_WITH_TIMEOUT(h.server.count([](const RecordedRequest &r) {
            return r.queryValue("resourceVersion") == "4950";
        }) == 1,
                                 10'000);

        QCOMPARE(h.server.count([](const RecordedRequest &r) { return r.queryValue("sendInitialEvents").has_value(); }),
                 1);
        QCOMPARE(h.lists(), 2);
        const auto lists = h.server.requests();
        for (const auto &r : lists) {
            if (!isList(r))
                continue;
            QCOMPARE(str(r.queryValue("limit")), QStringLiteral("500"));
            QVERIFY(!r.queryValue("resourceVersion")); // RV unset: consistent, paginated (RV=0 ignores limit)
        }
        QCOMPARE(h.watcher->relistCount(), 1);
        QCOMPARE(h.completedInitialLists(), 1);
        QVERIFY(h.server.unmatched().empty());
    }

    // --- paginated LIST ------------------------------------------------------------------------

    void paginatedListFollowsContinueTokensAndReportsRemainingItems()
    {
        Harness h;
        h.list().lacksQuery("continue").replyFile(QStringLiteral("watch/list-4711-page1.http"));
        h.list().query("continue", kToken4711).replyFile(QStringLiteral("watch/list-4711-page2.http"));
        h.watchFrom("4711").replyFile(QStringLiteral("watch/watch-hang.http"));
        auto o = fastOptions();
        o.pageSize = 2;
        o.maxPageSize = 2; // kubectl's fixed pages
        h.start(o);
        QTRY_COMPARE_WITH_TIMEOUT(h.watches().size(), std::size_t(1), 10'000);

        const auto reqs = h.server.requests();
        QCOMPARE(str(reqs[0].queryValue("limit")), QStringLiteral("2"));
        QCOMPARE(str(reqs[1].queryValue("limit")), QStringLiteral("2")); // same parameters with the token
        QCOMPARE(str(reqs[1].queryValue("continue")), QString::fromStdString(kToken4711));
        QCOMPARE(int(h.progress.size()), 2);
        QCOMPARE(h.progress[0], std::make_pair(qint64(2), qint64(1)));
        QCOMPARE(h.progress[1], std::make_pair(qint64(3), qint64(-1)));
        QCOMPARE(int(h.watcher->store().size()), 3);
        QCOMPARE(h.completedInitialLists(), 1);
        // Built-in list items have no kind: it is filled in from the list.
        QVERIFY(h.byUid[kUidC][0].json.startsWith(R"({"kind":"ConfigMap","apiVersion":"v1",)"));
        QVERIFY(h.server.unmatched().empty());
    }

    void laterListPagesGrowTowardTheByteTarget()
    {
        Harness h;
        h.list().lacksQuery("continue").replyFile(QStringLiteral("watch/list-4711-page1.http"));
        h.list().query("continue", kToken4711).replyFile(QStringLiteral("watch/list-4711-page2.http"));
        h.watchFrom("4711").replyFile(QStringLiteral("watch/watch-hang.http"));
        auto o = fastOptions();
        o.pageSize = 2;
        o.maxPageSize = 1000;
        o.finalPageBytes = 0; // growth alone (the page says one object remains)
        h.start(o);
        QTRY_COMPARE_WITH_TIMEOUT(h.watches().size(), std::size_t(1), 10'000);
        const auto reqs = h.server.requests();
        QCOMPARE(str(reqs[0].queryValue("limit")), QStringLiteral("2"));
        QCOMPARE(str(reqs[1].queryValue("limit")), QStringLiteral("8")); // small objects: 4x, the step cap
        QCOMPARE(h.completedInitialLists(), 1);
    }

    void theLastPageAsksForWhatTheServerSaysRemains()
    {
        Harness h;
        h.list().lacksQuery("continue").replyFile(QStringLiteral("watch/list-4711-page1.http"));
        h.list().query("continue", kToken4711).replyFile(QStringLiteral("watch/list-4711-page2.http"));
        h.watchFrom("4711").replyFile(QStringLiteral("watch/watch-hang.http"));
        auto o = fastOptions();
        o.pageSize = 1; // the first page still holds two objects and says one remains
        o.maxPageSize = 1000;
        h.start(o);
        QTRY_COMPARE_WITH_TIMEOUT(h.watches().size(), std::size_t(1), 10'000);
        const auto reqs = h.server.requests();
        QCOMPARE(str(reqs[1].queryValue("limit")), QStringLiteral("1")); // not 4x: the one that remains
        QCOMPARE(int(h.watcher->store().size()), 3);
    }

    void pageSizeFollowsObjectSize_data()
    {
        QTest::addColumn<int>("current");
        QTest::addColumn<int>("items");
        QTest::addColumn<int>("bodyBytes");
        QTest::addColumn<int>("remaining");
        QTest::addColumn<int>("expected");
        QTest::newRow("1 KB objects grow 4x a step") << 500 << 500 << 600'000 << -1 << 2000;
        QTest::newRow("1 KB objects stop at the byte target") << 2000 << 2000 << 2'400'000 << -1 << 6990;
        QTest::newRow("tiny objects stop at maxPageSize") << 8000 << 8000 << 800'000 << -1 << 10'000;
        QTest::newRow("40 KB objects shrink back, never below pageSize") << 2000 << 2000 << 80'000'000 << -1 << 500;
        QTest::newRow("an empty page keeps the size") << 2000 << 0 << 20 << 2000 << 2000;
        QTest::newRow("the rest in one page when it fits 8 MiB") << 500 << 500 << 600'000 << 6'500 << 6'500;
        QTest::newRow("a rest of 24 MiB grows as usual") << 500 << 500 << 600'000 << 19'500 << 2000;
        QTest::newRow("a small rest is never below pageSize") << 500 << 500 << 600'000 << 20 << 500;
    }
    void pageSizeFollowsObjectSize()
    {
        QFETCH(int, current);
        QFETCH(int, items);
        QFETCH(int, bodyBytes);
        QFETCH(int, remaining);
        QFETCH(int, expected);
        const kube::WatcherOptions o; // 500 first, 10,000 at most, 8 MiB target and final page
        QCOMPARE(kube::nextPageSize(o, current, std::size_t(items), std::size_t(bodyBytes), remaining), expected);
    }

    void expiredContinueTokenRestartsTheListAndDiffsWhatChanged()
    {
        Harness h;
        h.list()
            .lacksQuery("continue")
            .replyFile(QStringLiteral("watch/list-4711-page1.http"))
            .replyFile(QStringLiteral("watch/list-4800-page1.http"));
        h.list().query("continue", kToken4711).replyFile(QStringLiteral("watch/list-4711-page2-expired-410.http"));
        h.list().query("continue", kToken4800).replyFile(QStringLiteral("watch/list-4800-page2.http"));
        h.watchFrom("4800").replyFile(QStringLiteral("watch/watch-hang.http"));
        auto o = fastOptions();
        o.pageSize = 2;
        h.start(o);
        QTRY_COMPARE_WITH_TIMEOUT(h.watches().size(), std::size_t(1), 10'000);

        QCOMPARE(h.lists(), 4);
        // The inconsistent token offered by the 410 is not followed: the list starts over.
        QCOMPARE(h.server.count([](const RecordedRequest &r) {
            return r.queryValue("continue") == kInconsistentToken;
        }),
                 0);
        QCOMPARE(join(h.rvs(kUidA)), QStringLiteral("100")); // unchanged: not delivered twice
        const auto &b = h.byUid[kUidB];
        QCOMPARE(int(b.size()), 2);
        QCOMPARE(b[1].type, WatchEventType::Deleted); // gone in the restarted list
        QVERIFY(b[1].fromList);
        QCOMPARE(join(h.rvs(kUidC)), QStringLiteral("102"));
        QCOMPARE(join(h.rvs(kUidD)), QStringLiteral("4799"));
        QCOMPARE(int(h.watcher->store().size()), 3);
        QVERIFY(!h.watcher->store().find(kUidB));
        QCOMPARE(h.completedInitialLists(), 1);
        QCOMPARE(QString::fromStdString(h.watcher->lastResourceVersion()), QStringLiteral("4800"));
        QVERIFY(h.server.unmatched().empty());
    }

    // --- relists -------------------------------------------------------------------------------

    void errorEvent410RelistsAndDeliversTheDifferenceWithAnObservationGap()
    {
        Harness h;
        h.list()
            .replyFile(QStringLiteral("watch/list-4711-single.http"))
            .replyFile(QStringLiteral("watch/relist-4950.http"));
        h.watchFrom("4711").replyFile(QStringLiteral("watch/watch-from-4711-modify-a-then-end.http"));
        h.watchFrom("4720").replyFile(QStringLiteral("watch/watch-error-410.http"));
        h.watchFrom("4950").replyFile(QStringLiteral("watch/watch-hang.http"));
        h.start(fastOptions());
        QTRY_COMPARE_WITH_TIMEOUT(h.watches().size(), std::size_t(3), 10'000);
        QTRY_VERIFY_WITH_TIMEOUT(!h.gaps().empty(), 5'000);

        QCOMPARE(h.watcher->relistCount(), 1);
        const auto gaps = h.gaps();
        QCOMPARE(int(gaps.size()), 1);
        QCOMPARE(QString::fromStdString(gaps[0].fromResourceVersion), QStringLiteral("4720"));
        QCOMPARE(QString::fromStdString(gaps[0].toResourceVersion), QStringLiteral("4950"));
        // The batch with the gap carries the differences, each once, marked as list-derived.
        const auto it = std::find_if(h.batches.begin(), h.batches.end(), [](const auto &b) { return !b.gaps.empty(); });
        std::map<std::string, core::ObjectVersion> diff;
        for (const auto &e : it->events)
            diff[e.uid] = e;
        QCOMPARE(int(diff.size()), 3);
        QVERIFY(!diff.count(kUidA)); // a@4720 was already seen live
        QCOMPARE(diff[kUidB].type, WatchEventType::Modified);
        QCOMPARE(QString::fromStdString(diff[kUidB].resourceVersion), QStringLiteral("4930"));
        QCOMPARE(diff[kUidD].type, WatchEventType::Added);
        QCOMPARE(diff[kUidC].type, WatchEventType::Deleted);
        QVERIFY(diff[kUidC].fromList);
        // The server never told us the deletion: the last state we saw is what is delivered.
        QCOMPARE(QString::fromStdString(diff[kUidC].resourceVersion), QStringLiteral("102"));
        QVERIFY(diff[kUidC].json.contains(R"("name":"c")"));
        QVERIFY(diff[kUidC].json.contains(R"("data":{"k":"1"})"));
        for (const auto &[uid, e] : diff)
            QVERIFY(e.fromList);
        QCOMPARE(QString::fromStdString(it->resourceVersion), QStringLiteral("4950"));
        QCOMPARE(join(h.rvs(kUidA)), QStringLiteral("100,4720"));
        QCOMPARE(h.completedInitialLists(), 1);
        QVERIFY(h.server.unmatched().empty());
    }

    void errorEvent410DuringAStreamingListWatcherRelistsByStreamingList()
    {
        Harness h;
        h.watchList()
            .replyFile(QStringLiteral("watch/watchlist-1.34-initial.http"))
            .reply(TranscriptReply::stream(
                {R"({"type":"ADDED","object":{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"b","namespace":"test","uid":")"
                     + kUidB
                     + R"(","resourceVersion":"5726","creationTimestamp":"2026-11-21T10:00:00Z"},"data":{"k":"1"}}})",
                 R"({"type":"BOOKMARK","object":{"kind":"ConfigMap","apiVersion":"v1","metadata":{"resourceVersion":"12000","annotations":{"k8s.io/initial-events-end":"true"}}}})"},
                TranscriptReply::End::Hang));
        h.watchFrom("10245").replyFile(QStringLiteral("watch/watch-error-410.http"));
        h.start(fastOptions(true));
        QTRY_VERIFY_WITH_TIMEOUT(!h.gaps().empty(), 10'000);

        QCOMPARE(h.lists(), 0);
        const auto gaps = h.gaps();
        QCOMPARE(QString::fromStdString(gaps[0].fromResourceVersion), QStringLiteral("10245"));
        QCOMPARE(QString::fromStdString(gaps[0].toResourceVersion), QStringLiteral("12000"));
        QCOMPARE(join(h.rvs(kUidB)), QStringLiteral("5726")); // unchanged while away
        QCOMPARE(h.byUid[kUidA].back().type, WatchEventType::Deleted);
        QVERIFY(h.byUid[kUidA].back().fromList);
        QCOMPARE(QString::fromStdString(h.watcher->lastResourceVersion()), QStringLiteral("12000"));
    }

    void httpGoneOnTheWatchRequestRelists()
    {
        Harness h;
        h.list()
            .replyFile(QStringLiteral("watch/list-4711-single.http"))
            .replyFile(QStringLiteral("watch/relist-4950.http"));
        h.watchFrom("4711").replyFile(QStringLiteral("watch/watch-gone-410.http"));
        h.watchFrom("4950").replyFile(QStringLiteral("watch/watch-hang.http"));
        h.start(fastOptions());
        QTRY_COMPARE_WITH_TIMEOUT(h.watches().size(), std::size_t(2), 10'000);
        QTRY_VERIFY_WITH_TIMEOUT(!h.gaps().empty(), 5'000);
        QCOMPARE(h.watcher->relistCount(), 1);
        QCOMPARE(h.lists(), 2);
        QCOMPARE(QString::fromStdString(h.gaps()[0].fromResourceVersion), QStringLiteral("4711"));
        QCOMPARE(QString::fromStdString(h.gaps()[0].toResourceVersion), QStringLiteral("4950"));
        QVERIFY(h.delivered(kUidA, "4720") && h.delivered(kUidB, "4930") && h.delivered(kUidD, "4940"));
        QVERIFY(h.server.unmatched().empty());
    }

    void resourceVersionTooLarge504OnTheWatchRequestRelists()
    {
        Harness h;
        h.list()
            .replyFile(QStringLiteral("watch/list-4711-single.http"))
            .replyFile(QStringLiteral("watch/relist-4950.http"));
        h.watchFrom("4711").replyFile(QStringLiteral("watch/watch-rv-too-large-504.http"));
        h.watchFrom("4950").replyFile(QStringLiteral("watch/watch-hang.http"));
        h.start(fastOptions());
        QTRY_COMPARE_WITH_TIMEOUT(h.watches().size(), std::size_t(2), 10'000);
        QCOMPARE(h.watcher->relistCount(), 1);
        QCOMPARE(h.lists(), 2);
        QTRY_VERIFY_WITH_TIMEOUT(!h.gaps().empty(), 5'000);
        QCOMPARE(QString::fromStdString(h.gaps()[0].fromResourceVersion), QStringLiteral("4711"));
        QCOMPARE(QString::fromStdString(h.gaps()[0].toResourceVersion), QStringLiteral("4950"));
        QVERIFY(h.server.unmatched().empty());
    }

    void resourceVersionTooLargeErrorEventRelists()
    {
        Harness h;
        h.list()
            .replyFile(QStringLiteral("watch/list-4711-single.http"))
            .replyFile(QStringLiteral("watch/relist-4950.http"));
        h.watchFrom("4711").replyFile(QStringLiteral("watch/watch-error-504-rv-too-large.http")).repeatLast();
        h.watchFrom("4950").replyFile(QStringLiteral("watch/watch-hang.http"));
        h.start(fastOptions());
        QTRY_COMPARE_WITH_TIMEOUT(h.server.count([](const RecordedRequest &r) {
            return r.queryValue("resourceVersion") == "4950";
        }),
                                  1, 10'000);
        QCOMPARE(h.server.count([](const RecordedRequest &r) { return r.queryValue("resourceVersion") == "4711"; }), 1);
        QCOMPARE(h.watcher->relistCount(), 1);
        QCOMPARE(h.lists(), 2);
    }

    // --- errors that must not relist -------------------------------------------------------------

    void watchStartThrottledWithRetryAfterRewatchesFromTheSameRvWithoutRelisting()
    {
        Harness h;
        h.list().replyFile(QStringLiteral("watch/list-4711-single.http"));
        h.watchFrom("4711")
            .replyFile(QStringLiteral("transport/apf-429.http"))
            .replyFile(QStringLiteral("watch/watch-stall.http"));
        h.start(fastOptions());
        QTRY_VERIFY_WITH_TIMEOUT(h.delivered(kUidA, "4720"), 10'000);
        const auto watches = h.watches();
        QCOMPARE(int(watches.size()), 2);
        QCOMPARE(str(watches[1].queryValue("resourceVersion")), QStringLiteral("4711"));
        QVERIFY2(watches[1].atMs - watches[0].atMs >= 950,
                 qPrintable(QString::number(watches[1].atMs - watches[0].atMs)));
        QCOMPARE(h.lists(), 1);
        QCOMPARE(h.watcher->relistCount(), 0);
        QVERIFY(h.gaps().empty());
    }

    void watchStartThrottledWithoutRetryAfterBacksOffAndRewatchesFromTheSameRv()
    {
        Harness h;
        h.list().replyFile(QStringLiteral("watch/list-4711-single.http"));
        h.watchFrom("4711")
            .reply(TranscriptReply::json(
                429,
                R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Too many requests, please try again later.","reason":"TooManyRequests","code":429})"))
            .replyFile(QStringLiteral("watch/watch-stall.http"));
        auto o = fastOptions();
        o.backoffInitialMs = 300;
        o.backoffMaxMs = 1000;
        h.start(o);
        QTRY_VERIFY_WITH_TIMEOUT(h.delivered(kUidA, "4720"), 10'000);
        const auto watches = h.watches();
        QCOMPARE(int(watches.size()), 2);
        QCOMPARE(str(watches[1].queryValue("resourceVersion")), QStringLiteral("4711"));
        QVERIFY2(watches[1].atMs - watches[0].atMs >= 280,
                 qPrintable(QString::number(watches[1].atMs - watches[0].atMs)));
        QCOMPARE(h.errors.size(), 1);
        QVERIFY(h.errors[0].contains(QStringLiteral("Too many requests")));
        QCOMPARE(h.lists(), 1);
        QCOMPARE(h.watcher->relistCount(), 0);
    }

    void errorEventOtherThanGoneBacksOffBeforeWatchingAgain()
    {
        Harness h;
        h.list().replyFile(QStringLiteral("watch/list-4711-single.http"));
        h.watchFrom("4711").replyFile(QStringLiteral("watch/watch-error-500.http")).repeatLast();
        auto o = fastOptions();
        o.backoffInitialMs = 300;
        o.backoffMaxMs = 300;
        h.start(o);
        QTRY_VERIFY_WITH_TIMEOUT(h.watches().size() >= 3, 10'000);
        const auto watches = h.watches();
        for (std::size_t i = 1; i < 3; ++i)
            QVERIFY2(watches[i].atMs - watches[i - 1].atMs >= 280,
                     qPrintable(QString::number(watches[i].atMs - watches[i - 1].atMs)));
        QVERIFY(h.errors.size() >= 2);
        QVERIFY(h.errors[0].contains(QStringLiteral("leader changed")));
        QCOMPARE(h.lists(), 1);
        QCOMPARE(h.watcher->relistCount(), 0);
    }

    // --- broken streams --------------------------------------------------------------------------

    void droppedStreamResumesFromLastRvAndDiscardsThePartialLine()
    {
        Harness h;
        h.list().replyFile(QStringLiteral("watch/list-4711-single.http"));
        h.watchFrom("4711").replyFile(QStringLiteral("watch/watch-drop-midline.http"));
        h.watchFrom("4720").replyFile(QStringLiteral("watch/watch-from-4720-then-hang.http"));
        h.start(fastOptions());
        QTRY_VERIFY_WITH_TIMEOUT(h.delivered(kUidA, "4730"), 10'000);
        QCOMPARE(join(h.rvs(kUidA)), QStringLiteral("100,4720,4730"));
        QCOMPARE(h.watcher->resumeCount(), 1);
        QCOMPARE(h.watcher->relistCount(), 0);
        QCOMPARE(h.lists(), 1);
        QVERIFY(h.gaps().empty());
        QVERIFY(h.server.unmatched().empty());
    }

    void stalledStreamIsDetectedAndResumed()
    {
        Harness h;
        h.list().replyFile(QStringLiteral("watch/list-4711-single.http"));
        h.watchFrom("4711").replyFile(QStringLiteral("watch/watch-stall.http"));
        h.watchFrom("4720").replyFile(QStringLiteral("watch/watch-from-4720-then-hang.http"));
        auto o = fastOptions();
        o.stallSeconds = 2;
        h.start(o);
        QTRY_VERIFY_WITH_TIMEOUT(h.delivered(kUidA, "4730"), 15'000);
        const auto watches = h.watches();
        QCOMPARE(int(watches.size()), 2);
        // Nothing but silence told the watcher: it waited for the stall limit, no longer.
        const qint64 waited = watches[1].atMs - watches[0].atMs;
        QVERIFY2(waited >= 1900 && waited < 4500, qPrintable(QString::number(waited)));
        QCOMPARE(h.watcher->resumeCount(), 1);
        QCOMPARE(h.watcher->relistCount(), 0);
        QCOMPARE(join(h.rvs(kUidA)), QStringLiteral("100,4720,4730"));
    }

    void corruptFrameResumesFromTheLastGoodRvAndAppliesNothingAfterIt()
    {
        Harness h;
        h.list().replyFile(QStringLiteral("watch/list-4711-single.http"));
        h.watchFrom("4711").replyFile(QStringLiteral("watch/watch-corrupt-frame.http"));
        h.watchFrom("4720").replyFile(QStringLiteral("watch/watch-from-4720-then-hang.http"));
        h.start(fastOptions());
        QTRY_VERIFY_WITH_TIMEOUT(h.delivered(kUidA, "4730"), 10'000);
        QCOMPARE(join(h.rvs(kUidA)), QStringLiteral("100,4720,4730")); // 4999 came after the corrupt frame
        QCOMPARE(h.watcher->relistCount(), 0);
        QCOMPARE(h.lists(), 1);
    }

    void watchFrameAtTheFrameLimitIsApplied()
    {
        Harness h;
        h.list().replyFile(QStringLiteral("watch/list-4711-single.http"));
        h.watchFrom("4711").reply(TranscriptReply::stream({modifiedOfSize("4720", 4096)}, TranscriptReply::End::Hang));
        auto o = fastOptions();
        o.maxFrameBytes = 4096;
        h.start(o);
        QTRY_VERIFY_WITH_TIMEOUT(h.delivered(kUidA, "4720"), 10'000);
        QCOMPARE(h.watcher->resumeCount(), 0);
    }

    void watchFrameOverTheFrameLimitResumesFromTheLastRv()
    {
        Harness h;
        h.list().replyFile(QStringLiteral("watch/list-4711-single.http"));
        h.watchFrom("4711").reply(TranscriptReply::stream({modifiedOfSize("4720", 4096), modifiedOfSize("4725", 4097)},
                                                          TranscriptReply::End::Hang));
        h.watchFrom("4720").replyFile(QStringLiteral("watch/watch-from-4720-then-hang.http"));
        auto o = fastOptions();
        o.maxFrameBytes = 4096;
        h.start(o);
        QTRY_VERIFY_WITH_TIMEOUT(h.delivered(kUidA, "4730"), 10'000);
        QCOMPARE(join(h.rvs(kUidA)), QStringLiteral("100,4720,4730")); // the long frame was never applied
        QCOMPARE(h.watcher->relistCount(), 0);
        QCOMPARE(h.lists(), 1);
        QCOMPARE(h.watcher->resumeCount(), 1);
    }

    void watchErrorEventWithAStringCodeResumesInsteadOfAborting()
    {
        // The reported failure: {"code":"410"} threw type_error 302 on the network thread.
        Harness h;
        h.list().replyFile(QStringLiteral("watch/list-4711-single.http"));
        h.watchFrom("4711").reply(TranscriptReply::stream(
            {R"({"type":"ERROR","object":{"kind":"Status","apiVersion":"v1","status":"Failure","message":"too old","reason":"Expired","code":"410"}})"},
            TranscriptReply::End::Hang));
        h.watchFrom("4720").replyFile(QStringLiteral("watch/watch-from-4720-then-hang.http"));
        h.watchFrom("4711").replyFile(QStringLiteral("watch/watch-from-4720-then-hang.http"));
        h.start(fastOptions());
        QTRY_VERIFY_WITH_TIMEOUT(h.delivered(kUidA, "4730"), 10'000);
        QVERIFY(h.watcher->resumeCount() >= 1);
    }

    void watchEndingAtOnceWithNothingBacksOffInsteadOfSpinning()
    {
        // client-go's "very short watch": a stream that closes immediately with no event is an
        // error. Without the backoff this would re-watch hundreds of times a second.
        Harness h;
        h.list().replyFile(QStringLiteral("watch/list-4711-single.http"));
        h.watchFrom("4711").replyFile(QStringLiteral("watch/watch-empty-end.http")).repeatLast();
        auto o = fastOptions();
        o.backoffInitialMs = 200;
        o.backoffMaxMs = 400;
        h.start(o);
        QTRY_VERIFY_WITH_TIMEOUT(h.watches().size() >= 3, 10'000);
        const auto watches = h.watches();
        for (std::size_t i = 1; i < watches.size(); ++i)
            QVERIFY2(watches[i].atMs - watches[i - 1].atMs >= 190,
                     qPrintable(QStringLiteral("re-watched after %1 ms").arg(watches[i].atMs - watches[i - 1].atMs)));
        QCOMPARE(QString::fromStdString(h.watcher->lastResourceVersion()), QStringLiteral("4711")); // never relisted
    }

    void bookmarkMovesTheResumePoint()
    {
        Harness h;
        h.list().replyFile(QStringLiteral("watch/list-4711-single.http"));
        h.watchFrom("4711").replyFile(QStringLiteral("watch/watch-bookmark-then-end.http"));
        h.watchFrom("4800").replyFile(QStringLiteral("watch/watch-hang.http"));
        h.start(fastOptions());
        QTRY_COMPARE_WITH_TIMEOUT(h.watches().size(), std::size_t(2), 10'000);
        const auto watches = h.watches();
        QCOMPARE(str(watches[1].queryValue("resourceVersion")), QStringLiteral("4800"));
        QCOMPARE(str(watches[1].queryValue("allowWatchBookmarks")), QStringLiteral("true"));
        QCOMPARE(QString::fromStdString(h.watcher->lastResourceVersion()), QStringLiteral("4800"));
        QCOMPARE(join(h.rvs(kUidA)), QStringLiteral("100,4720")); // a bookmark delivers no object
        QVERIFY(h.server.unmatched().empty());
    }

    void duplicateVersionResentAfterAResumeIsDeliveredOnce()
    {
        Harness h;
        h.list().replyFile(QStringLiteral("watch/list-4711-single.http"));
        h.watchFrom("4711").replyFile(QStringLiteral("watch/watch-drop-midline.http"));
        h.watchFrom("4720").replyFile(QStringLiteral("watch/watch-after-drop-with-duplicate.http"));
        h.start(fastOptions());
        QTRY_VERIFY_WITH_TIMEOUT(h.delivered(kUidA, "4730"), 10'000);
        QCOMPARE(join(h.rvs(kUidA)), QStringLiteral("100,4720,4730"));
        QCOMPARE(QString::fromStdString(h.watcher->store().find(kUidA)->resourceVersion), QStringLiteral("4730"));
    }

    // --- backoff (client-go's 0.8 s doubling to 30 s) ------------------------------------------

    void defaultBackoffIsClientGos()
    {
        const kube::WatcherOptions o;
        QCOMPARE(o.backoffInitialMs, 800);
        QCOMPARE(o.backoffMaxMs, 30'000);
        QCOMPARE(o.backoffResetMs, 120'000);
    }

    void backoffStartsAtTheInitialDelayDoublesAndIsCapped()
    {
        Harness h;
        h.list()
            .reply(TranscriptReply::json(
                503,
                R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"apiserver is shutting down","reason":"ServiceUnavailable","code":503})"))
            .repeatLast();
        auto o = fastOptions();
        o.backoffInitialMs = 100;
        o.backoffMaxMs = 400;
        h.start(o);
        QTRY_VERIFY_WITH_TIMEOUT(h.lists() >= 7, 15'000);
        const auto reqs = h.server.requests();
        std::vector<qint64> d;
        for (std::size_t i = 1; i < 7; ++i)
            d.push_back(reqs[i].atMs - reqs[i - 1].atMs);
        QString all;
        for (auto x : d)
            all += QString::number(x) + u' ';
        // Jitter multiplies by [1, 2): 100-200, 200-400, then the 400 ms cap. A small tolerance
        // below (coarse timers may fire up to 5% early); a generous one above (loaded machines),
        // still well short of the uncapped 800, 1600, 3200 ms.
        QVERIFY2(d[0] >= 95, qPrintable(all));
        QVERIFY2(d[1] >= 190, qPrintable(all));
        for (std::size_t i = 2; i < d.size(); ++i)
            QVERIFY2(d[i] >= 380 && d[i] < 750, qPrintable(all));
        QVERIFY(h.errors.size() >= 6); // every failure is reported, then waited out
        QVERIFY(h.watches().empty());
    }
    void serverThatAlwaysAnswers410IsRelistedWithGrowingJitteredDelays()
    {
        // Every watch is refused with 410 and every LIST succeeds: without a backoff the watcher
        // relists as fast as the loopback answers (hundreds of LISTs a second).
        Harness h;
        h.list().replyFile(QStringLiteral("watch/list-4711-single.http")).repeatLast();
        h.watchFrom("4711").replyFile(QStringLiteral("watch/watch-gone-410.http")).repeatLast();
        auto o = fastOptions();
        o.backoffInitialMs = 200;
        o.backoffMaxMs = 800;
        h.start(o);
        QTest::qWait(3'000);
        h.watcher.reset();
        const int lists = h.lists();
        // List, relist at once, then 200-400, 400-800, 800, 800 ms...: at most 7 in 3 s.
        QVERIFY2(lists >= 3 && lists <= 8, qPrintable(QString::number(lists)));
        std::vector<qint64> at;
        for (const auto &r : h.server.requests())
            if (isList(r))
                at.push_back(r.atMs);
        for (std::size_t i = 2; i < at.size(); ++i) // from the second relist on: waited out
            QVERIFY2(at[i] - at[i - 1] >= 190, qPrintable(QString::number(at[i] - at[i - 1])));
    }

    void missingStreamingListsIsOneDebugLineNotAWarning()
    {
        struct Captured {
            QtMsgType type;
            QString text;
        };
        static std::vector<Captured> captured;
        captured.clear();
        QLoggingCategory::setFilterRules(QStringLiteral("fieldscope.kube.watch.debug=true"));
        const QtMessageHandler previous = qInstallMessageHandler([](QtMsgType type, const QMessageLogContext &,
                                                                    const QString &text) {
            captured.push_back({type, text});
        });
        {
            Harness h;
            h.watchList().replyFile(QStringLiteral("watch/watchlist-1.33-gate-off-422.http")).repeatLast();
            h.list().replyFile(QStringLiteral("watch/list-4711-single.http"));
            h.watchFrom("4711").replyFile(QStringLiteral("watch/watch-hang.http"));
            h.start(fastOptions(true));
            QTRY_COMPARE_WITH_TIMEOUT(h.watches().size(), std::size_t(2), 10'000);
            h.watcher.reset();
        }
        qInstallMessageHandler(previous);
        QLoggingCategory::setFilterRules(QString());
        int lines = 0;
        for (const Captured &c : captured) {
            if (!c.text.contains(QStringLiteral("no streaming lists")))
                continue;
            ++lines;
            QCOMPARE(c.type, QtDebugMsg);
        }
        QCOMPARE(lines, 1);
    }
};

QTEST_GUILESS_MAIN(TestWatcherTranscripts)
#include "tst_watcher_transcripts.moc"
