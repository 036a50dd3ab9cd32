#include "kube/apierror.h"

#include "core/base/json.h"
#include "core/base/jsonread.h"

namespace fieldscope::kube {

using core::Error;
using core::ErrorCategory;

namespace {

// Reads a Go-quoted string starting at s[pos] == '"'; advances pos past the closing quote.
std::string readQuoted(std::string_view s, std::size_t &pos)
{
    std::string out;
    if (pos >= s.size() || s[pos] != '"')
        return out;
    for (++pos; pos < s.size(); ++pos) {
        if (s[pos] == '\\' && pos + 1 < s.size()) {
            out += s[++pos];
        } else if (s[pos] == '"') {
            ++pos;
            break;
        } else {
            out += s[pos];
        }
    }
    return out;
}

ErrorCategory categoryFor(int status, const std::string &reason, bool fieldConflict)
{
    switch (status) {
    case 400: return ErrorCategory::Invalid;
    case 401: return ErrorCategory::Auth;
    case 403: return ErrorCategory::Forbidden;
    case 404: return ErrorCategory::NotFound;
    case 409:
        if (fieldConflict || reason == "AlreadyExists")
            return ErrorCategory::Conflict;
        return ErrorCategory::StaleWrite;
    case 410: return ErrorCategory::Gone;
    case 413:
    case 415:
    case 422: return ErrorCategory::Invalid;
    case 429: return ErrorCategory::Throttled;
    default: break;
    }
    if (status == 504 && reason == "Timeout")
        return ErrorCategory::Server;
    if (status >= 500)
        return ErrorCategory::Server;
    return ErrorCategory::Invalid;
}

} // namespace

core::FieldConflict parseConflictCause(std::string_view message, std::string field)
{
    core::FieldConflict c;
    c.path = std::move(field);
    auto pos = message.find('"');
    if (pos != std::string_view::npos)
        c.manager = readQuoted(message, pos);
    constexpr std::string_view sub = " with subresource ";
    if (auto s = message.find(sub, pos); s != std::string_view::npos) {
        pos = s + sub.size();
        c.subresource = readQuoted(message, pos);
    }
    constexpr std::string_view using_ = " using ";
    if (auto u = message.find(using_, pos); u != std::string_view::npos) {
        auto rest = message.substr(u + using_.size());
        auto end = rest.find_first_of(" \n:");
        c.apiVersion = std::string(rest.substr(0, end));
    }
    return c;
}

std::vector<core::StatusCause> readStatusCauses(core::JsonReader &read, const core::Json &details,
                                                const std::string &detailsPath)
{
    std::vector<core::StatusCause> out;
    const core::Json *causes = read.array(details, "causes", detailsPath);
    const std::string causesPath = core::jsonPath(detailsPath, "causes");
    for (std::size_t i = 0; causes && i < causes->size() && read.ok(); ++i) {
        const core::Json &c = (*causes)[i];
        const std::string path = core::jsonPath(causesPath, i);
        if (!read.expectObject(c, path))
            break;
        core::StatusCause cause;
        cause.reason = read.string(c, "reason", path);
        cause.message = read.string(c, "message", path);
        cause.field = read.string(c, "field", path);
        out.push_back(std::move(cause));
    }
    return out;
}

Error errorFromResponse(const HttpResponse &response, std::string_view request)
{
    Error e;
    e.httpStatus = response.status;
    e.retryAfterSeconds = response.retryAfterSeconds;
    e.warnings = response.warnings; // field validation warns and refuses in one answer
    bool fieldConflict = false;
    auto parsed = core::parseJson(response.body);
    const bool isStatus = parsed.ok() && parsed->is_object() && [&] {
        auto k = parsed->find("kind");
        return k != parsed->end() && k->is_string() && k->get_ref<const std::string &>() == "Status";
    }();
    if (isStatus) {
        // The body is the server's (or a proxy's) words: every field is type-checked, and a
        // wrong type turns the whole answer into a Parse error that still carries the HTTP code.
        const auto &st = *parsed;
        core::JsonReader read("Status of " + (request.empty() ? std::string("a request") : std::string(request))
                              + " (HTTP " + std::to_string(response.status) + ")");
        e.reason = read.string(st, "reason", "");
        e.message = read.string(st, "message", "");
        if (const core::Json *d = read.object(st, "details", "")) {
            e.causes = readStatusCauses(read, *d, "details");
            for (const core::StatusCause &cause : e.causes)
                if (cause.reason == "FieldManagerConflict") {
                    fieldConflict = true;
                    e.conflicts.push_back(parseConflictCause(cause.message, cause.field));
                }
            const auto retry = read.integer(*d, "retryAfterSeconds", "details", -1);
            if (e.retryAfterSeconds < 0 && retry >= -1 && retry <= 86400)
                e.retryAfterSeconds = int(retry);
        }
        if (!read.ok()) {
            Error bad = read.error();
            bad.httpStatus = response.status;
            bad.retryAfterSeconds = response.retryAfterSeconds;
            bad.warnings = response.warnings;
            return bad;
        }
    } else {
        // APF's 429 and proxies answer in plain text; keep a bounded piece of it.
        std::string text = response.body.substr(0, 500);
        while (!text.empty() && (text.back() == '\n' || text.back() == '\r'))
            text.pop_back();
        e.message = text.empty() ? "HTTP " + std::to_string(response.status) : text;
        if (response.status == 429)
            e.reason = "TooManyRequests";
    }
    e.category = categoryFor(response.status, e.reason, fieldConflict);
    if (e.message.empty())
        e.message = "the server answered HTTP " + std::to_string(response.status);
    return e;
}

} // namespace fieldscope::kube
