#pragma once
// A set of strings that finds a std::string_view without copying it into a std::string first
// (C++20 heterogeneous lookup needs a transparent hash and equality).
#include <functional>
#include <string>
#include <string_view>
#include <unordered_set>

namespace fieldscope::core {

struct StringViewHash {
    using is_transparent = void;
    std::size_t operator()(std::string_view s) const noexcept { return std::hash<std::string_view>()(s); }
};

using StringSet = std::unordered_set<std::string, StringViewHash, std::equal_to<>>;

} // namespace fieldscope::core
