// The real `fieldscope list` binary against a legacy server with 3,000 API groups (a real socket,
// libcurl and the whole CLI path): the core resource is listed without waiting for the groups,
// the next run asks no discovery document the first one already had, a type the cache lacks is
// asked of the server, and --refresh-discovery asks everything again.
#include "fieldscoperun.h"
#include "transcriptserver.h"

#include <QTemporaryDir>
#include <QTest>

using namespace fieldscope::testing;

namespace {

std::string groupList(int groups)
{
    std::string out = R"({"kind":"APIGroupList","groups":[)";
    for (int i = 0; i < groups; ++i) {
        const std::string g = "g" + std::to_string(i) + ".example.com";
        out += std::string(i ? "," : "") + R"({"name":")" + g + R"(","versions":[{"groupVersion":")" + g
             + R"(/v1","version":"v1"}],"preferredVersion":{"groupVersion":")" + g + R"(/v1","version":"v1"}})";
    }
    return out + "]}";
}

std::string resources(const std::string &name, const std::string &kind)
{
    return R"({"kind":"APIResourceList","resources":[{"name":")" + name
         + R"(","singularName":"","namespaced":true,"kind":")" + kind + R"(","verbs":["get","list","watch"]}]})";
}

std::string list(const std::string &kind)
{
    return R"({"kind":")" + kind + R"(List","apiVersion":"v1","metadata":{"resourceVersion":"10"},)"
         + R"("items":[{"metadata":{"name":"a","namespace":"x","uid":"u1","resourceVersion":"9"}}]})";
}

TranscriptReply slow(std::string body, int ms)
{
    TranscriptReply r;
    r.chunked = true;
    r.headers.emplace_back("Content-Type", "application/json");
    r.pieces.push_back({ms, std::move(body)});
    return r;
}

// The core group as a newer answer has it: a CRD-like type beside ConfigMaps.
std::string coreWithGadgets()
{
    return R"({"kind":"APIResourceList","resources":[)"
           R"({"name":"configmaps","namespaced":true,"kind":"ConfigMap","verbs":["list","watch"]},)"
           R"({"name":"gadgets","namespaced":true,"kind":"Gadget","verbs":["list","watch"]}]})";
}

// `coreOnce`: /api/v1 answers once, so that a rule added later answers the next runs.
void serve(TranscriptServer &server, int groups, bool coreOnce = false)
{
    server.on("/version").exactPath().reply(TranscriptReply::json(200, R"({"gitVersion":"v1.20.2"})")).repeatLast();
    server.on("/api")
        .exactPath()
        .reply(TranscriptReply::json(200, R"({"kind":"APIVersions","versions":["v1"]})"))
        .repeatLast();
    auto &core = server.on("/api/v1").exactPath().reply(TranscriptReply::json(200,
                                                                              resources("configmaps", "ConfigMap")));
    if (!coreOnce)
        core.repeatLast();
    server.on("/api/v1/namespaces/x/configmaps").reply(TranscriptReply::json(200, list("ConfigMap"))).repeatLast();
    server.on("/apis").exactPath().reply(TranscriptReply::json(200, groupList(groups))).repeatLast();
}

int countExact(const TranscriptServer &s, const std::string &path)
{
    return s.count([&](const RecordedRequest &r) { return r.path == path; });
}

} // namespace

