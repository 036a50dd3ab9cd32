// The ownership tree: every field of an object joined with every managedFields owner.
#include "bigobject.h"
#include "core/ownership/ownershiptree.h"
#include "ownershipfixtures.h"

#include <QTest>

using namespace fieldscope::core;
using namespace fieldscope::testing;

class TestOwnershipTree : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void everyNodeListsEveryOwner_data();
    void everyNodeListsEveryOwner();
    void deploymentTreeMatchesGolden();
    void managedFieldsThemselvesAreNotInTheTree();
    void listItemsMatchByKeyNotPosition();
    void setItemsMatchByValueKeepingTypes();
    void ownedPathsUnderAbsentParentsAreKept();
    void objectWithoutManagedFieldsIsAllUnowned();
    void jsonPointersRoundTripForEveryPresentNode();
    void malformedManagedFieldsGiveParseError();
    void legendCountsDirectOwnershipOnly();
    void treeIsAnImplicitlySharedValue();
    void buildsTheTreeOfAHugeObjectWithEveryOwnedField();
    void objectsPastTheDepthLimitAreAParseError();
};

void TestOwnershipTree::everyNodeListsEveryOwner_data()
{
    QTest::addColumn<QString>("fixture");
    QTest::addColumn<QString>("path");
    QTest::addColumn<QString>("owners");
    QTest::addColumn<bool>("present");
    const QString d = QStringLiteral("deployment.yaml");
    const QString nginx = QStringLiteral(".spec.template.spec.containers[name=\"nginx\"]");
    QTest::newRow("co-owned label lists both appliers") << d << ".metadata.labels.app"
                                                        << "ci-bot(Apply), kubectl(Apply)" << true;
    QTest::newRow("owned label no longer present is kept") << d << ".metadata.labels.tier"
                                                           << "kubectl(Apply)" << false;
    QTest::newRow("scale subresource owner") << d << ".spec.replicas"
                                             << "kube-controller-manager(Update/scale)" << true;
    QTest::newRow("status subresource owns an annotation")
        << d << ".metadata.annotations.deployment.kubernetes.io/revision"
        << "kube-controller-manager(Update/status)" << true;
    QTest::newRow("dot owns the map itself") << d << ".metadata.annotations"
                                             << "kube-controller-manager(Update/status)" << true;
    QTest::newRow("atomic struct children inherit") << d << ".spec.selector.matchLabels.app"
                                                    << "kubectl(Apply)^" << true;
    QTest::newRow("atomic struct leaf itself") << d << ".spec.selector"
                                               << "kubectl(Apply)" << true;
    QTest::newRow("container keyed by name") << d << nginx << "kubectl(Apply)" << true;
    QTest::newRow("field taken by kubectl edit")
        << d << nginx + QLatin1String(".image") << "kubectl-edit(Update)" << true;
    QTest::newRow("atomic list items inherit") << d << nginx + QLatin1String(".args[1]") << "kubectl(Apply)^" << true;
    QTest::newRow("port keyed by containerPort and protocol")
        << d << nginx + QLatin1String(".ports[containerPort=80,protocol=\"TCP\"].containerPort") << "kubectl(Apply)"
        << true;
    QTest::newRow("defaulted key field is unowned")
        << d << nginx + QLatin1String(".ports[containerPort=80,protocol=\"TCP\"].protocol") << "" << true;
    QTest::newRow("server default is unowned") << d << ".spec.progressDeadlineSeconds"
                                               << "" << true;
    QTest::newRow("set item by value") << d << ".metadata.finalizers[=\"example.com/x\"]"
                                       << "kubectl(Apply)" << true;
    QTest::newRow("status condition keyed by type") << d << ".status.conditions[type=\"Available\"].status"
                                                    << "kube-controller-manager(Update/status)" << true;
    QTest::newRow("server-set metadata is unowned") << d << ".metadata.uid"
                                                    << "" << true;
    const QString s = QStringLiteral("service.yaml");
    QTest::newRow("service port by port and protocol") << s << ".spec.ports[port=53,protocol=\"UDP\"].targetPort"
                                                       << "kubectl-patch(Update)" << true;
    QTest::newRow("service port defaulted protocol in key") << s << ".spec.ports[port=53,protocol=\"TCP\"].targetPort"
                                                            << "kubectl(Apply)" << true;
    QTest::newRow("atomic map children inherit") << s << ".spec.selector.k8s-app"
                                                 << "kubectl(Apply)^" << true;
    QTest::newRow("cluster IP unowned") << s << ".spec.clusterIP"
                                        << "" << true;
    const QString c = QStringLiteral("configmap.yaml");
    QTest::newRow("client-side apply is an Update") << c << ".data.key"
                                                    << "kubectl-client-side-apply(Update)" << true;
    QTest::newRow("last-applied annotation key with dots and slash")
        << c << ".metadata.annotations.kubectl.kubernetes.io/last-applied-configuration"
        << "kubectl-client-side-apply(Update)" << true;
}

