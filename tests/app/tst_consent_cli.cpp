// `fieldscope consent list|forget` and the command line's exec-plugin consent, run as scripts
// run them, without a cluster: one store shared with the window (QSettings under
// XDG_CONFIG_HOME/fieldscope), a non-interactive refusal is not remembered, and
// --allow-exec-plugins runs the plugin for that run even over an earlier Deny.
#include "kube/credentials.h"
#include "kube/execplugin.h"
#include "kube/kubeconfig.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QSettings>
#include <QTemporaryDir>
#include <QTest>

using namespace fieldscope;

namespace {

struct Run {
    int code = -1;
    QByteArray out, err;
};

class Sandbox
{
public:
    Sandbox()
    {
        m_env = QProcessEnvironment::systemEnvironment();
        m_env.insert(QStringLiteral("XDG_CONFIG_HOME"), m_dir.filePath(QStringLiteral("config")));
        m_env.insert(QStringLiteral("HOME"), m_dir.path());
        m_env.remove(QStringLiteral("KUBECONFIG"));
    }
    Run fieldscope(const QStringList &args) const
    {
        QProcess p;
        p.setProcessEnvironment(m_env);
        p.start(QStringLiteral(FIELDSCOPE_BUILD_DIR "/app/fieldscope"), args);
        p.waitForFinished(30000);
        return {p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1, p.readAllStandardOutput(),
                p.readAllStandardError()};
    }
    // The file the window and the subcommands share (organisation and application "fieldscope").
    QString settingsFile() const { return m_dir.filePath(QStringLiteral("config/fieldscope/fieldscope.conf")); }
    void remember(const kube::ConsentRecord &r) const
    {
        QDir().mkpath(QFileInfo(settingsFile()).path());
        QSettings s(settingsFile(), QSettings::IniFormat);
        s.beginGroup(QStringLiteral("execPluginConsent/") + QString::fromStdString(r.fingerprint));
        s.setValue(QStringLiteral("allowed"), r.allowed);
        s.setValue(QStringLiteral("kubeconfig"), QString::fromStdString(r.kubeconfigFile));
        s.setValue(QStringLiteral("context"), QString::fromStdString(r.contextName));
        s.setValue(QStringLiteral("user"), QString::fromStdString(r.userName));
        s.setValue(QStringLiteral("server"), QString::fromStdString(r.server));
        s.setValue(QStringLiteral("program"), QString::fromStdString(r.program));
        s.setValue(QStringLiteral("when"), r.when.toString(Qt::ISODate));
    }
    QString path(const QString &name) const { return m_dir.filePath(name); }

private:
    QTemporaryDir m_dir;
    QProcessEnvironment m_env;
};

kube::ConsentRecord record(char digit, bool allowed, const std::string &file, const std::string &context)
{
    kube::ConsentRecord r;
    r.fingerprint = std::string(63, 'e') + digit;
    r.allowed = allowed;
    r.kubeconfigFile = file;
    r.contextName = context;
    r.userName = "sso";
    r.server = "https://api." + context + ".example:6443";
    r.program = "/usr/bin/kubelogin";
    r.when = QDateTime(QDate(2026, 3, 1), QTime(9, 30), Qt::UTC);
    return r;
}

} // namespace

