// exec credential plugins and CredentialProvider (API brief 6.3, 6.4, 6.6), with real scripts.
#include "kube/credentials.h"
#include "kube/execplugin.h"

#include <QElapsedTimer>
#include <QFile>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

using namespace fieldscope;
using namespace fieldscope::kube;
using core::ErrorCategory;

namespace {

constexpr const char *kSecret = "tok-9f8e7d6c5b4a-SECRET";

QString describe(const core::Error &e)
{
    return QString::fromStdString(e.describe());
}

} // namespace

class TestExecPlugin : public QObject
{
    Q_OBJECT
private:
    QTemporaryDir m_dir;
    int m_script = 0;

    // Writes an executable /bin/sh script that counts its runs in <dir>/runs-N and returns its path.
    QString script(const QByteArray &body, QString *runsFile = nullptr)
    {
        const QString name = m_dir.filePath(QStringLiteral("plugin-%1.sh").arg(++m_script));
        const QString runs = m_dir.filePath(QStringLiteral("runs-%1").arg(m_script));
        QFile f(name);
        if (!f.open(QIODevice::WriteOnly))
            qFatal("cannot write %s", qPrintable(name));
        f.write("#!/bin/sh\necho run >> '" + runs.toUtf8() + "'\n" + body);
        f.close();
        f.setPermissions(QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ExeOwner);
        if (runsFile)
            *runsFile = runs;
        return name;
    }

    static int runCount(const QString &runsFile)
    {
        QFile f(runsFile);
        if (!f.open(QIODevice::ReadOnly))
            return 0;
        return int(f.readAll().count('\n'));
    }

    static QByteArray tokenOutput(const QByteArray &apiVersion, const QByteArray &token, const QByteArray &expiry = {})
    {
        QByteArray status = "\"token\":\"" + token + "\"";
        if (!expiry.isEmpty())
            status += ",\"expirationTimestamp\":\"" + expiry + "\"";
        return "cat <<'EOF'\n{\"apiVersion\":\"" + apiVersion + "\",\"kind\":\"ExecCredential\",\"status\":{" + status + "}}\nEOF\n";
    }

    static ResolvedConfig execConfig(const QString &command, const char *apiVersion = kExecApiV1)
    {
        ResolvedConfig rc;
        rc.contextName = "ctx";
        rc.server = "https://api.example:6443";
        rc.caPem = "CA-PEM";
        rc.auth.method = AuthMethod::Exec;
        rc.auth.userName = "sso";
        rc.auth.sourceFile = "/home/u/.kube/config";
        rc.auth.exec.apiVersion = apiVersion;
        rc.auth.exec.command = command.toStdString();
        rc.auth.exec.interactiveMode = ExecInteractiveMode::IfAvailable;
        rc.auth.exec.installHint = "";
        return rc;
    }

    static CredentialOptions allowing()
    {
        CredentialOptions o;
        o.askConsent = allowAllExecPlugins();
        o.execTimeout = std::chrono::seconds(20);
        return o;
    }

private Q_SLOTS:
    void execPluginTokenIsReturned_data()
    {
        QTest::addColumn<QByteArray>("apiVersion");
        QTest::newRow("v1") << QByteArray(kExecApiV1);
        QTest::newRow("v1beta1") << QByteArray(kExecApiV1beta1);
    }
    void execPluginTokenIsReturned()
    {
        QFETCH(QByteArray, apiVersion);
        CredentialProvider p(execConfig(script(tokenOutput(apiVersion, kSecret) + "echo 'progress: logged in' >&2\n"), apiVersion.constData()), allowing());
        auto c = p.current();
        QVERIFY2(c.ok(), c.ok() ? "" : c.error().describe().c_str());
        QCOMPARE(QByteArray::fromStdString(c->bearerToken), QByteArray(kSecret));
        QVERIFY(!c->expiry);
        QCOMPARE(QString::fromStdString(p.lastDiagnostics()), QStringLiteral("progress: logged in"));
    }

    void execPluginClientCertificateIsReturned()
    {
        CredentialProvider p(execConfig(script("printf '%s' '{\"apiVersion\":\"client.authentication.k8s.io/v1\",\"kind\":\"ExecCredential\","
                                               "\"status\":{\"clientCertificateData\":\"CERT\",\"clientKeyData\":\"KEY\"}}'\n")),
                             allowing());
        auto c = p.current();
        QVERIFY2(c.ok(), c.ok() ? "" : c.error().describe().c_str());
        QCOMPARE(c->clientCertificatePem, QByteArray("CERT"));
        QCOMPARE(c->clientKeyPem, QByteArray("KEY"));
        QVERIFY(c->bearerToken.empty());
    }

