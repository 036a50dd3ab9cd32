// kubeconfig loading, merging and resolution (k8s.io/client-go/tools/clientcmd); hostile files
// are tst_kubeconfig_hostile.
#include "kube/kubeconfig.h"
#include "kubeconfigfiles.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

using namespace fieldscope;
using namespace fieldscope::kube;
using core::ErrorCategory;
using testing::kubeEnv;
using testing::writeFile;

namespace {

// Cleaned: the loader reports clean absolute paths and FIELDSCOPE_TEST_DATA contains "..".
const QString kData = QDir::cleanPath(QStringLiteral(FIELDSCOPE_TEST_DATA "/kubeconfig"));

QString fixture(const QString &name)
{
    return kData + QLatin1Char('/') + name;
}

QString describe(const core::Error &e)
{
    return QString::fromStdString(e.describe());
}
} // namespace

class TestKubeconfig : public QObject
{
    Q_OBJECT
private:
    QTemporaryDir m_home; // an empty HOME: no ~/.kube/config

private Q_SLOTS:
    void kubeconfigListMergesFirstDefinitionWins_data()
    {
        QTest::addColumn<QString>("list"); // file names separated by ':'
        QTest::addColumn<QString>("current");
        QTest::addColumn<QString>("sharedServer");
        QTest::addColumn<QString>("sharedUserToken");
        QTest::addColumn<QString>("contexts");
        QTest::addColumn<QString>("sharedContextNamespace");
        QTest::newRow("a b c") << "a:b:c"
                               << "ctx-b"
                               << "https://a.example:6443"
                               << "token-from-a"
                               << "ctx-a,ctx-shared,ctx-b,ctx-c"
                               << "default";
        QTest::newRow("b a: b wins everything it defines") << "b:a"
                                                           << "ctx-b"
                                                           << "https://b.example:6443"
                                                           << "token-from-b"
                                                           << "ctx-b,ctx-shared,ctx-a"
                                                           << "b-ns";
        QTest::newRow("c first sets current-context") << "c:a:b"
                                                      << "ctx-c"
                                                      << "https://a.example:6443"
                                                      << "token-from-a"
                                                      << "ctx-c,ctx-a,ctx-shared,ctx-b"
                                                      << "default";
        QTest::newRow("duplicates, empty and missing entries ignored") << "a::b:a:missing:c:"
                                                                       << "ctx-b"
                                                                       << "https://a.example:6443"
                                                                       << "token-from-a"
                                                                       << "ctx-a,ctx-shared,ctx-b,ctx-c"
                                                                       << "default";
    }
    void kubeconfigListMergesFirstDefinitionWins()
    {
        QFETCH(QString, list);
        QFETCH(QString, current);
        QFETCH(QString, sharedServer);
        QFETCH(QString, sharedUserToken);
        QFETCH(QString, contexts);
        QFETCH(QString, sharedContextNamespace);
        QStringList paths;
        for (const QString &n : list.split(QLatin1Char(':')))
            paths << (n.isEmpty() ? QString()
                                  : fixture(QStringLiteral("merge/") + n
                                            + (n == QLatin1String("missing") ? QString() : QStringLiteral(".yaml"))));
        LoadOptions o;
        o.environment = kubeEnv({{"KUBECONFIG", paths.join(QLatin1Char(':'))}}, m_home.path());
        auto kc = Kubeconfig::load(o);
        QVERIFY2(kc.ok(), kc.ok() ? "" : kc.error().describe().c_str());
        QCOMPARE(QString::fromStdString(kc->currentContext()), current);
        QVERIFY(kc->warnings().empty()); // some files exist: a missing one is not worth a warning
        QCOMPARE(QString::fromStdString(kc->cluster("shared")->server), sharedServer);
        QCOMPARE(QString::fromStdString(kc->user("shared-user")->token), sharedUserToken);
        QStringList names;
        for (const auto &c : kc->contexts())
            names << QString::fromStdString(c.name);
        QCOMPARE(names.join(QLatin1Char(',')), contexts);
        auto rc = kc->resolve("ctx-shared");
        QVERIFY2(rc.ok(), rc.ok() ? "" : rc.error().describe().c_str());
        QCOMPARE(QString::fromStdString(rc->namespace_), sharedContextNamespace);
    }

