// LIST pagination against replayed answers of 1.33-1.34 servers: continue tokens, page sizes
// that follow the objects' size and the server's remainingItemCount, expired tokens, and the
// pipeline that asks for the next page from a page's head while the page decodes on a worker
// (pages applied in the order asked; a page that fails drops the pages asked after it).
#include "watcherharness.h"

#include <QSemaphore>
#include <QTest>
#include <QThreadPool>

#include <utility>

using namespace fieldscope;
using namespace fieldscope::testing;
using core::WatchEventType;

namespace {

std::string item(const std::string &name, const std::string &uid, const std::string &rv, std::size_t padding = 0)
{
    return R"({"metadata":{"name":")" + name + R"(","namespace":"test","uid":")" + uid + R"(","resourceVersion":")" + rv
         + R"("},"data":{"k":")" + std::string(padding, 'x') + R"("}})";
}

std::string metadata(const std::string &continueToken)
{
    return R"("metadata":{"resourceVersion":"4711","continue":")" + continueToken + R"("})";
}

// Page 1 (objects a, b) and page 2 (object c) of one list; page 1 continues with "T".
std::string firstPage(const std::string &itemB = item("b", kUidB, "101"))
{
    return "{" + metadata("T") + R"(,"items":[)" + item("a", kUidA, "100") + "," + itemB + "]}";
}
std::string secondPage()
{
    return "{" + metadata("") + R"(,"items":[)" + item("c", kUidC, "102") + "]}";
}

// Page n of a list of `pages` pages of 3 objects each; sizes vary so that pages take different
// times to decode (which may finish out of order) and each page continues with "p<n+1>".
TranscriptReply numberedPage(const RecordedRequest &r, int pages)
{
    const auto token = r.queryValue("continue");
    const int n = token ? std::atoi(token->c_str() + 1) : 0;
    std::string items;
    for (int i = 0; i < 3; ++i) {
        const std::string name = "o" + std::to_string(n * 3 + i);
        items += (i ? "," : "")
               + item(name, "uid-" + name, std::to_string(1000 + n * 3 + i), std::size_t(1 + n % 4) * 30'000);
    }
    return TranscriptReply::json(200, "{" + metadata(n + 1 < pages ? "p" + std::to_string(n + 1) : "") + R"(,"items":[)"
                                          + items + "]}");
}

// A list of two objects whose first page announces 10^12 more.
TranscriptReply absurdCountPage(const RecordedRequest &r)
{
    if (!r.queryValue("continue"))
        return TranscriptReply::json(200, R"({"metadata":{"resourceVersion":"4711","continue":"T",)"
                                          R"("remainingItemCount":1000000000000},"items":[)"
                                              + item("a", "uid-a", "100") + "]}");
    return TranscriptReply::json(200, R"({"metadata":{"resourceVersion":"4711"},"items":[)" + item("b", "uid-b", "101")
                                          + "]}");
}

// Occupies every thread of the pool LIST pages decode on, so a test can see what the watcher
// does between a page's arrival and its decode.
class DecodeHold
{
public:
    DecodeHold() : m_threads(kube::Watcher::decodePool()->maxThreadCount())
    {
        for (int i = 0; i < m_threads; ++i)
            kube::Watcher::decodePool()->start([this] {
                m_started.release();
                m_release.acquire();
            });
        m_started.acquire(m_threads);
    }
    ~DecodeHold() { release(); }
    void release() { m_release.release(std::exchange(m_threads, 0)); }

private:
    int m_threads;
    QSemaphore m_started, m_release;
};

bool requested(const Harness &h, const std::string &continueToken)
{
    return h.server.count([&](const RecordedRequest &r) {
        return isList(r) && r.queryValue("continue") == continueToken;
    }) > 0;
}

} // namespace

