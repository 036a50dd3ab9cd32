#pragma once
// An object's JSON bytes with its identity strings (uid, namespace, name, resourceVersion) found
// inside them: the strings are views into the bytes, not copies. A server writes each of them
// verbatim in the object (these strings have nothing to escape), so each is located by searching
// for the quoted value; one that does not occur verbatim (an escaped character from an odd
// server) is kept as a copy beside the bytes. 56 bytes and no allocation per object, where four
// strings took 128 bytes and two heap blocks (a 36-character uid, a Pod's name): the table and
// the store hold one per object (150,000 Pods: ~60 MB less).
#include <QByteArray>

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

namespace fieldscope::core {

class ObjectBytes
{
public:
    ObjectBytes() = default;
    ObjectBytes(QByteArray json, std::string_view uid, std::string_view namespace_, std::string_view name,
                std::string_view resourceVersion);
    ObjectBytes(const ObjectBytes &other);
    ObjectBytes &operator=(const ObjectBytes &other);
    // A moved-from object reads as empty (its views must not point past its now-empty bytes).
    ObjectBytes(ObjectBytes &&other) noexcept;
    ObjectBytes &operator=(ObjectBytes &&other) noexcept;
    ~ObjectBytes() = default;

    const QByteArray &json() const { return m_json; }
    std::string_view uid() const { return view(Uid); }
    std::string_view namespace_() const { return view(Namespace); }
    std::string_view name() const { return view(Name); }
    std::string_view resourceVersion() const { return view(ResourceVersion); }
    // Whether some identity string was not in the bytes verbatim and is held as a copy.
    bool holdsCopies() const { return m_copies != nullptr; }

private:
    enum Field { Uid, Namespace, Name, ResourceVersion, FieldCount };
    static constexpr std::uint32_t kCopied = UINT32_MAX; // m_offset of a field in m_copies
    std::string_view view(Field f) const;

    QByteArray m_json;
    std::array<std::uint32_t, FieldCount> m_offset{};
    std::array<std::uint16_t, FieldCount> m_length{}; // longer values are copied
    std::unique_ptr<std::array<std::string, FieldCount>> m_copies;
};

} // namespace fieldscope::core
