// Kubeconfigs written carelessly or with hostile intent: no secret of theirs reaches an error or
// a warning, the files they name must be regular files of at most 1 MiB, an endless file is
// refused quickly, and header values cannot smuggle line breaks (README.md, Security).
#include "kube/kubeconfig.h"
#include "kubeconfigfiles.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include <sys/stat.h>

using namespace fieldscope;
using namespace fieldscope::kube;
using core::ErrorCategory;
using testing::kubeEnv;
using testing::writeFile;

namespace {

QString describe(const core::Error &e)
{
    return QString::fromStdString(e.describe());
}

// A kubeconfig whose FIELD names PATH; the other file a method needs (a client key for a
// certificate, and the reverse) is GOOD.
QByteArray kubeconfigNaming(const QString &field, const QString &path, const QString &good)
{
    QByteArray user = "{token: t}";
    QByteArray cluster = "{server: \"https://x:6443\"}";
    const QByteArray p = "\"" + path.toUtf8() + "\"", g = "\"" + good.toUtf8() + "\"";
    if (field == QLatin1String("certificate-authority"))
        cluster = "{server: \"https://x:6443\", certificate-authority: " + p + "}";
    else if (field == QLatin1String("client-certificate"))
        user = "{client-certificate: " + p + ", client-key: " + g + "}";
    else if (field == QLatin1String("client-key"))
        user = "{client-certificate: " + g + ", client-key: " + p + "}";
    else if (field == QLatin1String("tokenFile"))
        user = "{tokenFile: " + p + "}";
    return "clusters: [{name: c, cluster: " + cluster + "}]\nusers: [{name: u, user: " + user
         + "}]\ncontexts: [{name: ctx, context: {cluster: c, user: u}}]\n";
}

} // namespace

class TestKubeconfigHostile : public QObject
{
    Q_OBJECT
private:
    QTemporaryDir m_home; // an empty HOME: no ~/.kube/config

private Q_SLOTS:
    void secretsNeverAppearInErrorsOrWarnings_data()
    {
        QTest::addColumn<QString>("yaml");
        const QString secret = QStringLiteral("s3cr3t-t0ken-value");
        const QString b64Secret = QString::fromLatin1(secret.toLatin1().toBase64());
        const QString head = QStringLiteral(
            "clusters: [{name: c, cluster: {server: 'https://x'}}]\ncontexts: [{name: ctx, context: {cluster: c, user: u}}]\n");
        QTest::newRow("two methods")
            << head + QStringLiteral("users: [{name: u, user: {token: %1, password: %1}}]\n").arg(secret);
        QTest::newRow("token and cert") << head
                                               + QStringLiteral(
                                                     "users: [{name: u, user: {token: %1, client-key-data: %2}}]\n")
                                                     .arg(secret, b64Secret);
        QTest::newRow("key without cert")
            << head + QStringLiteral("users: [{name: u, user: {client-key-data: %1}}]\n").arg(b64Secret);
        QTest::newRow("bad base64")
            << head + QStringLiteral("users: [{name: u, user: {client-key-data: \"%1!\"}}]\n").arg(secret);
        QTest::newRow("token is a list")
            << head + QStringLiteral("users: [{name: u, user: {token: [%1]}}]\n").arg(secret);
        QTest::newRow("auth-provider tokens")
            << head
                   + QStringLiteral(
                         "users: [{name: u, user: {auth-provider: {name: oidc, config: {id-token: %1, refresh-token: %1}}}}]\n")
                         .arg(secret);
        QTest::newRow("token and tokenFile")
            << head + QStringLiteral("users: [{name: u, user: {token: %1, tokenFile: /nonexistent}}]\n").arg(secret);
        QTest::newRow("yaml error after token")
            << QStringLiteral("users: [{name: u, user: {token: %1}}]\n  bad: [\n").arg(secret);
        QTest::newRow("exec env")
            << head
                   + QStringLiteral(
                         "users: [{name: u, user: {exec: {apiVersion: x, command: c, env: [{name: T, value: %1}]}}}]\n")
                         .arg(secret);
    }
    void secretsNeverAppearInErrorsOrWarnings()
    {
        QFETCH(QString, yaml);
        const QString secret = QStringLiteral("s3cr3t-t0ken-value");
        auto kc = Kubeconfig::fromYaml(yaml.toStdString(), "/tmp/kc");
        QStringList texts;
        if (!kc.ok()) {
            texts << describe(kc.error());
        } else {
            for (const auto &w : kc->warnings())
                texts << QString::fromStdString(w);
            auto rc = kc->resolve();
            if (rc.ok()) {
                for (const auto &w : rc->warnings)
                    texts << QString::fromStdString(w);
            } else {
                texts << describe(rc.error());
            }
        }
        QVERIFY(!texts.isEmpty()); // every row is broken or warned about
        for (const QString &t : texts) {
            QVERIFY2(!t.contains(secret), qPrintable(t));
            QVERIFY2(!t.contains(QString::fromLatin1(secret.toLatin1().toBase64())), qPrintable(t));
        }
    }