class TestConsentCli : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void consentListShowsOneDecisionALine()
    {
        Sandbox box;
        box.remember(record('1', true, "/home/u/.kube/config", "prod"));
        box.remember(record('2', false, "/tmp/colleague.yaml", "stage"));
        const Run r = box.fieldscope({QStringLiteral("consent"), QStringLiteral("list")});
        QCOMPARE(r.code, 0);
        const QList<QByteArray> lines = r.out.trimmed().split('\n');
        QCOMPARE(lines.size(), 3); // header + one per decision
        const QByteArray allow = lines[1].contains("prod") ? lines[1] : lines[2];
        const QByteArray deny = lines[1].contains("prod") ? lines[2] : lines[1];
        for (const char *part : {"eeeeeeeeeeee", "allow", "/home/u/.kube/config", "prod", "/usr/bin/kubelogin",
                                 "https://api.prod.example:6443", "2026-03-01T09:30:00Z"})
            QVERIFY2(allow.contains(part), allow.constData());
        for (const char *part : {"deny", "/tmp/colleague.yaml", "stage", "https://api.stage.example:6443"})
            QVERIFY2(deny.contains(part), deny.constData());
    }

    void consentListAsJson()
    {
        Sandbox box;
        box.remember(record('1', true, "/home/u/.kube/config", "prod"));
        const Run r = box.fieldscope({QStringLiteral("consent"), QStringLiteral("list"), QStringLiteral("-o"),
                                      QStringLiteral("json")});
        QCOMPARE(r.code, 0);
        QJsonParseError err;
        const QJsonArray a = QJsonDocument::fromJson(r.out, &err).array();
        QCOMPARE(err.error, QJsonParseError::NoError);
        QCOMPARE(a.size(), 1);
        const QJsonObject o = a[0].toObject();
        QCOMPARE(o[QStringLiteral("decision")].toString(), QStringLiteral("allow"));
        QCOMPARE(o[QStringLiteral("kubeconfig")].toString(), QStringLiteral("/home/u/.kube/config"));
        QCOMPARE(o[QStringLiteral("context")].toString(), QStringLiteral("prod"));
        QCOMPARE(o[QStringLiteral("command")].toString(), QStringLiteral("/usr/bin/kubelogin"));
        QCOMPARE(o[QStringLiteral("server")].toString(), QStringLiteral("https://api.prod.example:6443"));
        QCOMPARE(o[QStringLiteral("when")].toString(), QStringLiteral("2026-03-01T09:30:00Z"));
        QCOMPARE(o[QStringLiteral("id")].toString(), QStringLiteral("eeeeeeeeeeee"));
        QCOMPARE(o[QStringLiteral("fingerprint")].toString().size(), 64);
    }

    void consentForgetByIdAndAll()
    {
        Sandbox box;
        box.remember(record('1', true, "/a", "prod"));
        box.remember(record('2', false, "/b", "stage"));
        box.remember(record('3', true, "/c", "dev"));
        const QString second = QString::fromStdString(std::string(60, 'e') + "eee2");
        QCOMPARE(box.fieldscope({QStringLiteral("consent"), QStringLiteral("forget"), second}).code, 0);
        Run r = box.fieldscope({QStringLiteral("consent"), QStringLiteral("list")});
        QVERIFY(!r.out.contains("stage"));
        QVERIFY(r.out.contains("prod") && r.out.contains("dev"));
        // An ambiguous prefix names nothing; an unknown one is an error too.
        r = box.fieldscope({QStringLiteral("consent"), QStringLiteral("forget"), QStringLiteral("eeee")});
        QCOMPARE(r.code, 2);
        QVERIFY2(r.err.contains("matches 2"), r.err.constData());
        QCOMPARE(box.fieldscope({QStringLiteral("consent"), QStringLiteral("forget"), QStringLiteral("abcd")}).code, 2);
        QCOMPARE(box.fieldscope({QStringLiteral("consent"), QStringLiteral("forget")}).code, 2);
        r = box.fieldscope({QStringLiteral("consent"), QStringLiteral("forget"), QStringLiteral("--all")});
        QCOMPARE(r.code, 0);
        QVERIFY2(r.err.contains("Forgot 2 decisions"), r.err.constData());
        r = box.fieldscope({QStringLiteral("consent"), QStringLiteral("list"), QStringLiteral("-o"),
                            QStringLiteral("json")});
        QCOMPARE(QJsonDocument::fromJson(r.out).array().size(), 0);
    }

    // A plugin on the command line: shown in full and refused without asking (nobody can answer),
    // that refusal not remembered; --allow-exec-plugins runs it for that run, over a stored Deny.
    void commandLineRefusalIsNotRememberedAndTheFlagRunsOverADeny()
    {
        Sandbox box;
        const QString marker = box.path(QStringLiteral("plugin-ran"));
        const QString plugin = box.path(QStringLiteral("plugin.sh"));
        {
            QFile f(plugin);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write(
                "#!/bin/sh\ntouch '" + marker.toUtf8()
                + "'\necho '{\"apiVersion\":\"client.authentication.k8s.io/v1\",\"kind\":\"ExecCredential\",\"status\":{\"token\":\"t\"}}'\n");
            f.close();
            f.setPermissions(QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ExeOwner);
        }
        const QString kubeconfig = box.path(QStringLiteral("kubeconfig"));
        {
            QFile f(kubeconfig);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write(
                "apiVersion: v1\nkind: Config\ncurrent-context: c\n"
                "clusters: [{name: k, cluster: {server: 'https://127.0.0.1:9', insecure-skip-tls-verify: true}}]\n"
                "contexts: [{name: c, context: {cluster: k, user: u}}]\n"
                "users: [{name: u, user: {exec: {apiVersion: client.authentication.k8s.io/v1, interactiveMode: Never, command: '"
                + plugin.toUtf8() + "', args: [get-token], env: [{name: LD_PRELOAD, value: /tmp/evil.so}]}}}]\n");
        }
        const QStringList list{QStringLiteral("list"), QStringLiteral("namespaces"), QStringLiteral("--kubeconfig"),
                               kubeconfig};
        Run r = box.fieldscope(list);
        QVERIFY(r.code != 0);
        QVERIFY(!QFile::exists(marker));
        for (const char *part : {"server:", "https://127.0.0.1:9", "arguments:", "get-token", "! env LD_PRELOAD",
                                 "can change what runs", "--allow-exec-plugins"})
            QVERIFY2(r.err.contains(part), r.err.constData());
        r = box.fieldscope({QStringLiteral("consent"), QStringLiteral("list"), QStringLiteral("-o"),
                            QStringLiteral("json")});
        QCOMPARE(QJsonDocument::fromJson(r.out).array().size(), 0); // not remembered

        // A Deny remembered for exactly this invocation (as the window would store it).
        kube::LoadOptions lo;
        lo.explicitPath = kubeconfig.toStdString();
        auto kc = kube::Kubeconfig::load(lo);
        QVERIFY(kc.ok());
        auto rc = kc->resolve();
        QVERIFY(rc.ok());
        auto inv = kube::prepareExec(*rc, QProcessEnvironment::systemEnvironment());
        QVERIFY(inv.ok());
        box.remember({inv->fingerprint(), false, inv->kubeconfigFile, inv->contextName, inv->userName, inv->server,
                      inv->program, QDateTime::currentDateTimeUtc()});
        r = box.fieldscope(list);
        QVERIFY(r.code != 0);
        QVERIFY2(r.err.contains("denied earlier"), r.err.constData());
        QVERIFY(!QFile::exists(marker));

        r = box.fieldscope(QStringList(list) << QStringLiteral("--allow-exec-plugins"));
        QVERIFY(QFile::exists(marker)); // ran (the unreachable server then fails the command)
        r = box.fieldscope({QStringLiteral("consent"), QStringLiteral("list"), QStringLiteral("-o"),
                            QStringLiteral("json")});
        const QJsonArray a = QJsonDocument::fromJson(r.out).array();
        QCOMPARE(a.size(), 1);
        QCOMPARE(a[0].toObject()[QStringLiteral("decision")].toString(), QStringLiteral("deny")); // unchanged
    }
};

QTEST_GUILESS_MAIN(TestConsentCli)
#include "tst_consent_cli.moc"
