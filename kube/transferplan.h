#pragma once
// What one request becomes on the wire, before any libcurl call: the URL, the connect-to
// override for tls-server-name, the proxy and the header lines. Pure functions (any thread);
// kube/transport.cpp applies the plan to a libcurl handle on the network thread.
#include "kube/http.h"
#include "kube/transportconfig.h"

#include <string>
#include <vector>

namespace fieldscope::kube {

// A cluster's server URL split once (https://host:port[/prefix]).
struct ServerUrl {
    std::string scheme, host, port, prefix;
    std::string authority; // host[:port] as written: the Host header (Go's URL.Host)
    static ServerUrl parse(const std::string &url);
};

struct TransferPlan {
    std::string url;
    std::string connectTo;            // CURLOPT_CONNECT_TO entry "sni:port:host:port"; empty: none
    std::string proxy;                // CURLOPT_PROXY; empty: none
    std::vector<std::string> headers; // "Name: value" lines, in the order they are sent
};

TransferPlan planTransfer(const ServerUrl &server, const TransportConfig &config, const HttpRequest &request,
                          const Credential &credential);

} // namespace fieldscope::kube
