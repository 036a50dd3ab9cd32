// Blame rendering (text gutter and JSON leaves) and the line-to-pointer YAML it is built on.
#include "core/ownership/blame.h"
#include "core/yaml/yaml.h"
#include "ownershipfixtures.h"

#include <QTest>

using namespace fieldscope::core;
using namespace fieldscope::testing;

namespace {
// 2026-07-20T09:30:00Z: five minutes after the last status write in deployment.yaml.
constexpr std::int64_t kNow = 1784539800;
} // namespace

class TestBlame : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void annotatedYamlIsByteIdenticalToJsonToYaml_data();
    void annotatedYamlIsByteIdenticalToJsonToYaml();
    void annotatedYamlNamesTheFieldOfEveryLine();
    void shortAgeFollowsKubectl_data();
    void shortAgeFollowsKubectl();
    void blameTextListsEveryCoOwnerPerLine();
    void aManagerOwningOnlyAListItemShowsOnItsDashLine();
    void blameTextMatchesGolden_data();
    void blameTextMatchesGolden();
    void blameJsonHasOneEntryPerLeaf();
    void blameJsonMatchesGolden();
};

void TestBlame::annotatedYamlIsByteIdenticalToJsonToYaml_data()
{
    QTest::addColumn<QString>("source");
    QTest::newRow("deployment fixture") << "deployment.yaml";
    QTest::newRow("service fixture") << "service.yaml";
    QTest::newRow("configmap with a block string") << "configmap.yaml";
    QTest::newRow("nested lists and empties")
        << R"({"a":[[1,[2,3]],{"b":[{"c":{}}]},[],{},"x\ny\n"],"e":{},"f":[],"g":"multi\nline","h":null})";
    QTest::newRow("scalar document") << "42";
    QTest::newRow("empty object") << "{}";
}

void TestBlame::annotatedYamlIsByteIdenticalToJsonToYaml()
{
    QFETCH(QString, source);
    Json j;
    if (source.endsWith(QLatin1String(".yaml"))) {
        j = loadFixture(source);
    } else {
        auto parsed = parseJson(source.toStdString());
        QVERIFY(parsed.ok());
        j = *parsed;
    }
    const AnnotatedYaml a = jsonToAnnotatedYaml(j);
    QCOMPARE(a.text, jsonToYaml(j));
    QCOMPARE(qsizetype(a.linePointers.size()), QString::fromStdString(a.text).count(QLatin1Char('\n')));
    for (const auto &p : a.linePointers)
        QVERIFY2(j.contains(Json::json_pointer(p)) || p.empty(), p.c_str());
}

void TestBlame::annotatedYamlNamesTheFieldOfEveryLine()
{
    auto j = parseJson(R"({"spec":{"containers":[{"name":"a","args":["x","z"]}],"text":"l1\nl2"}})");
    QVERIFY(j.ok());
    const AnnotatedYaml a = jsonToAnnotatedYaml(*j);
    QCOMPARE(
        a.text,
        std::string("spec:\n  containers:\n  - name: a\n    args:\n    - x\n    - z\n  text: |-\n    l1\n    l2\n"));
    const std::vector<std::string> expected = {"/spec",
                                               "/spec/containers",
                                               "/spec/containers/0/name",
                                               "/spec/containers/0/args",
                                               "/spec/containers/0/args/0",
                                               "/spec/containers/0/args/1",
                                               "/spec/text",
                                               "/spec/text",
                                               "/spec/text"};
    QCOMPARE(a.linePointers, expected);
}

void TestBlame::shortAgeFollowsKubectl_data()
{
    QTest::addColumn<qint64>("seconds");
    QTest::addColumn<QString>("age");
    QTest::newRow("skew") << qint64(-1) << "0s";
    QTest::newRow("future") << qint64(-5) << "<invalid>";
    QTest::newRow("seconds") << qint64(59) << "59s";
    QTest::newRow("minutes") << qint64(180) << "3m";
    QTest::newRow("hours") << qint64(7200) << "2h";
    QTest::newRow("days") << qint64(86400 * 3 + 5) << "3d";
    QTest::newRow("years") << qint64(86400LL * 800) << "2y";
}

void TestBlame::shortAgeFollowsKubectl()
{
    QFETCH(qint64, seconds);
    QFETCH(QString, age);
    QCOMPARE(QString::fromStdString(shortAge(seconds)), age);
}

void TestBlame::blameTextListsEveryCoOwnerPerLine()
{
    const Json obj = loadFixture(QStringLiteral("deployment.yaml"));
    auto tree = OwnershipTree::build(obj);
    QVERIFY(tree.ok());
    const QStringList out = QString::fromStdString(blameText(obj, *tree, kNow)).split(QLatin1Char('\n'));
    auto lineFor = [&](const QString &yaml) {
        for (const auto &l : out)
            if (l.endsWith(QLatin1String(" | ") + yaml))
                return l;
        return QString();
    };
    QVERIFY(
        lineFor(QStringLiteral("    app: web")).startsWith(QLatin1String("ci-bot(Apply) 20m, kubectl(Apply) 15m ")));
    QVERIFY(lineFor(QStringLiteral("  replicas: 5"))
                .startsWith(QLatin1String("kube-controller-manager(Update/scale) 9m ")));
    QVERIFY(lineFor(QStringLiteral("  progressDeadlineSeconds: 600")).startsWith(QLatin1String(" ")));
    QVERIFY(!out.join(QLatin1Char('\n')).contains(QLatin1String("managedFields")));
    QVERIFY(out.contains(QStringLiteral("kubectl(Apply) 15m")
                         + QString(out.first().indexOf(QLatin1Char('|')) - 19, QLatin1Char(' '))
                         + QStringLiteral(" | # absent: .metadata.labels.tier")));
}

