// What a modern kube-apiserver does that the 1.20 server our tests used to run on did not, checked
// against the real thing (the release scripts/build-kube.sh builds, 1.35 or newer): aggregated
// discovery and its ETag, streaming lists, subresources in managedFields as blame and the
// per-field timeline show them, kubectl's client-side to server-side apply migration, field
// validation, a ValidatingAdmissionPolicy's denial and warning, a CRD's CEL rule, a deprecated
// version's Warning header, and the audit events of a TokenRequest token. Every test here fails
// on a 1.20 server.
#include "core/base/jsonread.h"
#include "core/history/attribution.h"
#include "core/objects/fieldpath.h"
#include "core/ownership/ownershiptree.h"
#include "watchrecorder.h"

#include <QFile>
#include <QTemporaryDir>
#include <QThread>

#include <algorithm>
#include <set>

using namespace fieldscope;
using namespace fieldscope::testing;

namespace {

QString kubectl()
{
    return qEnvironmentVariable("FIELDSCOPE_KUBECTL");
}

// kubectl as the cluster's admin; stdin optional. Returns exit code and output.
ProcessResult runKubectl(const QStringList &args, const QByteArray &input = {})
{
    QProcess p;
    p.start(kubectl(), adminArgs() + args);
    if (!input.isEmpty()) {
        p.write(input);
        p.closeWriteChannel();
    }
    ProcessResult r;
    if (!p.waitForFinished(60000))
        p.kill();
    r.exitCode = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
    r.out = p.readAllStandardOutput();
    r.err = p.readAllStandardError();
    return r;
}

core::Json parsed(const QByteArray &text)
{
    auto j = core::parseJson(text.toStdString());
    if (!j)
        qFatal("not JSON: %s", text.constData());
    return *j;
}

// The minor version of a gitVersion ("v1.37.2" -> 37).
int minorOf(const std::string &gitVersion)
{
    const auto dot = gitVersion.find('.');
    return dot == std::string::npos ? 0 : std::atoi(gitVersion.c_str() + dot + 1);
}

// A blame JSON leaf's owners as "manager/operation/subresource".
QStringList blameOwners(const core::Json &blame, const std::string &path)
{
    QStringList out;
    for (const auto &leaf : blame)
        if (leaf["path"].get<std::string>() == path)
            for (const auto &o : leaf["owners"])
                out << QString::fromStdString(o["manager"].get<std::string>() + "/" + o["operation"].get<std::string>()
                                              + "/" + o["subresource"].get<std::string>());
    out.sort();
    return out;
}

const char *const kWidgetCrd = R"({"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition",
  "metadata":{"name":"gadgets.modern.fieldscope.dev"},
  "spec":{"group":"modern.fieldscope.dev","scope":"Namespaced",
    "names":{"plural":"gadgets","singular":"gadget","kind":"Gadget"},
    "versions":[
      {"name":"v1beta1","served":true,"storage":false,"deprecated":true,
       "deprecationWarning":"modern.fieldscope.dev/v1beta1 Gadget is deprecated; use modern.fieldscope.dev/v1",
       "schema":{"openAPIV3Schema":{"type":"object","x-kubernetes-preserve-unknown-fields":true}}},
      {"name":"v1","served":true,"storage":true,
       "schema":{"openAPIV3Schema":{"type":"object","properties":{"spec":{"type":"object",
         "properties":{"replicas":{"type":"integer"},"maxReplicas":{"type":"integer"}},
         "x-kubernetes-validations":[{"rule":"self.replicas <= self.maxReplicas",
           "message":"replicas must not exceed maxReplicas","fieldPath":".replicas"}]}}}}}]}})";

} // namespace

class TestModernServer : public QObject
{
    Q_OBJECT
    kube::Connection m_conn;
    std::unique_ptr<kube::ApiClient> m_client;
    std::unique_ptr<ScratchNamespace> m_ns;
    QTemporaryDir m_dir;

