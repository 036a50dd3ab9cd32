// The server Table (`as=Table`) of a watch scope, replayed from kube-apiserver 1.20.2
// recordings: decoding columns, typed cells and row uids; the paged LIST with the Table Accept
// header and the watch's selectors; the quiet fallback on a 406 or a response that is not a
// Table; and the coalesced, bounded refresh of rows the watch reports as changed.
#include "kube/tablefetcher.h"
#include "transcriptserver.h"

#include <QSignalSpy>
#include <QTest>

#include <fstream>
#include <sstream>

using namespace fieldscope;
using namespace fieldscope::testing;

namespace {

const std::string kCollection = "/api/v1/namespaces/tbl/configmaps";
// The uids and resourceVersions of the recording (tests/data/transcripts/table/).
const std::string kUidA = "2cf6559c-097d-4829-8471-b46761a7f55e";
const std::string kUidB = "88147860-afe6-4d79-a30f-54f0a42a1d67";
const std::string kUidC = "9dacd7d7-629a-486f-89f1-9b3a35102aa8";
const std::string kUidRootCa = "6c292f87-8f58-4dfb-ab75-a4bd14eaa7f3";
const std::string kContinue = "eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6MjM3LCJzdGFydCI6ImJcdTAwMDAifQ";

kube::ResourceInfo configMaps()
{
    kube::ResourceInfo r;
    r.version = "v1";
    r.resource = "configmaps";
    r.kind = "ConfigMap";
    r.namespaced = true;
    r.verbs = {"get", "list", "watch"};
    return r;
}

// The body of a recorded response (chunked recordings are one piece per line).
std::string bodyOf(const QString &transcript)
{
    const TranscriptReply r = TranscriptReply::fromFile(transcript);
    std::string body = r.body;
    for (const auto &p : r.pieces)
        body += p.bytes;
    return body;
}

kube::TableFetcherOptions fastOptions()
{
    kube::TableFetcherOptions o;
    o.refreshIntervalMs = 50;
    o.backoffInitialMs = 50;
    o.backoffMaxMs = 200;
    return o;
}

struct Harness {
    TranscriptServer server;
    kube::ApiClient client;
    std::unique_ptr<kube::TableFetcher> fetcher;
    std::vector<std::vector<kube::TableColumn>> columnSets;
    std::map<std::string, std::vector<kube::TableRow>> rowsByUid; // every row delivered, in order
    QStringList unsupported, errors;

    Harness() : client(makeTransport(server)) {}
    static std::shared_ptr<kube::Transport> makeTransport(const TranscriptServer &s)
    {
        kube::TransportConfig config;
        config.server = s.url();
        config.qps = 0;
        return std::make_shared<kube::Transport>(config);
    }

    TranscriptServer::Rule &firstPage() { return server.on(kCollection).exactPath().lacksQuery("continue"); }
    TranscriptServer::Rule &secondPage() { return server.on(kCollection).exactPath().query("continue", kContinue); }
    TranscriptServer::Rule &gets() { return server.on(kCollection + "/"); }
    void recordedTwoPages()
    {
        firstPage().replyFile(QStringLiteral("table/configmaps-table-page1.http")).repeatLast();
        secondPage().replyFile(QStringLiteral("table/configmaps-table-page2.http")).repeatLast();
    }

    void start(kube::TableFetcherOptions options = fastOptions(), std::string labelSelector = {})
    {
        kube::WatchScope scope{configMaps(), "tbl", std::move(labelSelector), {}};
        fetcher = std::make_unique<kube::TableFetcher>(&client, scope, options);
        QObject::connect(fetcher.get(), &kube::TableFetcher::columnsChanged, fetcher.get(),
                         [this](const auto &c) { columnSets.push_back(c); });
        QObject::connect(fetcher.get(), &kube::TableFetcher::rowsReady, fetcher.get(),
                         [this](const std::vector<kube::TableRow> &rows) {
                             for (const auto &r : rows)
                                 rowsByUid[r.uid].push_back(r);
                         });
        QObject::connect(fetcher.get(), &kube::TableFetcher::unsupported, fetcher.get(),
                         [this](const QString &w) { unsupported << w; });
        QObject::connect(fetcher.get(), &kube::TableFetcher::errorOccurred, fetcher.get(),
                         [this](const QString &m) { errors << m; });
        fetcher->start();
    }
    bool live() const { return fetcher && fetcher->state() == kube::TableFetcher::State::Live; }
    int getRequests() const
    {
        return server.count([](const RecordedRequest &r) { return r.path.rfind(kCollection + "/", 0) == 0; });
    }
    int listRequests() const
    {
        return server.count([](const RecordedRequest &r) { return r.path == kCollection; });
    }
};

QString str(const std::optional<std::string> &s)
{
    return s ? QString::fromStdString(*s) : QStringLiteral("<absent>");
}

} // namespace