// `k:{"name":"nginx"}: {.: {}}` (the item itself, none of its fields) is ownership too.
void TestBlame::aManagerOwningOnlyAListItemShowsOnItsDashLine()
{
    const Json obj = *parseJson(R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","managedFields":[
        {"manager":"owner-of-item","operation":"Apply","apiVersion":"v1","fieldsType":"FieldsV1",
         "fieldsV1":{"f:spec":{"f:containers":{"k:{\"name\":\"nginx\"}":{".":{}}}}}},
        {"manager":"image-setter","operation":"Update","apiVersion":"v1","fieldsType":"FieldsV1",
         "fieldsV1":{"f:spec":{"f:containers":{"k:{\"name\":\"nginx\"}":{"f:image":{}}}}}}]},
        "spec":{"containers":[{"name":"nginx","image":"nginx:1"}]}})");
    auto tree = OwnershipTree::build(obj);
    QVERIFY(tree.ok());
    const QStringList out = QString::fromStdString(blameText(obj, *tree, kNow)).split(QLatin1Char('\n'));
    const auto dash = std::find_if(out.begin(), out.end(),
                                   [](const QString &l) { return l.endsWith(QLatin1String("|   - name: nginx")); });
    QVERIFY(dash != out.end());
    QVERIFY2(dash->startsWith(QLatin1String("owner-of-item(Apply)")), qPrintable(*dash));
    const auto image = std::find_if(out.begin(), out.end(),
                                    [](const QString &l) { return l.endsWith(QLatin1String("|     image: nginx:1")); });
    QVERIFY(image != out.end());
    QVERIFY2(image->startsWith(QLatin1String("image-setter(Update)")), qPrintable(*image));
    // The same owners for the window's gutter, through lineOwners().
    const AnnotatedYaml yaml = jsonToAnnotatedYaml(withoutManagedFields(obj));
    const auto lines = QString::fromStdString(yaml.text).split(QLatin1Char('\n'));
    const int dashLine = int(lines.indexOf(QStringLiteral("  - name: nginx")));
    QVERIFY(dashLine >= 0);
    const auto owners = lineOwners(*tree, yaml.linePointers[std::size_t(dashLine)], lines[dashLine].toStdString());
    QCOMPARE(owners.size(), std::size_t(1));
    QCOMPARE(tree->entries()[owners[0].entry].manager, std::string("owner-of-item"));
}

void TestBlame::blameTextMatchesGolden_data()
{
    QTest::addColumn<QString>("fixture");
    QTest::newRow("deployment") << "deployment";
    QTest::newRow("service") << "service";
    QTest::newRow("configmap") << "configmap";
}

void TestBlame::blameTextMatchesGolden()
{
    QFETCH(QString, fixture);
    const Json obj = loadFixture(fixture + QLatin1String(".yaml"));
    auto tree = OwnershipTree::build(obj);
    QVERIFY(tree.ok());
    QString message;
    QVERIFY2(matchesGolden(fixture + QLatin1String(".blame.txt"), QString::fromStdString(blameText(obj, *tree, kNow)),
                           &message),
             qPrintable(message));
}

void TestBlame::blameJsonHasOneEntryPerLeaf()
{
    auto tree = OwnershipTree::build(loadFixture(QStringLiteral("deployment.yaml")));
    QVERIFY(tree.ok());
    const Json j = blameJson(*tree);
    std::size_t leaves = 0;
    for (NodeId id = 1; id < tree->nodeCount(); ++id)
        leaves += tree->isLeaf(id) ? 1 : 0;
    QCOMPARE(j.size(), leaves);
    const Json *app = nullptr;
    for (const auto &e : j)
        if (e["path"] == ".metadata.labels.app")
            app = &e;
    QVERIFY(app);
    QCOMPARE(
        QString::fromStdString(toJsonText(*app)),
        QStringLiteral(
            R"({"path":".metadata.labels.app","value":"web","owners":[)"
            R"({"manager":"ci-bot","operation":"Apply","subresource":"","apiVersion":"apps/v1","time":"2026-07-20T09:10:00Z"},)"
            R"({"manager":"kubectl","operation":"Apply","subresource":"","apiVersion":"apps/v1","time":"2026-07-20T09:14:03Z"}]})"));
}

void TestBlame::blameJsonMatchesGolden()
{
    auto tree = OwnershipTree::build(loadFixture(QStringLiteral("service.yaml")));
    QVERIFY(tree.ok());
    QString message;
    QVERIFY2(matchesGolden(QStringLiteral("service.blame.json"),
                           QString::fromStdString(blameJson(*tree).dump(2) + "\n"), &message),
             qPrintable(message));
}

QTEST_GUILESS_MAIN(TestBlame)
#include "tst_blame.moc"
