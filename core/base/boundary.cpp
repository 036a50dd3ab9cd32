#include "core/base/boundary.h"

#include <QException>

#include <new>

namespace fieldscope::core {

Q_LOGGING_CATEGORY(lcBoundary, "fieldscope.core.boundary")

namespace {

// Classifies an exception; rethrows it to see its type.
std::string describeException(const std::exception_ptr &e)
{
    if (!e)
        return "unknown exception";
    try {
        std::rethrow_exception(e);
    } catch (const std::bad_alloc &) {
        return "out of memory";
    } catch (const QUnhandledException &u) {
        // QtConcurrent wraps what the worker threw; the worker's exception says what happened.
        return u.exception() ? describeException(u.exception()) : std::string("unknown exception");
    } catch (const std::exception &x) {
        const char *text = x.what();
        return text && *text ? std::string(text) : std::string("unknown exception");
    } catch (...) {
        return "unknown exception";
    }
}

} // namespace

Error currentExceptionError(std::string_view what) noexcept
{
    try {
        const std::string reason = describeException(std::current_exception());
        // Parse: what a worker throws comes from decoding input (a library's type or range
        // error) or from its size (out of memory).
        Error e = Error::make(ErrorCategory::Parse, std::string(what) + " failed: " + reason);
        qCWarning(lcBoundary, "%s", e.message.c_str());
        return e;
    } catch (...) {
        // Building the message itself failed (memory is short): a fixed text still reports it.
        Error e;
        e.category = ErrorCategory::Parse;
        e.message = "out of memory"; // short enough to need no allocation
        return e;
    }
}

} // namespace fieldscope::core