    // A ValidatingAdmissionPolicy on this test's namespace's ConfigMaps and its binding with ACTION
    // (Deny, Warn); an existing one (409: an earlier run) is kept. cleanupTestCase deletes both.
    bool installConfigMapPolicy(const std::string &name, const std::string &expression, const std::string &message,
                                const std::string &action)
    {
        using core::Json;
        const Json rule = {{"apiGroups", Json::array({""})},
                           {"apiVersions", Json::array({"v1"})},
                           {"operations", Json::array({"CREATE", "UPDATE"})},
                           {"resources", Json::array({"configmaps"})}};
        const std::string policy =
            core::toJsonText({{"apiVersion", "admissionregistration.k8s.io/v1"},
                              {"kind", "ValidatingAdmissionPolicy"},
                              {"metadata", {{"name", name}}},
                              {"spec",
                               {{"failurePolicy", "Fail"},
                                {"matchConstraints", {{"resourceRules", Json::array({rule})}}},
                                {"validations", Json::array({{{"expression", expression}, {"message", message}}})}}}});
        const std::string binding = core::toJsonText(
            {{"apiVersion", "admissionregistration.k8s.io/v1"},
             {"kind", "ValidatingAdmissionPolicyBinding"},
             {"metadata", {{"name", name}}},
             {"spec",
              {{"policyName", name},
               {"validationActions", Json::array({action})},
               {"matchResources",
                {{"namespaceSelector", {{"matchLabels", {{"kubernetes.io/metadata.name", m_ns->name()}}}}}}}}}});
        for (const auto &[what, body] : {std::pair{"validatingadmissionpolicies", policy},
                                         std::pair{"validatingadmissionpolicybindings", binding}}) {
            auto r = call(*m_client,
                          request("POST", std::string("/apis/admissionregistration.k8s.io/v1/") + what, body));
            if (!r.ok() && r.error().httpStatus != 409) {
                qWarning("%s", r.error().describe().c_str());
                return false;
            }
        }
        return true;
    }

    QString file(const QString &name, const QByteArray &text)
    {
        QString path = m_dir.filePath(name);
        QFile f(path);
        if (!f.open(QIODevice::WriteOnly) || f.write(text) != text.size())
            qFatal("cannot write %s", qPrintable(path));
        return path;
    }

    ProcessResult fieldscope(const QStringList &args) { return runFieldscope(args + adminArgs()); }

    core::Json blame(const QString &object)
    {
        const ProcessResult r = fieldscope({QStringLiteral("blame"), object, QStringLiteral("-n"),
                                            QString::fromStdString(m_ns->name()), QStringLiteral("-o"),
                                            QStringLiteral("json")});
        if (r.exitCode != 0)
            qFatal("blame failed: %s", r.err.constData());
        return parsed(r.out);
    }

    // Creates the Gadget CRD once and waits until its versions are served.
    void ensureGadgets()
    {
        auto created = call(*m_client, request("POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions",
                                               std::string(kWidgetCrd)));
        QVERIFY2(created.ok() || created.error().httpStatus == 409,
                 created.ok() ? "" : created.error().describe().c_str());
        QTRY_VERIFY_WITH_TIMEOUT(call(*m_client, request("GET", "/apis/modern.fieldscope.dev/v1/namespaces/"
                                                                    + m_ns->name() + "/gadgets"))
                                     .ok(),
                                 30000);
    }

private Q_SLOTS:
    void initTestCase()
    {
        m_conn = connectTo(ctxToken());
        m_client = std::make_unique<kube::ApiClient>(m_conn.transport);
        m_ns = std::make_unique<ScratchNamespace>(*m_client, "fs-modern");
        QVERIFY(QFileInfo(kubectl()).isExecutable());
    }

    void cleanupTestCase()
    {
        (void)call(*m_client,
                   request("DELETE",
                           "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/gadgets.modern.fieldscope.dev"));
        for (const char *what : {"validatingadmissionpolicybindings", "validatingadmissionpolicies"})
            for (const char *name : {"fieldscope-modern-no-forbidden", "fieldscope-modern-warn-note"})
                (void)call(*m_client, request("DELETE", std::string("/apis/admissionregistration.k8s.io/v1/") + what
                                                            + "/" + name));
        m_ns.reset();
    }

    void theServerIsAModernRelease()
    {
        kube::Discovery d(m_client.get());
        QSignalSpy done(&d, &kube::Discovery::finished);
        d.refresh();
        QVERIFY(done.wait(20000));
        const std::string v = d.snapshot().serverVersion;
        QVERIFY2(v.rfind("v1.", 0) == 0 && minorOf(v) >= 35, v.c_str());
    }

