#pragma once
// The JSON DOM used outside the list/watch hot path (which uses simdjson on raw bytes, see
// kube/listdecoder.h). nlohmann's ordered_json keeps int64 exact (API brief: never go through
// double) and keeps key order, so YAML shown to users follows the server's field order.
#include "core/result.h"

#include <nlohmann/json.hpp>

#include <string>
#include <string_view>

namespace fieldscope::core {

using Json = nlohmann::ordered_json;

// Parses JSON text; malformed input becomes a Parse error with the byte offset, never an exception.
Result<Json> parseJson(std::string_view text);
// Compact serialisation (what we send to the server).
std::string toJsonText(const Json &j);

// RFC 6901 escaping of one reference token ('~' -> "~0", '/' -> "~1").
std::string jsonPointerEscape(std::string_view token);
std::string jsonPointerUnescape(std::string_view token);

// Deep equality with Kubernetes semantics: 80 == 80.0, object key order ignored.
bool jsonEqual(const Json &a, const Json &b);

// A short one-line preview of a value for tables and gutters ("{3 keys}", "[2 items]", "\"nginx\"").
std::string jsonPreview(const Json &v, std::size_t maxChars = 60);

} // namespace fieldscope::core
