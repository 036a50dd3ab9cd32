// The editor's apply body (core/edit/applybody.h): only the fields the manager owns and
// the fields the user changed are applied, so the editor never claims other managers' fields.
#include "core/edit/applybody.h"
#include "core/edit/editbuffer.h"
#include "core/yaml/yaml.h"

#include <QTest>

#include <functional>

using namespace fieldscope::core;

namespace {

// Created with plain `kubectl apply`, scaled and re-imaged by Fieldscope's editor through
// server-side apply (manager "fieldscope"), with status written by the controller (subresource status).
const char *const kDeployment = R"(
apiVersion: apps/v1
kind: Deployment
metadata:
  name: shop
  namespace: prod
  uid: 3d9f6c1e-0b7a-4d2e-8f51-6a2c9e4b7d10
  resourceVersion: "91207"
  generation: 4
  creationTimestamp: "2026-07-18T08:02:11Z"
  labels:
    app: shop
  annotations:
    deployment.kubernetes.io/revision: "3"
  finalizers:
  - example.com/audit
  managedFields:
  - manager: fieldscope
    operation: Apply
    apiVersion: apps/v1
    time: "2026-07-20T10:41:09Z"
    fieldsType: FieldsV1
    fieldsV1:
      f:spec:
        f:replicas: {}
        f:template:
          f:spec:
            f:containers:
              k:{"name":"shop"}:
                .: {}
                f:image: {}
                f:name: {}
  - manager: kubectl-client-side-apply
    operation: Update
    apiVersion: apps/v1
    time: "2026-07-18T08:02:11Z"
    fieldsType: FieldsV1
    fieldsV1:
      f:metadata:
        f:finalizers:
          .: {}
          v:"example.com/audit": {}
        f:labels:
          .: {}
          f:app: {}
      f:spec:
        f:progressDeadlineSeconds: {}
        f:revisionHistoryLimit: {}
        f:selector: {}
        f:strategy:
          f:rollingUpdate:
            .: {}
            f:maxSurge: {}
            f:maxUnavailable: {}
          f:type: {}
        f:template:
          f:metadata:
            f:labels:
              .: {}
              f:app: {}
          f:spec:
            f:containers:
              k:{"name":"shop"}:
                .: {}
                f:args: {}
                f:imagePullPolicy: {}
                f:name: {}
                f:ports:
                  .: {}
                  k:{"containerPort":8080,"protocol":"TCP"}:
                    .: {}
                    f:containerPort: {}
                    f:protocol: {}
                f:terminationMessagePath: {}
                f:terminationMessagePolicy: {}
              k:{"name":"metrics"}:
                .: {}
                f:image: {}
                f:name: {}
            f:dnsPolicy: {}
            f:restartPolicy: {}
            f:terminationGracePeriodSeconds: {}
            f:tolerations: {}
  - manager: kube-controller-manager
    operation: Update
    apiVersion: apps/v1
    subresource: status
    time: "2026-07-20T10:41:30Z"
    fieldsType: FieldsV1
    fieldsV1:
      f:metadata:
        f:annotations:
          .: {}
          f:deployment.kubernetes.io/revision: {}
      f:status:
        f:availableReplicas: {}
        f:observedGeneration: {}
        f:replicas: {}
spec:
  replicas: 3
  progressDeadlineSeconds: 600
  revisionHistoryLimit: 10
  selector:
    matchLabels:
      app: shop
  strategy:
    type: RollingUpdate
    rollingUpdate:
      maxSurge: 25%
      maxUnavailable: 25%
  template:
    metadata:
      labels:
        app: shop
    spec:
      containers:
      - name: shop
        image: registry.example.com/shop:2.4.1
        args:
        - --listen=:8080
        imagePullPolicy: IfNotPresent
        ports:
        - containerPort: 8080
          protocol: TCP
        terminationMessagePath: /dev/termination-log
        terminationMessagePolicy: File
      - name: metrics
        image: prom/statsd-exporter:v0.26.0
      dnsPolicy: ClusterFirst
      restartPolicy: Always
      terminationGracePeriodSeconds: 30
      tolerations:
      - key: dedicated
        operator: Equal
        value: shop
        effect: NoSchedule
status:
  availableReplicas: 3
  observedGeneration: 4
  replicas: 3
)";

