#pragma once
// Private to Kubeconfig: helpers shared by kubeconfig.cpp (loading and merging files),
// kubeconfigparse.cpp (YAML mapping) and kubeconfigresolve.cpp (credential and TLS resolution).
#include "kube/kubeconfig.h"

#include <QByteArray>

#include <string>
#include <vector>

namespace fieldscope::kube::detail {

inline constexpr const char *kInClusterName = "in-cluster";

inline std::string quote(const std::string &s)
{
    return "\"" + s + "\"";
}

inline std::string joinNames(const std::vector<std::string> &names, const char *sep = ", ")
{
    std::string out;
    for (const auto &n : names) {
        if (!out.empty())
            out += sep;
        out += n;
    }
    return out;
}

inline core::Error configError(std::string message, std::string where)
{
    return core::Error::make(core::ErrorCategory::Config, std::move(message), std::move(where));
}

// Defined in kubeconfig.cpp.
core::Result<QByteArray> readFile(const std::string &path, const std::string &what);

} // namespace fieldscope::kube::detail
