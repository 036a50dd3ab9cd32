// Server-side apply prediction: conflicts (exact 409 paths), new ownership, removal by omission.
#include "core/ownership/conflictprediction.h"
#include "ownershipfixtures.h"

#include <QTest>

using namespace fieldscope::core;
using namespace fieldscope::testing;

namespace {

// base: a fixture file, or a bare "kind" for a minimal manifest naming the same object.
Json manifestFor(const QString &base, const QString &patch)
{
    Json m;
    if (base.endsWith(QLatin1String(".yaml"))) {
        m = loadFixture(base);
    } else {
        const QStringList parts = base.split(QLatin1Char('/')); // kind/apiVersion/name
        m = {{"apiVersion", parts.value(1).toStdString()},
             {"kind", parts.value(0).toStdString()},
             {"metadata", {{"name", parts.value(2).toStdString()}, {"namespace", "prod"}}}};
    }
    if (!patch.isEmpty()) {
        auto p = parseJson(patch.toStdString());
        if (!p)
            qFatal("bad patch %s", qPrintable(patch));
        m.merge_patch(*p);
    }
    return m;
}

QString lines(std::initializer_list<const char *> l)
{
    QString s;
    for (const char *x : l)
        s += QString::fromUtf8(x) + QLatin1Char('\n');
    return s;
}

} // namespace

class TestConflictPrediction : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void predictsWhatTheServerWouldDo_data();
    void predictsWhatTheServerWouldDo();
    void conflictPredictionReportsEveryCoOwner();
    void causesAndMessageMatchTheServers409();
    void singleConflictMessageIsInline();
    void statusIsComparedWhenTheServerDoesNotResetIt();
    void creatingAnObjectOwnsEverythingWithoutConflicts();
    void untrackedObjectsConflictWithBeforeFirstApply();
    void appliedSetMatchesWhatTheServerRecorded();
    void manifestsTheServerRejectsAreInvalid_data();
    void manifestsTheServerRejectsAreInvalid();
    void predictionJsonHasStableFieldNames();
};