    // Files a kubeconfig names are read whole: they must be regular files (a FIFO would hang,
    // /dev/zero would fill memory) and at most 1 MiB (README.md, Security).
    void filesNamedByAKubeconfigMustBeRegularFiles_data()
    {
        QTest::addColumn<QString>("field");
        QTest::addColumn<QString>("target");
        for (const char *field : {"certificate-authority", "client-certificate", "client-key", "tokenFile"})
            for (const char *target : {"/dev/zero", "directory", "fifo"})
                QTest::newRow(qPrintable(QStringLiteral("%1 %2").arg(QLatin1String(field), QLatin1String(target))))
                    << QString::fromLatin1(field) << QString::fromLatin1(target);
    }
    void filesNamedByAKubeconfigMustBeRegularFiles()
    {
        QFETCH(QString, field);
        QFETCH(QString, target);
        QTemporaryDir dir;
        QString path = target;
        if (target == QLatin1String("directory")) {
            path = dir.filePath(QStringLiteral("adir"));
            QVERIFY(QDir().mkpath(path));
        } else if (target == QLatin1String("fifo")) {
            path = dir.filePath(QStringLiteral("afifo"));
            QCOMPARE(::mkfifo(QFile::encodeName(path).constData(), 0600),
                     0); // no writer: opening it blocking would hang
        }
        writeFile(dir.filePath(QStringLiteral("good.pem")), "PEM");
        const QByteArray config = kubeconfigNaming(field, path, dir.filePath(QStringLiteral("good.pem")));
        QElapsedTimer t;
        t.start();
        auto kc = Kubeconfig::fromYaml(config.toStdString(), dir.filePath(QStringLiteral("config")).toStdString());
        QVERIFY(kc.ok());
        auto rc = kc->resolve("ctx");
        QVERIFY(t.elapsed() < 1000);
        QVERIFY(!rc.ok());
        QCOMPARE(rc.error().category, ErrorCategory::Config);
        QVERIFY2(describe(rc.error()).contains(QLatin1String("must be a regular file")),
                 qPrintable(describe(rc.error())));
        QVERIFY2(describe(rc.error()).contains(path), qPrintable(describe(rc.error())));
    }

    void filesNamedByAKubeconfigHaveASizeLimit_data()
    {
        QTest::addColumn<QString>("field");
        QTest::addColumn<int>("size");
        QTest::addColumn<bool>("accepted");
        for (const char *field : {"certificate-authority", "client-certificate", "client-key", "tokenFile"}) {
            QTest::newRow(qPrintable(QStringLiteral("%1 at 1 MiB").arg(QLatin1String(field))))
                << QString::fromLatin1(field) << 1024 * 1024 << true;
            QTest::newRow(qPrintable(QStringLiteral("%1 one byte past").arg(QLatin1String(field))))
                << QString::fromLatin1(field) << 1024 * 1024 + 1 << false;
        }
    }
    void filesNamedByAKubeconfigHaveASizeLimit()
    {
        QFETCH(QString, field);
        QFETCH(int, size);
        QFETCH(bool, accepted);
        QTemporaryDir dir;
        const QString big = dir.filePath(QStringLiteral("big"));
        writeFile(big, QByteArray(size, 'a'));
        writeFile(dir.filePath(QStringLiteral("good.pem")), "PEM");
        auto kc =
            Kubeconfig::fromYaml(kubeconfigNaming(field, big, dir.filePath(QStringLiteral("good.pem"))).toStdString(),
                                 dir.filePath(QStringLiteral("config")).toStdString());
        QVERIFY(kc.ok());
        auto rc = kc->resolve("ctx");
        QCOMPARE(rc.ok(), accepted);
        if (!accepted) {
            QCOMPARE(rc.error().category, ErrorCategory::Config);
            QVERIFY2(describe(rc.error()).contains(QLatin1String("larger than 1 MiB")),
                     qPrintable(describe(rc.error())));
        }
    }

