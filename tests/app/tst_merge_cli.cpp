// `fieldscope merge BASE MINE THEIRS` as scripts run it: the golden merges of tests/data/merge/
// (the same files tst_threewaymerge checks), exit 0 clean / 1 conflicts / 2 usage or unreadable
// input, and --kubeconfig reading a custom resource's list types from the server's OpenAPI v3
// documents (recorded from the 1.37 server, served by a local transcript server), hostile
// answers included.
#include "fieldscoperun.h"
#include "transcriptserver.h"

#include <QFile>
#include <QTemporaryDir>
#include <QTest>

using namespace fieldscope::testing;

namespace {

QString data(const QString &name)
{
    return QStringLiteral(FIELDSCOPE_TEST_DATA "/") + name;
}

QByteArray readData(const QString &name)
{
    QFile f(data(name));
    if (!f.open(QIODevice::ReadOnly))
        qFatal("cannot open %s", qPrintable(f.fileName()));
    return f.readAll();
}

QStringList sides(const QString &name)
{
    return {data(QStringLiteral("merge/%1.base.yaml").arg(name)), data(QStringLiteral("merge/%1.mine.yaml").arg(name)),
            data(QStringLiteral("merge/%1.theirs.yaml").arg(name))};
}

QString runText(const FieldscopeRun &run)
{
    return QStringLiteral("exit %1\nstdout:\n%2\nstderr:\n%3")
        .arg(run.code)
        .arg(QString::fromUtf8(run.out), QString::fromUtf8(run.err));
}

// Enough of an API server for the command line to connect (legacy discovery of the core group),
// then /openapi/v3 as `index` says and the custom resource's document as `document` says.
void serveSchema(TranscriptServer &server, const TranscriptReply &index, const TranscriptReply &document)
{
    server.on("/version")
        .exactPath()
        .reply(TranscriptReply::json(200, R"j({"major":"1","minor":"37","gitVersion":"v1.37.2"})j"))
        .repeatLast();
    server.on("/api")
        .exactPath()
        .reply(TranscriptReply::json(200, R"j({"kind":"APIVersions","versions":["v1"]})j"))
        .repeatLast();
    server.on("/apis")
        .exactPath()
        .reply(TranscriptReply::json(200, R"j({"kind":"APIGroupList","groups":[]})j"))
        .repeatLast();
    server.on("/api/v1")
        .exactPath()
        .reply(TranscriptReply::json(
            200,
            R"j({"kind":"APIResourceList","groupVersion":"v1","resources":[{"name":"configmaps","singularName":"configmap","namespaced":true,"kind":"ConfigMap","verbs":["get"]}]})j"))
        .repeatLast();
    server.on("/openapi/v3").exactPath().reply(index).repeatLast();
    server.on("/openapi/v3/apis/merge.fieldscope.dev/v1").exactPath().reply(document).repeatLast();
}

TranscriptReply recorded(const char *file)
{
    return TranscriptReply::json(200, readData(QStringLiteral("openapi/") + QLatin1String(file)).toStdString());
}

} // namespace

class TestMergeCli : public QObject
{
    Q_OBJECT
    QTemporaryDir m_home;

private Q_SLOTS:
    void jsonOutputIsTheGoldenMergeAndTheExitCodeSaysIfItConflicts_data();
    void jsonOutputIsTheGoldenMergeAndTheExitCodeSaysIfItConflicts();
    void yamlOutputHoldsMineAtEachConflictAndStderrNamesThem();
    void aCustomResourcesListsAreOneValueWithoutTheClustersSchema();
    void theClustersSchemaKeysACustomResourcesLists();
    void aSchemaThatCannotBeReadIsExitTwoNotAConflict_data();
    void aSchemaThatCannotBeReadIsExitTwoNotAConflict();
    void badInputIsExitTwoNamingTheFile_data();
    void badInputIsExitTwoNamingTheFile();
};