    void aggregatedDiscoveryTakesTwoDocumentsAndRevalidatesWithItsEtag()
    {
        // Other tests on this cluster add and remove CRDs at any moment (ctest -j2), and each
        // changes /apis and its ETag: a 200 for /apis then is the server being right. /api (the
        // core group) never changes; the pair is tried again until nothing moved in between.
        int notModified = 0;
        for (int attempt = 0; attempt < 5 && notModified != 2; ++attempt) {
            QTemporaryDir cacheDir;
            kube::DiscoveryCacheUse use;
            use.path = cacheDir.filePath(QStringLiteral("discovery.json")).toStdString();
            use.server = m_conn.config.server;
            use.blockingIo = true;
            {
                kube::Discovery first(m_client.get());
                first.setCache(use);
                QSignalSpy done(&first, &kube::Discovery::finished);
                first.refresh();
                QVERIFY(done.wait(20000));
                QVERIFY(first.snapshot().aggregated);
                QCOMPARE(first.documentRequests(), 2); // /api and /apis, every group in them
                QCOMPARE(first.notModifiedAnswers(), 0);
                const auto *deploy = first.snapshot().resolve("deploy");
                QVERIFY(deploy && deploy->hasSubresource("scale") && deploy->hasSubresource("status"));
            }
            QVERIFY(QFile::exists(QString::fromStdString(use.path)));
            // The next process starts from the file and asks again with the ETags it kept.
            kube::Discovery next(m_client.get());
            next.setCache(use);
            QSignalSpy done(&next, &kube::Discovery::finished);
            next.refresh();
            QTRY_VERIFY_WITH_TIMEOUT(!done.isEmpty() && !next.isRunning() && !next.snapshotFromCache(), 20000);
            QCOMPARE(next.documentRequests(), 2);
            QVERIFY(next.snapshot().aggregated);
            QVERIFY(next.snapshot().resolve("deploy"));
            notModified = next.notModifiedAnswers();
            QVERIFY2(notModified >= 1, "the core group's unchanged document was sent again instead of a 304");
        }
        QCOMPARE(notModified, 2);
    }

    void streamingListListsTheSameVersionsAsPaging()
    {
        for (int i = 0; i < 7; ++i)
            m_ns->create("stream-" + std::to_string(i), std::to_string(i));
        auto listed = [&](bool stream) {
            kube::WatcherOptions o;
            o.tryWatchList = stream;
            o.pageSize = o.maxPageSize = 3; // paging: three pages
            auto w = std::make_unique<kube::Watcher>(m_client.get(),
                                                     kube::WatchScope{configMaps(), m_ns->name(), {}, {}}, o);
            WatchRecorder rec;
            rec.attach(*w);
            w->start();
            std::set<std::pair<std::string, std::string>> out;
            if (!QTest::qWaitFor([&] { return w->store().size() >= 7 && w->state() == kube::Watcher::State::Watching; },
                                 20000))
                return std::pair{false, out};
            for (const auto &[uid, rvs] : rec.versions)
                for (const auto &rv : rvs)
                    out.insert({uid, rv});
            return std::pair{w->lastListStreamed(), out};
        };
        const auto [streamed, byStream] = listed(true);
        const auto [paged, byPages] = listed(false);
        QVERIFY(streamed); // sendInitialEvents: the modern server streams the initial list
        QVERIFY(!paged);
        QVERIFY(byStream.size() >= 7);
        QVERIFY(byStream == byPages);
    }

    void severalStreamingListsShareOneConnection()
    {
        // The window watches namespaces, the shown kind and its events at once, multiplexed on one
        // HTTP/2 connection; the modern server streams each initial list (and gzips it when asked).
        for (int i = 0; i < 20; ++i)
            m_ns->create("many-" + std::to_string(i), std::string(2000, 'x'));
        kube::ResourceInfo namespaces;
        namespaces.version = "v1";
        namespaces.resource = "namespaces";
        namespaces.kind = "Namespace";
        namespaces.verbs = {"list", "watch"};
        kube::ResourceInfo events = configMaps();
        events.resource = "events";
        events.kind = "Event";
        std::vector<std::unique_ptr<kube::Watcher>> watchers;
        QStringList errors;
        const long connectionsBefore = m_conn.transport->connectionsOpened();
        for (const kube::WatchScope &scope :
             {kube::WatchScope{namespaces, "", {}, {}}, kube::WatchScope{configMaps(), "", {}, {}},
              kube::WatchScope{events, "", {}, {}}, kube::WatchScope{configMaps(), m_ns->name(), {}, {}}}) {
            watchers.push_back(std::make_unique<kube::Watcher>(m_client.get(), scope, kube::WatcherOptions{}));
            QObject::connect(watchers.back().get(), &kube::Watcher::errorOccurred, watchers.back().get(),
                             [&errors](const QString &m) { errors << m; });
        }
        for (auto &w : watchers)
            w->start();
        QTRY_VERIFY_WITH_TIMEOUT(std::all_of(watchers.begin(), watchers.end(),
                                             [](const auto &w) {
                                                 return w->state() == kube::Watcher::State::Watching;
                                             }),
                                 20000);
        for (auto &w : watchers) {
            QVERIFY(w->lastListStreamed());
            QCOMPARE(w->resumeCount(), 0); // no stream was dropped and resumed
        }
        QVERIFY2(errors.isEmpty(), qPrintable(errors.join(u'\n')));
        // Four streams on the connection the fixture's earlier requests opened (one more at most,
        // should that one have been closed idle in between).
        const long opened = m_conn.transport->connectionsOpened() - connectionsBefore;
        QVERIFY2(opened <= 1, qPrintable(QString::number(opened)));
    }

