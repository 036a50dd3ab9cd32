// `fieldscope merge --context` against the real API server: a custom resource whose list-map keys
// only its CRD schema declares (tests/data/openapi/router-crd.yaml). The versions merged are the
// server's own: base as created (the server defaulted each route's port to 443), theirs after
// another writer changed it, mine the base edited as a user edits a file they got from the
// server. With the cluster's OpenAPI v3 schema the routes merge item by item; without it they are
// one value, as the server itself would treat a list without markers.
#include "clusterenv.h"
#include "core/base/json.h"

#include <QFile>
#include <QTemporaryDir>

using namespace fieldscope;
using namespace fieldscope::testing;

namespace {

const char *kNs = "merge-schema";
const char *kCrd = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/routers.merge.fieldscope.dev";
const std::string kRouters = std::string("/apis/merge.fieldscope.dev/v1/namespaces/") + kNs + "/routers";

core::Json parsed(const core::Result<kube::HttpResponse> &r)
{
    if (!r)
        qFatal("request failed: %s", r.error().describe().c_str());
    auto j = core::parseJson(r->body);
    if (!j)
        qFatal("not JSON: %s", r->body.c_str());
    return *j;
}

core::Json jsonOf(const char *text)
{
    return *core::parseJson(text);
}

} // namespace

class TestMergeSchema : public QObject
{
    Q_OBJECT
    std::unique_ptr<kube::ApiClient> m_client;
    kube::Connection m_conn;
    QTemporaryDir m_dir;

    QString file(const QString &name, const core::Json &object)
    {
        QString path = m_dir.filePath(name);
        QFile f(path);
        const std::string text = core::toJsonText(object, 2);
        if (!f.open(QIODevice::WriteOnly) || f.write(text.data(), qint64(text.size())) != qint64(text.size()))
            qFatal("cannot write %s", qPrintable(path));
        return path;
    }

private Q_SLOTS:
    void initTestCase();
    void cleanupTestCase();
    void theClustersSchemaMergesACustomResourcesRoutesItemByItem();
};

void TestMergeSchema::initTestCase()
{
    m_conn = connectTo(ctxToken());
    m_client = std::make_unique<kube::ApiClient>(m_conn.transport);
    QFile crd(QStringLiteral(FIELDSCOPE_TEST_DATA "/openapi/router-crd.yaml"));
    QVERIFY(crd.open(QIODevice::ReadOnly));
    auto applied = call(*m_client, request("PATCH", std::string(kCrd) + "?fieldManager=tst-merge-schema&force=true",
                                           crd.readAll().toStdString(), "application/apply-patch+yaml"));
    QVERIFY2(applied.ok(), applied.ok() ? "" : applied.error().describe().c_str());
    auto ns = call(*m_client,
                   request("POST", "/api/v1/namespaces", std::string(R"j({"metadata":{"name":"merge-schema"}})j")));
    QVERIFY(ns.ok() || ns.error().httpStatus == 409);
    // The aggregator publishes a new CRD's schema (and serves its objects) a moment after it is
    // established: wait for both, as a user running the command right after would have to.
    QVERIFY(QTest::qWaitFor(
        [&] {
            auto index = call(*m_client, request("GET", "/openapi/v3"));
            auto list = call(*m_client, request("GET", kRouters));
            return index.ok() && index->body.find("apis/merge.fieldscope.dev/v1") != std::string::npos && list.ok();
        },
        60000));
    auto gone = call(*m_client, request("DELETE", kRouters + "/edge"));
    QVERIFY(gone.ok() || gone.error().httpStatus == 404);
}

void TestMergeSchema::cleanupTestCase()
{
    (void)call(*m_client, request("DELETE", kRouters + "/edge"));
}

