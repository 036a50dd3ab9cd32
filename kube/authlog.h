#pragma once
// Logging category of kubeconfig, credentials and exec plugins. Log lines name files, users and
// commands; never tokens, passwords, keys, *-data, exec env values or KUBERNETES_EXEC_INFO.
#include <QLoggingCategory>

namespace fieldscope::kube {
Q_DECLARE_LOGGING_CATEGORY(lcKubeAuth)
} // namespace fieldscope::kube