    void laterFileNeverFillsFieldsTheFirstDefinitionLacks()
    {
        // b's shared-user has "as" and b's shared cluster a CA and tls-server-name; a's entries win whole.
        LoadOptions o;
        o.environment = kubeEnv({{"KUBECONFIG", fixture(QStringLiteral("merge/a.yaml")) + QLatin1Char(':')
                                                    + fixture(QStringLiteral("merge/b.yaml"))}},
                                m_home.path());
        auto kc = Kubeconfig::load(o);
        QVERIFY(kc.ok());
        QVERIFY(kc->user("shared-user")->impersonate.empty());
        QVERIFY(kc->cluster("shared")->certificateAuthorityData.isEmpty());
        QVERIFY(kc->cluster("shared")->tlsServerName.empty());
        auto rc = kc->resolve("ctx-a");
        QVERIFY(rc.ok());
        QVERIFY(rc->insecureSkipTlsVerify);
        QCOMPARE(rc->auth.method, AuthMethod::Token);
        QCOMPARE(QString::fromStdString(rc->sourceFile), fixture(QStringLiteral("merge/a.yaml")));
    }

    void allKubeconfigFilesMissingGivesOneWarning()
    {
        LoadOptions o;
        o.environment = kubeEnv({{"KUBECONFIG", m_home.filePath(QStringLiteral("nope1")) + QLatin1Char(':')
                                                    + m_home.filePath(QStringLiteral("nope2"))}},
                                m_home.path());
        auto kc = Kubeconfig::load(o);
        QVERIFY(kc.ok());
        QCOMPARE(int(kc->warnings().size()), 1);
        QVERIFY(QString::fromStdString(kc->warnings().front()).contains(QLatin1String("nope2")));
        QVERIFY(kc->contexts().empty());
        auto rc = kc->resolve();
        QVERIFY(!rc.ok());
        QCOMPARE(rc.error().category, ErrorCategory::Config);
        QVERIFY(describe(rc.error()).contains(QLatin1String("no contexts are defined")));
    }

    void unparsableFileInListIsAnError()
    {
        LoadOptions o;
        o.environment = kubeEnv({{"KUBECONFIG", fixture(QStringLiteral("merge/a.yaml")) + QLatin1Char(':')
                                                    + fixture(QStringLiteral("malformed.yaml"))}},
                                m_home.path());
        auto kc = Kubeconfig::load(o);
        QVERIFY(!kc.ok());
        QCOMPARE(kc.error().category, ErrorCategory::Parse);
    }

    void malformedYamlNamesFileAndLine()
    {
        LoadOptions o;
        o.explicitPath = fixture(QStringLiteral("malformed.yaml")).toStdString();
        o.environment = kubeEnv({}, m_home.path());
        auto kc = Kubeconfig::load(o);
        QVERIFY(!kc.ok());
        QCOMPARE(kc.error().category, ErrorCategory::Parse);
        const QString where = QString::fromStdString(kc.error().where);
        QVERIFY2(where.startsWith(fixture(QStringLiteral("malformed.yaml"))), qPrintable(where));
        QVERIFY2(where.contains(QLatin1String("line ")), qPrintable(where));
    }

    void explicitFileIsUsedAloneAndMustExist()
    {
        LoadOptions o;
        o.explicitPath = fixture(QStringLiteral("merge/c.yaml")).toStdString();
        o.environment = kubeEnv({{"KUBECONFIG", fixture(QStringLiteral("merge/a.yaml"))}}, m_home.path());
        auto kc = Kubeconfig::load(o);
        QVERIFY(kc.ok());
        QCOMPARE(int(kc->contexts().size()), 1);
        QCOMPARE(QString::fromStdString(kc->currentContext()), QStringLiteral("ctx-c"));

        o.explicitPath = m_home.filePath(QStringLiteral("absent.yaml")).toStdString();
        kc = Kubeconfig::load(o);
        QVERIFY(!kc.ok());
        QCOMPARE(kc.error().category, ErrorCategory::Config);
        QVERIFY(describe(kc.error()).contains(QLatin1String("absent.yaml")));
    }

