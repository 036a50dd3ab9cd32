// The hot-path decoder of LIST pages and WATCH lines (simdjson), on bytes shaped like the
// real server's (recorded from kube-apiserver 1.20 and a 1.30 transcript for streaming lists).
#include "kube/listdecoder.h"
#include "kube/parserpool.h"

#include <QTest>

using namespace fieldscope;
using namespace fieldscope::kube;

namespace {
const char *kPage =
    R"({"kind":"ConfigMapList","apiVersion":"v1","metadata":{"resourceVersion":"4711","continue":"eyJ2Ijoi","remainingItemCount":12},"items":[)"
    R"({"metadata":{"name":"a","namespace":"default","uid":"u-a","resourceVersion":"100","creationTimestamp":"2026-11-21T10:00:00Z",)"
    R"("managedFields":[{"manager":"kubectl-create","operation":"Update","apiVersion":"v1","time":"2026-11-21T10:00:00Z","fieldsType":"FieldsV1","fieldsV1":{"f:data":{".":{},"f:k":{}}}},)"
    R"({"manager":"kubectl","operation":"Apply","apiVersion":"v1","time":"2026-11-21T10:05:00Z","fieldsType":"FieldsV1","fieldsV1":{"f:data":{"f:k":{}}}}]},"data":{"k":"v"}},)"
    R"({"metadata":{"name":"b","namespace":"kube-system","uid":"u-b","resourceVersion":"101"}}]})";
// Pretty-printed, with a CR item that names its kind after its metadata.
const char *kPrettyCrPage = "{\n  \"metadata\": {\"resourceVersion\": \"7\"},\n  \"items\": [\n"
                            "    {\"metadata\": {\"name\": \"w\", \"uid\": \"u-w\", \"resourceVersion\": \"5\"},"
                            " \"kind\": \"Widget\", \"spec\": {\"size\": [1, {\"deep\": \"}\"}]}}\n  ]\n}";
const char *kPrettyCrItemStart = "{\"metadata\": {\"name\": \"w\"";
const char *kPrettyCrItemEnd = "{\"deep\": \"}\"}]}}";
const char *kBadUidPage = R"({"metadata":{"resourceVersion":"7"},"items":[{"metadata":{"name":"a","uid":"u-a"}},)"
                          R"({"metadata":{"name":"b","uid":42}}]})";
const char *kLastPage = R"({"metadata":{"resourceVersion":"9","continue":""},"items":[]})";
const char *kEmptyMetadataPage = R"({"apiVersion":"v1","metadata":{},"kind":"PodList","items":null})";
// Braces, brackets and escaped quotes inside strings before metadata must not end it early.
const char *kTrickyHead =
    " {\"kind\" : \"A}\\\"]{\" , \"apiVersion\":\"v1\", \"extra\": [1, {\"a\": \"]\"}], \"n\": -1.5e3 ,"
    "\"metadata\": {\"continue\": \"tok\\u0065n\", \"resourceVersion\": null}, \"items\": [}";
// (Ordinary literals where braces do not pair up: moc does not read raw strings.)
const std::pair<const char *, const char *> kUnreadableHeads[] = {
    {"items before metadata", R"({"kind":"List","items":[],"metadata":{"continue":"x"}})"},
    {"metadata twice", R"({"metadata":{"continue":"x"},"metadata":{"continue":"y"},"items":[]})"},
    {"an escaped key", R"({"metad\u0061ta":{"continue":"x"},"items":[]})"},
    {"a continue token of the wrong type", R"({"metadata":{"continue":7},"items":[]})"},
    {"metadata that is no object", R"({"metadata":["continue","x"],"items":[]})"},
    {"no items", R"({"metadata":{"continue":"x"}})"},
    {"cut inside the head", "{\"metadata\":{\"continue\":\"x"},
    {"not an object", R"(["metadata",{"continue":"x"}])"},
    {"empty", ""},
    {"a key without a value", R"({"kind" "metadata":{"continue":"x"},"items":[]})"},
};
// A page of `items` ConfigMaps of ~300 bytes (kept out of the test class: moc does not read raw
// strings whose braces do not pair up).
std::string bigPage(int items)
{
    std::string page = R"({"metadata":{"resourceVersion":"1"},"items":[)";
    for (int i = 0; i < items; ++i) {
        page += (i ? "," : "") + std::string(R"({"metadata":{"name":"n)") + std::to_string(i) + R"(","uid":"u)"
              + std::to_string(i) + R"(","resourceVersion":"1"},"data":{"k":")" + std::string(200, 'x') + "\"}}";
    }
    return page + "]}";
}
} // namespace