void TestMergeCli::jsonOutputIsTheGoldenMergeAndTheExitCodeSaysIfItConflicts_data()
{
    QTest::addColumn<QString>("name");
    QTest::addColumn<int>("code");
    QTest::newRow("containers") << QStringLiteral("containers") << 1;
    QTest::newRow("ports") << QStringLiteral("ports") << 1;
    QTest::newRow("env") << QStringLiteral("env") << 1;
    QTest::newRow("set: clean") << QStringLiteral("set") << 0;
    QTest::newRow("atomic") << QStringLiteral("atomic") << 1;
}

void TestMergeCli::jsonOutputIsTheGoldenMergeAndTheExitCodeSaysIfItConflicts()
{
    QFETCH(QString, name);
    QFETCH(int, code);
    const FieldscopeRun run = runFieldscope(QStringList{QStringLiteral("merge")} + sides(name)
                                                + QStringList{QStringLiteral("-o"), QStringLiteral("json")},
                                            m_home.path());
    QVERIFY2(run.code == code, qPrintable(runText(run)));
    QCOMPARE(QString::fromUtf8(run.out), QString::fromUtf8(readData(QStringLiteral("merge/%1.merged.json").arg(name))));
}

void TestMergeCli::yamlOutputHoldsMineAtEachConflictAndStderrNamesThem()
{
    const FieldscopeRun run = runFieldscope(QStringList{QStringLiteral("merge")} + sides(QStringLiteral("containers")),
                                            m_home.path());
    QVERIFY2(run.code == 1, qPrintable(runText(run)));
    QVERIFY2(run.out.contains("image: example.com/app:v2") && !run.out.contains("sidecar")
                 && run.out.contains("name: metrics") && run.out.contains("name: debug"),
             qPrintable(runText(run)));
    QVERIFY2(
        run.err.contains(
            R"j(conflict at .spec.template.spec.containers[name="app"].image: base "example.com/app:v1", mine "example.com/app:v2", theirs "example.com/app:v3")j")
            && run.err.contains(R"j(conflict at .spec.template.spec.containers[name="sidecar"]: base)j"),
        qPrintable(runText(run)));
}

// Without the CRD's schema the server would treat its lists as atomic, and so does the merge.
void TestMergeCli::aCustomResourcesListsAreOneValueWithoutTheClustersSchema()
{
    const FieldscopeRun run = runFieldscope(QStringList{QStringLiteral("merge")} + sides(QStringLiteral("crd")),
                                            m_home.path());
    QVERIFY2(run.code == 1, qPrintable(runText(run)));
    QVERIFY2(run.err.contains("conflict at .spec.routes: ") && run.err.contains("fieldscope: 3 conflicts"),
             qPrintable(runText(run)));
}

void TestMergeCli::theClustersSchemaKeysACustomResourcesLists()
{
    TranscriptServer server;
    serveSchema(server, recorded("index-1.37.json"), recorded("merge.fieldscope.dev-v1-1.37.json"));
    const QString kubeconfig = writeTokenKubeconfig(m_home.path(), server.url());
    QVERIFY(!kubeconfig.isEmpty());
    const FieldscopeRun run = runFieldscope(QStringList{QStringLiteral("merge")} + sides(QStringLiteral("crd"))
                                                + QStringList{QStringLiteral("-o"), QStringLiteral("json"),
                                                              QStringLiteral("--kubeconfig"), kubeconfig},
                                            m_home.path());
    QVERIFY2(run.code == 1, qPrintable(runText(run)));
    QCOMPARE(QString::fromUtf8(run.out), QString::fromUtf8(readData(QStringLiteral("merge/crd.merged.json"))));
    bool hashed = false; // the document is asked for by the URL the index names (the server caches it under it)
    for (const RecordedRequest &r : server.requests())
        hashed = hashed || (r.path == "/openapi/v3/apis/merge.fieldscope.dev/v1" && r.queryValue("hash").has_value());
    QVERIFY(hashed);
}

