#include "app/services/sandbox.h"

#include "core/base/privatefiles.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <QStandardPaths>

namespace fieldscope::app {

SandboxController::SandboxController(QObject *parent) : QObject(parent)
{
    connect(&m_process, &QProcess::finished, this, [this](int code, QProcess::ExitStatus status) {
        const QString out = QString::fromUtf8(m_process.readAllStandardOutput()).trimmed();
        const QString err = QString::fromUtf8(m_process.readAllStandardError()).trimmed();
        if (status != QProcess::NormalExit || code != 0) {
            Q_EMIT stateChanged(tr("Sandbox failed"));
            Q_EMIT failed(tr("The sandbox cluster did not start: %1").arg(err.section(QLatin1Char('\n'), -5)));
            return;
        }
        Q_EMIT stateChanged(tr("Sandbox running"));
        Q_EMIT ready(out.section(QLatin1Char('\n'), -1));
    });
    connect(&m_process, &QProcess::errorOccurred, this, [this](QProcess::ProcessError e) {
        if (e == QProcess::FailedToStart) {
            Q_EMIT stateChanged(tr("Sandbox failed"));
            Q_EMIT failed(tr("Cannot run %1").arg(clusterScript()));
        }
    });
}

SandboxController::~SandboxController()
{
    if (m_started && m_stopOnExit)
        stopDetached();
}

QString SandboxController::dataDir()
{
    return QStandardPaths::writableLocation(QStandardPaths::GenericDataLocation)
         + QStringLiteral("/fieldscope/sandbox");
}

AuditWebhookOptions SandboxController::auditWebhookOptions()
{
    const std::string dir = dataDir().toStdString();
    AuditWebhookOptions o;
    o.server.host = "127.0.0.1";
    o.server.certFile = dir + "/pki/audit-webhook.crt";
    o.server.keyFile = dir + "/pki/audit-webhook.key";
    o.server.clientCaFile = dir + "/pki/ca.crt";
    // The sandbox's CA signs more than the API server's certificate (the admin's, the nodes'):
    // only the API server's may post audit events.
    o.server.clientNames = {kSandboxAuditClientName};
    o.portFile = dir + "/run/audit-webhook.port";
    return o;
}

QString SandboxController::clusterScript()
{
    QString env = qEnvironmentVariable("FIELDSCOPE_CLUSTER_SCRIPT");
    if (!env.isEmpty())
        return env;
    // Installed (the Debian package): /usr/lib/fieldscope, found from the binary's own folder.
    const QString installed = QCoreApplication::applicationDirPath()
                            + QStringLiteral("/../lib/fieldscope/fieldscope-cluster");
    if (QFileInfo::exists(installed))
        return QFileInfo(installed).canonicalFilePath();
    return QStringLiteral(FIELDSCOPE_SOURCE_DIR "/scripts/fieldscope-cluster");
}

void SandboxController::start()
{
    m_started = true;
    m_fresh = !QFileInfo::exists(dataDir() + QStringLiteral("/kubeconfig"));
    Q_EMIT stateChanged(tr("Sandbox starting…"));
    // The sandbox keeps its CA key, tokens and etcd data there: 0700 whatever the umask.
    if (auto st = core::makePrivateDirectory(dataDir().toStdString(), true); !st)
        qWarning("%s", st.error().describe().c_str());
    m_process.start(clusterScript(), {QStringLiteral("start"), dataDir(), QStringLiteral("--name"), contextName()});
}

void SandboxController::stopDetached()
{
    QProcess::startDetached(clusterScript(), {QStringLiteral("stop"), dataDir()});
    m_started = false;
}

} // namespace fieldscope::app
