// The classic concurrency experiment replayed with the real kubectl while `fieldscope record` runs:
// create; two client-side applies; a server-side apply; a second manager's conflicting apply
// (refused), then forced; a delete. `fieldscope history -o json` must list every version in order,
// each attributed to the manager that made it.
#include "clusterenv.h"
#include "core/base/json.h"

#include <QFile>
#include <QFileInfo>
#include <QTemporaryDir>
#include <QUuid>

using namespace fieldscope;
using namespace fieldscope::testing;

namespace {

struct Kubectl {
    QString ns;
    QTemporaryDir dir;
    ProcessResult run(const QStringList &args, const QByteArray &stdinYaml = {})
    {
        QProcess p;
        p.start(qEnvironmentVariable("FIELDSCOPE_KUBECTL"),
                QStringList{QStringLiteral("--kubeconfig"), testKubeconfig(), QStringLiteral("--context"),
                            QString::fromStdString(ctxToken()), QStringLiteral("-n"), ns}
                    + args);
        if (!stdinYaml.isEmpty()) {
            p.write(stdinYaml);
            p.closeWriteChannel();
        }
        p.waitForFinished(60000);
        return {p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1, p.readAllStandardOutput(),
                p.readAllStandardError()};
    }
    static QByteArray cm(const char *data)
    {
        return QByteArray("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: demo\ndata:\n") + data;
    }
};

} // namespace

