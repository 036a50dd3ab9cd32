#pragma once
// Transport: libcurl multi interface on a network thread owned by this object.
//
// Threading: every public method is thread-safe. Callbacks (onChunk, onDone) run on the network
// thread and must be quick (hand data to another thread or queue it). The network thread is
// started in the constructor and joined in the destructor; no callback runs after ~Transport().
// m_mutex guards m_incoming and m_cancelled (the hand-off queues); everything else is touched
// only by the network thread.
#include "core/base/result.h"
#include "kube/http.h"

#include <QByteArray>

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
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

class Transport
{
public:
    using RequestId = std::uint64_t;
    // Return false to abort the transfer (e.g. the consumer went away); onDone then still runs,
    // with a Cancelled error.
    using ChunkFn = std::function<bool(const HttpResponse &head, std::string_view bytes)>;
    using DoneFn = std::function<void(core::Result<HttpResponse>)>;
    using CredentialLater = std::function<void(core::Result<Credential>)>;

    explicit Transport(TransportConfig config);
    ~Transport();
    Transport(const Transport &) = delete;
    Transport &operator=(const Transport &) = delete;

    // Queues a request; onDone is called exactly once unless the request is cancelled first.
    RequestId start(HttpRequest request, DoneFn onDone, ChunkFn onChunk = {});
    // After cancel() returns no callback of that request will start; one already running finishes.
    void cancel(RequestId id);

    const TransportConfig &config() const { return m_config; }
    // Connections opened so far (sum of CURLINFO_NUM_CONNECTS): proves HTTP/2 multiplexing.
    long connectionsOpened() const { return m_connectionsOpened.load(); }
    long requestsStarted() const { return m_requestsStarted.load(); }

    struct Pending;         // a queued request (implementation detail, public for the transfer glue)
    struct CredentialInbox; // credentials delivered late, by id (outlives the Transport if need be)

private:
    struct Impl;
    void run();

    TransportConfig m_config;
    std::unique_ptr<Impl> m_impl;
    std::mutex m_mutex;
    std::vector<std::shared_ptr<Pending>> m_incoming;
    std::vector<RequestId> m_cancelled;
    std::shared_ptr<CredentialInbox> m_credentialInbox;
    std::atomic<RequestId> m_nextId{1};
    std::atomic<bool> m_stop{false};
    std::atomic<long> m_connectionsOpened{0};
    std::atomic<long> m_requestsStarted{0};
    std::thread m_thread;
};

// Decodes the text of one `Warning: 299 - "text"` header value (k8s.io/apimachinery/pkg/util/net/http.go).
std::string decodeWarningHeader(std::string_view value);

} // namespace fieldscope::kube
