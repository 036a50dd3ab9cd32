// core::listSemanticsFromOpenApi: the list types a server declares in its OpenAPI v3 schema, read
// from documents recorded from the real 1.37 server (tests/data/openapi/record-openapi.sh), and
// hostile documents that must end in errors, never in a crash.
#include "core/objects/openapilists.h"
#include "mergefixtures.h"

#include <QTest>

using namespace fieldscope::core;
using fieldscope::testing::recordedHints;

namespace {

Json j(const char *text)
{
    return *parseJson(text);
}

Json documentFor(const Json &rootSchema, const Json &others = Json::object())
{
    Json root = rootSchema;
    root["x-kubernetes-group-version-kind"] = j(R"j([{"group":"x.dev","version":"v1","kind":"Thing"}])j");
    Json schemas = others;
    schemas["dev.x.v1.Thing"] = root;
    return {{"components", {{"schemas", schemas}}}};
}

std::string line(const std::vector<ListSemanticsHint> &hints, const std::string &path)
{
    for (const ListSemanticsHint &h : hints)
        if (h.schemaPath == path)
            return describeHints({h});
    return "(none)\n";
}

// A schema whose list sits `depth` object fields down: f1.f2...fN.
Json nestedList(int depth)
{
    Json node = j(R"j({"type":"array","x-kubernetes-list-type":"set","items":{"type":"string"}})j");
    for (int i = depth; i >= 1; --i)
        node = {{"type", "object"}, {"properties", {{"f" + std::to_string(i), node}}}};
    return node;
}

} // namespace

class TestOpenApiLists : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void everyListOfAKindIsRead_data();
    void everyListOfAKindIsRead();
    void keyedListsAsTheServerDeclaresThem_data();
    void keyedListsAsTheServerDeclaresThem();
    void theBuiltInTableAgreesWithTheServersSchemaForADeployment();
    void theIndexNamesEachGroupVersionsDocument_data();
    void theIndexNamesEachGroupVersionsDocument();
    void hostileDocumentsAreErrorsNotCrashes_data();
    void hostileDocumentsAreErrorsNotCrashes();
    void theWalkStopsAtItsNodeLimit_data();
    void theWalkStopsAtItsNodeLimit();
    void listsDeeperThanTheFieldLimitAreLeftOut_data();
    void listsDeeperThanTheFieldLimitAreLeftOut();
    void patchStrategyStandsInForAMissingListType_data();
    void patchStrategyStandsInForAMissingListType();
};

// Every list of the kind with its type and keys, as the golden file lists them.
void TestOpenApiLists::everyListOfAKindIsRead_data()
{
    QTest::addColumn<QString>("document");
    QTest::addColumn<QString>("apiVersion");
    QTest::addColumn<QString>("kind");
    QTest::addColumn<QString>("golden");
    QTest::newRow("Deployment") << QStringLiteral("apps-v1-1.37.json") << QStringLiteral("apps/v1")
                                << QStringLiteral("Deployment") << QStringLiteral("openapi/deployment-1.37.hints.txt");
    QTest::newRow("CRD") << QStringLiteral("merge.fieldscope.dev-v1-1.37.json")
                         << QStringLiteral("merge.fieldscope.dev/v1") << QStringLiteral("Router")
                         << QStringLiteral("openapi/router-1.37.hints.txt");
}

void TestOpenApiLists::everyListOfAKindIsRead()
{
    QFETCH(QString, document);
    QFETCH(QString, apiVersion);
    QFETCH(QString, kind);
    QFETCH(QString, golden);
    const auto hints = recordedHints(document, qPrintable(apiVersion), qPrintable(kind));
    QString message;
    QVERIFY2(fieldscope::testing::matchesGoldenFile(golden, QString::fromStdString(describeHints(hints)), &message),
             qPrintable(message));
}

void TestOpenApiLists::keyedListsAsTheServerDeclaresThem_data()
{
    QTest::addColumn<QString>("kind");
    QTest::addColumn<QString>("path");
    QTest::addColumn<QString>("expected"); // with the schema's key defaults, zero values included
    const QString d = QStringLiteral("Deployment"), r = QStringLiteral("Router");
    QTest::newRow("containers") << d << QStringLiteral("spec.template.spec.containers")
                                << QStringLiteral("map name (name=\"\")");
    QTest::newRow("ports, protocol defaulted")
        << d << QStringLiteral("spec.template.spec.containers.ports")
        << QStringLiteral("map containerPort,protocol (containerPort=0,protocol=\"TCP\")");
    QTest::newRow("env") << d << QStringLiteral("spec.template.spec.containers.env")
                         << QStringLiteral("map name (name=\"\")");
    QTest::newRow("volumeMounts") << d << QStringLiteral("spec.template.spec.containers.volumeMounts")
                                  << QStringLiteral("map mountPath (mountPath=\"\")");
    QTest::newRow("finalizers") << d << QStringLiteral("metadata.finalizers") << QStringLiteral("set");
    QTest::newRow("command") << d << QStringLiteral("spec.template.spec.containers.command")
                             << QStringLiteral("atomic");
    QTest::newRow("CRD routes, port defaulted")
        << r << QStringLiteral("spec.routes") << QStringLiteral("map host,port (port=443)");
    QTest::newRow("CRD headers inside routes")
        << r << QStringLiteral("spec.routes.headers") << QStringLiteral("map name");
    QTest::newRow("CRD tags") << r << QStringLiteral("spec.tags") << QStringLiteral("set");
    QTest::newRow("CRD steps without a marker") << r << QStringLiteral("spec.steps") << QStringLiteral("atomic");
}