class TestHistoryExperiment : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void recordedHistoryAttributesEveryVersionToItsManager()
    {
        if (!QFileInfo(qEnvironmentVariable("FIELDSCOPE_KUBECTL")).isExecutable())
            QFAIL("kubectl missing: run scripts/build-kube.sh");
        Kubectl k;
        k.ns = QStringLiteral("fs-exp-") + QUuid::createUuid().toString(QUuid::Id128).left(8);
        const QStringList kc = {QStringLiteral("--kubeconfig"), testKubeconfig(), QStringLiteral("--context"),
                                QString::fromStdString(ctxToken())};
        QCOMPARE(runFieldscope(QStringList{QStringLiteral("list"), QStringLiteral("ns")} + kc).exitCode, 0);
        QProcess create;
        create.start(qEnvironmentVariable("FIELDSCOPE_KUBECTL"),
                     kc + QStringList{QStringLiteral("create"), QStringLiteral("namespace"), k.ns});
        QVERIFY(create.waitForFinished(30000) && create.exitCode() == 0);

        const QString db = k.dir.filePath(QStringLiteral("history.db"));
        QProcess recorder;
        recorder.setProcessChannelMode(QProcess::SeparateChannels);
        recorder.start(fieldscopeBinary(), QStringList{QStringLiteral("record"), QStringLiteral("configmaps"),
                                                       QStringLiteral("-n"), k.ns, QStringLiteral("--db"), db}
                                               + kc);
        QByteArray recErr;
        QTRY_VERIFY_WITH_TIMEOUT((recErr += recorder.readAllStandardError()).contains("recording"), 30000);

        auto ok = [](const ProcessResult &r) { return r.exitCode == 0 ? QByteArray() : r.err; };
        QCOMPARE(ok(k.run({QStringLiteral("create"), QStringLiteral("-f"), QStringLiteral("-")},
                          Kubectl::cm("  a: \"1\"\n"))),
                 QByteArray());
        QCOMPARE(ok(k.run({QStringLiteral("apply"), QStringLiteral("-f"), QStringLiteral("-")},
                          Kubectl::cm("  a: \"2\"\n"))),
                 QByteArray());
        QCOMPARE(ok(k.run({QStringLiteral("apply"), QStringLiteral("-f"), QStringLiteral("-")},
                          Kubectl::cm("  a: \"3\"\n"))),
                 QByteArray());
        QCOMPARE(ok(k.run({QStringLiteral("apply"), QStringLiteral("--server-side"), QStringLiteral("-f"),
                           QStringLiteral("-")},
                          Kubectl::cm("  a: \"3\"\n  b: \"1\"\n"))),
                 QByteArray());
        // team-b wants b=2: refused with a conflict naming kubectl, then forced.
        const auto refused = k.run({QStringLiteral("apply"), QStringLiteral("--server-side"),
                                    QStringLiteral("--field-manager=team-b"), QStringLiteral("-f"),
                                    QStringLiteral("-")},
                                   Kubectl::cm("  b: \"2\"\n"));
        QVERIFY2(refused.exitCode != 0 && refused.err.contains("conflict"), refused.err.constData());
        QCOMPARE(ok(k.run({QStringLiteral("apply"), QStringLiteral("--server-side"),
                           QStringLiteral("--field-manager=team-b"), QStringLiteral("--force-conflicts"),
                           QStringLiteral("-f"), QStringLiteral("-")},
                          Kubectl::cm("  b: \"2\"\n"))),
                 QByteArray());
        QCOMPARE(ok(k.run({QStringLiteral("delete"), QStringLiteral("configmap"), QStringLiteral("demo")})),
                 QByteArray());

        // Let the watch deliver the delete, then stop the recorder cleanly (it flushes on exit).
        QTest::qWait(1500);
        recorder.terminate();
        QVERIFY(recorder.waitForFinished(30000));

        const auto h = runFieldscope({QStringLiteral("history"), QStringLiteral("configmaps/demo"),
                                      QStringLiteral("-n"), k.ns, QStringLiteral("--db"), db, QStringLiteral("-o"),
                                      QStringLiteral("json")});
        QVERIFY2(h.exitCode == 0, h.err.constData());
        auto doc = core::parseJson(h.out.toStdString());
        QVERIFY2(doc.ok() && doc->is_array(), h.out.constData());
        // kubectl 1.26+ follows a server-side apply of an object it applied client-side with three
        // writes of its own (k8s.io/kubectl/pkg/cmd/apply, csaupgrade): the last-applied annotation
        // as "kubectl-last-applied", then moving kubectl-client-side-apply's fields to "kubectl",
        // then releasing the annotation from "kubectl" (managedFields only: no manager changed a value).
        const std::vector<std::pair<std::string, std::string>> expected = {
            {"ADDED", "kubectl-create"},
            {"MODIFIED", "kubectl-client-side-apply"},
            {"MODIFIED", "kubectl-client-side-apply"},
            {"MODIFIED", "kubectl"},
            {"MODIFIED", "kubectl-last-applied"},
            {"MODIFIED", "kubectl"},
            {"MODIFIED", ""},
            {"MODIFIED", "team-b"},
            {"DELETED", ""},
        };
        QCOMPARE(int(doc->size()), int(expected.size()));
        for (std::size_t i = 0; i < expected.size(); ++i) {
            const auto &v = (*doc)[i];
            for (const char *field : {"resourceVersion", "eventType", "observedAt", "managers", "changedPaths"})
                QVERIFY2(v.contains(field), field);
            QCOMPARE(QString::fromStdString(v["eventType"].get<std::string>()),
                     QString::fromStdString(expected[i].first));
            if (expected[i].second.empty())
                continue;
            QStringList managers;
            for (const auto &m : v["managers"])
                managers << QString::fromStdString(m.get<std::string>());
            QVERIFY2(managers.contains(QString::fromStdString(expected[i].second)),
                     qPrintable(QStringLiteral("version %1: expected %2, got [%3]\n%4")
                                    .arg(i)
                                    .arg(QString::fromStdString(expected[i].second), managers.join(u','),
                                         QString::fromUtf8(h.out))));
        }
        // Exported to JSON Lines and read back without the database: the same answer.
        const QString jsonl = k.dir.filePath(QStringLiteral("demo.jsonl"));
        const auto ex = runFieldscope({QStringLiteral("export"), QStringLiteral("--db"), db, QStringLiteral("--to"),
                                       jsonl, QStringLiteral("configmaps/demo"), QStringLiteral("-n"), k.ns});
        QVERIFY2(ex.exitCode == 0, ex.err.constData());
        const auto offline = runFieldscope({QStringLiteral("history"), QStringLiteral("configmaps/demo"),
                                            QStringLiteral("-n"), k.ns, QStringLiteral("--db"), jsonl,
                                            QStringLiteral("-o"), QStringLiteral("json")});
        QVERIFY2(offline.exitCode == 0, offline.err.constData());
        QCOMPARE(offline.out, h.out);
        // The same file opens in the window without a cluster (`fieldscope --open`): the deleted
        // object is listed and its History tab loads before the screenshot is taken.
        qputenv("QT_QPA_PLATFORM", "offscreen");
        qputenv("XDG_CONFIG_HOME", k.dir.filePath(QStringLiteral("config")).toUtf8());
        const QString shot = QStringLiteral(FIELDSCOPE_BUILD_DIR "/screenshots/open-history-experiment.png");
        QFile::remove(shot);
        const auto gui = runFieldscope({QStringLiteral("--open"), jsonl, QStringLiteral("--select"),
                                        QStringLiteral("configmaps/%1/demo").arg(k.ns), QStringLiteral("--tab"),
                                        QStringLiteral("history"), QStringLiteral("--screenshot"), shot,
                                        QStringLiteral("--size"), QStringLiteral("1280x800")},
                                       120000);
        QVERIFY2(gui.exitCode == 0, gui.err.constData());
        QVERIFY(QFileInfo(shot).size() > 0);

        QProcess cleanup;
        cleanup.start(qEnvironmentVariable("FIELDSCOPE_KUBECTL"),
                      kc
                          + QStringList{QStringLiteral("delete"), QStringLiteral("namespace"), k.ns,
                                        QStringLiteral("--wait=false")});
        cleanup.waitForFinished(30000);
    }
};

QTEST_GUILESS_MAIN(TestHistoryExperiment)
#include "tst_history_experiment.moc"
