// Every write verb against the real apiserver, and the typed errors a user must be shown:
// stale writes, failed JSON Patch tests, SSA field conflicts with their owners, preconditions.
#include "watchrecorder.h"

using namespace fieldscope;
using namespace fieldscope::testing;

class TestWrites : public QObject
{
    Q_OBJECT
    std::unique_ptr<kube::Connection> m_conn;
    std::unique_ptr<kube::ApiClient> m_client;
    std::unique_ptr<ScratchNamespace> m_ns;
    kube::ResourceInfo m_cm = configMaps();

    core::Json createCm(const std::string &name, const std::string &value) { return m_ns->create(name, value); }

private Q_SLOTS:
    void initTestCase()
    {
        m_conn = std::make_unique<kube::Connection>(connectTo(ctxToken()));
        m_client = std::make_unique<kube::ApiClient>(m_conn->transport);
        m_ns = std::make_unique<ScratchNamespace>(*m_client, "fs-writes");
    }
    void cleanupTestCase()
    {
        m_ns.reset();
        m_client.reset();
    }

    void replaceWithStaleResourceVersionIsAStaleWrite()
    {
        core::Json opened = createCm("stale", "1");
        m_ns->update("stale", "someone-else"); // the object moves on
        opened["data"]["v"] = "mine";
        auto r = call(*m_client, kube::replaceRequest(m_cm, m_ns->name(), opened));
        QVERIFY(!r.ok());
        QCOMPARE(r.error().category, core::ErrorCategory::StaleWrite);
        QCOMPARE(r.error().httpStatus, 409);
        QVERIFY(!r.error().isSsaConflict());
    }

    void compareAndSwapWritesOnlyWhenTheValueIsStillExpected()
    {
        createCm("cas", "1");
        auto ok = call(*m_client, kube::patchRequest(m_cm, m_ns->name(), "cas", kube::PatchType::Json,
                                                     kube::compareAndSwapPatch("/data/v", "1", "2")));
        QVERIFY2(ok.ok(), ok.ok() ? "" : ok.error().describe().c_str());
        QCOMPARE(QString::fromStdString((*core::parseJson(ok->body))["data"]["v"].get<std::string>()),
                 QStringLiteral("2"));
        // Again "only if foo is 1": it is 2 now, so nothing is written.
        auto refused = call(*m_client, kube::patchRequest(m_cm, m_ns->name(), "cas", kube::PatchType::Json,
                                                          kube::compareAndSwapPatch("/data/v", "1", "3")));
        QVERIFY(!refused.ok());
        QCOMPARE(refused.error().category, core::ErrorCategory::Invalid);
        QCOMPARE(refused.error().httpStatus, 422);
        auto now = call(*m_client, kube::getRequest(m_cm, m_ns->name(), "cas"));
        QCOMPARE(QString::fromStdString((*core::parseJson(now->body))["data"]["v"].get<std::string>()),
                 QStringLiteral("2"));
    }

    // The Drift view's Give back writes at a pointer resolved from the table's copy of the object.
    // Someone reorders the containers in between: index 0 is now another container with the same
    // image. Without pins that write lands on the neighbour; with them it is refused.
    void compareAndSwapThroughAReorderedListIsRefusedNotMisplaced()
    {
        kube::ResourceInfo deployments;
        deployments.group = "apps";
        deployments.version = "v1";
        deployments.resource = "deployments";
        deployments.kind = "Deployment";
        deployments.namespaced = true;
        const auto container = [](const char *name) {
            return core::Json{{"name", name}, {"image", "registry.invalid/same:1"}};
        };
        const auto deployment = [&](const char *name, core::Json containers) {
            return core::Json{
                {"apiVersion", "apps/v1"},
                {"kind", "Deployment"},
                {"metadata", {{"name", name}}},
                {"spec",
                 {{"replicas", 0},
                  {"selector", {{"matchLabels", {{"app", name}}}}},
                  {"template",
                   {{"metadata", {{"labels", {{"app", name}}}}}, {"spec", {{"containers", std::move(containers)}}}}}}}};
        };
        const core::FieldPath appImage({core::PathElement::makeField("spec"), core::PathElement::makeField("template"),
                                        core::PathElement::makeField("spec"),
                                        core::PathElement::makeField("containers"),
                                        core::PathElement::makeKey(core::Json{{"name", "app"}}),
                                        core::PathElement::makeField("image")});
        const core::Json reordered = core::Json::array({container("side"), container("app")});
        const auto imageOf = [&](const char *name, const char *which) {
            auto got = call(*m_client, kube::getRequest(deployments, m_ns->name(), name));
            if (!got)
                return std::string("(unreadable)");
            auto object = core::parseJson(got->body);
            if (!object)
                return std::string("(unreadable)");
            const core::Json containers = (*object)["spec"]["template"]["spec"]["containers"];
            for (const auto &c : containers)
                if (c["name"] == which)
                    return c["image"].get<std::string>();
            return std::string("(missing)");
        };
        for (const bool pinned : {false, true}) {
            const char *name = pinned ? "pinned" : "unpinned";
            auto created =
                call(*m_client,
                     kube::createRequest(deployments, m_ns->name(),
                                         deployment(name, core::Json::array({container("app"), container("side")}))));
            QVERIFY2(created.ok(), created.ok() ? "" : created.error().describe().c_str());
            std::string pointer;
            std::vector<core::PointerPin> pins;
            QVERIFY(appImage.resolve(*core::parseJson(created->body), &pointer, nullptr, &pins));
            QCOMPARE(QString::fromStdString(pointer), QStringLiteral("/spec/template/spec/containers/0/image"));
            auto moved = call(*m_client,
                              kube::patchRequest(deployments, m_ns->name(), name, kube::PatchType::Json,
                                                 core::Json::array({{{"op", "replace"},
                                                                     {"path", "/spec/template/spec/containers"},
                                                                     {"value", reordered}}})));
            QVERIFY2(moved.ok(), moved.ok() ? "" : moved.error().describe().c_str());
            auto write = call(*m_client,
                              kube::patchRequest(deployments, m_ns->name(), name, kube::PatchType::Json,
                                                 pinned ? kube::compareAndSwapPatch(pointer, "registry.invalid/same:1",
                                                                                    "registry.invalid/new:2", pins)
                                                        : kube::compareAndSwapPatch(pointer, "registry.invalid/same:1",
                                                                                    "registry.invalid/new:2")));
            if (!pinned) { // the hazard the pins exist for: the neighbour was written
                QVERIFY(write.ok());
                QCOMPARE(QString::fromStdString(imageOf(name, "side")), QStringLiteral("registry.invalid/new:2"));
                continue;
            }
            QVERIFY(!write.ok());
            QCOMPARE(write.error().httpStatus, 422);
            QCOMPARE(QString::fromStdString(imageOf(name, "side")), QStringLiteral("registry.invalid/same:1"));
            QCOMPARE(QString::fromStdString(imageOf(name, "app")), QStringLiteral("registry.invalid/same:1"));
        }
    }