    void homeKubeConfigIsTheDefault()
    {
        QTemporaryDir home;
        QDir(home.path()).mkpath(QStringLiteral(".kube"));
        QVERIFY(QFile::copy(fixture(QStringLiteral("merge/c.yaml")), home.filePath(QStringLiteral(".kube/config"))));
        LoadOptions o;
        o.environment = kubeEnv({}, home.path());
        auto kc = Kubeconfig::load(o);
        QVERIFY(kc.ok());
        QCOMPARE(QString::fromStdString(kc->currentContext()), QStringLiteral("ctx-c"));
    }

    void emptyFileIsAnEmptyConfig()
    {
        auto kc = Kubeconfig::fromYaml("# nothing yet\n", "/tmp/empty");
        QVERIFY(kc.ok());
        QVERIFY(kc->contexts().empty());
    }

    void relativePathsResolveAgainstTheirFile()
    {
        // Load from another working directory: paths follow the file, not the process.
        const QString oldCwd = QDir::currentPath();
        QDir::setCurrent(m_home.path());
        LoadOptions o;
        o.environment = kubeEnv({{"KUBECONFIG", fixture(QStringLiteral("relative/config"))}}, m_home.path());
        auto kc = Kubeconfig::load(o);
        QDir::setCurrent(oldCwd);
        QVERIFY(kc.ok());
        const QString dir = fixture(QStringLiteral("relative"));
        auto rc = kc->resolve();
        QVERIFY2(rc.ok(), rc.ok() ? "" : rc.error().describe().c_str());
        QCOMPARE(QString::fromStdString(rc->caFile), dir + QStringLiteral("/certs/ca.crt"));
        QVERIFY(rc->caPem.startsWith("-----BEGIN CERTIFICATE-----"));
        QCOMPARE(rc->auth.method, AuthMethod::TokenFile);
        QCOMPARE(QString::fromStdString(rc->auth.tokenFile), dir + QStringLiteral("/token.txt"));
        // A command with a slash is a path relative to the file; a bare name is left for PATH.
        QCOMPARE(QString::fromStdString(kc->user("plugin")->exec->command), dir + QStringLiteral("/bin/plugin"));
        QCOMPARE(QString::fromStdString(kc->user("path-plugin")->exec->command), QStringLiteral("kubelogin"));
    }

    void certificateAuthorityDataWinsOverFileWithWarning()
    {
        auto kc = Kubeconfig::fromYaml(
            "clusters:\n"
            "- name: c\n"
            "  cluster: {server: \"https://x:6443\", certificate-authority: /nonexistent/ca.crt, certificate-authority-data: \"aGVsbG8=\"}\n"
            "contexts:\n"
            "- name: ctx\n"
            "  context: {cluster: c}\n",
            "/tmp/kc");
        QVERIFY(kc.ok());
        auto rc = kc->resolve("ctx");
        QVERIFY2(rc.ok(), rc.ok() ? "" : rc.error().describe().c_str());
        QCOMPARE(rc->caPem, QByteArray("hello"));
        QCOMPARE(int(rc->warnings.size()), 1);
        QVERIFY(
            QString::fromStdString(rc->warnings.front()).contains(QLatin1String("certificate-authority-data is used")));
        QCOMPARE(rc->auth.method, AuthMethod::None);
    }

