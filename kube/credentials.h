#pragma once
// Per-request credentials for one ResolvedConfig: static tokens, rotating token files, client
// certificates (re-read when their files change), basic auth and exec plugins with caching,
// consent and 401 refresh (k8s.io/client-go/plugin/pkg/client/auth/exec/exec.go, .../transport/token_source.go).
//
// Threads: a CredentialProvider is created anywhere and then used from the network thread(s).
// All its state is guarded by m_mutex, which is never held while a plugin runs or a question is
// asked. An exec plugin runs on the provider's own runner thread and its consent question is
// answered whenever the user gets to it: current(later) never waits for either. Requests that
// arrive meanwhile queue their `later` and all get the one outcome (client-go also runs one plugin
// for concurrent callers). The blocking current() is for the command line and tests.
#include "core/base/result.h"
#include "kube/execconsent.h"
#include "kube/execplugin.h"
#include "kube/kubeconfig.h"

#include <QByteArray>
#include <QDateTime>
#include <QProcessEnvironment>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace fieldscope::kube {

// What the transport attaches to one request. (Named AuthCredential: kube/transport.h has its own
// narrower Credential that the composition root fills from this one.) Any subset may be set: a bearer token, basic
// auth, and/or a client certificate (an exec plugin may return a token and a certificate).
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

// The user's answer to "run this plugin?". NotNow (the question was closed, the tab closed, the app
// quit, or the command line could not ask) fails the waiting requests and is never remembered.
enum class ConsentAnswer {
    Allow,
    Deny,
    NotNow,
};

// What the user is asked to allow before an exec plugin runs.
struct ExecConsentRequest {
    std::string kubeconfigFile; // the file that defined the user
    std::string contextName;
    std::string userName;
    std::string server;                 // where the credential goes
    std::string program;                // absolute path
    ExecConsentDescription description; // everything shown, escaped (kube/execconsent.h)
    std::string fingerprint;            // what a decision is remembered under
};

// One remembered decision. No arguments or env values: they may hold client secrets.
struct ConsentRecord {
    std::string fingerprint; // ExecInvocation::fingerprint(), 64 hex digits; its prefix is the id users type
    bool allowed = false;
    std::string kubeconfigFile;
    std::string contextName;
    std::string userName;
    std::string server;
    std::string program;
    QDateTime when; // UTC
};

// Remembers decisions by fingerprint. The app backs it with QSettings, shared by the window and the
// command line. Implementations are called from network, runner and GUI threads, never with a
// CredentialProvider's mutex held; they must be thread-safe.
class ConsentStore
{
public:
    virtual ~ConsentStore() = default;
    virtual std::optional<bool> decision(const std::string &fingerprint) const = 0;
    virtual void remember(const ConsentRecord &record) = 0;
    virtual std::vector<ConsentRecord> decisions() const = 0; // newest first
    virtual bool forget(const std::string &fingerprint) = 0;  // whether one was removed
    virtual int forgetAll() = 0;                              // how many were removed
};

// The fingerprint a user-typed id names: a full fingerprint or a unique prefix of at least 4 hex
// digits. A Config error when it matches none or several.
core::Result<std::string> findConsent(const std::vector<ConsentRecord> &records, const std::string &id);
// The id shown for a record (its first 12 hex digits).
std::string consentId(const ConsentRecord &record);

class InMemoryConsentStore final : public ConsentStore
{
public:
    std::optional<bool> decision(const std::string &fingerprint) const override;
    void remember(const ConsentRecord &record) override;
    std::vector<ConsentRecord> decisions() const override;
    bool forget(const std::string &fingerprint) override;
    int forgetAll() override;

private:
    mutable std::mutex m_mutex; // guards m_records
    std::map<std::string, ConsentRecord> m_records;
};

// Called at most once per question: Allow and Deny are remembered, NotNow is not. May be called
// from any thread, synchronously inside the ConsentCallback or much later; calls after the first,
// or after the provider is gone, are ignored.
using ConsentReply = std::function<void(ConsentAnswer)>;
// Asked when the store has no decision. Called on the thread that asked for a credential (usually
// the network thread) without any lock held; it must return at once (post a question to the GUI
// thread, or print and reply). The provider asks one question at a time.
using ConsentCallback = std::function<void(const ExecConsentRequest &, ConsentReply)>;