void TestOwnershipTree::everyNodeListsEveryOwner()
{
    QFETCH(QString, fixture);
    QFETCH(QString, path);
    QFETCH(QString, owners);
    QFETCH(bool, present);
    auto tree = OwnershipTree::build(loadFixture(fixture));
    QVERIFY2(tree.ok(), tree.ok() ? "" : tree.error().describe().c_str());
    auto id = findByPathText(*tree, path);
    QVERIFY2(id.has_value(), qPrintable(dumpTree(*tree)));
    QCOMPARE(ownersText(*tree, *id), owners);
    QCOMPARE(tree->node(*id).isPresent(), present);
    QCOMPARE(QString::fromStdString(tree->path(*id).toString()), path);
    QCOMPARE(tree->find(tree->path(*id)), id);
}

void TestOwnershipTree::deploymentTreeMatchesGolden()
{
    auto tree = OwnershipTree::build(loadFixture(QStringLiteral("deployment.yaml")));
    QVERIFY(tree.ok());
    QString message;
    QVERIFY2(matchesGolden(QStringLiteral("deployment.tree.txt"), dumpTree(*tree), &message), qPrintable(message));
}

void TestOwnershipTree::managedFieldsThemselvesAreNotInTheTree()
{
    auto tree = OwnershipTree::build(loadFixture(QStringLiteral("deployment.yaml")));
    QVERIFY(tree.ok());
    QVERIFY(!findByPathText(*tree, QStringLiteral(".metadata.managedFields")));
    QVERIFY(findByPathText(*tree, QStringLiteral(".metadata.name")));
}

void TestOwnershipTree::listItemsMatchByKeyNotPosition()
{
    // FieldsV1 names "b" first; the live list has "a" first. Ownership follows the key.
    auto obj = parseJson(R"({"spec":{"containers":[{"name":"a","image":"x"},{"name":"b","image":"y"}]},
        "metadata":{"managedFields":[{"manager":"m","operation":"Apply","apiVersion":"v1",
        "fieldsV1":{"f:spec":{"f:containers":{"k:{\"name\":\"b\"}":{".":{},"f:image":{}}}}}}]}})");
    QVERIFY(obj.ok());
    auto tree = OwnershipTree::build(*obj);
    QVERIFY(tree.ok());
    QCOMPARE(ownersText(*tree, *findByPathText(*tree, QStringLiteral(".spec.containers[name=\"b\"].image"))),
             QStringLiteral("m(Apply)"));
    QCOMPARE(ownersText(*tree, *findByPathText(*tree, QStringLiteral(".spec.containers[name=\"a\"].image"))),
             QString());
    QCOMPARE(
        tree->jsonPointer(*findByPathText(*tree, QStringLiteral(".spec.containers[name=\"b\"].image"))).value_or(""),
        std::string("/spec/containers/1/image"));
}

