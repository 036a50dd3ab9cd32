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
#include "kube/transportconfig.h"

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