void TestOpenApiLists::keyedListsAsTheServerDeclaresThem()
{
    QFETCH(QString, kind);
    QFETCH(QString, path);
    QFETCH(QString, expected);
    const auto hints = kind == QLatin1String("Router")
                         ? recordedHints(QStringLiteral("merge.fieldscope.dev-v1-1.37.json"), "merge.fieldscope.dev/v1",
                                         "Router")
                         : recordedHints(QStringLiteral("apps-v1-1.37.json"), "apps/v1", qPrintable(kind));
    QCOMPARE(QString::fromStdString(line(hints, path.toStdString())),
             path + QLatin1Char('\t') + expected + QLatin1Char('\n'));
}

// The built-in table stands in for the schema when no cluster is asked: for a Deployment it
// must say what the server's schema says of every list.
void TestOpenApiLists::theBuiltInTableAgreesWithTheServersSchemaForADeployment()
{
    const ListSemanticsResolver builtin;
    QStringList differ;
    for (const ListSemanticsHint &h : recordedHints(QStringLiteral("apps-v1-1.37.json"), "apps/v1", "Deployment")) {
        std::vector<PathElement> path;
        for (std::size_t from = 0; from <= h.schemaPath.size();) {
            const auto dot = std::min(h.schemaPath.find('.', from), h.schemaPath.size());
            path.push_back(PathElement::makeField(h.schemaPath.substr(from, dot - from)));
            from = dot + 1;
        }
        ListSemantics table = builtin.forList(FieldPath(path), "Deployment");
        ListSemantics schema = h.semantics;
        table.keyDefaults.clear();
        schema.keyDefaults.clear();
        if (!(table == schema))
            differ << QString::fromStdString(describeHints({h})).trimmed();
    }
    QVERIFY2(differ.isEmpty(), qPrintable(differ.join(QLatin1Char('\n'))));
}

void TestOpenApiLists::theIndexNamesEachGroupVersionsDocument_data()
{
    QTest::addColumn<QString>("apiVersion");
    QTest::addColumn<QString>("prefix");
    QTest::newRow("core") << QStringLiteral("v1") << QStringLiteral("/openapi/v3/api/v1?hash=");
    QTest::newRow("apps") << QStringLiteral("apps/v1") << QStringLiteral("/openapi/v3/apis/apps/v1?hash=");
    QTest::newRow("CRD") << QStringLiteral("merge.fieldscope.dev/v1")
                         << QStringLiteral("/openapi/v3/apis/merge.fieldscope.dev/v1?hash=");
    QTest::newRow("not served") << QStringLiteral("nothing.example.com/v9") << QString();
}

void TestOpenApiLists::theIndexNamesEachGroupVersionsDocument()
{
    QFETCH(QString, apiVersion);
    QFETCH(QString, prefix);
    const Json index = fieldscope::testing::loadTestObject(QStringLiteral("openapi/index-1.37.json"));
    auto url = openApiV3DocumentUrl(index, apiVersion.toStdString());
    if (prefix.isEmpty()) {
        QVERIFY(!url);
        QCOMPARE(url.error().category, ErrorCategory::NotFound);
        return;
    }
    QVERIFY2(url, url ? "" : url.error().describe().c_str());
    QVERIFY2(QString::fromStdString(*url).startsWith(prefix), url->c_str());
}

