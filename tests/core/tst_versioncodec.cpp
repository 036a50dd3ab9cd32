// The history delta codec: deltas computed on documents and on the server's texts (JsonIndex)
// round-trip exactly, the index accepts exactly what parseJson accepts, and against hostile
// depth a delta read from disk cannot build a document deeper than every walker accepts, while
// deltas of deep documents do not walk past the limit.
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
    void deltaRoundTripsExactly_data()
    {
        QTest::addColumn<QString>("from");
        QTest::addColumn<QString>("to");
        QTest::newRow("scalar") << R"({"a":1,"b":"x"})"
                                << R"({"a":2,"b":"x"})";
        QTest::newRow("int becomes float") << R"({"a":80})"
                                           << R"({"a":80.0})";
        QTest::newRow("literal null kept") << R"({"a":1})"
                                           << R"({"a":null})";
        QTest::newRow("member removed") << R"({"a":1,"b":2,"c":3})"
                                        << R"({"a":1,"c":3})";
        QTest::newRow("member inserted mid-object") << R"({"a":1,"c":3})"
                                                    << R"({"a":1,"b":2,"c":3})";
        QTest::newRow("array grows") << R"({"l":[1,2]})"
                                     << R"({"l":[1,2,3,4]})";
        QTest::newRow("array shrinks") << R"({"l":[1,2,3,4]})"
                                       << R"({"l":[1]})";
        QTest::newRow("type change") << R"({"l":[1]})"
                                     << R"({"l":{"x":[]}})";
        QTest::newRow("root replaced") << R"([1])"
                                       << R"({"a":1})";
        QTest::newRow("nested array of objects") << R"({"l":[{"n":"a","v":1},{"n":"b"}]})"
                                                 << R"({"l":[{"n":"a","v":2},{"n":"c","w":1}]})";
        QTest::newRow("keys reordered") << R"({"a":{"x":1,"y":2},"b":1})"
                                        << R"({"a":{"y":2,"x":1},"b":2})";
        QTest::newRow("same number, other spelling") << R"({"a":1.0,"b":[1e2]})"
                                                     << R"({"a":1.00,"b":[100.0]})";
        QTest::newRow("escaped keys and values") << R"({"a\/b":"\u00e9","c":"x"})"
                                                 << R"({"a/b":"é","c":"\ud83d\ude00","d\n":1})";
        QTest::newRow("whitespace around the server's bytes") << "{ \"a\" : [ 1 , {\"b\" : 2} ] ,\n \"c\":3 }"
                                                              << "{\"a\":[1,{\"b\":3}],\"c\":\t3}";
    }
    void deltaRoundTripsExactly()
    {
        QFETCH(QString, from);
        QFETCH(QString, to);
        Json a = parseJson(from.toStdString()).value();
        const Json b = parseJson(to.toStdString()).value();
        const Json delta = makeDelta(a, b);
        // The writer's path: the same format computed on the texts, values as the server's bytes.
        JsonIndex ia, ib;
        QCOMPARE(ia.build(from.toStdString()), JsonIndex::Status::Ok);
        QCOMPARE(ib.build(to.toStdString()), JsonIndex::Status::Ok);
        std::string textDelta;
        QVERIFY(makeDeltaText(ia, ib, 1 << 20, textDelta));
        Json viaText = a;
        QVERIFY(applyDelta(viaText, parseJson(textDelta).value()).ok());
        QVERIFY(applyDelta(a, delta).ok());
        QCOMPARE(QString::fromStdString(toJsonText(a)), QString::fromStdString(toJsonText(b)));
        QCOMPARE(QString::fromStdString(toJsonText(viaText)), QString::fromStdString(toJsonText(b)));
    }

    void deltaTextIsTheDeltaOfTheDocuments()
    {
        // Compact text without escapes: byte for byte what the DOM-based makeDelta writes.
        const std::string from = R"({"m":{"a":1,"b":[1,2,3]},"s":{"c":[{"t":"x"}],"r":2},"z":null})";
        const std::string to = R"({"m":{"b":[1,3],"n":"y"},"s":{"c":[{"t":"y","u":false}],"r":2},"z":0})";
        JsonIndex ia, ib;
        QCOMPARE(ia.build(from), JsonIndex::Status::Ok);
        QCOMPARE(ib.build(to), JsonIndex::Status::Ok);
        std::string textDelta;
        QVERIFY(makeDeltaText(ia, ib, 1 << 20, textDelta));
        QCOMPARE(textDelta, toJsonText(makeDelta(parseJson(from).value(), parseJson(to).value())));
        // Over the size limit: no delta (the store writes a snapshot).
        QVERIFY(!makeDeltaText(ia, ib, textDelta.size() - 1, textDelta));
    }

    // The index must never accept text parseJson refuses (the snapshot would not decode), and says
    // Unsupported for what it does not model so the store falls back to parseJson.
    void jsonIndexAcceptsExactlyWhatParseJsonAccepts_data()
    {
        QTest::addColumn<QByteArray>("text");
        QTest::addColumn<int>("expected"); // JsonIndex::Status
        const int ok = int(JsonIndex::Status::Ok), bad = int(JsonIndex::Status::Invalid),
                  unsupported = int(JsonIndex::Status::Unsupported);
        QTest::newRow("object") << QByteArray(R"({"a":[1,-2,3.5e-3,true,false,null,"x"],"b":{}})") << ok;
        QTest::newRow("scalar root with whitespace") << QByteArray(" \t\r\n 12 \n") << ok;
        QTest::newRow("integer beyond 64 bits") << QByteArray("[123456789012345678901234567890]") << ok;
        QTest::newRow("escapes and surrogate pair")
            << QByteArray("[\"\\\"\\\\\\/\\b\\f\\n\\r\\t\\u00e9\\ud83d\\ude00\"]") << ok;
        QTest::newRow("utf-8 2, 3 and 4 bytes") << QByteArray("[\"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\"]") << ok;
        QTest::newRow("nesting 150 deep") << QByteArray(150, '[') + QByteArray(150, ']') << ok;
        QTest::newRow("empty text") << QByteArray("") << bad;
        QTest::newRow("trailing garbage") << QByteArray(R"({"a":1}x)") << bad;
        QTest::newRow("trailing comma") << QByteArray(R"({"a":1,})") << bad;
        QTest::newRow("leading zero") << QByteArray("[01]") << bad;
        QTest::newRow("bare minus") << QByteArray("[-]") << bad;
        QTest::newRow("dot without digits") << QByteArray("[1.]") << bad;
        QTest::newRow("exponent without digits") << QByteArray("[1e+]") << bad;
        QTest::newRow("control character in string") << QByteArray("[\"a\x01\"]") << bad;
        QTest::newRow("unknown escape") << QByteArray(R"(["\x41"])") << bad;
        QTest::newRow("short unicode escape") << QByteArray(R"(["\u12"])") << bad;
        QTest::newRow("lone low surrogate") << QByteArray(R"(["\udc00"])") << bad;
        QTest::newRow("high surrogate alone") << QByteArray(R"(["\ud800x"])") << bad;
        QTest::newRow("overlong utf-8") << QByteArray("[\"\xc0\x80\"]") << bad;
        QTest::newRow("utf-8 surrogate") << QByteArray("[\"\xed\xa0\x80\"]") << bad;
        QTest::newRow("utf-8 beyond U+10FFFF") << QByteArray("[\"\xf4\x90\x80\x80\"]") << bad;
        QTest::newRow("truncated utf-8") << QByteArray("[\"\xe2\x82\"]") << bad;
        QTest::newRow("unterminated string") << QByteArray("{\"a\":\"x") << bad;
        QTest::newRow("single quotes") << QByteArray("{'a':1}") << bad;
        QTest::newRow("bad literal") << QByteArray("[tru]") << bad;
        QTest::newRow("number overflow") << QByteArray("[1e400]") << unsupported;
        QTest::newRow("number underflow") << QByteArray("[1e-400]") << unsupported;
        QTest::newRow("duplicate key") << QByteArray(R"({"a":1,"b":2,"a":3})") << unsupported;
        QTest::newRow("duplicate key, one escaped") << QByteArray(R"({"a":1,"\u0061":3})") << unsupported;
        QTest::newRow("byte order mark") << QByteArray("\xef\xbb\xbf{}") << unsupported;
        QTest::newRow("nesting 250 deep") << QByteArray(250, '[') + QByteArray(250, ']') << unsupported;
    }
    void jsonIndexAcceptsExactlyWhatParseJsonAccepts()
    {
        QFETCH(QByteArray, text);
        QFETCH(int, expected);
        const std::string s = text.toStdString();
        JsonIndex ix;
        QCOMPARE(int(ix.build(s)), expected);
        if (expected == int(JsonIndex::Status::Ok))
            QVERIFY(parseJson(s).ok());
        if (expected == int(JsonIndex::Status::Invalid))
            QVERIFY(!parseJson(s).ok());
    }

    // The indexer skips plain string bytes eight at a time: a quote, an escape, a control byte or
    // a multi-byte sequence must be found at every position of the word, and the decoded text
    // must be parseJson's.
    void jsonIndexFindsEverySpecialByteAtEveryOffset()
    {
        const std::vector<std::pair<std::string, bool>> specials = {
            {"\\\"", true},  {"\\\\", true},  {"\\u00e9", true}, {"\xc3\xa9", true},
            {"\x1f", false}, {"\xff", false}, {"\x7f", true},    {"\"", false}};
        for (std::size_t offset = 0; offset < 18; ++offset)
            for (const auto &[special, accepted] : specials) {
                // A bare quote ends the string early: the text after it is then invalid.
                const std::string text = "[\"" + std::string(offset, 'a') + special + std::string(9, 'b') + "\"]";
                JsonIndex ix;
                const auto status = ix.build(text);
                auto parsed = parseJson(text);
                QCOMPARE(status == JsonIndex::Status::Ok, accepted);
                QCOMPARE(parsed.ok(), accepted);
                if (accepted)
                    QCOMPARE(ix.stringAt(1), (*parsed)[0].get<std::string>());
            }
    }

    // Keys with escapes (managedFields' "k:{\"type\":\"Ready\"}") are decoded for key() and
    // member(); plain keys are read in place.
    void jsonIndexDecodesEscapedKeys()
    {
        // Not a raw string: moc's lexer loses the class after this one.
        const std::string text = "{\"plain\":1,\"k:{\\\"type\\\":\\\"Ready\\\"}\":2,"
                                 "\"tab\\there\\\\\":3,\"\\u00e9t\\u00e9\":4}";
        JsonIndex ix;
        QCOMPARE(ix.build(text), JsonIndex::Status::Ok);
        const Json doc = parseJson(text).value();
        std::vector<std::string> keys;
        for (std::uint32_t c = 1; c < ix.nodes()[0].next; c = ix.nodes()[c].next)
            keys.emplace_back(ix.key(c));
        std::vector<std::string> expected;
        for (auto it = doc.begin(); it != doc.end(); ++it)
            expected.push_back(it.key());
        QCOMPARE(keys, expected);
        QCOMPARE(keys[1], std::string("k:{\"type\":\"Ready\"}"));
        QVERIFY(ix.member(0, "tab\there\\") > 0);
        QCOMPARE(ix.member(0, "missing"), std::int64_t(-1));
    }

    void deltaThatDoesNotFitIsAnError()
    {
        Json doc = parseJson(R"({"a":1})").value();
        auto st = applyDelta(doc, parseJson(R"([[["x","y"],1]])").value());
        QVERIFY(!st.ok());
        QCOMPARE(st.error().category, ErrorCategory::Parse);
    }

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