    void scaleAndStatusWritesAreOwnedThroughTheirSubresources()
    {
        const QString ns = QString::fromStdString(m_ns->name());
        QCOMPARE(runKubectl({QStringLiteral("-n"), ns, QStringLiteral("create"), QStringLiteral("deployment"),
                             QStringLiteral("web"), QStringLiteral("--image=registry.k8s.io/pause:3.9")})
                     .exitCode,
                 0);
        // The watcher records every version: the per-field timeline is built from them.
        kube::WatcherOptions o;
        kube::ResourceInfo deployments;
        deployments.group = "apps";
        deployments.version = "v1";
        deployments.resource = "deployments";
        deployments.kind = "Deployment";
        deployments.namespaced = true;
        kube::Watcher w(m_client.get(), {deployments, m_ns->name(), {}, {}}, o);
        std::vector<core::Json> objects;
        QObject::connect(&w, &kube::Watcher::batchReady, &w, [&](const core::WatchBatch &b) {
            for (const auto &e : b.events)
                if (e.type != core::WatchEventType::Deleted)
                    objects.push_back(*core::parseJson(e.json.toStdString()));
        });
        w.start();
        // Listed first: the timeline starts at the version kubectl created.
        QTRY_VERIFY_WITH_TIMEOUT(w.state() == kube::Watcher::State::Watching && !objects.empty(), 20000);
        QCOMPARE(runKubectl({QStringLiteral("-n"), ns, QStringLiteral("scale"), QStringLiteral("deployment/web"),
                             QStringLiteral("--replicas=4")})
                     .exitCode,
                 0);
        // The controller manager reports through /status.
        core::Json b;
        QTRY_VERIFY_WITH_TIMEOUT((b = blame(QStringLiteral("deployment/web")),
                                  !blameOwners(b, ".status.observedGeneration").isEmpty()),
                                 60000);
        QCOMPARE(blameOwners(b, ".spec.replicas"), QStringList{QStringLiteral("kubectl/Update/scale")});
        QCOMPARE(blameOwners(b, ".status.observedGeneration"),
                 QStringList{QStringLiteral("kube-controller-manager/Update/status")});
        // The text gutter says the same.
        const ProcessResult text = fieldscope({QStringLiteral("blame"), QStringLiteral("deployment/web"),
                                               QStringLiteral("-n"), ns});
        QVERIFY2(text.out.contains("Update/scale"), text.out.constData());
        QVERIFY(text.out.contains("Update/status"));
        // The Ownership tab's tree (core::OwnershipTree) names the subresource of each owner.
        auto live = call(*m_client, kube::getRequest(deployments, m_ns->name(), "web"));
        QVERIFY(live.ok());
        auto tree = core::OwnershipTree::build(*core::parseJson(live->body));
        QVERIFY(tree);
        auto id = tree->findByJsonPointer("/spec/replicas");
        QVERIFY(id);
        QCOMPARE(int(tree->node(*id).owners.size()), 1);
        QCOMPARE(QString::fromStdString(tree->entries()[tree->node(*id).owners[0].entry].subresource),
                 QStringLiteral("scale"));
        // The per-field timeline: replicas 1 from kubectl-create, then 4 through /scale.
        QTRY_VERIFY_WITH_TIMEOUT(!objects.empty() && objects.back()["spec"]["replicas"] == 4, 20000);
        std::vector<core::VersionInfo> versions;
        for (std::size_t i = 0; i < objects.size(); ++i) {
            core::VersionInfo v;
            v.seq = std::int64_t(i + 1);
            v.resourceVersion = core::stringAt(objects[i], "/metadata/resourceVersion").value_or("");
            versions.push_back(v);
        }
        const auto timeline = core::fieldTimeline(versions, objects,
                                                  core::FieldPath({core::PathElement::makeField("spec"),
                                                                   core::PathElement::makeField("replicas")}));
        QVERIFY(!timeline.empty());
        QCOMPARE(timeline.front().owners.front().manager, std::string("kubectl-create"));
        QCOMPARE(timeline.back().value.get<int>(), 4);
        QCOMPARE(timeline.back().owners.size(), std::size_t(1));
        QCOMPARE(timeline.back().owners.front().label(), std::string("kubectl(Update/scale)"));
    }

