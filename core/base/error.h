#pragma once
// Typed errors shared by every layer. Thread-agnostic value types.
#include <string>
#include <vector>

namespace fieldscope::core {

// What went wrong, in the words a user (and a retry policy) needs. Kept coarse on purpose:
// the HTTP code and the server's reason carry the detail (k8s.io/apimachinery/pkg/api/errors/errors.go).
enum class ErrorCategory {
    Network,    // connection refused/reset, DNS, timeouts, dropped streams
    Tls,        // handshake or verification failure
    Auth,       // 401, missing/expired credential, exec plugin failure
    Forbidden,  // 403
    NotFound,   // 404
    Conflict,   // 409 FieldManagerConflict (SSA) or AlreadyExists
    StaleWrite, // 409 optimistic-lock conflict (resourceVersion precondition)
    Gone,       // 410 (expired resourceVersion / continue token)
    Invalid,    // 400/422, failed JSON Patch test
    Throttled,  // 429
    Server,     // 5xx
    Parse,      // malformed JSON/YAML/FieldsV1/kubeconfig from any source
    Config,     // kubeconfig semantics (missing context, two auth methods, ...)
    Io,         // local disk
    Cancelled,  // the owner went away or superseded the request
};

const char *categoryName(ErrorCategory c);

// One entry of Status.details.causes; the cause type is serialised under "reason" (json tag of Type).
struct StatusCause {
    std::string reason;
    std::string message;
    std::string field;
};

// An SSA per-field conflict parsed from a FieldManagerConflict cause.
struct FieldConflict {
    std::string path; // server syntax: .spec.containers[name="nginx"].image
    std::string manager;
    std::string subresource; // "" for the main resource
    std::string apiVersion;  // "" for Apply managers
};

struct Error {
    ErrorCategory category = ErrorCategory::Network;
    int httpStatus = 0;
    std::string reason;  // Status.reason (Conflict, Expired, Invalid, ...)
    std::string message; // Status.message or our own words; never contains secrets
    std::vector<StatusCause> causes;
    std::vector<FieldConflict> conflicts; // only for SSA conflicts
    std::vector<std::string> warnings;    // the answer's Warning headers: a refused write can carry them
    int retryAfterSeconds = -1;
    std::string where; // offending path/location for parse and config errors

    static Error make(ErrorCategory c, std::string message, std::string where = {});
    // One line for logs and the command line: "conflict (HTTP 409 Conflict): message".
    std::string describe() const;
    bool isSsaConflict() const { return !conflicts.empty(); }
};

} // namespace fieldscope::core
