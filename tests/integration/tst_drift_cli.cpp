// `fieldscope drift` against the real kube-apiserver and kube-controller-manager of the test
// cluster: a Deployment applied server-side by the admin, then changed by alice with the real
// `kubectl edit` (an Update by the manager kubectl-edit), while `fieldscope record --audit-log`
// records it. Drift names the applier, the applied value, the live value, kubectl-edit and alice
// from the recorded history; without a store, what managedFields alone say; and the controller
// manager's status writes are never drift.
#include "clusterenv.h"
#include "core/base/json.h"

#include <QFile>
#include <QProcessEnvironment>
#include <QTemporaryDir>
#include <QUuid>

using namespace fieldscope;
using namespace fieldscope::testing;

namespace {

const std::string kAlice = ctxToken() + "-alice";

QString kubectlBinary()
{
    return qEnvironmentVariable("FIELDSCOPE_KUBECTL");
}

// kubectl in one namespace as one of the kubeconfig's contexts, with an editor for `kubectl edit`.
struct Kubectl {
    QString ns;
    ProcessResult run(const std::string &context, const QStringList &args, const QByteArray &stdinYaml = {},
                      const QString &editor = {}) const
    {
        QProcess p;
        if (!editor.isEmpty()) {
            QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
            env.insert(QStringLiteral("EDITOR"), editor);
            p.setProcessEnvironment(env);
        }
        p.start(kubectlBinary(),
                QStringList{QStringLiteral("--kubeconfig"), testKubeconfig(), QStringLiteral("--context"),
                            QString::fromStdString(context), QStringLiteral("-n"), ns}
                    + args);
        if (!stdinYaml.isEmpty()) {
            p.write(stdinYaml);
            p.closeWriteChannel();
        }
        if (!p.waitForFinished(60000))
            p.kill();
        return {p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1, p.readAllStandardOutput(),
                p.readAllStandardError()};
    }
    bool makeNamespace(const QString &prefix)
    {
        ns = prefix + QUuid::createUuid().toString(QUuid::Id128).left(8);
        QProcess create;
        create.start(kubectlBinary(),
                     adminArgs() + QStringList{QStringLiteral("create"), QStringLiteral("namespace"), ns});
        return create.waitForFinished(30000) && create.exitCode() == 0;
    }
    // The Deployment as JSON ({} when it cannot be read).
    core::Json get(const QString &name) const
    {
        const ProcessResult r = run(ctxToken(),
                                    {QStringLiteral("get"), QStringLiteral("deployment"), name, QStringLiteral("-o"),
                                     QStringLiteral("json"), QStringLiteral("--show-managed-fields")});
        auto j = core::parseJson(r.out.toStdString());
        return r.exitCode == 0 && j ? *j : core::Json::object();
    }
    // Waits until the controller manager has written the status of the Deployment's generation
    // through the status subresource.
    bool waitForControllerStatus(const QString &name) const
    {
        return QTest::qWaitFor(
            [&] {
                const core::Json d = get(name);
                if (!d.contains("status") || !d["status"].contains("observedGeneration"))
                    return false;
                bool statusWriter = false;
                for (const auto &e : d["metadata"]["managedFields"])
                    statusWriter = statusWriter
                                || (e.value("manager", "") == "kube-controller-manager"
                                    && e.value("subresource", "") == "status");
                return statusWriter
                    && d["status"]["observedGeneration"].get<long long>()
                           == d["metadata"]["generation"].get<long long>();
            },
            60000);
    }
};

QByteArray deploymentYaml(const char *name, const char *image)
{
    return QByteArray("apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: ") + name
         + "\nspec:\n  replicas: 1\n  selector: {matchLabels: {app: " + name + "}}\n  template:\n"
         + "    metadata: {labels: {app: " + name + "}}\n    spec:\n      containers:\n      - name: nginx\n"
         + "        image: \"" + image + "\"\n";
}

// `fieldscope record deployments` in one namespace, following the cluster's audit log.
struct Recorder {
    QProcess process;
    QByteArray err;
    bool start(const QString &ns, const QString &db)
    {
        process.start(fieldscopeBinary(),
                      QStringList{QStringLiteral("record"), QStringLiteral("deployments"), QStringLiteral("-n"), ns,
                                  QStringLiteral("--db"), db, QStringLiteral("--audit-log"),
                                  clusterDir() + QStringLiteral("/logs/audit.log")}
                          + adminArgs());
        return QTest::qWaitFor(
            [&] { return (err += process.readAllStandardError()).contains("recording deployments"); }, 60000);
    }
    bool stop()
    {
        QTest::qWait(1500); // the watch delivers the last write, the follower reads its event
        process.terminate();
        const bool ended = process.waitForFinished(60000);
        err += process.readAllStandardError();
        return ended && process.exitStatus() == QProcess::NormalExit && process.exitCode() == 0;
    }
};

// `fieldscope drift ... -o json` as the admin; the list, or null when it failed.
core::Json drift(const QStringList &args, ProcessResult *result = nullptr)
{
    const ProcessResult r = runFieldscope(QStringList{QStringLiteral("drift")} + args
                                          + QStringList{QStringLiteral("-o"), QStringLiteral("json")} + adminArgs());
    if (result)
        *result = r;
    auto j = core::parseJson(r.out.toStdString());
    return r.exitCode == 0 && j && j->is_array() ? *j : core::Json();
}

const std::string kImage = R"j(.spec.template.spec.containers[name="nginx"].image)j";

} // namespace