// A document the server could send us with wrong types, loops or sheer size: an error or no
// hint, never an exception or a stack overflow.
void TestOpenApiLists::hostileDocumentsAreErrorsNotCrashes_data()
{
    QTest::addColumn<QString>("document");
    QTest::addColumn<int>("category"); // -1: read; then the list's line
    QTest::addColumn<QString>("list");
    QTest::newRow("not an object") << QStringLiteral("[1]") << int(ErrorCategory::Parse) << QString();
    QTest::newRow("schemas a list") << QStringLiteral(R"j({"components":{"schemas":[]}})j") << int(ErrorCategory::Parse)
                                    << QString();
    QTest::newRow("kind absent")
        << QStringLiteral(R"j({"components":{"schemas":{"a":{"x-kubernetes-group-version-kind":7}}}})j")
        << int(ErrorCategory::NotFound) << QString();
    QTest::newRow("map keys not strings") << QString::fromStdString(
        toJsonText(documentFor(j(R"j({"properties":{"l":{"type":"array","x-kubernetes-list-type":"map",
                  "x-kubernetes-list-map-keys":[1],"items":{"type":"object"}}}})j"))))
                                          << -1 << QStringLiteral("l\tatomic\n");
    QTest::newRow("a $ref to itself") << QString::fromStdString(toJsonText(documentFor(
        j(R"j({"properties":{"l":{"$ref":"#/components/schemas/loop"}}})j"),
        j(R"j({"loop":{"allOf":[{"$ref":"#/components/schemas/loop"}],"properties":{"next":{"$ref":"#/components/schemas/loop"}}}})j"))))
                                      << -1 << QStringLiteral("(none)\n");
}

void TestOpenApiLists::hostileDocumentsAreErrorsNotCrashes()
{
    QFETCH(QString, document);
    QFETCH(int, category);
    QFETCH(QString, list);
    auto hints = listSemanticsFromOpenApi(j(document.toUtf8().constData()), "x.dev/v1", "Thing");
    if (category >= 0) {
        QVERIFY(!hints);
        QCOMPARE(int(hints.error().category), category);
        return;
    }
    QVERIFY2(hints, hints ? "" : hints.error().describe().c_str());
    QCOMPARE(QString::fromStdString(line(*hints, "l")), list);
}

// kMaxSchemaNodes: a schema of exactly that many nodes is read, one more is refused.
void TestOpenApiLists::theWalkStopsAtItsNodeLimit_data()
{
    QTest::addColumn<int>("nodes");
    QTest::addColumn<bool>("read");
    QTest::newRow("at the limit") << int(kMaxSchemaNodes) << true;
    QTest::newRow("past it") << int(kMaxSchemaNodes) + 1 << false;
}

void TestOpenApiLists::theWalkStopsAtItsNodeLimit()
{
    QFETCH(int, nodes);
    QFETCH(bool, read);
    Json properties = Json::object();
    for (int i = 1; i < nodes; ++i) // the root is the first node
        properties["p" + std::to_string(i)] = {{"type", "string"}};
    auto hints = listSemanticsFromOpenApi(documentFor({{"properties", properties}}), "x.dev/v1", "Thing");
    QCOMPARE(hints.ok(), read);
    if (!read)
        QCOMPARE(hints.error().category, ErrorCategory::Parse);
}

// kMaxSchemaFieldDepth: a list that many fields down is read; one deeper is left out.
void TestOpenApiLists::listsDeeperThanTheFieldLimitAreLeftOut_data()
{
    QTest::addColumn<int>("depth");
    QTest::addColumn<bool>("found");
    QTest::newRow("at the limit") << kMaxSchemaFieldDepth << true;
    QTest::newRow("past it") << kMaxSchemaFieldDepth + 1 << false;
}

void TestOpenApiLists::listsDeeperThanTheFieldLimitAreLeftOut()
{
    QFETCH(int, depth);
    QFETCH(bool, found);
    auto hints = listSemanticsFromOpenApi(documentFor(nestedList(depth)), "x.dev/v1", "Thing");
    QVERIFY(hints);
    QCOMPARE(hints->size(), std::size_t(found ? 1 : 0));
}

// The server's rule without a list type: patch strategy merge with a key is a map, without
// one a set; a merge key without the merge strategy is nothing (atomic).
void TestOpenApiLists::patchStrategyStandsInForAMissingListType_data()
{
    QTest::addColumn<QString>("extensions");
    QTest::addColumn<QString>("expected");
    QTest::newRow("merge with key")
        << QStringLiteral(R"j("x-kubernetes-patch-strategy":"merge","x-kubernetes-patch-merge-key":"id")j")
        << QStringLiteral("map id");
    QTest::newRow("merge,retainKeys with key")
        << QStringLiteral(R"j("x-kubernetes-patch-strategy":"merge,retainKeys","x-kubernetes-patch-merge-key":"id")j")
        << QStringLiteral("map id");
    QTest::newRow("merge without key") << QStringLiteral(R"j("x-kubernetes-patch-strategy":"merge")j")
                                       << QStringLiteral("set");
    QTest::newRow("key without merge") << QStringLiteral(R"j("x-kubernetes-patch-merge-key":"id")j")
                                       << QStringLiteral("atomic");
    QTest::newRow("list type wins") << QStringLiteral(
        R"j("x-kubernetes-list-type":"atomic","x-kubernetes-patch-strategy":"merge","x-kubernetes-patch-merge-key":"id")j")
                                    << QStringLiteral("atomic");
}

void TestOpenApiLists::patchStrategyStandsInForAMissingListType()
{
    QFETCH(QString, extensions);
    QFETCH(QString, expected);
    const std::string list = R"j({"properties":{"l":{"type":"array","items":{"type":"object"},)j"
                           + extensions.toStdString() + "}}}";
    auto hints = listSemanticsFromOpenApi(documentFor(j(list.c_str())), "x.dev/v1", "Thing");
    QVERIFY(hints);
    QCOMPARE(QString::fromStdString(line(*hints, "l")), QStringLiteral("l\t") + expected + QLatin1Char('\n'));
}

QTEST_GUILESS_MAIN(TestOpenApiLists)
#include "tst_openapilists.moc"
