// The real `fieldscope list` binary against a local HTTP server (a real socket, libcurl and the
// whole CLI path) that answers with wrongly typed documents: the command ends with a message
// naming the field and exit 1, never std::terminate (exit 134) (README.md, Security).
#include "fieldscoperun.h"
#include "transcriptserver.h"

#include <QTemporaryDir>
#include <QTest>

#include <cstring>

using namespace fieldscope::testing;

namespace {

const char *kLegacyV1 = R"({"kind":"APIResourceList","groupVersion":"v1","resources":[
  {"name":"configmaps","singularName":"configmap","namespaced":true,"kind":"ConfigMap","verbs":["get","list","watch"],"shortNames":["cm"]}]})";

const char *kList = R"({"kind":"ConfigMapList","apiVersion":"v1","metadata":{"resourceVersion":"10"},
  "items":[{"metadata":{"name":"a","namespace":"x","uid":"u1","resourceVersion":"9"}}]})";

// A legacy (non-aggregated) apiserver with one group version, v1, whose documents the row sets.
void serve(TranscriptServer &server, const std::string &v1, const std::string &list, int listStatus)
{
    server.on("/version").exactPath().reply(TranscriptReply::json(200, R"({"gitVersion":"v1.30.0"})")).repeatLast();
    server.on("/api")
        .exactPath()
        .reply(TranscriptReply::json(200, R"({"kind":"APIVersions","versions":["v1"]})"))
        .repeatLast();
    server.on("/apis")
        .exactPath()
        .reply(TranscriptReply::json(200, R"({"kind":"APIGroupList","groups":[]})"))
        .repeatLast();
    server.on("/api/v1").exactPath().reply(TranscriptReply::json(200, v1)).repeatLast();
    server.on("/api/v1/namespaces/x/configmaps").reply(TranscriptReply::json(listStatus, list)).repeatLast();
}

std::string with(const char *doc, const char *from, const char *to)
{
    std::string s = doc;
    const auto at = s.find(from);
    if (at == std::string::npos)
        qFatal("row does not apply: %s", from);
    return s.replace(at, std::strlen(from), to);
}

// `fieldscope list configmaps -n x` with a kubeconfig (token auth) pointing at `server`.
FieldscopeRun listConfigMaps(const TranscriptServer &server, const QString &home)
{
    const QString kubeconfig = writeTokenKubeconfig(home, server.url());
    return runFieldscope({QStringLiteral("list"), QStringLiteral("configmaps"), QStringLiteral("-n"),
                          QStringLiteral("x"), QStringLiteral("--kubeconfig"), kubeconfig},
                         home, {QString(), 30'000});
}

} // namespace

class TestCliUntrusted : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void listAgainstAWronglyTypedServerExitsOneWithAParseMessage_data()
    {
        QTest::addColumn<std::string>("v1");
        QTest::addColumn<std::string>("list");
        QTest::addColumn<int>("listStatus");
        QTest::addColumn<QByteArray>("expected");
        QTest::newRow("discovery namespaced is a string (the issue's exit 134)")
            << with(kLegacyV1, R"("namespaced":true)", R"("namespaced":"true")") << std::string(kList) << 200
            << QByteArray("resources[0].namespaced is a string, expected a boolean");
        QTest::newRow("discovery verbs hold a number")
            << with(kLegacyV1, R"(["get","list","watch"])", R"(["get",7])") << std::string(kList) << 200
            << QByteArray("resources[0].verbs[1] is a number, expected a string");
        QTest::newRow("list page resourceVersion is a number")
            << std::string(kLegacyV1) << with(kList, R"("resourceVersion":"10")", R"("resourceVersion":10)") << 200
            << QByteArray("metadata.resourceVersion");
        QTest::newRow("list item uid is an object")
            << std::string(kLegacyV1) << with(kList, R"("uid":"u1")", R"("uid":{})") << 200
            << QByteArray("items[0].metadata.uid");
        QTest::newRow("Status message is a number")
            << std::string(kLegacyV1)
            << std::string(
                   R"({"kind":"Status","apiVersion":"v1","status":"Failure","message":42,"reason":"Forbidden","code":403})")
            << 403 << QByteArray("message is a number, expected a string");
        QTest::newRow("Status causes hold strings")
            << std::string(kLegacyV1)
            << std::string(
                   R"({"kind":"Status","apiVersion":"v1","status":"Failure","message":"m","reason":"Invalid","details":{"causes":["x"]},"code":422})")
            << 422 << QByteArray("details.causes[0] is a string, expected an object");
        QTest::newRow("invalid UTF-8 in a list item is refused")
            << std::string(kLegacyV1) << with(kList, R"("name":"a")", "\"name\":\"a\xff\"") << 200 << QByteArray("UTF");
    }
    void listAgainstAWronglyTypedServerExitsOneWithAParseMessage()
    {
        QFETCH(std::string, v1);
        QFETCH(std::string, list);
        QFETCH(int, listStatus);
        QFETCH(QByteArray, expected);
        TranscriptServer server;
        serve(server, v1, list, listStatus);
        QTemporaryDir home;
        QVERIFY(home.isValid());
        const FieldscopeRun r = listConfigMaps(server, home.path());
        QVERIFY2(!r.crashed, r.err.constData());
        QCOMPARE(r.code, 1);
        QVERIFY2(r.err.contains(expected), r.err.constData());
        QVERIFY2(!r.err.contains("terminate"), r.err.constData());
    }

    void listAgainstAWellTypedServerStillWorks()
    {
        TranscriptServer server;
        serve(server, kLegacyV1, kList, 200);
        QTemporaryDir home;
        const FieldscopeRun r = listConfigMaps(server, home.path());
        QCOMPARE(r.code, 0);
        QCOMPARE(r.out, QByteArray("x/a\n"));
    }
};

QTEST_GUILESS_MAIN(TestCliUntrusted)
#include "tst_cli_untrusted.moc"
