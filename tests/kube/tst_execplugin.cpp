// exec credential plugins and CredentialProvider (k8s.io/client-go/plugin/pkg/client/auth/exec), with real scripts.
#include "kube/credentials.h"
#include "kube/execconsent.h"
#include "kube/execplugin.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include <atomic>
#include <map>
#include <mutex>

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
        QString name = m_dir.filePath(QStringLiteral("plugin-%1.sh").arg(++m_script));
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
        return "cat <<'EOF'\n{\"apiVersion\":\"" + apiVersion + "\",\"kind\":\"ExecCredential\",\"status\":{" + status
             + "}}\nEOF\n";
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
        CredentialProvider p(execConfig(script(tokenOutput(apiVersion, kSecret) + "echo 'progress: logged in' >&2\n"),
                                        apiVersion.constData()),
                             allowing());
        auto c = p.current();
        QVERIFY2(c.ok(), c.ok() ? "" : c.error().describe().c_str());
        QCOMPARE(QByteArray::fromStdString(c->bearerToken), QByteArray(kSecret));
        QVERIFY(!c->expiry);
        QCOMPARE(QString::fromStdString(p.lastDiagnostics()), QStringLiteral("progress: logged in"));
    }

    void execPluginClientCertificateIsReturned()
    {
        CredentialProvider p(
            execConfig(
                script("printf '%s' '{\"apiVersion\":\"client.authentication.k8s.io/v1\",\"kind\":\"ExecCredential\","
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
        QTest::newRow("wrong apiVersion")
            << tokenOutput(kExecApiV1beta1, kSecret)
            << "is configured to use API version client.authentication.k8s.io/v1, plugin returned version "
               "client.authentication.k8s.io/v1beta1";
        QTest::newRow("certificate without key") << QByteArray(
            "echo '{\"apiVersion\":\"client.authentication.k8s.io/v1\",\"kind\":\"ExecCredential\",\"status\":{\"clientCertificateData\":\"C\"}}'\n")
                                                 << "returned only certificate or key, not both";
        QTest::newRow("no status")
            << QByteArray("echo '{\"apiVersion\":\"client.authentication.k8s.io/v1\",\"kind\":\"ExecCredential\"}'\n")
            << "didn't return a status field";
        QTest::newRow("empty status") << QByteArray(
            "echo '{\"apiVersion\":\"client.authentication.k8s.io/v1\",\"kind\":\"ExecCredential\",\"status\":{}}'\n")
                                      << "didn't return a token or cert/key pair";
        QTest::newRow("truncated JSON quoting the token")
            << "printf '{\"apiVersion\":\"client.authentication.k8s.io/v1\",\"status\":{\"token\":\""
                   + QByteArray(kSecret) + "'\n"
            << "wrote output that is not JSON";
        QTest::newRow("exit code with token on stdout")
            << "echo '" + QByteArray(kSecret) + "'; echo 'login required' >&2; exit 3\n"
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
        QVERIFY2(describe(c.error()).contains(QLatin1String("requires a terminal (interactiveMode: Always)")),
                 qPrintable(describe(c.error())));
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
        ResolvedConfig rc = execConfig(script("printf '%s' \"$KUBERNETES_EXEC_INFO\" > '" + infoFile.toUtf8()
                                              + "'\nprintf '%s|%s' \"$FOO\" \"$HOME\" > '" + envFile.toUtf8() + "'\n"
                                              + tokenOutput(kExecApiV1, kSecret)));
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
        core::Json expected = {
            {"kind", "ExecCredential"}, {"apiVersion", kExecApiV1}, {"spec", {{"interactive", false}}}};
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

    // The question shows everything the plugin gets (README.md, Security), escaped and masked.
    void consentRequestDescribesEverythingThePluginGets()
    {
        ResolvedConfig rc = execConfig(script(tokenOutput(kExecApiV1, kSecret)));
        rc.auth.exec.args = {"get-token", "--server-id", "a b",
                             "evil\xe2\x80\xae"
                             "fdp.exe"};
        rc.auth.exec.env = {{"CLIENT_SECRET", "do-not-show"},
                            {"LD_PRELOAD", "/tmp/x.so"},
                            {"NODE_OPTIONS", "--require /tmp/y.js"},
                            {"REGION", "eu\x1b[31m-west"}};
        rc.auth.exec.provideClusterInfo = true;
        std::optional<ExecConsentRequest> seen;
        CredentialOptions o;
        o.askConsent = [&](const ExecConsentRequest &r, const ConsentReply &reply) {
            seen = r;
            reply(ConsentAnswer::Allow);
        };
        CredentialProvider p(rc, o);
        QVERIFY(p.current().ok());
        QVERIFY(seen);
        QCOMPARE(QString::fromStdString(seen->server), QStringLiteral("https://api.example:6443"));
        std::map<std::string, ExecConsentLine> lines;
        for (const auto &l : seen->description.lines)
            lines[l.label] = l;
        QCOMPARE(QString::fromStdString(lines["kubeconfig"].value), QStringLiteral("/home/u/.kube/config"));
        QCOMPARE(QString::fromStdString(lines["context"].value), QStringLiteral("ctx"));
        QCOMPARE(QString::fromStdString(lines["user"].value), QStringLiteral("sso"));
        QCOMPARE(QString::fromStdString(lines["server"].value), QStringLiteral("https://api.example:6443"));
        QCOMPARE(QString::fromStdString(lines["command"].value), QString::fromStdString(rc.auth.exec.command));
        // The right-to-left override would show "exe.pdf" reversed: it is a visible escape instead.
        QCOMPARE(QString::fromStdString(lines["arguments"].value),
                 QStringLiteral("get-token --server-id 'a b' 'evil\\u202efdp.exe'"));
        QCOMPARE(QString::fromStdString(lines["env CLIENT_SECRET"].value),
                 QStringLiteral("(hidden: the name looks secret)"));
        QVERIFY(!lines["env CLIENT_SECRET"].warning);
        QCOMPARE(QString::fromStdString(lines["env LD_PRELOAD"].value), QStringLiteral("/tmp/x.so"));
        QVERIFY(lines["env LD_PRELOAD"].warning);
        QVERIFY(lines["env NODE_OPTIONS"].warning);
        QCOMPARE(QString::fromStdString(lines["env REGION"].value), QStringLiteral("eu\\u001b[31m-west"));
        QVERIFY(!lines["env REGION"].warning);
        QCOMPARE(QString::fromStdString(lines["provideClusterInfo"].value), QStringLiteral("yes"));
        const QString text = QString::fromStdString(seen->description.text());
        QVERIFY2(!text.contains(QLatin1String("do-not-show")), qPrintable(text));
        QVERIFY2(text.contains(QLatin1String("! env LD_PRELOAD")), qPrintable(text));
        for (QChar c : text)
            QVERIFY2(c == u'\n' || (c.category() != QChar::Other_Control && c.category() != QChar::Other_Format),
                     qPrintable(text));
        QCOMPARE(seen->fingerprint.size(), std::size_t(64));
    }

    void visibleEscapesShowControlBidiAndBrokenUtf8_data()
    {
        QTest::addColumn<QByteArray>("in");
        QTest::addColumn<QString>("out");
        QTest::newRow("plain") << QByteArray("aws eks get-token") << QStringLiteral("aws eks get-token");
        QTest::newRow("accents stay") << QByteArray("caf\xc3\xa9") << QStringLiteral("caf\u00e9");
        QTest::newRow("RLO") << QByteArray("a\xe2\x80\xae"
                                           "b")
                             << QStringLiteral("a\\u202eb");
        QTest::newRow("LRE..PDF") << QByteArray("\xe2\x80\xaa\xe2\x80\xac") << QStringLiteral("\\u202a\\u202c");
        QTest::newRow("isolates") << QByteArray("\xe2\x81\xa6x\xe2\x81\xa9") << QStringLiteral("\\u2066x\\u2069");
        QTest::newRow("newline and escape") << QByteArray("a\nb\x1b[0m") << QStringLiteral("a\\u000ab\\u001b[0m");
        QTest::newRow("DEL") << QByteArray("a\x7f") << QStringLiteral("a\\u007f");
        QTest::newRow("C1 NEL") << QByteArray("a\xc2\x85") << QStringLiteral("a\\u0085");
        QTest::newRow("zero-width space") << QByteArray("a\xe2\x80\x8b"
                                                        "b")
                                          << QStringLiteral("a\\u200bb");
        QTest::newRow("invalid byte") << QByteArray("a\xff"
                                                    "b")
                                      << QStringLiteral("a\\xffb");
        QTest::newRow("overlong slash") << QByteArray("\xc0\xaf") << QStringLiteral("\\xc0\\xaf");
        QTest::newRow("truncated sequence") << QByteArray("x\xe2\x80") << QStringLiteral("x\\xe2\\x80");
    }
    void visibleEscapesShowControlBidiAndBrokenUtf8()
    {
        QFETCH(QByteArray, in);
        QFETCH(QString, out);
        QCOMPARE(QString::fromStdString(visibleEscapes(in.toStdString())), out);
    }

    void envNamesAreClassified_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<bool>("secret");
        QTest::addColumn<bool>("changesWhatRuns");
        QTest::newRow("AWS_SECRET_ACCESS_KEY") << "AWS_SECRET_ACCESS_KEY" << true << false;
        QTest::newRow("github_token") << "github_token" << true << false;
        QTest::newRow("DB_PASSWORD") << "DB_PASSWORD" << true << false;
        QTest::newRow("GOOGLE_APPLICATION_CREDENTIALS") << "GOOGLE_APPLICATION_CREDENTIALS" << true << false;
        QTest::newRow("LD_PRELOAD") << "LD_PRELOAD" << false << true;
        QTest::newRow("LD_LIBRARY_PATH") << "LD_LIBRARY_PATH" << false << true;
        QTest::newRow("DYLD_INSERT_LIBRARIES") << "DYLD_INSERT_LIBRARIES" << false << true;
        QTest::newRow("PATH") << "PATH" << false << true;
        QTest::newRow("BASH_ENV") << "BASH_ENV" << false << true;
        QTest::newRow("ENV") << "ENV" << false << true;
        QTest::newRow("NODE_OPTIONS") << "NODE_OPTIONS" << false << true;
        QTest::newRow("JAVA_TOOL_OPTIONS") << "JAVA_TOOL_OPTIONS" << false << true;
        QTest::newRow("PYTHONPATH") << "PYTHONPATH" << false << true;
        QTest::newRow("PERL5OPT") << "PERL5OPT" << false << true;
        QTest::newRow("GIT_SSH_COMMAND") << "GIT_SSH_COMMAND" << false << true;
        QTest::newRow("BASH_FUNC_x%%") << "BASH_FUNC_x%%" << false << true;
        QTest::newRow("REGION") << "REGION" << false << false;
        QTest::newRow("AWS_PROFILE") << "AWS_PROFILE" << false << false;
    }
    void envNamesAreClassified()
    {
        QFETCH(QString, name);
        QFETCH(bool, secret);
        QFETCH(bool, changesWhatRuns);
        QCOMPARE(envNameLooksSecret(name.toStdString()), secret);
        QCOMPARE(envNameChangesWhatRuns(name.toStdString()), changesWhatRuns);
    }

    // The same stanza aimed at another server (or changed in anything shown) asks again.
    void consentIsBoundToEverythingShown_data()
    {
        QTest::addColumn<QString>("change");
        for (const char *c : {"server", "kubeconfig file", "context", "user", "argument", "env value", "env name",
                              "provideClusterInfo", "cluster config", "command"})
            QTest::newRow(c) << QString::fromLatin1(c);
    }
    void consentIsBoundToEverythingShown()
    {
        QFETCH(QString, change);
        auto store = std::make_shared<InMemoryConsentStore>();
        int asked = 0;
        CredentialOptions o;
        o.consentStore = store;
        o.askConsent = [&](const ExecConsentRequest &, const ConsentReply &reply) {
            ++asked;
            reply(ConsentAnswer::Allow);
        };
        ResolvedConfig rc = execConfig(script(tokenOutput(kExecApiV1, kSecret)));
        rc.auth.exec.args = {"get-token"};
        rc.auth.exec.env = {{"REGION", "eu"}};
        rc.auth.exec.provideClusterInfo = true;
        rc.execClusterConfig = core::Json{{"audience", "a"}};
        QVERIFY(CredentialProvider(rc, o).current().ok());
        QVERIFY(CredentialProvider(rc, o).current().ok());
        QCOMPARE(asked, 1); // unchanged: remembered
        ResolvedConfig other = rc;
        if (change == QLatin1String("server"))
            other.server = "https://attacker.example:6443";
        else if (change == QLatin1String("kubeconfig file"))
            other.auth.sourceFile = "/tmp/downloaded-kubeconfig";
        else if (change == QLatin1String("context"))
            other.contextName = "prod";
        else if (change == QLatin1String("user"))
            other.auth.userName = "admin";
        else if (change == QLatin1String("argument"))
            other.auth.exec.args = {"get-token", "--evil"};
        else if (change == QLatin1String("env value"))
            other.auth.exec.env = {{"REGION", "us"}};
        else if (change == QLatin1String("env name"))
            other.auth.exec.env = {{"REGION", "eu"}, {"LD_PRELOAD", "/tmp/x.so"}};
        else if (change == QLatin1String("provideClusterInfo"))
            other.auth.exec.provideClusterInfo = false;
        else if (change == QLatin1String("cluster config"))
            other.execClusterConfig = core::Json{{"audience", "b"}};
        else if (change == QLatin1String("command"))
            other.auth.exec.command = script(tokenOutput(kExecApiV1, kSecret)).toStdString();
        QVERIFY(CredentialProvider(other, o).current().ok());
        QCOMPARE(asked, 2);
        QCOMPARE(int(store->decisions().size()), 2);
    }

    // Go's exec.LookPath refuses "." and relative PATH entries (ErrDot): a plugin named in a
    // kubeconfig never runs from the working directory.
    void relativePathEntriesAreNeverSearched_data()
    {
        QTest::addColumn<QString>("path");
        QTest::newRow("dot first") << QStringLiteral(".:/usr/bin:/bin");
        QTest::newRow("empty entry") << QStringLiteral(":/usr/bin");
        QTest::newRow("relative folder") << QStringLiteral("bin:/usr/bin");
    }
    void relativePathEntriesAreNeverSearched()
    {
        QFETCH(QString, path);
        QTemporaryDir cwd;
        QVERIFY(QDir(cwd.path()).mkdir(QStringLiteral("bin")));
        const QString pwned = cwd.filePath(QStringLiteral("PWNED"));
        for (const QString &where : {cwd.path(), cwd.filePath(QStringLiteral("bin"))}) {
            QFile f(where + QStringLiteral("/fieldscope-fake-plugin"));
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write("#!/bin/sh\ntouch '" + pwned.toUtf8() + "'\n" + tokenOutput(kExecApiV1, kSecret));
            f.close();
            f.setPermissions(QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ExeOwner);
        }
        const QString before = QDir::currentPath();
        QVERIFY(QDir::setCurrent(cwd.path()));
        CredentialOptions o = allowing();
        o.environment.insert(QStringLiteral("PATH"), path);
        CredentialProvider p(execConfig(QStringLiteral("fieldscope-fake-plugin")), o);
        auto c = p.current();
        QVERIFY(QDir::setCurrent(before));
        QVERIFY(!c.ok());
        QCOMPARE(QString::fromStdString(c.error().reason), QStringLiteral("ExecPluginNotFound"));
        QVERIFY2(describe(c.error()).contains(QLatin1String("relative PATH entry")), qPrintable(describe(c.error())));
        QVERIFY(!QFile::exists(pwned));

        // The same program in an absolute PATH entry is found.
        o.environment.insert(QStringLiteral("PATH"),
                             cwd.filePath(QStringLiteral("bin")) + QStringLiteral(":/usr/bin:/bin"));
        CredentialProvider q(execConfig(QStringLiteral("fieldscope-fake-plugin")), o);
        QVERIFY(q.current().ok());
    }

    void denialIsRememberedAndNeverRunsThePlugin()
    {
        QString runs;
        auto store = std::make_shared<InMemoryConsentStore>();
        int asked = 0;
        CredentialOptions o;
        o.consentStore = store;
        o.askConsent = [&](const ExecConsentRequest &, const ConsentReply &reply) {
            ++asked;
            reply(ConsentAnswer::Deny);
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
        QCOMPARE(int(store->decisions().size()), 1);
        QVERIFY(!store->decisions().front().allowed);
        QCOMPARE(QString::fromStdString(store->decisions().front().server), QStringLiteral("https://api.example:6443"));
        QCOMPARE(QString::fromStdString(store->decisions().front().contextName), QStringLiteral("ctx"));
    }

    // The question stays open while the user thinks: requests wait (not fail), nothing blocks, and
    // one answer serves every waiting request with one plugin run.
    void openQuestionKeepsRequestsPendingWithoutBlocking()
    {
        QString runs;
        std::optional<ConsentReply> pendingReply;
        int asked = 0;
        CredentialOptions o;
        o.askConsent = [&](const ExecConsentRequest &, ConsentReply reply) {
            ++asked;
            pendingReply = std::move(reply);
        };
        o.execTimeout = std::chrono::seconds(20);
        CredentialProvider p(execConfig(script(tokenOutput(kExecApiV1, kSecret), &runs)), o);
        std::mutex m;
        std::vector<core::Result<AuthCredential>> delivered;
        auto waiter = [&](core::Result<AuthCredential> c) {
            std::lock_guard lock(m);
            delivered.push_back(std::move(c));
        };
        QElapsedTimer t;
        t.start();
        QVERIFY(!p.current(waiter).has_value());
        QVERIFY(!p.current(waiter).has_value());
        QVERIFY(t.elapsed() < 500);
        QCOMPARE(asked, 1);
        QVERIFY(p.isAskingConsent());
        // The blocking form does not wait for a person either.
        auto blocking = p.current();
        QVERIFY(!blocking.ok());
        QCOMPARE(QString::fromStdString(blocking.error().reason), QStringLiteral("ConsentPending"));
        QCOMPARE(runCount(runs), 0);

        (*pendingReply)(ConsentAnswer::Allow); // e.g. from the GUI thread, much later
        QTRY_COMPARE_WITH_TIMEOUT(([&] {
                                      std::lock_guard lock(m);
                                      return int(delivered.size());
                                  }()),
                                  2, 20000);
        std::lock_guard lock(m);
        for (const auto &c : delivered) {
            QVERIFY(c.ok());
            QCOMPARE(QByteArray::fromStdString(c->bearerToken), QByteArray(kSecret));
        }
        QCOMPARE(runCount(runs), 1);
        (*pendingReply)(ConsentAnswer::Deny); // a second click changes nothing
        QVERIFY(p.current().ok());
    }

    void notNowFailsTheWaitingRequestsAndIsNotRemembered()
    {
        QString runs;
        auto store = std::make_shared<InMemoryConsentStore>();
        std::optional<ConsentReply> pendingReply;
        int asked = 0;
        CredentialOptions o;
        o.consentStore = store;
        o.askConsent = [&](const ExecConsentRequest &, ConsentReply reply) {
            ++asked;
            pendingReply = std::move(reply);
        };
        CredentialProvider p(execConfig(script(tokenOutput(kExecApiV1, kSecret), &runs)), o);
        std::optional<core::Result<AuthCredential>> delivered;
        QVERIFY(!p.current([&](core::Result<AuthCredential> c) { delivered = std::move(c); }).has_value());
        (*pendingReply)(ConsentAnswer::NotNow); // the tab was closed
        QVERIFY(delivered.has_value());
        QVERIFY(!delivered->ok());
        QCOMPARE(QString::fromStdString(delivered->error().reason), QStringLiteral("ConsentNotGiven"));
        QVERIFY(store->decisions().empty());
        QVERIFY(!p.current([](const core::Result<AuthCredential> &) {}).has_value());
        QCOMPARE(asked, 2); // asked again
        QCOMPARE(runCount(runs), 0);
    }

    void aLateReplyAfterTheProviderIsGoneIsIgnored()
    {
        std::optional<ConsentReply> pendingReply;
        CredentialOptions o;
        o.askConsent = [&](const ExecConsentRequest &, ConsentReply reply) { pendingReply = std::move(reply); };
        std::optional<core::Result<AuthCredential>> delivered;
        {
            CredentialProvider p(execConfig(script(tokenOutput(kExecApiV1, kSecret))), o);
            QVERIFY(!p.current([&](core::Result<AuthCredential> c) { delivered = std::move(c); }).has_value());
        }
        QVERIFY(delivered.has_value()); // the closed connection cancelled the waiting request
        QCOMPARE(delivered->error().category, ErrorCategory::Cancelled);
        (*pendingReply)(ConsentAnswer::Allow); // the prompt answered after its tab closed: no effect, no crash
    }

    // --allow-exec-plugins: this run only, over an earlier Deny, remembering nothing.
    void allowThisRunOverridesAStoredDenyAndRemembersNothing()
    {
        QString runs;
        auto store = std::make_shared<InMemoryConsentStore>();
        const ResolvedConfig rc = execConfig(script(tokenOutput(kExecApiV1, kSecret), &runs));
        auto inv = prepareExec(rc, QProcessEnvironment::systemEnvironment());
        QVERIFY(inv.ok());
        store->remember({inv->fingerprint(), false, rc.auth.sourceFile, rc.contextName, rc.auth.userName, rc.server,
                         inv->program, QDateTime::currentDateTimeUtc()});
        CredentialOptions o;
        o.consentStore = store;
        o.allowExecPluginsThisRun = true;
        o.askConsent = [](const ExecConsentRequest &, const ConsentReply &) { QFAIL("must not ask"); };
        QVERIFY(CredentialProvider(rc, o).current().ok());
        QCOMPARE(runCount(runs), 1);
        QCOMPARE(int(store->decisions().size()), 1);
        QVERIFY(!store->decisions().front().allowed); // still the earlier answer
        o.allowExecPluginsThisRun = false;
        auto c = CredentialProvider(rc, o).current();
        QVERIFY(!c.ok());
        QCOMPARE(QString::fromStdString(c.error().reason), QStringLiteral("ConsentDenied"));
        QVERIFY2(describe(c.error()).contains(QLatin1String("fieldscope consent forget ")
                                              + QString::fromStdString(inv->fingerprint().substr(0, 12))),
                 qPrintable(describe(c.error())));
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

    // A plugin waiting for a browser login does not hold the caller, and closing the connection
    // stops it at once instead of after the timeout.
    void aRunningPluginNeitherBlocksNorOutlivesItsProvider()
    {
        QString runs;
        CredentialOptions o = allowing();
        o.execTimeout = std::chrono::seconds(60);
        const QString started = m_dir.filePath(QStringLiteral("slow-started"));
        auto p = std::make_unique<CredentialProvider>(execConfig(script("touch '" + started.toUtf8() + "'\nsleep 30\n"
                                                                            + tokenOutput(kExecApiV1, kSecret),
                                                                        &runs)),
                                                      o);
        std::atomic<int> cancelled{0};
        QElapsedTimer t;
        t.start();
        QVERIFY(!p->current([&](core::Result<AuthCredential> c) {
                      if (!c.ok() && c.error().category == ErrorCategory::Cancelled)
                          ++cancelled;
                  }).has_value());
        QVERIFY(t.elapsed() < 500);
        QTRY_VERIFY_WITH_TIMEOUT(QFile::exists(started), 10000);
        t.restart();
        p.reset();
        QVERIFY2(t.elapsed() < 3000, qPrintable(QString::number(t.elapsed())));
        QCOMPARE(cancelled.load(), 1);
    }

    void consentIdsResolveFromUniquePrefixes()
    {
        std::vector<ConsentRecord> records(2);
        records[0].fingerprint = std::string(60, 'a') + "0000";
        records[1].fingerprint = std::string(60, 'a') + "1111";
        records.push_back({});
        records[2].fingerprint = "b" + std::string(63, '0');
        QCOMPARE(QString::fromStdString(*findConsent(records, "b000")), QString::fromStdString(records[2].fingerprint));
        QCOMPARE(QString::fromStdString(*findConsent(records, "B000")), QString::fromStdString(records[2].fingerprint));
        QVERIFY(!findConsent(records, "aaaa").ok()); // ambiguous
        QVERIFY(describe(findConsent(records, "aaaa").error()).contains(QLatin1String("matches 2")));
        QVERIFY(!findConsent(records, "cccc").ok());
        QVERIFY(!findConsent(records, "b0").ok()); // too short
        QVERIFY(!findConsent(records, "zzzz").ok());
        QCOMPARE(QString::fromStdString(consentId(records[2])), QStringLiteral("b00000000000"));
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
        auto inv = prepareExec(rc.auth.exec, execClusterInfo(rc), QProcessEnvironment::systemEnvironment(),
                               rc.auth.sourceFile, rc.auth.userName);
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
        auto inv = prepareExec(rc.auth.exec, core::Json(), QProcessEnvironment::systemEnvironment(), rc.auth.sourceFile,
                               rc.auth.userName);
        QVERIFY(inv.ok());
        ExecPluginProcess proc;
        QSignalSpy spy(&proc, &ExecPluginProcess::finished);
        proc.start(*inv, std::chrono::milliseconds(200));
        QVERIFY(spy.wait(5000));
        QVERIFY(!proc.outcome().credential.ok());
        QCOMPARE(QString::fromStdString(proc.outcome().credential.error().reason), QStringLiteral("ExecPluginTimeout"));
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