class TestListDecoder : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void pageGivesItemsWithKindAndMetadata()
    {
        std::string body = kPage;
        auto page = decodeListPage(body, "ConfigMap", "v1");
        QVERIFY2(page.ok(), page.ok() ? "" : page.error().describe().c_str());
        QCOMPARE(QString::fromStdString(page->resourceVersion), QStringLiteral("4711"));
        QCOMPARE(QString::fromStdString(page->continueToken), QStringLiteral("eyJ2Ijoi"));
        QCOMPARE(page->remainingItemCount, 12);
        QCOMPARE(int(page->items.size()), 2);
        const auto &a = page->items[0];
        QCOMPARE(QString::fromStdString(a.uid), QStringLiteral("u-a"));
        QCOMPARE(QString::fromStdString(a.namespace_), QStringLiteral("default"));
        QCOMPARE(QString::fromStdString(a.resourceVersion), QStringLiteral("100"));
        QVERIFY(a.fromList);
        QVERIFY(a.json.startsWith(R"({"kind":"ConfigMap","apiVersion":"v1","metadata":)"));
        QVERIFY(a.json.endsWith(R"("data":{"k":"v"}})"));
        QCOMPARE(a.managerCount, 2);
        QCOMPARE(QString::fromStdString(a.lastManager), QStringLiteral("kubectl"));
        QCOMPARE(QString::fromStdString(a.lastManagerOperation), QStringLiteral("Apply"));
        QCOMPARE(QString::fromStdString(a.creationTimestamp), QStringLiteral("2026-11-21T10:00:00Z"));
        QCOMPARE(page->items[1].managerCount, 0);
    }

    void emptyListWithNullItemsIsFine()
    {
        std::string body = R"({"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"9"},"items":null})";
        auto page = decodeListPage(body, "Pod", "v1");
        QVERIFY(page.ok());
        QVERIFY(page->items.empty());
        QVERIFY(page->continueToken.empty());
    }

    void truncatedPageIsAParseError()
    {
        std::string body = std::string(kPage).substr(0, 200);
        auto page = decodeListPage(body, "ConfigMap", "v1");
        QVERIFY(!page.ok());
        QCOMPARE(page.error().category, core::ErrorCategory::Parse);
    }

    void itemsWithKindAfterMetadataOrSpacedOutKeepTheirBytes()
    {
        // A CR list item names its kind itself, here after metadata; a pretty-printed page.
        std::string body = kPrettyCrPage;
        auto page = decodeListPage(body, "Widget", "example.com/v1");
        QVERIFY2(page.ok(), page.ok() ? "" : page.error().describe().c_str());
        QCOMPARE(int(page->items.size()), 1);
        const auto &w = page->items[0];
        QCOMPARE(QString::fromStdString(w.uid), QStringLiteral("u-w"));
        // Not prefixed with a second kind; the object's own bytes, whole.
        QVERIFY(w.json.startsWith(kPrettyCrItemStart));
        QVERIFY(w.json.trimmed().endsWith(kPrettyCrItemEnd));
    }

    void aBadItemNamesItsIndexAndField()
    {
        std::string body = kBadUidPage;
        auto page = decodeListPage(body, "ConfigMap", "v1");
        QVERIFY(!page.ok());
        QCOMPARE(QString::fromStdString(page.error().where), QStringLiteral("items[1].metadata.uid"));
    }

    // --- the page head: what the next request needs, before the items decode -----------------

    void pageHeadIsReadWithoutTheItems()
    {
        const auto head = peekListHead(kPage);
        QVERIFY(head);
        QCOMPARE(QString::fromStdString(head->resourceVersion), QStringLiteral("4711"));
        QCOMPARE(QString::fromStdString(head->continueToken), QStringLiteral("eyJ2Ijoi"));
        QCOMPARE(head->remainingItemCount, 12);
        // The head alone decides: the items after it may be cut off or broken.
        const std::string cut = std::string(kPage).substr(0, std::string(kPage).find("\"items\"") + 12);
        QVERIFY(peekListHead(cut));
    }

    void pageHeadThatCannotBeReadLeavesItToTheFullDecode_data()
    {
        QTest::addColumn<QString>("body");
        for (const auto &[name, body] : kUnreadableHeads)
            QTest::newRow(name) << QString::fromUtf8(body);
    }
    void pageHeadThatCannotBeReadLeavesItToTheFullDecode()
    {
        QFETCH(QString, body);
        QVERIFY(!peekListHead(body.toStdString()));
    }

    void pageHeadSkipsWhatComesBeforeMetadataExactly()
    {
        // Braces, brackets and escaped quotes inside strings before metadata do not end it early.
        const std::string body = kTrickyHead;
        const auto head = peekListHead(body);
        QVERIFY(head);
        QCOMPARE(QString::fromStdString(head->continueToken), QStringLiteral("token")); // unescaped as the decoder does
        QVERIFY(head->resourceVersion.empty());
    }

    void pageHeadAgreesWithTheFullDecode()
    {
        for (const std::string &original :
             {std::string(kPage), std::string(kLastPage), std::string(kEmptyMetadataPage)}) {
            std::string body = original;
            const auto head = peekListHead(body);
            auto page = decodeListPage(body, "ConfigMap", "v1");
            QVERIFY(head && page.ok());
            QCOMPARE(head->continueToken, page->continueToken);
            QCOMPARE(head->resourceVersion, page->resourceVersion);
            QCOMPARE(head->remainingItemCount, page->remainingItemCount);
        }
    }

    void watchLinesDecodeEveryType_data()
    {
        QTest::addColumn<QString>("line");
        QTest::addColumn<int>("type");
        QTest::addColumn<QString>("rv");
        QTest::newRow("added")
            << R"({"type":"ADDED","object":{"kind":"Pod","apiVersion":"v1","metadata":{"name":"a","uid":"u","resourceVersion":"10596"}}})"
            << int(WatchLineType::Added) << "10596";
        QTest::newRow("modified")
            << R"({"type":"MODIFIED","object":{"kind":"Pod","apiVersion":"v1","metadata":{"name":"a","uid":"u","resourceVersion":"11020"}}})"
            << int(WatchLineType::Modified) << "11020";
        QTest::newRow("deleted")
            << R"({"type":"DELETED","object":{"kind":"Pod","apiVersion":"v1","metadata":{"name":"a","uid":"u","resourceVersion":"12801"}}})"
            << int(WatchLineType::Deleted) << "12801";
        QTest::newRow("bookmark")
            << R"({"type":"BOOKMARK","object":{"kind":"Pod","apiVersion":"v1","metadata":{"resourceVersion":"12746"}}})"
            << int(WatchLineType::Bookmark) << "12746";
    }
    void watchLinesDecodeEveryType()
    {
        QFETCH(QString, line);
        QFETCH(int, type);
        QFETCH(QString, rv);
        auto d = decodeWatchLine(line.toStdString());
        QVERIFY(d.ok());
        QCOMPARE(int(d->type), type);
        QCOMPARE(QString::fromStdString(d->resourceVersion), rv);
        if (d->type != WatchLineType::Bookmark)
            QVERIFY(d->object.json.startsWith("{\"kind\":\"Pod\""));
    }

    void initialEventsEndBookmarkIsRecognised()
    {
        // From a 1.30 server with WatchList on (the initial-events-end bookmark of a streaming list).
        auto d = decodeWatchLine(
            R"({"type":"BOOKMARK","object":{"kind":"Pod","apiVersion":"v1","metadata":{"resourceVersion":"10245","annotations":{"k8s.io/initial-events-end":"true"}}}})");
        QVERIFY(d.ok());
        QVERIFY(d->initialEventsEnd);
    }

    void errorEventCarriesStatusCode()
    {
        auto d = decodeWatchLine(
            R"j({"type":"ERROR","object":{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"too old resource version: 1000 (5000)","reason":"Expired","code":410}})j");
        QVERIFY(d.ok());
        QCOMPARE(int(d->type), int(WatchLineType::Error));
        QCOMPARE(d->error.httpStatus, 410);
        QCOMPARE(d->error.category, core::ErrorCategory::Gone);
    }

    // A parser keeps buffers for the largest page it read; the window frees them once a list is
    // absorbed (app::ClusterController), so the decoders must not hold them in thread_locals.
    void parsersSizedByABigPageAreGivenBackOnRelease()
    {
        releaseIdleParsers();
        const int items = 4000;
        std::string big = bigPage(items);
        const std::size_t pageBytes = big.size();
        auto page = decodeListPage(big, "ConfigMap", "v1");
        QVERIFY(page.ok());
        QCOMPARE(int(page->items.size()), items);
        QVERIFY2(parserPoolStats().idleCapacity >= pageBytes,
                 qPrintable(QStringLiteral("%1 idle capacity for a page of %2")
                                .arg(parserPoolStats().idleCapacity)
                                .arg(pageBytes)));
        QVERIFY(releaseIdleParsers() >= pageBytes);
        QCOMPARE(parserPoolStats().idle, std::size_t(0));
        QCOMPARE(parserPoolStats().idleCapacity, std::size_t(0));
        // The next page after a release gets a fresh parser and decodes the same.
        std::string again = kPage;
        auto next = decodeListPage(again, "ConfigMap", "v1");
        QVERIFY(next.ok());
        QCOMPARE(int(next->items.size()), 2);
        QCOMPARE(QString::fromStdString(next->items[1].uid), QStringLiteral("u-b"));
        QVERIFY(parserPoolStats().idleCapacity < pageBytes);
    }

    void splitLinesKeepsPartialFramesAcrossChunks()
    {
        std::string buffer;
        std::vector<std::string> lines;
        splitLines(buffer, "{\"a\":1}\n{\"b\"", lines);
        QCOMPARE(int(lines.size()), 1);
        splitLines(buffer, ":2}\n\n{\"c\":3", lines);
        QCOMPARE(int(lines.size()), 2);
        QCOMPARE(QString::fromStdString(lines[1]), QStringLiteral("{\"b\":2}"));
        QCOMPARE(QString::fromStdString(buffer), QStringLiteral("{\"c\":3"));
    }
};

QTEST_GUILESS_MAIN(TestListDecoder)
#include "tst_listdecoder.moc"