    void execCredentialIsCachedUntilExpiry()
    {
        QString runs;
        QDateTime now = QDateTime(QDate(2029, 12, 31), QTime(23, 0), Qt::UTC);
        CredentialOptions o = allowing();
        o.now = [&now] { return now; };
        CredentialProvider p(execConfig(script(tokenOutput(kExecApiV1, kSecret, "2030-01-01T00:00:00Z"), &runs)), o);
        auto first = p.current();
        QVERIFY(first.ok());
        QCOMPARE(*first->expiry, QDateTime(QDate(2030, 1, 1), QTime(0, 0), Qt::UTC));
        auto second = p.current();
        QVERIFY(second.ok());
        QCOMPARE(runCount(runs), 1);
        QCOMPARE(second->generation, first->generation);
        now = QDateTime(QDate(2030, 1, 1), QTime(0, 0, 1), Qt::UTC);
        auto third = p.current();
        QVERIFY(third.ok());
        QCOMPARE(runCount(runs), 2);
    }

    void invalidateAfter401RerunsPluginOnce()
    {
        QString runs;
        CredentialProvider p(execConfig(script(tokenOutput(kExecApiV1, kSecret), &runs)), allowing());
        auto first = p.current();
        QVERIFY(first.ok());
        QVERIFY(p.current().ok());
        QCOMPARE(runCount(runs), 1); // no expirationTimestamp: kept until a 401
        QVERIFY(p.invalidate(first->generation));
        auto second = p.current();
        QVERIFY(second.ok());
        QCOMPARE(runCount(runs), 2);
        QVERIFY(second->generation > first->generation);
        // A second 401 from a request sent with the old credential: someone already refreshed.
        QVERIFY(p.invalidate(first->generation));
        QVERIFY(p.current().ok());
        QCOMPARE(runCount(runs), 2);
    }

    void badPluginOutputIsRejected_data()
    {
        QTest::addColumn<QByteArray>("body");
        QTest::addColumn<QString>("message");
        QTest::newRow("wrong apiVersion") << tokenOutput(kExecApiV1beta1, kSecret)
                                          << "is configured to use API version client.authentication.k8s.io/v1, plugin returned version "
                                             "client.authentication.k8s.io/v1beta1";
        QTest::newRow("certificate without key")
            << QByteArray("echo '{\"apiVersion\":\"client.authentication.k8s.io/v1\",\"kind\":\"ExecCredential\",\"status\":{\"clientCertificateData\":\"C\"}}'\n")
            << "returned only certificate or key, not both";
        QTest::newRow("no status") << QByteArray("echo '{\"apiVersion\":\"client.authentication.k8s.io/v1\",\"kind\":\"ExecCredential\"}'\n")
                                   << "didn't return a status field";
        QTest::newRow("empty status") << QByteArray("echo '{\"apiVersion\":\"client.authentication.k8s.io/v1\",\"kind\":\"ExecCredential\",\"status\":{}}'\n")
                                      << "didn't return a token or cert/key pair";
        QTest::newRow("truncated JSON quoting the token") << "printf '{\"apiVersion\":\"client.authentication.k8s.io/v1\",\"status\":{\"token\":\"" +
                                                                 QByteArray(kSecret) + "'\n"
                                                          << "wrote output that is not JSON";
        QTest::newRow("exit code with token on stdout") << "echo '" + QByteArray(kSecret) + "'; echo 'login required' >&2; exit 3\n"
                                                        << "failed with exit code 3: login required";
        QTest::newRow("bad expiry") << tokenOutput(kExecApiV1, kSecret, "tomorrow") << "invalid expirationTimestamp";
    }
    void badPluginOutputIsRejected()
    {
        QFETCH(QByteArray, body);
        QFETCH(QString, message);
        CredentialProvider p(execConfig(script(body)), allowing());
        auto c = p.current();
        QVERIFY(!c.ok());
        QCOMPARE(c.error().category, ErrorCategory::Auth);
        QVERIFY2(describe(c.error()).contains(message), qPrintable(describe(c.error())));
        QVERIFY2(!describe(c.error()).contains(QLatin1String(kSecret)), qPrintable(describe(c.error())));
    }

