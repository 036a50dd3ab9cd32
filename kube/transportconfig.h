#pragma once
// What a Transport (kube/transport.h) is configured with and how a request authenticates: plain
// values, shared by the transport and the pure planning of a request (kube/transferplan.h)
// without either header including the other's class.
#include "core/base/result.h"
#include "kube/http.h"

#include <QByteArray>

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace fieldscope::kube {

// What a request needs to authenticate, fetched per request on the network thread.
struct Credential {
    std::string bearerToken;
    QByteArray clientCertPem;
    QByteArray clientKeyPem;
    std::string basicUser;
    std::string basicPassword;
};

struct TransportConfig {
    std::string server; // https://host:port[/prefix]
    QByteArray caPem;   // empty: system trust store
    bool insecureSkipTlsVerify = false;
    std::string tlsServerName;
    std::string proxyUrl;
    bool disableCompression = false;
    std::vector<std::pair<std::string, std::string>> extraHeaders; // impersonation
    // Called on the network thread for each request; must not wait. nullopt = not ready yet (an
    // exec plugin runs or its consent question is open): the request waits aside, others go on,
    // and `later` (callable once, from any thread, even after the Transport is gone) delivers it.
    std::function<std::optional<core::Result<Credential>>(std::function<void(core::Result<Credential>)> later)>
        credential;
    // Called after a 401 so the next credential() produces a fresh one (as client-go's exec plugin code does); returns
    // whether one retry can help (false for static tokens and certificates).
    std::function<bool()> invalidateCredential;
    double qps = 50; // client-side token bucket (client-go's default is 5); <= 0 disables
    int burst = 100;
    double watchQps = 100; // separate bucket for watch starts
    int watchBurst = 300;
    // Legacy discovery asks one document per group version: 3,000 of them would wait a minute in
    // the general bucket. kubectl gives its discovery client a burst of 300 at 50/s
    // (k8s.io/cli-runtime/pkg/genericclioptions/config_flags.go); the Discovery class also keeps
    // at most 8 in flight, which is what bounds the server's work.
    double discoveryQps = 200;
    int discoveryBurst = 300;
    int connectTimeoutMs = 10'000;
    int maxRetries = 10; // 429 / 5xx with Retry-After
    // The sum of the bodies of all requests in flight (kube/http.h); a body that would pass it
    // fails its request with a Parse error. Tests lower it.
    std::size_t maxBufferedBodyBytes = kMaxBufferedBodyBytes;
    std::string userAgent = std::string("fieldscope/") + FIELDSCOPE_VERSION;
};

} // namespace fieldscope::kube
