// Who made each version, end to end against the real kube-apiserver of the test cluster, which
// writes audit events with the policy of docs/audit.md (scripts/fieldscope-cluster). Two token
// users (alice, bob) and an impersonated ServiceAccount write a ConfigMap with the real kubectl
// while `fieldscope record` records it, and the server refuses some writes (AlreadyExists, a stale
// replace). `fieldscope audit import` of the cluster's log, or `record --audit-log` following it
// live, or the API server's own webhook batches received by `record --audit-webhook`, must then
// make `fieldscope history --attempts -o json` name the right person for every version, every join
// exact, and list the refused writes with who tried.
#include "clusterenv.h"
#include "core/base/json.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QScopeGuard>
#include <QTemporaryDir>
#include <QUuid>

#include <map>

using namespace fieldscope;
using namespace fieldscope::testing;

namespace {

struct Kubectl {
    QString ns;
    QString server; // another API server of the same cluster (same etcd, PKI and tokens); "" = the context's
    ProcessResult run(const std::string &context, const QStringList &args, const QByteArray &stdinYaml = {}) const
    {
        QProcess p;
        QStringList common{QStringLiteral("--kubeconfig"),  testKubeconfig(),     QStringLiteral("--context"),
                           QString::fromStdString(context), QStringLiteral("-n"), ns};
        if (!server.isEmpty())
            common << QStringLiteral("--server") << server;
        p.start(qEnvironmentVariable("FIELDSCOPE_KUBECTL"), common + args);
        if (!stdinYaml.isEmpty()) {
            p.write(stdinYaml);
            p.closeWriteChannel();
        }
        p.waitForFinished(60000);
        return {p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1, p.readAllStandardOutput(),
                p.readAllStandardError()};
    }
    // A fresh namespace where the ServiceAccount `deployer` may edit (alice and bob may everywhere:
    // the cluster script binds their group to `edit`).
    bool makeNamespace(const QString &prefix)
    {
        ns = prefix + QUuid::createUuid().toString(QUuid::Id128).left(8);
        QProcess create;
        create.start(qEnvironmentVariable("FIELDSCOPE_KUBECTL"),
                     adminArgs() + QStringList{QStringLiteral("create"), QStringLiteral("namespace"), ns});
        if (!create.waitForFinished(30000) || create.exitCode() != 0)
            return false;
        return run(ctxToken(), {QStringLiteral("create"), QStringLiteral("rolebinding"),
                                QStringLiteral("deployer-edit"), QStringLiteral("--clusterrole=edit"),
                                QStringLiteral("--serviceaccount=") + ns + QStringLiteral(":deployer")})
                   .exitCode
            == 0;
    }
};

const std::string kAlice = ctxToken() + "-alice";
const std::string kBob = ctxToken() + "-bob";
const QStringList kFromStdin = {QStringLiteral("-f"), QStringLiteral("-")};

QByteArray configMap(const char *name, const char *data, const QByteArray &resourceVersion = {})
{
    QByteArray y = QByteArray("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ") + name + "\n";
    if (!resourceVersion.isEmpty())
        y += "  resourceVersion: \"" + resourceVersion + "\"\n";
    return y + "data:\n" + data;
}

QByteArray failed(const ProcessResult &r)
{
    return r.exitCode == 0 ? QByteArray() : r.err + r.out;
}

// The audit log and the files the API server rotated it into.
QStringList auditLogs()
{
    QDir logs(clusterDir() + QStringLiteral("/logs"));
    QStringList out;
    for (const QString &f : logs.entryList({QStringLiteral("audit*.log")}, QDir::Files))
        out << logs.filePath(f);
    return out;
}

qint64 auditLines()
{
    qint64 n = 0;
    for (const QString &f : auditLogs()) {
        QFile file(f);
        if (file.open(QIODevice::ReadOnly))
            n += file.readAll().count('\n');
    }
    return n;
}

// "TYPE [code reason] user [match]" per entry of `history --attempts -o json`; impersonation shows
// the identity acted as.
QStringList whoLines(const core::Json &history)
{
    QStringList out;
    for (const auto &e : history) {
        const std::string type = e["eventType"].get<std::string>();
        QString line = QString::fromStdString(type);
        if (type == "REFUSED")
            line += QStringLiteral(" %1 %2")
                        .arg(e["code"].get<int>())
                        .arg(QString::fromStdString(e["reason"].get<std::string>()));
        if (e["who"].is_null()) {
            out << line + QStringLiteral(" -");
            continue;
        }
        const auto &w = e["who"];
        line += QLatin1Char(' ')
              + QString::fromStdString(w["impersonatedUser"].is_null() ? w["user"].get<std::string>()
                                                                       : w["impersonatedUser"].get<std::string>());
        if (type != "REFUSED")
            line += QLatin1Char(' ') + QString::fromStdString(w["match"].get<std::string>());
        out << line;
    }
    return out;
}

core::Json history(const QString &ns, const QString &db)
{
    const auto h = runFieldscope({QStringLiteral("history"), QStringLiteral("configmaps/app"), QStringLiteral("-n"), ns,
                                  QStringLiteral("--db"), db, QStringLiteral("-o"), QStringLiteral("json"),
                                  QStringLiteral("--attempts")});
    if (h.exitCode != 0)
        qWarning("history failed: %s", h.err.constData());
    return h.exitCode == 0 ? core::parseJson(h.out.toStdString()).value() : core::Json::array();
}

struct Recorder {
    QProcess process;
    QByteArray err;
    bool start(const QString &ns, const QString &db, const QStringList &extra = {})
    {
        process.start(fieldscopeBinary(), QStringList{QStringLiteral("record"), QStringLiteral("configmaps"),
                                                      QStringLiteral("-n"), ns, QStringLiteral("--db"), db}
                                              + extra + adminArgs());
        return QTest::qWaitFor([&] { return (err += process.readAllStandardError()).contains("recording configmaps"); },
                               60000);
    }
    bool stop()
    {
        QTest::qWait(1500); // the watch delivers the last write
        process.terminate();
        const bool ended = process.waitForFinished(60000);
        err += process.readAllStandardError();
        return ended && process.exitStatus() == QProcess::NormalExit && process.exitCode() == 0;
    }
};

} // namespace