    void missingPluginShowsInstallHint()
    {
        ResolvedConfig rc = execConfig(QStringLiteral("fieldscope-no-such-plugin"));
        rc.auth.exec.installHint = "\x1b[1mInstall it:\x1b[0m apt install fieldscope-plugin";
        CredentialOptions o = allowing();
        CredentialProvider p(rc, o);
        auto c = p.current();
        QVERIFY(!c.ok());
        QCOMPARE(QString::fromStdString(c.error().reason), QStringLiteral("ExecPluginNotFound"));
        const QString text = describe(c.error());
        QVERIFY2(text.contains(QLatin1String("executable fieldscope-no-such-plugin not found")), qPrintable(text));
        QVERIFY2(text.contains(QLatin1String("Install it: apt install fieldscope-plugin")), qPrintable(text));
        QVERIFY(!text.contains(QLatin1Char('\x1b')));
    }

    void interactiveModeAlwaysIsRefused()
    {
        QString runs;
        ResolvedConfig rc = execConfig(script(tokenOutput(kExecApiV1, kSecret), &runs));
        rc.auth.exec.interactiveMode = ExecInteractiveMode::Always;
        CredentialProvider p(rc, allowing());
        auto c = p.current();
        QVERIFY(!c.ok());
        QVERIFY2(describe(c.error()).contains(QLatin1String("requires a terminal (interactiveMode: Always)")), qPrintable(describe(c.error())));
        QCOMPARE(runCount(runs), 0);
    }

    void execInfoCarriesClusterOnlyWithProvideClusterInfo_data()
    {
        QTest::addColumn<bool>("provideClusterInfo");
        QTest::newRow("with cluster info") << true;
        QTest::newRow("without cluster info") << false;
    }
    void execInfoCarriesClusterOnlyWithProvideClusterInfo()
    {
        QFETCH(bool, provideClusterInfo);
        const QString infoFile = m_dir.filePath(QStringLiteral("exec-info-%1.json").arg(provideClusterInfo));
        const QString envFile = m_dir.filePath(QStringLiteral("env-%1.txt").arg(provideClusterInfo));
        ResolvedConfig rc = execConfig(script("printf '%s' \"$KUBERNETES_EXEC_INFO\" > '" + infoFile.toUtf8() + "'\nprintf '%s|%s' \"$FOO\" \"$HOME\" > '" +
                                              envFile.toUtf8() + "'\n" + tokenOutput(kExecApiV1, kSecret)));
        rc.auth.exec.provideClusterInfo = provideClusterInfo;
        rc.auth.exec.env = {{"FOO", "bar"}};
        rc.tlsServerName = "api.internal";
        rc.execClusterConfig = core::Json{{"audience", "06e3fbd18de8"}};
        CredentialOptions o = allowing();
        o.environment.insert(QStringLiteral("HOME"), QStringLiteral("/home/fieldscope-test"));
        CredentialProvider p(rc, o);
        QVERIFY(p.current().ok());

        QFile f(infoFile);
        QVERIFY(f.open(QIODevice::ReadOnly));
        auto info = core::parseJson(f.readAll().toStdString());
        QVERIFY(info.ok());
        core::Json expected = {{"kind", "ExecCredential"}, {"apiVersion", kExecApiV1}, {"spec", {{"interactive", false}}}};
        if (provideClusterInfo)
            expected["spec"]["cluster"] = {{"server", "https://api.example:6443"},
                                           {"tls-server-name", "api.internal"},
                                           {"certificate-authority-data", "Q0EtUEVN"},
                                           {"config", {{"audience", "06e3fbd18de8"}}}};
        QCOMPARE(QString::fromStdString(core::toJsonText(*info)), QString::fromStdString(core::toJsonText(expected)));

        // The parent environment is passed on, plus `env`.
        QFile e(envFile);
        QVERIFY(e.open(QIODevice::ReadOnly));
        QCOMPARE(e.readAll(), QByteArray("bar|/home/fieldscope-test"));
    }