class TestCliDiscovery : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void listOfACoreTypeDoesNotWaitForThousandsOfGroupsAndTheNextRunReusesWhatTheFirstLearnt()
    {
        constexpr int kGroups = 3000;
        TranscriptServer server;
        serve(server, kGroups);
        server.on("/apis/").reply(slow(resources("widgets", "Widget"), 200)).repeatLast();
        QTemporaryDir home;
        const QString kubeconfig = writeTokenKubeconfig(home.path(), server.url(),
                                                        {QStringLiteral("x"), QStringLiteral("x")});
        const QStringList args{QStringLiteral("list"),         QStringLiteral("configmaps"),
                               QStringLiteral("--kubeconfig"), kubeconfig,
                               QStringLiteral("-o"),           QStringLiteral("names")};

        const FieldscopeRun first = runFieldscope(args, home.path());
        QVERIFY2(first.code == 0, first.err.constData());
        QVERIFY2(first.out.contains("a"), first.out.constData());
        // 3,000 groups at 200 ms, 8 at a time, would take 75 s: the list went out after a handful.
        const auto listed = server.requests("/api/v1/namespaces/x/configmaps");
        QCOMPARE(int(listed.size()), 1);
        const int groupsBeforeList = server.count([&](const RecordedRequest &r) {
            return r.path.rfind("/apis/", 0) == 0 && r.atMs <= listed.front().atMs;
        });
        QVERIFY2(groupsBeforeList <= 4 * 8, qPrintable(QString::number(groupsBeforeList)));

        const int coreAsked = countExact(server, "/api/v1");
        const int groupListsAsked = countExact(server, "/apis");
        const FieldscopeRun second = runFieldscope(args, home.path());
        QVERIFY2(second.code == 0, second.err.constData());
        QCOMPARE(int(server.requests("/api/v1/namespaces/x/configmaps").size()), 2);
        QCOMPARE(countExact(server, "/api/v1"), coreAsked); // from the cache
        // The group list again only if the first run ended before it answered (its progress is kept
        // from the core group on, and the next run asks what is missing).
        QVERIFY(countExact(server, "/apis") <= groupListsAsked + 1);
        QCOMPARE(countExact(server, "/api"), 1); // only the first run asked the format
        // The groups the first run had not heard are asked (the cache is then whole sooner); each at
        // most twice in all (once more if the first run's request was cut off when it ended).
        for (const auto &r : server.requests("/apis/"))
            QVERIFY2(countExact(server, r.path) <= 2, r.path.c_str());

        const FieldscopeRun refreshed = runFieldscope(args + QStringList{QStringLiteral("--refresh-discovery")},
                                                      home.path());
        QVERIFY2(refreshed.code == 0, refreshed.err.constData());
        QCOMPARE(countExact(server, "/api/v1"), coreAsked + 1);
    }

    void aTypeTheCacheLacksIsAskedOfTheServerOnce()
    {
        TranscriptServer server;
        serve(server, 0, true);
        QTemporaryDir home;
        const QString kubeconfig = writeTokenKubeconfig(home.path(), server.url(),
                                                        {QStringLiteral("x"), QStringLiteral("x")});
        const FieldscopeRun first = runFieldscope({QStringLiteral("list"), QStringLiteral("configmaps"),
                                                   QStringLiteral("--kubeconfig"), kubeconfig},
                                                  home.path());
        QVERIFY2(first.code == 0, first.err.constData());
        QCOMPARE(countExact(server, "/api/v1"), 1);
        // A CRD-like type appears in the core answer from now on (the cache does not have it).
        server.on("/api/v1").exactPath().reply(TranscriptReply::json(200, coreWithGadgets())).repeatLast();
        server.on("/api/v1/namespaces/x/gadgets").reply(TranscriptReply::json(200, list("Gadget"))).repeatLast();
        const FieldscopeRun second = runFieldscope({QStringLiteral("list"), QStringLiteral("gadgets"),
                                                    QStringLiteral("--kubeconfig"), kubeconfig},
                                                   home.path());
        QVERIFY2(second.code == 0, second.err.constData());
        QCOMPARE(countExact(server, "/api/v1"), 2);
        // Unknown everywhere: one refresh, then the usual message.
        const FieldscopeRun third = runFieldscope({QStringLiteral("list"), QStringLiteral("sprockets"),
                                                   QStringLiteral("--kubeconfig"), kubeconfig},
                                                  home.path());
        QCOMPARE(third.code, 1);
        QVERIFY2(third.err.contains("doesn't have a resource type \"sprockets\""), third.err.constData());
        QCOMPARE(countExact(server, "/api/v1"), 3);
    }
};

QTEST_GUILESS_MAIN(TestCliDiscovery)
#include "tst_cli_discovery.moc"