class TestDriftCli : public QObject
{
    Q_OBJECT
    Kubectl m_k;
    QTemporaryDir m_dir;
    QString m_db;

private Q_SLOTS:
    void initTestCase()
    {
        if (!QFileInfo(kubectlBinary()).isExecutable())
            QFAIL("kubectl missing: run scripts/build-kube.sh");
        QVERIFY(m_k.makeNamespace(QStringLiteral("fs-drift-")));
        m_db = m_dir.filePath(QStringLiteral("drift.db"));
        // Recorded from before the apply: the admin applies, the controller writes status, alice
        // edits the image with `kubectl edit`, the controller writes status again.
        Recorder recorder;
        QVERIFY2(recorder.start(m_k.ns, m_db), recorder.err.constData());
        const ProcessResult applied = m_k.run(ctxToken(),
                                              {QStringLiteral("apply"), QStringLiteral("--server-side"),
                                               QStringLiteral("-f"), QStringLiteral("-")},
                                              deploymentYaml("web", "nginx:1.27"));
        QVERIFY2(applied.exitCode == 0, applied.err.constData());
        QVERIFY(m_k.waitForControllerStatus(QStringLiteral("web")));
        const ProcessResult edited = m_k.run(kAlice, {QStringLiteral("edit"), QStringLiteral("deployment/web")}, {},
                                             QStringLiteral("sed -i s/nginx:1.27/nginx:1.28/"));
        QVERIFY2(edited.exitCode == 0, (edited.err + edited.out).constData());
        QVERIFY(m_k.waitForControllerStatus(QStringLiteral("web")));
        QVERIFY2(recorder.stop(), recorder.err.constData());
    }

    void driftFromHistoryNamesTheApplierTheEditAndWhoMadeIt()
    {
        ProcessResult r;
        const core::Json findings = drift({QStringLiteral("deployments/web"), QStringLiteral("-n"), m_k.ns,
                                           QStringLiteral("--db"), m_db},
                                          &r);
        QVERIFY2(findings.is_array(), (r.err + r.out).constData());
        QCOMPARE(findings.size(), std::size_t(1)); // the image; replicas and status are nobody else's
        const core::Json &f = findings[0];
        QCOMPARE(f["path"].get<std::string>(), kImage);
        QCOMPARE(f["object"]["resource"].get<std::string>(), std::string("deployments.apps"));
        QCOMPARE(f["object"]["namespace"].get<std::string>(), m_k.ns.toStdString());
        QCOMPARE(f["object"]["name"].get<std::string>(), std::string("web"));
        QCOMPARE(f["object"]["uid"].get<std::string>(),
                 m_k.get(QStringLiteral("web"))["metadata"]["uid"].get<std::string>());
        QCOMPARE(f["appliedBy"].get<std::string>(), std::string("kubectl"));
        QCOMPARE(f["appliedValue"].get<std::string>(), std::string("nginx:1.27"));
        QVERIFY(f["appliedAt"].is_string());
        QCOMPARE(f["now"]["manager"].get<std::string>(), std::string("kubectl-edit"));
        QCOMPARE(f["now"]["operation"].get<std::string>(), std::string("Update"));
        QCOMPARE(f["now"]["value"].get<std::string>(), std::string("nginx:1.28"));
        QVERIFY2(f["now"]["user"] == "alice", f.dump().c_str());
        QVERIFY(f["now"]["resourceVersion"].is_string());
        QVERIFY(f["now"]["time"].is_string());
        QCOMPARE(f["source"].get<std::string>(), std::string("history"));

        // The table says the same.
        const ProcessResult text = runFieldscope(QStringList{QStringLiteral("drift"), QStringLiteral("deployments"),
                                                             QStringLiteral("-n"), m_k.ns, QStringLiteral("--db"), m_db}
                                                 + adminArgs());
        QCOMPARE(text.exitCode, 0);
        QVERIFY2(text.out.contains("kubectl-edit") && text.out.contains("alice") && text.out.contains("nginx:1.27"),
                 text.out.constData());
    }

