// The canary (README.md, Security): a Secret whose value is recognisable is created and changed
// with the real kubectl (so its last-applied-configuration annotation carries the value too)
// while `fieldscope record --audit-log` runs under umask 000; an audit log that holds the value in
// request and response bodies is imported; then exported. Neither the value (plain or
// base64) nor the test kubeconfig's token or client key may appear in the database (with its
// -wal/-shm), the export, or anything the commands printed (with every log category on). The
// files are 0600 all the same, and the history still says the value changed.
#include "clusterenv.h"
#include "core/base/json.h"
#include "core/history/secretredaction.h"
#include "core/yaml/yaml.h"

#include <QDirIterator>
#include <QFile>
#include <QFileInfo>
#include <QTemporaryDir>
#include <QUuid>

#include <sys/stat.h>

using namespace fieldscope;
using namespace fieldscope::testing;

namespace {

constexpr const char *kCanary = "fieldscope-canary-5d1c0e";

QByteArray allFileBytes(const QString &dir)
{
    QByteArray all;
    QDirIterator it(dir, QDir::Files | QDir::Hidden, QDirIterator::Subdirectories);
    while (it.hasNext()) {
        QFile f(it.next());
        if (f.open(QIODevice::ReadOnly))
            all += f.readAll();
    }
    return all;
}

// The secrets the test kubeconfig holds: bearer tokens and client keys (as written, base64).
QList<QByteArray> kubeconfigSecrets()
{
    QFile f(testKubeconfig());
    if (!f.open(QIODevice::ReadOnly))
        return {};
    auto doc = core::yamlToJson(f.readAll().toStdString());
    QList<QByteArray> out;
    if (!doc || !doc->value.is_object() || !doc->value["users"].is_array())
        return out;
    for (const auto &u : doc->value["users"]) {
        if (!u.is_object() || !u.contains("user") || !u["user"].is_object())
            continue;
        for (const char *key : {"token", "client-key-data"})
            if (u["user"].contains(key) && u["user"][key].is_string())
                out << QByteArray::fromStdString(u["user"][key].get<std::string>());
    }
    return out;
}

int modeOf(const QString &path)
{
    struct stat st {};
    return ::stat(QFile::encodeName(path).constData(), &st) == 0 ? int(st.st_mode & 07777) : -1;
}

QByteArray secretYaml(const char *value)
{
    return QByteArray(
               "apiVersion: v1\nkind: Secret\nmetadata:\n  name: canary\ntype: Opaque\nstringData:\n  password: ")
         + value + "\n";
}

} // namespace