// Created with `kubectl create`: one Update entry, nothing applied yet.
const char *const kConfigMap = R"(
apiVersion: v1
kind: ConfigMap
metadata:
  name: shop-config
  namespace: prod
  uid: 8a0e2f47-51c3-4b9e-a6d8-0f3b7c2e9a54
  resourceVersion: "90111"
  creationTimestamp: "2026-07-18T08:01:55Z"
  managedFields:
  - manager: kubectl-create
    operation: Update
    apiVersion: v1
    time: "2026-07-18T08:01:55Z"
    fieldsType: FieldsV1
    fieldsV1:
      f:data:
        .: {}
        f:CACHE_TTL: {}
        f:LOG_LEVEL: {}
data:
  LOG_LEVEL: info
  CACHE_TTL: "300"
)";

const char *const kContainers = "/spec/template/spec/containers";

Json yaml(const char *text)
{
    return yamlToJson(text).value().value;
}

QByteArray text(const Json &j)
{
    return QByteArray::fromStdString(toJsonText(j));
}

QStringList strings(const std::vector<std::string> &v)
{
    QStringList out;
    for (const auto &s : v)
        out << QString::fromStdString(s);
    return out;
}

// What the editor does: open the editable form of the live object, let the user change it, and
// ask for the body to apply as "fieldscope".
struct Edit {
    Json live;
    Json opened;
    Json edited;
};

Edit edit(const char *liveYaml, const std::function<void(Json &)> &change)
{
    Edit e{yaml(liveYaml), {}, {}};
    e.opened = editableObject(e.live, true);
    e.edited = e.opened;
    change(e.edited);
    return e;
}

ApplyBody bodyFor(const Edit &e, std::string_view manager = "fieldscope")
{
    auto r = applyBodyForEdit(e.live, e.opened, e.edited, manager);
    if (!r)
        qFatal("applyBodyForEdit: %s", r.error().describe().c_str());
    return std::move(r).value();
}

const char *const kDeploymentIdentity =
    R"("apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"shop","namespace":"prod")";
const char *const kOwnedSpec =
    R"("replicas":3,"template":{"spec":{"containers":[{"name":"shop","image":"registry.example.com/shop:2.4.1"}]}})";

} // namespace