void TestOwnershipTree::setItemsMatchByValueKeepingTypes()
{
    auto obj = parseJson(R"({"spec":{"s":["80",80]},
        "metadata":{"managedFields":[{"manager":"m","operation":"Apply","apiVersion":"v1",
        "fieldsV1":{"f:spec":{"f:s":{"v:80":{}}}}}]}})");
    QVERIFY(obj.ok());
    auto tree = OwnershipTree::build(*obj);
    QVERIFY(tree.ok());
    QCOMPARE(ownersText(*tree, *findByPathText(*tree, QStringLiteral(".spec.s[=80]"))), QStringLiteral("m(Apply)"));
    QCOMPARE(ownersText(*tree, *findByPathText(*tree, QStringLiteral(".spec.s[=\"80\"]"))), QString());
}

void TestOwnershipTree::ownedPathsUnderAbsentParentsAreKept()
{
    auto obj = parseJson(R"({"spec":{"replicas":1},
        "metadata":{"managedFields":[{"manager":"old","operation":"Update","apiVersion":"v1",
        "fieldsV1":{"f:spec":{"f:gone":{"f:deep":{}},"f:list":{"k:{\"name\":\"x\"}":{".":{},"f:v":{}}}}}}]}})");
    QVERIFY(obj.ok());
    auto tree = OwnershipTree::build(*obj);
    QVERIFY(tree.ok());
    QCOMPARE(dumpTree(*tree), QStringLiteral("spec = {1 key}\n"
                                             "  replicas = 1\n"
                                             "  gone (absent)\n"
                                             "    deep (absent)  <- old(Update)\n"
                                             "  list (absent)\n"
                                             "    [name=\"x\"] (absent)  <- old(Update)\n"
                                             "      v (absent)  <- old(Update)\n"
                                             "metadata = {0 keys}\n"));
    QVERIFY(!tree->jsonPointer(*findByPathText(*tree, QStringLiteral(".spec.gone.deep"))));
}

void TestOwnershipTree::objectWithoutManagedFieldsIsAllUnowned()
{
    auto obj = parseJson(R"({"kind":"Pod","spec":{"containers":[{"name":"a"}]}})");
    QVERIFY(obj.ok());
    auto tree = OwnershipTree::build(*obj);
    QVERIFY(tree.ok());
    QVERIFY(tree->entries().empty());
    QCOMPARE(dumpTree(*tree),
             QStringLiteral(
                 "kind = Pod\nspec = {1 key}\n  containers = [1 item]\n    [name=\"a\"] = {1 key}\n      name = a\n"));
}

void TestOwnershipTree::jsonPointersRoundTripForEveryPresentNode()
{
    const Json obj = loadFixture(QStringLiteral("deployment.yaml"));
    auto tree = OwnershipTree::build(obj);
    QVERIFY(tree.ok());
    int present = 0;
    for (NodeId id = 1; id < tree->nodeCount(); ++id) {
        auto ptr = tree->jsonPointer(id);
        QCOMPARE(ptr.has_value(), tree->node(id).isPresent());
        if (!ptr)
            continue;
        ++present;
        QCOMPARE(tree->findByJsonPointer(*ptr), std::optional<NodeId>(id));
        QVERIFY(obj.contains(Json::json_pointer(*ptr)));
        std::string resolved;
        QVERIFY(tree->path(id).resolve(obj, &resolved));
        QCOMPARE(resolved, *ptr);
    }
    QVERIFY(present > 40);
}

