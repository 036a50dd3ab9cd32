#pragma once
// The one boundary between work on another thread and the code that reads its outcome
// (docs/architecture.md, "Threads"). A worker's exception travels with its QFuture and
// result()/takeResult() rethrows it on the reading thread (the GUI thread, where nothing catches
// it); an exception leaving a std::thread's function is std::terminate. Both become a
// core::Error here, with one log line (fieldscope.core.boundary), so the caller marks its
// operation failed and shows the message where it shows its other errors.
//
// std::bad_alloc is an input, not a bug: a server or a file chooses the size of what a worker
// builds. It becomes "out of memory"; a std::exception its what(); anything else "unknown
// exception". tests/source/check-future-reads.sh (test check_future_reads) fails when a future is read
// anywhere else.
//
// Thread-agnostic; the functions hold no state.
#include "core/base/result.h"

#include <QFuture>
#include <QLoggingCategory>

#include <exception>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

namespace fieldscope::core {

Q_DECLARE_LOGGING_CATEGORY(lcBoundary)

// The Error for the exception being handled; call only inside a catch block. `what` names the
// operation ("history load"). Logs one warning. QtConcurrent's QUnhandledException is unwrapped
// to the worker's own exception.
Error currentExceptionError(std::string_view what) noexcept;

namespace detail {
template<typename T>
struct IsResult : std::false_type {
};
template<typename T>
struct IsResult<Result<T>> : std::true_type {
};
} // namespace detail
// True for Result<U>: takeResult and guarded pass such a result through instead of nesting it.
template<typename T>
inline constexpr bool isResult = detail::IsResult<T>::value;

namespace detail {
template<bool Take, typename T>
auto finishedResult(QFuture<T> &future, std::string_view what) -> std::conditional_t<isResult<T>, T, Result<T>>
{
    try {
        future.waitForFinished(); // finished already; rethrows the worker's exception
        if (future.resultCount() == 0)
            return Error::make(ErrorCategory::Cancelled, std::string(what) + ": cancelled");
        if constexpr (Take)
            return future.takeResult();
        else
            return future.result();
    } catch (...) {
        return currentExceptionError(what);
    }
}
} // namespace detail

// The result of a finished future (call it from a QFutureWatcher's finished signal: it never
// waits then), or the Error for what the worker threw. A cancelled future without a result is a
// Cancelled error. A worker that returns Result<U> gives Result<U> back (its own error kept).
// The result is moved out: the future is invalid afterwards, and Qt 6.4's waitForFinished() on
// it never returns. For a future someone waits on later (a member a destructor waits for), use
// readResult.
template<typename T>
auto takeResult(QFuture<T> future, std::string_view what) -> std::conditional_t<isResult<T>, T, Result<T>>
{
    return detail::finishedResult<true>(future, what);
}

// As takeResult, but copies the result and leaves the future valid.
template<typename T>
auto readResult(QFuture<T> future, std::string_view what) -> std::conditional_t<isResult<T>, T, Result<T>>
{
    return detail::finishedResult<false>(future, what);
}

// Runs `fn` (the body of a thread we own, or one step of it); whatever it throws becomes an
// Error. Returns Status for a void `fn`, Result<R> for one returning R, and R itself when R is
// already a Result.
template<typename F>
auto guarded(std::string_view what, F &&fn) noexcept
{
    using R = std::invoke_result_t<F>;
    using Out = std::conditional_t<std::is_void_v<R>, Status, std::conditional_t<isResult<R>, R, Result<R>>>;
    try {
        if constexpr (std::is_void_v<R>) {
            std::forward<F>(fn)();
            return Out(success());
        } else {
            return Out(std::forward<F>(fn)());
        }
    } catch (...) {
        return Out(currentExceptionError(what));
    }
}

} // namespace fieldscope::core
