// JsonIndex (the recorder's reading of every event's text) against parseJson, on any bytes: the
// index may only say Ok for text parseJson accepts, and then its tree must be parseJson's (types,
// keys in order, decoded strings); Invalid must be text parseJson refuses. Unsupported makes no
// claim (the store falls back to parseJson). Input: the text itself.
#include "core/base/json.h"
#include "core/history/versioncodec.h"

#include <cstdint>
#include <cstdlib>
#include <string>

namespace {

using fieldscope::core::Json;
using fieldscope::core::JsonIndex;

void mustMatch(const JsonIndex &ix, std::uint32_t node, const Json &value)
{
    const JsonIndex::Node &n = ix.nodes()[node];
    switch (n.type) {
    case JsonIndex::Type::Null:
        if (!value.is_null())
            std::abort();
        return;
    case JsonIndex::Type::True:
    case JsonIndex::Type::False:
        if (!value.is_boolean() || value.get<bool>() != (n.type == JsonIndex::Type::True))
            std::abort();
        return;
    case JsonIndex::Type::Number:
        if (!value.is_number())
            std::abort();
        return;
    case JsonIndex::Type::String:
        if (!value.is_string() || ix.stringAt(node) != value.get<std::string>())
            std::abort();
        return;
    case JsonIndex::Type::Array: {
        if (!value.is_array())
            std::abort();
        std::size_t i = 0;
        for (std::uint32_t c = node + 1; c < n.next; c = ix.nodes()[c].next, ++i)
            if (i >= value.size())
                std::abort();
            else
                mustMatch(ix, c, value[i]);
        if (i != value.size())
            std::abort();
        return;
    }
    case JsonIndex::Type::Object: {
        if (!value.is_object())
            std::abort();
        auto it = value.begin();
        for (std::uint32_t c = node + 1; c < n.next; c = ix.nodes()[c].next, ++it) {
            if (it == value.end() || ix.key(c) != it.key() || ix.member(node, it.key()) != std::int64_t(c))
                std::abort();
            mustMatch(ix, c, it.value());
        }
        if (it != value.end())
            std::abort();
        return;
    }
    }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    const std::string text(reinterpret_cast<const char *>(data), size);
    JsonIndex ix;
    const JsonIndex::Status status = ix.build(text);
    auto parsed = fieldscope::core::parseJson(text);
    if (status == JsonIndex::Status::Invalid && parsed)
        std::abort(); // the index refused what the store's fallback would have read
    if (status == JsonIndex::Status::Ok) {
        if (!parsed)
            std::abort(); // a snapshot the readers could not decode
        mustMatch(ix, 0, *parsed);
    }
    return 0;
}
