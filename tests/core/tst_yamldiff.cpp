#include "core/diff/yamldiff.h"

#include <QTest>

using namespace fieldscope::core;

namespace {

// One line per row: "kind L<n>|R<n> left | right [ranges]": the model-dump style of house style.
QString dump(const YamlDiff &d)
{
    QStringList lines;
    for (const auto &r : d.rows) {
        std::string s = std::string(yamlDiffRowKindName(r.kind)) + " " + std::to_string(r.leftLine) + "|"
                      + std::to_string(r.rightLine) + " " + r.left + " | " + r.right;
        for (const auto &x : r.leftRanges)
            s += " L[" + std::to_string(x.start) + "+" + std::to_string(x.length) + "]";
        for (const auto &x : r.rightRanges)
            s += " R[" + std::to_string(x.start) + "+" + std::to_string(x.length) + "]";
        if (r.kind == YamlDiffRow::Kind::Folded)
            s += std::to_string(r.foldedLines);
        lines << QString::fromStdString(s);
    }
    return lines.join(QLatin1Char('\n'));
}

} // namespace

class TestYamlDiff : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void rowsPairChangedLinesAndMarkTheChangedCharacters()
    {
        const Json a = parseJson(R"({"spec":{"replicas":1,"image":"nginx:1.25","paused":false}})").value();
        const Json b = parseJson(R"({"spec":{"replicas":1,"image":"nginx:1.26","minReady":5}})").value();
        const auto d = diffYaml(a, b);
        QCOMPARE(dump(d), QStringLiteral("same 1|1 spec: | spec:\n"
                                         "same 2|2   replicas: 1 |   replicas: 1\n"
                                         "changed 3|3   image: nginx:1.25 |   image: nginx:1.26 L[18+1] R[18+1]\n"
                                         "changed 4|4   paused: false |   minReady: 5 L[2+13] R[2+11]"));
        QCOMPARE(d.changedLines, 2);
    }

    void insertedAndRemovedLinesStayAligned()
    {
        const auto d = diffYamlText("a\nb\nc\nd\n", "a\nx\nb\nd\n");
        QCOMPARE(dump(d), QStringLiteral("same 1|1 a | a\n"
                                         "added 0|2  | x\n"
                                         "same 2|3 b | b\n"
                                         "removed 3|0 c | \n"
                                         "same 4|4 d | d"));
        QCOMPARE(d.addedLines, 1);
        QCOMPARE(d.removedLines, 1);
    }

    void rangesNeverSplitAUtf8Character()
    {
        // "é" (C3 A9) vs "è" (C3 A8): the common byte C3 must not end the prefix.
        const auto d = diffYamlText("name: caf\xC3\xA9", "name: caf\xC3\xA8");
        QCOMPARE(d.rows.size(), std::size_t(1));
        QCOMPARE(d.rows[0].leftRanges, (std::vector<TextRange>{{9, 2}}));
        QCOMPARE(d.rows[0].rightRanges, (std::vector<TextRange>{{9, 2}}));
    }

    void contextFoldsLongUnchangedRuns()
    {
        std::string a, b;
        for (int i = 0; i < 20; ++i) {
            a += "l" + std::to_string(i) + "\n";
            b += (i == 10 ? std::string("changed") : "l" + std::to_string(i)) + "\n";
        }
        const auto d = diffYamlText(a, b, 2);
        QCOMPARE(dump(d), QStringLiteral("folded 0|0  | 8\n"
                                         "same 9|9 l8 | l8\n"
                                         "same 10|10 l9 | l9\n"
                                         "changed 11|11 l10 | changed L[0+3] R[0+7]\n"
                                         "same 12|12 l11 | l11\n"
                                         "same 13|13 l12 | l12\n"
                                         "folded 0|0  | 7"));
    }

    void noiseFiltersApplyBeforeRendering()
    {
        const Json a = parseJson(R"({"metadata":{"name":"x","resourceVersion":"1"},"status":{"a":1}})").value();
        const Json b = parseJson(R"({"metadata":{"name":"x","resourceVersion":"2"},"status":{"a":2}})").value();
        YamlDiffOptions o;
        o.filters.hideStatus = true;
        const auto d = diffYaml(a, b, o);
        for (const auto &r : d.rows)
            QCOMPARE(r.kind, YamlDiffRow::Kind::Same);
    }
};

QTEST_GUILESS_MAIN(TestYamlDiff)
#include "tst_yamldiff.moc"
