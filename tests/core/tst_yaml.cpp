#include "core/yaml.h"

#include <QTest>

using namespace fieldscope::core;

class TestYaml : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void plainScalarsFollowYaml11_data()
    {
        QTest::addColumn<QString>("yaml");
        QTest::addColumn<QString>("json");
        QTest::addColumn<int>("warnings");
        QTest::newRow("int") << "a: 80" << R"({"a":80})" << 0;
        QTest::newRow("int64 stays exact") << "a: 9007199254740993" << R"({"a":9007199254740993})" << 0;
        QTest::newRow("quoted number is a string") << "a: \"80\"" << R"({"a":"80"})" << 0;
        QTest::newRow("yes is true") << "a: yes" << R"({"a":true})" << 1;
        QTest::newRow("off is false") << "a: off" << R"({"a":false})" << 1;
        QTest::newRow("true") << "a: true" << R"({"a":true})" << 0;
        QTest::newRow("octal") << "a: 0123" << R"({"a":83})" << 1;
        QTest::newRow("float") << "a: 1.5" << R"({"a":1.5})" << 0;
        QTest::newRow("null") << "a: ~\nb:" << R"({"a":null,"b":null})" << 0;
        QTest::newRow("list") << "a:\n- x\n- 'y'" << R"({"a":["x","y"]})" << 0;
        QTest::newRow("key order kept") << "z: 1\na: 2" << R"({"z":1,"a":2})" << 0;
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
            bomb += std::string(1, c) + ": &" + c + " [*" + prev + ", *" + prev + ", *" + prev + ", *" + prev + ", *" + prev + ", *" + prev + ", *" + prev + ", *" + prev + ", *" + prev + "]\n";
        YamlLimits limits;
        limits.maxNodes = 100000;
        auto r = yamlToJson(bomb, limits);
        QVERIFY(!r.ok());
        QVERIFY(QString::fromStdString(r.error().message).contains(QLatin1String("nodes")));
    }

    void emittedYamlRoundTripsAndQuotesAmbiguousStrings()
    {
        auto j = parseJson(R"({"metadata":{"name":"web","labels":{"on":"yes","v":"0123","empty":""}},)"
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