void TestMergeCli::aSchemaThatCannotBeReadIsExitTwoNotAConflict_data()
{
    QTest::addColumn<QString>("index");
    QTest::addColumn<QString>("document");
    QTest::addColumn<QString>("message");
    const QString url = QStringLiteral("/openapi/v3/apis/merge.fieldscope.dev/v1?hash=1");
    const QString index = QStringLiteral(R"j({"paths":{"apis/merge.fieldscope.dev/v1":{"serverRelativeURL":"%1"}}})j");
    QTest::newRow("group version not published")
        << QStringLiteral(R"j({"paths":{}})j") << QString()
        << QStringLiteral("no OpenAPI v3 document for merge.fieldscope.dev/v1");
    QTest::newRow("index of the wrong type")
        << QStringLiteral(R"j({"paths":[]})j") << QString() << QStringLiteral("index has no paths object");
    QTest::newRow("a URL elsewhere") << index.arg(QStringLiteral("https://elsewhere.example.com/x")) << QString()
                                     << QStringLiteral("is not an /openapi/v3/ path");
    QTest::newRow("document not JSON") << index.arg(url) << QStringLiteral("{")
                                       << QStringLiteral("GET /openapi/v3/apis");
    QTest::newRow("schemas a list") << index.arg(url) << QStringLiteral(R"j({"components":{"schemas":[]}})j")
                                    << QStringLiteral("no components.schemas object");
    QTest::newRow("kind not there") << index.arg(url) << QStringLiteral(R"j({"components":{"schemas":{}}})j")
                                    << QStringLiteral("no schema for Router merge.fieldscope.dev/v1");
}

void TestMergeCli::aSchemaThatCannotBeReadIsExitTwoNotAConflict()
{
    QFETCH(QString, index);
    QFETCH(QString, document);
    QFETCH(QString, message);
    TranscriptServer server;
    serveSchema(server, TranscriptReply::json(200, index.toStdString()),
                TranscriptReply::json(200, document.toStdString()));
    const QString kubeconfig = writeTokenKubeconfig(m_home.path(), server.url());
    const FieldscopeRun run = runFieldscope(QStringList{QStringLiteral("merge")} + sides(QStringLiteral("crd"))
                                                + QStringList{QStringLiteral("--kubeconfig"), kubeconfig},
                                            m_home.path());
    QVERIFY2(run.code == 2 && !run.crashed, qPrintable(runText(run)));
    QVERIFY2(run.out.isEmpty() && QString::fromUtf8(run.err).contains(message), qPrintable(runText(run)));
}

void TestMergeCli::badInputIsExitTwoNamingTheFile_data()
{
    QTest::addColumn<QByteArray>("mine");
    QTest::addColumn<QStringList>("extra");
    QTest::addColumn<QString>("message");
    const QByteArray ok = readData(QStringLiteral("merge/set.mine.yaml"));
    QTest::newRow("malformed YAML") << QByteArray("a: [1, 2\n") << QStringList{} << QStringLiteral("mine.yaml");
    QTest::newRow("two objects") << ok + "---\n" + ok << QStringList{}
                                 << QStringLiteral("mine.yaml: holds 2 objects; merge takes one object per file");
    QTest::newRow("not a mapping") << QByteArray("- 1\n") << QStringList{} << QStringLiteral("mine.yaml");
    QTest::newRow("unknown output") << ok << QStringList{QStringLiteral("-o"), QStringLiteral("xml")}
                                    << QStringLiteral("usage: fieldscope merge");
    QTest::newRow("missing file") << QByteArray() << QStringList{} << QStringLiteral("cannot read");
}

void TestMergeCli::badInputIsExitTwoNamingTheFile()
{
    QFETCH(QByteArray, mine);
    QFETCH(QStringList, extra);
    QFETCH(QString, message);
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("mine.yaml"));
    if (!mine.isEmpty()) {
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly) && f.write(mine) == mine.size());
    }
    const QStringList s = sides(QStringLiteral("set"));
    const FieldscopeRun run = runFieldscope(QStringList{QStringLiteral("merge"), s[0], path, s[2]} + extra,
                                            m_home.path());
    QVERIFY2(run.code == 2 && !run.crashed, qPrintable(runText(run)));
    QVERIFY2(QString::fromUtf8(run.err).contains(message), qPrintable(runText(run)));
}

QTEST_GUILESS_MAIN(TestMergeCli)
#include "tst_merge_cli.moc"