    void clientCertificateFromDataAndFromFile()
    {
        QTemporaryDir dir;
        writeFile(dir.filePath(QStringLiteral("client.crt")), "CERT-FROM-FILE");
        writeFile(dir.filePath(QStringLiteral("client.key")), "KEY-FROM-FILE");
        auto kc = Kubeconfig::fromYaml("clusters:\n"
                                       "- name: c\n"
                                       "  cluster: {server: \"https://x:6443\"}\n"
                                       "users:\n"
                                       "- name: data\n"
                                       "  user: {client-certificate-data: Q0VSVA==, client-key-data: \"S0VZ\"}\n"
                                       "- name: files\n"
                                       "  user: {client-certificate: client.crt, client-key: client.key}\n"
                                       "contexts:\n"
                                       "- {name: data, context: {cluster: c, user: data}}\n"
                                       "- {name: files, context: {cluster: c, user: files}}\n",
                                       dir.filePath(QStringLiteral("config")).toStdString());
        QVERIFY(kc.ok());
        auto data = kc->resolve("data");
        QVERIFY(data.ok());
        QCOMPARE(data->auth.method, AuthMethod::ClientCertificate);
        QCOMPARE(data->auth.clientCertificatePem, QByteArray("CERT"));
        QCOMPARE(data->auth.clientKeyPem, QByteArray("KEY"));
        auto files = kc->resolve("files");
        QVERIFY(files.ok());
        QCOMPARE(files->auth.clientCertificatePem, QByteArray("CERT-FROM-FILE"));
        QCOMPARE(files->auth.clientKeyPem, QByteArray("KEY-FROM-FILE"));
        QCOMPARE(QString::fromStdString(files->auth.clientCertificateFile), dir.filePath(QStringLiteral("client.crt")));
    }

    void clientCertificateAndKeyDataWinOverTheirFilesWithAWarningEach()
    {
        auto kc = Kubeconfig::fromYaml(
            "clusters:\n"
            "- name: c\n"
            "  cluster: {server: \"https://x:6443\"}\n"
            "users:\n"
            "- name: both\n"
            "  user: {client-certificate-data: Q0VSVA==, client-certificate: /nonexistent/client.crt,\n"
            "         client-key-data: \"S0VZ\", client-key: /nonexistent/client.key}\n"
            "contexts:\n"
            "- {name: both, context: {cluster: c, user: both}}\n",
            "/tmp/kc");
        QVERIFY(kc.ok());
        auto rc = kc->resolve("both");
        QVERIFY2(rc.ok(), rc.ok() ? "" : rc.error().describe().c_str());
        QCOMPARE(rc->auth.method, AuthMethod::ClientCertificate);
        QCOMPARE(rc->auth.clientCertificatePem, QByteArray("CERT"));
        QCOMPARE(rc->auth.clientKeyPem, QByteArray("KEY"));
        QVERIFY(rc->auth.clientCertificateFile.empty()); // the file was never read
        QVERIFY(rc->auth.clientKeyFile.empty());
        const std::vector<std::string> expected{
            "client-certificate-data and client-certificate are both specified for both; client-certificate-data is used",
            "client-key-data and client-key are both specified for both; client-key-data is used"};
        QCOMPARE(rc->warnings, expected);
    }

