// Conflict prediction must equal the real server's answer. Each row builds an object's ownership
// with real writes by several managers, predicts a server-side apply locally, then asks the
// server the same question with dryRun=All (no force) and compares the 409's causes.
#include "clusterenv.h"
#include "core/ownership/conflictprediction.h"
#include "kube/writes.h"

#include <QUuid>

#include <set>

using namespace fieldscope;
using namespace fieldscope::testing;

namespace {

struct Step {
    std::string manager;
    std::string body;        // JSON; "{NAME}" is replaced with the object's name
    std::string subresource; // "" (apply), or "status"/"scale" for an Update patch
};

struct Case {
    std::string resource;    // configmaps, deployments, services
    std::vector<Step> setup; // applied in order (apply with force, or merge patch for subresources)
    Step probe;              // the apply we predict
    int serverCauses = -1;   // how many FieldManagerConflict causes the server answers (-1: not pinned)
};

kube::ResourceInfo info(const std::string &plural)
{
    kube::ResourceInfo r;
    r.resource = plural;
    r.namespaced = true;
    r.version = "v1";
    if (plural == "deployments") {
        r.group = "apps";
        r.kind = "Deployment";
    } else if (plural == "services") {
        r.kind = "Service";
    } else {
        r.kind = "ConfigMap";
    }
    return r;
}

std::string deploy(const std::string &spec)
{
    return R"({"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"{NAME}"},"spec":)" + spec + "}";
}
const std::string kDeploySpec =
    R"({"replicas":2,"selector":{"matchLabels":{"app":"w"}},"template":{"metadata":{"labels":{"app":"w"}},)"
    R"("spec":{"containers":[{"name":"nginx","image":"nginx:1.25","args":["a"],"ports":[{"containerPort":80,"protocol":"TCP"}]}]}}})";

std::map<std::string, Case> cases()
{
    std::map<std::string, Case> c;
    c["labels"] = {
        "configmaps",
        {{"alice", R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"{NAME}","labels":{"a":"1","b":"1"}}})",
          ""}},
        {"bob", R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"{NAME}","labels":{"a":"2"}}})", ""},
        1};
    c["annotations shared value"] = {
        "configmaps",
        {{"alice", R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"{NAME}","annotations":{"x":"1"}}})",
          ""}},
        {"bob",
         R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"{NAME}","annotations":{"x":"1","y":"2"}}})", ""},
        0};
    c["containers keyed by name"] = {
        "deployments",
        {{"alice", deploy(kDeploySpec), ""}},
        {"bob", deploy(R"({"template":{"spec":{"containers":[{"name":"nginx","image":"nginx:1.27"}]}}})"), ""},
        1};
    c["ports keyed by port and protocol"] = {
        "services",
        {{"alice",
          R"({"apiVersion":"v1","kind":"Service","metadata":{"name":"{NAME}"},"spec":{"ports":[{"port":80,"protocol":"TCP","targetPort":8080}]}})",
          ""}},
        {"bob",
         R"({"apiVersion":"v1","kind":"Service","metadata":{"name":"{NAME}"},"spec":{"ports":[{"port":80,"protocol":"TCP","targetPort":9090}]}})",
         ""},
        1};
    c["finalizers set"] = {
        "configmaps",
        {{"alice",
          R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"{NAME}","finalizers":["example.com/x"]}})", ""}},
        {"bob",
         R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"{NAME}","finalizers":["example.com/x","example.com/y"]}})",
         ""},
        0};
    c["atomic list"] = {"deployments",
                        {{"alice", deploy(kDeploySpec), ""}},
                        {"bob", deploy(R"({"template":{"spec":{"containers":[{"name":"nginx","args":["b"]}]}}})"), ""},
                        1};
    c["replicas after a scale write"] = {
        "deployments",
        {{"alice", deploy(kDeploySpec), ""}, {"hpa", R"({"spec":{"replicas":3}})", "scale"}},
        {"bob", deploy(R"({"replicas":5})"), ""},
        1};
    c["status written by another manager"] = {
        "deployments",
        {{"alice", deploy(kDeploySpec), ""}, {"status-writer", R"({"status":{"observedGeneration":7}})", "status"}},
        {"bob",
         R"({"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"{NAME}"},"status":{"observedGeneration":9}})",
         ""}};
    c["two co-owning appliers"] = {
        "configmaps",
        {{"alice", R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"{NAME}"},"data":{"k":"1"}})", ""},
         {"bob", R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"{NAME}"},"data":{"k":"1"}})", ""}},
        {"carol", R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"{NAME}"},"data":{"k":"2"}})", ""},
        2};
    c["removal by omission"] = {
        "configmaps",
        {{"alice", R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"{NAME}","labels":{"old":"1"}}})", ""}},
        {"alice", R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"{NAME}","labels":{"new":"1"}}})", ""},
        0};
    return c;
}

std::string withName(std::string body, const std::string &name)
{
    const auto at = body.find("{NAME}");
    if (at != std::string::npos)
        body.replace(at, 6, name);
    return body;
}