void TestConflictPrediction::predictsWhatTheServerWouldDo_data()
{
    QTest::addColumn<QString>("live");
    QTest::addColumn<QString>("base");
    QTest::addColumn<QString>("patch");
    QTest::addColumn<QString>("manager");
    QTest::addColumn<QString>("expected");
    const QString d = QStringLiteral("deployment.yaml");
    const QString dm = QStringLiteral("deployment-manifest.yaml");
    const QString minimal = QStringLiteral("Deployment/apps/v1/web");
    const char *tier = "remove .metadata.labels.tier (already absent)";
    QTest::newRow("unchanged manifest only drops the stale label") << d << dm << ""
                                                                   << "kubectl" << lines({tier});
    QTest::newRow("label: new value conflicts with the co-owning applier")
        << d << dm << R"({"metadata":{"labels":{"app":"api"}}})"
        << "kubectl" << lines({R"(conflict .metadata.labels.app with "ci-bot": live "web", applied "api")", tier});
    QTest::newRow("label: a new label is newly owned") << d << dm << R"({"metadata":{"labels":{"team":"a"}}})"
                                                       << "kubectl" << lines({"own .metadata.labels.team", tier});
    QTest::newRow("annotation owned through status conflicts")
        << d << dm << R"({"metadata":{"annotations":{"deployment.kubernetes.io/revision":"3"}}})"
        << "kubectl"
        << lines(
               {R"(conflict .metadata.annotations.deployment.kubernetes.io/revision with "kube-controller-manager" with subresource "status" using apps/v1: live "2", applied "3")",
                tier});
    QTest::newRow("annotation: the same value is shared ownership")
        << d << dm << R"({"metadata":{"annotations":{"deployment.kubernetes.io/revision":"2"}}})"
        << "kubectl"
        << lines(
               {R"(own .metadata.annotations.deployment.kubernetes.io/revision shared with "kube-controller-manager" with subresource "status" using apps/v1)",
                tier});
    QTest::newRow("container keyed by name: image taken by kubectl edit")
        << d << dm
        << R"({"spec":{"template":{"spec":{"containers":[{"name":"nginx","image":"nginx:1.28","args":["--port","80"],"ports":[{"containerPort":80}]}]}}}})"
        << "kubectl"
        << lines(
               {R"(conflict .spec.template.spec.containers[name="nginx"].image with "kubectl-edit" using apps/v1: live "nginx:1.27", applied "nginx:1.28")",
                tier});
    QTest::newRow("container: the same image is co-owned")
        << d << dm
        << R"({"spec":{"template":{"spec":{"containers":[{"name":"nginx","image":"nginx:1.27","args":["--port","80"],"ports":[{"containerPort":80}]}]}}}})"
        << "kubectl"
        << lines({R"(own .spec.template.spec.containers[name="nginx"].image shared with "kubectl-edit" using apps/v1)",
                  tier});
    QTest::newRow("port keyed by containerPort and defaulted protocol")
        << d << dm
        << R"({"spec":{"template":{"spec":{"containers":[{"name":"nginx","args":["--port","80"],"ports":[{"containerPort":80,"name":"web"}]}]}}}})"
        << "kubectl"
        << lines(
               {R"(conflict .spec.template.spec.containers[name="nginx"].ports[containerPort=80,protocol="TCP"].name with "kubectl-edit" using apps/v1: live "http", applied "web")",
                tier});
    QTest::newRow("port: a new item is newly owned")
        << d << dm
        << R"({"spec":{"template":{"spec":{"containers":[{"name":"nginx","args":["--port","80"],"ports":[{"containerPort":80},{"containerPort":443}]}]}}}})"
        << "kubectl"
        << lines(
               {R"(own .spec.template.spec.containers[name="nginx"].ports[containerPort=443,protocol="TCP"])",
                R"(own .spec.template.spec.containers[name="nginx"].ports[containerPort=443,protocol="TCP"].containerPort)",
                tier});
    QTest::newRow("finalizers: set items compare by existence")
        << d << minimal << R"({"metadata":{"finalizers":["example.com/x","example.com/y"]}})"
        << "cleaner"
        << lines({R"(own .metadata.finalizers[="example.com/x"] shared with "kubectl")",
                  R"(own .metadata.finalizers[="example.com/y"])"});
    QTest::newRow("atomic list compares as a whole")
        << d << minimal << R"({"spec":{"template":{"spec":{"containers":[{"name":"nginx","args":["--port","81"]}]}}}})"
        << "other"
        << lines(
               {R"(conflict .spec.template.spec.containers[name="nginx"].args with "kubectl": live ["--port","80"], applied ["--port","81"])",
                R"(own .spec.template.spec.containers[name="nginx"] shared with "kubectl")",
                R"(own .spec.template.spec.containers[name="nginx"].name shared with "kubectl")"});
    QTest::newRow("atomic struct compares as a whole")
        << d << minimal << R"({"spec":{"selector":{"matchLabels":{"app":"web","tier":"x"}}}})"
        << "other"
        << lines(
               {R"(conflict .spec.selector with "kubectl": live {"matchLabels":{"app":"web"}}, applied {"matchLabels":{"app":"web","tier":"x"}})"});
    QTest::newRow("replicas owned through scale conflicts")
        << d << dm << R"({"spec":{"replicas":3}})"
        << "kubectl"
        << lines(
               {R"(conflict .spec.replicas with "kube-controller-manager" with subresource "scale" using apps/v1: live 5, applied 3)",
                tier});
    QTest::newRow("status is ignored on the main resource") << d << dm << R"({"status":{"replicas":1}})"
                                                            << "kubectl" << lines({tier});
    QTest::newRow("omitted co-owned label is released, not removed")
        << d << dm << R"({"metadata":{"labels":null}})"
        << "kubectl" << lines({tier, R"(release .metadata.labels.app kept by "ci-bot")"});
    QTest::newRow("omitted finalizer is removed")
        << d << dm << R"({"metadata":{"finalizers":null}})"
        << "kubectl" << lines({R"(remove .metadata.finalizers[="example.com/x"])", tier});
    QTest::newRow("an applier collides with its own Update entry")
        << d << minimal << R"({"spec":{"template":{"spec":{"containers":[{"name":"nginx","image":"nginx:1.28"}]}}}})"
        << "kubectl-edit"
        << lines(
               {R"(conflict .spec.template.spec.containers[name="nginx"].image with "kubectl-edit" using apps/v1: live "nginx:1.27", applied "nginx:1.28")",
                R"(own .spec.template.spec.containers[name="nginx"] shared with "kubectl")",
                R"(own .spec.template.spec.containers[name="nginx"].name shared with "kubectl")"});
    QTest::newRow("service port keyed by port and protocol")
        << "service.yaml"
        << "Service/v1/dns"
        << R"({"spec":{"selector":{"k8s-app":"kube-dns"},"ports":[{"name":"dns-tcp","port":53,"targetPort":53},{"name":"dns","port":53,"protocol":"UDP","targetPort":5353}]}})"
        << "kubectl"
        << lines(
               {R"(own .spec.ports[port=53,protocol="UDP"] shared with "kubectl-patch" using v1)",
                R"(own .spec.ports[port=53,protocol="UDP"].name shared with "kubectl-patch" using v1)",
                R"(own .spec.ports[port=53,protocol="UDP"].port shared with "kubectl-patch" using v1)",
                R"(own .spec.ports[port=53,protocol="UDP"].protocol shared with "kubectl-patch" using v1)",
                R"(conflict .spec.ports[port=53,protocol="UDP"].targetPort with "kubectl-patch" using v1: live 53, applied 5353)"});
    QTest::newRow("kubectl's conflicts on last-applied fields are waived")
        << "configmap.yaml"
        << "ConfigMap/v1/settings"
        << R"({"data":{"key":"new"}})"
        << "kubectl"
        << lines(
               {R"(waived .data.key with "kubectl-client-side-apply" using v1 (listed in last-applied-configuration))"});
    QTest::newRow("other managers still conflict with client-side apply")
        << "configmap.yaml"
        << "ConfigMap/v1/settings"
        << R"({"data":{"key":"new"}})"
        << "fieldscope"
        << lines({R"(conflict .data.key with "kubectl-client-side-apply" using v1: live "value", applied "new")"});
}

