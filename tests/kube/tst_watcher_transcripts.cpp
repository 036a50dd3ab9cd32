// The LIST+WATCH state machine against replayed answers: a streaming list and the watch after
// it recorded from a real 1.37 server (tests/data/transcripts/record-modern.sh), and scenarios
// written after 1.33-1.34 servers' answers that no server produces on demand: streaming lists
// (WatchList) and their 422 fallback (LIST pages: tst_watcher_paging), relists after
// ERROR 410 / HTTP 410 / 504 ResourceVersionTooLarge, APF throttling, dropped, stalled and
// corrupt streams, bookmarks, exactly-once delivery and backoff (k8s.io/client-go/tools/cache/reflector.go).
// The integration cluster cannot be made to produce most of these; the transcripts can.
#include "core/base/json.h"
#include "watcherharness.h"

#include <QLoggingCategory>
#include <QSignalSpy>
#include <QTest>

#include <map>

using namespace fieldscope;
using namespace fieldscope::testing;
using core::WatchEventType;

// One MODIFIED event of object A at `rv`, padded with a data value to exactly `bytes` bytes.
std::string modifiedOfSize(const std::string &rv, std::size_t bytes)
{
    const std::string head =
        R"({"type":"MODIFIED","object":{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"a","namespace":"test","uid":")"
        + kUidA + R"(","resourceVersion":")" + rv + R"("},"data":{"k":")";
    const std::string tail = "\"}}}";
    return head + std::string(bytes - head.size() - tail.size(), 'x') + tail;
}

// Answers to the streaming list's count (GET ?limit=1, metadata only).
const char *const kCountOfTwo =
    R"({"kind":"PartialObjectMetadataList","apiVersion":"meta.k8s.io/v1","metadata":{"resourceVersion":"10245","continue":"eyJ2IjoibWV0YS5rOHMuaW8vdjEifQ","remainingItemCount":1},"items":[{"metadata":{"name":"a"}}]})";
const char *const kWholeList =
    R"({"kind":"PartialObjectMetadataList","apiVersion":"meta.k8s.io/v1","metadata":{"resourceVersion":"10245"},"items":[{"metadata":{"name":"a"}},{"metadata":{"name":"b"}}]})";
const char *const kNoCount =
    R"({"kind":"PartialObjectMetadataList","apiVersion":"meta.k8s.io/v1","metadata":{"resourceVersion":"10245","continue":"eyJ2IjoibWV0YS5rOHMuaW8vdjEifQ"},"items":[{"metadata":{"name":"a"}}]})";
const char *const kHostileCount = R"({"metadata":"lots","items":7})";

