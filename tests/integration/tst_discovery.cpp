// Discovery against the real server: aggregated (apidiscovery.k8s.io/v2, every built-in group in
// two documents; the legacy fallback is covered by transcripts written after a 1.20 server's
// answers, tests/kube/tst_discovery_transcripts.cpp), and a real CRD that appears once established and
// vanishes when deleted.
#include "watchrecorder.h"

using namespace fieldscope;
using namespace fieldscope::testing;

namespace {
core::Json widgetCrd()
{
    return core::parseJson(R"({"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition",
      "metadata":{"name":"widgets.test.fieldscope.dev"},
      "spec":{"group":"test.fieldscope.dev","scope":"Namespaced",
        "names":{"plural":"widgets","singular":"widget","kind":"Widget","shortNames":["wdg"]},
        "versions":[{"name":"v1","served":true,"storage":true,
          "schema":{"openAPIV3Schema":{"type":"object","properties":{"spec":{"type":"object","properties":{"size":{"type":"integer"}}}}}},
          "subresources":{"status":{}}}]}})")
        .value();
}

bool refresh(kube::Discovery &d)
{
    QSignalSpy done(&d, &kube::Discovery::finished);
    d.refresh();
    return done.wait(20000);
}
} // namespace

class TestDiscovery : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void aggregatedDiscoveryFindsBuiltinsWithSubresources()
    {
        auto conn = connectTo(ctxToken());
        kube::ApiClient client(conn.transport);
        kube::Discovery d(&client);
        QVERIFY(refresh(d));
        const auto &s = d.snapshot();
        QVERIFY(s.aggregated);
        QVERIFY2(QString::fromStdString(s.serverVersion).startsWith(QLatin1String("v1.")), s.serverVersion.c_str());
        const auto *deploy = s.resolve("deploy");
        QVERIFY(deploy);
        QCOMPARE(QString::fromStdString(deploy->group), QStringLiteral("apps"));
        QVERIFY(deploy->hasSubresource("scale") && deploy->hasSubresource("status"));
        QVERIFY(s.resolve("cm") && s.resolve("ConfigMap") && s.resolve("configmap"));
        QCOMPARE(s.resolve("cm")->resource, std::string("configmaps"));
        QVERIFY(s.resolve("deployments.apps"));
        QVERIFY(s.failedGroups.empty());
    }

    void customResourceAppearsWhenEstablishedAndVanishesWhenDeleted()
    {
        auto conn = connectTo(ctxToken());
        kube::ApiClient client(conn.transport);
        const std::string crdPath = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions";
        auto created = call(client, request("POST", crdPath, core::toJsonText(widgetCrd())));
        QVERIFY2(created.ok(), created.ok() ? "" : created.error().describe().c_str());
        kube::Discovery d(&client);
        // "Within seconds": poll discovery until the new type is served.
        QTRY_VERIFY_WITH_TIMEOUT(refresh(d) && d.snapshot().resolve("wdg") != nullptr, 20000);
        const auto *widgets = d.snapshot().resolve("widgets.test.fieldscope.dev");
        QVERIFY(widgets);
        QVERIFY(widgets->namespaced);
        QVERIFY(widgets->hasSubresource("status"));

        // A custom resource listed through the same Watcher as built-ins (items carry kind).
        ScratchNamespace ns(client, "fs-crd");
        auto cr = call(
            client,
            request(
                "POST", widgets->collectionPath(ns.name()),
                R"({"apiVersion":"test.fieldscope.dev/v1","kind":"Widget","metadata":{"name":"w1"},"spec":{"size":3}})"));
        QVERIFY2(cr.ok(), cr.ok() ? "" : cr.error().describe().c_str());
        kube::WatcherOptions listOnly;
        listOnly.listOnly = true;
        kube::Watcher w(&client, {*widgets, ns.name(), {}, {}}, listOnly);
        QSignalSpy done(&w, &kube::Watcher::listCompleted);
        w.start();
        QVERIFY(done.wait(20000));
        QCOMPARE(int(w.store().size()), 1);
        w.store().forEach([](const core::StoredObject &o) { QVERIFY(o.json().contains("\"kind\":\"Widget\"")); });

        QVERIFY(call(client, request("DELETE", crdPath + "/widgets.test.fieldscope.dev")).ok());
        QTRY_VERIFY_WITH_TIMEOUT(refresh(d) && d.snapshot().resolve("wdg") == nullptr, 30000);
    }
};

QTEST_GUILESS_MAIN(TestDiscovery)
#include "tst_discovery.moc"