class TestAuditWho : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase()
    {
        if (!QFileInfo(qEnvironmentVariable("FIELDSCOPE_KUBECTL")).isExecutable())
            QFAIL("kubectl missing: run scripts/build-kube.sh");
    }

    void importedLogNamesTheUserOfEveryVersionAndTheRefusedWrites()
    {
        Kubectl k;
        QVERIFY(k.makeNamespace(QStringLiteral("fs-who-")));
        QTemporaryDir dir;
        const QString db = dir.filePath(QStringLiteral("who.db"));
        Recorder recorder;
        QVERIFY2(recorder.start(k.ns, db), recorder.err.constData());

        // alice creates; bob creates it again (409 AlreadyExists); bob labels it.
        QCOMPARE(failed(k.run(kAlice, QStringList{QStringLiteral("create")} + kFromStdin,
                              configMap("app", "  a: \"1\"\n"))),
                 QByteArray());
        const auto opened = k.run(kAlice,
                                  {QStringLiteral("get"), QStringLiteral("configmap"), QStringLiteral("app"),
                                   QStringLiteral("-o"), QStringLiteral("jsonpath={.metadata.resourceVersion}")});
        QCOMPARE(opened.exitCode, 0);
        const auto again = k.run(kBob, QStringList{QStringLiteral("create")} + kFromStdin,
                                 configMap("app", "  a: \"9\"\n"));
        QVERIFY2(again.exitCode != 0 && again.err.contains("AlreadyExists"), again.err.constData());
        QCOMPARE(failed(k.run(kBob, {QStringLiteral("label"), QStringLiteral("configmap"), QStringLiteral("app"),
                                     QStringLiteral("tier=web")})),
                 QByteArray());
        // alice replaces from the copy she read before bob's label: 409, the object has been modified.
        const auto stale = k.run(kAlice, QStringList{QStringLiteral("replace")} + kFromStdin,
                                 configMap("app", "  a: \"2\"\n", opened.out));
        QVERIFY2(stale.exitCode != 0 && stale.err.contains("modified"), stale.err.constData());
        // The admin acts as the ServiceAccount; alice's invalid name is refused (422); bob deletes.
        QCOMPARE(failed(k.run(ctxToken(),
                              {QStringLiteral("annotate"), QStringLiteral("configmap"), QStringLiteral("app"),
                               QStringLiteral("deployed=yes"), QStringLiteral("--as"),
                               QStringLiteral("system:serviceaccount:") + k.ns + QStringLiteral(":deployer")})),
                 QByteArray());
        const auto invalid = k.run(kAlice, QStringList{QStringLiteral("create")} + kFromStdin,
                                   configMap("Bad_Name", "  a: \"1\"\n"));
        QVERIFY2(invalid.exitCode != 0 && invalid.err.contains("Invalid"), invalid.err.constData());
        QCOMPARE(failed(k.run(kBob, {QStringLiteral("delete"), QStringLiteral("configmap"), QStringLiteral("app")})),
                 QByteArray());
        QVERIFY2(recorder.stop(), recorder.err.constData());

        const QStringList expected = {QStringLiteral("ADDED alice exact"),
                                      QStringLiteral("REFUSED 409 AlreadyExists bob"),
                                      QStringLiteral("MODIFIED bob exact"),
                                      QStringLiteral("REFUSED 409 Conflict alice"),
                                      QStringLiteral("MODIFIED system:serviceaccount:") + k.ns
                                          + QStringLiteral(":deployer exact"),
                                      QStringLiteral("DELETED bob exact")};
        // The log backend writes an event as its request ends; allow the file a moment all the same.
        core::Json h;
        for (int attempt = 0; attempt < 20 && whoLines(h) != expected; ++attempt) {
            if (attempt > 0)
                QTest::qWait(500);
            const auto imported = runFieldscope(QStringList{QStringLiteral("audit"), QStringLiteral("import")}
                                                + auditLogs() + QStringList{QStringLiteral("--db"), db});
            QVERIFY2(imported.exitCode == 0, imported.err.constData());
            h = history(k.ns, db);
        }
        QCOMPARE(whoLines(h), expected);
        // Impersonation keeps who authenticated; groups come along; the refused replace says why.
        QCOMPARE(h[4]["who"]["user"].get<std::string>(), std::string("fieldscope-admin"));
        QCOMPARE(h[2]["who"]["groups"].front().get<std::string>(), std::string("dev"));
        QCOMPARE(h[3]["who"]["verb"].get<std::string>(), std::string("update"));
        QVERIFY2(h[3]["message"].get<std::string>().find("has been modified") != std::string::npos,
                 h[3].dump().c_str());

        // Importing the same logs again stores nothing new.
        const auto twice = runFieldscope(QStringList{QStringLiteral("audit"), QStringLiteral("import")} + auditLogs()
                                         + QStringList{QStringLiteral("--db"), db, QStringLiteral("-o"),
                                                       QStringLiteral("json")});
        QCOMPARE(twice.exitCode, 0);
        const auto report = core::parseJson(twice.out.toStdString()).value();
        QCOMPARE(report["storedJoins"].get<int>(), 0);
        QCOMPARE(report["storedAttempts"].get<int>(), 0);
    }

    // A class's student is a client-certificate user (CN = the name, O = fieldscope:class, as
    // `fieldscope class start` issues them): the History names the certificate's CN for the version
    // the student made and for the student's refused write, with the class group.
    void aClientCertificateStudentIsNamedWithTheClassGroup()
    {
        Kubectl k;
        QVERIFY(k.makeNamespace(QStringLiteral("fs-who-x509-")));
        QTemporaryDir dir;
        const QString pki = clusterDir() + QStringLiteral("/pki/");
        auto openssl = [](const QStringList &args) {
            QProcess p;
            p.start(QStringLiteral("openssl"), args);
            return p.waitForFinished(60000) && p.exitCode() == 0;
        };
        QFile ext(dir.filePath(QStringLiteral("client.ext")));
        QVERIFY(ext.open(QIODevice::WriteOnly) && ext.write("extendedKeyUsage=clientAuth\n") > 0);
        ext.close();
        QVERIFY(openssl({QStringLiteral("req"), QStringLiteral("-newkey"), QStringLiteral("rsa:2048"),
                         QStringLiteral("-nodes"), QStringLiteral("-keyout"), dir.filePath(QStringLiteral("s.key")),
                         QStringLiteral("-out"), dir.filePath(QStringLiteral("s.csr")), QStringLiteral("-subj"),
                         QStringLiteral("/O=fieldscope:class/CN=amara")}));
        QVERIFY(openssl({QStringLiteral("x509"), QStringLiteral("-req"), QStringLiteral("-in"),
                         dir.filePath(QStringLiteral("s.csr")), QStringLiteral("-CA"), pki + QStringLiteral("ca.crt"),
                         QStringLiteral("-CAkey"), pki + QStringLiteral("ca.key"), QStringLiteral("-CAcreateserial"),
                         QStringLiteral("-CAserial"), dir.filePath(QStringLiteral("ca.srl")), QStringLiteral("-days"),
                         QStringLiteral("1"), QStringLiteral("-extfile"), ext.fileName(), QStringLiteral("-out"),
                         dir.filePath(QStringLiteral("s.crt"))}));
        QCOMPARE(failed(k.run(ctxToken(),
                              {QStringLiteral("create"), QStringLiteral("rolebinding"), QStringLiteral("amara-edit"),
                               QStringLiteral("--clusterrole=edit"), QStringLiteral("--user=amara")})),
                 QByteArray());
        const auto server = k.run(ctxToken(),
                                  {QStringLiteral("config"), QStringLiteral("view"), QStringLiteral("--minify"),
                                   QStringLiteral("-o"), QStringLiteral("jsonpath={.clusters[0].cluster.server}")});
        QCOMPARE(server.exitCode, 0);
        // The student's own connection: no kubeconfig of the teacher's, the certificate alone.
        QFile none(dir.filePath(QStringLiteral("none")));
        QVERIFY(none.open(QIODevice::WriteOnly) && none.write("apiVersion: v1\nkind: Config\n") > 0);
        none.close();
        auto student = [&](const QStringList &args, const QByteArray &stdinYaml = {}) {
            QProcess p;
            p.start(qEnvironmentVariable("FIELDSCOPE_KUBECTL"),
                    QStringList{QStringLiteral("--kubeconfig"), dir.filePath(QStringLiteral("none")),
                                QStringLiteral("--server"), QString::fromUtf8(server.out),
                                QStringLiteral("--certificate-authority"), pki + QStringLiteral("ca.crt"),
                                QStringLiteral("--client-certificate"), dir.filePath(QStringLiteral("s.crt")),
                                QStringLiteral("--client-key"), dir.filePath(QStringLiteral("s.key")),
                                QStringLiteral("-n"), k.ns}
                        + args);
            if (!stdinYaml.isEmpty()) {
                p.write(stdinYaml);
                p.closeWriteChannel();
            }
            p.waitForFinished(60000);
            return ProcessResult{p.exitCode(), p.readAllStandardOutput(), p.readAllStandardError()};
        };
        const QString db = dir.filePath(QStringLiteral("who.db"));
        Recorder recorder;
        QVERIFY2(recorder.start(k.ns, db), recorder.err.constData());
        QCOMPARE(failed(student(QStringList{QStringLiteral("create")} + kFromStdin, configMap("app", "  a: \"1\"\n"))),
                 QByteArray());
        const auto opened = student({QStringLiteral("get"), QStringLiteral("configmap"), QStringLiteral("app"),
                                     QStringLiteral("-o"), QStringLiteral("jsonpath={.metadata.resourceVersion}")});
        QCOMPARE(opened.exitCode, 0);
        QCOMPARE(failed(k.run(kBob, {QStringLiteral("label"), QStringLiteral("configmap"), QStringLiteral("app"),
                                     QStringLiteral("tier=web")})),
                 QByteArray());
        const auto stale = student(QStringList{QStringLiteral("replace")} + kFromStdin,
                                   configMap("app", "  a: \"2\"\n", opened.out));
        QVERIFY2(stale.exitCode != 0 && stale.err.contains("modified"), stale.err.constData());
        QVERIFY2(recorder.stop(), recorder.err.constData());
        const QStringList expected = {QStringLiteral("ADDED amara exact"), QStringLiteral("MODIFIED bob exact"),
                                      QStringLiteral("REFUSED 409 Conflict amara")};
        core::Json h;
        for (int attempt = 0; attempt < 20 && whoLines(h) != expected; ++attempt) {
            if (attempt > 0)
                QTest::qWait(500);
            const auto imported = runFieldscope(QStringList{QStringLiteral("audit"), QStringLiteral("import")}
                                                + auditLogs() + QStringList{QStringLiteral("--db"), db});
            QVERIFY2(imported.exitCode == 0, imported.err.constData());
            h = history(k.ns, db);
        }
        QCOMPARE(whoLines(h), expected);
        QCOMPARE(h[0]["who"]["groups"].front().get<std::string>(), std::string("fieldscope:class"));
    }

    void aRecorderFollowingTheLogJoinsLiveAndResumesWithoutRereading()
    {
        Kubectl k;
        QVERIFY(k.makeNamespace(QStringLiteral("fs-follow-")));
        QTemporaryDir dir;
        const QString db = dir.filePath(QStringLiteral("follow.db"));
        const QString log = clusterDir() + QStringLiteral("/logs/audit.log");
        const QStringList follow = {QStringLiteral("--audit-log"), log};

        Recorder first;
        QVERIFY2(first.start(k.ns, db, follow), first.err.constData());
        QCOMPARE(failed(k.run(kAlice, QStringList{QStringLiteral("create")} + kFromStdin,
                              configMap("app", "  a: \"1\"\n"))),
                 QByteArray());
        QCOMPARE(failed(k.run(kBob, {QStringLiteral("label"), QStringLiteral("configmap"), QStringLiteral("app"),
                                     QStringLiteral("tier=web")})),
                 QByteArray());
        QVERIFY2(first.stop(), first.err.constData());
        QVERIFY2(first.err.contains("following audit log"), first.err.constData());
        QCOMPARE(whoLines(history(k.ns, db)),
                 (QStringList{QStringLiteral("ADDED alice exact"), QStringLiteral("MODIFIED bob exact")}));

        // A second run reads only what the server wrote after the first one stopped: together the
        // two runs read no more events than the log holds (other tests write to it meanwhile).
        Recorder second;
        QVERIFY2(second.start(k.ns, db, follow), second.err.constData());
        const auto refused = k.run(kBob, QStringList{QStringLiteral("create")} + kFromStdin,
                                   configMap("app", "  a: \"9\"\n"));
        QVERIFY2(refused.exitCode != 0 && refused.err.contains("AlreadyExists"), refused.err.constData());
        QCOMPARE(failed(k.run(kAlice, {QStringLiteral("annotate"), QStringLiteral("configmap"), QStringLiteral("app"),
                                       QStringLiteral("owner=alice")})),
                 QByteArray());
        QVERIFY2(second.stop(), second.err.constData());
        const qint64 linesInLog = auditLines();
        QCOMPARE(whoLines(history(k.ns, db)),
                 (QStringList{QStringLiteral("ADDED alice exact"), QStringLiteral("MODIFIED bob exact"),
                              QStringLiteral("REFUSED 409 AlreadyExists bob"),
                              QStringLiteral("MODIFIED alice exact")}));
        static const QRegularExpression events(QStringLiteral("audit: (\\d+) events"));
        const auto read1 = events.match(QString::fromUtf8(first.err));
        const auto read2 = events.match(QString::fromUtf8(second.err));
        QVERIFY2(read1.hasMatch() && read2.hasMatch(), (first.err + second.err).constData());
        QVERIFY(read2.captured(1).toLongLong() > 0);
        QVERIFY2(read1.captured(1).toLongLong() + read2.captured(1).toLongLong() <= linesInLog,
                 qPrintable(QStringLiteral("%1 + %2 events read, %3 in the log")
                                .arg(read1.captured(1), read2.captured(1))
                                .arg(linesInLog)));
    }

    // The API server itself POSTs its batches to `record --audit-webhook` (the cluster script
    // points its webhook backend at DIR/run/audit-webhook.port with a client certificate of the
    // cluster CA); no log is read.
    void webhookBatchesFromTheApiServerNameWhoMadeEachVersion()
    {
        Kubectl k;
        QVERIFY(k.makeNamespace(QStringLiteral("fs-hook-")));
        QTemporaryDir dir;
        const QString db = dir.filePath(QStringLiteral("hook.db"));
        QFile portFile(clusterDir() + QStringLiteral("/run/audit-webhook.port"));
        QVERIFY2(portFile.open(QIODevice::ReadOnly), "the cluster script chose no webhook port");
        const QString port = QString::fromLatin1(portFile.readAll().trimmed());
        const QString pki = clusterDir() + QStringLiteral("/pki/");
        const QString kubeconfig = dir.filePath(QStringLiteral("webhook.kubeconfig"));
        Recorder recorder;
        QVERIFY2(recorder.start(k.ns, db,
                                {QStringLiteral("--audit-webhook"), QStringLiteral("127.0.0.1:") + port,
                                 QStringLiteral("--tls-cert"), pki + QStringLiteral("audit-webhook.crt"),
                                 QStringLiteral("--tls-key"), pki + QStringLiteral("audit-webhook.key"),
                                 QStringLiteral("--client-ca"), pki + QStringLiteral("ca.crt"),
                                 QStringLiteral("--write-webhook-kubeconfig"), kubeconfig}),
                 recorder.err.constData());
        QVERIFY2(recorder.err.contains("audit webhook listening on https://127.0.0.1:" + port.toLatin1()),
                 recorder.err.constData());
        QVERIFY(QFileInfo::exists(kubeconfig));

        QCOMPARE(failed(k.run(kAlice, QStringList{QStringLiteral("create")} + kFromStdin,
                              configMap("app", "  a: \"1\"\n"))),
                 QByteArray());
        const auto again = k.run(kBob, QStringList{QStringLiteral("create")} + kFromStdin,
                                 configMap("app", "  a: \"9\"\n"));
        QVERIFY2(again.exitCode != 0 && again.err.contains("AlreadyExists"), again.err.constData());
        QCOMPARE(failed(k.run(kBob, {QStringLiteral("label"), QStringLiteral("configmap"), QStringLiteral("app"),
                                     QStringLiteral("tier=web")})),
                 QByteArray());
        const QStringList expected = {QStringLiteral("ADDED alice exact"),
                                      QStringLiteral("REFUSED 409 AlreadyExists bob"),
                                      QStringLiteral("MODIFIED bob exact")};
        // The API server sends a batch at least every second; the recorder stores each second.
        QTest::qWait(4000);
        QVERIFY2(recorder.stop(), recorder.err.constData());
        const QStringList lines = whoLines(history(k.ns, db));
        QVERIFY2(lines == expected,
                 qPrintable(lines.join(QStringLiteral("; ")) + QStringLiteral("\n") + QString::fromUtf8(recorder.err)));
        static const QRegularExpression requests(QStringLiteral("audit webhook: (\\d+) requests \\((\\d+) accepted"));
        const auto m = requests.match(QString::fromUtf8(recorder.err));
        QVERIFY2(m.hasMatch() && m.captured(2).toInt() > 0, recorder.err.constData());
        QVERIFY2(!recorder.err.contains("following audit log"), "no log was read");

        // blame --who: each manager's line names the person who last wrote as it.
        const auto blame = runFieldscope(QStringList{QStringLiteral("blame"), QStringLiteral("configmaps/app"),
                                                     QStringLiteral("-n"), k.ns, QStringLiteral("--who"),
                                                     QStringLiteral("--db"), db, QStringLiteral("-o"),
                                                     QStringLiteral("json")}
                                         + adminArgs());
        QVERIFY2(blame.exitCode == 0, blame.err.constData());
        std::map<std::string, std::string> userOf;
        const core::Json leaves = core::parseJson(blame.out.toStdString()).value();
        for (const auto &leaf : leaves)
            for (const auto &o : leaf["owners"])
                userOf[leaf["path"].get<std::string>()] = o.value("user", std::string("-"));
        QCOMPARE(userOf[".data.a"], std::string("alice"));
        QCOMPARE(userOf[".metadata.labels.tier"], std::string("bob"));
        const auto text = runFieldscope(QStringList{QStringLiteral("blame"), QStringLiteral("configmaps/app"),
                                                    QStringLiteral("-n"), k.ns, QStringLiteral("--who"),
                                                    QStringLiteral("--db"), db}
                                        + adminArgs());
        QVERIFY2(text.out.contains("kubectl-label(Update)") && text.out.contains("by bob"), text.out.constData());
    }

    // A cluster whose policy logs no bodies (Metadata only): no event carries the resulting
    // resourceVersion, so each version joins by object, field manager and second, and still to
    // the right person, marked probable. The writes go through a second API server of the test
    // cluster started with that policy (scripts/fieldscope-cluster start-metadata-apiserver).
    void metadataOnlyPolicyJoinsProbablyToTheRightPeople()
    {
        QProcess start;
        start.start(qEnvironmentVariable("FIELDSCOPE_CLUSTER_SCRIPT"),
                    {QStringLiteral("start-metadata-apiserver"), clusterDir()});
        QVERIFY(start.waitForFinished(180000));
        QVERIFY2(start.exitCode() == 0, start.readAllStandardError().constData());
        const QString port = QString::fromLatin1(start.readAllStandardOutput().trimmed());
        auto stop = qScopeGuard([] {
            QProcess::execute(qEnvironmentVariable("FIELDSCOPE_CLUSTER_SCRIPT"),
                              {QStringLiteral("stop-metadata-apiserver"), clusterDir()});
        });
        Kubectl k;
        QVERIFY(k.makeNamespace(QStringLiteral("fs-md-")));
        k.server = QStringLiteral("https://127.0.0.1:") + port;
        QTemporaryDir dir;
        const QString db = dir.filePath(QStringLiteral("md.db"));
        Recorder recorder;
        QVERIFY2(recorder.start(k.ns, db), recorder.err.constData());
        QCOMPARE(failed(k.run(kAlice, QStringList{QStringLiteral("create")} + kFromStdin,
                              configMap("app", "  a: \"1\"\n"))),
                 QByteArray());
        QCOMPARE(failed(k.run(kBob, {QStringLiteral("label"), QStringLiteral("configmap"), QStringLiteral("app"),
                                     QStringLiteral("tier=web")})),
                 QByteArray());
        QCOMPARE(failed(k.run(ctxToken(),
                              {QStringLiteral("annotate"), QStringLiteral("configmap"), QStringLiteral("app"),
                               QStringLiteral("deployed=yes"), QStringLiteral("--as"),
                               QStringLiteral("system:serviceaccount:") + k.ns + QStringLiteral(":deployer")})),
                 QByteArray());
        QTest::qWait(1200); // the same manager again: in another second, as people are
        QCOMPARE(failed(k.run(kAlice, {QStringLiteral("annotate"), QStringLiteral("configmap"), QStringLiteral("app"),
                                       QStringLiteral("owner=alice")})),
                 QByteArray());
        QVERIFY2(recorder.stop(), recorder.err.constData());
        const QString log = clusterDir() + QStringLiteral("/logs/metadata-audit.log");
        const QStringList expected = {QStringLiteral("ADDED alice probable"), QStringLiteral("MODIFIED bob probable"),
                                      QStringLiteral("MODIFIED system:serviceaccount:") + k.ns
                                          + QStringLiteral(":deployer probable"),
                                      QStringLiteral("MODIFIED alice probable")};
        QStringList lines;
        for (int attempt = 0; attempt < 20 && lines != expected; ++attempt) {
            if (attempt > 0)
                QTest::qWait(500); // the log backend writes as each request ends
            const auto imported = runFieldscope({QStringLiteral("audit"), QStringLiteral("import"), log,
                                                 QStringLiteral("--db"), db});
            QVERIFY2(imported.exitCode == 0, imported.err.constData());
            lines = whoLines(history(k.ns, db));
        }
        QVERIFY2(lines == expected,
                 (lines.join(QStringLiteral("; ")).toStdString() + "\n" + history(k.ns, db).dump(1)).c_str());
        // Nothing of a body reached that log: the policy is what the join had to work with.
        QFile f(log);
        QVERIFY(f.open(QIODevice::ReadOnly));
        QVERIFY(!f.readAll().contains("\"responseObject\""));
    }
};

QTEST_GUILESS_MAIN(TestAuditWho)
#include "tst_audit_who.moc"
