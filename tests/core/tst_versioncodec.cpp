// The history delta codec against hostile depth: a delta read from disk cannot build a document
// deeper than every walker accepts, and deltas of deep documents do not walk past the limit.
#include "core/history/versioncodec.h"

#include <QTest>

using namespace fieldscope::core;

namespace {

Json chain(int depth, int leaf) // {"a":{"a":...{"v":leaf}}}, `depth` objects deep
{
    Json v = Json::object();
    v["v"] = leaf;
    for (int i = 1; i < depth; ++i) {
        Json outer = Json::object();
        outer["a"] = std::move(v);
        v = std::move(outer);
    }
    return v;
}

Json pathOf(int length) // ["a","a",...] of `length` tokens
{
    Json p = Json::array();
    for (int i = 0; i < length; ++i)
        p.push_back("a");
    return p;
}

} // namespace

class TestVersionCodec : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void aDeltaCannotBuildADocumentPastTheDepthLimit()
    {
        // Each set may only go as deep as the limit: path length + depth of the value set.
        Json doc = chain(10, 1);
        Json fits = Json::array({Json::array({pathOf(9), chain(kMaxJsonDepth - 9, 2)})});
        QVERIFY(applyDelta(doc, fits).ok());
        QCOMPARE(jsonDepth(doc), std::size_t(kMaxJsonDepth));
        Json doc2 = chain(10, 1);
        Json tooDeep = Json::array({Json::array({pathOf(9), chain(kMaxJsonDepth - 8, 2)})});
        auto st = applyDelta(doc2, tooDeep);
        QVERIFY(!st.ok());
        QCOMPARE(st.error().category, ErrorCategory::Parse);
        QVERIFY2(QString::fromStdString(st.error().message).contains(QLatin1String("deeper than 512")),
                 st.error().message.c_str());
        QCOMPARE(st.error().where, std::string("op 0"));
    }

    void deltasOfDeepDocumentsRoundTrip()
    {
        // At the limit the delta is one op at the changed leaf; past it, the subtree below the
        // limit is replaced whole. Both reproduce the new document exactly.
        for (int depth : {kMaxJsonDepth, kMaxJsonDepth + 1, kMaxJsonDepth + 40}) {
            const Json from = chain(depth, 1), to = chain(depth, 2);
            const Json delta = makeDelta(from, to);
            QCOMPARE(delta.size(), std::size_t(1));
            const std::size_t pathLength = delta[0][0].size();
            QCOMPARE(pathLength, std::size_t(depth <= kMaxJsonDepth ? depth : kMaxJsonDepth));
            Json doc = from;
            if (depth <= kMaxJsonDepth) {
                QVERIFY(applyDelta(doc, delta).ok());
                QVERIFY(doc == to);
            }
        }
    }
};

QTEST_GUILESS_MAIN(TestVersionCodec)
#include "tst_versioncodec.moc"