    void resourceVersionPreconditionInAPatchIsAStaleWrite()
    {
        core::Json opened = createCm("rvpatch", "1");
        m_ns->update("rvpatch", "2");
        auto patch = kube::withResourceVersionPrecondition(
            core::Json::array({{{"op", "replace"}, {"path", "/data/v"}, {"value", "3"}}}),
            opened["metadata"]["resourceVersion"].get<std::string>());
        auto r = call(*m_client, kube::patchRequest(m_cm, m_ns->name(), "rvpatch", kube::PatchType::Json, patch));
        QVERIFY(!r.ok());
        QCOMPARE(r.error().category, core::ErrorCategory::StaleWrite);
    }

    void serverSideApplyConflictNamesTheOwnerAndTheField()
    {
        core::Json cm = {{"apiVersion", "v1"},
                         {"kind", "ConfigMap"},
                         {"metadata", {{"name", "ssa"}, {"namespace", m_ns->name()}}},
                         {"data", {{"k", "a"}}}};
        kube::WriteOptions alice;
        alice.fieldManager = "alice";
        QVERIFY(call(*m_client, kube::applyRequest(m_cm, m_ns->name(), cm, alice)).ok());
        cm["data"]["k"] = "b";
        kube::WriteOptions bob;
        bob.fieldManager = "bob";
        auto r = call(*m_client, kube::applyRequest(m_cm, m_ns->name(), cm, bob));
        QVERIFY(!r.ok());
        QCOMPARE(r.error().category, core::ErrorCategory::Conflict);
        QVERIFY(r.error().isSsaConflict());
        QCOMPARE(int(r.error().conflicts.size()), 1);
        QCOMPARE(QString::fromStdString(r.error().conflicts[0].manager), QStringLiteral("alice"));
        QCOMPARE(QString::fromStdString(r.error().conflicts[0].path), QStringLiteral(".data.k"));
        // Dry run with force shows the result without storing it.
        bob.force = true;
        bob.dryRun = true;
        auto dry = call(*m_client, kube::applyRequest(m_cm, m_ns->name(), cm, bob));
        QVERIFY(dry.ok());
        auto live = call(*m_client, kube::getRequest(m_cm, m_ns->name(), "ssa"));
        QCOMPARE(QString::fromStdString((*core::parseJson(live->body))["data"]["k"].get<std::string>()),
                 QStringLiteral("a"));
        // Forced for real: bob owns the field now.
        bob.dryRun = false;
        auto forced = call(*m_client, kube::applyRequest(m_cm, m_ns->name(), cm, bob));
        QVERIFY(forced.ok());
        QCOMPARE(QString::fromStdString((*core::parseJson(forced->body))["data"]["k"].get<std::string>()),
                 QStringLiteral("b"));
    }