// Replies Allow to every question (tests). The command line's --allow-exec-plugins uses
// CredentialOptions::allowExecPluginsThisRun instead, which remembers nothing.
ConsentCallback allowAllExecPlugins();

struct CredentialOptions {
    std::shared_ptr<ConsentStore> consentStore; // null: a private InMemoryConsentStore
    ConsentCallback askConsent;                 // null: plugins without a stored Allow do not run
    // --allow-exec-plugins: run without asking, even over a stored Deny, and remember nothing.
    bool allowExecPluginsThisRun = false;
    std::chrono::milliseconds execTimeout{std::chrono::minutes(2)}; // browser logins take a while
    // tokenFile / client certificate files: stat at most this often, and re-read when the size or
    // modification time changed or when the last read is older than fileMaxAge (client-go re-reads
    // token files every minute; projected tokens rotate by replacing a symlink).
    std::chrono::milliseconds fileCheckInterval{std::chrono::seconds(1)};
    std::chrono::milliseconds fileMaxAge{std::chrono::minutes(1)};
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment(); // exec plugins' base env
    std::function<QDateTime()> now; // UTC clock for exec expiry; null: the system clock
};

// Delivers a credential that was not ready when asked for. Called exactly once, on the runner
// thread or the thread that answered the consent question (or inside current() itself).
using CredentialWaiter = std::function<void(core::Result<AuthCredential>)>;

class CredentialProvider
{
public:
    explicit CredentialProvider(ResolvedConfig config, CredentialOptions options = {});
    // Stops a running plugin (killed within ~100 ms) and fails the waiting requests as Cancelled.
    ~CredentialProvider();
    CredentialProvider(const CredentialProvider &) = delete;
    CredentialProvider &operator=(const CredentialProvider &) = delete;

    // The credential for the next request, or nullopt when it is not ready (the exec plugin runs
    // or its consent question is open): `later` then gets it. Never waits for a plugin or a user.
    // Token and certificate files are read here (small, size-limited local files).
    // Errors are Auth (or Io) and never contain credential material.
    std::optional<core::Result<AuthCredential>> current(CredentialWaiter later);
    // Blocking form (command line, tests): waits for a running plugin; while a consent question is
    // open it fails at once with reason "ConsentPending".
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
    // A consent question is open (for tests and status lines).
    bool isAskingConsent() const;

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
    std::optional<core::Result<AuthCredential>> currentExec(CredentialWaiter later);
    void startRunLocked(ExecInvocation invocation);   // m_mutex held
    void runPlugin(const ExecInvocation &invocation); // the runner thread
    void onConsentAnswer(std::uint64_t question, ConsentAnswer answer);
    ConsentRecord recordFor(const ExecInvocation &inv, bool allowed) const;
    QDateTime nowUtc() const;

    // Lets a late ConsentReply reach this provider only while it exists.
    struct ReplyGate {
        std::mutex mutex; // held while a reply is delivered; the destructor takes it to close the gate
        CredentialProvider *owner = nullptr;
    };
    enum class ExecState { Idle, Asking, Running };

    const ResolvedConfig m_config;
    const CredentialOptions m_options;
    const std::shared_ptr<ConsentStore> m_store; // m_options.consentStore or a private one

    mutable std::mutex m_mutex;  // guards everything below
    AuthCredential m_credential; // the static or last good credential
    WatchedFile m_tokenFile;
    WatchedFile m_certFile;
    WatchedFile m_keyFile;
    std::optional<ExecCredential> m_exec; // cached plugin output; reset by invalidate()
    std::string m_diagnostics;
    ExecState m_execState = ExecState::Idle;
    std::vector<CredentialWaiter> m_waiters; // requests waiting for the question or the run
    std::optional<ExecInvocation> m_asked;   // what the open question is about
    std::uint64_t m_question = 0;            // serial of the open question; stale replies are ignored
    std::thread m_runner;                    // the last plugin run; joined before the next and in the destructor
    std::atomic<bool> m_cancel{false};
    std::shared_ptr<ReplyGate> m_gate = std::make_shared<ReplyGate>();
};

} // namespace fieldscope::kube