void TestConflictPrediction::predictsWhatTheServerWouldDo()
{
    QFETCH(QString, live);
    QFETCH(QString, base);
    QFETCH(QString, patch);
    QFETCH(QString, manager);
    QFETCH(QString, expected);
    auto p = predictApply(manifestFor(base, patch), manager.toStdString(), loadFixture(live));
    QVERIFY2(p.ok(), p.ok() ? "" : p.error().describe().c_str());
    // The text lists conflicts first; compare as sorted lines so the row reads in path order.
    QStringList actual = QString::fromStdString(p->toText()).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
    QStringList want = expected.split(QLatin1Char('\n'), Qt::SkipEmptyParts);
    QCOMPARE(actual.size(), want.size());
    QStringList a = actual, w = want;
    a.sort();
    w.sort();
    QCOMPARE(a, w);
}

void TestConflictPrediction::conflictPredictionReportsEveryCoOwner()
{
    auto p = predictApply(manifestFor(QStringLiteral("Deployment/apps/v1/web"),
                                      QStringLiteral(R"({"metadata":{"labels":{"app":"api"}}})")),
                          "other", loadFixture(QStringLiteral("deployment.yaml")));
    QVERIFY(p.ok());
    QCOMPARE(p->conflicts.size(), std::size_t(1));
    const auto &c = p->conflicts.front();
    QCOMPARE(QString::fromStdString(c.path.toString()), QStringLiteral(".metadata.labels.app"));
    QCOMPARE(c.owners.size(), std::size_t(2));
    QCOMPARE(c.owners[0], (FieldOwnerRef{"ci-bot", ManagedOperation::Apply, "", "apps/v1", "2026-07-20T09:10:00Z"}));
    QCOMPARE(c.owners[1], (FieldOwnerRef{"kubectl", ManagedOperation::Apply, "", "apps/v1", "2026-07-20T09:14:03Z"}));
    QVERIFY(c.liveValue.value_or(Json()) == Json("web"));
    QVERIFY(c.appliedValue == Json("api"));
    const auto causes = p->causes();
    QCOMPARE(causes.size(), std::size_t(2));
    QCOMPARE(causes[0].field, std::string(".metadata.labels.app"));
    QCOMPARE(causes[1].message, std::string("conflict with \"kubectl\""));
}