void TestOwnershipTree::malformedManagedFieldsGiveParseError()
{
    auto obj = parseJson(
        R"({"metadata":{"managedFields":[{"manager":"m","operation":"Apply","fieldsV1":{"f:spec":{"k:{oops":{}}}}]}})");
    QVERIFY(obj.ok());
    auto tree = OwnershipTree::build(*obj);
    QVERIFY(!tree.ok());
    QCOMPARE(tree.error().category, ErrorCategory::Parse);
    QCOMPARE(QString::fromStdString(tree.error().where), QStringLiteral("metadata.managedFields[0].fieldsV1 at .spec"));
}

void TestOwnershipTree::legendCountsDirectOwnershipOnly()
{
    auto tree = OwnershipTree::build(loadFixture(QStringLiteral("deployment.yaml")));
    QVERIFY(tree.ok());
    QCOMPARE(tree->entries()[1].manager, std::string("kubectl"));
    // Ten member paths in kubectl's FieldsV1 (labels.tier is absent but still owned).
    QCOMPARE(tree->entries()[1].fields.memberCount(), std::size_t(10));
    QCOMPARE(tree->ownedNodeCount(1), std::size_t(10));
    QCOMPARE(tree->ownedNodeCount(2), std::size_t(1)); // scale: replicas
}

void TestOwnershipTree::treeIsAnImplicitlySharedValue()
{
    auto tree = OwnershipTree::build(loadFixture(QStringLiteral("service.yaml")));
    QVERIFY(tree.ok());
    const OwnershipTree copy = *tree;
    QCOMPARE(&copy.node(0), &tree->node(0));
    const OwnershipTree empty;
    QCOMPARE(empty.nodeCount(), std::size_t(1));
    QVERIFY(!empty.node(0).isPresent());
}

// How fast is bench/bench_ownership's question; here: a 1.5 MiB object with 12,000 owned
// fields builds completely, every owned node attributed to its manager.
void TestOwnershipTree::buildsTheTreeOfAHugeObjectWithEveryOwnedField()
{
    const Json big = bigConfigMapWithOwners(6000, 220); // ~1.5 MiB of JSON
    QVERIFY(big.dump().size() > 1'400'000);
    auto tree = OwnershipTree::build(big);
    QVERIFY(tree.ok());
    QCOMPARE(tree->ownedNodeCount(0), std::size_t(6000));
    QCOMPARE(tree->ownedNodeCount(1), std::size_t(6000)); // 3000 items + their value fields
}

// The join recurses once per level: an object nested past kMaxJsonDepth (built in code; parseJson
// would refuse the text) is refused before the walk, one at the limit builds.
void TestOwnershipTree::objectsPastTheDepthLimitAreAParseError()
{
    auto objectOfDepth = [](int depth) {
        Json v = Json::object();
        v["leaf"] = 1;
        for (int i = 2; i < depth; ++i) {
            Json outer = Json::object();
            outer["a"] = std::move(v);
            v = std::move(outer);
        }
        Json o = Json::object();
        o["kind"] = "ConfigMap";
        o["data"] = std::move(v);
        return o;
    };
    QCOMPARE(jsonDepth(objectOfDepth(kMaxJsonDepth)), std::size_t(kMaxJsonDepth));
    auto atLimit = OwnershipTree::build(objectOfDepth(kMaxJsonDepth));
    QVERIFY2(atLimit.ok(), atLimit.ok() ? "" : atLimit.error().describe().c_str());
    FieldPath deepest = FieldPath().child(PathElement::makeField("data"));
    for (int i = 2; i < kMaxJsonDepth; ++i)
        deepest = deepest.child(PathElement::makeField("a"));
    QVERIFY(atLimit->find(deepest.child(PathElement::makeField("leaf"))).has_value());
    auto past = OwnershipTree::build(objectOfDepth(kMaxJsonDepth + 1));
    QVERIFY(!past.ok());
    QCOMPARE(past.error().category, ErrorCategory::Parse);
    QVERIFY(QString::fromStdString(past.error().message).contains(QLatin1String("deeper than 512")));
    QVERIFY(QString::fromStdString(past.error().where).startsWith(QLatin1String("/data/a/a")));
}

QTEST_GUILESS_MAIN(TestOwnershipTree)
#include "tst_ownershiptree.moc"
