// Kubeconfig resolution: a context into a ResolvedConfig (server, CA and client certificate material,
// proxy, exactly one authentication method, exec plugin settings), the in-cluster service account,
// and the impersonation headers.
#include "kube/authlog.h"
#include "kube/kubeconfig.h"
#include "kube/kubeconfig_p.h"

#include <QFile>
#include <QFileInfo>
#include <QUrl>

#include <cctype>

namespace fieldscope::kube {

using core::Error;
using core::ErrorCategory;
using core::Result;
using detail::configError;
using detail::joinNames;
using detail::kInClusterName;
using detail::quote;
using detail::readFile;

namespace {

// Impersonate-Extra-<key>: client-go percent-encodes every byte of the key that is not an HTTP
// token character (and '%' itself) so that keys like "example.com/scopes" survive as header names.
std::string headerKeyEscape(const std::string &key)
{
    static const std::string tokenChars = "!#$&'*+-.^_`|~";
    std::string out;
    for (unsigned char c : key) {
        if (std::isalnum(c) || tokenChars.find(char(c)) != std::string::npos) {
            out += char(c);
        } else {
            static const char hex[] = "0123456789ABCDEF";
            out += '%';
            out += hex[c >> 4];
            out += hex[c & 0xf];
        }
    }
    return out;
}

std::string authProviderError(const std::string &provider, const std::string &user)
{
    std::string m = "user " + quote(user) + " uses the " + quote(provider) + " auth-provider, which is not supported; ";
    if (provider == "gcp")
        return m
             + "client-go removed it in 1.25. Install gke-gcloud-auth-plugin and configure it as an exec plugin "
               "(gcloud components install gke-gcloud-auth-plugin; gcloud container clusters get-credentials ...)";
    if (provider == "azure")
        return m
             + "client-go removed it in 1.25. Install kubelogin and convert the kubeconfig to an exec plugin "
               "(kubelogin convert-kubeconfig)";
    if (provider == "oidc")
        return m + "use an exec plugin instead, for example kubelogin (kubectl oidc-login)";
    return m + "use an exec credential plugin instead";
}

} // namespace

std::vector<std::pair<std::string, std::string>> impersonationHeaders(const ImpersonationConfig &imp)
{
    std::vector<std::pair<std::string, std::string>> out;
    if (!imp.user.empty())
        out.emplace_back("Impersonate-User", imp.user);
    if (!imp.uid.empty())
        out.emplace_back("Impersonate-Uid", imp.uid);
    for (const auto &g : imp.groups)
        out.emplace_back("Impersonate-Group", g);
    for (const auto &[key, values] : imp.extra)
        for (const auto &v : values)
            out.emplace_back("Impersonate-Extra-" + headerKeyEscape(key), v);
    return out;
}

Result<ResolvedConfig> Kubeconfig::resolveInCluster() const
{
    ResolvedConfig rc;
    rc.inCluster = true;
    rc.contextName = kInClusterName;
    rc.clusterName = kInClusterName;
    rc.server = m_inCluster->server;
    rc.namespace_ = m_inCluster->namespace_;
    // rest.InClusterConfig: the token must be readable now; a missing CA only logs and falls back
    // to the system roots.
    auto token = readFile(m_inCluster->tokenFile, "service account token");
    if (!token)
        return Error::make(ErrorCategory::Auth, token.error().message, m_inCluster->tokenFile);
    auto ca = readFile(m_inCluster->caFile, "service account CA");
    if (ca) {
        rc.caPem = *ca;
        rc.caFile = m_inCluster->caFile;
    } else {
        rc.warnings.push_back(ca.error().message + "; using the system trust store");
        qCWarning(lcKubeAuth).noquote() << QString::fromStdString(rc.warnings.back());
    }
    rc.auth.method = AuthMethod::TokenFile;
    rc.auth.tokenFile = m_inCluster->tokenFile;
    return rc;
}

namespace {

// Cluster half of resolve(): server, TLS material, proxy (validateClusterInfo, transport.go).
core::Status resolveCluster(const ClusterConfig *cl, ResolvedConfig &rc)
{
    if (cl->server.empty())
        return configError("no server found for cluster " + quote(cl->name), cl->sourceFile);
    {
        // client-go DefaultServerURL: a bare host:port means https.
        QUrl url(QString::fromStdString(cl->server), QUrl::StrictMode);
        if (!url.isValid() || url.scheme().isEmpty() || url.host().isEmpty())
            url = QUrl(QStringLiteral("https://") + QString::fromStdString(cl->server), QUrl::StrictMode);
        if (!url.isValid() || url.host().isEmpty()
            || (url.scheme() != QLatin1String("https") && url.scheme() != QLatin1String("http")))
            return configError("server " + quote(cl->server) + " of cluster " + quote(cl->name)
                                   + " is not an http or https URL",
                               cl->sourceFile);
        rc.server = url.toString(QUrl::StripTrailingSlash).toStdString();
        if (url.scheme() == QLatin1String("http"))
            rc.warnings.push_back("cluster " + quote(cl->name)
                                  + " uses plain http: requests and credentials are not encrypted");
    }
    // transport.go checks this before touching the CA file.
    if (cl->insecureSkipTlsVerify) {
        if (!cl->certificateAuthorityData.isEmpty() || !cl->certificateAuthority.empty())
            return configError("specifying a root certificates file with the insecure flag is not allowed (cluster "
                                   + quote(cl->name) + ")",
                               cl->sourceFile);
        rc.insecureSkipTlsVerify = true;
        rc.warnings.push_back("TLS verification is disabled for cluster " + quote(cl->name)
                              + " (insecure-skip-tls-verify)");
    }
    if (!cl->certificateAuthorityData.isEmpty()) {
        rc.caPem = cl->certificateAuthorityData;
        if (!cl->certificateAuthority.empty())
            rc.warnings.push_back("certificate-authority-data and certificate-authority are both specified for cluster "
                                  + quote(cl->name) + "; certificate-authority-data is used");
    } else if (!cl->certificateAuthority.empty()) {
        auto ca = readFile(cl->certificateAuthority, "certificate-authority");
        if (!ca)
            return configError(ca.error().message + " (cluster " + quote(cl->name) + ")", cl->sourceFile);
        rc.caPem = *ca;
        rc.caFile = cl->certificateAuthority;
    }
    rc.tlsServerName = cl->tlsServerName;
    if (!cl->proxyUrl.empty()) {
        const QUrl proxy(QString::fromStdString(cl->proxyUrl));
        const QString scheme = proxy.scheme();
        if (scheme != QLatin1String("http") && scheme != QLatin1String("https") && scheme != QLatin1String("socks5"))
            return configError("proxy-url of cluster " + quote(cl->name) + " has unsupported scheme "
                                   + quote(scheme.toStdString()) + ", must be http, https, or socks5",
                               cl->sourceFile);
        if (proxy.host().isEmpty())
            return configError("proxy-url of cluster " + quote(cl->name) + " has no host", cl->sourceFile);
        rc.proxyUrl = cl->proxyUrl;
    }
    rc.disableCompression = cl->disableCompression;
    if (auto it = cl->extensions.find(kExecClusterExtension); it != cl->extensions.end())
        rc.execClusterConfig = *it;
    return core::Unit{};
}

// Values that become request headers (Authorization, Impersonate-*): a CR or LF would let a
// kubeconfig add headers of its choosing; other control characters are never valid there.
core::Status checkHeaderValues(const UserConfig *u)
{
    auto refuse = [u](const std::string &field) {
        return configError(
            "the " + field + " of user " + quote(u->name)
                + " contains a line break or another control character, which cannot be sent in an HTTP header",
            u->sourceFile);
    };
    if (!detail::isSafeHeaderValue(u->token))
        return refuse("token");
    const ImpersonationConfig &imp = u->impersonate;
    if (!detail::isSafeHeaderValue(imp.user))
        return refuse("impersonated user (as)");
    if (!detail::isSafeHeaderValue(imp.uid))
        return refuse("impersonated uid (as-uid)");
    for (const auto &g : imp.groups)
        if (!detail::isSafeHeaderValue(g))
            return refuse("impersonated group (as-groups)");
    for (const auto &[key, values] : imp.extra)
        for (const auto &v : values)
            if (!detail::isSafeHeaderValue(v))
                return refuse("impersonation extra " + quote(key) + " (as-user-extra)");
    return core::Unit{};
}

bool hasToken(const UserConfig &u)
{
    return !u.token.empty() || !u.tokenFile.empty();
}

bool hasBasic(const UserConfig &u)
{
    return !u.username.empty() || !u.password.empty();
}

bool hasCert(const UserConfig &u)
{
    return !u.clientCertificate.empty() || !u.clientCertificateData.isEmpty() || !u.clientKey.empty()
        || !u.clientKeyData.isEmpty();
}

// client-go's validateAuthInfo (staging/src/k8s.io/client-go/tools/clientcmd/validation.go)
// counts only token and basic auth; counting client certificates and exec too keeps "which
// credential was sent?" obvious.
core::Status checkOneAuthMethod(const UserConfig &u)
{
    std::vector<std::string> methods;
    if (hasToken(u))
        methods.emplace_back("token");
    if (hasBasic(u))
        methods.emplace_back("basicAuth");
    if (hasCert(u))
        methods.emplace_back("clientCert");
    if (u.exec)
        methods.emplace_back("exec");
    if (methods.size() > 1)
        return configError("more than one authentication method found for " + u.name + "; found ["
                               + joinNames(methods, " ") + "], only one is allowed",
                           u.sourceFile);
    return core::Unit{};
}

core::Status resolveTokenAuth(const UserConfig &u, ResolvedConfig &rc)
{
    AuthConfig &auth = rc.auth;
    const std::string &un = u.name;
    if (u.tokenFile.empty()) {
        auth.method = AuthMethod::Token;
        auth.token = u.token;
        return core::Unit{};
    }
    // transport.NewCachedFileTokenSource: the file takes over from a static token.
    if (!u.token.empty())
        rc.warnings.push_back("token and tokenFile are both specified for " + un + "; tokenFile is used");
    // Read once now so a FIFO, device or oversized file is refused before connecting; the
    // credential provider re-reads it with the same limits (it rotates).
    auto token = readFile(u.tokenFile, "tokenFile");
    if (!token)
        return configError(token.error().category == ErrorCategory::Config
                               ? token.error().message + " (user " + quote(un) + ")"
                               : "tokenFile " + u.tokenFile + " of user " + quote(un)
                                     + " does not exist or is not readable",
                           u.sourceFile);
    auth.method = AuthMethod::TokenFile;
    auth.tokenFile = u.tokenFile;
    return core::Unit{};
}

// One half of a client certificate (the certificate or the key): the embedded `<key>-data` wins
// over the file `<key>`, with a warning when both are set.
core::Status resolvePem(const UserConfig &u, ResolvedConfig &rc, const std::string &key, const QByteArray &data,
                        const std::string &file, QByteArray &pem, std::string &pemFile)
{
    if (!data.isEmpty()) {
        if (!file.empty())
            rc.warnings.push_back(key + "-data and " + key + " are both specified for " + u.name + "; " + key
                                  + "-data is used");
        pem = data;
        return core::Unit{};
    }
    auto read = readFile(file, key);
    if (!read)
        return configError(read.error().message + " (user " + quote(u.name) + ")", u.sourceFile);
    pem = *read;
    pemFile = file;
    return core::Unit{};
}

core::Status resolveCertAuth(const UserConfig &u, ResolvedConfig &rc)
{
    AuthConfig &auth = rc.auth;
    const std::string &un = u.name;
    const bool certGiven = !u.clientCertificate.empty() || !u.clientCertificateData.isEmpty();
    const bool keyGiven = !u.clientKey.empty() || !u.clientKeyData.isEmpty();
    if (!keyGiven)
        return configError("client-key-data or client-key must be specified for " + un
                               + " to use the clientCert authentication method",
                           u.sourceFile);
    if (!certGiven)
        return configError("client-certificate-data or client-certificate must be specified for " + un
                               + " to use the clientCert authentication method",
                           u.sourceFile);
    if (auto st = resolvePem(u, rc, "client-certificate", u.clientCertificateData, u.clientCertificate,
                             auth.clientCertificatePem, auth.clientCertificateFile);
        !st)
        return st;
    if (auto st = resolvePem(u, rc, "client-key", u.clientKeyData, u.clientKey, auth.clientKeyPem, auth.clientKeyFile);
        !st)
        return st;
    auth.method = AuthMethod::ClientCertificate;
    return core::Unit{};
}

// interactiveMode as client-go reads it: required for v1, IfAvailable when v1beta1 leaves it out.
core::Status readInteractiveMode(const UserConfig &u, ExecConfig &e)
{
    const std::string &un = u.name;
    if (e.interactiveModeText.empty()) {
        if (e.apiVersion == kExecApiV1)
            return configError("interactiveMode must be specified for " + un + " to use exec authentication plugin",
                               u.sourceFile);
        e.interactiveMode = ExecInteractiveMode::IfAvailable;
    } else if (e.interactiveModeText == "Never") {
        e.interactiveMode = ExecInteractiveMode::Never;
    } else if (e.interactiveModeText == "IfAvailable") {
        e.interactiveMode = ExecInteractiveMode::IfAvailable;
    } else if (e.interactiveModeText == "Always") {
        e.interactiveMode = ExecInteractiveMode::Always;
    } else {
        return configError("invalid interactiveMode for " + un + ": " + quote(e.interactiveModeText), u.sourceFile);
    }
    return core::Unit{};
}

// The checks of client-go's validateAuthInfo for exec, plus: no terminal here, so Always is refused.
core::Status resolveExecAuth(const UserConfig &u, ResolvedConfig &rc)
{
    const std::string &un = u.name;
    ExecConfig e = *u.exec;
    if (e.command.empty())
        return configError("command must be specified for " + un + " to use exec authentication plugin", u.sourceFile);
    if (e.apiVersion.empty())
        return configError("apiVersion must be specified for " + un + " to use exec authentication plugin",
                           u.sourceFile);
    if (e.apiVersion != kExecApiV1 && e.apiVersion != kExecApiV1beta1)
        return configError("exec plugin of " + un + ": invalid apiVersion " + quote(e.apiVersion)
                               + " (supported: " + kExecApiV1 + ", " + kExecApiV1beta1 + ")",
                           u.sourceFile);
    for (const auto &v : e.env)
        if (v.name.empty())
            return configError("env variable name must be specified for " + un + " to use exec authentication plugin",
                               u.sourceFile);
    if (auto st = readInteractiveMode(u, e); !st)
        return st;
    if (e.interactiveMode == ExecInteractiveMode::Always)
        return configError(
            "the exec plugin " + e.command + " of user " + quote(un)
                + " requires a terminal (interactiveMode: Always), which Fieldscope cannot provide; "
                  "use interactiveMode IfAvailable or Never, or log in with the plugin in a terminal first",
            u.sourceFile);
    rc.auth.method = AuthMethod::Exec;
    rc.auth.exec = std::move(e);
    return core::Unit{};
}

// User half of resolve(): exactly one authentication method, checked as client-go's
// validateAuthInfo does (staging/src/k8s.io/client-go/tools/clientcmd/validation.go).
core::Status resolveUser(const UserConfig *u, ResolvedConfig &rc)
{
    if (auto st = checkHeaderValues(u); !st)
        return st;
    AuthConfig &auth = rc.auth;
    auth.userName = u->name;
    auth.sourceFile = u->sourceFile;
    auth.impersonate = u->impersonate;
    const std::string &un = u->name;

    if (!u->authProvider.empty()) {
        if (u->exec)
            return configError("authProvider cannot be provided in combination with an exec plugin for " + un,
                               u->sourceFile);
        return configError(authProviderError(u->authProvider, un), u->sourceFile);
    }
    if (auto st = checkOneAuthMethod(*u); !st)
        return st;
    if (hasToken(*u))
        return resolveTokenAuth(*u, rc);
    if (hasBasic(*u)) {
        auth.method = AuthMethod::Basic;
        auth.username = u->username;
        auth.password = u->password;
        rc.warnings.push_back(
            "user " + quote(un)
            + " uses basic authentication; kube-apiserver dropped it in 1.19, only proxies accept it");
        return core::Unit{};
    }
    if (hasCert(*u))
        return resolveCertAuth(*u, rc);
    if (u->exec)
        return resolveExecAuth(*u, rc);
    return core::Unit{};
}

} // namespace

Result<ResolvedConfig> Kubeconfig::resolve(const std::string &contextName) const
{
    if (m_inCluster && (contextName.empty() || contextName == kInClusterName))
        return resolveInCluster();

    std::vector<std::string> available;
    for (const auto &c : m_contexts)
        available.push_back(c.name);
    const std::string where = m_files.empty() ? m_defaultPath : joinNames(m_files, ":");
    const std::string availableText = available.empty()
                                        ? "no contexts are defined in "
                                              + (where.empty() ? std::string("any kubeconfig file") : where)
                                        : "available contexts: " + joinNames(available);
    const std::string name = contextName.empty() ? m_currentContext : contextName;
    if (name.empty())
        return configError("no context selected: current-context is not set and no --context was given; "
                               + availableText,
                           where);
    const ContextConfig *ctx = context(name);
    if (!ctx)
        return configError("context " + quote(name) + " not found; " + availableText, where);

    ResolvedConfig rc;
    rc.contextName = ctx->name;
    rc.sourceFile = ctx->sourceFile;
    rc.namespace_ = ctx->namespace_.empty() ? "default" : ctx->namespace_;

    // --- cluster ---
    if (ctx->cluster.empty())
        return configError("context " + quote(name) + " names no cluster", ctx->sourceFile);
    const ClusterConfig *cl = cluster(ctx->cluster);
    if (!cl)
        return configError("cluster " + quote(ctx->cluster) + " was not found for context " + quote(name),
                           ctx->sourceFile);
    rc.clusterName = cl->name;
    if (auto st = resolveCluster(cl, rc); !st)
        return st.error();

    // --- user ---
    if (ctx->user.empty())
        return rc; // anonymous
    const UserConfig *u = user(ctx->user);
    if (!u)
        return configError("user " + quote(ctx->user) + " was not found for context " + quote(name), ctx->sourceFile);
    if (auto st = resolveUser(u, rc); !st)
        return st.error();
    for (const auto &w : rc.warnings)
        qCInfo(lcKubeAuth).noquote() << QString::fromStdString(w);
    return rc;
}

} // namespace fieldscope::kube