void TestMergeSchema::theClustersSchemaMergesACustomResourcesRoutesItemByItem()
{
    const auto created = call(*m_client, request("POST", kRouters, std::string(R"j({
        "apiVersion":"merge.fieldscope.dev/v1","kind":"Router","metadata":{"name":"edge"},
        "spec":{"routes":[{"host":"a","backend":"svc-x","weight":1,"headers":[{"name":"h1","value":"1"}]},
                          {"host":"b","port":80,"backend":"svc-y"}],
                "tags":["blue"],"steps":["one"]}})j")));
    const core::Json base = parsed(created);
    QVERIFY2(base["spec"]["routes"][0]["port"] == 443, // the schema's default, filled in by the server
             core::toJsonText(base).c_str());

    core::Json mine = base; // route a reweighted with a header added, b's backend, route d, a tag, a step
    mine["spec"]["routes"][0]["weight"] = 5;
    mine["spec"]["routes"][0]["headers"].push_back(jsonOf(R"j({"name":"h2","value":"2"})j"));
    mine["spec"]["routes"][1]["backend"] = "svc-y2";
    mine["spec"]["routes"].push_back(jsonOf(R"j({"host":"d","backend":"svc-w"})j"));
    mine["spec"]["tags"].push_back("green");
    mine["spec"]["steps"].push_back("two");

    // Someone else: route a reweighted differently and h1 changed, route c added, blue replaced by
    // red, a step put first (a merge patch replaces each list whole).
    const auto patched = call(*m_client,
                              request("PATCH", kRouters + "/edge?fieldManager=someone-else", std::string(R"j({
        "spec":{"routes":[{"host":"a","backend":"svc-x","weight":7,"headers":[{"name":"h1","value":"one"}]},
                          {"host":"b","port":80,"backend":"svc-y"},{"host":"c","backend":"svc-z"}],
                "tags":["red"],"steps":["zero","one"]}})j"),
                                      "application/merge-patch+json"));
    const core::Json theirs = parsed(patched);

    const QStringList files{file(QStringLiteral("base.json"), base), file(QStringLiteral("mine.json"), mine),
                            file(QStringLiteral("theirs.json"), theirs)};
    const ProcessResult r = runFieldscope(QStringList{QStringLiteral("merge")} + files + adminArgs()
                                          + QStringList{QStringLiteral("-o"), QStringLiteral("json")});
    QVERIFY2(r.exitCode == 1, r.err.constData());
    auto report = core::parseJson(r.out.toStdString());
    QVERIFY2(report, r.out.constData());
    QStringList paths;
    for (const core::Json &c : (*report)["conflicts"])
        paths << QString::fromStdString(c["path"].get<std::string>());
    QCOMPARE(paths, (QStringList{QStringLiteral(R"j(.spec.routes[host="a",port=443].weight)j"),
                                 QStringLiteral(".spec.steps")}));
    const core::Json &spec = (*report)["merged"]["spec"];
    // Theirs' order, then mine's new route; the server wrote each object's keys in its own order.
    const core::Json routes = jsonOf(R"j([
        {"host":"a","port":443,"backend":"svc-x","weight":5,"headers":[{"name":"h1","value":"one"},{"name":"h2","value":"2"}]},
        {"host":"b","port":80,"backend":"svc-y2"},{"host":"c","port":443,"backend":"svc-z"},{"host":"d","backend":"svc-w"}])j");
    QVERIFY2(core::jsonEqual(spec["routes"], routes), core::toJsonText(spec["routes"]).c_str());
    QCOMPARE(core::toJsonText(spec["tags"]), std::string(R"j(["red","green"])j"));
    QVERIFY((*report)["merged"]["metadata"]["resourceVersion"] == theirs["metadata"]["resourceVersion"]);

    // The built-in table knows nothing of routers: the routes are one value, both changed it.
    const ProcessResult whole = runFieldscope(QStringList{QStringLiteral("merge")} + files);
    QCOMPARE(whole.exitCode, 1);
    QVERIFY2(whole.err.contains("conflict at .spec.routes: "), whole.err.constData());
}

QTEST_GUILESS_MAIN(TestMergeSchema)
#include "tst_merge_schema.moc"
