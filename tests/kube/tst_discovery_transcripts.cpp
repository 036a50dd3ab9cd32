// Discovery against replayed answers: aggregated apidiscovery.k8s.io/v2 from a 1.37 server
// (recorded by tests/data/transcripts/record-modern.sh), chosen by the response Content-Type,
// with ETag revalidation; the legacy per-group-version path when the server answers plain application/json, with a
// failing aggregated APIService recorded while the rest is shown.
#include "kube/discovery.h"
#include "transcriptserver.h"

#include <QSignalSpy>
#include <QTest>

#include <algorithm>

using namespace fieldscope;
using namespace fieldscope::testing;

namespace {

// Exactly what client-go sends (AcceptV2 + "," + AcceptV1 in k8s.io/client-go/discovery/discovery_client.go).
const std::string kAggregatedAccept =
    "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json";
const std::string kApiEtag =
    "\"4D7E1BED90B364BC86049DD9E636494980AEF65B7F8CFAA267616FA062B514A8A3CC2C2851CC9337B8D28B4C80960E2353DE5E0B152E87CC223E02EA3C5C37AC\"";
const std::string kApisEtag =
    "\"C1F1010597FE58AB064229356A99E46C1A393186FA4A195FB7F52CC9716570130AA2FD3A1637DC37D5C215C4A3A6022B5C46487215FF916DE5BA1DD781D395AE\"";

struct Fixture {
    TranscriptServer server;
    kube::ApiClient client;
    kube::Discovery discovery;

    Fixture() : client(makeTransport(server)), discovery(&client)
    {
        server.on("/version").exactPath().replyFile(QStringLiteral("discovery/version-1.37.http")).repeatLast();
    }
    static std::shared_ptr<kube::Transport> makeTransport(const TranscriptServer &s)
    {
        kube::TransportConfig config;
        config.server = s.url();
        config.qps = 0;
        return std::make_shared<kube::Transport>(config);
    }

    void serveAggregated()
    {
        server.on("/api").exactPath().replyFile(QStringLiteral("discovery/aggregated-1.37-api.http"));
        server.on("/apis").exactPath().replyFile(QStringLiteral("discovery/aggregated-1.37-apis.http"));
    }
    void serveAggregatedWithStaleMetrics()
    {
        server.on("/api").exactPath().replyFile(QStringLiteral("discovery/aggregated-1.37-api.http"));
        server.on("/apis").exactPath().replyFile(QStringLiteral("discovery/aggregated-stale-metrics-apis.http"));
    }
    void serveLegacy()
    {
        server.on("/api").exactPath().replyFile(QStringLiteral("discovery/legacy-api.http"));
        server.on("/apis").exactPath().replyFile(QStringLiteral("discovery/legacy-apis.http"));
        server.on("/api/v1").exactPath().replyFile(QStringLiteral("discovery/legacy-api-v1.http"));
        server.on("/apis/apps/v1").exactPath().replyFile(QStringLiteral("discovery/legacy-apps-v1.http"));
        server.on("/apis/autoscaling/v2").exactPath().replyFile(QStringLiteral("discovery/legacy-autoscaling-v2.http"));
        server.on("/apis/autoscaling/v1").exactPath().replyFile(QStringLiteral("discovery/legacy-autoscaling-v1.http"));
        server.on("/apis/metrics.k8s.io/v1beta1")
            .exactPath()
            .replyFile(QStringLiteral("discovery/legacy-metrics-503.http"));
    }

    // Runs one refresh to its end; false when it failed or timed out.
    bool refresh()
    {
        QSignalSpy finished(&discovery, &kube::Discovery::finished);
        QSignalSpy failed(&discovery, &kube::Discovery::failed);
        discovery.refresh();
        if (!finished.wait(10'000))
            return false;
        return failed.isEmpty();
    }

    const kube::ResourceInfo *get(const std::string &group, const std::string &version,
                                  const std::string &resource) const
    {
        for (const auto &r : discovery.snapshot().resources)
            if (r.group == group && r.version == version && r.resource == resource)
                return &r;
        return nullptr;
    }
};

// Documents built in code (outside the test class: moc miscounts braces inside raw strings).
std::string groupEntry(const std::string &g)
{
    return R"({"name":")" + g + R"(","versions":[{"groupVersion":")" + g
         + R"(/v1","version":"v1"}],"preferredVersion":{"groupVersion":")" + g + R"(/v1","version":"v1"}})";
}
std::string groupList(const std::string &groups)
{
    return R"({"kind":"APIGroupList","groups":[)" + groups + "]}";
}
std::string widgetList(const std::string &g)
{
    return R"({"kind":"APIResourceList","groupVersion":")" + g
         + R"(/v1","resources":[{"name":"widgets","singularName":"widget","namespaced":true,"kind":"Widget","verbs":["get","list","watch"]}]})";
}
std::string secretsWithStringNamespaced()
{
    return R"({"name":"secrets","singularName":"secret","namespaced":"true","kind":"Secret","verbs":["get","list"]},)";
}
std::string podsEntryStart()
{
    return R"({"name":"pods",)";
}