std::set<std::pair<std::string, std::string>> causeSet(const std::vector<core::FieldConflict> &cs)
{
    std::set<std::pair<std::string, std::string>> out;
    for (const auto &c : cs)
        out.insert({c.path, c.manager});
    return out;
}

} // namespace

class TestConflictPrediction : public QObject
{
    Q_OBJECT
    std::unique_ptr<kube::Connection> m_conn;
    std::unique_ptr<kube::ApiClient> m_client;
    std::string m_ns;

private Q_SLOTS:
    void initTestCase()
    {
        m_conn = std::make_unique<kube::Connection>(connectTo(ctxToken()));
        m_client = std::make_unique<kube::ApiClient>(m_conn->transport);
        m_ns = "fs-predict-" + QUuid::createUuid().toString(QUuid::Id128).left(8).toStdString();
        QVERIFY(call(*m_client,
                     request("POST", "/api/v1/namespaces",
                             R"({"apiVersion":"v1","kind":"Namespace","metadata":{"name":")" + m_ns + R"("}})"))
                    .ok());
    }
    void cleanupTestCase() { (void)call(*m_client, request("DELETE", "/api/v1/namespaces/" + m_ns)); }

    void predictionEqualsTheServersDryRunAnswer_data()
    {
        QTest::addColumn<QString>("name");
        for (const auto &[name, c] : cases())
            QTest::newRow(name.c_str()) << QString::fromStdString(name);
    }
    void predictionEqualsTheServersDryRunAnswer()
    {
        QFETCH(QString, name);
        const Case c = cases().at(name.toStdString());
        const kube::ResourceInfo r = info(c.resource);
        const std::string objName = "p-" + QUuid::createUuid().toString(QUuid::Id128).left(8).toLower().toStdString();
        for (const auto &s : c.setup) {
            kube::WriteOptions o;
            o.fieldManager = s.manager;
            o.fieldValidation.clear(); // the server's default (Warn): the cases hold no unknown fields
            core::Result<kube::HttpResponse> res = core::Error::make(core::ErrorCategory::Invalid, "unset");
            if (s.subresource.empty()) {
                o.force = true;
                res = call(*m_client, kube::applyRequest(r, m_ns, *core::parseJson(withName(s.body, objName)), o));
            } else {
                o.subresource = s.subresource;
                res = call(*m_client,
                           kube::patchRequest(r, m_ns, objName, kube::PatchType::Merge, *core::parseJson(s.body), o));
            }
            QVERIFY2(res.ok(), res.ok() ? "" : res.error().describe().c_str());
        }
        const core::Json manifest = *core::parseJson(withName(c.probe.body, objName));
        core::ApplyOptions opts;
        opts.ignoreStatus = true; // servers since 1.22 reset .status on a write of the object itself
        kube::WriteOptions dry;
        dry.fieldManager = c.probe.manager;
        dry.dryRun = true;
        dry.fieldValidation.clear();
        // The prediction and the server's answer must see the same object: the controller manager
        // writes a Deployment's status on its own, so retry until no write fell in between.
        auto resourceVersion = [&] {
            auto o = call(*m_client, kube::getRequest(r, m_ns, objName));
            return o.ok() ? (*core::parseJson(o->body))["metadata"]["resourceVersion"].get<std::string>()
                          : std::string();
        };
        core::Result<core::ApplyPrediction> predicted = core::Error::make(core::ErrorCategory::Invalid, "unset");
        core::Result<kube::HttpResponse> server = core::Error::make(core::ErrorCategory::Invalid, "unset");
        for (int attempt = 0; attempt < 5; ++attempt) {
            auto live = call(*m_client, kube::getRequest(r, m_ns, objName));
            QVERIFY(live.ok());
            const core::Json liveObject = *core::parseJson(live->body);
            predicted = core::predictApply(manifest, c.probe.manager, liveObject, opts);
            QVERIFY2(predicted.ok(), predicted.ok() ? "" : predicted.error().describe().c_str());
            server = call(*m_client, kube::applyRequest(r, m_ns, manifest, dry));
            if (resourceVersion() == liveObject["metadata"]["resourceVersion"].get<std::string>())
                break;
        }
        const auto predictedCauses = causeSet(predicted->toConflictError().conflicts);
        if (c.serverCauses >= 0)
            QCOMPARE(server.ok() ? 0 : int(server.error().conflicts.size()), c.serverCauses);
        if (server.ok()) {
            QVERIFY2(predicted->conflicts.empty(), predicted->toText().c_str());
            // Removal by omission: what we said the server removes is gone from its answer.
            const core::Json after = *core::parseJson(server->body);
            for (const auto &rm : predicted->removed)
                QVERIFY2(!rm.path.resolve(after, nullptr), rm.path.toString().c_str());
        } else {
            QVERIFY2(server.error().isSsaConflict(), server.error().describe().c_str());
            QCOMPARE(predictedCauses, causeSet(server.error().conflicts));
        }
    }
};

QTEST_GUILESS_MAIN(TestConflictPrediction)
#include "tst_conflict_prediction.moc"
