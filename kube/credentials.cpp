#include "kube/credentials.h"

#include "core/base/boundary.h"
#include "kube/authlog.h"
#include "kube/kubeconfig_p.h"

#include <QFile>
#include <QFileInfo>

#include <algorithm>
#include <cctype>
#include <future>

namespace fieldscope::kube {

using core::Error;
using core::ErrorCategory;
using core::Result;

namespace {

Error authError(std::string message, std::string reason, std::string where)
{
    Error e = Error::make(ErrorCategory::Auth, std::move(message), std::move(where));
    e.reason = std::move(reason);
    return e;
}

} // namespace

std::optional<bool> InMemoryConsentStore::decision(const std::string &fingerprint) const
{
    std::lock_guard lock(m_mutex);
    auto it = m_records.find(fingerprint);
    if (it == m_records.end())
        return std::nullopt;
    return it->second.allowed;
}

void InMemoryConsentStore::remember(const ConsentRecord &record)
{
    std::lock_guard lock(m_mutex);
    m_records[record.fingerprint] = record;
}

std::vector<ConsentRecord> InMemoryConsentStore::decisions() const
{
    std::lock_guard lock(m_mutex);
    std::vector<ConsentRecord> out;
    for (const auto &[fp, r] : m_records)
        out.push_back(r);
    std::stable_sort(out.begin(), out.end(), [](const auto &a, const auto &b) { return a.when > b.when; });
    return out;
}

bool InMemoryConsentStore::forget(const std::string &fingerprint)
{
    std::lock_guard lock(m_mutex);
    return m_records.erase(fingerprint) > 0;
}

int InMemoryConsentStore::forgetAll()
{
    std::lock_guard lock(m_mutex);
    const int n = int(m_records.size());
    m_records.clear();
    return n;
}

std::string consentId(const ConsentRecord &record)
{
    return record.fingerprint.substr(0, 12);
}

Result<std::string> findConsent(const std::vector<ConsentRecord> &records, const std::string &id)
{
    std::string want;
    for (char c : id)
        want += char(std::tolower(static_cast<unsigned char>(c)));
    if (want.size() < 4 || want.find_first_not_of("0123456789abcdef") != std::string::npos)
        return Error::make(ErrorCategory::Config,
                           "\"" + id
                               + "\" is not a consent id (at least 4 hex digits, as `fieldscope consent list` shows)");
    std::vector<std::string> matches;
    for (const auto &r : records)
        if (r.fingerprint.rfind(want, 0) == 0)
            matches.push_back(r.fingerprint);
    if (matches.empty())
        return Error::make(ErrorCategory::Config, "no remembered exec plugin decision has the id " + id);
    if (matches.size() > 1)
        return Error::make(ErrorCategory::Config, "the id " + id + " matches " + std::to_string(matches.size())
                                                      + " decisions; give more digits");
    return matches.front();
}

ConsentCallback allowAllExecPlugins()
{
    return [](const ExecConsentRequest &, const ConsentReply &reply) { reply(ConsentAnswer::Allow); };
}

CredentialProvider::CredentialProvider(ResolvedConfig config, CredentialOptions options)
    : m_config(std::move(config))
    , m_options(std::move(options))
    , m_store(m_options.consentStore ? m_options.consentStore : std::make_shared<InMemoryConsentStore>())
{
    const AuthConfig &a = m_config.auth;
    m_credential.generation = 1;
    m_gate->owner = this;
    switch (a.method) {
    case AuthMethod::None:
    case AuthMethod::Exec: break;
    case AuthMethod::Token: m_credential.bearerToken = a.token; break;
    case AuthMethod::TokenFile: m_tokenFile.path = a.tokenFile; break;
    case AuthMethod::Basic:
        m_credential.username = a.username;
        m_credential.password = a.password;
        break;
    case AuthMethod::ClientCertificate:
        m_credential.clientCertificatePem = a.clientCertificatePem;
        m_credential.clientKeyPem = a.clientKeyPem;
        // Only certificates that came from files can rotate; seed the watch with what resolve() read.
        if (!a.clientCertificateFile.empty() && !a.clientKeyFile.empty()) {
            const auto now = std::chrono::steady_clock::now();
            for (const auto &[f, path, pem] : {std::tuple{&m_certFile, a.clientCertificateFile, a.clientCertificatePem},
                                               std::tuple{&m_keyFile, a.clientKeyFile, a.clientKeyPem}}) {
                const QFileInfo fi(QString::fromStdString(path));
                f->path = path;
                f->content = pem;
                f->modified = fi.lastModified();
                f->size = fi.size();
                f->lastRead = f->lastCheck = now;
                f->forceRead = false;
            }
        }
        break;
    }
}

CredentialProvider::~CredentialProvider()
{
    {
        std::lock_guard gate(m_gate->mutex); // waits for a reply being delivered right now
        m_gate->owner = nullptr;
    }
    m_cancel = true;
    if (m_runner.joinable())
        m_runner.join();
    std::vector<CredentialWaiter> waiters;
    {
        std::lock_guard lock(m_mutex);
        waiters.swap(m_waiters);
    }
    for (auto &w : waiters)
        w(Error::make(ErrorCategory::Cancelled, "the connection was closed"));
}

bool CredentialProvider::isAskingConsent() const
{
    std::lock_guard lock(m_mutex);
    return m_execState == ExecState::Asking;
}

QDateTime CredentialProvider::nowUtc() const
{
    return m_options.now ? m_options.now().toUTC() : QDateTime::currentDateTimeUtc();
}

std::string CredentialProvider::lastDiagnostics() const
{
    std::lock_guard lock(m_mutex);
    return m_diagnostics;
}

Result<bool> CredentialProvider::refreshFile(WatchedFile &f, const char *what)
{
    const auto now = std::chrono::steady_clock::now();
    if (!f.forceRead && now - f.lastCheck < m_options.fileCheckInterval)
        return false;
    f.lastCheck = now;
    const QFileInfo fi(QString::fromStdString(f.path)); // follows the ..data symlink of projected volumes
    const bool changed = fi.lastModified() != f.modified || fi.size() != f.size;
    if (!f.forceRead && !changed && now - f.lastRead < m_options.fileMaxAge)
        return false;
    // Regular files of at most 1 MiB (detail::readFile): a tokenFile pointing at /dev/zero or a
    // FIFO must neither hang the network thread nor fill memory.
    auto read = detail::readFile(f.path, what);
    if (!read) {
        const std::string reason = read.error().message;
        if (!f.content.isEmpty()) {
            qCWarning(lcKubeAuth).noquote() << QString::fromStdString(reason) << "; keeping the previous one";
            f.forceRead = false;
            return false;
        }
        return authError(reason, "CredentialFile", m_config.auth.sourceFile);
    }
    const QByteArray content = *read;
    f.modified = fi.lastModified();
    f.size = fi.size();
    f.lastRead = now;
    f.forceRead = false;
    if (content == f.content)
        return false;
    qCInfo(lcKubeAuth).noquote() << "re-read" << what << QString::fromStdString(f.path);
    f.content = content;
    return true;
}

Result<AuthCredential> CredentialProvider::current()
{
    auto box = std::make_shared<std::promise<Result<AuthCredential>>>();
    auto later = box->get_future();
    auto now = current([box](Result<AuthCredential> r) { box->set_value(std::move(r)); });
    if (now)
        return std::move(*now);
    {
        std::lock_guard lock(m_mutex);
        if (m_execState == ExecState::Asking)
            return authError("waiting for consent to run the exec credential plugin " + m_asked->program + " from "
                                 + m_asked->kubeconfigFile,
                             "ConsentPending", m_asked->kubeconfigFile);
    }
    return later.get();
}

std::optional<Result<AuthCredential>> CredentialProvider::current(CredentialWaiter later)
{
    if (m_config.auth.method == AuthMethod::Exec)
        return currentExec(std::move(later));
    std::lock_guard lock(m_mutex);
    switch (m_config.auth.method) {
    case AuthMethod::None:
    case AuthMethod::Token:
    case AuthMethod::Basic: return m_credential;
    case AuthMethod::TokenFile: {
        auto changed = refreshFile(m_tokenFile, "token file");
        if (!changed)
            return changed.error();
        const std::string token = QString::fromUtf8(m_tokenFile.content).trimmed().toStdString();
        if (token.empty())
            return authError("the token file " + m_tokenFile.path + " is empty", "CredentialFile",
                             m_config.auth.sourceFile);
        if (!detail::isSafeHeaderValue(token))
            return authError("the token file " + m_tokenFile.path
                                 + " holds a line break or another control character inside the token",
                             "CredentialFile", m_config.auth.sourceFile);
        if (token != m_credential.bearerToken) {
            m_credential.bearerToken = token;
            ++m_credential.generation;
        }
        return m_credential;
    }
    case AuthMethod::ClientCertificate: {
        if (m_certFile.path.empty())
            return m_credential;
        auto certChanged = refreshFile(m_certFile, "client certificate");
        if (!certChanged)
            return certChanged.error();
        auto keyChanged = refreshFile(m_keyFile, "client key");
        if (!keyChanged)
            return keyChanged.error();
        if (*certChanged || *keyChanged) {
            m_credential.clientCertificatePem = m_certFile.content;
            m_credential.clientKeyPem = m_keyFile.content;
            ++m_credential.generation;
        }
        return m_credential;
    }
    case AuthMethod::Exec: break;
    }
    return m_credential;
}

ConsentRecord CredentialProvider::recordFor(const ExecInvocation &inv, bool allowed) const
{
    return {inv.fingerprint(), allowed,    inv.kubeconfigFile, inv.contextName,
            inv.userName,      inv.server, inv.program,        nowUtc()};
}

std::optional<Result<AuthCredential>> CredentialProvider::currentExec(CredentialWaiter later)
{
    std::unique_lock lock(m_mutex);
    // A cached credential is good until its expirationTimestamp, or until a 401 when it has none.
    if (m_exec && (!m_exec->expiry || nowUtc() < *m_exec->expiry))
        return Result<AuthCredential>(m_credential);
    if (m_execState != ExecState::Idle) {
        m_waiters.push_back(std::move(later)); // one question, one run, for every request
        return std::nullopt;
    }

    auto inv = prepareExec(m_config, m_options.environment);
    if (!inv)
        return Result<AuthCredential>(inv.error());
    const std::string &file = inv->kubeconfigFile;
    if (m_options.allowExecPluginsThisRun) {
        m_waiters.push_back(std::move(later));
        startRunLocked(std::move(*inv));
        return std::nullopt;
    }
    const std::string fingerprint = inv->fingerprint();
    const std::optional<bool> stored = m_store->decision(fingerprint);
    if (stored == true) {
        m_waiters.push_back(std::move(later));
        startRunLocked(std::move(*inv));
        return std::nullopt;
    }
    // Arguments may carry client secrets, so messages name the program only.
    if (stored == false)
        return Result<AuthCredential>(authError(
            "running the exec credential plugin " + inv->program + " from " + file + " was denied earlier (consent id "
                + fingerprint.substr(0, 12) + "; forget the decision in Settings or with `fieldscope consent forget "
                + fingerprint.substr(0, 12) + "`)",
            "ConsentDenied", file));
    if (!m_options.askConsent)
        return Result<AuthCredential>(authError("the exec credential plugin " + inv->program + " from " + file
                                                    + " has not been allowed to run",
                                                "ConsentNotGiven", file));

    m_execState = ExecState::Asking;
    m_waiters.push_back(std::move(later));
    const std::uint64_t question = ++m_question;
    ExecConsentRequest req{
        file, inv->contextName, inv->userName, inv->server, inv->program, describeExecInvocation(*inv), fingerprint};
    m_asked = std::move(*inv);
    lock.unlock();
    // The reply may come right away (command line) or whenever the user answers (window).
    ConsentReply reply = [gate = std::weak_ptr<ReplyGate>(m_gate), question](ConsentAnswer answer) {
        auto g = gate.lock();
        if (!g)
            return;
        std::lock_guard hold(g->mutex);
        if (g->owner)
            g->owner->onConsentAnswer(question, answer);
    };
    m_options.askConsent(req, std::move(reply));
    return std::nullopt;
}

void CredentialProvider::onConsentAnswer(std::uint64_t question, ConsentAnswer answer)
{
    std::vector<CredentialWaiter> waiters;
    Error failure;
    {
        std::lock_guard lock(m_mutex);
        if (question != m_question || m_execState != ExecState::Asking)
            return; // a second click, or an answer to a question already settled
        ExecInvocation inv = std::move(*m_asked);
        m_asked.reset();
        const std::string &file = inv.kubeconfigFile;
        if (answer != ConsentAnswer::NotNow) {
            m_store->remember(recordFor(inv, answer == ConsentAnswer::Allow));
            qCInfo(lcKubeAuth).noquote() << "exec plugin" << QString::fromStdString(inv.program) << "from"
                                         << QString::fromStdString(file)
                                         << (answer == ConsentAnswer::Allow ? "allowed" : "denied") << "by the user";
        }
        if (answer == ConsentAnswer::Allow) {
            startRunLocked(std::move(inv));
            return;
        }
        m_execState = ExecState::Idle;
        failure = answer == ConsentAnswer::Deny
                    ? authError("running the exec credential plugin " + inv.program + " from " + file + " was denied",
                                "ConsentDenied", file)
                    : authError("the exec credential plugin " + inv.program + " from " + file
                                    + " was not run: nobody answered the question",
                                "ConsentNotGiven", file);
        waiters.swap(m_waiters);
    }
    for (auto &w : waiters)
        w(failure);
}

void CredentialProvider::startRunLocked(ExecInvocation invocation)
{
    m_execState = ExecState::Running;
    // The previous run has set Idle and is at most delivering its outcome (no lock needed there).
    if (m_runner.joinable())
        m_runner.join();
    m_runner = std::thread([this, inv = std::move(invocation)]() mutable {
        // The thread's last boundary (core/base/boundary.h): requests waiting for this credential get
        // the error instead of waiting for ever.
        const core::Status st = core::guarded("the exec credential plugin", [&] { runPlugin(inv); });
        if (st)
            return;
        std::vector<CredentialWaiter> waiters;
        {
            std::lock_guard lock(m_mutex);
            m_execState = ExecState::Idle;
            waiters.swap(m_waiters);
        }
        for (auto &w : waiters)
            w(st.error());
    });
}

void CredentialProvider::runPlugin(const ExecInvocation &invocation)
{
    ExecOutcome out = runExecPlugin(invocation, m_options.execTimeout, &m_cancel);
    std::vector<CredentialWaiter> waiters;
    Result<AuthCredential> result = Error();
    {
        std::lock_guard lock(m_mutex);
        m_diagnostics = out.diagnostics;
        m_execState = ExecState::Idle;
        waiters.swap(m_waiters);
        if (out.credential && !detail::isSafeHeaderValue(out.credential->token))
            out.credential = authError("exec plugin " + invocation.program
                                           + " returned a token with a line break or another control character",
                                       "ExecPluginOutput", invocation.kubeconfigFile);
        if (!out.credential) {
            result = out.credential.error();
        } else {
            const ExecCredential &c = *out.credential;
            const bool certChanged = c.clientCertificatePem != m_credential.clientCertificatePem
                                  || c.clientKeyPem != m_credential.clientKeyPem;
            if (!m_exec || certChanged || c.token != m_credential.bearerToken)
                ++m_credential.generation;
            if (certChanged && m_exec)
                qCInfo(lcKubeAuth) << "exec plugin rotated the client certificate; connections must be re-established";
            m_credential.bearerToken = c.token;
            m_credential.clientCertificatePem = c.clientCertificatePem;
            m_credential.clientKeyPem = c.clientKeyPem;
            m_credential.expiry = c.expiry;
            m_exec = c;
            result = m_credential;
        }
    }
    for (auto &w : waiters)
        w(result);
}

bool CredentialProvider::invalidate()
{
    std::uint64_t generation = 0;
    {
        std::lock_guard lock(m_mutex);
        generation = m_credential.generation;
    }
    return invalidate(generation);
}

bool CredentialProvider::invalidate(std::uint64_t failedGeneration)
{
    std::lock_guard lock(m_mutex);
    switch (m_config.auth.method) {
    case AuthMethod::None:
    case AuthMethod::Token:
    case AuthMethod::Basic:
    case AuthMethod::ClientCertificate: return false;
    case AuthMethod::TokenFile:
        if (failedGeneration == m_credential.generation)
            m_tokenFile.forceRead = true;
        return true;
    case AuthMethod::Exec:
        // Another request already got a fresh credential after this one was sent: just retry.
        if (failedGeneration == m_credential.generation && m_exec) {
            qCInfo(lcKubeAuth)
                << "server rejected the exec credential (401); the plugin runs again on the next request";
            m_exec.reset();
        }
        return true;
    }
    return false;
}

} // namespace fieldscope::kube
