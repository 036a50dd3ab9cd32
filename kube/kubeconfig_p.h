#pragma once
// Private to Kubeconfig: helpers shared by kubeconfig.cpp (loading and merging files),
// kubeconfigparse.cpp (YAML mapping) and kubeconfigresolve.cpp (credential and TLS resolution).
#include "core/yaml/yaml.h"
#include "kube/kubeconfig.h"

#include <QByteArray>

#include <string>
#include <string_view>
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

// Limits on files we read (README.md, Security). A CA bundle, a client certificate or key and a
// token are a few KiB; 1 MiB leaves room for large CA bundles. A kubeconfig with thousands of
// contexts and embedded CAs stays far below 16 MiB.
inline constexpr qint64 kMaxCredentialFileBytes = qint64{1024} * 1024;
inline constexpr qint64 kMaxKubeconfigBytes = qint64{16} * 1024 * 1024;

enum class FileKind {
    Regular, // CA, client certificate/key, token files: a FIFO, device or directory is refused
    Any,     // the kubeconfig itself may come from a pipe (--kubeconfig <(...)); the size is still capped
};

// Reads a whole small file, at most `maxBytes` (a Config error past it, read no further than one
// byte past it: /dev/zero neither hangs nor fills memory). Regular: opened non-blocking (a FIFO
// without writer does not hang) and refused unless fstat says regular. The error names the path
// and the reason, never the content. Defined in kubeconfig.cpp.
core::Result<QByteArray> readFile(const std::string &path, const std::string &what,
                                  qint64 maxBytes = kMaxCredentialFileBytes, FileKind kind = FileKind::Regular);

// An HTTP header value we may send: no CR, LF, NUL or other control character but horizontal tab
// (libcurl sends custom headers verbatim, so "token\r\nX-Evil: 1" would add a header).
inline bool isSafeHeaderValue(std::string_view v)
{
    for (unsigned char c : v)
        if ((c < 0x20 && c != '\t') || c == 0x7f)
            return false;
    return true;
}

} // namespace fieldscope::kube::detail
