#pragma once
// Connection: the composition of kubeconfig -> credentials -> transport for one context.
// Loading reads small local files; the app calls connect() on a worker thread (QtConcurrent),
// the command line calls it directly.
#include "core/base/result.h"
#include "kube/credentials.h"
#include "kube/kubeconfig.h"
#include "kube/transport.h"

#include <memory>
#include <string>

namespace fieldscope::kube {

struct ConnectionOptions {
    std::string kubeconfigPath; // --kubeconfig; "" = $KUBECONFIG, ~/.kube/config, in-cluster
    std::string context;        // --context; "" = current-context
    CredentialOptions credentials;
    double qps = 50;
    int burst = 100;
};

struct Connection {
    ResolvedConfig config;
    std::shared_ptr<CredentialProvider> credentials;
    std::shared_ptr<Transport> transport;
};

core::Result<Connection> connect(const ConnectionOptions &options);
// Builds the transport for an already resolved configuration (tests, sandbox).
Connection connectResolved(ResolvedConfig config, const ConnectionOptions &options);

} // namespace fieldscope::kube