class TestWatcherTranscripts : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    // --- streaming lists (WatchList) -------------------------------------------------------------

    void aRecordedStreamingListOfARealServerResumesFromItsBookmark()
    {
        // What the recording holds, read from it: every ADDED object, the bookmark that ends
        // the initial state, and the change the watch after it saw.
        std::map<std::string, std::string> added; // uid -> rv
        std::string bookmark, changedUid, changedRv;
        for (const auto &piece :
             TranscriptReply::fromFile(QStringLiteral("watch/watchlist-1.37-initial.http")).pieces) {
            core::Json e = core::parseJson(piece.bytes).value();
            core::Json &meta = e["object"]["metadata"];
            if (e["type"] == "ADDED")
                added[meta["uid"].get<std::string>()] = meta["resourceVersion"].get<std::string>();
            else if (e["type"] == "BOOKMARK"
                     && meta.value("annotations", core::Json::object()).value("k8s.io/initial-events-end", "")
                            == "true")
                bookmark = meta["resourceVersion"].get<std::string>();
        }
        for (const auto &piece :
             TranscriptReply::fromFile(QStringLiteral("watch/watch-1.37-from-bookmark.http")).pieces) {
            const core::Json e = core::parseJson(piece.bytes).value();
            if (e["type"] == "MODIFIED") {
                changedUid = e["object"]["metadata"]["uid"].get<std::string>();
                changedRv = e["object"]["metadata"]["resourceVersion"].get<std::string>();
            }
        }
        QVERIFY(added.size() >= 3 && !bookmark.empty() && added.count(changedUid));

        Harness h;
        h.watchList().replyFile(QStringLiteral("watch/watchlist-1.37-initial.http"));
        h.watchFrom(bookmark).replyFile(QStringLiteral("watch/watch-1.37-from-bookmark.http"));
        h.watchFrom(changedRv).replyFile(QStringLiteral("watch/watch-hang.http"));
        h.start(fastOptions(true));
        QTRY_VERIFY_WITH_TIMEOUT(h.delivered(changedUid, changedRv), 10'000);
        QTRY_COMPARE_WITH_TIMEOUT(int(h.watches().size()), 3, 10'000);
        QCOMPARE(h.lists(), 0);
        QCOMPARE(h.completedInitialLists(), 1);
        for (const auto &[uid, rv] : added)
            QVERIFY2(h.delivered(uid, rv), uid.c_str());
        QCOMPARE(int(h.watcher->store().size()), int(added.size()));
        QVERIFY(h.watcher->lastListStreamed());
        // The server ended each stream at its timeout: the watcher resumed from the last RV it saw.
        const auto watches = h.watches();
        QCOMPARE(str(watches[1].queryValue("resourceVersion")), QString::fromStdString(bookmark));
        QCOMPARE(str(watches[2].queryValue("resourceVersion")), QString::fromStdString(changedRv));
        QVERIFY(h.gaps().empty());
        QVERIFY(h.server.unmatched().empty());
    }

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

    void aStreamingListIsGivenTheServersCountForItsProgress_data()
    {
        QTest::addColumn<QString>("countAnswer");
        QTest::addColumn<qint64>("expected");
        QTest::newRow("remainingItemCount") << QString::fromLatin1(kCountOfTwo) << qint64(2);
        QTest::newRow("one page, no count") << QString::fromLatin1(kWholeList) << qint64(2);
        QTest::newRow("a selector: no count") << QString::fromLatin1(kNoCount) << qint64(-1);
        QTest::newRow("metadata not an object") << QString::fromLatin1(kHostileCount) << qint64(-1);
        QTest::newRow("not JSON") << QStringLiteral("<html>") << qint64(-1);
    }
    void aStreamingListIsGivenTheServersCountForItsProgress()
    {
        QFETCH(QString, countAnswer);
        QFETCH(qint64, expected);
        Harness h;
        // The initial events end only once the count has surely arrived.
        auto initial = TranscriptReply::fromFile(QStringLiteral("watch/watchlist-1.34-initial.http"));
        for (auto &piece : initial.pieces)
            if (piece.bytes.find("initial-events-end") != std::string::npos)
                piece.delayMs = 500;
        h.watchList().reply(initial);
        h.watchFrom("10245").replyFile(QStringLiteral("watch/watch-1.34-from-10245.http"));
        h.list().query("limit", "1").reply(TranscriptReply::json(200, countAnswer.toStdString()));
        auto o = fastOptions(true);
        o.estimateStreamingLists = true;
        h.start(o);
        QTRY_VERIFY_WITH_TIMEOUT(h.delivered(kUidA, "10300"), 10'000);

        // One metadata-only read of one object, beside the stream.
        const auto counts = h.server.requests();
        const auto count = std::find_if(counts.begin(), counts.end(), [](const RecordedRequest &r) {
            return r.queryValue("limit") == std::optional<std::string>("1");
        });
        QVERIFY(count != counts.end());
        QVERIFY(count->header("Accept").value_or("").find("as=PartialObjectMetadataList") != std::string::npos);
        QCOMPARE(h.lists(), 1);
        qint64 total = -1;
        for (const auto &[loaded, remaining] : h.progress)
            if (remaining >= 0)
                total = std::max(total, loaded + remaining);
        QCOMPARE(total, expected);
        QCOMPARE(h.completedInitialLists(), 1);
        QVERIFY(h.errors.isEmpty());
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
        QCOMPARE(QString::fromStdString(std::string(h.watcher->store().find(kUidA)->resourceVersion())),
                 QStringLiteral("4730"));
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