    void clientSideApplyMigratesToServerSideApply()
    {
        const QString ns = QString::fromStdString(m_ns->name());
        const QByteArray manifest =
            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: migrating\ndata:\n  a: \"1\"\n";
        const QString path = file(QStringLiteral("migrating.yaml"), manifest);
        QCOMPARE(runKubectl({QStringLiteral("-n"), ns, QStringLiteral("apply"), QStringLiteral("-f"), path}).exitCode,
                 0);
        QCOMPARE(blameOwners(blame(QStringLiteral("configmap/migrating")), ".data.a"),
                 QStringList{QStringLiteral("kubectl-client-side-apply/Update/")});
        const ProcessResult ssa = runKubectl({QStringLiteral("-n"), ns, QStringLiteral("apply"),
                                              QStringLiteral("--server-side"), QStringLiteral("-f"), path});
        QCOMPARE(ssa.exitCode, 0);
        // kubectl (1.26+) moved the client-side owner's fields to its server-side apply: one owner,
        // no conflict, and the client-side-apply entry no longer owns data.a.
        QCOMPARE(blameOwners(blame(QStringLiteral("configmap/migrating")), ".data.a"),
                 QStringList{QStringLiteral("kubectl/Apply/")});
    }

    void unknownAndDuplicateFieldsAreRefusedOrWarnedNeverDropped()
    {
        const QString ns = QString::fromStdString(m_ns->name());
        const QString path = file(QStringLiteral("unknown.yaml"),
                                  "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: validated\n"
                                  "data:\n  a: \"1\"\nspec:\n  foo: 1\n");
        // A merge patch needs a live object: one without the field.
        QVERIFY(call(*m_client, kube::createRequest(configMaps(), m_ns->name(),
                                                    {{"apiVersion", "v1"},
                                                     {"kind", "ConfigMap"},
                                                     {"metadata", {{"name", "validated"}}},
                                                     {"data", {{"a", "0"}}}}))
                    .ok());
        auto live = [this] {
            auto r = call(*m_client, request("GET", "/api/v1/namespaces/" + m_ns->name() + "/configmaps/validated"));
            return r.ok() ? *core::parseJson(r->body) : core::Json();
        };
        const std::string before = live()["metadata"]["resourceVersion"].get<std::string>();
        // Strict (the default): refused, the field named, nothing written.
        const ProcessResult refused = fieldscope({QStringLiteral("apply"), QStringLiteral("-f"), path,
                                                  QStringLiteral("-n"), ns, QStringLiteral("--mode"),
                                                  QStringLiteral("merge")});
        QCOMPARE(refused.exitCode, 1);
        QVERIFY2(refused.out.contains("unknown field \\\"spec\\\"") || refused.out.contains("unknown field \"spec\""),
                 refused.out.constData());
        QCOMPARE(live()["metadata"]["resourceVersion"].get<std::string>(), before);
        QCOMPARE(live()["data"]["a"].get<std::string>(), std::string("0"));
        // Warn: written without the field, and the server's warning is shown, never dropped.
        const ProcessResult warned = fieldscope({QStringLiteral("apply"), QStringLiteral("-f"), path,
                                                 QStringLiteral("-n"), ns, QStringLiteral("--mode"),
                                                 QStringLiteral("merge"), QStringLiteral("--field-validation"),
                                                 QStringLiteral("Warn"), QStringLiteral("-o"), QStringLiteral("json")});
        QCOMPARE(warned.exitCode, 0);
        const core::Json w = parsed(warned.out);
        QCOMPARE(w["result"].get<std::string>(), std::string("applied"));
        QVERIFY2(core::toJsonText(w["warnings"]).find("unknown field \\\"spec\\\"") != std::string::npos,
                 core::toJsonText(w["warnings"]).c_str());
        QVERIFY2(warned.err.contains("Warning: unknown field \"spec\""), warned.err.constData());
        const core::Json written = live();
        QCOMPARE(written["data"]["a"].get<std::string>(), std::string("1"));
        QVERIFY(!written.contains("spec")); // the server dropped what it does not know
        // A duplicate key is the user's mistake in the file: named with its line, nothing sent.
        const QString dup =
            file(QStringLiteral("duplicate.yaml"),
                 "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: validated\ndata:\n  a: \"1\"\n  a: \"2\"\n");
        const ProcessResult duplicate = fieldscope({QStringLiteral("apply"), QStringLiteral("-f"), dup,
                                                    QStringLiteral("-n"), ns});
        QCOMPARE(duplicate.exitCode, 2);
        QVERIFY2(duplicate.err.contains("duplicate") && duplicate.err.contains("line 7"), duplicate.err.constData());
        // Server-side apply refuses an unknown field whatever the validation says (HTTP 500 on 1.37).
        const ProcessResult ssa = fieldscope({QStringLiteral("apply"), QStringLiteral("-f"), path, QStringLiteral("-n"),
                                              ns, QStringLiteral("-o"), QStringLiteral("json")});
        QCOMPARE(ssa.exitCode, 1);
        const core::Json s = parsed(ssa.out);
        QCOMPARE(s["result"].get<std::string>(), std::string("invalid"));
        QVERIFY2(s["message"].get<std::string>().find(".spec: field not declared in schema") != std::string::npos,
                 s["message"].get<std::string>().c_str());
    }

