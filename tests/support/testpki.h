#pragma once
// Certificates for tests, made by the openssl command (a Debian dependency of the build) in a
// temporary folder: a CA, server certificates for a SAN, client certificates, all EC P-256.
#include <QFile>
#include <QProcess>
#include <QString>
#include <QStringList>
#include <QTemporaryDir>

namespace fieldscope::testing {

class TestPki
{
public:
    QString file(const QString &name) const { return m_dir.filePath(name); }
    QString crt(const QString &name) const { return file(name + QStringLiteral(".crt")); }
    QString key(const QString &name) const { return file(name + QStringLiteral(".key")); }
    const QString &lastError() const { return m_error; }

    bool makeCa(const QString &name)
    {
        return run({QStringLiteral("req"), QStringLiteral("-x509"), QStringLiteral("-newkey"), QStringLiteral("ec"),
                    QStringLiteral("-pkeyopt"), QStringLiteral("ec_paramgen_curve:P-256"), QStringLiteral("-nodes"),
                    QStringLiteral("-keyout"), name + QStringLiteral(".key"), QStringLiteral("-out"),
                    name + QStringLiteral(".crt"), QStringLiteral("-days"), QStringLiteral("2"),
                    QStringLiteral("-subj"), QStringLiteral("/CN=fieldscope test ") + name, QStringLiteral("-addext"),
                    QStringLiteral("basicConstraints=critical,CA:TRUE"), QStringLiteral("-addext"),
                    QStringLiteral("keyUsage=critical,keyCertSign,cRLSign")});
    }
    // A certificate signed by `ca`: extensions e.g. "subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth".
    bool makeSigned(const QString &name, const QString &ca, const QByteArray &extensions)
    {
        if (!run({QStringLiteral("req"), QStringLiteral("-newkey"), QStringLiteral("ec"), QStringLiteral("-pkeyopt"),
                  QStringLiteral("ec_paramgen_curve:P-256"), QStringLiteral("-nodes"), QStringLiteral("-keyout"),
                  name + QStringLiteral(".key"), QStringLiteral("-out"), name + QStringLiteral(".csr"),
                  QStringLiteral("-subj"), QStringLiteral("/CN=") + name}))
            return false;
        QFile ext(file(name + QStringLiteral(".ext")));
        if (!ext.open(QIODevice::WriteOnly) || ext.write(extensions + '\n') < 0)
            return false;
        ext.close();
        return run({QStringLiteral("x509"), QStringLiteral("-req"), QStringLiteral("-in"),
                    name + QStringLiteral(".csr"), QStringLiteral("-CA"), ca + QStringLiteral(".crt"),
                    QStringLiteral("-CAkey"), ca + QStringLiteral(".key"), QStringLiteral("-CAcreateserial"),
                    QStringLiteral("-out"), name + QStringLiteral(".crt"), QStringLiteral("-days"), QStringLiteral("2"),
                    QStringLiteral("-extfile"), name + QStringLiteral(".ext")});
    }
    bool makeServer(const QString &name, const QString &ca)
    {
        return makeSigned(name, ca, "subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth");
    }
    bool makeClient(const QString &name, const QString &ca)
    {
        return makeSigned(name, ca, "extendedKeyUsage=clientAuth");
    }

private:
    bool run(const QStringList &args)
    {
        QProcess p;
        p.setWorkingDirectory(m_dir.path());
        p.start(QStringLiteral("openssl"), args);
        if (!p.waitForFinished(30000) || p.exitCode() != 0) {
            m_error = QString::fromUtf8(p.readAllStandardError()) + p.errorString();
            return false;
        }
        return true;
    }
    QTemporaryDir m_dir;
    QString m_error;
};

} // namespace fieldscope::testing