    void resolveRejectsInvalidConfigurations_data()
    {
        QTest::addColumn<QString>("cluster"); // YAML flow mapping of the cluster
        QTest::addColumn<QString>("user");    // YAML flow mapping of the user
        QTest::addColumn<QString>("message");
        const QString server = QStringLiteral("server: \"https://x:6443\"");
        QTest::newRow("CA data with insecure")
            << server + QStringLiteral(", certificate-authority-data: aGVsbG8=, insecure-skip-tls-verify: true")
            << "token: t"
            << "specifying a root certificates file with the insecure flag is not allowed";
        QTest::newRow("CA file with insecure")
            << server + QStringLiteral(", certificate-authority: ca.crt, insecure-skip-tls-verify: true") << "token: t"
            << "specifying a root certificates file with the insecure flag is not allowed";
        QTest::newRow("token and basic auth")
            << server << "token: t, username: u, password: p"
            << "more than one authentication method found for u1; found [token basicAuth], only one is allowed";
        QTest::newRow("token and exec")
            << server
            << "tokenFile: /t, exec: {apiVersion: client.authentication.k8s.io/v1, command: x, interactiveMode: Never}"
            << "more than one authentication method found for u1; found [token exec], only one is allowed";
        QTest::newRow("certificate without key")
            << server << "client-certificate-data: Q0VSVA=="
            << "client-key-data or client-key must be specified for u1 to use the clientCert authentication method";
        QTest::newRow("key without certificate")
            << server << "client-key-data: Q0VSVA=="
            << "client-certificate-data or client-certificate must be specified for u1";
        QTest::newRow("gcp auth-provider")
            << server << "auth-provider: {name: gcp, config: {access-token: x}}"
            << "\"gcp\" auth-provider, which is not supported; client-go removed it in 1.25. Install gke-gcloud-auth-plugin";
        QTest::newRow("azure auth-provider") << server << "auth-provider: {name: azure}"
                                             << "Install kubelogin";
        QTest::newRow("oidc auth-provider") << server << "auth-provider: {name: oidc}"
                                            << "use an exec plugin instead";
        QTest::newRow("auth-provider with exec")
            << server
            << "auth-provider: {name: oidc}, exec: {apiVersion: client.authentication.k8s.io/v1, command: x, interactiveMode: Never}"
            << "authProvider cannot be provided in combination with an exec plugin for u1";
        QTest::newRow("v1 exec without interactiveMode")
            << server << "exec: {apiVersion: client.authentication.k8s.io/v1, command: x}"
            << "interactiveMode must be specified for u1 to use exec authentication plugin";
        QTest::newRow("exec interactiveMode Always")
            << server << "exec: {apiVersion: client.authentication.k8s.io/v1, command: x, interactiveMode: Always}"
            << "requires a terminal (interactiveMode: Always)";
        QTest::newRow("exec v1alpha1") << server
                                       << "exec: {apiVersion: client.authentication.k8s.io/v1alpha1, command: x}"
                                       << "invalid apiVersion \"client.authentication.k8s.io/v1alpha1\"";
        QTest::newRow("exec without command")
            << server << "exec: {apiVersion: client.authentication.k8s.io/v1, interactiveMode: Never}"
            << "command must be specified for u1";
        QTest::newRow("no server") << "tls-server-name: x"
                                   << "token: t"
                                   << "no server found for cluster \"c1\"";
        QTest::newRow("ftp proxy") << server + QStringLiteral(", proxy-url: \"ftp://proxy:21\"") << "token: t"
                                   << "unsupported scheme \"ftp\", must be http, https, or socks5";
        QTest::newRow("unreadable CA file")
            << server + QStringLiteral(", certificate-authority: missing-ca.crt") << "token: t"
            << "unable to read certificate-authority";
    }
    void resolveRejectsInvalidConfigurations()
    {
        QFETCH(QString, cluster);
        QFETCH(QString, user);
        QFETCH(QString, message);
        const QString yaml =
            QStringLiteral("clusters:\n- name: c1\n  cluster: {%1}\nusers:\n- name: u1\n  user: {%2}\n"
                           "contexts:\n- name: ctx\n  context: {cluster: c1, user: u1}\ncurrent-context: ctx\n")
                .arg(cluster, user);
        auto kc = Kubeconfig::fromYaml(yaml.toStdString(), "/tmp/fieldscope-test/config");
        QVERIFY2(kc.ok(), kc.ok() ? "" : kc.error().describe().c_str());
        auto rc = kc->resolve();
        QVERIFY(!rc.ok());
        QCOMPARE(rc.error().category, ErrorCategory::Config);
        QVERIFY2(describe(rc.error()).contains(message), qPrintable(describe(rc.error())));
        QCOMPARE(QString::fromStdString(rc.error().where), QStringLiteral("/tmp/fieldscope-test/config"));
    }

