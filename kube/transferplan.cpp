#include "kube/transferplan.h"

namespace fieldscope::kube {

ServerUrl ServerUrl::parse(const std::string &url)
{
    ServerUrl u;
    std::string rest = url;
    if (auto p = rest.find("://"); p != std::string::npos) {
        u.scheme = rest.substr(0, p);
        rest = rest.substr(p + 3);
    } else {
        u.scheme = "https";
    }
    const auto slash = rest.find('/');
    std::string hostport = rest.substr(0, slash);
    u.authority = hostport;
    u.prefix = slash == std::string::npos ? std::string() : rest.substr(slash);
    while (!u.prefix.empty() && u.prefix.back() == '/')
        u.prefix.pop_back();
    const auto colon = hostport.rfind(':');
    if (colon != std::string::npos && hostport.find(']', colon) == std::string::npos) {
        u.host = hostport.substr(0, colon);
        u.port = hostport.substr(colon + 1);
    } else {
        u.host = hostport;
        u.port = u.scheme == "http" ? "80" : "443";
    }
    return u;
}

TransferPlan planTransfer(const ServerUrl &server, const TransportConfig &config, const HttpRequest &request,
                          const Credential &credential)
{
    TransferPlan plan;
    // tls-server-name (client-go: tls.Config.ServerName only) is the name sent in SNI and
    // checked against the certificate; the connection still goes to the server URL's host and
    // the Host header (HTTP/2 :authority) stays that host. libcurl has no option for SNI alone,
    // so the URL names tls-server-name (which libcurl uses for SNI and verification),
    // CURLOPT_CONNECT_TO sends the connection to the real host and port (also through a
    // proxy's CONNECT or SOCKS request), and a Host header restores the URL's authority.
    const bool sniOverride = !config.tlsServerName.empty() && config.tlsServerName != server.host
                          && server.scheme == "https";
    const std::string host = sniOverride ? config.tlsServerName : server.host;
    plan.url = server.scheme + "://" + host + ":" + server.port + server.prefix + request.path;
    if (sniOverride)
        plan.connectTo = host + ":" + server.port + ":" + server.host + ":" + server.port;
    if (!config.proxyUrl.empty()) {
        // Go's SOCKS5 dialer sends the host name to the proxy, which resolves it (the cluster's
        // name may only exist behind the proxy): libcurl's socks5h, not socks5 (local DNS).
        plan.proxy = config.proxyUrl.rfind("socks5://", 0) == 0 ? "socks5h://" + config.proxyUrl.substr(9)
                                                                : config.proxyUrl;
    }
    auto &h = plan.headers;
    h.push_back("Accept: " + request.accept);
    if (!request.contentType.empty())
        h.push_back("Content-Type: " + request.contentType);
    if (!credential.bearerToken.empty())
        h.push_back("Authorization: Bearer " + credential.bearerToken);
    if (sniOverride)
        h.push_back("Host: " + server.authority);
    for (const auto &[k, v] : config.extraHeaders)
        h.push_back(k + ": " + v);
    for (const auto &[k, v] : request.headers)
        h.push_back(k + ": " + v);
    h.emplace_back("Expect:"); // no 100-continue round trip before a body
    return plan;
}

} // namespace fieldscope::kube
