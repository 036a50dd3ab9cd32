// The real `fieldscope list` binary against a local HTTP server (a real socket, libcurl and the
// whole CLI path) that answers with wrongly typed documents: the command ends with a message
// naming the field and exit 1, never std::terminate (exit 134) (README.md, Security).
#include "core/base/json.h"
#include "core/history/historystore.h"
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

    // `fieldscope revert` whose live object has "metadata": [] (a JSON pointer walk into it threw
    // nlohmann's parse_error.109, printed as "could not read the input" with no JSON outcome):
    // refused with a message that says so, the outcome document printed, nothing written.
    void revertOfALiveObjectWithListMetadataIsRefusedWithAMessage()
    {
        TranscriptServer server;
        server.on("/api/v1/namespaces/x/configmaps/a")
            .exactPath()
            .reply(TranscriptReply::json(200, R"({"apiVersion":"v1","kind":"ConfigMap","metadata":[]})"))
            .repeatLast();
        serve(server, kLegacyV1, kList, 200);
        QTemporaryDir home;
        QVERIFY(home.isValid());
        const QString db = home.filePath(QStringLiteral("history.db"));
        {
            namespace core = fieldscope::core;
            auto store = core::HistoryStore::open(db.toStdString());
            QVERIFY(store.ok());
            std::vector<core::WatchEvent> events;
            for (const char *rv : {"5", "9"})
                events.push_back(
                    {std::string(rv) == "5" ? core::HistoryEventType::Added : core::HistoryEventType::Modified,
                     std::string(R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a","namespace":"x",)")
                         + R"("uid":"u1","resourceVersion":")" + rv + R"("},"data":{"v":")" + rv + R"("}})",
                     1'784'000'000'000});
            QVERIFY((*store)
                        ->write({{core::WatchScope::of({"", "v1", "configmaps"}, "x"), std::move(events), {}, {}}})
                        .ok());
        }
        const QString kubeconfig = writeTokenKubeconfig(home.path(), server.url());
        const FieldscopeRun r = runFieldscope({QStringLiteral("revert"), QStringLiteral("configmaps/a"),
                                               QStringLiteral("-n"), QStringLiteral("x"), QStringLiteral("--db"), db,
                                               QStringLiteral("--to"), QStringLiteral("5"), QStringLiteral("-o"),
                                               QStringLiteral("json"), QStringLiteral("--kubeconfig"), kubeconfig},
                                              home.path(), {QString(), 30'000});
        QVERIFY2(!r.crashed, r.err.constData());
        QCOMPARE(r.code, 1);
        QVERIFY2(!r.err.contains("json.exception"), r.err.constData());
        auto outcome = fieldscope::core::parseJson(r.out.toStdString());
        QVERIFY2(outcome.ok() && outcome->is_object(), r.out.constData());
        QCOMPARE(outcome->value("result", std::string()), std::string("refused"));
        QVERIFY2(outcome->value("message", std::string()).find("its metadata is missing or not an object")
                     != std::string::npos,
                 r.out.constData());
        for (const auto &req : server.requests())
            QVERIFY2(req.method == "GET", req.target.c_str());
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
