#include "app/services/auditwebhook.h"

#include "core/base/privatefiles.h"

#include <QByteArray>

namespace fieldscope::app {

core::Status parseWebhookAddress(const std::string &text, kube::WebhookServerOptions &options)
{
    const auto colon = text.rfind(':');
    if (colon == std::string::npos || colon == 0)
        return core::Error::make(core::ErrorCategory::Config,
                                 "--audit-webhook wants HOST:PORT (e.g. 127.0.0.1:8443), not \"" + text + "\"");
    std::string host = text.substr(0, colon);
    if (host.size() > 2 && host.front() == '[' && host.back() == ']')
        host = host.substr(1, host.size() - 2);
    const std::string port = text.substr(colon + 1);
    int n = 0;
    for (char c : port) {
        if (c < '0' || c > '9' || n > 65535)
            return core::Error::make(core::ErrorCategory::Config,
                                     "--audit-webhook: \"" + port + "\" is not a port number");
        n = n * 10 + (c - '0');
    }
    if (port.empty() || n > 65535)
        return core::Error::make(core::ErrorCategory::Config, "--audit-webhook: \"" + port + "\" is not a port number");
    options.host = host;
    options.port = n;
    return core::Unit{};
}

kube::WebhookAnswer AuditWebhookQueue::receive(std::string_view body)
{
    auto decoded = core::decodeAuditEventList(body);
    if (!decoded)
        return {400, decoded.error().describe(), 0};
    std::size_t bytes = 0;
    for (const auto &e : decoded->events)
        bytes += core::auditEventBytes(e);
    std::lock_guard lock(m_mutex);
    if (m_pending.events.size() + decoded->events.size() > kMaxQueuedEvents || m_pendingBytes + bytes > m_maxBytes)
        return {503,
                "the recorder is behind (" + std::to_string(m_pending.events.size()) + " events, "
                    + std::to_string(m_pendingBytes >> 20) + " MiB wait): retry",
                1};
    m_pending.append(std::move(*decoded), "webhook: ");
    m_pendingBytes += bytes;
    return {200, {}, 0};
}

core::AuditDecodeResult AuditWebhookQueue::take()
{
    std::lock_guard lock(m_mutex);
    core::AuditDecodeResult out;
    std::swap(out, m_pending);
    m_pendingBytes = 0;
    return out;
}

core::Result<std::unique_ptr<AuditWebhookReceiver>> AuditWebhookReceiver::start(const AuditWebhookOptions &given)
{
    AuditWebhookOptions options = given;
    if (!options.portFile.empty()) {
        auto text = kube::readWebhookFile(options.portFile, "webhook port file");
        bool ok = false;
        const int port = text ? text->trimmed().toInt(&ok) : 0;
        if (!ok || port <= 0 || port > 65535)
            return core::Error::make(core::ErrorCategory::Config, "audit webhook: no port in " + options.portFile
                                                                      + " (the cluster script writes it)");
        options.server.port = port;
    }
    std::unique_ptr<AuditWebhookReceiver> r(new AuditWebhookReceiver);
    r->m_queue = std::make_shared<AuditWebhookQueue>();
    auto server = kube::WebhookServer::start(options.server,
                                             [q = r->m_queue](std::string_view body) { return q->receive(body); });
    if (!server)
        return core::Error::make(server.error().category, "audit webhook: " + server.error().describe());
    r->m_server = std::move(*server);
    if (!options.kubeconfigPath.empty())
        if (auto st = writeWebhookKubeconfig(options, r->m_server->port()); !st)
            return st.error();
    return r;
}

namespace {

// Only the CERTIFICATE blocks of a PEM file: a file holding the key too must not hand it on.
QByteArray certificateBlocks(const QByteArray &pem)
{
    static const QByteArray begin = "-----BEGIN CERTIFICATE-----", end = "-----END CERTIFICATE-----";
    QByteArray out;
    for (qsizetype i = pem.indexOf(begin); i >= 0; i = pem.indexOf(begin, i)) {
        const qsizetype e = pem.indexOf(end, i);
        if (e < 0)
            break;
        out += pem.mid(i, e + end.size() - i) + '\n';
        i = e + end.size();
    }
    return out;
}

// A YAML double-quoted scalar (the URL is ours, but the host came from the command line).
std::string yamlQuoted(const std::string &s)
{
    std::string out = "\"";
    for (char c : s) {
        if (c == '"' || c == '\\')
            out += '\\';
        out += c;
    }
    return out + '"';
}

} // namespace

core::Status writeWebhookKubeconfig(const AuditWebhookOptions &options, int port)
{
    auto certs = kube::readWebhookFile(options.server.certFile, "serving certificate");
    if (!certs)
        return certs.error();
    const QByteArray ca = certificateBlocks(*certs);
    if (ca.isEmpty())
        return core::Error::make(core::ErrorCategory::Config, "no PEM certificate in " + options.server.certFile);
    std::string host = options.server.host;
    if (host == "0.0.0.0" || host.empty())
        host = "127.0.0.1";
    else if (host == "::")
        host = "::1";
    if (host.find(':') != std::string::npos)
        host = "[" + host + "]";
    const std::string url = "https://" + host + ":" + std::to_string(port) + "/audit";
    std::string y = "# Written by fieldscope record --write-webhook-kubeconfig: pass it to kube-apiserver as\n"
                    "# --audit-webhook-config-file (docs/audit.md, \"The webhook\"). If the API server runs on\n"
                    "# another machine, make server an address it reaches that the certificate names.\n"
                    "apiVersion: v1\nkind: Config\nclusters:\n- name: fieldscope-audit\n  cluster:\n    server: "
                  + yamlQuoted(url) + "\n    certificate-authority-data: " + ca.toBase64().toStdString()
                  + "\nusers:\n- name: kube-apiserver\n  user:";
    if (options.clientCertFile.empty() != options.clientKeyFile.empty())
        return core::Error::make(core::ErrorCategory::Config,
                                 "--webhook-client-cert and --webhook-client-key go together");
    if (options.clientCertFile.empty()) {
        y += " {}\n";
    } else {
        auto cert = kube::readWebhookFile(options.clientCertFile, "client certificate");
        if (!cert)
            return cert.error();
        auto key = kube::readWebhookFile(options.clientKeyFile, "client key");
        if (!key)
            return key.error();
        y += "\n    client-certificate-data: " + cert->toBase64().toStdString()
           + "\n    client-key-data: " + key->toBase64().toStdString() + "\n";
    }
    y += "contexts:\n- name: fieldscope-audit\n  context: {cluster: fieldscope-audit, user: kube-apiserver}\n"
         "current-context: fieldscope-audit\n";
    if (auto st = core::writePrivateFileDurably(options.kubeconfigPath, y); !st)
        return core::Error::make(core::ErrorCategory::Io, "cannot write the webhook kubeconfig "
                                                              + options.kubeconfigPath + ": " + st.error().describe());
    return core::Unit{};
}

} // namespace fieldscope::app
