#include "core/base/jsonread.h"

namespace fieldscope::core {

const char *jsonTypeName(const Json &j)
{
    switch (j.type()) {
    case Json::value_t::null: return "null";
    case Json::value_t::object: return "an object";
    case Json::value_t::array: return "an array";
    case Json::value_t::string: return "a string";
    case Json::value_t::boolean: return "a boolean";
    case Json::value_t::number_integer:
    case Json::value_t::number_unsigned:
    case Json::value_t::number_float: return "a number";
    case Json::value_t::binary: return "binary";
    case Json::value_t::discarded: return "invalid";
    }
    return "unknown";
}

std::string jsonPath(std::string_view parent, std::string_view key)
{
    std::string out(parent);
    if (!out.empty())
        out += '.';
    out += key;
    return out;
}

std::string jsonPath(std::string_view parent, std::size_t index)
{
    return std::string(parent) + "[" + std::to_string(index) + "]";
}

void JsonReader::fail(std::string_view path, const char *expected, const Json &actual)
{
    if (m_failed)
        return; // the first wrong type is the one worth reading
    m_failed = true;
    const std::string where = path.empty() ? std::string("(root)") : std::string(path);
    m_error = Error::make(ErrorCategory::Parse,
                          m_what + ": " + where + " is " + jsonTypeName(actual) + ", expected " + expected, where);
}

Status JsonReader::status() const
{
    if (m_failed)
        return m_error;
    return success();
}

bool JsonReader::expectObject(const Json &value, std::string_view path)
{
    if (value.is_object())
        return true;
    fail(path, "an object", value);
    return false;
}

const Json *JsonReader::child(const Json &parent, std::string_view key, std::string_view path)
{
    if (!parent.is_object())
        return nullptr; // the caller reported the parent's type already
    auto it = parent.find(std::string(key));
    if (it == parent.end() || it->is_null())
        return nullptr;
    (void)path;
    return &*it;
}

std::string JsonReader::string(const Json &parent, std::string_view key, std::string_view path, std::string fallback)
{
    const Json *v = child(parent, key, path);
    if (!v)
        return fallback;
    if (!v->is_string()) {
        fail(jsonPath(path, key), "a string", *v);
        return fallback;
    }
    return v->get_ref<const std::string &>();
}

bool JsonReader::boolean(const Json &parent, std::string_view key, std::string_view path, bool fallback)
{
    const Json *v = child(parent, key, path);
    if (!v)
        return fallback;
    if (!v->is_boolean()) {
        fail(jsonPath(path, key), "a boolean", *v);
        return fallback;
    }
    return v->get<bool>();
}

std::int64_t JsonReader::integer(const Json &parent, std::string_view key, std::string_view path, std::int64_t fallback)
{
    const Json *v = child(parent, key, path);
    if (!v)
        return fallback;
    if (v->is_number_integer() && !(v->is_number_unsigned() && v->get<std::uint64_t>() > std::uint64_t(INT64_MAX)))
        return v->get<std::int64_t>();
    fail(jsonPath(path, key), "an integer", *v);
    return fallback;
}

const Json *JsonReader::object(const Json &parent, std::string_view key, std::string_view path)
{
    const Json *v = child(parent, key, path);
    if (v && !v->is_object()) {
        fail(jsonPath(path, key), "an object", *v);
        return nullptr;
    }
    return v;
}

const Json *JsonReader::array(const Json &parent, std::string_view key, std::string_view path)
{
    const Json *v = child(parent, key, path);
    if (v && !v->is_array()) {
        fail(jsonPath(path, key), "an array", *v);
        return nullptr;
    }
    return v;
}

std::vector<std::string> JsonReader::strings(const Json &parent, std::string_view key, std::string_view path)
{
    std::vector<std::string> out;
    const Json *a = array(parent, key, path);
    if (!a)
        return out;
    const std::string base = jsonPath(path, key);
    for (std::size_t i = 0; i < a->size(); ++i) {
        const Json &v = (*a)[i];
        if (!v.is_string()) {
            fail(jsonPath(base, i), "a string", v);
            continue;
        }
        out.push_back(v.get_ref<const std::string &>());
    }
    return out;
}

namespace {
const Json *valueAt(const Json &document, std::string_view pointer)
{
    try {
        const Json::json_pointer p{std::string(pointer)};
        return document.contains(p) ? &document.at(p) : nullptr;
    } catch (const std::exception &) { // a malformed pointer, or one through a non-container
        return nullptr;
    }
}
} // namespace

std::optional<std::string> stringAt(const Json &document, std::string_view pointer)
{
    const Json *v = valueAt(document, pointer);
    return v && v->is_string() ? std::optional<std::string>(v->get<std::string>()) : std::nullopt;
}

std::optional<bool> booleanAt(const Json &document, std::string_view pointer)
{
    const Json *v = valueAt(document, pointer);
    return v && v->is_boolean() ? std::optional<bool>(v->get<bool>()) : std::nullopt;
}

std::string safeDump(const Json &j, int indent)
{
    return j.dump(indent, ' ', false, Json::error_handler_t::replace);
}

} // namespace fieldscope::core