class TestTableFetcherTranscripts : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    // --- decoding ---------------------------------------------------------------------------------

    void decodeReadsColumnDefinitionsTypedCellsAndRowIdentity()
    {
        std::string body = bodyOf(QStringLiteral("table/configmaps-table-page1.http"));
        auto t = kube::decodeTable(body);
        QVERIFY2(t.ok(), t.ok() ? "" : t.error().describe().c_str());
        QVERIFY(t->isTable);
        QCOMPARE(t->resourceVersion, std::string("237"));
        QCOMPARE(t->continueToken, kContinue);
        QCOMPARE(int(t->columns.size()), 3);
        QCOMPARE(t->columns[0].name, std::string("Name"));
        QCOMPARE(t->columns[0].format, std::string("name"));
        QCOMPARE(t->columns[1].name, std::string("Data"));
        QCOMPARE(t->columns[1].type, std::string("string"));
        QCOMPARE(t->columns[1].priority, 0);
        QVERIFY(t->columns[1].description.rfind("Data contains", 0) == 0);
        QCOMPARE(t->columns[2].name, std::string("Age"));
        QCOMPARE(int(t->rows.size()), 2);
        const auto &a = t->rows[0];
        QCOMPARE(a.uid, kUidA);
        QCOMPARE(a.namespace_, std::string("tbl"));
        QCOMPARE(a.name, std::string("a"));
        QCOMPARE(a.resourceVersion, std::string("235"));
        QCOMPARE(a.cells.size(), 3);
        QCOMPARE(a.cells[0], QVariant(QStringLiteral("a")));
        // The Data column is typed "string" but 1.20 renders an integer: kept as a number.
        QCOMPARE(a.cells[1].typeId(), int(QMetaType::LongLong));
        QCOMPARE(a.cells[1].toLongLong(), 2);
        QCOMPARE(t->rows[1].cells[1].toLongLong(), 1);
    }

    void decodeKeepsBooleanNullFloatAndNestedCells()
    {
        std::string body =
            R"({"kind":"Table","apiVersion":"meta.k8s.io/v1","metadata":{"resourceVersion":"9"},)"
            R"("columnDefinitions":[{"name":"X","type":"string","format":"","description":"","priority":1}],)"
            R"("rows":[{"cells":[true,null,1.5,[1,2],{"k":"v"}],"object":{"metadata":{"uid":"u1","resourceVersion":"7"}}},)"
            R"({"cells":["no identity"],"object":{"kind":"PartialObjectMetadata"}}]})";
        auto t = kube::decodeTable(body);
        QVERIFY(t.ok());
        QCOMPARE(t->columns[0].priority, 1);
        QCOMPARE(int(t->rows.size()), 1); // a row without object.metadata.uid cannot be joined
        const QVariantList &c = t->rows[0].cells;
        QCOMPARE(c[0], QVariant(true));
        QVERIFY(!c[1].isValid());
        QCOMPARE(c[2].toDouble(), 1.5);
        QCOMPARE(c[3].toString(), QStringLiteral("[1,2]"));
        QCOMPARE(c[4].toString(), QStringLiteral("{\"k\":\"v\"}"));
    }

    void decodeReportsAPlainListAsNotATable()
    {
        std::string body = bodyOf(QStringLiteral("table/plain-list-not-table.http"));
        auto t = kube::decodeTable(body);
        QVERIFY(t.ok());
        QVERIFY(!t->isTable);
        QCOMPARE(t->kind, std::string("ConfigMapList"));
        QVERIFY(t->rows.empty());
    }

    void decodeRejectsMalformedJsonAsAParseError()
    {
        std::string body = R"({"kind":"Table","rows":[{"cells":[1,)";
        auto t = kube::decodeTable(body);
        QVERIFY(!t.ok());
        QCOMPARE(t.error().category, core::ErrorCategory::Parse);
    }

    // --- the list ---------------------------------------------------------------------------------

    void listsEveryPageAsTableWithObjectMetadataAndTheWatchSelector()
    {
        Harness h;
        h.recordedTwoPages();
        h.start(fastOptions(), "app=web");
        QTRY_VERIFY_WITH_TIMEOUT(h.live(), 10'000);

        const auto lists = h.server.requests(kCollection);
        QCOMPARE(int(lists.size()), 2);
        for (const auto &r : lists) {
            QCOMPARE(str(r.header("Accept")), QString::fromLatin1(kube::kTableAccept));
            QCOMPARE(str(r.queryValue("includeObject")), QStringLiteral("Metadata"));
            QCOMPARE(str(r.queryValue("labelSelector")), QStringLiteral("app=web"));
            QCOMPARE(str(r.queryValue("limit")), QStringLiteral("500"));
            QVERIFY(!r.queryValue("resourceVersion")); // RV unset: a consistent paginated read
        }
        QCOMPARE(str(lists[1].queryValue("continue")), QString::fromStdString(kContinue));
        QCOMPARE(int(h.columnSets.size()), 1); // pages repeat the definitions; announced once
        QCOMPARE(int(h.rowsByUid.size()), 4);
        QCOMPARE(h.rowsByUid[kUidC].back().cells[1].toLongLong(), 0);
        QCOMPARE(h.rowsByUid[kUidRootCa].back().resourceVersion, std::string("231"));
        QVERIFY(h.errors.isEmpty());
        QVERIFY(h.unsupported.isEmpty());
    }

    void notAcceptable406FallsBackQuietly()
    {
        Harness h;
        h.firstPage().replyFile(QStringLiteral("table/not-acceptable-406.http"));
        h.start();
        QTRY_COMPARE_WITH_TIMEOUT(h.fetcher->state(), kube::TableFetcher::State::Unsupported, 10'000);
        QCOMPARE(h.unsupported.size(), 1);
        QVERIFY(h.errors.isEmpty()); // no error for the user: the fixed columns stay
        QVERIFY(h.columnSets.empty());
        h.fetcher->noteVersion(kUidA, "tbl", "a", "999");
        QTest::qWait(200);
        QCOMPARE(int(h.server.requests().size()), 1); // nothing more is asked of this server
    }

    void responseThatIsNotATableFallsBackQuietly()
    {
        Harness h;
        h.firstPage().replyFile(QStringLiteral("table/plain-list-not-table.http"));
        h.start();
        QTRY_COMPARE_WITH_TIMEOUT(h.fetcher->state(), kube::TableFetcher::State::Unsupported, 10'000);
        QCOMPARE(h.unsupported, QStringList{QStringLiteral("ConfigMapList")});
        QVERIFY(h.errors.isEmpty());
        QVERIFY(h.rowsByUid.empty());
    }

    void failedListIsRetriedWithBackoff()
    {
        Harness h;
        h.firstPage()
            .reply(TranscriptReply::json(
                500,
                R"({"kind":"Status","apiVersion":"v1","status":"Failure","message":"etcd unavailable","code":500})"))
            .replyFile(QStringLiteral("table/configmaps-table-page1.http"));
        h.secondPage().replyFile(QStringLiteral("table/configmaps-table-page2.http"));
        h.start();
        QTRY_VERIFY_WITH_TIMEOUT(h.live(), 10'000);
        QCOMPARE(h.errors.size(), 1);
        QCOMPARE(int(h.rowsByUid.size()), 4);
    }

    // --- keeping cells current --------------------------------------------------------------------

    void changedObjectIsFetchedByNameAsTable()
    {
        Harness h;
        h.recordedTwoPages();
        h.gets().replyFile(QStringLiteral("table/configmap-a-table.http"));
        h.start();
        QTRY_VERIFY_WITH_TIMEOUT(h.live(), 10'000);
        const std::size_t before = h.rowsByUid[kUidA].size();
        h.fetcher->noteVersion(kUidA, "tbl", "a", "240");
        QTRY_COMPARE_WITH_TIMEOUT(h.rowsByUid[kUidA].size(), before + 1, 10'000);
        const auto gets = h.server.requests(kCollection + "/");
        QCOMPARE(int(gets.size()), 1);
        QCOMPARE(gets[0].path, kCollection + "/a");
        QCOMPARE(str(gets[0].header("Accept")), QString::fromLatin1(kube::kTableAccept));
        QCOMPARE(str(gets[0].queryValue("includeObject")), QStringLiteral("Metadata"));
        QTRY_COMPARE(h.fetcher->staleCount(), std::size_t(0));
    }

    void versionTheCellsWereRenderedFromCostsNoRequest()
    {
        Harness h;
        h.recordedTwoPages();
        h.start();
        QTRY_VERIFY_WITH_TIMEOUT(h.live(), 10'000);
        // The watch's own list delivers the versions the Table was rendered from.
        h.fetcher->noteVersion(kUidA, "tbl", "a", "235");
        h.fetcher->noteVersion(kUidB, "tbl", "b", "236");
        QCOMPARE(h.fetcher->staleCount(), std::size_t(0));
        QTest::qWait(200);
        QCOMPARE(h.getRequests(), 0);
        QCOMPARE(h.listRequests(), 2);
    }

    void deletedObjectIsNotFetched()
    {
        Harness h;
        h.recordedTwoPages();
        h.start();
        QTRY_VERIFY_WITH_TIMEOUT(h.live(), 10'000);
        h.fetcher->noteVersion(kUidA, "tbl", "a", "240");
        h.fetcher->forget(kUidA);
        QTest::qWait(200);
        QCOMPARE(h.getRequests(), 0);
    }

    void eventStormIsCoalescedPerUidAndGetsStayWithinTheBudget()
    {
        Harness h;
        h.recordedTwoPages();
        h.gets().replyFile(QStringLiteral("table/configmap-a-table.http")).repeatLast();
        kube::TableFetcherOptions o = fastOptions();
        o.refreshIntervalMs = 300; // lets the test look between two ticks
        o.maxGetsPerTick = 3;
        o.relistMinIntervalMs = 3'600'000; // no relist in this test
        h.start(o);
        QTRY_VERIFY_WITH_TIMEOUT(h.live(), 10'000);
        // 1,000 events over 40 objects: the latest version per uid is what counts.
        for (int i = 0; i < 1000; ++i) {
            const int n = i % 40;
            h.fetcher->noteVersion("uid-" + std::to_string(n), "tbl", "obj-" + std::to_string(n),
                                   std::to_string(1000 + i));
        }
        QCOMPARE(h.fetcher->staleCount(), std::size_t(40));
        // The first tick starts exactly the budget, all at once.
        QTRY_VERIFY_WITH_TIMEOUT(h.fetcher->getsStarted() > 0, 10'000);
        QCOMPARE(h.fetcher->getsStarted(), 3);
        QTRY_COMPARE_WITH_TIMEOUT(h.fetcher->staleCount(), std::size_t(0), 20'000);
        QCOMPARE(h.fetcher->getsStarted(), 40); // one GET per object, not per event
        QCOMPARE(h.getRequests(), 40);
        QCOMPARE(h.fetcher->listsStarted(), 1);
    }

    void aboveTheGetBudgetOneRelistReplacesTheGets()
    {
        Harness h;
        h.recordedTwoPages();
        kube::TableFetcherOptions o = fastOptions();
        o.maxGetsPerTick = 3;
        o.relistMinIntervalMs = 0;
        o.relistDurationFactor = 0; // a relist is allowed at once
        h.start(o);
        QTRY_VERIFY_WITH_TIMEOUT(h.live(), 10'000);
        for (int n = 0; n < 40; ++n)
            h.fetcher->noteVersion("uid-" + std::to_string(n), "tbl", "obj-" + std::to_string(n), "2000");
        QTRY_COMPARE_WITH_TIMEOUT(h.fetcher->listsStarted(), 2, 10'000);
        QTRY_VERIFY_WITH_TIMEOUT(h.live(), 10'000);
        QCOMPARE(h.fetcher->staleCount(), std::size_t(0)); // the relist covers what was noted before it
        QCOMPARE(h.getRequests(), 0);
        QCOMPARE(h.listRequests(), 4);
    }

    // Row caches hold only what the watch holds: once the watch has listed, rows of uids it never
    // reported are dropped after every Table list; one the watch reports later is fetched.
    void rowsTheWatchNeverReportsAreDroppedAfterItsList()
    {
        Harness h;
        h.recordedTwoPages();
        kube::TableFetcherOptions o = fastOptions();
        o.maxGetsPerTick = 3;
        o.relistMinIntervalMs = 0;
        o.relistDurationFactor = 0;
        h.start(o);
        QSignalSpy dropped(h.fetcher.get(), &kube::TableFetcher::unwatchedRowsDropped);
        QTRY_VERIFY_WITH_TIMEOUT(h.live(), 10'000);
        const std::size_t listed = h.fetcher->cachedRowCount();
        QVERIFY2(listed >= 3, "the recording lists a, b, c and kube-root-ca.crt");
        QCOMPARE(dropped.size(), 0); // the watch has not listed yet: nothing is known to be missing
        h.fetcher->noteVersion(kUidA, "tbl", "a", "235"); // the watch holds only "a"
        h.fetcher->noteWatchListed();
        QCOMPARE(h.fetcher->cachedRowCount(), std::size_t(1));
        QCOMPARE(dropped.size(), 1);
        QVERIFY(h.fetcher->watches(kUidA));
        QVERIFY(!h.fetcher->watches(kUidB));
        // A relist renders them all again; they are dropped again when it ends.
        for (int n = 0; n < 10; ++n)
            h.fetcher->noteVersion("uid-" + std::to_string(n), "tbl", "obj-" + std::to_string(n), "2000");
        QTRY_COMPARE_WITH_TIMEOUT(h.fetcher->listsStarted(), 2, 10'000);
        QTRY_VERIFY_WITH_TIMEOUT(h.live(), 10'000);
        QCOMPARE(h.fetcher->cachedRowCount(), std::size_t(1));
        QCOMPARE(dropped.size(), 2);
        // "b" reported by the watch after all: its cells are fetched like a changed object's.
        QCOMPARE(h.fetcher->staleCount(), std::size_t(0));
        h.fetcher->noteVersion(kUidB, "tbl", "b", "236");
        QCOMPARE(h.fetcher->staleCount(), std::size_t(1));
        // A deleted object is no longer held.
        h.fetcher->forget(kUidA);
        QVERIFY(!h.fetcher->watches(kUidA));
        QCOMPARE(h.fetcher->cachedRowCount(), std::size_t(0));
    }

    void relistIsRateLimitedByTheLastListsDuration()
    {
        Harness h;
        // The first page takes 300 ms: with a factor of 10 the next relist waits 3 s.
        TranscriptReply slow = TranscriptReply::fromFile(QStringLiteral("table/configmaps-table-page1.http"));
        firstPageDelay(slow, 300);
        h.firstPage().reply(slow).repeatLast();
        h.secondPage().replyFile(QStringLiteral("table/configmaps-table-page2.http")).repeatLast();
        h.gets().replyFile(QStringLiteral("table/configmap-a-table.http")).repeatLast();
        kube::TableFetcherOptions o = fastOptions();
        o.maxGetsPerTick = 3;
        o.relistMinIntervalMs = 0;
        o.relistDurationFactor = 10;
        h.start(o);
        QTRY_VERIFY_WITH_TIMEOUT(h.live(), 10'000);
        for (int n = 0; n < 40; ++n)
            h.fetcher->noteVersion("uid-" + std::to_string(n), "tbl", "obj-" + std::to_string(n), "2000");
        QTRY_VERIFY_WITH_TIMEOUT(h.fetcher->getsStarted() >= 6, 10'000);
        QCOMPARE(h.fetcher->listsStarted(), 1); // meanwhile the oldest are fetched by GET
    }

private:
    static void firstPageDelay(TranscriptReply &r, int ms)
    {
        if (!r.pieces.empty())
            r.pieces.front().delayMs = ms;
    }
};

QTEST_GUILESS_MAIN(TestTableFetcherTranscripts)
#include "tst_tablefetcher_transcripts.moc"