QStringList names(const std::vector<std::string> &v)
{
    QStringList out;
    for (const auto &s : v)
        out << QString::fromStdString(s);
    return out;
}

} // namespace

class TestDiscoveryTranscripts : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void aggregatedDiscoveryAsksWithClientGosAcceptAndNeedsTwoRequests()
    {
        Fixture f;
        f.serveAggregated();
        QVERIFY(f.refresh());
        QVERIFY(f.discovery.snapshot().aggregated);
        QCOMPARE(QString::fromStdString(f.discovery.snapshot().serverVersion), QStringLiteral("v1.37.2"));
        const auto api = f.server.requests("/api");
        QCOMPARE(int(api.size()), 2); // /api and /apis, nothing per group version
        for (const auto &r : api)
            QCOMPARE(QString::fromStdString(r.header("Accept").value_or("")),
                     QString::fromStdString(kAggregatedAccept));
        QVERIFY(f.server.unmatched().empty());
    }

    void aggregatedPreferredVersionIsTheFirstListed()
    {
        Fixture f;
        f.serveAggregated();
        QVERIFY(f.refresh());
        const auto *v2 = f.get("autoscaling", "v2", "horizontalpodautoscalers");
        const auto *v1 = f.get("autoscaling", "v1", "horizontalpodautoscalers");
        QVERIFY(v2 && v1);
        QVERIFY(v2->preferred);
        QVERIFY(!v1->preferred);
        QCOMPARE(f.discovery.snapshot().find("autoscaling", "horizontalpodautoscalers"), v2);
        QCOMPARE(f.discovery.snapshot().resolve("hpa"), v2);
    }

    void aggregatedEmptyResponseKindGroupVersionMeansTheEnclosingOne()
    {
        Fixture f;
        f.serveAggregated();
        QVERIFY(f.refresh());
        const auto *deploy = f.discovery.snapshot().resolve("deploy");
        QVERIFY(deploy);
        QCOMPARE(QString::fromStdString(deploy->kind), QStringLiteral("Deployment"));
        QCOMPARE(QString::fromStdString(deploy->apiVersion()), QStringLiteral("apps/v1"));
        QVERIFY(deploy->namespaced);
        // The core group comes from /api as a group without a name.
        const auto *cm = f.discovery.snapshot().resolve("cm");
        QVERIFY(cm);
        QCOMPARE(QString::fromStdString(cm->apiVersion()), QStringLiteral("v1"));
        QCOMPARE(QString::fromStdString(cm->kind), QStringLiteral("ConfigMap"));
        const auto *ns = f.discovery.snapshot().resolve("namespaces");
        QVERIFY(ns && !ns->namespaced); // scope "Cluster"
    }

    void aggregatedSubresourcesAreNestedUnderTheirParent()
    {
        Fixture f;
        f.serveAggregated();
        QVERIFY(f.refresh());
        QCOMPARE(names(f.get("apps", "v1", "deployments")->subresources),
                 (QStringList{QStringLiteral("scale"), QStringLiteral("status")}));
        QCOMPARE(names(f.get("", "v1", "pods")->subresources),
                 (QStringList{QStringLiteral("attach"), QStringLiteral("binding"),
                              QStringLiteral("ephemeralcontainers"), QStringLiteral("eviction"), QStringLiteral("exec"),
                              QStringLiteral("log"), QStringLiteral("portforward"), QStringLiteral("proxy"),
                              QStringLiteral("resize"), QStringLiteral("status")}));
        for (const auto &r : f.discovery.snapshot().resources)
            QVERIFY2(r.resource.find('/') == std::string::npos, r.resource.c_str());
    }

    void aggregatedStaleGroupVersionIsFlaggedAndNotFatal()
    {
        Fixture f;
        f.serveAggregatedWithStaleMetrics();
        QVERIFY(f.refresh());
        const auto *podMetrics = f.get("metrics.k8s.io", "v1beta1", "pods");
        QVERIFY(podMetrics);
        QVERIFY(podMetrics->stale);
        QVERIFY(f.get("metrics.k8s.io", "v1beta1", "nodes")->stale);
        QVERIFY(!f.get("apps", "v1", "deployments")->stale);
        QVERIFY(f.discovery.snapshot().failedGroups.empty());
    }

    void aggregatedContentTypeIsRecognisedInAnyParameterOrder()
    {
        QVERIFY(kube::isAggregatedContentType("application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"));
        QVERIFY(
            kube::isAggregatedContentType("application/json; as=APIGroupDiscoveryList; v=v2; g=apidiscovery.k8s.io"));
        QVERIFY(!kube::isAggregatedContentType("application/json"));
        QVERIFY(!kube::isAggregatedContentType("application/json;as=Table;v=v1;g=meta.k8s.io"));
    }

    void plainJsonContentTypeFallsBackToLegacyDiscovery()
    {
        Fixture f;
        f.serveLegacy();
        QVERIFY(f.refresh());
        const auto &snap = f.discovery.snapshot();
        QVERIFY(!snap.aggregated);
        // One request per group version, as on servers without aggregated discovery.
        for (const char *path : {"/api/v1", "/apis/apps/v1", "/apis/autoscaling/v2", "/apis/autoscaling/v1",
                                 "/apis/metrics.k8s.io/v1beta1"})
            QCOMPARE(f.server.count([path](const RecordedRequest &r) { return r.path == path; }), 1);
        QVERIFY(f.get("autoscaling", "v2", "horizontalpodautoscalers")->preferred);
        QVERIFY(!f.get("autoscaling", "v1", "horizontalpodautoscalers")->preferred);
        QCOMPARE(names(f.get("apps", "v1", "deployments")->subresources),
                 (QStringList{QStringLiteral("scale"), QStringLiteral("status")}));
        QCOMPARE(names(f.get("", "v1", "pods")->subresources),
                 (QStringList{QStringLiteral("log"), QStringLiteral("status")}));
        QVERIFY(!f.get("", "v1", "pods/log"));
        QVERIFY(f.server.unmatched().empty());
    }

    void legacyGroupVersionAnswering503IsRecordedWhileTheRestIsShown()
    {
        Fixture f;
        f.serveLegacy();
        QVERIFY(f.refresh()); // finished, not failed
        const auto &failed = f.discovery.snapshot().failedGroups;
        QCOMPARE(int(failed.size()), 1);
        QVERIFY(failed.count("metrics.k8s.io/v1beta1"));
        const QString why = QString::fromStdString(failed.at("metrics.k8s.io/v1beta1"));
        QVERIFY2(why.contains(QStringLiteral("503")) && why.contains(QStringLiteral("service unavailable")),
                 qPrintable(why));
        QVERIFY(!f.get("metrics.k8s.io", "v1beta1", "pods"));
        QVERIFY(f.get("apps", "v1", "deployments"));
        QVERIFY(f.get("", "v1", "configmaps"));
    }

    void etagRevalidationWith304ReusesTheCachedDocuments()
    {
        Fixture f;
        auto noEtag = [](const RecordedRequest &r) { return !r.header("If-None-Match"); };
        f.server.on("/api").exactPath().where(noEtag).replyFile(QStringLiteral("discovery/aggregated-1.37-api.http"));
        f.server.on("/apis").exactPath().where(noEtag).replyFile(QStringLiteral("discovery/aggregated-1.37-apis.http"));
        f.server.on("/api")
            .exactPath()
            .where([](const RecordedRequest &r) { return r.header("If-None-Match") == kApiEtag; })
            .replyFile(QStringLiteral("discovery/aggregated-1.37-api-304.http"));
        f.server.on("/apis")
            .exactPath()
            .where([](const RecordedRequest &r) { return r.header("If-None-Match") == kApisEtag; })
            .replyFile(QStringLiteral("discovery/aggregated-1.37-apis-304.http"));
        QVERIFY(f.refresh());
        const auto first = f.discovery.snapshot().resources.size();
        QVERIFY(first > 0);

        QVERIFY(f.refresh());
        const auto &snap = f.discovery.snapshot();
        QVERIFY(snap.aggregated);
        QCOMPARE(snap.resources.size(), first);
        QVERIFY(f.get("autoscaling", "v2", "horizontalpodautoscalers")->preferred);
        QCOMPARE(names(f.get("apps", "v1", "deployments")->subresources),
                 (QStringList{QStringLiteral("scale"), QStringLiteral("status")}));
        const auto requests = f.server.requests("/api");
        QCOMPARE(int(requests.size()), 4);
        QCOMPARE(QString::fromStdString(requests[2].header("If-None-Match").value_or("")),
                 QString::fromStdString(kApiEtag));
        QCOMPARE(QString::fromStdString(requests[3].header("If-None-Match").value_or("")),
                 QString::fromStdString(kApisEtag));
        QVERIFY(f.server.unmatched().empty());
    }
    void legacyDiscoveryOfFiftyGroupsKeepsAtMostEightRequestsInFlight()
    {
        Fixture f;
        constexpr int kGroups = 50;
        constexpr int kAnswerMs = 300;
        std::string groups;
        for (int i = 0; i < kGroups; ++i) {
            const std::string g = "g" + std::to_string(i) + ".example.com";
            groups += std::string(i ? "," : "") + groupEntry(g);
            TranscriptReply slow;
            slow.chunked = true;
            slow.headers.emplace_back("Content-Type", "application/json");
            slow.pieces.push_back({kAnswerMs, widgetList(g)});
            f.server.on("/apis/" + g + "/v1").exactPath().reply(slow);
        }
        f.server.on("/api").exactPath().replyFile(QStringLiteral("discovery/legacy-api.http"));
        f.server.on("/api/v1").exactPath().replyFile(QStringLiteral("discovery/legacy-api-v1.http"));
        f.server.on("/apis").exactPath().reply(TranscriptReply::json(200, groupList(groups)));
        QSignalSpy finished(&f.discovery, &kube::Discovery::finished);
        f.discovery.refresh();
        // Just after the first group request reached the server no group answer (300 ms each)
        // has come back: the transport has started /version, /api, /apis, at most 8 group
        // versions and one more for the fast /api/v1 answer. Unbounded, all 51 start at once. (The
        // server itself cannot count them: libcurl holds more than 6 per host in its own queue.)
        QTRY_VERIFY_WITH_TIMEOUT(!f.server.requests("/apis/").empty(), 10'000);
        QTest::qWait(30);
        const long started = f.client.transport().requestsStarted();
        QVERIFY2(started <= 3 + kube::kMaxConcurrentDiscoveryRequests + 1, qPrintable(QString::number(started)));
        QVERIFY(finished.wait(20'000));
        QCOMPARE(int(f.discovery.snapshot().resources.size()), kGroups + 2); // configmaps, pods
        QVERIFY(f.discovery.snapshot().failedGroups.empty());
        QCOMPARE(f.discovery.peakConcurrentGroupRequests(), kube::kMaxConcurrentDiscoveryRequests);
        QCOMPARE(f.client.transport().requestsStarted(), long(3 + 1 + kGroups));
    }

    void legacyCoreEntryWithAWrongTypeFailsOnlyThatResource()
    {
        Fixture f;
        // A third core resource whose "namespaced" is a string: only that resource is lost, not
        // /api/v1 (the connection's ConfigMaps, Namespaces, Events) nor the connection.
        auto v1 = TranscriptReply::fromFile(QStringLiteral("discovery/legacy-api-v1.http"));
        const std::string bad = secretsWithStringNamespaced();
        const auto at = v1.body.find(podsEntryStart());
        QVERIFY(at != std::string::npos);
        v1.body.insert(at, bad);
        f.server.on("/api/v1").exactPath().reply(v1); // rules match in order: this one answers /api/v1
        f.serveLegacy();
        QVERIFY(f.refresh());
        const auto &snap = f.discovery.snapshot();
        QVERIFY(f.get("", "v1", "configmaps"));
        QVERIFY(f.get("", "v1", "pods"));
        QVERIFY(!f.get("", "v1", "secrets"));
        QVERIFY(f.get("apps", "v1", "deployments"));
        QVERIFY(!snap.failedGroups.count("v1"));
        QCOMPARE(int(snap.failedResources.size()), 1);
        const auto &[key, why] = *snap.failedResources.begin();
        QCOMPARE(QString::fromStdString(key), QStringLiteral("v1 resources[1]"));
        QVERIFY2(why.find("resources[1].namespaced") != std::string::npos, why.c_str());
    }

    void aggregatedEntryWithAWrongTypeFailsOnlyThatResource()
    {
        Fixture f;
        auto api = TranscriptReply::fromFile(QStringLiteral("discovery/aggregated-1.37-api.http"));
        // The recorded answer is chunked (one piece per line) and pretty-printed: break the first scope.
        const std::string scope = "\"scope\": \"Namespaced\"";
        bool broken = false;
        for (auto &piece : api.pieces)
            if (const auto at = piece.bytes.find(scope); !broken && at != std::string::npos) {
                piece.bytes.replace(at, scope.size(), "\"scope\": 7");
                broken = true;
            }
        QVERIFY(broken);
        f.server.on("/api").exactPath().reply(api);
        f.server.on("/apis").exactPath().replyFile(QStringLiteral("discovery/aggregated-1.37-apis.http"));
        QVERIFY(f.refresh());
        const auto &snap = f.discovery.snapshot();
        QCOMPARE(int(snap.failedResources.size()), 1);
        QVERIFY2(snap.failedResources.begin()->second.find("scope") != std::string::npos,
                 snap.failedResources.begin()->second.c_str());
        QVERIFY(f.get("apps", "v1", "deployments"));
        int core = 0;
        for (const auto &r : snap.resources)
            core += r.group.empty() ? 1 : 0;
        QVERIFY(core > 0); // the other core resources are still there
    }
};

QTEST_GUILESS_MAIN(TestDiscoveryTranscripts)
#include "tst_discovery_transcripts.moc"