    void proxyUrlSchemesAccepted_data()
    {
        QTest::addColumn<QString>("proxy");
        QTest::newRow("http") << "http://proxy:3128";
        QTest::newRow("https") << "https://proxy:3128";
        QTest::newRow("socks5") << "socks5://127.0.0.1:1080";
    }
    void proxyUrlSchemesAccepted()
    {
        QFETCH(QString, proxy);
        const QString yaml =
            QStringLiteral(
                "clusters:\n- name: c\n  cluster: {server: \"https://x\", proxy-url: \"%1\", disable-compression: true}\n"
                "contexts:\n- {name: ctx, context: {cluster: c}}\n")
                .arg(proxy);
        auto kc = Kubeconfig::fromYaml(yaml.toStdString(), "/tmp/kc");
        QVERIFY(kc.ok());
        auto rc = kc->resolve("ctx");
        QVERIFY2(rc.ok(), rc.ok() ? "" : rc.error().describe().c_str());
        QCOMPARE(QString::fromStdString(rc->proxyUrl), proxy);
        QVERIFY(rc->disableCompression);
    }

    void loadRejectsBadFieldsNamingTheField_data()
    {
        QTest::addColumn<QString>("yaml");
        QTest::addColumn<QString>("message");
        QTest::newRow("invalid base64") << "users:\n- name: u\n  user: {client-key-data: \"not*base64!\"}\n"
                                        << "users[\"u\"].user.client-key-data is not valid base64";
        QTest::newRow("token not a string") << "users:\n- name: u\n  user: {token: [a, b]}\n"
                                            << "users[\"u\"].user.token must be a string";
        QTest::newRow("duplicate cluster in one file")
            << "clusters:\n- {name: c, cluster: {server: a}}\n- {name: c, cluster: {server: b}}\n"
            << "duplicate name \"c\" in clusters";
        QTest::newRow("clusters not a list") << "clusters: {c: 1}\n"
                                             << "clusters must be a list";
        QTest::newRow("wrong kind") << "kind: Pod\n"
                                    << "a kubeconfig has kind Config";
    }
    void loadRejectsBadFieldsNamingTheField()
    {
        QFETCH(QString, yaml);
        QFETCH(QString, message);
        auto kc = Kubeconfig::fromYaml(yaml.toStdString(), "/tmp/kc");
        QVERIFY(!kc.ok());
        QCOMPARE(kc.error().category, ErrorCategory::Config);
        QVERIFY2(describe(kc.error()).contains(message), qPrintable(describe(kc.error())));
        QVERIFY(describe(kc.error()).contains(QLatin1String("/tmp/kc")));
    }

    void contextsListForSwitcher()
    {
        LoadOptions o;
        o.environment = kubeEnv({{"KUBECONFIG", fixture(QStringLiteral("merge/b.yaml")) + QLatin1Char(':')
                                                    + fixture(QStringLiteral("merge/c.yaml"))}},
                                m_home.path());
        auto kc = Kubeconfig::load(o);
        QVERIFY(kc.ok());
        const auto list = kc->contexts();
        QCOMPARE(int(list.size()), 3);
        QCOMPARE(QString::fromStdString(list[0].name), QStringLiteral("ctx-b"));
        QCOMPARE(QString::fromStdString(list[0].cluster), QStringLiteral("b-cluster"));
        QCOMPARE(QString::fromStdString(list[0].user), QStringLiteral("shared-user"));
        QCOMPARE(QString::fromStdString(list[0].namespace_), QStringLiteral("b-ns"));
        QCOMPARE(QString::fromStdString(list[0].server), QStringLiteral("https://b-only.example:6443"));
        QVERIFY(list[0].isCurrent);
        QCOMPARE(QString::fromStdString(list[2].name), QStringLiteral("ctx-c"));
        QVERIFY(!list[2].isCurrent);
        QCOMPARE(QString::fromStdString(list[2].namespace_), QStringLiteral("c-ns"));
    }

    void contextNamespaceDefaultsToDefault()
    {
        auto kc = Kubeconfig::fromYaml(
            "clusters: [{name: c, cluster: {server: 'https://x'}}]\ncontexts: [{name: ctx, context: {cluster: c}}]\n",
            "/tmp/kc");
        QVERIFY(kc.ok());
        auto rc = kc->resolve("ctx");
        QVERIFY(rc.ok());
        QCOMPARE(QString::fromStdString(rc->namespace_), QStringLiteral("default"));
        QCOMPARE(QString::fromStdString(kc->contexts().front().namespace_), QStringLiteral("default"));
    }