    void consentRequestDescribesWhatWouldRun()
    {
        ResolvedConfig rc = execConfig(script(tokenOutput(kExecApiV1, kSecret)));
        rc.auth.exec.args = {"get-token", "--server-id", "a b"};
        rc.auth.exec.env = {{"CLIENT_SECRET", "do-not-show"}};
        std::optional<ExecConsentRequest> seen;
        CredentialOptions o;
        o.askConsent = [&](const ExecConsentRequest &r) {
            seen = r;
            return ConsentDecision::Allow;
        };
        CredentialProvider p(rc, o);
        QVERIFY(p.current().ok());
        QVERIFY(seen);
        QCOMPARE(QString::fromStdString(seen->kubeconfigFile), QStringLiteral("/home/u/.kube/config"));
        QCOMPARE(QString::fromStdString(seen->userName), QStringLiteral("sso"));
        QCOMPARE(QString::fromStdString(seen->commandLine), QString::fromStdString(rc.auth.exec.command) + QStringLiteral(" get-token --server-id 'a b'"));
        QCOMPARE(seen->addedEnvNames, (std::vector<std::string>{"CLIENT_SECRET", "KUBERNETES_EXEC_INFO"}));
        QVERIFY(!QString::fromStdString(seen->consentKey).contains(QLatin1String("do-not-show")));
    }

    void deniedConsentNeverRunsThePlugin()
    {
        QString runs;
        auto store = std::make_shared<InMemoryConsentStore>();
        int asked = 0;
        CredentialOptions o;
        o.consentStore = store;
        o.askConsent = [&](const ExecConsentRequest &) {
            ++asked;
            return ConsentDecision::Deny;
        };
        CredentialProvider p(execConfig(script(tokenOutput(kExecApiV1, kSecret), &runs)), o);
        for (int i = 0; i < 2; ++i) {
            auto c = p.current();
            QVERIFY(!c.ok());
            QCOMPARE(c.error().category, ErrorCategory::Auth);
            QCOMPARE(QString::fromStdString(c.error().reason), QStringLiteral("ConsentDenied"));
        }
        QCOMPARE(asked, 1); // the denial is remembered
        QCOMPARE(runCount(runs), 0);
    }

    void pendingConsentFailsWithWaitingMessageAndDoesNotRun()
    {
        QString runs;
        auto store = std::make_shared<InMemoryConsentStore>();
        CredentialOptions o;
        o.consentStore = store;
        o.askConsent = [](const ExecConsentRequest &) { return ConsentDecision::Pending; };
        const QString command = script(tokenOutput(kExecApiV1, kSecret), &runs);
        CredentialProvider p(execConfig(command), o);
        auto c = p.current();
        QVERIFY(!c.ok());
        QCOMPARE(QString::fromStdString(c.error().reason), QStringLiteral("ConsentPending"));
        QVERIFY2(describe(c.error()).contains(QLatin1String("waiting for consent to run the exec credential plugin ") + command), qPrintable(describe(c.error())));
        QCOMPARE(runCount(runs), 0);
        // The dialog answers through the store; the retried request then runs the plugin.
        auto inv = prepareExec(p.config().auth.exec, core::Json(), o.environment, p.config().auth.sourceFile, "sso");
        QVERIFY(inv.ok());
        store->remember(p.config().auth.sourceFile, inv->consentKey(), true);
        QVERIFY(p.current().ok());
        QCOMPARE(runCount(runs), 1);
    }

    void consentIsRememberedPerFileAndCommand()
    {
        auto store = std::make_shared<InMemoryConsentStore>();
        int asked = 0;
        CredentialOptions o;
        o.consentStore = store;
        o.askConsent = [&](const ExecConsentRequest &) {
            ++asked;
            return ConsentDecision::Allow;
        };
        const ResolvedConfig rc = execConfig(script(tokenOutput(kExecApiV1, kSecret)));
        QVERIFY(CredentialProvider(rc, o).current().ok());
        QVERIFY(CredentialProvider(rc, o).current().ok());
        QCOMPARE(asked, 1);
        ResolvedConfig otherFile = rc;
        otherFile.auth.sourceFile = "/tmp/downloaded-kubeconfig";
        QVERIFY(CredentialProvider(otherFile, o).current().ok());
        QCOMPARE(asked, 2);
        ResolvedConfig otherArgs = rc;
        otherArgs.auth.exec.args = {"--evil"};
        QVERIFY(CredentialProvider(otherArgs, o).current().ok());
        QCOMPARE(asked, 3);
    }