    void deleteWithWrongUidPreconditionDeletesNothing()
    {
        createCm("precond", "1");
        auto r = call(*m_client, kube::deleteRequest(m_cm, m_ns->name(), "precond", {"not-the-uid", {}}));
        QVERIFY(!r.ok());
        QCOMPARE(r.error().httpStatus, 409);
        QVERIFY(call(*m_client, kube::getRequest(m_cm, m_ns->name(), "precond")).ok());
        const std::string uid = m_ns->uidOf["precond"];
        QVERIFY(call(*m_client,
                     kube::deleteRequest(m_cm, m_ns->name(), "precond", {uid, {}}, kube::PropagationPolicy::Background))
                    .ok());
        auto gone = call(*m_client, kube::getRequest(m_cm, m_ns->name(), "precond"));
        QVERIFY(!gone.ok());
        QCOMPARE(gone.error().category, core::ErrorCategory::NotFound);
    }

    void createOfAnExistingNameIsAlreadyExists()
    {
        createCm("twice", "1");
        core::Json obj = {{"apiVersion", "v1"}, {"kind", "ConfigMap"}, {"metadata", {{"name", "twice"}}}};
        auto r = call(*m_client, kube::createRequest(m_cm, m_ns->name(), obj));
        QVERIFY(!r.ok());
        QCOMPARE(QString::fromStdString(r.error().reason), QStringLiteral("AlreadyExists"));
        QCOMPARE(r.error().category, core::ErrorCategory::Conflict);
    }

    void invalidObjectGivesCausesWithFieldPaths()
    {
        core::Json obj = {{"apiVersion", "v1"}, {"kind", "ConfigMap"}, {"metadata", {{"name", "Not_Valid"}}}};
        auto r = call(*m_client, kube::createRequest(m_cm, m_ns->name(), obj));
        QVERIFY(!r.ok());
        QCOMPARE(r.error().httpStatus, 422);
        QVERIFY(!r.error().causes.empty());
        QCOMPARE(QString::fromStdString(r.error().causes[0].field), QStringLiteral("metadata.name"));
    }

    void scaleSubresourceWritesReplicasAndStatusIsSeparate()
    {
        kube::ResourceInfo deploy;
        deploy.group = "apps";
        deploy.version = "v1";
        deploy.resource = "deployments";
        deploy.kind = "Deployment";
        deploy.namespaced = true;
        core::Json d = {
            {"apiVersion", "apps/v1"},
            {"kind", "Deployment"},
            {"metadata", {{"name", "web"}}},
            {"spec",
             {{"replicas", 1},
              {"selector", {{"matchLabels", {{"app", "web"}}}}},
              {"template",
               {{"metadata", {{"labels", {{"app", "web"}}}}},
                {"spec", {{"containers", core::Json::array({{{"name", "nginx"}, {"image", "nginx:1.25"}}})}}}}}}}};
        QVERIFY(call(*m_client, kube::createRequest(deploy, m_ns->name(), d)).ok());
        kube::WriteOptions scale;
        scale.subresource = "scale";
        auto r = call(*m_client, kube::patchRequest(deploy, m_ns->name(), "web", kube::PatchType::Merge,
                                                    {{"spec", {{"replicas", 3}}}}, scale));
        QVERIFY2(r.ok(), r.ok() ? "" : r.error().describe().c_str());
        QCOMPARE((*core::parseJson(r->body))["kind"].get<std::string>(), std::string("Scale"));
        auto live = call(*m_client, kube::getRequest(deploy, m_ns->name(), "web"));
        QCOMPARE((*core::parseJson(live->body))["spec"]["replicas"].get<int>(), 3);
    }

    void deprecatedApiWarningsAreSurfaced()
    {
        // A CRD version marked deprecated: the server answers every request to it with its
        // deprecationWarning in a `Warning: 299 - "text"` header (built-in deprecated APIs come and
        // go with releases; this one is ours).
        const std::string crd = R"({"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition",
          "metadata":{"name":"relics.writes.fieldscope.dev"},
          "spec":{"group":"writes.fieldscope.dev","scope":"Namespaced","names":{"plural":"relics","singular":"relic","kind":"Relic"},
            "versions":[{"name":"v1","served":true,"storage":true,"deprecated":true,
              "deprecationWarning":"writes.fieldscope.dev/v1 Relic is deprecated",
              "schema":{"openAPIV3Schema":{"type":"object","x-kubernetes-preserve-unknown-fields":true}}}]}})";
        auto created = call(*m_client, request("POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", crd));
        QVERIFY(created.ok() || created.error().httpStatus == 409);
        const std::string path = "/apis/writes.fieldscope.dev/v1/namespaces/" + m_ns->name() + "/relics";
        QTRY_VERIFY_WITH_TIMEOUT(call(*m_client, request("GET", path)).ok(), 30000);
        auto r = call(*m_client, request("GET", path));
        QVERIFY(r.ok());
        QCOMPARE(r->warnings.size(), std::size_t(1));
        QCOMPARE(QString::fromStdString(r->warnings[0]),
                 QStringLiteral("writes.fieldscope.dev/v1 Relic is deprecated"));
        (void)call(*m_client,
                   request("DELETE",
                           "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/relics.writes.fieldscope.dev"));
    }
};

QTEST_GUILESS_MAIN(TestWrites)
#include "tst_writes.moc"