class TestApplyBody : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void changingAFieldYouDoNotOwnSendsOnlyThatFieldAndIdentity()
    {
        const auto b = bodyFor(edit(kConfigMap, [](Json &o) { o["data"]["LOG_LEVEL"] = "debug"; }));
        QCOMPARE(
            text(b.body),
            QByteArray(R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"shop-config","namespace":"prod"},)"
                       R"("data":{"LOG_LEVEL":"debug"}})"));
        QVERIFY(b.notRemovable.empty());
        QVERIFY(b.released.empty());
    }

    void fieldsYouOwnAreKeptEvenWhenUnchanged()
    {
        const auto b = bodyFor(edit(kDeployment, [](Json &o) { o["metadata"]["labels"]["team"] = "payments"; }));
        QCOMPARE(text(b.body),
                 QByteArray::fromStdString(std::string("{") + kDeploymentIdentity
                                           + R"(,"labels":{"team":"payments"}},"spec":{)" + kOwnedSpec + "}}"));
    }

    void editingOneContainersImageSendsItsNameKeyAndNothingElseOfIt()
    {
        const auto b = bodyFor(edit(kDeployment, [](Json &o) {
            o[Json::json_pointer(kContainers)][1]["image"] = "prom/statsd-exporter:v0.27.1";
        }));
        QCOMPARE(text(b.body.at(Json::json_pointer(kContainers))),
                 QByteArray(R"([{"name":"shop","image":"registry.example.com/shop:2.4.1"},)"
                            R"({"name":"metrics","image":"prom/statsd-exporter:v0.27.1"}])"));
        QCOMPARE(text(b.body["spec"]), QByteArray(R"({"replicas":3,"template":{"spec":{"containers":[)"
                                                  R"({"name":"shop","image":"registry.example.com/shop:2.4.1"},)"
                                                  R"({"name":"metrics","image":"prom/statsd-exporter:v0.27.1"}]}}})"));
    }

    void changingAPortOfAnOwnedContainerSendsThePortWithBothKeyFields()
    {
        const auto b = bodyFor(edit(kDeployment, [](Json &o) {
            o[Json::json_pointer(kContainers)][0]["ports"][0]["name"] = "http";
        }));
        QCOMPARE(text(b.body.at(Json::json_pointer(kContainers))),
                 QByteArray(R"([{"name":"shop","image":"registry.example.com/shop:2.4.1",)"
                            R"("ports":[{"containerPort":8080,"protocol":"TCP","name":"http"}]}])"));
    }

    void addingAContainerSendsItWhole()
    {
        const Json sidecar = {
            {"name", "envoy"}, {"image", "envoyproxy/envoy:v1.31"}, {"args", {"-c", "/etc/envoy.yaml"}}};
        const auto b = bodyFor(edit(kDeployment,
                                    [&](Json &o) { o[Json::json_pointer(kContainers)].push_back(sidecar); }));
        const Json &containers = b.body.at(Json::json_pointer(kContainers));
        QCOMPARE(containers.size(), std::size_t(2));
        QCOMPARE(text(containers[1]), text(sidecar));
    }

    void removingAnOwnedFieldReleasesItAndLeavesItOut()
    {
        const auto b = bodyFor(edit(kDeployment, [](Json &o) { o["spec"].erase("replicas"); }));
        QCOMPARE(strings(b.released), QStringList{QStringLiteral(".spec.replicas")});
        QVERIFY(b.notRemovable.empty());
        QVERIFY(!b.body["spec"].contains("replicas"));
        QVERIFY(b.body.contains(Json::json_pointer(kContainers)));
    }

    void removingAnOwnedContainerReleasesTheWholeItem()
    {
        const auto b = bodyFor(edit(kDeployment, [](Json &o) { o[Json::json_pointer(kContainers)].erase(0); }));
        QCOMPARE(strings(b.released), QStringList{QStringLiteral(".spec.template.spec.containers[name=\"shop\"]")});
        QVERIFY(b.notRemovable.empty());
        QCOMPARE(text(b.body["spec"]), QByteArray(R"({"replicas":3})"));
    }

    void removingAFieldYouDoNotOwnIsReportedAsNotRemovable()
    {
        const auto cm = bodyFor(edit(kConfigMap, [](Json &o) { o["data"].erase("CACHE_TTL"); }));
        QCOMPARE(strings(cm.notRemovable), QStringList{QStringLiteral(".data.CACHE_TTL")});
        QVERIFY(cm.released.empty());
        QCOMPARE(text(cm.body),
                 QByteArray(
                     R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"shop-config","namespace":"prod"}})"));

        const auto d = bodyFor(edit(kDeployment, [](Json &o) { o["spec"].erase("revisionHistoryLimit"); }));
        QCOMPARE(strings(d.notRemovable), QStringList{QStringLiteral(".spec.revisionHistoryLimit")});
    }

    void removingAWholeMapReportsEachKeyItCannotRemove()
    {
        const auto b = bodyFor(edit(kConfigMap, [](Json &o) { o.erase("data"); }));
        QCOMPARE(strings(b.notRemovable),
                 (QStringList{QStringLiteral(".data.CACHE_TTL"), QStringLiteral(".data.LOG_LEVEL")}));
    }

    void changingAnAtomicListSendsTheWholeList()
    {
        const auto b = bodyFor(edit(kDeployment, [](Json &o) {
            o["spec"]["template"]["spec"]["tolerations"][0]["value"] = "checkout";
        }));
        QCOMPARE(text(b.body["spec"]["template"]["spec"]["tolerations"]),
                 QByteArray(R"([{"key":"dedicated","operator":"Equal","value":"checkout","effect":"NoSchedule"}])"));
        const auto args = bodyFor(edit(kDeployment, [](Json &o) {
            o[Json::json_pointer(kContainers)][0]["args"].push_back("--verbose");
        }));
        QCOMPARE(text(args.body.at(Json::json_pointer(kContainers))[0]["args"]),
                 QByteArray(R"(["--listen=:8080","--verbose"])"));
    }

    void changingAnAtomicStructSendsTheWholeStruct()
    {
        const auto b = bodyFor(edit(kDeployment,
                                    [](Json &o) { o["spec"]["selector"]["matchLabels"]["tier"] = "web"; }));
        QCOMPARE(text(b.body["spec"]["selector"]), QByteArray(R"({"matchLabels":{"app":"shop","tier":"web"}})"));
    }

    void addingAFinalizerSendsOnlyTheNewSetItem()
    {
        const auto b = bodyFor(edit(kDeployment,
                                    [](Json &o) { o["metadata"]["finalizers"].push_back("example.com/backup"); }));
        QCOMPARE(text(b.body["metadata"]["finalizers"]), QByteArray(R"(["example.com/backup"])"));
        QVERIFY(b.notRemovable.empty());
    }

    void removingSomeoneElsesFinalizerIsNotRemovable()
    {
        const auto b = bodyFor(edit(kDeployment, [](Json &o) { o["metadata"]["finalizers"] = Json::array(); }));
        QCOMPARE(strings(b.notRemovable), QStringList{QStringLiteral(".metadata.finalizers[=\"example.com/audit\"]")});
        QVERIFY(!b.body["metadata"].contains("finalizers"));
    }

    void noChangesAndNoOwnershipSendsIdentityOnly()
    {
        const auto cm = bodyFor(edit(kConfigMap, [](Json &) {}));
        QCOMPARE(text(cm.body),
                 QByteArray(
                     R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"shop-config","namespace":"prod"}})"));
        const auto d = bodyFor(edit(kDeployment, [](Json &) {}), "someone-else");
        QCOMPARE(text(d.body), QByteArray::fromStdString(std::string("{") + kDeploymentIdentity + "}}"));
    }

    void noChangesKeepsExactlyWhatYouOwn()
    {
        const auto b = bodyFor(edit(kDeployment, [](Json &) {}));
        QCOMPARE(text(b.body), QByteArray::fromStdString(std::string("{") + kDeploymentIdentity + R"(},"spec":{)"
                                                         + kOwnedSpec + "}}"));
    }

    // Co-owning sets a field to the live value, which is no change: it must still be sent.
    void unchangedFieldsNamedToSendAreSentForCoOwnership()
    {
        const Edit e = edit(kConfigMap, [](Json &) {});
        auto r = applyBodyForEdit(e.live, e.opened, e.edited, "fieldscope", {}, {".data.LOG_LEVEL", ".data.absent"});
        QVERIFY(r.ok());
        QCOMPARE(text(r->body["data"]),
                 QByteArray::fromStdString("{\"LOG_LEVEL\":" + e.edited["data"]["LOG_LEVEL"].dump() + "}"));
    }

    void ownershipIsPerSubresource()
    {
        const Edit e = edit(kDeployment, [](Json &) {});
        ApplyOptions scale;
        scale.subresource = "scale";
        auto r = applyBodyForEdit(e.live, e.opened, e.edited, "fieldscope", scale);
        QVERIFY(r.ok());
        QCOMPARE(text(r->body), QByteArray::fromStdString(std::string("{") + kDeploymentIdentity + "}}"));
    }

    void undecodableManagedFieldsIsAParseError()
    {
        Edit e = edit(kConfigMap, [](Json &o) { o["data"]["LOG_LEVEL"] = "debug"; });
        e.live["metadata"]["managedFields"][0]["fieldsV1"] = {{"data", Json::object()}}; // no prefix
        auto r = applyBodyForEdit(e.live, e.opened, e.edited, "fieldscope");
        QVERIFY(!r.ok());
        QCOMPARE(r.error().category, ErrorCategory::Parse);
    }

    // The point of the feature: the body claims the changed field and nothing of anyone else's.
    void bodyForAnUnownedChangeClaimsNothingElse()
    {
        const Edit e = edit(kDeployment, [](Json &o) { o["metadata"]["labels"]["team"] = "payments"; });
        auto p = predictApply(bodyFor(e).body, "fieldscope", e.live);
        QVERIFY(p.ok());
        QVERIFY(p->conflicts.empty());
        QCOMPARE(QString::fromStdString(p->toText()), QStringLiteral("own .metadata.labels.team\n"));

        // Applying the whole buffer instead would take over every field kubectl wrote.
        auto whole = predictApply(e.edited, "fieldscope", e.live);
        QVERIFY(whole.ok());
        QVERIFY(whole->newlyOwned.size() > 10);
    }

    void releasedFieldsArePredictedAsRemovedByTheServer()
    {
        const Edit e = edit(kDeployment, [](Json &o) { o["spec"].erase("replicas"); });
        auto p = predictApply(bodyFor(e).body, "fieldscope", e.live);
        QVERIFY(p.ok());
        QCOMPARE(QString::fromStdString(p->toText()), QStringLiteral("remove .spec.replicas\n"));
    }
};

QTEST_GUILESS_MAIN(TestApplyBody)
#include "tst_applybody.moc"