    void policyDenialAndCelFailureAreReportedWithWhatTheyName()
    {
        const QString ns = QString::fromStdString(m_ns->name());
        QVERIFY(installConfigMapPolicy("fieldscope-modern-no-forbidden",
                                       "!has(object.data) || !('forbidden' in object.data)",
                                       "data.forbidden is not allowed here", "Deny"));
        const QString forbidden =
            file(QStringLiteral("forbidden.yaml"),
                 "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: denied\ndata:\n  forbidden: \"1\"\n");
        // The policy takes a moment to be loaded: until then the create succeeds and is deleted.
        core::Json denied;
        QTRY_VERIFY_WITH_TIMEOUT(
            [&] {
                const ProcessResult r = fieldscope({QStringLiteral("apply"), QStringLiteral("-f"), forbidden,
                                                    QStringLiteral("-n"), ns, QStringLiteral("-o"),
                                                    QStringLiteral("json")});
                if (r.exitCode == 0)
                    (void)call(*m_client,
                               request("DELETE", "/api/v1/namespaces/" + m_ns->name() + "/configmaps/denied"));
                denied = parsed(r.out);
                return r.exitCode == 1;
            }(),
            30000);
        QCOMPARE(denied["result"].get<std::string>(), std::string("invalid"));
        QVERIFY2(denied["message"].get<std::string>().find("data.forbidden is not allowed here") != std::string::npos,
                 denied["message"].get<std::string>().c_str());
        // On 1.37 a policy's denial names no field (its cause has only a message).
        QCOMPARE(denied["causes"].size(), std::size_t(1));

        ensureGadgets();
        const QString gadget = file(QStringLiteral("gadget.yaml"),
                                    "apiVersion: modern.fieldscope.dev/v1\nkind: Gadget\nmetadata:\n  name: g\n"
                                    "spec:\n  replicas: 5\n  maxReplicas: 3\n");
        const ProcessResult cel = fieldscope({QStringLiteral("apply"), QStringLiteral("-f"), gadget,
                                              QStringLiteral("-n"), ns, QStringLiteral("-o"), QStringLiteral("json")});
        QCOMPARE(cel.exitCode, 1);
        const core::Json c = parsed(cel.out);
        QCOMPARE(c["result"].get<std::string>(), std::string("invalid"));
        QCOMPARE(c["causes"][0]["field"].get<std::string>(), std::string("spec.replicas"));
        QVERIFY(c["causes"][0]["message"].get<std::string>().find("replicas must not exceed maxReplicas")
                != std::string::npos);
        // The text output names the path too.
        const ProcessResult text = fieldscope({QStringLiteral("apply"), QStringLiteral("-f"), gadget,
                                               QStringLiteral("-n"), ns});
        QVERIFY2(text.out.contains("spec.replicas: Invalid value: replicas must not exceed maxReplicas"),
                 text.out.constData());
    }

