// Reading history .jsonl files (core/history/historyexport.h) someone else may have written: every member
// is type-checked, and a bad line is a Parse error naming the line and the member, never a throw.
#include "core/history/historyexport.h"

#include <QTemporaryDir>
#include <QTest>

#include <fstream>

using namespace fieldscope::core;

namespace {

const char *kHeader = R"({"format":"fieldscope-history","formatVersion":1,"generator":"test"})";

Json versionLine()
{
    return parseJson(R"({"type":"version","scope":"configmaps.v1/prod","resource":"configmaps","uid":"u-1",)"
                     R"("resourceVersion":"7","eventType":"MODIFIED","observedAt":"2026-07-20T09:14:03.123Z",)"
                     R"("object":{"kind":"ConfigMap","metadata":{"name":"a","uid":"u-1","resourceVersion":"7"}}})")
        .value();
}

Json gapLine()
{
    return parseJson(R"({"type":"gap","scope":"configmaps.v1/prod","fromResourceVersion":"5","toResourceVersion":"7",)"
                     R"("reason":"relist after 410","observedAt":"2026-07-20T09:14:03.123Z"})")
        .value();
}

std::string file(const std::vector<std::string> &lines)
{
    std::string out;
    for (const auto &l : lines)
        out += l + "\n";
    return out;
}

} // namespace