    // `--db` takes an export as `history` and `revert` do: the same findings from the .jsonl.
    void driftReadsAJsonLinesExportLikeItsDatabase()
    {
        const QString jsonl = m_dir.filePath(QStringLiteral("drift-export.jsonl"));
        const ProcessResult exported = runFieldscope({QStringLiteral("export"), QStringLiteral("--db"), m_db,
                                                      QStringLiteral("--to"), jsonl});
        QVERIFY2(exported.exitCode == 0, exported.err.constData());
        ProcessResult r;
        const core::Json fromDb = drift({QStringLiteral("deployments/web"), QStringLiteral("-n"), m_k.ns,
                                         QStringLiteral("--db"), m_db},
                                        &r);
        QVERIFY2(fromDb.is_array() && fromDb.size() == 1, (r.err + r.out).constData());
        const core::Json fromExport = drift({QStringLiteral("deployments/web"), QStringLiteral("-n"), m_k.ns,
                                             QStringLiteral("--db"), jsonl},
                                            &r);
        // An export holds versions and gaps, not the audit joins (docs/history-format.md): the
        // person is the one thing it cannot say.
        core::Json expected = fromDb;
        expected[0]["now"]["user"] = nullptr;
        QVERIFY2(fromExport == expected, (r.err + r.out).constData());
    }

    void driftWithoutAStoreIsWhatManagedFieldsSay()
    {
        // The test's own home holds no store for this cluster.
        ProcessResult r;
        const core::Json findings = drift({QStringLiteral("deployments/web"), QStringLiteral("-n"), m_k.ns}, &r);
        QVERIFY2(findings.is_array(), (r.err + r.out).constData());
        QVERIFY2(r.err.contains("managedFields alone"), r.err.constData());
        QCOMPARE(findings.size(), std::size_t(1));
        const core::Json &f = findings[0];
        QCOMPARE(f["path"].get<std::string>(), kImage);
        QCOMPARE(f["appliedBy"].get<std::string>(), std::string("kubectl"));
        QVERIFY(f["appliedValue"].is_null());
        QCOMPARE(f["now"]["manager"].get<std::string>(), std::string("kubectl-edit"));
        QCOMPARE(f["now"]["value"].get<std::string>(), std::string("nginx:1.28"));
        QVERIFY(f["now"]["user"].is_null());
        QVERIFY(f["now"]["resourceVersion"].is_null());
        QCOMPARE(f["source"].get<std::string>(), std::string("managedFields"));
        // --manager limits to one applier.
        QVERIFY(drift({QStringLiteral("deployments/web"), QStringLiteral("-n"), m_k.ns, QStringLiteral("--manager"),
                       QStringLiteral("helm")})
                == core::Json::array());
    }

    // A Deployment nobody but its applier wrote: the controller manager's many status writes
    // (and the revision annotation it owns through the status subresource) are not drift.
    void controllerStatusWritesAreNotDrift()
    {
        const QString db = m_dir.filePath(QStringLiteral("status.db"));
        Recorder recorder;
        QVERIFY2(recorder.start(m_k.ns, db), recorder.err.constData());
        const ProcessResult applied = m_k.run(ctxToken(),
                                              {QStringLiteral("apply"), QStringLiteral("--server-side"),
                                               QStringLiteral("-f"), QStringLiteral("-")},
                                              deploymentYaml("quiet", "nginx:1.27"));
        QVERIFY2(applied.exitCode == 0, applied.err.constData());
        QVERIFY(m_k.waitForControllerStatus(QStringLiteral("quiet")));
        QVERIFY2(recorder.stop(), recorder.err.constData());
        for (const QStringList &store : {QStringList{QStringLiteral("--db"), db}, QStringList{}}) {
            ProcessResult r;
            const core::Json findings =
                drift(QStringList{QStringLiteral("deployments/quiet"), QStringLiteral("-n"), m_k.ns} + store, &r);
            QVERIFY2(findings == core::Json::array(), (r.err + r.out).constData());
        }
    }

    void exitCodesSayUsageOrUnreadableStore()
    {
        ProcessResult r;
        drift({QStringLiteral("deployments"), QStringLiteral("-n"), m_k.ns, QStringLiteral("-A")}, &r);
        QCOMPARE(r.exitCode, 2);
        r = runFieldscope(QStringList{QStringLiteral("drift"), QStringLiteral("-o"), QStringLiteral("yaml")}
                          + adminArgs());
        QCOMPARE(r.exitCode, 2);
        drift({QStringLiteral("deployments"), QStringLiteral("-n"), m_k.ns, QStringLiteral("--db"),
               m_dir.filePath(QStringLiteral("missing.db"))},
              &r);
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains("missing.db"), r.err.constData());
    }
};

QTEST_GUILESS_MAIN(TestDriftCli)
#include "tst_drift_cli.moc"