    void warningHeadersReachStderrAndTheAnswer()
    {
        ensureGadgets();
        const QString ns = QString::fromStdString(m_ns->name());
        const QString old = file(QStringLiteral("old-gadget.yaml"),
                                 "apiVersion: modern.fieldscope.dev/v1beta1\nkind: Gadget\nmetadata:\n  name: old\n"
                                 "spec:\n  replicas: 1\n  maxReplicas: 3\n");
        const ProcessResult r = fieldscope({QStringLiteral("apply"), QStringLiteral("-f"), old, QStringLiteral("-n"),
                                            ns, QStringLiteral("-o"), QStringLiteral("json")});
        QCOMPARE(r.exitCode, 0);
        QVERIFY2(r.err.contains("Warning: modern.fieldscope.dev/v1beta1 Gadget is deprecated"), r.err.constData());
        QVERIFY(core::toJsonText(parsed(r.out)["warnings"]).find("is deprecated") != std::string::npos);
        // Each text once per run, as kubectl prints them.
        QCOMPARE(r.err.count("Gadget is deprecated"), 1);
        // A watch of the deprecated version hears it on its list: the window's watch status
        // shows what the watcher keeps (app/gui/tablefeed.cpp), once per text.
        kube::ResourceInfo gadgets;
        gadgets.group = "modern.fieldscope.dev";
        gadgets.version = "v1beta1";
        gadgets.resource = "gadgets";
        gadgets.kind = "Gadget";
        gadgets.namespaced = true;
        gadgets.verbs = {"list", "watch"};
        kube::Watcher w(m_client.get(), {gadgets, m_ns->name(), {}, {}}, kube::WatcherOptions{});
        QSignalSpy warned(&w, &kube::Watcher::warned);
        w.start();
        QTRY_VERIFY_WITH_TIMEOUT(w.state() == kube::Watcher::State::Watching, 20000);
        QVERIFY(!warned.isEmpty());
        QCOMPARE(w.serverWarnings().size(), std::size_t(1));
        QVERIFY2(w.serverWarnings().front().find("v1beta1 Gadget is deprecated") != std::string::npos,
                 w.serverWarnings().front().c_str());
    }

    void aPolicysWarnActionReachesStderrAndTheWriteGoesThrough()
    {
        const QString ns = QString::fromStdString(m_ns->name());
        QVERIFY(installConfigMapPolicy("fieldscope-modern-warn-note", "!has(object.data) || !('note' in object.data)",
                                       "data.note is going away", "Warn"));
        const QString noted = file(QStringLiteral("noted.yaml"),
                                   "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: noted\ndata:\n  note: \"1\"\n");
        // The policy takes a moment to be loaded: write again until its warning comes with the answer.
        ProcessResult r;
        QTRY_VERIFY_WITH_TIMEOUT((r = fieldscope({QStringLiteral("apply"), QStringLiteral("-f"), noted,
                                                  QStringLiteral("-n"), ns, QStringLiteral("-o"),
                                                  QStringLiteral("json")}),
                                  r.err.contains("data.note is going away")),
                                 30000);
        QCOMPARE(r.exitCode, 0); // a warning, not a refusal: written
        QVERIFY2(r.err.contains("Warning: Validation failed for ValidatingAdmissionPolicy"), r.err.constData());
        const core::Json answer = parsed(r.out);
        QVERIFY(core::toJsonText(answer["warnings"]).find("data.note is going away") != std::string::npos);
        auto live = call(*m_client, request("GET", "/api/v1/namespaces/" + m_ns->name() + "/configmaps/noted"));
        QVERIFY(live.ok());
        QCOMPARE((*core::parseJson(live->body))["data"]["note"].get<std::string>(), std::string("1"));
    }

