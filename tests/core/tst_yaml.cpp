#include "core/yaml/yaml.h"

#include <QTest>

#include <algorithm>

using namespace fieldscope::core;

namespace {

// `depth` nested flow sequences around one scalar: "[[[1]]]".
std::string nestedFlow(int depth)
{
    return std::string(std::size_t(depth), '[') + "1" + std::string(std::size_t(depth), ']');
}

Json nestedValue(int depth)
{
    Json v = 1;
    for (int i = 0; i < depth; ++i) {
        Json outer = Json::array();
        outer.push_back(std::move(v));
        v = std::move(outer);
    }
    return v;
}

bool mentions(const Error &e, const char *text)
{
    return QString::fromStdString(e.message).contains(QLatin1String(text));
}

} // namespace

class TestYaml : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void plainScalarsFollowYaml11_data()
    {
        QTest::addColumn<QString>("yaml");
        QTest::addColumn<QString>("json");
        QTest::addColumn<int>("warnings");
        QTest::newRow("int") << "a: 80"
                             << R"({"a":80})" << 0;
        QTest::newRow("int64 stays exact") << "a: 9007199254740993"
                                           << R"({"a":9007199254740993})" << 0;
        QTest::newRow("quoted number is a string") << "a: \"80\""
                                                   << R"({"a":"80"})" << 0;
        QTest::newRow("yes is true") << "a: yes"
                                     << R"({"a":true})" << 1;
        QTest::newRow("off is false") << "a: off"
                                      << R"({"a":false})" << 1;
        QTest::newRow("true") << "a: true"
                              << R"({"a":true})" << 0;
        QTest::newRow("octal") << "a: 0123"
                               << R"({"a":83})" << 1;
        QTest::newRow("float") << "a: 1.5"
                               << R"({"a":1.5})" << 0;
        QTest::newRow("null") << "a: ~\nb:"
                              << R"({"a":null,"b":null})" << 0;
        QTest::newRow("list") << "a:\n- x\n- 'y'"
                              << R"({"a":["x","y"]})" << 0;
        QTest::newRow("key order kept") << "z: 1\na: 2"
                                        << R"({"z":1,"a":2})" << 0;
        QTest::newRow("hex") << "a: 0x1F"
                             << R"({"a":31})" << 0;
        QTest::newRow("underscores") << "a: 1_000"
                                     << R"({"a":1000})" << 0;
        QTest::newRow("float with leading dot and exponent") << "a: .5e3"
                                                             << R"({"a":500.0})" << 0;
        QTest::newRow("signed float") << "a: -1.5"
                                      << R"({"a":-1.5})" << 0;
        QTest::newRow("inf stays a string") << "a: +.Inf"
                                            << R"({"a":"+.Inf"})" << 1;
        QTest::newRow("version-like is a string") << "a: 1.2.3"
                                                  << R"({"a":"1.2.3"})" << 0;
        QTest::newRow("integer past int64 keeps its text") << "a: 99999999999999999999"
                                                           << R"({"a":"99999999999999999999"})" << 0;
        QTest::newRow("tagged string") << "a: !!str 80"
                                       << R"({"a":"80"})" << 0;
        QTest::newRow("anchor and alias") << "a: &x {b: 1}\nc: *x"
                                          << R"({"a":{"b":1},"c":{"b":1}})" << 0;
        QTest::newRow("alias as a key") << "a: &k name\n*k : 2"
                                        << R"({"a":"name","name":2})" << 0;
    }
    void plainScalarsFollowYaml11()
    {
        QFETCH(QString, yaml);
        QFETCH(QString, json);
        QFETCH(int, warnings);
        auto r = yamlToJson(yaml.toStdString());
        QVERIFY2(r.ok(), r.ok() ? "" : r.error().describe().c_str());
        QCOMPARE(QString::fromStdString(toJsonText(r->value)), json);
        QCOMPARE(int(r->warnings.size()), warnings);
    }

    void malformedYamlGivesLineAndColumn()
    {
        auto r = yamlToJson("a: [1, 2\nb: c");
        QVERIFY(!r.ok());
        QCOMPARE(r.error().category, ErrorCategory::Parse);
        QVERIFY(QString::fromStdString(r.error().where).startsWith(QLatin1String("line ")));
    }

    void duplicateKeysAreRejected()
    {
        auto r = yamlToJson("a: 1\na: 2");
        QVERIFY(!r.ok());
        QVERIFY(QString::fromStdString(r.error().message).contains(QLatin1String("duplicate")));
    }

    void aliasBombIsStopped()
    {
        std::string bomb = "a: &a [x, x, x, x, x, x, x, x, x]\n";
        char prev = 'a';
        for (char c = 'b'; c <= 'j'; ++c, ++prev)
            bomb += std::string(1, c) + ": &" + c + " [*" + prev + ", *" + prev + ", *" + prev + ", *" + prev + ", *"
                  + prev + ", *" + prev + ", *" + prev + ", *" + prev + ", *" + prev + "]\n";
        YamlLimits limits;
        limits.maxNodes = 100000;
        auto r = yamlToJson(bomb, limits);
        QVERIFY(!r.ok());
        QVERIFY(QString::fromStdString(r.error().message).contains(QLatin1String("nodes")));
    }

    // A 4 KiB scalar referenced a million times ("billion laughs") is refused by the
    // byte budget long before it is copied; the node budget alone would allow it (1M nodes).
    void aliasExpansionIsBoundedInBytes()
    {
        std::string bomb = "a: &a \"" + std::string(4096, 'x') + "\"\n";
        bomb += "b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\n";
        char prev = 'b';
        for (char c = 'c'; c <= 'g'; ++c, ++prev)
            bomb += std::string(1, c) + ": &" + c + " [*" + prev + ", *" + prev + ", *" + prev + ", *" + prev + ", *"
                  + prev + ", *" + prev + ", *" + prev + ", *" + prev + ", *" + prev + ", *" + prev + "]\n";
        auto r = yamlToJson(bomb);
        QVERIFY(!r.ok());
        QCOMPARE(r.error().category, ErrorCategory::Parse);
        QVERIFY2(mentions(r.error(), "bytes of text"), r.error().message.c_str());
        QVERIFY(QString::fromStdString(r.error().where).startsWith(QLatin1String("line ")));
    }

    void expandedBytesAtTheBudgetPassAndOneMoreFails()
    {
        // Keys and scalars count, aliases count what they copy: "a" + "xxxx" + "b" + 4 * "xxxx".
        const std::string doc = "a: &s xxxx\nb: [*s, *s, *s, *s]\n";
        YamlLimits limits;
        limits.maxExpandedBytes = 1 + 4 + 1 + 4 * 4;
        QVERIFY(yamlToJson(doc, limits).ok());
        limits.maxExpandedBytes -= 1;
        auto r = yamlToJson(doc, limits);
        QVERIFY(!r.ok());
        QVERIFY(mentions(r.error(), "bytes of text"));
    }

    void nodeBudgetCountsEveryDocumentOfOneInput()
    {
        // One parse per input, one budget: two documents of 3 nodes each exceed a budget of 5.
        YamlLimits limits;
        limits.maxNodes = 5;
        QVERIFY(yamlDocumentsToJson("a: 1\n", limits).ok());
        auto r = yamlDocumentsToJson("a: [1]\n---\nb: [2]\n", limits);
        QVERIFY(!r.ok());
        QVERIFY(mentions(r.error(), "nodes"));
        limits.maxNodes = 6;
        auto both = yamlDocumentsToJson("a: [1]\n---\nb: [2]\n", limits);
        QVERIFY(both.ok());
        QCOMPARE(both->size(), std::size_t(2));
    }

    void depthLimitAcceptsTheLimitAndRefusesOneMore()
    {
        auto atLimit = yamlToJson(nestedFlow(kMaxYamlDepth));
        QVERIFY2(atLimit.ok(), atLimit.ok() ? "" : atLimit.error().describe().c_str());
        QCOMPARE(jsonDepth(atLimit->value), std::size_t(kMaxYamlDepth));
        auto past = yamlToJson(nestedFlow(kMaxYamlDepth + 1));
        QVERIFY(!past.ok());
        QVERIFY2(mentions(past.error(), "deeper than 480"), past.error().message.c_str());
        QCOMPARE(past.error().where, std::string("line 1, column 481"));
    }

    // fuzz_yaml's first finding: three NULs make yaml-cpp read UTF-32BE, which decodes to code
    // points past U+10FFFF; the string could be shown but never read back (the editor would
    // offer YAML it then refuses). Such input is refused with a message.
    void utf32InputDecodingToInvalidCharactersIsRefused()
    {
        const std::string input = std::string(3, '\0') + "Version\": \"v1\", \"kind\": \"List\"}";
        auto r = yamlToJson(input);
        QVERIFY(!r.ok());
        QVERIFY2(mentions(r.error(), "invalid characters"), r.error().message.c_str());
        // Real UTF-16 with a BOM stays readable.
        const std::string utf16 = std::string("\xff\xfe")
                                + std::string("a\0:\0 \0"
                                              "1\0\n\0",
                                              10);
        auto ok = yamlToJson(utf16);
        QVERIFY2(ok.ok(), ok.ok() ? "" : ok.error().describe().c_str());
        QCOMPARE(ok->value["a"].get<int>(), 1);
    }

    // An annotation with a right-to-left override would show the rest of its
    // line reversed in the YAML view and the editor; it is written as an escape that reads back
    // as the same value, in keys, single-line and multi-line strings alike.
    void bidiAndInvisibleCharactersAreWrittenAsEscapes()
    {
        const std::string rlo = "\xe2\x80\xae", zwsp = "\xe2\x80\x8b";
        Json v = Json::object();
        v["note"] = "a" + rlo + "tail";
        v["k" + zwsp] = "plain";
        v["lines"] = "one\ntwo" + rlo + "\n";
        const std::string yaml = jsonToYaml(v);
        QVERIFY2(yaml.find(rlo) == std::string::npos && yaml.find(zwsp) == std::string::npos, yaml.c_str());
        QVERIFY2(yaml.find("note: \"a\\u202etail\"") != std::string::npos, yaml.c_str());
        auto back = yamlToJson(yaml);
        QVERIFY(back.ok());
        QVERIFY(jsonEqual(back->value, v));
        QCOMPARE(jsonToYaml(Json::parse(R"({"a":"caf\u00e9"})")),
                 std::string("a: caf\xc3\xa9\n")); // other text stays as it is
    }

    // fuzz_yaml's second finding: YAML limits an implicit key to 1024 characters, so an object
    // with a longer key (a ConfigMap's data key can be 253 bytes, an annotation key more) was shown
    // as YAML that does not read back. Long keys are explicit entries.
    void keysLongerThanYamlAllowsImplicitlyReadBack()
    {
        Json v = Json::object();
        v[std::string(1100, 'k')] = "value";
        v["short"] = Json::array({Json::object({{std::string(2000, 'x') + "\r", 1}})});
        const std::string yaml = jsonToYaml(v);
        QVERIFY2(yaml.rfind("? ", 0) == 0, yaml.substr(0, 40).c_str());
        auto back = yamlToJson(yaml);
        QVERIFY2(back.ok(), back.ok() ? "" : back.error().describe().c_str());
        QVERIFY(jsonEqual(back->value, v));
        auto annotated = jsonToAnnotatedYaml(v);
        QCOMPARE(annotated.text, yaml);
        QCOMPARE(annotated.linePointers.size(), std::size_t(std::count(yaml.begin(), yaml.end(), '\n')));
    }

    // fuzz_yaml's third finding: on these 22 bytes yaml-cpp reports empty documents forever; the
    // reader stops with an error instead of hanging.
    void inputOnWhichTheYamlLibraryLoopsIsRefused()
    {
        const unsigned char bytes[] = {0x00, 0x00, 0x00, 0x2c, 0x63, 0x63, 0x92, 0x8c, 0x9d, 0x9c, 0x63,
                                       0x63, 0x63, 0x63, 0x63, 0x63, 0x63, 0x00, 0x00, 0x00, 0x16, 0x63};
        const std::string input(reinterpret_cast<const char *>(bytes), sizeof bytes);
        QVERIFY(!yamlToJson(input).ok());
        QVERIFY(!yamlDocumentsToJson(input).ok());
    }

    // fuzz_yaml's fourth finding: a float out of a double's range became an infinity, which JSON
    // writes as null. go-yaml (kubectl) keeps such a scalar as a string; so do we, with a warning.
    void aNulThatYamlCppTurnsIntoAStrayByteIsRefused()
    {
        auto r = yamlToJson(std::string("828e808000\0N8802+", 17));
        QVERIFY2(!r.ok() || jsonEqual(yamlToJson(jsonToYaml(r->value)).value().value, r->value),
                 "shown YAML reads back");
    }

    // fuzz_yaml's fifth finding: a key beginning with "..." was written plain at the start of a
    // line, where YAML reads "..." as the end of the document.
    void keysAndValuesThatStartWithThreeDotsAreQuoted()
    {
        const Json v = Json::parse(R"({"... t": "... v", "a": ["...x"], "--- k": 1, "<<": "not a merge"})");
        const std::string yaml = jsonToYaml(v);
        auto back = yamlToJson(yaml);
        QVERIFY2(back.ok(), yaml.c_str());
        QVERIFY(jsonEqual(back->value, v));
        QVERIFY(!yamlToJson("<<: {a: 1}\n").ok()); // a plain << is still a merge key, still refused
    }

    void floatsOutOfRangeStayStrings()
    {
        auto big = yamlToJson("a: 828e808000\nb: 1e-400\nc: 1.5e3\n");
        QVERIFY(big.ok());
        QCOMPARE(big->value["a"].get<std::string>(), std::string("828e808000"));
        QCOMPARE(big->value["b"].get<std::string>(), std::string("1e-400"));
        QCOMPARE(big->value["c"].get<double>(), 1500.0);
        QCOMPARE(big->warnings.size(), std::size_t(2));
        auto back = yamlToJson(jsonToYaml(big->value));
        QVERIFY(back.ok() && jsonEqual(back->value, big->value));
    }

    void depthBeyondTheYamlLibrarysOwnGuardIsAClearError()
    {
        YamlLimits limits;
        limits.maxDepth = kMaxJsonDepth; // above yaml-cpp's guard (499): the library refuses first
        auto r = yamlToJson(nestedFlow(kMaxJsonDepth), limits);
        QVERIFY(!r.ok());
        QCOMPARE(r.error().category, ErrorCategory::Parse);
        QVERIFY2(mentions(r.error(), "nested deeper than 480"), r.error().message.c_str());
        QVERIFY(!mentions(r.error(), "bad file"));
    }

    void anAliasCannotCarryADocumentPastTheDepthLimit()
    {
        YamlLimits limits;
        limits.maxDepth = 4;
        // The alias itself is 2 deep; placed 2 deep it reaches 4 (fine), 3 deep it would be 5.
        QVERIFY(yamlToJson("a: &x [[1]]\nb: [*x]\n", limits).ok());
        auto r = yamlToJson("a: &x [[1]]\nb: [[*x]]\n", limits);
        QVERIFY(!r.ok());
        QVERIFY(mentions(r.error(), "deeper than 4"));
    }

    void anAliasToItsOwnNodeIsRefused()
    {
        auto r = yamlToJson("a: &x [1, *x]\n");
        QVERIFY(!r.ok());
        QVERIFY2(mentions(r.error(), "contains it"), r.error().message.c_str());
    }

    void invalidUtf8IsRefusedWithItsByteOffset()
    {
        auto r = yamlToJson("a: ok\nb: \"x\xff\"\n");
        QVERIFY(!r.ok());
        QCOMPARE(r.error().category, ErrorCategory::Parse);
        QCOMPARE(r.error().where, std::string("byte 12"));
        QVERIFY(mentions(r.error(), "UTF-8"));
        for (const char *bad : {"a: \xc0\x80", "a: \xed\xa0\x80", "a: \xf4\x90\x80\x80", "a: \xe2\x82"})
            QVERIFY2(!yamlToJson(bad).ok(), bad);
        QVERIFY(yamlToJson("a: \"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\"").ok());
    }

    void utf16InputWithAByteOrderMarkStillReads()
    {
        const char16_t text[] = u"\uFEFFa: b\n";
        const std::string bytes(reinterpret_cast<const char *>(text), sizeof text - sizeof(char16_t));
        auto r = yamlToJson(bytes);
        QVERIFY2(r.ok(), r.ok() ? "" : r.error().describe().c_str());
        QCOMPARE(QString::fromStdString(toJsonText(r->value)), QStringLiteral(R"({"a":"b"})"));
    }

    void longPlainScalarsNeedNoRegex()
    {
        // std::regex recursed once per character here and overflowed the stack on long scalars.
        const std::string digits(2'000'000, '7');
        auto r = yamlToJson("a: " + digits + "\nb: " + std::string(1'000'000, 'x') + "1.5\n");
        QVERIFY2(r.ok(), r.ok() ? "" : r.error().describe().c_str());
        QCOMPARE(r->value["a"].get<std::string>(), digits); // past int64: kept as text
        const std::string yaml = jsonToYaml(r->value);
        QVERIFY(yaml.find("a: \"7777") != std::string::npos); // quoted: it reads as a number
        QVERIFY(jsonEqual(yamlToJson(yaml)->value, r->value));
    }

    void stringsThatReadAsOtherTypesAreQuoted_data()
    {
        QTest::addColumn<QString>("text");
        // YAML 1.1 timestamps, dates and base-60 numbers too, as kubectl quotes them.
        for (const char *s : {"yes",
                              "Off",
                              "y",
                              "~",
                              "null",
                              "0123",
                              "0x1F",
                              "1_000",
                              ".5e3",
                              "-1.5",
                              "+.inf",
                              ".NaN",
                              "1e3",
                              "-",
                              "2021-11-12T11:13:20Z",
                              "2021-11-12",
                              "2021-1-2 10:00:00",
                              "22:30",
                              "1:20:30.5",
                              "-1:30"})
            QTest::newRow(s) << QString::fromLatin1(s);
    }
    void stringsThatReadAsOtherTypesAreQuoted()
    {
        QFETCH(QString, text);
        Json j = Json::object();
        j["v"] = text.toStdString();
        const std::string yaml = jsonToYaml(j);
        QVERIFY2(yaml == "v: \"" + text.toStdString() + "\"\n", yaml.c_str());
        auto back = yamlToJson(yaml);
        QVERIFY(back.ok());
        QVERIFY(jsonEqual(back->value, j));
    }

    void stringsThatOnlyLookLikeTimesStayPlain()
    {
        for (const char *s : {"v1.2.3", "10.0.0.1:8080", "a-2021-11-12", "12:ab", "image:tag", "20211-11-12"}) {
            Json j = Json::object();
            j["v"] = s;
            QCOMPARE(QString::fromStdString(jsonToYaml(j)), QStringLiteral("v: %1\n").arg(QLatin1String(s)));
        }
    }

    void yamlOutputRefusesValuesPastTheDepthLimit()
    {
        auto atLimit = tryJsonToYaml(nestedValue(kMaxJsonDepth));
        QVERIFY(atLimit.ok());
        QVERIFY(tryJsonToAnnotatedYaml(nestedValue(kMaxJsonDepth)).ok());
        auto past = tryJsonToYaml(nestedValue(kMaxJsonDepth + 1));
        QVERIFY(!past.ok());
        QCOMPARE(past.error().category, ErrorCategory::Parse);
        QVERIFY(mentions(past.error(), "deeper than 512"));
        QVERIFY(!tryJsonToAnnotatedYaml(nestedValue(kMaxJsonDepth + 1)).ok());
        // The text-only forms show the error as a comment instead of walking the value.
        const std::string comment = jsonToYaml(nestedValue(kMaxJsonDepth + 1));
        QVERIFY2(comment.rfind("# parse", 0) == 0 && comment.find("deeper than 512") != std::string::npos,
                 comment.c_str());
        const AnnotatedYaml a = jsonToAnnotatedYaml(nestedValue(100'000));
        QCOMPARE(a.linePointers.size(), std::size_t(1));
    }

    void emittedYamlRoundTripsAndQuotesAmbiguousStrings()
    {
        auto j = parseJson(
            R"({"metadata":{"name":"web","labels":{"on":"yes","v":"0123","empty":""}},)"
            R"("spec":{"replicas":3,"list":[{"name":"a","ports":[{"p":80}]},"s",[1,2]],"text":"line1\nline2\n","e":{},"f":[]}})");
        QVERIFY(j.ok());
        const std::string yaml = jsonToYaml(*j);
        QVERIFY2(yaml.find("\"on\": \"yes\"") != std::string::npos, yaml.c_str());
        QVERIFY(yaml.find("v: \"0123\"") != std::string::npos);
        auto back = yamlToJson(yaml);
        QVERIFY2(back.ok(), yaml.c_str());
        QVERIFY2(jsonEqual(back->value, *j), yaml.c_str());
        QVERIFY(back->warnings.empty());
    }
};

QTEST_GUILESS_MAIN(TestYaml)
#include "tst_yaml.moc"