    void unknownContextListsAvailableOnes_data()
    {
        QTest::addColumn<QString>("requested");
        QTest::addColumn<QString>("message");
        QTest::newRow("unknown --context") << "nope"
                                           << "context \"nope\" not found; available contexts: ctx-a, ctx-shared";
        QTest::newRow("no current-context")
            << ""
            << "current-context is not set and no --context was given; available contexts: ctx-a, ctx-shared";
    }
    void unknownContextListsAvailableOnes()
    {
        QFETCH(QString, requested);
        QFETCH(QString, message);
        LoadOptions o;
        o.explicitPath = fixture(QStringLiteral("merge/a.yaml")).toStdString();
        auto kc = Kubeconfig::load(o);
        QVERIFY(kc.ok());
        auto rc = kc->resolve(requested.toStdString());
        QVERIFY(!rc.ok());
        QCOMPARE(rc.error().category, ErrorCategory::Config);
        QVERIFY2(describe(rc.error()).contains(message), qPrintable(describe(rc.error())));
    }

    void contextWithUnknownUserOrClusterIsAnError()
    {
        auto kc = Kubeconfig::fromYaml(
            "clusters: [{name: c, cluster: {server: 'https://x'}}]\n"
            "contexts: [{name: a, context: {cluster: c, user: ghost}}, {name: b, context: {cluster: gone}}]\n",
            "/tmp/kc");
        QVERIFY(kc.ok());
        auto a = kc->resolve("a");
        QVERIFY(!a.ok());
        QVERIFY(describe(a.error()).contains(QLatin1String("user \"ghost\" was not found for context \"a\"")));
        auto b = kc->resolve("b");
        QVERIFY(!b.ok());
        QVERIFY(describe(b.error()).contains(QLatin1String("cluster \"gone\" was not found for context \"b\"")));
    }

    void inClusterConfigFromServiceAccount_data()
    {
        QTest::addColumn<QString>("podNamespace");
        QTest::addColumn<bool>("namespaceFile");
        QTest::addColumn<QString>("expected");
        QTest::newRow("POD_NAMESPACE wins") << "from-env" << true << "from-env";
        QTest::newRow("namespace file") << "" << true << "from-file";
        QTest::newRow("default") << "" << false << "default";
    }
    void inClusterConfigFromServiceAccount()
    {
        QFETCH(QString, podNamespace);
        QFETCH(bool, namespaceFile);
        QFETCH(QString, expected);
        QTemporaryDir sa;
        writeFile(sa.filePath(QStringLiteral("token")), "sa-token\n");
        writeFile(sa.filePath(QStringLiteral("ca.crt")), "SA-CA-PEM");
        if (namespaceFile)
            writeFile(sa.filePath(QStringLiteral("namespace")), "from-file\n");
        LoadOptions o;
        o.environment = kubeEnv({{"KUBERNETES_SERVICE_HOST", QStringLiteral("10.96.0.1")},
                                 {"KUBERNETES_SERVICE_PORT", QStringLiteral("443")}},
                                m_home.path());
        if (!podNamespace.isEmpty())
            o.environment.insert(QStringLiteral("POD_NAMESPACE"), podNamespace);
        o.serviceAccountDir = sa.path().toStdString();
        auto kc = Kubeconfig::load(o);
        QVERIFY(kc.ok());
        QVERIFY(kc->isInCluster());
        QCOMPARE(int(kc->contexts().size()), 1);
        QVERIFY(kc->contexts().front().isCurrent);
        auto rc = kc->resolve();
        QVERIFY2(rc.ok(), rc.ok() ? "" : rc.error().describe().c_str());
        QVERIFY(rc->inCluster);
        QCOMPARE(QString::fromStdString(rc->server), QStringLiteral("https://10.96.0.1:443"));
        QCOMPARE(rc->caPem, QByteArray("SA-CA-PEM"));
        QCOMPARE(rc->auth.method, AuthMethod::TokenFile);
        QCOMPARE(QString::fromStdString(rc->auth.tokenFile), sa.filePath(QStringLiteral("token")));
        QCOMPARE(QString::fromStdString(rc->namespace_), expected);
    }

