#pragma once
// Type-checked reads of JSON we did not write (server answers, plugin output). nlohmann's
// value()/get<>() throw type_error on a wrong type, and an exception escaping a decoder on the
// network thread is std::terminate; JsonReader instead records the first wrong type as a Parse
// error naming the JSON path and the request, and hands back the fallback so decoding can finish
// its loop without special cases. Independent of the concrete map type behind core::Json.
#include "core/base/json.h"
#include "core/base/result.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fieldscope::core {

// "string", "number", "object"... as a user reads it in an error.
const char *jsonTypeName(const Json &j);

// Joins a JSON path for messages: jsonPath("items[3]", "metadata") -> "items[3].metadata".
std::string jsonPath(std::string_view parent, std::string_view key);
std::string jsonPath(std::string_view parent, std::size_t index);

class JsonReader
{
public:
    // `what` names the document and request in every error: "discovery GET /apis/apps/v1".
    explicit JsonReader(std::string what) : m_what(std::move(what)) {}

    // Each read takes the parent object, the key and the parent's path. A missing key or null is
    // the fallback (Kubernetes omits empty fields); any other type records an error.
    std::string string(const Json &parent, std::string_view key, std::string_view path, std::string fallback = {});
    bool boolean(const Json &parent, std::string_view key, std::string_view path, bool fallback = false);
    std::int64_t integer(const Json &parent, std::string_view key, std::string_view path, std::int64_t fallback = 0);
    // nullptr when missing, null or of the wrong type (then an error is recorded).
    const Json *object(const Json &parent, std::string_view key, std::string_view path);
    const Json *array(const Json &parent, std::string_view key, std::string_view path);
    // An array of strings; a non-string element is an error.
    std::vector<std::string> strings(const Json &parent, std::string_view key, std::string_view path);

    // Checks that `value` at `path` is an object (list elements, the document root).
    bool expectObject(const Json &value, std::string_view path);

    bool ok() const { return !m_failed; }
    const Error &error() const { return m_error; }
    Status status() const;
    // Records a wrong type by hand (for shapes the helpers above do not cover).
    void fail(std::string_view path, const char *expected, const Json &actual);

private:
    const Json *child(const Json &parent, std::string_view key, std::string_view path);

    std::string m_what;
    bool m_failed = false;
    Error m_error;
};

// One value by JSON Pointer ("/metadata/resourceVersion") in a document we did not write, without
// throwing: nullopt when the pointer is malformed, the path is missing or the value has another
// type. For single reads; decoders of whole documents use JsonReader to report the wrong type.
std::optional<std::string> stringAt(const Json &document, std::string_view pointer);
std::optional<bool> booleanAt(const Json &document, std::string_view pointer);

// dump() that never throws on invalid UTF-8 in strings we did not write: bad bytes become U+FFFD.
std::string safeDump(const Json &j, int indent = -1);

} // namespace fieldscope::core
