#include "core/objects/fieldpath.h"

#include <algorithm>

namespace fieldscope::core {
namespace {

// Go's strconv.Quote-like rendering used by value.ToString for strings; numbers and bools bare.
std::string renderValue(const Json &v)
{
    if (v.is_string())
        return toJsonText(v);
    return toJsonText(v);
}

bool matchesKey(const Json &item, const Json &key)
{
    if (!item.is_object() || !key.is_object())
        return false;
    for (auto it = key.begin(); it != key.end(); ++it) {
        auto f = item.find(it.key());
        if (f == item.end() || !jsonEqual(*f, it.value()))
            return false;
    }
    return true;
}

} // namespace

PathElement PathElement::makeField(std::string name)
{
    PathElement e;
    e.kind = Kind::Field;
    e.field = std::move(name);
    return e;
}

PathElement PathElement::makeKey(Json keyFields)
{
    PathElement e;
    e.kind = Kind::Key;
    e.key = std::move(keyFields);
    return e;
}

PathElement PathElement::makeValue(Json v)
{
    PathElement e;
    e.kind = Kind::Value;
    e.value = std::move(v);
    return e;
}

PathElement PathElement::makeIndex(std::int64_t i)
{
    PathElement e;
    e.kind = Kind::Index;
    e.index = i;
    return e;
}

std::string PathElement::toString() const
{
    switch (kind) {
    case Kind::Field: return "." + field;
    case Kind::Key: {
        std::vector<std::string> names;
        for (auto it = key.begin(); it != key.end(); ++it)
            names.push_back(it.key());
        std::sort(names.begin(), names.end());
        std::string s = "[";
        for (std::size_t i = 0; i < names.size(); ++i) {
            if (i)
                s += ",";
            s += names[i] + "=" + renderValue(key.at(names[i]));
        }
        return s + "]";
    }
    case Kind::Value: return "[=" + renderValue(value) + "]";
    case Kind::Index: return "[" + std::to_string(index) + "]";
    }
    return {};
}

bool PathElement::operator==(const PathElement &o) const
{
    if (kind != o.kind)
        return false;
    switch (kind) {
    case Kind::Field: return field == o.field;
    case Kind::Key: return jsonEqual(key, o.key);
    case Kind::Value: return jsonEqual(value, o.value);
    case Kind::Index: return index == o.index;
    }
    return false;
}

FieldPath FieldPath::child(PathElement e) const
{
    FieldPath p = *this;
    p.m_elements.push_back(std::move(e));
    return p;
}

FieldPath FieldPath::parent() const
{
    FieldPath p = *this;
    if (!p.m_elements.empty())
        p.m_elements.pop_back();
    return p;
}

bool FieldPath::startsWith(const FieldPath &prefix) const
{
    if (prefix.size() > size())
        return false;
    return std::equal(prefix.m_elements.begin(), prefix.m_elements.end(), m_elements.begin());
}

std::string FieldPath::toString() const
{
    std::string s;
    for (const auto &e : m_elements)
        s += e.toString();
    return s;
}

bool FieldPath::resolve(const Json &object, std::string *jsonPointer, const Json **node) const
{
    return resolve(object, jsonPointer, node, nullptr);
}

bool FieldPath::resolve(const Json &object, std::string *jsonPointer, const Json **node,
                        std::vector<PointerPin> *pins) const
{
    if (pins)
        pins->clear();
    std::vector<PointerPin> found;
    const Json *cur = &object;
    std::string ptr;
    for (const auto &e : m_elements) {
        if (e.kind == PathElement::Kind::Field) {
            if (!cur->is_object())
                return false;
            auto it = cur->find(e.field);
            if (it == cur->end())
                return false;
            cur = &*it;
            ptr += "/" + jsonPointerEscape(e.field);
            continue;
        }
        if (!cur->is_array())
            return false;
        const Json *next = nullptr;
        std::size_t n = 0;
        for (; n < cur->size(); ++n) {
            const Json &item = (*cur)[n];
            const bool hit = e.kind == PathElement::Kind::Index ? std::int64_t(n) == e.index
                           : e.kind == PathElement::Kind::Value ? jsonEqual(item, e.value)
                                                                : matchesKey(item, e.key);
            if (hit) {
                next = &item;
                break;
            }
        }
        if (!next)
            return false;
        cur = next;
        ptr += "/" + std::to_string(n);
        if (e.kind == PathElement::Kind::Key && e.key.is_object())
            for (const auto &[field, value] : e.key.items())
                found.push_back({ptr + "/" + jsonPointerEscape(field), value});
        else if (e.kind == PathElement::Kind::Value)
            found.push_back({ptr, e.value});
    }
    if (jsonPointer)
        *jsonPointer = ptr;
    if (pins)
        *pins = std::move(found);
    if (node)
        *node = cur;
    return true;
}

} // namespace fieldscope::core
