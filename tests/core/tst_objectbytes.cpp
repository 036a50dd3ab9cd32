// ObjectBytes: an object's identity strings as views into its JSON, and copies where the JSON
// does not hold them verbatim (escapes from an odd server, values the bytes do not contain).
#include "core/objects/objectbytes.h"

#include <QTest>

using fieldscope::core::ObjectBytes;

namespace {
QByteArray pod(const char *ns)
{
    return QByteArray(R"({"kind":"Pod","apiVersion":"v1","metadata":{"name":"web-7d9f8","namespace":")") + ns
         + R"(","uid":"0f9a1c2e-5b6d-4e7f-8a9b-0c1d2e3f4a5b","resourceVersion":"4711","ownerReferences":)"
           R"([{"kind":"ReplicaSet","name":"web","uid":"aaaa-bbbb"}]},"spec":{"nodeName":"web-7d9f8"}})";
}
} // namespace

class TestObjectBytes : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void identityStringsAreViewsIntoTheJson()
    {
        const QByteArray json = pod("shop");
        const ObjectBytes o(json, "0f9a1c2e-5b6d-4e7f-8a9b-0c1d2e3f4a5b", "shop", "web-7d9f8", "4711");
        QCOMPARE(o.uid(), std::string_view("0f9a1c2e-5b6d-4e7f-8a9b-0c1d2e3f4a5b"));
        QCOMPARE(o.namespace_(), std::string_view("shop"));
        QCOMPARE(o.name(), std::string_view("web-7d9f8"));
        QCOMPARE(o.resourceVersion(), std::string_view("4711"));
        QVERIFY(!o.holdsCopies());
        const char *begin = o.json().constData();
        for (const std::string_view v : {o.uid(), o.namespace_(), o.name(), o.resourceVersion()})
            QVERIFY(v.data() >= begin && v.data() + v.size() <= begin + o.json().size());
        QCOMPARE(o.json(), json);                          // the same bytes, shared
        QVERIFY(o.json().constData() == json.constData()); // not a copy
    }

    // A value that occurs only inside a longer string, or escaped, is not taken from the bytes.
    void valuesNotQuotedVerbatimAreCopied()
    {
        // "web" occurs in the JSON, but only as part of "web-7d9f8" or as the owner's name: the
        // owner's quoted "web" is a correct view too (the same bytes). "7d9f8" is never quoted.
        const ObjectBytes partial(pod("shop"), "aaaa-bbbb", "", "7d9f8", "47");
        QCOMPARE(partial.uid(), std::string_view("aaaa-bbbb"));
        QCOMPARE(partial.namespace_(), std::string_view());
        QCOMPARE(partial.name(), std::string_view("7d9f8"));
        QCOMPARE(partial.resourceVersion(), std::string_view("47"));
        QVERIFY(partial.holdsCopies());
        // An escaped namespace: the JSON holds "sh\u006fp", the decoded value is "shop".
        const ObjectBytes escaped(pod("sh\\u006fp"), "0f9a1c2e-5b6d-4e7f-8a9b-0c1d2e3f4a5b", "shop", "web-7d9f8",
                                  "4711");
        QCOMPARE(escaped.namespace_(), std::string_view("shop"));
        QCOMPARE(escaped.name(), std::string_view("web-7d9f8"));
        QVERIFY(escaped.holdsCopies());
        // Copies survive the object's copies and the source's end.
        ObjectBytes kept;
        {
            const ObjectBytes temporary(QByteArray("{}"), "u", "n", "x", "1");
            kept = temporary;
        }
        QCOMPARE(kept.uid(), std::string_view("u"));
        QCOMPARE(kept.resourceVersion(), std::string_view("1"));
        // Moved from, an object reads as empty rather than into bytes it no longer has.
        ObjectBytes moved(pod("shop"), "0f9a1c2e-5b6d-4e7f-8a9b-0c1d2e3f4a5b", "shop", "web-7d9f8", "4711");
        const ObjectBytes target(std::move(moved));
        QCOMPARE(target.name(), std::string_view("web-7d9f8"));
        QVERIFY(moved.name().empty() && moved.uid().empty()); // NOLINT(bugprone-use-after-move): the point
    }

    void valuesAtTheEdgesOfTheBytesAreFoundOrCopiedSafely()
    {
        const ObjectBytes edge(QByteArray(R"("u")"), "u", "", "\"", "");
        QCOMPARE(edge.uid(), std::string_view("u"));
        QCOMPARE(edge.name(), std::string_view("\""));
        const ObjectBytes empty(QByteArray(), "uid", "", "", "");
        QCOMPARE(empty.uid(), std::string_view("uid"));
        QVERIFY(empty.name().empty());
        // A value longer than a view's 16-bit length is held as a copy (a hostile server's name).
        const std::string longName(70000, 'n');
        const ObjectBytes longOne(QByteArray::fromStdString("{\"name\":\"" + longName + "\"}"), "u", "", longName, "");
        QCOMPARE(longOne.name().size(), longName.size());
        QVERIFY(longOne.name() == longName);
        QVERIFY(longOne.holdsCopies());
        const ObjectBytes none;
        QVERIFY(none.uid().empty() && none.json().isEmpty());
    }
};

QTEST_GUILESS_MAIN(TestObjectBytes)
#include "tst_objectbytes.moc"
