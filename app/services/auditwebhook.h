#pragma once
// `fieldscope record --audit-webhook HOST:PORT`: receives the API server's audit webhook batches
// (an EventList per POST) over HTTPS (kube/webhookserver.h) and queues their events for the
// recorder's join (app/services/recordaudit.h). Each POST is answered as soon as it is decoded: 200, 400
// for a body that is not an EventList (with why), 503 with Retry-After while the queue is full.
// Also writes the kubeconfig the API server needs to reach it (--audit-webhook-config-file).
// Thread: the handler runs on the server's thread; take() and the rest on any thread.
#include "core/audit/auditevent.h"
#include "kube/webhookserver.h"

#include <memory>
#include <mutex>
#include <string>

namespace fieldscope::app {

// The name the sandbox's API server's client certificate for the audit webhook carries (its CN;
// scripts/fieldscope-cluster makes it): what the webhook checks by default.
inline constexpr const char *kSandboxAuditClientName = "kube-apiserver-audit";

struct AuditWebhookOptions {
    kube::WebhookServerOptions server;
    std::string kubeconfigPath; // --write-webhook-kubeconfig; empty: none
    std::string clientCertFile; // embedded in that kubeconfig (for --client-ca); empty: none
    std::string clientKeyFile;
    // When set, the port is read from this file when the server starts (a cluster script's
    // DIR/run/audit-webhook.port): the file is read on the starting thread, never the GUI's.
    std::string portFile;
};

// "HOST:PORT" or "[V6]:PORT" into `options`; an error names what is wrong.
core::Status parseWebhookAddress(const std::string &text, kube::WebhookServerOptions &options);

// The events of the accepted POSTs, held until the recorder takes them.
class AuditWebhookQueue
{
public:
    // While this many events, or this much of their memory (core::auditEventBytes), wait, a POST
    // is answered 503 (the API server's batch backend retries). An event may hold a megabyte of
    // user agent, URI and groups, so a count alone bounds nothing.
    static constexpr std::size_t kMaxQueuedEvents = 100'000;
    static constexpr std::size_t kMaxQueuedBytes = 256u << 20;
    explicit AuditWebhookQueue(std::size_t maxBytes = kMaxQueuedBytes) : m_maxBytes(maxBytes) {}
    // The handler the server calls for each POST body.
    kube::WebhookAnswer receive(std::string_view body);
    // Everything queued since the last call.
    core::AuditDecodeResult take();

private:
    std::mutex m_mutex;
    core::AuditDecodeResult m_pending;
    std::size_t m_pendingBytes = 0;
    std::size_t m_maxBytes;
};

class AuditWebhookReceiver
{
public:
    static core::Result<std::unique_ptr<AuditWebhookReceiver>> start(const AuditWebhookOptions &given);
    int port() const { return m_server->port(); }
    AuditWebhookQueue &queue() { return *m_queue; }
    kube::WebhookServer &server() { return *m_server; }

private:
    AuditWebhookReceiver() = default;
    std::shared_ptr<AuditWebhookQueue> m_queue; // shared with the server's handler
    std::unique_ptr<kube::WebhookServer> m_server;
};

// The kubeconfig for kube-apiserver --audit-webhook-config-file: the server's URL
// (https://HOST:PORT/audit; a wildcard listen address becomes loopback), the serving certificates
// as the CA to trust, and the client certificate when one is given. Written 0600 (it may hold a
// private key). `port` is the port actually listened on.
core::Status writeWebhookKubeconfig(const AuditWebhookOptions &options, int port);

} // namespace fieldscope::app
