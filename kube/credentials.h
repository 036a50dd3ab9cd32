#pragma once
// Per-request credentials for one ResolvedConfig: static tokens, rotating token files, client
// certificates (re-read when their files change), basic auth and exec plugins with caching,
// consent and 401 refresh (API brief 6.3, 6.4, 6.6).
//
// Threads: a CredentialProvider is created anywhere and then used from the network thread(s).
// All its state is guarded by m_mutex; current() holds it while it reads files or runs a plugin, so
// concurrent callers wait for one plugin run instead of starting several (client-go does the same).
// current() may therefore block for up to CredentialOptions::execTimeout: never call it on the GUI
// thread when method() is Exec (use ExecPluginProcess there).
#include "core/result.h"
#include "kube/execplugin.h"
#include "kube/kubeconfig.h"

#include <QByteArray>
#include <QDateTime>
#include <QProcessEnvironment>

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

namespace fieldscope::kube {

// What the transport attaches to one request. (Named AuthCredential: kube/transport.h has its own
// narrower Credential that the composition root fills from this one.) Any subset may be set: a bearer token, basic auth,
// and/or a client certificate (an exec plugin may return a token and a certificate).
struct AuthCredential {
    std::string bearerToken;
    std::string username;
    std::string password;
    QByteArray clientCertificatePem;
    QByteArray clientKeyPem;
    // Increases whenever the material changes. Pass it to invalidate() after a 401; when the
    // certificate changed, drop pooled connections so new TLS handshakes present it.
    std::uint64_t generation = 0;
    std::optional<QDateTime> expiry; // exec credentials only
};

enum class ConsentDecision {
    Allow,
    Deny,
    Pending, // the user is being asked; the request fails with reason "ConsentPending" for now
};

// What the user is asked to allow before an exec plugin runs for the first time.
struct ExecConsentRequest {
    std::string kubeconfigFile; // the file that defined the user
    std::string userName;
    std::string program;        // absolute path
    std::string commandLine;    // program and arguments, shell-quoted
    std::vector<std::string> addedEnvNames; // names only; values may be secrets
    std::string consentKey;     // what a decision is remembered under, with kubeconfigFile
};

// Remembers consent per (kubeconfig file, consent key). The app backs it with QSettings.
// Implementations are called from network threads with a CredentialProvider's mutex held: they
// must be thread-safe and must not call into a CredentialProvider.
class ConsentStore
{
public:
    virtual ~ConsentStore() = default;
    virtual std::optional<bool> decision(const std::string &kubeconfigFile, const std::string &consentKey) const = 0;
    virtual void remember(const std::string &kubeconfigFile, const std::string &consentKey, bool allowed) = 0;
};

class InMemoryConsentStore final : public ConsentStore
{
public:
    std::optional<bool> decision(const std::string &kubeconfigFile, const std::string &consentKey) const override;
    void remember(const std::string &kubeconfigFile, const std::string &consentKey, bool allowed) override;

private:
    mutable std::mutex m_mutex; // guards m_decisions
    std::map<std::pair<std::string, std::string>, bool> m_decisions;
};

// Asked when the store has no decision. Called on the thread that calls current(), with the
// provider's mutex held: it must not block on the GUI thread. A GUI implementation posts a dialog
// to the GUI thread and returns Pending; the dialog writes the answer into the ConsentStore and the
// caller retries. It may be called again while its dialog is open and must not open a second one.
// Allow and Deny returned here are written to the store by the provider.
using ConsentCallback = std::function<ConsentDecision(const ExecConsentRequest &)>;

// For the command line's --allow-exec-plugins: allows every plugin without asking.
ConsentCallback allowAllExecPlugins();

struct CredentialOptions {
    std::shared_ptr<ConsentStore> consentStore; // null: a private InMemoryConsentStore
    ConsentCallback askConsent;                 // null: plugins without a stored Allow do not run
    std::chrono::milliseconds execTimeout{std::chrono::minutes(2)}; // browser logins take a while
    // tokenFile / client certificate files: stat at most this often, and re-read when the size or
    // modification time changed or when the last read is older than fileMaxAge (client-go re-reads
    // token files every minute; projected tokens rotate by replacing a symlink).
    std::chrono::milliseconds fileCheckInterval{std::chrono::seconds(1)};
    std::chrono::milliseconds fileMaxAge{std::chrono::minutes(1)};
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment(); // exec plugins' base env
    std::function<QDateTime()> now;             // UTC clock for exec expiry; null: the system clock
};

class CredentialProvider
{
public:
    explicit CredentialProvider(ResolvedConfig config, CredentialOptions options = {});

    // The credential for the next request. May read files or run the exec plugin (see the thread
    // note above). Errors are Auth (or Io) and never contain credential material.
    core::Result<AuthCredential> current();
    // After a 401 for a request sent with `failedGeneration`: drops the cached exec credential or
    // forces a token file re-read, unless another request already refreshed it. Returns whether a
    // single retry with current() can help (false for static tokens, certificates and basic auth).
    bool invalidate(std::uint64_t failedGeneration);
    // Same for callers that do not track generations: always invalidates what is cached now, so
    // several 401s in flight may run the plugin more than once.
    bool invalidate();

    AuthMethod method() const { return m_config.auth.method; }
    const ResolvedConfig &config() const { return m_config; }
    // stderr of the last exec plugin run, for a "details" box; may be empty. Not logged.
    std::string lastDiagnostics() const;

private:
    struct WatchedFile {
        std::string path;
        QByteArray content;
        QDateTime modified;
        qint64 size = -1;
        std::chrono::steady_clock::time_point lastRead{};
        std::chrono::steady_clock::time_point lastCheck{};
        bool forceRead = true;
    };

    // Re-reads `f` when due; returns whether the content changed. Keeps the last good content when
    // a read fails after a success (a rotation may be mid-way), like client-go's cachingTokenSource.
    core::Result<bool> refreshFile(WatchedFile &f, const char *what);
    core::Result<AuthCredential> currentExecLocked();
    QDateTime nowUtc() const;

    const ResolvedConfig m_config;
    const CredentialOptions m_options;
    const std::shared_ptr<ConsentStore> m_store; // m_options.consentStore or a private one

    mutable std::mutex m_mutex; // guards everything below
    AuthCredential m_credential;    // the static or last good credential
    WatchedFile m_tokenFile;
    WatchedFile m_certFile;
    WatchedFile m_keyFile;
    std::optional<ExecCredential> m_exec; // cached plugin output; reset by invalidate()
    std::string m_diagnostics;
};

} // namespace fieldscope::kube
