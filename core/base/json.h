#pragma once
// The JSON DOM used outside the list/watch hot path (which uses simdjson on raw bytes, see
// kube/listdecoder.h). nlohmann's basic_json keeps int64 exact (Kubernetes integers are int64: never go through
// double); its object type is core::IndexedOrderedMap, which keeps key order (YAML shown to users
// follows the server's field order) like ordered_json but finds keys through a hash index, so an
// object with n keys parses in O(n) rather than ordered_json's O(n^2) (core/base/indexedmap.h).
#include "core/base/indexedmap.h"
#include "core/base/result.h"

#include <nlohmann/json.hpp>

#include <string>
#include <string_view>

namespace fieldscope::core {

using Json = nlohmann::basic_json<IndexedOrderedMap>;

// The deepest nesting (objects and arrays, each one level: 5 and [] are depths 0 and 1) that any
// input may have and that every recursive walker in core/ accepts. Real objects stay below 30; the
// API server's own decoder allows 10,000, which would not fit a worker thread's stack in our
// walkers (docs/architecture.md, "Limits"). Deeper input is a Parse error, never a crash.
inline constexpr int kMaxJsonDepth = 512;

// Parses JSON text; malformed input (invalid UTF-8 included) becomes a Parse error with the byte
// offset, never an exception. Nesting deeper than maxDepth is refused before a DOM is built.
Result<Json> parseJson(std::string_view text, int maxDepth = kMaxJsonDepth);
// Compact serialisation (what we send to the server). Never throws: invalid UTF-8 in a string
// (which parseJson never lets in, but code can build) is written as U+FFFD.
std::string toJsonText(const Json &j);
// The same, indented by `indent` spaces per level (the CLI's `-o json`).
std::string toJsonText(const Json &j, int indent);

// Nesting depth of a value as parseJson counts it, computed without recursion.
std::size_t jsonDepth(const Json &value);
// A Parse error naming `what` when `value` is nested deeper than maxDepth: for values that did not
// come through parseJson or yamlToJson (walkers call it before they recurse).
Status checkJsonDepth(const Json &value, const std::string &what, int maxDepth = kMaxJsonDepth);

// RFC 6901 escaping of one reference token ('~' -> "~0", '/' -> "~1").
std::string jsonPointerEscape(std::string_view token);
std::string jsonPointerUnescape(std::string_view token);

// Deep equality with Kubernetes semantics: 80 == 80.0, object key order ignored. Iterative (an
// explicit stack, no recursion), so any depth is safe.
bool jsonEqual(const Json &a, const Json &b);

// A short one-line preview of a value for tables and gutters ("{3 keys}", "[2 items]", "\"nginx\"").
std::string jsonPreview(const Json &v, std::size_t maxChars = 60);

} // namespace fieldscope::core
