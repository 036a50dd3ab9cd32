#pragma once
// SandboxController: starts (or reuses) the local sandbox cluster through scripts/fieldscope-cluster,
// asynchronously (QProcess), and stops it when the app quits. Lives on the GUI thread.
#include "app/services/auditwebhook.h"

#include <QObject>
#include <QProcess>

namespace fieldscope::app {

class SandboxController : public QObject
{
    Q_OBJECT
public:
    explicit SandboxController(QObject *parent = nullptr);
    ~SandboxController() override;

    static QString dataDir();       // under the user's data directory; kept between runs
    static QString clusterScript(); // FIELDSCOPE_CLUSTER_SCRIPT, installed copy, or the source tree's
    static QString contextName() { return QStringLiteral("sandbox"); }
    // The webhook the sandbox's API server sends its audit events to (scripts/fieldscope-cluster):
    // loopback, the port in DIR/run/audit-webhook.port, its certificates, only its client.
    static AuditWebhookOptions auditWebhookOptions();

    void start();
    // The last start() made a new cluster (no kubeconfig was there): it gets the demo namespace.
    bool isFresh() const { return m_fresh; }
    // Stops the cluster without waiting (detached), so quitting never blocks on it.
    void stopDetached();
    void setStopOnExit(bool stop) { m_stopOnExit = stop; }

Q_SIGNALS:
    void stateChanged(const QString &state);
    void ready(const QString &kubeconfigPath);
    void failed(const QString &message);

private:
    QProcess m_process;
    bool m_started = false;
    bool m_stopOnExit = true;
    bool m_fresh = false;
};

} // namespace fieldscope::app
