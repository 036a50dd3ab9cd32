#pragma once
// exec credential plugins (client.authentication.k8s.io v1 and v1beta1; k8s.io/client-go/plugin/pkg/client/auth/exec).
//
// Running a plugin is running arbitrary code named by a kubeconfig, so this file only prepares and
// runs; deciding whether to run is CredentialProvider's job (kube/credentials.h), which asks a
// consent callback first.
//
// Threads: prepareExec() and parseExecCredential() are pure and thread-agnostic. runExecPlugin()
// blocks until the plugin exits or times out: call it only on a worker/network thread, never on the
// GUI thread. ExecPluginProcess is the asynchronous form for threads with an event loop (the GUI).
#include "core/base/result.h"
#include "kube/kubeconfig.h"

#include <QByteArray>
#include <QDateTime>
#include <QObject>
#include <QProcessEnvironment>

#include <atomic>
#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

class QProcess;
class QTimer;

namespace fieldscope::kube {

// status of the plugin's ExecCredential output.
struct ExecCredential {
    std::string token;
    QByteArray clientCertificatePem;
    QByteArray clientKeyPem;
    std::optional<QDateTime> expiry; // UTC; none: valid until the server answers 401
};

// What will run, fully resolved, and for whom. Shown to the user before the first run
// (describeExecInvocation() in kube/execconsent.h) and bound into the consent fingerprint.
struct ExecInvocation {
    std::string command; // as configured
    std::string program; // absolute path after the PATH lookup
    std::vector<std::string> args;
    std::vector<std::string> addedEnvNames; // names from `env`, plus KUBERNETES_EXEC_INFO
    std::vector<ExecEnvVar> addedEnv;       // `env` as the kubeconfig lists it; values may be secrets
    std::string apiVersion;
    std::string kubeconfigFile; // the file that defined the user
    std::string contextName;
    std::string userName;
    std::string server; // where the returned credential is sent
    bool provideClusterInfo = false;
    std::string clusterConfig; // the cluster's exec extension as JSON text, when provideClusterInfo
    // Parent environment + env + KUBERNETES_EXEC_INFO. May hold secrets: never log or display it.
    QProcessEnvironment environment;

    // SHA-256 (hex) over everything the user is shown: kubeconfig file, context, user, server,
    // command, resolved program, arguments, added env names and values, provideClusterInfo (and the
    // cluster config it hands over). A consent is remembered under it, so the same stanza aimed at
    // another server, or with one argument or variable changed, asks again.
    std::string fingerprint() const;
};

// spec.cluster of KUBERNETES_EXEC_INFO (client.authentication.k8s.io Cluster): server,
// tls-server-name, insecure-skip-tls-verify, certificate-authority-data, proxy-url,
// disable-compression and config (the client.authentication.k8s.io/exec cluster extension).
core::Json execClusterInfo(const ResolvedConfig &config);

// Resolves the command in the PATH of `baseEnvironment` (not of the plugin's env, as exec.LookPath
// does) and builds the environment with KUBERNETES_EXEC_INFO; `clusterInfo` is included only when
// provideClusterInfo is set. Fails with an Auth error for interactiveMode Always and for a missing
// executable (the message carries installHint, ANSI escapes removed).
// PATH entries that are not absolute ("", ".", "bin") are skipped: a plugin is never found in the
// working directory (Go's exec.LookPath refuses them with ErrDot, so client-go does too).
core::Result<ExecInvocation> prepareExec(const ExecConfig &exec, const core::Json &clusterInfo,
                                         const QProcessEnvironment &baseEnvironment, const std::string &kubeconfigFile,
                                         const std::string &userName);
// The same for a resolved context: also records its context, server and cluster config.
core::Result<ExecInvocation> prepareExec(const ResolvedConfig &config, const QProcessEnvironment &baseEnvironment);

// Validates the plugin's stdout as exec.go does. Error messages never quote the output.
core::Result<ExecCredential> parseExecCredential(std::string_view stdoutText, const std::string &expectedApiVersion,
                                                 const std::string &command);

struct ExecOutcome {
    core::Result<ExecCredential> credential;
    std::string diagnostics; // the plugin's stderr (trimmed to its last 8 KiB); shown to the user, not logged
};

// Runs the plugin with stdin closed and waits. Worker thread only (blocks up to `timeout`); when
// `cancel` becomes true the plugin is killed within ~100 ms and the outcome is a Cancelled error.
ExecOutcome runExecPlugin(const ExecInvocation &invocation, std::chrono::milliseconds timeout,
                          const std::atomic<bool> *cancel = nullptr);

// Asynchronous run for a thread with an event loop. Lives on the thread that created it; deleting
// it kills a running plugin. finished() is emitted exactly once per start().
class ExecPluginProcess : public QObject
{
    Q_OBJECT
public:
    explicit ExecPluginProcess(QObject *parent = nullptr);
    ~ExecPluginProcess() override;

    void start(ExecInvocation invocation, std::chrono::milliseconds timeout);
    bool isRunning() const;
    // Valid after finished().
    const ExecOutcome &outcome() const { return *m_outcome; }

Q_SIGNALS:
    void finished();

private:
    void complete(bool timedOut);
    // Detaches m_process; a running one is killed and frees itself when reaped.
    void abandonProcess();

    ExecInvocation m_invocation;
    QProcess *m_process = nullptr;
    QTimer *m_timer = nullptr;
    std::optional<ExecOutcome> m_outcome;
};

} // namespace fieldscope::kube