    void tokenRequestUsersAuditEventsJoinExactly()
    {
        // A ServiceAccount token from the TokenRequest API (1.24+ creates no token Secrets): its
        // user carries `extra` (credential id) and the event more annotations than 1.20 wrote.
        const QString ns = QString::fromStdString(m_ns->name());
        QCOMPARE(runKubectl({QStringLiteral("-n"), ns, QStringLiteral("create"), QStringLiteral("serviceaccount"),
                             QStringLiteral("robot")})
                     .exitCode,
                 0);
        QCOMPARE(runKubectl({QStringLiteral("-n"), ns, QStringLiteral("create"), QStringLiteral("rolebinding"),
                             QStringLiteral("robot-edit"), QStringLiteral("--clusterrole=edit"),
                             QStringLiteral("--serviceaccount=") + ns + QStringLiteral(":robot")})
                     .exitCode,
                 0);
        const ProcessResult token = runKubectl({QStringLiteral("-n"), ns, QStringLiteral("create"),
                                                QStringLiteral("token"), QStringLiteral("robot")});
        QCOMPARE(token.exitCode, 0);
        // kubectl with the token passed on stdin-free config: a kubeconfig of its own (0600).
        const QString kc = m_dir.filePath(QStringLiteral("robot.kubeconfig"));
        {
            const core::Json admin = parsed(runKubectl({QStringLiteral("config"), QStringLiteral("view"),
                                                        QStringLiteral("--raw"), QStringLiteral("--minify"),
                                                        QStringLiteral("-o"), QStringLiteral("json")})
                                                .out);
            core::Json cfg = {
                {"apiVersion", "v1"},
                {"kind", "Config"},
                {"clusters", admin["clusters"]},
                {"users", {{{"name", "robot"}, {"user", {{"token", token.out.trimmed().toStdString()}}}}}},
                {"contexts",
                 {{{"name", "robot"},
                   {"context",
                    {{"cluster", admin["clusters"][0]["name"]}, {"user", "robot"}, {"namespace", m_ns->name()}}}}}},
                {"current-context", "robot"}};
            QFile f(kc);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.setPermissions(QFile::ReadOwner | QFile::WriteOwner);
            f.write(QByteArray::fromStdString(core::toJsonText(cfg)));
        }
        // The ServiceAccount writes first; `fieldscope record` then lists the version and reads the
        // audit log's newest events, and its final flush stores the join. Recording afterwards
        // keeps this test about the modern event (a TokenRequest user), not about how fast a
        // recorder's watch and a history reader take turns on a loaded machine.
        const QString log = clusterDir() + QStringLiteral("/logs/audit.log");
        const QString db = m_dir.filePath(QStringLiteral("robot.db"));
        QProcess create;
        create.start(kubectl(),
                     {QStringLiteral("--kubeconfig"), kc, QStringLiteral("create"), QStringLiteral("configmap"),
                      QStringLiteral("robot-made"), QStringLiteral("--from-literal=a=1")});
        QVERIFY(create.waitForFinished(30000));
        QVERIFY2(create.exitCode() == 0, create.readAllStandardError().constData());
        auto live = call(*m_client, kube::getRequest(configMaps(), m_ns->name(), "robot-made"));
        QVERIFY(live.ok());
        const std::string rv = core::stringAt(*core::parseJson(live->body), "/metadata/resourceVersion").value();
        // The audit log has the event, with the user's `extra` that 1.20 never wrote for a token.
        QByteArray line;
        QVERIFY(QTest::qWaitFor(
            [&] {
                QFile f(log);
                if (!f.open(QIODevice::ReadOnly))
                    return false;
                for (const QByteArray &l : f.readAll().split('\n'))
                    if (l.contains("\"robot-made\"") && l.contains("\"verb\":\"create\"")
                        && l.contains("\"stage\":\"ResponseComplete\""))
                        line = l;
                return !line.isEmpty();
            },
            30000));
        const core::Json event = parsed(line);
        QCOMPARE(event["user"]["username"].get<std::string>(), "system:serviceaccount:" + m_ns->name() + ":robot");
        QVERIFY(event["user"].contains("extra"));
        // Every wait below is bounded well inside the test's five minutes, so a failure prints
        // what the recorder said instead of a watchdog's stack.
        const ProcessResult recorded = runFieldscope(QStringList{QStringLiteral("record"), QStringLiteral("configmaps"),
                                                                 QStringLiteral("-n"), ns, QStringLiteral("--db"), db,
                                                                 QStringLiteral("--audit-log"), log,
                                                                 QStringLiteral("--for"), QStringLiteral("3s")}
                                                     + adminArgs());
        QVERIFY2(recorded.exitCode == 0, recorded.err.constData());
        QVERIFY2(recorded.err.contains("recording configmaps"), recorded.err.constData());
        const ProcessResult h = runFieldscope({QStringLiteral("history"), QStringLiteral("configmaps/robot-made"),
                                               QStringLiteral("-n"), ns, QStringLiteral("--db"), db,
                                               QStringLiteral("-o"), QStringLiteral("json")});
        QVERIFY2(h.exitCode == 0, h.err.constData());
        const core::Json versions = parsed(h.out);
        QVERIFY2(!versions.empty(), recorded.err.constData());
        const core::Json &first = versions[0];
        QCOMPARE(first["resourceVersion"].get<std::string>(), rv);
        QVERIFY2(!first["who"].is_null(), (h.out + recorded.err).constData());
        QCOMPARE(first["who"]["user"].get<std::string>(), "system:serviceaccount:" + m_ns->name() + ":robot");
        QCOMPARE(first["who"]["match"].get<std::string>(), std::string("exact"));
    }
};

QTEST_GUILESS_MAIN(TestModernServer)
#include "tst_modern_server.moc"