    void inClusterIsNotUsedWhenAKubeconfigDefinesContexts()
    {
        LoadOptions o;
        o.environment = kubeEnv({{"KUBECONFIG", fixture(QStringLiteral("merge/c.yaml"))},
                                 {"KUBERNETES_SERVICE_HOST", QStringLiteral("10.96.0.1")},
                                 {"KUBERNETES_SERVICE_PORT", QStringLiteral("443")}},
                                m_home.path());
        auto kc = Kubeconfig::load(o);
        QVERIFY(kc.ok());
        QVERIFY(!kc->isInCluster());
    }

    void inClusterWithoutTokenIsAnAuthError()
    {
        QTemporaryDir sa;
        LoadOptions o;
        o.environment = kubeEnv({{"KUBERNETES_SERVICE_HOST", QStringLiteral("fd00::1")},
                                 {"KUBERNETES_SERVICE_PORT", QStringLiteral("443")}},
                                m_home.path());
        o.serviceAccountDir = sa.path().toStdString();
        auto kc = Kubeconfig::load(o);
        QVERIFY(kc.ok());
        QCOMPARE(QString::fromStdString(kc->contexts().front().server), QStringLiteral("https://[fd00::1]:443"));
        auto rc = kc->resolve();
        QVERIFY(!rc.ok());
        QCOMPARE(rc.error().category, ErrorCategory::Auth);
    }

    void impersonationBecomesHeaders()
    {
        auto kc = Kubeconfig::fromYaml("clusters: [{name: c, cluster: {server: \"https://x\"}}]\n"
                                       "users:\n"
                                       "- name: u\n"
                                       "  user:\n"
                                       "    token: t\n"
                                       "    as: jane\n"
                                       "    as-uid: \"42\"\n"
                                       "    as-groups: [devs, ops]\n"
                                       "    as-user-extra: {\"example.com/scopes\": [read, write]}\n"
                                       "contexts: [{name: ctx, context: {cluster: c, user: u}}]\n",
                                       "/tmp/kc");
        QVERIFY2(kc.ok(), kc.ok() ? "" : kc.error().describe().c_str());
        auto rc = kc->resolve("ctx");
        QVERIFY(rc.ok());
        QStringList lines;
        for (const auto &[k, v] : impersonationHeaders(rc->auth.impersonate))
            lines << QString::fromStdString(k + ": " + v);
        QCOMPARE(lines.join(QLatin1Char('\n')),
                 QStringLiteral("Impersonate-User: jane\nImpersonate-Uid: 42\nImpersonate-Group: devs\n"
                                "Impersonate-Group: ops\nImpersonate-Extra-example.com%2Fscopes: read\n"
                                "Impersonate-Extra-example.com%2Fscopes: write"));
    }

    void insecureAndHttpAndBasicAuthAreFlagged()
    {
        auto kc = Kubeconfig::fromYaml(
            "clusters: [{name: c, cluster: {server: \"http://x:8080\", insecure-skip-tls-verify: true}}]\n"
            "users: [{name: u, user: {username: admin, password: hunter2-secret}}]\n"
            "contexts: [{name: ctx, context: {cluster: c, user: u}}]\n",
            "/tmp/kc");
        QVERIFY(kc.ok());
        auto rc = kc->resolve("ctx");
        QVERIFY(rc.ok());
        QVERIFY(rc->insecureSkipTlsVerify);
        QCOMPARE(rc->auth.method, AuthMethod::Basic);
        QCOMPARE(int(rc->warnings.size()), 3);
        for (const auto &w : rc->warnings)
            QVERIFY(!QString::fromStdString(w).contains(QLatin1String("hunter2")));
    }
};

QTEST_GUILESS_MAIN(TestKubeconfig)
#include "tst_kubeconfig.moc"
