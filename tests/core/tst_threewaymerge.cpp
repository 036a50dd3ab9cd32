// core::threeWayMerge: a stale edit merged onto what is there now.
#include "core/diff/threewaymerge.h"

#include <QTest>

using namespace fieldscope::core;

namespace {
Json j(const char *text)
{
    return *parseJson(text);
}
} // namespace

class TestThreeWayMerge : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void changesThatDoNotOverlapMergeByThemselves()
    {
        const Json base = j("{\"data\":{\"a\":\"1\",\"b\":\"1\",\"gone\":\"x\"}}");
        const Json mine =
            j("{\"data\":{\"a\":\"2\",\"b\":\"1\",\"mine\":\"new\"}}"); // a changed, gone removed, mine added
        const Json theirs =
            j("{\"data\":{\"a\":\"1\",\"b\":\"3\",\"gone\":\"x\",\"their\":\"t\"}}"); // b changed, their added
        auto m = threeWayMerge(base, mine, theirs);
        QVERIFY(m.ok());
        QVERIFY(m->conflicts.empty());
        QVERIFY(jsonEqual(m->merged, j("{\"data\":{\"a\":\"2\",\"b\":\"3\",\"their\":\"t\",\"mine\":\"new\"}}")));
        QCOMPARE(m->mineApplied, 3);
    }

    void aFieldBothChangedDifferentlyIsAConflictResolvedOneByOne()
    {
        const Json base = j("{\"data\":{\"foo\":\"1\",\"bar\":\"1\"},\"list\":[1,2]}");
        const Json mine = j("{\"data\":{\"foo\":\"2\",\"bar\":\"9\"},\"list\":[1,2,3]}");
        const Json theirs = j("{\"data\":{\"foo\":\"3\",\"bar\":\"9\"},\"list\":[0]}");
        auto m = threeWayMerge(base, mine, theirs);
        QVERIFY(m.ok());
        QCOMPARE(m->conflicts.size(), std::size_t(2)); // foo, and the list as one value; bar agrees
        QCOMPARE(m->conflicts[0].pointer, std::string("/data/foo"));
        QCOMPARE(m->conflicts[0].mine->get<std::string>(), std::string("2"));
        QCOMPARE(m->conflicts[0].theirs->get<std::string>(), std::string("3"));
        QCOMPARE(m->conflicts[1].pointer, std::string("/list"));
        QCOMPARE(m->merged["data"]["foo"].get<std::string>(), std::string("3")); // theirs until chosen
        const Json chosen = resolveMerge(*m, {{"/data/foo", MergeChoice::Mine}});
        QCOMPARE(chosen["data"]["foo"].get<std::string>(), std::string("2"));
        QVERIFY(jsonEqual(chosen["list"], j("[0]")));
    }

    void aFieldRemovedOnOneSideAndChangedOnTheOtherIsAConflict()
    {
        const Json base = j("{\"a\":\"1\"}"), mine = j("{}"), theirs = j("{\"a\":\"2\"}");
        auto m = threeWayMerge(base, mine, theirs);
        QVERIFY(m.ok());
        QCOMPARE(m->conflicts.size(), std::size_t(1));
        QVERIFY(!m->conflicts[0].mine.has_value());
        const Json removed = resolveMerge(*m, {{"/a", MergeChoice::Mine}});
        QVERIFY(!removed.contains("a"));
    }

    void keysWithSlashesAndTildesKeepTheirPointers()
    {
        const Json base = j("{\"metadata\":{\"labels\":{\"app.kubernetes.io/name\":\"a\",\"x~y\":\"1\"}}}");
        const Json mine = j("{\"metadata\":{\"labels\":{\"app.kubernetes.io/name\":\"b\",\"x~y\":\"1\"}}}");
        const Json theirs = j("{\"metadata\":{\"labels\":{\"app.kubernetes.io/name\":\"c\",\"x~y\":\"1\"}}}");
        auto m = threeWayMerge(base, mine, theirs);
        QVERIFY(m.ok());
        QCOMPARE(m->conflicts.at(0).pointer, std::string("/metadata/labels/app.kubernetes.io~1name"));
        QCOMPARE(resolveMerge(*m, {{m->conflicts[0].pointer,
                                    MergeChoice::Mine}})["metadata"]["labels"]["app.kubernetes.io/name"]
                     .get<std::string>(),
                 std::string("b"));
    }
};

QTEST_GUILESS_MAIN(TestThreeWayMerge)
#include "tst_threewaymerge.moc"
