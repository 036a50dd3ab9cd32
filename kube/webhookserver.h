#pragma once
// The one place the API server calls us: a small HTTPS server for the audit webhook backend
// (kube-apiserver --audit-webhook-config-file), which POSTs batches of events as JSON. It answers
// each POST with what a handler says, fast, and is built for a peer that may be careless or
// hostile: bodies above a limit are refused from their Content-Length before they are read, a
// request must arrive whole within a deadline, the bytes held for bodies of all connections
// together are bounded, and with a client CA only a peer whose certificate that CA signed (and,
// with clientNames, that names the API server) gets a TLS session at all.
// Thread: the server lives on a thread of its own (its event loop, its sockets, the handler
// calls); the object's own functions are safe from any thread.
#include "core/base/result.h"

#include <QByteArray>

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

namespace fieldscope::kube {

struct WebhookAnswer {
    int code = 200;
    std::string message;       // the Status message of a refusal
    int retryAfterSeconds = 0; // sent as Retry-After when > 0 (503: the receiver is behind)
};

struct WebhookServerOptions {
    std::string host = "127.0.0.1"; // an IP address, "localhost", "0.0.0.0" or "::"
    int port = 0;                   // 0: any free port (port() tells which)
    std::string certFile;           // PEM: the serving certificate, then its chain
    std::string keyFile;            // PEM: its private key (RSA or EC)
    std::string clientCaFile;       // PEM; empty: no client certificate asked for
    // With a client CA: the names a client certificate may carry (its subject CN or a DNS
    // subjectAltName must be one of them). A CA signs more than the API server's certificate (a
    // sandbox's signs every student's and every node's), so the name is what says it is the API
    // server. Empty: any certificate the CA signed.
    std::vector<std::string> clientNames;
    std::size_t maxBodyBytes = 16u << 20;
    std::size_t maxHeaderBytes = 16u << 10;
    std::size_t maxBufferedBytes = 64u << 20; // bodies held for all connections together
    int maxConnections = 16;
    int requestDeadlineMs = 60'000; // first byte to last byte of one request
    int idleTimeoutMs = 120'000;    // a kept-alive connection with no request
    int handshakeTimeoutMs = 10'000;
};

// A certificate, key or port file the webhook and its kubeconfig are made from: kube's
// credential-file reader (a regular file of at most 1 MiB; a FIFO or /dev/zero neither hangs nor
// fills memory). Blocking: call off the GUI thread.
core::Result<QByteArray> readWebhookFile(const std::string &path, const std::string &what);

// Called on the server's thread with each whole POST body; its answer is sent at once.
using WebhookHandler = std::function<WebhookAnswer(std::string_view body)>;

struct WebhookCounters {
    std::int64_t connections = 0;
    std::int64_t tlsRefused = 0; // handshakes that failed (no or wrong client certificate, not TLS)
    std::int64_t requests = 0;   // whole requests answered
    std::int64_t accepted = 0;   // answered 2xx
    std::int64_t refused = 0;    // answered 4xx or 5xx (by the server's bounds or the handler)
    std::int64_t bodyBytes = 0;  // of accepted requests
};

class WebhookServer
{
public:
    // Reads the certificate, key and client CA, and listens: blocks until the server listens or
    // cannot (a few milliseconds); call off the GUI thread. The error names the file or address.
    static core::Result<std::unique_ptr<WebhookServer>> start(const WebhookServerOptions &options,
                                                              WebhookHandler handler);
    // Stops listening and closes every connection; the handler is not called afterwards.
    ~WebhookServer();
    WebhookServer(const WebhookServer &) = delete;
    WebhookServer &operator=(const WebhookServer &) = delete;

    int port() const { return m_port; }
    WebhookCounters counters() const;
    // Why requests were refused since the last call, oldest first (at most 100 kept between calls).
    std::vector<std::string> takeRefusals();

    struct Shared; // state the server's thread and the caller share

private:
    WebhookServer() = default;
    struct Impl;
    std::unique_ptr<Impl> d;
    std::shared_ptr<Shared> m_shared;
    int m_port = 0;
};

} // namespace fieldscope::kube