class TestHistoryExport : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void aWellFormedFileReads()
    {
        auto f = readJsonLinesText(file({kHeader, toJsonText(versionLine()), "", toJsonText(gapLine()),
                                         toJsonText(versionLine())}));
        QVERIFY2(f.ok(), f.ok() ? "" : f.error().describe().c_str());
        QCOMPARE(f->versions.size(), std::size_t(2));
        QCOMPARE(f->gaps.size(), std::size_t(1));
        QCOMPARE(f->gapPositions.front(), std::size_t(1));
        QCOMPARE(f->versions[0].scope.id, std::string("configmaps.v1/prod"));
        QCOMPARE(f->versions[0].observedAtMs, std::int64_t(1784538843123));
        QCOMPARE(f->gaps[0].reason, std::string("relist after 410"));
    }

    // Every member the reader uses, given a value of the wrong type: line 2 (or 1 for the header),
    // the member's JSON path in `where`, category Parse.
    void aWronglyTypedMemberIsAParseErrorNamingLineAndPath_data()
    {
        QTest::addColumn<QString>("line");
        QTest::addColumn<int>("lineNumber");
        QTest::addColumn<QString>("path");
        auto versionWith = [](const char *member, const Json &value) {
            Json j = versionLine();
            j[member] = value;
            return QString::fromStdString(toJsonText(j));
        };
        auto gapWith = [](const char *member, const Json &value) {
            Json j = gapLine();
            j[member] = value;
            return QString::fromStdString(toJsonText(j));
        };
        for (const char *m : {"scope", "resource", "uid", "resourceVersion", "eventType", "observedAt"}) {
            QTest::addRow("version %s is a number", m)
                << versionWith(m, 42) << 2 << QString::fromLatin1("/") + QLatin1String(m);
            QTest::addRow("version %s is an object", m)
                << versionWith(m, Json::object()) << 2 << QString::fromLatin1("/") + QLatin1String(m);
        }
        QTest::newRow("version type is a bool") << versionWith("type", true) << 2 << "/type";
        QTest::newRow("version object is a string") << versionWith("object", "{}") << 2 << "/object";
        QTest::newRow("version object is an array") << versionWith("object", Json::array()) << 2 << "/object";
        QTest::newRow("version object is missing") << [] {
            Json j = versionLine();
            j.erase("object");
            return QString::fromStdString(toJsonText(j));
        }() << 2 << "/object";
        for (const char *m : {"scope", "fromResourceVersion", "toResourceVersion", "reason", "observedAt"})
            QTest::addRow("gap %s is an array", m)
                << gapWith(m, Json::array({1})) << 2 << QString::fromLatin1("/") + QLatin1String(m);
        QTest::newRow("eventType unknown") << versionWith("eventType", "EXPLODED") << 2 << "/eventType";
        QTest::newRow("observedAt malformed") << versionWith("observedAt", "yesterday") << 2 << "/observedAt";
        QTest::newRow("line type unknown") << versionWith("type", "snapshot") << 2 << "/type";
    }
    void aWronglyTypedMemberIsAParseErrorNamingLineAndPath()
    {
        QFETCH(QString, line);
        QFETCH(int, lineNumber);
        QFETCH(QString, path);
        Result<HistoryFile> f = Error();
        try {
            f = readJsonLinesText(file({kHeader, line.toStdString()}));
        } catch (const std::exception &e) {
            QFAIL(e.what());
        }
        QVERIFY(!f.ok());
        QCOMPARE(f.error().category, ErrorCategory::Parse);
        QCOMPARE(QString::fromStdString(f.error().where), QStringLiteral("line %1, %2").arg(lineNumber).arg(path));
    }

    void aWronglyTypedHeaderIsAParseError_data()
    {
        QTest::addColumn<QString>("header");
        QTest::addColumn<QString>("where");
        QTest::newRow("format is a number") << R"({"format":1,"formatVersion":1})"
                                            << "line 1, /format";
        QTest::newRow("formatVersion is a string") << R"({"format":"fieldscope-history","formatVersion":"1"})"
                                                   << "line 1, /formatVersion";
        QTest::newRow("formatVersion is a float") << R"({"format":"fieldscope-history","formatVersion":1.5})"
                                                  << "line 1, /formatVersion";
        QTest::newRow("formatVersion past int64")
            << R"({"format":"fieldscope-history","formatVersion":18446744073709551615})"
            << "line 1, /formatVersion";
        QTest::newRow("newer formatVersion") << R"({"format":"fieldscope-history","formatVersion":2})"
                                             << "line 1, /formatVersion";
        QTest::newRow("not a history file") << R"({"format":"other"})"
                                            << "line 1";
        QTest::newRow("header is an array") << R"(["fieldscope-history"])"
                                            << "line 1";
    }
    void aWronglyTypedHeaderIsAParseError()
    {
        QFETCH(QString, header);
        QFETCH(QString, where);
        auto f = readJsonLinesText(file({header.toStdString(), toJsonText(versionLine())}));
        QVERIFY(!f.ok());
        QCOMPARE(f.error().category, ErrorCategory::Parse);
        QCOMPARE(QString::fromStdString(f.error().where), where);
    }

    void invalidUtf8InALineIsRefusedWithLineAndByte()
    {
        Json v = versionLine();
        std::string text = toJsonText(v);
        const auto at = text.find("u-1");
        text[at] = '\xff';
        auto f = readJsonLinesText(file({kHeader, text}));
        QVERIFY(!f.ok());
        QCOMPARE(f.error().category, ErrorCategory::Parse);
        QVERIFY2(QString::fromStdString(f.error().where).startsWith(QLatin1String("line 2, byte ")),
                 f.error().where.c_str());
    }

    void linesPastTheLimitsAreRefused()
    {
        // Nesting: the object of a version line is held to the common depth limit.
        std::string deep = toJsonText(versionLine());
        const std::string nest = std::string(std::size_t(kMaxJsonDepth), '[')
                               + std::string(std::size_t(kMaxJsonDepth), ']');
        deep.insert(deep.find("\"kind\""), "\"deep\":" + nest + ",");
        auto f = readJsonLinesText(file({kHeader, deep}));
        QVERIFY(!f.ok());
        QVERIFY(QString::fromStdString(f.error().message).contains(QLatin1String("deeper than 512")));
        QVERIFY(QString::fromStdString(f.error().where).startsWith(QLatin1String("line 2, byte ")));
        // Length: refused before it is parsed (a file without newlines is not read whole). One
        // buffer, grown by a byte: at the limit the parser judges the (blank) line, past it not.
        std::string text = std::string(kHeader) + "\n";
        const std::size_t start = text.size();
        text.reserve(start + kMaxHistoryLineBytes + 1);
        text.append(kMaxHistoryLineBytes, ' ');
        auto atLimit = readJsonLinesText(text);
        QVERIFY(!atLimit.ok());
        QVERIFY(!QString::fromStdString(atLimit.error().message).contains(QLatin1String("longer than")));
        text += ' ';
        QCOMPARE(text.size() - start, kMaxHistoryLineBytes + 1);
        auto past = readJsonLinesText(text);
        QVERIFY(!past.ok());
        QCOMPARE(past.error().where, std::string("line 2"));
        QVERIFY(QString::fromStdString(past.error().message).contains(QLatin1String("longer than")));
    }

    void theFileReaderAgreesWithTheTextReader()
    {
        QTemporaryDir dir;
        const std::string path = dir.filePath(QStringLiteral("h.jsonl")).toStdString();
        Json bad = versionLine();
        bad["uid"] = 5;
        {
            std::ofstream out(path, std::ios::binary);
            out << file({kHeader, toJsonText(gapLine()), toJsonText(bad)});
        }
        auto f = readJsonLines(path);
        QVERIFY(!f.ok());
        QCOMPARE(f.error().where, std::string("line 3, /uid"));
        {
            std::ofstream out(path, std::ios::binary);
            out << kHeader << "\n" << toJsonText(versionLine()); // no final newline
        }
        auto good = readJsonLines(path);
        QVERIFY2(good.ok(), good.ok() ? "" : good.error().describe().c_str());
        QCOMPARE(good->versions.size(), std::size_t(1));
    }
};

QTEST_GUILESS_MAIN(TestHistoryExport)
#include "tst_historyexport.moc"