void TestConflictPrediction::causesAndMessageMatchTheServers409()
{
    // Two conflicts with two managers, one through the scale subresource (a real 409), from the fixture.
    auto p = predictApply(
        manifestFor(
            QStringLiteral("Deployment/apps/v1/web"),
            QStringLiteral(
                R"({"spec":{"replicas":3,"template":{"spec":{"containers":[{"name":"nginx","image":"nginx:1.28"}]}}}})")),
        "fieldscope", loadFixture(QStringLiteral("deployment.yaml")));
    QVERIFY(p.ok());
    const Error e = p->toConflictError();
    QCOMPARE(e.category, ErrorCategory::Conflict);
    QCOMPARE(e.httpStatus, 409);
    QCOMPARE(
        QString::fromStdString(e.message),
        QStringLiteral(
            "Apply failed with 2 conflicts: conflicts with \"kube-controller-manager\" with subresource \"scale\" using apps/v1:\n"
            "- .spec.replicas\nconflicts with \"kubectl-edit\" using apps/v1:\n- .spec.template.spec.containers[name=\"nginx\"].image"));
    QCOMPARE(e.causes.size(), std::size_t(2));
    QCOMPARE(e.causes[0].reason, std::string("FieldManagerConflict"));
    QCOMPARE(e.causes[0].message,
             std::string("conflict with \"kube-controller-manager\" with subresource \"scale\" using apps/v1"));
    QCOMPARE(e.causes[0].field, std::string(".spec.replicas"));
    QCOMPARE(e.causes[1].message, std::string("conflict with \"kubectl-edit\" using apps/v1"));
    QCOMPARE(e.causes[1].field, std::string(".spec.template.spec.containers[name=\"nginx\"].image"));
    QCOMPARE(e.conflicts.size(), std::size_t(2));
    QCOMPARE(e.conflicts[0].subresource, std::string("scale"));
    QVERIFY(e.isSsaConflict());
}

void TestConflictPrediction::singleConflictMessageIsInline()
{
    auto p = predictApply(manifestFor(QStringLiteral("Deployment/apps/v1/web"),
                                      QStringLiteral(R"({"spec":{"replicas":3}})")),
                          "hpa-tamer", loadFixture(QStringLiteral("deployment.yaml")));
    QVERIFY(p.ok());
    QCOMPARE(
        QString::fromStdString(p->serverMessage()),
        QStringLiteral(
            "Apply failed with 1 conflict: conflict with \"kube-controller-manager\" with subresource \"scale\" using apps/v1: .spec.replicas"));
}

void TestConflictPrediction::statusIsComparedWhenTheServerDoesNotResetIt()
{
    ApplyOptions options;
    options.ignoreStatus = false; // servers before 1.22 have no reset fields
    auto p = predictApply(manifestFor(QStringLiteral("Deployment/apps/v1/web"),
                                      QStringLiteral(R"({"status":{"replicas":1}})")),
                          "x", loadFixture(QStringLiteral("deployment.yaml")), options);
    QVERIFY(p.ok());
    QCOMPARE(
        QString::fromStdString(p->toText()),
        QStringLiteral(
            "conflict .status.replicas with \"kube-controller-manager\" with subresource \"status\" using apps/v1: live 5, applied 1\n"));
}

void TestConflictPrediction::creatingAnObjectOwnsEverythingWithoutConflicts()
{
    auto p = predictApply(loadFixture(QStringLiteral("deployment-manifest.yaml")), "kubectl", Json());
    QVERIFY(p.ok());
    QVERIFY(p->conflicts.empty());
    QVERIFY(p->removed.empty() && p->released.empty());
    QCOMPARE(p->newlyOwned.size(), p->appliedSet.memberCount());
    QCOMPARE(p->newlyOwned.size(), std::size_t(9));
}

