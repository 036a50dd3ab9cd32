#include "core/base/error.h"

namespace fieldscope::core {

const char *categoryName(ErrorCategory c)
{
    switch (c) {
    case ErrorCategory::Network: return "network";
    case ErrorCategory::Tls: return "tls";
    case ErrorCategory::Auth: return "auth";
    case ErrorCategory::Forbidden: return "forbidden";
    case ErrorCategory::NotFound: return "not found";
    case ErrorCategory::Conflict: return "conflict";
    case ErrorCategory::StaleWrite: return "stale write";
    case ErrorCategory::Gone: return "gone";
    case ErrorCategory::Invalid: return "invalid";
    case ErrorCategory::Throttled: return "throttled";
    case ErrorCategory::Server: return "server";
    case ErrorCategory::Parse: return "parse";
    case ErrorCategory::Config: return "config";
    case ErrorCategory::Io: return "io";
    case ErrorCategory::Cancelled: return "cancelled";
    }
    return "unknown";
}

Error Error::make(ErrorCategory c, std::string message, std::string where)
{
    Error e;
    e.category = c;
    e.message = std::move(message);
    e.where = std::move(where);
    return e;
}

std::string Error::describe() const
{
    std::string out = categoryName(category);
    if (httpStatus > 0) {
        out += " (HTTP " + std::to_string(httpStatus);
        if (!reason.empty())
            out += " " + reason;
        out += ")";
    }
    if (!where.empty())
        out += " at " + where;
    out += ": " + message;
    for (const auto &c : causes) {
        out += "\n  - ";
        if (!c.field.empty())
            out += c.field + ": ";
        out += c.message.empty() ? c.reason : c.message;
    }
    return out;
}

} // namespace fieldscope::core
