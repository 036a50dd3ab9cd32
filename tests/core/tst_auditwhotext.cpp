// The store's text of who made a version (appendAuditWhoJsonText, auditWhosJsonText in
// core/history/historywho.h) against what it replaced, safeDump of the auditWhoJson DOM: byte for
// byte on hostile values (escapes, every control character, unicode, invalid UTF-8 the dump
// replaces with U+FFFD, the int extremes, empty strings and lists) and on random bytes. Rows
// written before and after the change must compare equal (the upsert skips unchanged rows).
#include "core/base/jsonread.h"
#include "core/history/historywho.h"

#include <QTest>

#include <limits>
#include <random>

using namespace fieldscope::core;

namespace {

std::string dumped(const std::vector<AuditWho> &whos)
{
    Json candidates = Json::array();
    for (const auto &w : whos)
        candidates.push_back(auditWhoJson(w));
    return safeDump(candidates);
}

AuditWho filled(const std::string &s)
{
    AuditWho w;
    w.user = {s, s, {s, "dev"}};
    w.hasImpersonatedUser = true;
    w.impersonatedUser = {s, "", {s}};
    w.userAgent = s;
    w.sourceIPs = {s};
    w.verb = s;
    w.requestURI = s;
    w.fieldManager = s;
    w.auditID = s;
    w.requestReceivedTimestamp = s;
    w.stageTimestamp = s;
    w.responseCode = 200;
    return w;
}

std::string allControlCharacters()
{
    std::string s;
    for (int c = 0; c < 0x20; ++c)
        s += char(c);
    return s + char(0x7f);
}

std::string randomBytes(std::mt19937 &rng)
{
    // Mostly ASCII with escapes, sometimes any byte: both of appendJsonString's paths.
    std::uniform_int_distribution<int> length(0, 24), byte(0, 255), ascii(0, 127), anyByte(0, 3);
    std::string s(std::size_t(length(rng)), '\0');
    const bool wide = anyByte(rng) == 0;
    for (char &c : s)
        c = char(wide ? byte(rng) : ascii(rng));
    return s;
}

} // namespace

class TestAuditWhoText : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void textIsTheDumpOfTheDom_data()
    {
        QTest::addColumn<std::string>("value");
        QTest::newRow("empty") << std::string();
        QTest::newRow("plain") << std::string("system:serviceaccount:team:deployer");
        QTest::newRow("quote and backslash") << std::string("a\"b\\c\\\\\"");
        QTest::newRow("escapes with names") << std::string("\b\t\n\f\r");
        QTest::newRow("every control character and DEL") << allControlCharacters();
        QTest::newRow("NUL inside") << std::string("a\0b", 3);
        QTest::newRow("slash and markup") << std::string("/api/v1/</script>?x=1&y='2'");
        QTest::newRow("two-byte unicode") << std::string("J\xc3\xbcrgen");
        QTest::newRow("three-byte unicode") << std::string("\xe6\x97\xa5\xe6\x9c\xac");
        QTest::newRow("four-byte unicode") << std::string("\xf0\x9f\x98\x80 smile");
        QTest::newRow("U+2028 and U+FEFF") << std::string("\xe2\x80\xa8\xef\xbb\xbf");
        QTest::newRow("lone continuation byte") << std::string("a\x80z");
        QTest::newRow("truncated sequence inside") << std::string("a\xc3(b");
        QTest::newRow("truncated sequence at the end") << std::string("abc\xe2\x82");
        QTest::newRow("overlong slash") << std::string("\xc0\xaf");
        QTest::newRow("surrogate") << std::string("\xed\xa0\x80");
        QTest::newRow("past U+10FFFF") << std::string("\xf4\x90\x80\x80");
        QTest::newRow("0xFF and 0xFE") << std::string("\xff\xfe");
        QTest::newRow("invalid then escapes") << std::string("\x80\"\n\x01");
        QTest::newRow("huge") << std::string(100000, 'x') + "\"" + std::string(1000, '\x1f');
    }

    void textIsTheDumpOfTheDom()
    {
        QFETCH(std::string, value);
        const AuditWho w = filled(value);
        std::string one;
        appendAuditWhoJsonText(one, w);
        QCOMPARE(one, safeDump(auditWhoJson(w)));
        QCOMPARE(auditWhosJsonText({w, AuditWho{}, w}), dumped({w, AuditWho{}, w}));
    }

    void numbersNullsAndEmptyListsAreTheDump()
    {
        AuditWho w;
        for (const int code : {0, -1, 1, 200, 422, std::numeric_limits<int>::max(), std::numeric_limits<int>::min()}) {
            w.responseCode = code;
            QCOMPARE(auditWhosJsonText({w}), dumped({w}));
        }
        w.hasImpersonatedUser = true; // an impersonated user named "" with no groups: not null
        QCOMPARE(auditWhosJsonText({w}), dumped({w}));
        w.user.groups = {"", "", ""};
        w.sourceIPs = {"10.0.0.1", "::1", ""};
        QCOMPARE(auditWhosJsonText({w}), dumped({w}));
        QCOMPARE(auditWhosJsonText({}), dumped({}));
        std::string appended = "prefix";
        appendAuditWhoJsonText(appended, w);
        QCOMPARE(appended, "prefix" + safeDump(auditWhoJson(w)));
    }

    void randomBytesAreTheDump()
    {
        std::mt19937 rng(38);
        for (int i = 0; i < 3000; ++i) {
            AuditWho w;
            w.user = {randomBytes(rng), randomBytes(rng), {randomBytes(rng), randomBytes(rng)}};
            w.hasImpersonatedUser = i % 3 == 0;
            w.impersonatedUser = {randomBytes(rng), "", {randomBytes(rng)}};
            w.userAgent = randomBytes(rng);
            w.sourceIPs = {randomBytes(rng)};
            w.verb = randomBytes(rng);
            w.requestURI = randomBytes(rng);
            w.fieldManager = randomBytes(rng);
            w.auditID = randomBytes(rng);
            w.requestReceivedTimestamp = randomBytes(rng);
            w.stageTimestamp = randomBytes(rng);
            w.responseCode = int(rng());
            const std::string text = auditWhosJsonText({w});
            QVERIFY2(text == dumped({w}), text.c_str());
        }
    }
};

QTEST_GUILESS_MAIN(TestAuditWhoText)
#include "tst_auditwhotext.moc"
