#pragma once
// Result<T>: an expected-style return for fallible calls (std::expected is C++23).
#include "core/base/error.h"

#include <cassert>
#include <utility>
#include <variant>

namespace fieldscope::core {

template<typename T>
class [[nodiscard]] Result
{
public:
    Result(T value) : m_v(std::in_place_index<0>, std::move(value)) {}
    Result(Error error) : m_v(std::in_place_index<1>, std::move(error)) {}

    bool ok() const { return m_v.index() == 0; }
    explicit operator bool() const { return ok(); }

    T &value() &
    {
        assert(ok());
        return std::get<0>(m_v);
    }
    const T &value() const &
    {
        assert(ok());
        return std::get<0>(m_v);
    }
    T &&value() &&
    {
        assert(ok());
        return std::get<0>(std::move(m_v));
    }
    T *operator->() { return &value(); }
    const T *operator->() const { return &value(); }
    T &operator*() & { return value(); }
    const T &operator*() const & { return value(); }

    const Error &error() const
    {
        assert(!ok());
        return std::get<1>(m_v);
    }
    Error &error()
    {
        assert(!ok());
        return std::get<1>(m_v);
    }

    template<typename U>
    T valueOr(U &&fallback) const
    {
        return ok() ? value() : T(std::forward<U>(fallback));
    }

private:
    std::variant<T, Error> m_v;
};

struct Unit {};
using Status = Result<Unit>;
inline Status success()
{
    return Unit{};
}

} // namespace fieldscope::core