    // A kubeconfig itself may come from a pipe, but not without end.
    void kubeconfigFromAnEndlessDeviceIsRefusedQuickly()
    {
        LoadOptions o;
        o.explicitPath = "/dev/zero";
        o.environment = kubeEnv({}, m_home.path());
        QElapsedTimer t;
        t.start();
        auto kc = Kubeconfig::load(o);
        QVERIFY(t.elapsed() < 1000);
        QVERIFY(!kc.ok());
        QVERIFY2(describe(kc.error()).contains(QLatin1String("larger than 16 MiB")), qPrintable(describe(kc.error())));
    }

    // libcurl sends header values verbatim: a CR/LF in a token or an impersonation value would
    // let a kubeconfig add headers of its choosing.
    void headerValuesWithLineBreaksAreRefused_data()
    {
        QTest::addColumn<QByteArray>("user");
        QTest::addColumn<QString>("field");
        QTest::newRow("token CRLF") << QByteArray("{token: \"tok-SECRET\\r\\nX-Evil: 1\"}") << "token";
        QTest::newRow("token LF") << QByteArray("{token: \"tok-SECRET\\nX-Evil: 1\"}") << "token";
        QTest::newRow("token NUL") << QByteArray("{token: \"tok-SECRET\\0\"}") << "token";
        QTest::newRow("as") << QByteArray("{token: t, as: \"jane\\r\\nX-Evil: 1\"}") << "impersonated user";
        QTest::newRow("as-uid") << QByteArray("{token: t, as-uid: \"42\\n\"}") << "impersonated uid";
        QTest::newRow("as-groups") << QByteArray("{token: t, as-groups: [devs, \"ops\\rX\"]}") << "impersonated group";
        QTest::newRow("as-user-extra") << QByteArray("{token: t, as-user-extra: {scopes: [\"read\\nX: y\"]}}")
                                       << "impersonation extra";
    }
    void headerValuesWithLineBreaksAreRefused()
    {
        QFETCH(QByteArray, user);
        QFETCH(QString, field);
        auto kc = Kubeconfig::fromYaml(("clusters: [{name: c, cluster: {server: \"https://x\"}}]\n"
                                        "users: [{name: u, user: "
                                        + user
                                        + "}]\n"
                                          "contexts: [{name: ctx, context: {cluster: c, user: u}}]\n")
                                           .toStdString(),
                                       "/tmp/kc");
        QVERIFY2(kc.ok(), kc.ok() ? "" : kc.error().describe().c_str());
        auto rc = kc->resolve("ctx");
        QVERIFY(!rc.ok());
        QCOMPARE(rc.error().category, ErrorCategory::Config);
        QVERIFY2(describe(rc.error()).contains(field), qPrintable(describe(rc.error())));
        QVERIFY(!describe(rc.error()).contains(QLatin1String("SECRET")));
    }

    void headerValuesWithTabsAndUtf8AreAccepted()
    {
        auto kc = Kubeconfig::fromYaml("clusters: [{name: c, cluster: {server: \"https://x\"}}]\n"
                                       "users: [{name: u, user: {token: \"a\\tb\", as: \"j\xc3\xa9r\xc3\xb4me\"}}]\n"
                                       "contexts: [{name: ctx, context: {cluster: c, user: u}}]\n",
                                       "/tmp/kc");
        QVERIFY(kc.ok());
        QVERIFY(kc->resolve("ctx").ok());
    }
};

QTEST_GUILESS_MAIN(TestKubeconfigHostile)
#include "tst_kubeconfig_hostile.moc"
