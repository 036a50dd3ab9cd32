#include "kube/credentials.h"

#include "kube/authlog.h"
#include "kube/kubeconfig_p.h"

#include <QFile>
#include <QFileInfo>

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

std::optional<bool> InMemoryConsentStore::decision(const std::string &kubeconfigFile, const std::string &consentKey) const
{
    std::lock_guard lock(m_mutex);
    auto it = m_decisions.find({kubeconfigFile, consentKey});
    if (it == m_decisions.end())
        return std::nullopt;
    return it->second;
}

void InMemoryConsentStore::remember(const std::string &kubeconfigFile, const std::string &consentKey, bool allowed)
{
    std::lock_guard lock(m_mutex);
    m_decisions[{kubeconfigFile, consentKey}] = allowed;
}

ConsentCallback allowAllExecPlugins()
{
    return [](const ExecConsentRequest &) { return ConsentDecision::Allow; };
}

CredentialProvider::CredentialProvider(ResolvedConfig config, CredentialOptions options)
    : m_config(std::move(config)),
      m_options(std::move(options)),
      m_store(m_options.consentStore ? m_options.consentStore : std::make_shared<InMemoryConsentStore>())
{
    const AuthConfig &a = m_config.auth;
    m_credential.generation = 1;
    switch (a.method) {
    case AuthMethod::None:
    case AuthMethod::Exec:
        break;
    case AuthMethod::Token:
        m_credential.bearerToken = a.token;
        break;
    case AuthMethod::TokenFile:
        m_tokenFile.path = a.tokenFile;
        break;
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
            for (auto [f, path, pem] : {std::tuple{&m_certFile, a.clientCertificateFile, a.clientCertificatePem},
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
    std::lock_guard lock(m_mutex);
    switch (m_config.auth.method) {
    case AuthMethod::None:
    case AuthMethod::Token:
    case AuthMethod::Basic:
        return m_credential;
    case AuthMethod::TokenFile: {
        auto changed = refreshFile(m_tokenFile, "token file");
        if (!changed)
            return changed.error();
        const std::string token = QString::fromUtf8(m_tokenFile.content).trimmed().toStdString();
        if (token.empty())
            return authError("the token file " + m_tokenFile.path + " is empty", "CredentialFile", m_config.auth.sourceFile);
        if (!detail::isSafeHeaderValue(token))
            return authError("the token file " + m_tokenFile.path + " holds a line break or another control character inside the token",
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
    case AuthMethod::Exec:
        return currentExecLocked();
    }
    return m_credential;
}

Result<AuthCredential> CredentialProvider::currentExecLocked()
{
    // A cached credential is good until its expirationTimestamp, or until a 401 when it has none.
    if (m_exec && (!m_exec->expiry || nowUtc() < *m_exec->expiry))
        return m_credential;

    const AuthConfig &a = m_config.auth;
    auto inv = prepareExec(a.exec, execClusterInfo(m_config), m_options.environment, a.sourceFile, a.userName);
    if (!inv)
        return inv.error();

    const std::string key = inv->consentKey();
    std::optional<bool> allowed = m_store->decision(a.sourceFile, key);
    if (!allowed) {
        ExecConsentRequest req{a.sourceFile, a.userName, inv->program, inv->commandLine(), inv->addedEnvNames, key};
        const ConsentDecision d = m_options.askConsent ? m_options.askConsent(req) : ConsentDecision::Pending;
        if (d == ConsentDecision::Pending) {
            // Arguments may carry client secrets, so the message names the program only.
            return authError(m_options.askConsent ? "waiting for consent to run the exec credential plugin " + inv->program + " from " + a.sourceFile
                                                  : "the exec credential plugin " + inv->program + " from " + a.sourceFile +
                                                        " has not been allowed to run",
                             "ConsentPending", a.sourceFile);
        }
        allowed = d == ConsentDecision::Allow;
        m_store->remember(a.sourceFile, key, *allowed);
        qCInfo(lcKubeAuth).noquote() << "exec plugin" << QString::fromStdString(inv->program) << "from" << QString::fromStdString(a.sourceFile)
                                     << (*allowed ? "allowed" : "denied") << "by the user";
    }
    if (!*allowed)
        return authError("running the exec credential plugin " + inv->program + " from " + a.sourceFile + " was denied", "ConsentDenied", a.sourceFile);

    ExecOutcome out = runExecPlugin(*inv, m_options.execTimeout);
    m_diagnostics = out.diagnostics;
    if (out.credential && !detail::isSafeHeaderValue(out.credential->token))
        out.credential = authError("exec plugin " + inv->program + " returned a token with a line break or another control character",
                                   "ExecPluginOutput", inv->kubeconfigFile);
    if (!out.credential)
        return out.credential.error();
    const ExecCredential &c = *out.credential;
    const bool certChanged = c.clientCertificatePem != m_credential.clientCertificatePem || c.clientKeyPem != m_credential.clientKeyPem;
    if (!m_exec || certChanged || c.token != m_credential.bearerToken)
        ++m_credential.generation;
    if (certChanged && m_exec)
        qCInfo(lcKubeAuth) << "exec plugin rotated the client certificate; connections must be re-established";
    m_credential.bearerToken = c.token;
    m_credential.clientCertificatePem = c.clientCertificatePem;
    m_credential.clientKeyPem = c.clientKeyPem;
    m_credential.expiry = c.expiry;
    m_exec = c;
    return m_credential;
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
    case AuthMethod::ClientCertificate:
        return false;
    case AuthMethod::TokenFile:
        if (failedGeneration == m_credential.generation)
            m_tokenFile.forceRead = true;
        return true;
    case AuthMethod::Exec:
        // Another request already got a fresh credential after this one was sent: just retry.
        if (failedGeneration == m_credential.generation && m_exec) {
            qCInfo(lcKubeAuth) << "server rejected the exec credential (401); the plugin runs again on the next request";
            m_exec.reset();
        }
        return true;
    }
    return false;
}

} // namespace fieldscope::kube