    void noConsentCallbackMeansNotAllowed()
    {
        QString runs;
        CredentialProvider p(execConfig(script(tokenOutput(kExecApiV1, kSecret), &runs)), CredentialOptions{});
        auto c = p.current();
        QVERIFY(!c.ok());
        QVERIFY(describe(c.error()).contains(QLatin1String("has not been allowed to run")));
        QCOMPARE(runCount(runs), 0);
    }

    void slowPluginIsStoppedAtTimeout()
    {
        CredentialOptions o = allowing();
        o.execTimeout = std::chrono::milliseconds(300);
        CredentialProvider p(execConfig(script("sleep 10\n" + tokenOutput(kExecApiV1, kSecret))), o);
        QElapsedTimer t;
        t.start();
        auto c = p.current();
        QVERIFY(!c.ok());
        QCOMPARE(QString::fromStdString(c.error().reason), QStringLiteral("ExecPluginTimeout"));
        QVERIFY(t.elapsed() < 5000);
    }

    void asyncRunReportsThroughFinishedSignal()
    {
        ResolvedConfig rc = execConfig(script(tokenOutput(kExecApiV1, kSecret, "2030-01-01T00:00:00.5+01:00")));
        auto inv = prepareExec(rc.auth.exec, execClusterInfo(rc), QProcessEnvironment::systemEnvironment(), rc.auth.sourceFile, rc.auth.userName);
        QVERIFY(inv.ok());
        ExecPluginProcess proc;
        QSignalSpy spy(&proc, &ExecPluginProcess::finished);
        proc.start(*inv, std::chrono::seconds(20));
        QVERIFY(spy.wait(20000));
        QCOMPARE(spy.count(), 1);
        QVERIFY(proc.outcome().credential.ok());
        QCOMPARE(QByteArray::fromStdString(proc.outcome().credential->token), QByteArray(kSecret));
        QCOMPARE(*proc.outcome().credential->expiry, QDateTime(QDate(2029, 12, 31), QTime(23, 0, 0, 500), Qt::UTC));
    }

    void asyncRunTimesOut()
    {
        ResolvedConfig rc = execConfig(script("sleep 10\n"));
        auto inv = prepareExec(rc.auth.exec, core::Json(), QProcessEnvironment::systemEnvironment(), rc.auth.sourceFile, rc.auth.userName);
        QVERIFY(inv.ok());
        ExecPluginProcess proc;
        QSignalSpy spy(&proc, &ExecPluginProcess::finished);
        proc.start(*inv, std::chrono::milliseconds(200));
        QVERIFY(spy.wait(5000));
        QVERIFY(!proc.outcome().credential.ok());
        QCOMPARE(QString::fromStdString(proc.outcome().credential.error().reason), QStringLiteral("ExecPluginTimeout"));
    }

    void tokenFileRotationIsPickedUp()
    {
        const QString path = m_dir.filePath(QStringLiteral("token"));
        auto write = [&](const QByteArray &token) {
            QFile f(path);
            QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
            f.write(token + "\n");
        };
        write("first-token");
        ResolvedConfig rc;
        rc.auth.method = AuthMethod::TokenFile;
        rc.auth.tokenFile = path.toStdString();
        CredentialOptions o;
        o.fileCheckInterval = std::chrono::milliseconds(0);
        CredentialProvider p(rc, o);
        auto a = p.current();
        QVERIFY(a.ok());
        QCOMPARE(QString::fromStdString(a->bearerToken), QStringLiteral("first-token"));
        QCOMPARE(p.current()->generation, a->generation);

        write("second-token-rotated");
        auto b = p.current();
        QVERIFY(b.ok());
        QCOMPARE(QString::fromStdString(b->bearerToken), QStringLiteral("second-token-rotated"));
        QVERIFY(b->generation > a->generation);

        // A rotation caught mid-way (file gone) keeps the last good token instead of failing requests.
        QVERIFY(QFile::remove(path));
        QVERIFY(p.invalidate(b->generation));
        auto c = p.current();
        QVERIFY(c.ok());
        QCOMPARE(QString::fromStdString(c->bearerToken), QStringLiteral("second-token-rotated"));
    }