void TestConflictPrediction::untrackedObjectsConflictWithBeforeFirstApply()
{
    Json live = loadFixture(QStringLiteral("configmap.yaml"));
    live["metadata"].erase("managedFields");
    auto p = predictApply(manifestFor(QStringLiteral("ConfigMap/v1/settings"),
                                      QStringLiteral(R"({"data":{"key":"new","other":"x"}})")),
                          "fieldscope", live);
    QVERIFY(p.ok());
    QCOMPARE(QString::fromStdString(p->toText()),
             QStringLiteral("conflict .data.key with \"before-first-apply\" using v1: live \"value\", applied \"new\"\n"
                            "own .data.other\n"));
}

void TestConflictPrediction::appliedSetMatchesWhatTheServerRecorded()
{
    // Re-applying kubectl's manifest yields kubectl's recorded set (minus the label it dropped).
    const Json live = loadFixture(QStringLiteral("deployment.yaml"));
    auto applied = appliedFieldSet(loadFixture(QStringLiteral("deployment-manifest.yaml")), live);
    QVERIFY2(applied.ok(), applied.ok() ? "" : applied.error().describe().c_str());
    auto entries = parseManagedFields(live);
    QVERIFY(entries.ok());
    FieldSet recorded = (*entries)[1].fields;
    QCOMPARE((*entries)[1].manager, std::string("kubectl"));
    std::vector<FieldPath> expected;
    for (const auto &p : recorded.members())
        if (p.toString() != ".metadata.labels.tier")
            expected.push_back(p);
    QCOMPARE(applied->members().size(), expected.size());
    for (std::size_t i = 0; i < expected.size(); ++i)
        QCOMPARE(QString::fromStdString(applied->members()[i].toString()),
                 QString::fromStdString(expected[i].toString()));
}

void TestConflictPrediction::manifestsTheServerRejectsAreInvalid_data()
{
    QTest::addColumn<QString>("patch");
    QTest::addColumn<QString>("messagePart");
    QTest::addColumn<QString>("where");
    QTest::newRow("managedFields in the body") << R"({"metadata":{"managedFields":[{}]}})"
                                               << "managedFields must be nil"
                                               << "metadata.managedFields";
    QTest::newRow("list-map item without its key")
        << R"({"spec":{"template":{"spec":{"containers":[{"name":"nginx","ports":[{"name":"x"}]}]}}}})"
        << "omits key field \"containerPort\""
        << ".spec.template.spec.containers[name=\"nginx\"].ports";
    QTest::newRow("duplicate list-map keys")
        << R"({"spec":{"template":{"spec":{"containers":[{"name":"a"},{"name":"a"}]}}}})"
        << "duplicate entries"
        << ".spec.template.spec.containers";
}

void TestConflictPrediction::manifestsTheServerRejectsAreInvalid()
{
    QFETCH(QString, patch);
    QFETCH(QString, messagePart);
    QFETCH(QString, where);
    auto p = predictApply(manifestFor(QStringLiteral("Deployment/apps/v1/web"), patch), "x",
                          loadFixture(QStringLiteral("deployment.yaml")));
    QVERIFY(!p.ok());
    QCOMPARE(p.error().category, ErrorCategory::Invalid);
    QVERIFY2(QString::fromStdString(p.error().message).contains(messagePart), p.error().message.c_str());
    QCOMPARE(QString::fromStdString(p.error().where), where);
}

void TestConflictPrediction::predictionJsonHasStableFieldNames()
{
    auto p = predictApply(
        manifestFor(QStringLiteral("deployment-manifest.yaml"),
                    QStringLiteral(R"({"spec":{"replicas":3},"metadata":{"labels":{"app":null,"team":"a"}}})")),
        "kubectl", loadFixture(QStringLiteral("deployment.yaml")));
    QVERIFY(p.ok());
    QString message;
    QVERIFY2(matchesGolden(QStringLiteral("deployment.prediction.json"),
                           QString::fromStdString(p->toJson().dump(2) + "\n"), &message),
             qPrintable(message));
}

QTEST_GUILESS_MAIN(TestConflictPrediction)
#include "tst_conflictprediction.moc"
