#include "kube/connection.h"

namespace fieldscope::kube {

namespace {
core::Result<Credential> toTransport(const core::Result<AuthCredential> &cred)
{
    if (!cred)
        return cred.error();
    Credential out;
    out.bearerToken = cred->bearerToken;
    out.basicUser = cred->username;
    out.basicPassword = cred->password;
    out.clientCertPem = cred->clientCertificatePem;
    out.clientKeyPem = cred->clientKeyPem;
    return out;
}
} // namespace

Connection connectResolved(ResolvedConfig config, const ConnectionOptions &options)
{
    Connection c;
    c.config = std::move(config);
    c.credentials = std::make_shared<CredentialProvider>(c.config, options.credentials);
    TransportConfig t;
    t.server = c.config.server;
    t.caPem = c.config.caPem;
    t.insecureSkipTlsVerify = c.config.insecureSkipTlsVerify;
    t.tlsServerName = c.config.tlsServerName;
    t.proxyUrl = c.config.proxyUrl;
    t.disableCompression = c.config.disableCompression;
    t.extraHeaders = impersonationHeaders(c.config.auth.impersonate);
    t.qps = options.qps;
    t.burst = options.burst;
    std::weak_ptr<CredentialProvider> weak = c.credentials;
    // Never waits: an exec credential that needs a plugin run or a consent answer comes later, and
    // the transport keeps that request aside while the others go on.
    t.credential = [weak](Transport::CredentialLater later) -> std::optional<core::Result<Credential>> {
        auto provider = weak.lock();
        if (!provider)
            return core::Result<Credential>(core::Error::make(core::ErrorCategory::Cancelled,
                                                              "the connection was closed"));
        auto cred = provider->current([later = std::move(later)](const core::Result<AuthCredential> &c) {
            later(toTransport(c));
        });
        if (!cred)
            return std::nullopt;
        return toTransport(*cred);
    };
    t.invalidateCredential = [weak] {
        auto provider = weak.lock();
        return provider && provider->invalidate();
    };
    c.transport = std::make_shared<Transport>(std::move(t));
    return c;
}

core::Result<Connection> connect(const ConnectionOptions &options)
{
    LoadOptions load;
    load.explicitPath = options.kubeconfigPath;
    auto kc = Kubeconfig::load(load);
    if (!kc)
        return kc.error();
    auto resolved = kc->resolve(options.context);
    if (!resolved)
        return resolved.error();
    return connectResolved(std::move(*resolved), options);
}

} // namespace fieldscope::kube
