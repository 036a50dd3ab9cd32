// The command line as scripts see it, without a cluster: golden output of blame and conflicts on
// saved objects, and clear errors (never a crash) for bad input.
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

namespace {
struct Run {
    int code = -1;
    QByteArray out, err;
};
Run fieldscope(const QStringList &args, const QProcessEnvironment &env = QProcessEnvironment::systemEnvironment())
{
    QProcess p;
    p.setProcessEnvironment(env);
    p.start(QStringLiteral(FIELDSCOPE_BUILD_DIR "/app/fieldscope"), args);
    p.waitForFinished(30000);
    return {p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1, p.readAllStandardOutput(),
            p.readAllStandardError()};
}
QByteArray golden(const QString &name)
{
    QFile f(QStringLiteral(FIELDSCOPE_TEST_DATA "/ownership/") + name);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}
QString data(const QString &name)
{
    return QStringLiteral(FIELDSCOPE_TEST_DATA "/ownership/") + name;
}
} // namespace

class TestCli : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    // A machine without a display (ssh, CI, a container) gets help, version and every
    // subcommand; only the window needs one. Without the fix these aborted with exit 134.
    void helpVersionAndSubcommandsRunWithoutADisplay_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QByteArray>("expected");
        QTest::newRow("--help") << QStringList{QStringLiteral("--help")} << QByteArray("Usage: fieldscope [options]");
        QTest::newRow("help") << QStringList{QStringLiteral("help")} << QByteArray("Subcommands");
        QTest::newRow("--version") << QStringList{QStringLiteral("--version")}
                                   << QByteArray("fieldscope " FIELDSCOPE_VERSION); // then "+git.gHASH" without a tag
        QTest::newRow("--version -v") << QStringList{QStringLiteral("--version"), QStringLiteral("-v")}
                                      << QByteArray("SQLite ");
        QTest::newRow("help blame") << QStringList{QStringLiteral("help"), QStringLiteral("blame")}
                                    << QByteArray("Usage: fieldscope blame [options]");
        QTest::newRow("blame --help") << QStringList{QStringLiteral("blame"), QStringLiteral("--help")}
                                      << QByteArray("Usage: fieldscope blame [options]");
        QTest::newRow("-v blame -f") << QStringList{QStringLiteral("-v"), QStringLiteral("blame"), QStringLiteral("-f"),
                                                    data(QStringLiteral("service.yaml"))}
                                     << QByteArray("apiVersion: v1");
    }
    void helpVersionAndSubcommandsRunWithoutADisplay()
    {
        QFETCH(QStringList, args);
        QFETCH(QByteArray, expected);
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.remove(QStringLiteral("DISPLAY"));
        env.remove(QStringLiteral("WAYLAND_DISPLAY"));
        env.remove(QStringLiteral("QT_QPA_PLATFORM"));
        const Run r = fieldscope(args, env);
        QVERIFY2(r.code == 0, r.err.constData());
        QVERIFY2(r.out.contains(expected), r.out.constData());
        QVERIFY2(!r.out.contains(FIELDSCOPE_BUILD_DIR),
                 r.out.constData()); // usage names the program, not the build path
    }

    // `fieldscope completion bash`: a script bash accepts that completes subcommands and
    // each subcommand's own options, taken from the binary's help texts.
    void bashCompletionCompletesSubcommandsAndTheirOptions_data()
    {
        QTest::addColumn<QString>("line");
        QTest::addColumn<QString>("expected");
        QTest::newRow("subcommand") << QStringLiteral("fieldscope bl") << QStringLiteral("blame");
        QTest::newRow("after a global option")
            << QStringLiteral("fieldscope --context prod reco") << QStringLiteral("record");
        QTest::newRow("a subcommand's own option")
            << QStringLiteral("fieldscope conflicts --man") << QStringLiteral("--manager");
        QTest::newRow("secret opt-in of record")
            << QStringLiteral("fieldscope record --include-s") << QStringLiteral("--include-secret-values");
        QTest::newRow("help names subcommands") << QStringLiteral("fieldscope help exp") << QStringLiteral("export");
        QTest::newRow("tab values") << QStringLiteral("fieldscope --tab own") << QStringLiteral("ownership");
    }
    void bashCompletionCompletesSubcommandsAndTheirOptions()
    {
        QFETCH(QString, line);
        QFETCH(QString, expected);
        const Run script = fieldscope({QStringLiteral("completion"), QStringLiteral("bash")});
        QCOMPARE(script.code, 0);
        QTemporaryDir dir;
        QFile f(dir.filePath(QStringLiteral("fieldscope.bash")));
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(script.out);
        f.close();
        // What bash does on <TAB>: the words so far, the current one last.
        const QString driver =
            QStringLiteral(
                ". '%1'; COMP_WORDS=(%2); COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); _fieldscope; printf '%s\n' \"${COMPREPLY[@]}\"")
                .arg(f.fileName(), line);
        QProcess bash;
        bash.start(QStringLiteral("bash"), {QStringLiteral("-c"), driver});
        QVERIFY(bash.waitForFinished(10000));
        const QString out = QString::fromUtf8(bash.readAllStandardOutput());
        QVERIFY2(out.split(u'\n').contains(expected), qPrintable(out + QString::fromUtf8(bash.readAllStandardError())));
    }

    void zshCompletionIsACompdefScript()
    {
        const Run r = fieldscope({QStringLiteral("completion"), QStringLiteral("zsh")});
        QCOMPARE(r.code, 0);
        QVERIFY(r.out.startsWith("#compdef fieldscope\n"));
        QVERIFY2(r.out.contains("'conflicts:what a server-side apply"), r.out.constData());
        QVERIFY2(r.out.contains("--include-secret-values"), r.out.constData());
        QCOMPARE(fieldscope({QStringLiteral("completion"), QStringLiteral("fish")}).code, 2);
    }

    void globalOptionsBeforeTheSubcommandReachIt()
    {
        // kubectl's order: the subcommand runs (no window) and reads the named kubeconfig.
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.remove(QStringLiteral("DISPLAY"));
        env.remove(QStringLiteral("QT_QPA_PLATFORM"));
        const Run r = fieldscope({QStringLiteral("--kubeconfig"), QStringLiteral("/nonexistent/fieldscope-kubeconfig"),
                                  QStringLiteral("list"), QStringLiteral("configmaps"), QStringLiteral("-A")},
                                 env);
        QCOMPARE(r.code, 2);
        QVERIFY2(r.err.contains("/nonexistent/fieldscope-kubeconfig"), r.err.constData());
    }

    void unknownSubcommandIsAUsageError()
    {
        const Run r = fieldscope({QStringLiteral("help"), QStringLiteral("nosuch")});
        QCOMPARE(r.code, 2);
        QVERIFY2(r.err.contains("unknown subcommand \"nosuch\""), r.err.constData());
    }

    void blameOfASavedObjectMatchesGoldenJson()
    {
        const Run r = fieldscope({QStringLiteral("blame"), QStringLiteral("-f"), data(QStringLiteral("service.yaml")),
                                  QStringLiteral("-o"), QStringLiteral("json")});
        QCOMPARE(r.code, 0);
        QCOMPARE(r.out, golden(QStringLiteral("service.blame.json")));
    }

    void blameTextListsEveryCoOwnerOfALine()
    {
        const Run r = fieldscope({QStringLiteral("blame"), QStringLiteral("-f"),
                                  data(QStringLiteral("deployment.yaml"))});
        QCOMPARE(r.code, 0);
        // The container image is owned by kubectl's apply and taken by kubectl-edit: both shown.
        const QList<QByteArray> lines = r.out.split('\n');
        bool found = false;
        for (const auto &l : lines)
            if (l.contains("image: nginx") && l.contains("kubectl-edit"))
                found = true;
        QVERIFY2(found, r.out.constData());
    }

    void conflictsPredictionMatchesGoldenJson()
    {
        const Run r = fieldscope({QStringLiteral("conflicts"), QStringLiteral("-f"),
                                  data(QStringLiteral("deployment-teamb.yaml")), QStringLiteral("--manager"),
                                  QStringLiteral("team-b"), QStringLiteral("--live-file"),
                                  data(QStringLiteral("deployment.yaml")), QStringLiteral("-o"),
                                  QStringLiteral("json")});
        QCOMPARE(r.code, 0);
        QCOMPARE(r.out, golden(QStringLiteral("deployment-teamb.conflicts.json")));
    }

    // `-f` reads what kubectl prints and what people keep: each object in turn.
    void blameOfAMultiDocumentFileBlamesEachObject()
    {
        QTemporaryDir dir;
        QFile f(dir.filePath(QStringLiteral("two.yaml")));
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(golden(QStringLiteral("service.yaml")) + "---\n" + golden(QStringLiteral("deployment.yaml")));
        f.close();
        const Run text = fieldscope({QStringLiteral("blame"), QStringLiteral("-f"), f.fileName()});
        QCOMPARE(text.code, 0);
        QVERIFY2(text.out.contains("# Service prod/dns\n") && text.out.contains("# Deployment prod/web\n"),
                 text.out.constData());
        const Run json = fieldscope({QStringLiteral("blame"), QStringLiteral("-f"), f.fileName(), QStringLiteral("-o"),
                                     QStringLiteral("json")});
        QCOMPARE(json.code, 0);
        const QJsonArray all = QJsonDocument::fromJson(json.out).array();
        QCOMPARE(all.size(), 2);
        QCOMPARE(all[0][QStringLiteral("object")][QStringLiteral("kind")].toString(), QStringLiteral("Service"));
        QCOMPARE(all[1][QStringLiteral("object")][QStringLiteral("name")].toString(), QStringLiteral("web"));
        // Each object's own blame, as `blame -f` of that object alone gives it.
        QCOMPARE(QJsonDocument(all[0][QStringLiteral("fields")].toArray()).toJson(QJsonDocument::Compact),
                 QJsonDocument::fromJson(golden(QStringLiteral("service.blame.json"))).toJson(QJsonDocument::Compact));
    }

    void blameOfAKubectlListBlamesTheItemsNotTheWrapper()
    {
        // `kubectl get services,deployments -o yaml`: a v1 List around the objects.
        const Run r = fieldscope({QStringLiteral("blame"), QStringLiteral("-f"),
                                  data(QStringLiteral("kubectl-list.yaml")), QStringLiteral("-o"),
                                  QStringLiteral("json")});
        QCOMPARE(r.code, 0);
        const QJsonArray all = QJsonDocument::fromJson(r.out).array();
        QCOMPARE(all.size(), 2);
        int owned = 0;
        const QJsonArray fields = all[1][QStringLiteral("fields")].toArray();
        for (const auto &field : fields)
            owned += field[QStringLiteral("owners")].toArray().isEmpty() ? 0 : 1;
        QVERIFY2(owned > 10, r.out.constData()); // the Deployment's owners, not an unowned wrapper
    }

    void blameOfATypedListFillsInTheItemsKind()
    {
        // The API's DeploymentList: items carry no apiVersion/kind of their own.
        const Run r = fieldscope({QStringLiteral("blame"), QStringLiteral("-f"),
                                  data(QStringLiteral("deploymentlist.json")), QStringLiteral("-o"),
                                  QStringLiteral("json")});
        QCOMPARE(r.code, 0);
        const QJsonObject id = QJsonDocument::fromJson(r.out).array().at(0)[QStringLiteral("object")].toObject();
        QCOMPARE(id[QStringLiteral("kind")].toString(), QStringLiteral("Deployment"));
        QCOMPARE(id[QStringLiteral("apiVersion")].toString(), QStringLiteral("apps/v1"));
    }

    void blameReadsStandardInput()
    {
        QProcess p;
        p.start(QStringLiteral(FIELDSCOPE_BUILD_DIR "/app/fieldscope"),
                {QStringLiteral("blame"), QStringLiteral("-f"), QStringLiteral("-")});
        p.write(golden(QStringLiteral("deployment.yaml")));
        p.closeWriteChannel();
        QVERIFY(p.waitForFinished(30000));
        QCOMPARE(p.exitCode(), 0);
        QCOMPARE(
            p.readAllStandardOutput(),
            fieldscope({QStringLiteral("blame"), QStringLiteral("-f"), data(QStringLiteral("deployment.yaml"))}).out);
    }

    void conflictsOfSeveralManifestsPredictsEachAgainstItsLiveObject()
    {
        const Run r = fieldscope({QStringLiteral("conflicts"), QStringLiteral("-f"),
                                  data(QStringLiteral("two-manifests.yaml")), QStringLiteral("--manager"),
                                  QStringLiteral("team-b"), QStringLiteral("--live-file"),
                                  data(QStringLiteral("kubectl-list.yaml")), QStringLiteral("-o"),
                                  QStringLiteral("json")});
        QCOMPARE(r.code, 0);
        const QJsonArray all = QJsonDocument::fromJson(r.out).array();
        QCOMPARE(all.size(), 2);
        QCOMPARE(all[0][QStringLiteral("object")][QStringLiteral("name")].toString(), QStringLiteral("web"));
        QCOMPARE(all[0][QStringLiteral("conflicts")].toArray().size(), 2); // replicas (scale) and the image
        QCOMPARE(all[1][QStringLiteral("object")][QStringLiteral("kind")].toString(), QStringLiteral("ConfigMap"));
        QVERIFY(all[1][QStringLiteral("conflicts")].toArray().isEmpty()); // not in the live file: a create
        const Run named = fieldscope({QStringLiteral("conflicts"), QStringLiteral("-f"),
                                      data(QStringLiteral("two-manifests.yaml")), QStringLiteral("--manager"),
                                      QStringLiteral("team-b"), QStringLiteral("--live-file"),
                                      data(QStringLiteral("kubectl-list.yaml")), QStringLiteral("deployments/web")});
        QCOMPARE(named.code, 2);
        QVERIFY2(named.err.contains("holds 2 objects"), named.err.constData());
    }

    void malformedYamlIsAClearErrorWithItsLine()
    {
        QTemporaryDir dir;
        QFile f(dir.filePath(QStringLiteral("bad.yaml")));
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("apiVersion: v1\nkind: ConfigMap\nmetadata: [unclosed\n");
        f.close();
        const Run r = fieldscope({QStringLiteral("blame"), QStringLiteral("-f"), f.fileName()});
        QCOMPARE(r.code, 2);
        QVERIFY2(r.err.contains("parse") && r.err.contains("bad.yaml") && r.err.contains("line "), r.err.constData());
    }

    void malformedManagedFieldsIsAClearError()
    {
        QTemporaryDir dir;
        QFile f(dir.filePath(QStringLiteral("obj.json")));
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(
            R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"x","managedFields":[{"manager":"m","operation":"Apply","fieldsType":"FieldsV1","fieldsV1":{"f:data":"not-an-object"}}]}})");
        f.close();
        const Run r = fieldscope({QStringLiteral("blame"), QStringLiteral("-f"), f.fileName()});
        QVERIFY(r.code > 0);
        QVERIFY2(r.err.contains(".data"), r.err.constData());
    }

    void missingKubeconfigIsAConfigError()
    {
        const Run r = fieldscope({QStringLiteral("list"), QStringLiteral("pods"), QStringLiteral("--kubeconfig"),
                                  QStringLiteral("/nonexistent/kubeconfig")});
        QCOMPARE(r.code, 2);
        QVERIFY2(r.err.contains("/nonexistent/kubeconfig"), r.err.constData());
    }

    // Whoever can post audit events can name anyone as the author of any change: the webhook
    // does not start without a client CA (it used to serve any client), and the flag that
    // allows that says so and stays on loopback. Refused before any cluster is reached.
    void recordsAuditWebhookRefusesToStartWithoutClientAuthentication_data()
    {
        QTest::addColumn<QStringList>("extra");
        QTest::addColumn<QByteArray>("why");
        QTest::newRow("no client CA") << QStringList{QStringLiteral("127.0.0.1:0")}
                                      << QByteArray("needs --client-ca FILE");
        QTest::newRow("anyone on every address")
            << QStringList{QStringLiteral("0.0.0.0:0"), QStringLiteral("--insecure-accept-any-webhook-client")}
            << QByteArray("loopback address only");
        QTest::newRow("anyone and a CA") << QStringList{QStringLiteral("127.0.0.1:0"),
                                                        QStringLiteral("--insecure-accept-any-webhook-client"),
                                                        QStringLiteral("--client-ca"), QStringLiteral("/etc/hostname")}
                                         << QByteArray("give one or the other");
    }
    void recordsAuditWebhookRefusesToStartWithoutClientAuthentication()
    {
        QFETCH(QStringList, extra);
        QFETCH(QByteArray, why);
        const Run r = fieldscope(QStringList{QStringLiteral("record"), QStringLiteral("configmaps"),
                                             QStringLiteral("--db"), QStringLiteral("/nonexistent/h.db"),
                                             QStringLiteral("--tls-cert"), QStringLiteral("/nonexistent/c"),
                                             QStringLiteral("--tls-key"), QStringLiteral("/nonexistent/k"),
                                             QStringLiteral("--kubeconfig"), QStringLiteral("/nonexistent/kubeconfig"),
                                             QStringLiteral("--audit-webhook")}
                                 + extra);
        QCOMPARE(r.code, 2);
        QVERIFY2(r.err.contains(why), r.err.constData());
        QVERIFY2(!r.err.contains("listening"), r.err.constData());
    }

    void unknownSubcommandAndFormatAreUsageErrors()
    {
        QCOMPARE(fieldscope({QStringLiteral("frobnicate")}).code, 2);
        const Run r = fieldscope({QStringLiteral("list"), QStringLiteral("pods"), QStringLiteral("-o"),
                                  QStringLiteral("yaml")});
        QCOMPARE(r.code, 2);
        QVERIFY(r.err.contains("unknown output format"));
    }

    void screenshotSizeThatIsNotWidthByHeightIsAUsageError_data()
    {
        QTest::addColumn<QString>("size");
        for (const char *bad : {"1280", "1280x", "x800", "wide", "0x800", "1280x-5", "99999x800"})
            QTest::newRow(bad) << QString::fromLatin1(bad);
    }
    void screenshotSizeThatIsNotWidthByHeightIsAUsageError()
    {
        QFETCH(QString, size);
        QTemporaryDir dir;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen"));
        const QString shot = dir.filePath(QStringLiteral("out.png"));
        // --open of a missing file: no cluster is started if the size were (wrongly) accepted.
        const Run r = fieldscope({QStringLiteral("--open"), dir.filePath(QStringLiteral("none.jsonl")),
                                  QStringLiteral("--screenshot"), shot, QStringLiteral("--size"), size},
                                 env);
        QCOMPARE(r.code, 2);
        QVERIFY2(r.err.contains("--size wants WIDTHxHEIGHT"), r.err.constData());
        QVERIFY(!QFile::exists(shot));
    }

    void helpListsEverySubcommand()
    {
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen"));
        const Run r = fieldscope({QStringLiteral("--help")}, env);
        QCOMPARE(r.code, 0);
        for (const char *c : {"list", "watch", "blame", "conflicts", "record", "history", "--sandbox", "--screenshot"})
            QVERIFY2(r.out.contains(c), c);
    }

    void historyOfAMissingDatabaseIsAClearError()
    {
        const Run r = fieldscope({QStringLiteral("history"), QStringLiteral("configmaps/x"), QStringLiteral("--db"),
                                  QStringLiteral("/nonexistent/h.db")});
        QVERIFY(r.code > 0);
        QVERIFY2(r.err.contains("h.db"), r.err.constData());
    }
};

QTEST_GUILESS_MAIN(TestCli)
#include "tst_cli.moc"