class TestWatcherPaging : public QObject
{
    Q_OBJECT
private Q_SLOTS:
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
        // Page 1 was shown at 4711, the restarted list is at 4800: nobody watched in between.
        const auto gaps = h.gaps();
        QCOMPARE(int(gaps.size()), 1);
        QCOMPARE(QString::fromStdString(gaps[0].fromResourceVersion), QStringLiteral("4711"));
        QCOMPARE(QString::fromStdString(gaps[0].toResourceVersion), QStringLiteral("4800"));
        QCOMPARE(QString::fromStdString(gaps[0].reason), QStringLiteral("continue token expired"));
        QVERIFY(h.server.unmatched().empty());
    }

    void aPageThatFailsAfterPagesWereShownRestartsTheListAndMarksTheGap()
    {
        Harness h;
        h.list()
            .lacksQuery("continue")
            .replyFile(QStringLiteral("watch/list-4711-page1.http"))
            .replyFile(QStringLiteral("watch/list-4800-page1.http"));
        // Not an expired token: the server fails the second page (an apiserver restarting).
        h.list()
            .query("continue", kToken4711)
            .reply(TranscriptReply::json(
                500,
                R"({"kind":"Status","apiVersion":"v1","status":"Failure","message":"etcdserver: leader changed","code":500})"));
        h.list().query("continue", kToken4800).replyFile(QStringLiteral("watch/list-4800-page2.http"));
        h.watchFrom("4800").replyFile(QStringLiteral("watch/watch-hang.http"));
        auto o = fastOptions();
        o.pageSize = 2;
        h.start(o);
        QTRY_COMPARE_WITH_TIMEOUT(h.watches().size(), std::size_t(1), 10'000);

        QCOMPARE(h.lists(), 4);
        QCOMPARE(join(h.rvs(kUidA)), QStringLiteral("100")); // shown once, not delivered twice
        QVERIFY(!h.watcher->store().find(kUidB));            // gone in the new list
        QCOMPARE(join(h.rvs(kUidD)), QStringLiteral("4799"));
        // Page 1 was shown at 4711, the new list is at 4800: nobody watched in between.
        const auto gaps = h.gaps();
        QCOMPARE(int(gaps.size()), 1);
        QCOMPARE(QString::fromStdString(gaps[0].fromResourceVersion), QStringLiteral("4711"));
        QCOMPARE(QString::fromStdString(gaps[0].toResourceVersion), QStringLiteral("4800"));
        QCOMPARE(QString::fromStdString(gaps[0].reason), QStringLiteral("list failed and started again"));
        QVERIFY(h.server.unmatched().empty());
    }

    // --- the page pipeline ---------------------------------------------------------------------

    void nextPageIsAskedBeforeThePageDecodesAndDroppedWhenThePageFails()
    {
        Harness h;
        // The first answer's head is sound (continue "T") but its second item's uid is a number.
        h.list()
            .lacksQuery("continue")
            .reply(TranscriptReply::json(200, firstPage(R"({"metadata":{"name":"b","uid":42}})")))
            .reply(TranscriptReply::json(200, firstPage()));
        h.list().query("continue", "T").reply(TranscriptReply::json(200, secondPage())).repeatLast();
        h.watchFrom("4711").replyFile(QStringLiteral("watch/watch-hang.http"));
        DecodeHold hold;
        h.start(fastOptions());
        // Page 2 is asked for while page 1 has not decoded yet.
        QTRY_VERIFY_WITH_TIMEOUT(requested(h, "T"), 10'000);
        QVERIFY(h.progress.empty());
        hold.release();
        QTRY_COMPARE_WITH_TIMEOUT(h.watches().size(), std::size_t(1), 10'000);

        QCOMPARE(h.errors.size(), 1);
        QVERIFY2(h.errors[0].contains(QStringLiteral("items[1].metadata.uid")), qPrintable(h.errors[0]));
        // Page 2 was asked for before page 1 had decoded, then the list started again.
        std::vector<std::string> order;
        for (const auto &r : h.server.requests())
            if (isList(r))
                order.push_back(r.queryValue("continue").value_or("-"));
        QCOMPARE(join(order), QStringLiteral("-,T,-,T")); // the second page 2 came after page 1 again
        // Nothing of the failed round was applied: each object once, from the second round.
        QCOMPARE(join(h.rvs(kUidA)), QStringLiteral("100"));
        QCOMPARE(join(h.rvs(kUidB)), QStringLiteral("101"));
        QCOMPARE(join(h.rvs(kUidC)), QStringLiteral("102"));
        QCOMPARE(h.completedInitialLists(), 1);
    }

    void pageWhoseMetadataFollowsItsItemsIsFollowedOnceItDecodes()
    {
        Harness h;
        const std::string itemsFirst = R"({"items":[)" + item("a", kUidA, "100") + "," + item("b", kUidB, "101") + "],"
                                     + metadata("T") + "}";
        h.list().lacksQuery("continue").reply(TranscriptReply::json(200, itemsFirst));
        h.list().query("continue", "T").reply(TranscriptReply::json(200, secondPage()));
        h.watchFrom("4711").replyFile(QStringLiteral("watch/watch-hang.http"));
        h.start(fastOptions());
        QTRY_COMPARE_WITH_TIMEOUT(h.watches().size(), std::size_t(1), 10'000);
        QVERIFY(h.errors.isEmpty());
        QCOMPARE(int(h.watcher->store().size()), 3);
        QCOMPARE(h.lists(), 2);
    }

    void pageThatRepeatsItsMetadataAfterTheItemsFailsInsteadOfFollowingEitherToken()
    {
        Harness h;
        // The head says "T"; a decoder reading the whole page keeps the last metadata, "".
        const std::string twoHeads = "{" + metadata("T") + R"(,"items":[)" + item("a", kUidA, "100") + "],"
                                   + metadata("") + "}";
        h.list()
            .lacksQuery("continue")
            .reply(TranscriptReply::json(200, twoHeads))
            .reply(TranscriptReply::json(200, firstPage()));
        h.list().query("continue", "T").reply(TranscriptReply::json(200, secondPage())).repeatLast();
        h.watchFrom("4711").replyFile(QStringLiteral("watch/watch-hang.http"));
        h.start(fastOptions());
        QTRY_COMPARE_WITH_TIMEOUT(h.watches().size(), std::size_t(1), 10'000);
        QCOMPARE(h.errors.size(), 1);
        QVERIFY2(h.errors[0].contains(QStringLiteral("two continue tokens")), qPrintable(h.errors[0]));
        QCOMPARE(join(h.rvs(kUidA)), QStringLiteral("100")); // the ambiguous page applied nothing
        QCOMPARE(int(h.watcher->store().size()), 3);
    }

    void pagesAskedAheadOfTheirDecodeAreFewAndOneAtATimeWhenLargerThanAskedFor()
    {
        for (const bool largePages : {false, true}) {
            Harness h;
            h.list().replyWith([](const RecordedRequest &r) { return numberedPage(r, 12); }).repeatLast();
            h.watchFrom("4711").replyFile(QStringLiteral("watch/watch-hang.http"));
            auto o = fastOptions();
            if (largePages)
                o.targetPageBytes = 10'000; // the pages (90-360 KB) are far larger than wanted
            DecodeHold hold;
            h.start(o);
            const int ahead = largePages ? 1 : 3; // pages whose bodies wait for a decode
            QTRY_COMPARE_WITH_TIMEOUT(h.lists(), ahead, 10'000);
            QTest::qWait(200);
            QCOMPARE(h.lists(), ahead);
            hold.release();
            QTRY_COMPARE_WITH_TIMEOUT(h.watches().size(), std::size_t(1), 10'000);
            QCOMPARE(int(h.watcher->store().size()), 36);
        }
    }

    void aLargePageOfTheFirstListIsDeliveredInSlices()
    {
        Harness h;
        h.list().replyWith([](const RecordedRequest &r) { return numberedPage(r, 4); }).repeatLast();
        h.watchFrom("4711").replyFile(QStringLiteral("watch/watch-hang.http"));
        auto o = fastOptions();
        o.applySliceItems = 2;
        h.start(o);
        QTRY_COMPARE_WITH_TIMEOUT(h.watches().size(), std::size_t(1), 10'000);
        // Four pages of three objects: each in a batch of two and a batch of one; the list is
        // complete only after the last of them.
        std::vector<std::string> sizes;
        for (const auto &b : h.batches)
            sizes.push_back(std::to_string(b.events.size()) + (b.initialListComplete ? "!" : ""));
        QCOMPARE(join(sizes), QStringLiteral("2,1,2,1,2,1,2,1,0!"));
        QCOMPARE(h.progress.size(), std::size_t(4)); // progress stays one report per page
    }

    void manyPagesAreAppliedInTheOrderTheServerSentThem()
    {
        Harness h;
        constexpr int kPages = 40;
        h.list().replyWith([](const RecordedRequest &r) { return numberedPage(r, kPages); }).repeatLast();
        h.watchFrom("4711").replyFile(QStringLiteral("watch/watch-hang.http"));
        auto o = fastOptions();
        o.applySliceItems = 2; // pages of 3 objects: a page is still being delivered when the next arrives
        h.start(o);
        QTRY_COMPARE_WITH_TIMEOUT(h.watches().size(), std::size_t(1), 20'000);
        QVERIFY(h.errors.isEmpty());
        std::vector<std::string> names;
        for (const auto &b : h.batches)
            for (const auto &e : b.events)
                names.push_back(e.name);
        QCOMPARE(int(names.size()), kPages * 3);
        for (int i = 0; i < kPages * 3; ++i)
            QCOMPARE(QString::fromStdString(names[std::size_t(i)]), QStringLiteral("o%1").arg(i));
        // Progress counts pages in order too: it only grows, and ends at every object.
        for (std::size_t i = 1; i < h.progress.size(); ++i)
            QVERIFY(h.progress[i].first > h.progress[i - 1].first);
        QCOMPARE(h.progress.back().first, qint64(kPages * 3));
        QCOMPARE(h.lists(), kPages);
    }

    // The first page says how many objects follow: the store's index makes room for all of them
    // before the first is delivered, so it never rehashes in the middle of a large list.
    void storeMakesRoomForTheAnnouncedListBeforeItsFirstObject()
    {
        Harness h;
        h.list().replyWith([](const RecordedRequest &r) {
            const bool first = !r.queryValue("continue");
            std::string items;
            for (int i = 0; i < (first ? 200 : 100); ++i) {
                const std::string name = "o" + std::to_string(first ? i : 200 + i);
                items += (i ? "," : "") + item(name, "uid-" + name, std::to_string(1000 + i));
            }
            const std::string meta = first ? R"("metadata":{"resourceVersion":"4711","continue":"T",)"
                                             R"("remainingItemCount":100})"
                                           : R"("metadata":{"resourceVersion":"4711"})";
            return TranscriptReply::json(200, "{" + meta + R"(,"items":[)" + items + "]}");
        });
        h.watchFrom("4711").replyFile(QStringLiteral("watch/watch-hang.http"));
        auto o = fastOptions();
        o.applySliceItems = 50;
        h.start(o);                       // the list's request is answered once the event loop runs
        std::vector<std::size_t> buckets; // the store's, at each batch
        QObject::connect(h.watcher.get(), &kube::Watcher::batchReady, h.watcher.get(),
                         [&h, &buckets] { buckets.push_back(h.watcher->store().indexBuckets()); });
        QTRY_COMPARE_WITH_TIMEOUT(h.watches().size(), std::size_t(1), 10'000);
        QCOMPARE(int(h.watcher->store().size()), 300);
        QVERIFY(buckets.size() >= 6); // slices of 50
        QVERIFY2(buckets.front() >= 300, qPrintable(QString::number(buckets.front())));
        QCOMPARE(buckets.back(), buckets.front());
    }

    // The announced count is the server's word: 10^12 remaining objects reserve a bounded index
    // (no allocation for them, no exception on the GUI thread) and the real list still completes.
    void anAbsurdAnnouncedCountReservesABoundedIndex()
    {
        Harness h;
        h.list().replyWith(absurdCountPage);
        h.watchFrom("4711").replyFile(QStringLiteral("watch/watch-hang.http"));
        h.start(fastOptions());
        QTRY_COMPARE_WITH_TIMEOUT(h.watches().size(), std::size_t(1), 10'000);
        QCOMPARE(int(h.watcher->store().size()), 2);
        QVERIFY(h.errors.isEmpty());
        const std::size_t buckets = h.watcher->store().indexBuckets();
        // (4-byte buckets, a power of two at most 3/4 full: 16 MB at the cap.)
        QVERIFY2(buckets <= 4 * core::ObjectStore::kMaxReserve, qPrintable(QString::number(buckets)));
    }
};

QTEST_GUILESS_MAIN(TestWatcherPaging)
#include "tst_watcher_paging.moc"
