#include "core/objects/objectbytes.h"

#include <utility>

namespace fieldscope::core {

namespace {

// Where `value` occurs between two quotes in `text`, or npos. Any such occurrence is a correct
// view (its bytes are the value's); the first is usually in metadata, near the start.
std::size_t quotedAt(std::string_view text, std::string_view value)
{
    for (std::size_t from = 1; from < text.size();) {
        const std::size_t at = text.find(value, from);
        if (at == std::string_view::npos || at + value.size() >= text.size())
            return std::string_view::npos;
        if (text[at - 1] == '"' && text[at + value.size()] == '"')
            return at;
        from = at + 1;
    }
    return std::string_view::npos;
}

} // namespace

ObjectBytes::ObjectBytes(QByteArray json, std::string_view uid, std::string_view namespace_, std::string_view name,
                         std::string_view resourceVersion)
    : m_json(std::move(json))
{
    const std::string_view text(m_json.constData(), std::size_t(m_json.size()));
    const std::array<std::string_view, FieldCount> values{uid, namespace_, name, resourceVersion};
    for (std::size_t f = 0; f < FieldCount; ++f) {
        const std::string_view v = values[f];
        if (v.empty())
            continue;
        const bool fits = text.size() < kCopied && v.size() <= UINT16_MAX;
        const std::size_t at = fits ? quotedAt(text, v) : std::string_view::npos;
        if (at == std::string_view::npos) {
            if (!m_copies)
                m_copies = std::make_unique<std::array<std::string, FieldCount>>();
            (*m_copies)[f] = std::string(v);
            m_offset[f] = kCopied;
        } else {
            m_offset[f] = std::uint32_t(at);
            m_length[f] = std::uint16_t(v.size());
        }
    }
}

ObjectBytes::ObjectBytes(const ObjectBytes &other)
    : m_json(other.m_json)
    , m_offset(other.m_offset)
    , m_length(other.m_length)
    , m_copies(other.m_copies ? std::make_unique<std::array<std::string, FieldCount>>(*other.m_copies) : nullptr)
{
}

ObjectBytes::ObjectBytes(ObjectBytes &&other) noexcept
    : m_json(std::move(other.m_json))
    , m_offset(std::exchange(other.m_offset, {}))
    , m_length(std::exchange(other.m_length, {}))
    , m_copies(std::move(other.m_copies))
{
}

ObjectBytes &ObjectBytes::operator=(ObjectBytes &&other) noexcept
{
    if (this != &other) {
        m_json = std::move(other.m_json);
        m_offset = std::exchange(other.m_offset, {});
        m_length = std::exchange(other.m_length, {});
        m_copies = std::move(other.m_copies);
    }
    return *this;
}

ObjectBytes &ObjectBytes::operator=(const ObjectBytes &other)
{
    if (this != &other)
        *this = ObjectBytes(other);
    return *this;
}

std::string_view ObjectBytes::view(Field f) const
{
    const auto i = std::size_t(f);
    if (m_offset[i] == kCopied)
        return (*m_copies)[i];
    return std::string_view(m_json.constData() + m_offset[i], m_length[i]);
}

} // namespace fieldscope::core