    void tokenFileIsRereadAfterMaxAgeEvenWhenUnchangedOnDisk()
    {
        const QString path = m_dir.filePath(QStringLiteral("token-age"));
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("aaaa");
        f.close();
        ResolvedConfig rc;
        rc.auth.method = AuthMethod::TokenFile;
        rc.auth.tokenFile = path.toStdString();
        CredentialOptions o;
        o.fileCheckInterval = std::chrono::milliseconds(0);
        o.fileMaxAge = std::chrono::milliseconds(0);
        CredentialProvider p(rc, o);
        QCOMPARE(QString::fromStdString(p.current()->bearerToken), QStringLiteral("aaaa"));
        // Same size, modification time forced back: only the age rule can notice.
        const QDateTime mtime = QFileInfo(path).lastModified();
        QVERIFY(f.open(QIODevice::ReadWrite));
        f.write("bbbb");
        QVERIFY(f.setFileTime(mtime, QFileDevice::FileModificationTime));
        f.close();
        QCOMPARE(QString::fromStdString(p.current()->bearerToken), QStringLiteral("bbbb"));
    }

    void staticCredentialsAreNotRefreshedOn401()
    {
        ResolvedConfig rc;
        rc.auth.method = AuthMethod::Token;
        rc.auth.token = kSecret;
        CredentialProvider p(rc);
        auto c = p.current();
        QVERIFY(c.ok());
        QCOMPARE(QByteArray::fromStdString(c->bearerToken), QByteArray(kSecret));
        QVERIFY(!p.invalidate(c->generation));
    }

    void clientCertificateFilesAreRereadWhenTheyChange()
    {
        const QString cert = m_dir.filePath(QStringLiteral("c.crt"));
        const QString key = m_dir.filePath(QStringLiteral("c.key"));
        auto write = [](const QString &path, const QByteArray &data) {
            QFile f(path);
            QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
            f.write(data);
        };
        write(cert, "CERT-1");
        write(key, "KEY-1");
        ResolvedConfig rc;
        rc.auth.method = AuthMethod::ClientCertificate;
        rc.auth.clientCertificatePem = "CERT-1";
        rc.auth.clientKeyPem = "KEY-1";
        rc.auth.clientCertificateFile = cert.toStdString();
        rc.auth.clientKeyFile = key.toStdString();
        CredentialOptions o;
        o.fileCheckInterval = std::chrono::milliseconds(0);
        CredentialProvider p(rc, o);
        auto a = p.current();
        QVERIFY(a.ok());
        write(cert, "CERT-2-rotated");
        write(key, "KEY-2-rotated");
        auto b = p.current();
        QVERIFY(b.ok());
        QCOMPARE(b->clientCertificatePem, QByteArray("CERT-2-rotated"));
        QCOMPARE(b->clientKeyPem, QByteArray("KEY-2-rotated"));
        QVERIFY(b->generation > a->generation);
    }
    // The token goes into a header: a line break inside it (not the usual trailing one) is refused,
    // and a tokenFile that is not a regular file is refused without hanging.
    void tokenFileWithALineBreakInsideOrNotARegularFileIsRefused()
    {
        const QString path = m_dir.filePath(QStringLiteral("token-crlf"));
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("tok-SECRET\r\nX-Evil: 1\n");
        f.close();
        ResolvedConfig rc;
        rc.auth.method = AuthMethod::TokenFile;
        rc.auth.tokenFile = path.toStdString();
        auto c = CredentialProvider(rc).current();
        QVERIFY(!c.ok());
        QVERIFY2(describe(c.error()).contains(QLatin1String("line break")), qPrintable(describe(c.error())));
        QVERIFY(!describe(c.error()).contains(QLatin1String("SECRET")));

        rc.auth.tokenFile = "/dev/zero";
        QElapsedTimer t;
        t.start();
        auto z = CredentialProvider(rc).current();
        QVERIFY(t.elapsed() < 1000);
        QVERIFY(!z.ok());
        QVERIFY2(describe(z.error()).contains(QLatin1String("regular file")), qPrintable(describe(z.error())));
    }

    void execPluginTokenWithALineBreakIsRefused()
    {
        CredentialProvider p(execConfig(script(tokenOutput(kExecApiV1, "tok-SECRET\\r\\nX-Evil: 1"))), allowing());
        auto c = p.current();
        QVERIFY(!c.ok());
        QVERIFY2(describe(c.error()).contains(QLatin1String("line break")), qPrintable(describe(c.error())));
        QVERIFY(!describe(c.error()).contains(QLatin1String("SECRET")));
    }
};

QTEST_GUILESS_MAIN(TestExecPlugin)
#include "tst_execplugin.moc"
