// The credentials a kubeconfig names by file (tokenFile, client-certificate, client-key) and the
// static ones: files are re-read when they change or grow old, a rotation caught half-way keeps
// the last good credential, and a file that cannot be a header value is refused.
#include "kube/credentials.h"
#include "kubeconfigfiles.h"

#include <QDateTime>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QTemporaryDir>
#include <QTest>

using namespace fieldscope;
using namespace fieldscope::kube;
using testing::writeFile;

namespace {

constexpr const char *kSecret = "tok-9f8e7d6c5b4a-SECRET";

QString describe(const core::Error &e)
{
    return QString::fromStdString(e.describe());
}

ResolvedConfig tokenFileConfig(const QString &path)
{
    ResolvedConfig rc;
    rc.auth.method = AuthMethod::TokenFile;
    rc.auth.tokenFile = path.toStdString();
    return rc;
}

} // namespace

class TestCredentialFiles : public QObject
{
    Q_OBJECT
private:
    QTemporaryDir m_dir;

private Q_SLOTS:
    void tokenFileRotationIsPickedUp()
    {
        const QString path = m_dir.filePath(QStringLiteral("token"));
        writeFile(path, "first-token\n");
        CredentialOptions o;
        o.fileCheckInterval = std::chrono::milliseconds(0);
        CredentialProvider p(tokenFileConfig(path), o);
        auto a = p.current();
        QVERIFY(a.ok());
        QCOMPARE(QString::fromStdString(a->bearerToken), QStringLiteral("first-token"));
        QCOMPARE(p.current()->generation, a->generation);

        writeFile(path, "second-token-rotated\n");
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
        writeFile(path, "aaaa");
        CredentialOptions o;
        o.fileCheckInterval = std::chrono::milliseconds(0);
        o.fileMaxAge = std::chrono::milliseconds(0);
        CredentialProvider p(tokenFileConfig(path), o);
        QCOMPARE(QString::fromStdString(p.current()->bearerToken), QStringLiteral("aaaa"));
        // Same size, modification time forced back: only the age rule can notice.
        const QDateTime mtime = QFileInfo(path).lastModified();
        QFile f(path);
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
        writeFile(cert, "CERT-1");
        writeFile(key, "KEY-1");
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
        writeFile(cert, "CERT-2-rotated");
        writeFile(key, "KEY-2-rotated");
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
        writeFile(path, "tok-SECRET\r\nX-Evil: 1\n");
        ResolvedConfig rc = tokenFileConfig(path);
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
};

QTEST_GUILESS_MAIN(TestCredentialFiles)
#include "tst_credentialfiles.moc"