class TestSecretCanary : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void recordingAndExportKeepNoSecretValueTokenOrKey()
    {
        const QString kubectl = qEnvironmentVariable("FIELDSCOPE_KUBECTL");
        if (!QFileInfo(kubectl).isExecutable())
            QFAIL("kubectl missing: run scripts/build-kube.sh");
        const QList<QByteArray> credentials = kubeconfigSecrets();
        QVERIFY2(!credentials.isEmpty(), "the test kubeconfig names no token or client key");
        const QString ns = QStringLiteral("fs-canary-") + QUuid::createUuid().toString(QUuid::Id128).left(8);
        const QStringList kc = {QStringLiteral("--kubeconfig"), testKubeconfig(), QStringLiteral("--context"),
                                QString::fromStdString(ctxToken())};
        auto runKubectl = [&](const QStringList &args, const QByteArray &in = {}) {
            QProcess p;
            p.start(kubectl, kc + args);
            if (!in.isEmpty()) {
                p.write(in);
                p.closeWriteChannel();
            }
            p.waitForFinished(60000);
            return p.exitStatus() == QProcess::NormalExit && p.exitCode() == 0 ? QByteArray()
                                                                               : p.readAllStandardError() + "failed";
        };
        QCOMPARE(runKubectl({QStringLiteral("create"), QStringLiteral("namespace"), ns}), QByteArray());

        QTemporaryDir dir;
        const QString db = dir.filePath(QStringLiteral("out/history.db")); // the folder is made by fieldscope
        const mode_t oldMask = ::umask(0); // inherited by the commands: their modes must not depend on it
        QProcess recorder;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("FIELDSCOPE_VERBOSE"), QStringLiteral("1"));
        env.insert(QStringLiteral("QT_LOGGING_RULES"), QStringLiteral("*.debug=true"));
        recorder.setProcessEnvironment(env);
        // Following the cluster's audit log too: who made each version joins, and nothing of a
        // Secret's body may come along.
        recorder.start(fieldscopeBinary(),
                       QStringList{QStringLiteral("record"), QStringLiteral("secrets"), QStringLiteral("-n"), ns,
                                   QStringLiteral("--db"), db, QStringLiteral("--audit-log"),
                                   clusterDir() + QStringLiteral("/logs/audit.log")}
                           + kc);
        QByteArray printed;
        QTRY_VERIFY_WITH_TIMEOUT((printed += recorder.readAllStandardError()).contains("recording"), 30000);

        const QByteArray first = QByteArray(kCanary) + "-one";
        const QByteArray second = QByteArray(kCanary) + "-two";
        QCOMPARE(runKubectl({QStringLiteral("-n"), ns, QStringLiteral("apply"), QStringLiteral("-f"),
                             QStringLiteral("-")},
                            secretYaml(first)),
                 QByteArray());
        QCOMPARE(runKubectl({QStringLiteral("-n"), ns, QStringLiteral("apply"), QStringLiteral("-f"),
                             QStringLiteral("-")},
                            secretYaml(second)),
                 QByteArray());
        QCOMPARE(runKubectl({QStringLiteral("-n"), ns, QStringLiteral("label"), QStringLiteral("secret"),
                             QStringLiteral("canary"), QStringLiteral("seen=yes")}),
                 QByteArray());
        // The recorder commits while it runs (WAL): wait for the third version, then stop it.
        auto recorded = [&] {
            auto j = core::parseJson(runFieldscope({QStringLiteral("history"), QStringLiteral("secrets/canary"),
                                                    QStringLiteral("--db"), db, QStringLiteral("-o"),
                                                    QStringLiteral("json")})
                                         .out.toStdString());
            return j && j->is_array() ? int(j->size()) : 0;
        };
        QTRY_VERIFY_WITH_TIMEOUT(recorded() >= 3, 30000);
        QCOMPARE(modeOf(db + QStringLiteral("-wal")), 0600); // while the recorder has it open
        recorder.terminate();
        QVERIFY(recorder.waitForFinished(30000));
        printed += recorder.readAllStandardError() + recorder.readAllStandardOutput();

        // A careless audit policy logs Secret bodies (RequestResponse): importing such a log joins
        // who made the version and keeps no value of either body. The log lives outside the
        // folders scanned below: it is the cluster's file, not ours.
        QTemporaryDir elsewhere;
        const QString carelessLog = elsewhere.filePath(QStringLiteral("careless-audit.log"));
        {
            const auto h = core::parseJson(runFieldscope({QStringLiteral("history"), QStringLiteral("secrets/canary"),
                                                          QStringLiteral("-n"), ns, QStringLiteral("--db"), db,
                                                          QStringLiteral("-o"), QStringLiteral("json")})
                                               .out.toStdString());
            QVERIFY(h && h->is_array() && !h->empty());
            const core::Json body{{"kind", "Secret"},
                                  {"apiVersion", "v1"},
                                  {"metadata",
                                   {{"name", "canary"},
                                    {"namespace", ns.toStdString()},
                                    {"resourceVersion", h->back()["resourceVersion"]},
                                    {"annotations", {{"note", kCanary}}}}},
                                  {"data", {{"password", second.toBase64().toStdString()}}},
                                  {"stringData", {{"password", second.toStdString()}}}};
            const core::Json event{
                {"kind", "Event"},
                {"apiVersion", "audit.k8s.io/v1"},
                {"level", "RequestResponse"},
                {"auditID", "careless-1"},
                {"stage", "ResponseComplete"},
                {"requestURI", "/api/v1/namespaces/" + ns.toStdString() + "/secrets/canary?fieldManager=kubectl-label"},
                {"verb", "patch"},
                {"user", {{"username", "alice"}, {"groups", core::Json::array({"dev"})}}},
                {"objectRef", {{"resource", "secrets"}, {"namespace", ns.toStdString()}, {"name", "canary"}}},
                {"responseStatus", {{"code", 200}}},
                {"requestObject", body},
                {"responseObject", body},
                {"requestReceivedTimestamp", "2026-11-26T10:00:00.000000Z"},
                {"stageTimestamp", "2026-11-26T10:00:00.002000Z"}};
            QFile f(carelessLog);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write(QByteArray::fromStdString(event.dump()) + '\n');
        }
        const auto imported = runFieldscope({QStringLiteral("audit"), QStringLiteral("import"), carelessLog,
                                             QStringLiteral("--db"), db, QStringLiteral("-o"), QStringLiteral("json")});
        QVERIFY2(imported.exitCode == 0, imported.err.constData());
        QCOMPARE(core::parseJson(imported.out.toStdString()).value()["events"].get<int>(), 1);
        printed += imported.out + imported.err;

        const QString jsonl = dir.filePath(QStringLiteral("out/canary.jsonl"));
        QProcess exporter;
        exporter.setProcessEnvironment(env);
        exporter.start(fieldscopeBinary(),
                       {QStringLiteral("export"), QStringLiteral("--db"), db, QStringLiteral("--to"), jsonl});
        QVERIFY(exporter.waitForFinished(60000));
        QCOMPARE(exporter.exitCode(), 0);
        printed += exporter.readAllStandardError() + exporter.readAllStandardOutput();
        const auto history = runFieldscope({QStringLiteral("history"), QStringLiteral("secrets/canary"),
                                            QStringLiteral("--db"), db, QStringLiteral("-o"), QStringLiteral("json")});
        // The window on the recorded file, its History tab showing the Secret, with every log on:
        // what it prints has no value either, and the folders and settings it writes are private.
        QProcess gui;
        QProcessEnvironment guiEnv = env;
        guiEnv.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen"));
        guiEnv.insert(QStringLiteral("XDG_CONFIG_HOME"), dir.filePath(QStringLiteral("config")));
        guiEnv.insert(QStringLiteral("XDG_DATA_HOME"), dir.filePath(QStringLiteral("data")));
        gui.setProcessEnvironment(guiEnv);
        gui.start(fieldscopeBinary(),
                  {QStringLiteral("--open"), db, QStringLiteral("--select"),
                   QStringLiteral("secrets/%1/canary").arg(ns), QStringLiteral("--tab"), QStringLiteral("history"),
                   QStringLiteral("--screenshot"), dir.filePath(QStringLiteral("shot.png")), QStringLiteral("--size"),
                   QStringLiteral("1280x800")});
        QVERIFY(gui.waitForFinished(120000));
        QCOMPARE(gui.exitCode(), 0);
        printed += gui.readAllStandardError() + gui.readAllStandardOutput();
        ::umask(oldMask);
        QCOMPARE(modeOf(dir.filePath(QStringLiteral("config/fieldscope"))), 0700);
        QCOMPARE(modeOf(dir.filePath(QStringLiteral("config/fieldscope/fieldscope.conf"))), 0600);
        QCOMPARE(modeOf(dir.filePath(QStringLiteral("data/fieldscope"))), 0700);
        QCOMPARE(modeOf(dir.filePath(QStringLiteral("data/fieldscope/history"))), 0700);
        QCOMPARE(history.exitCode, 0);
        printed += history.out + history.err;

        QCOMPARE(modeOf(db), 0600);
        QCOMPARE(modeOf(jsonl), 0600);
        QCOMPARE(modeOf(QFileInfo(db).absolutePath()), 0700);

        const QByteArray stored = allFileBytes(QFileInfo(db).absolutePath())
                                + allFileBytes(dir.filePath(QStringLiteral("config")))
                                + allFileBytes(dir.filePath(QStringLiteral("data")));
        QVERIFY(stored.size() > 1000);
        QVERIFY2(stored.contains("canary"),
                 "the Secret's name (metadata) is kept"); // so the check below means something
        for (const QByteArray &needle :
             {QByteArray(kCanary), first.toBase64(), second.toBase64(), QByteArray(kCanary).toBase64()}) {
            QVERIFY2(!stored.contains(needle), needle.constData());
            QVERIFY2(!printed.contains(needle), needle.constData());
        }
        for (const QByteArray &credential : credentials) {
            QVERIFY2(!stored.contains(credential), "a kubeconfig credential reached the history files");
            QVERIFY2(!printed.contains(credential), "a kubeconfig credential was printed");
        }

        // What stays visible: the password's hash changed between the two applies.
        QFile f(jsonl);
        QVERIFY(f.open(QIODevice::ReadOnly));
        QStringList hashes;
        for (const QByteArray &line : f.readAll().split('\n')) {
            auto j = core::parseJson(line.toStdString());
            if (!j || !j->is_object() || !j->contains("object") || (*j)["object"]["metadata"]["name"] != "canary")
                continue; // the namespace's service account token Secret is recorded (hashed) too
            const auto &data = (*j)["object"]["data"];
            QVERIFY(data.is_object() && data["password"].is_string());
            QVERIFY(core::isRedactedValue(data["password"].get<std::string>()));
            hashes << QString::fromStdString(data["password"].get<std::string>());
        }
        QCOMPARE(hashes.size(), 3);
        QVERIFY(hashes[0] != hashes[1]);
        QCOMPARE(hashes[1], hashes[2]); // the label changed nothing in the data

        (void)runKubectl({QStringLiteral("delete"), QStringLiteral("namespace"), ns, QStringLiteral("--wait=false")});
    }
};

QTEST_GUILESS_MAIN(TestSecretCanary)
#include "tst_secret_canary.moc"
