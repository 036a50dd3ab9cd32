#include "core/ownership/fieldsv1.h"

#include <algorithm>
#include <charconv>
#include <cmath>

namespace fieldscope::core {
namespace {

// FieldsV1 nests one level per path element, so it is as deep as the fields it describes: the
// common limit applies (a FieldsV1 value nested deeper than kMaxJsonDepth is a Parse error).
// Refusing it keeps a hostile object from exhausting the stack of a worker thread.
constexpr std::size_t kMaxDepth = std::size_t(kMaxJsonDepth);

// Values reach this from parseJson or from an object already checked against kMaxJsonDepth;
// `depth` only guards against a value built in code: past the limit the rest is left as it is
// (valid JSON, merely not canonical) rather than recursing further.
Json canonicalise(const Json &v, int depth = 0)
{
    if (depth > kMaxJsonDepth)
        return v;
    if (v.is_number_float()) {
        const double d = v.get<double>();
        if (std::isfinite(d) && std::trunc(d) == d && std::fabs(d) < 9.0e15)
            return Json(static_cast<std::int64_t>(d));
        return v;
    }
    if (v.is_object()) {
        std::vector<std::string> names;
        names.reserve(v.size());
        for (auto it = v.begin(); it != v.end(); ++it)
            names.push_back(it.key());
        std::sort(names.begin(), names.end());
        Json out = Json::object();
        for (const auto &n : names)
            out[n] = canonicalise(v.at(n), depth + 1);
        return out;
    }
    if (v.is_array()) {
        Json out = Json::array();
        for (const auto &e : v)
            out.push_back(canonicalise(e, depth + 1));
        return out;
    }
    return v;
}

std::string whereOf(const std::vector<PathElement> &path)
{
    const std::string s = FieldPath(path).toString();
    return s.empty() ? std::string("<root>") : s;
}

struct Parser {
    std::vector<PathElement> path;

    Error fail(const std::string &key, const std::string &why) const
    {
        return Error::make(ErrorCategory::Parse, "FieldsV1 key \"" + key + "\": " + why, whereOf(path));
    }

    // Returns false and fills *error for a malformed key; true with *known == false for an
    // unknown prefix (dropped, like the Go parser does for forward compatibility).
    bool decodeKey(const std::string &key, PathElement *out, bool *known, Error *error) const
    {
        *known = true;
        if (key.size() < 2) {
            *error = fail(key, R"(a key must be "." or "<prefix>:<payload>")");
            return false;
        }
        if (key[1] != ':') {
            *error = fail(key, "missing ':' after the prefix");
            return false;
        }
        const std::string_view payload = std::string_view(key).substr(2);
        switch (key[0]) {
        case 'f': *out = PathElement::makeField(std::string(payload)); return true;
        case 'k':
        case 'v': {
            auto parsed = parseJson(payload);
            if (!parsed) {
                *error = fail(key, std::string("invalid JSON payload (") + parsed.error().message + ")");
                return false;
            }
            if (key[0] == 'k') {
                if (!parsed->is_object()) {
                    *error = fail(key, "a k: payload must be a JSON object of key fields");
                    return false;
                }
                *out = PathElement::makeKey(canonicalise(*parsed));
            } else {
                *out = PathElement::makeValue(std::move(*parsed));
            }
            return true;
        }
        case 'i': {
            std::int64_t n = 0;
            const char *b = payload.data();
            const char *e = b + payload.size();
            if (b != e && *b == '+')
                ++b;
            auto [p, ec] = std::from_chars(b, e, n);
            if (b == e || ec != std::errc() || p != e) {
                *error = fail(key, "an i: payload must be a decimal integer");
                return false;
            }
            *out = PathElement::makeIndex(n);
            return true;
        }
        default: *known = false; return true;
        }
    }

    Result<FieldSet> node(const Json &j)
    {
        FieldSet set;
        if (j.is_null()) { // jsoniter reads null as an empty map
            set.setMember(true);
            return set;
        }
        if (!j.is_object())
            return Error::make(ErrorCategory::Parse,
                               std::string("FieldsV1 node must be a JSON object, found ") + j.type_name(),
                               whereOf(path));
        // This object sits path.size() + 1 levels deep in the FieldsV1 value.
        if (path.size() >= kMaxDepth)
            return Error::make(ErrorCategory::Parse,
                               "FieldsV1 nested deeper than " + std::to_string(kMaxDepth) + " levels", whereOf(path));
        for (auto it = j.begin(); it != j.end(); ++it) {
            const std::string &key = it.key();
            if (key == ".") {
                set.setMember(true);
                continue;
            }
            PathElement element;
            bool known = false;
            Error error;
            if (!decodeKey(key, &element, &known, &error))
                return error;
            if (!known)
                continue;
            path.push_back(element);
            auto child = node(it.value());
            path.pop_back();
            if (!child)
                return child.error();
            std::string canonical = fieldsV1Key(element);
            set.appendChild(std::move(element), std::move(canonical)) = std::move(*child);
        }
        // readIterV1: a node without understood children is itself a member ({} is a leaf).
        if (!set.hasChildren())
            set.setMember(true);
        return set;
    }
};

int kindRank(const std::string &key)
{
    switch (key.empty() ? '\0' : key[0]) {
    case 'f': return 0;
    case 'k': return 1;
    case 'v': return 2;
    default: return 3;
    }
}

int compareKeyToField(const std::string &key, std::string_view name)
{
    if (int c = key.compare(0, 2, "f:"); c != 0)
        return c;
    return std::string_view(key).substr(2).compare(name);
}

} // namespace

std::string canonicalJsonText(const Json &value)
{
    return toJsonText(canonicalise(value));
}

std::string fieldsV1Key(const PathElement &element)
{
    switch (element.kind) {
    case PathElement::Kind::Field: return "f:" + element.field;
    case PathElement::Kind::Key: return "k:" + canonicalJsonText(element.key);
    case PathElement::Kind::Value: return "v:" + canonicalJsonText(element.value);
    case PathElement::Kind::Index: return "i:" + std::to_string(element.index);
    }
    return {};
}

Result<FieldSet> FieldSet::fromFieldsV1(const Json &fieldsV1)
{
    if (!fieldsV1.is_object() && !fieldsV1.is_null())
        return Error::make(ErrorCategory::Parse,
                           std::string("FieldsV1 must be a JSON object, found ") + fieldsV1.type_name(), "<root>");
    Parser parser;
    auto set = parser.node(fieldsV1);
    if (!set)
        return set;
    // An empty FieldsV1 ({}) owns nothing; it is not "the whole object".
    if (!set->hasChildren())
        set->setMember(false);
    set->normalize();
    return set;
}

Result<FieldSet> FieldSet::fromFieldsV1Text(std::string_view text)
{
    auto j = parseJson(text);
    if (!j)
        return j.error();
    return fromFieldsV1(*j);
}

Json FieldSet::toFieldsV1() const
{
    Json out = Json::object();
    if (m_member && !m_children.empty())
        out["."] = Json::object();
    std::vector<const Entry *> ordered;
    ordered.reserve(m_children.size());
    for (const auto &e : m_children)
        ordered.push_back(&e);
    std::stable_sort(ordered.begin(), ordered.end(),
                     [](const Entry *a, const Entry *b) { return kindRank(a->key) < kindRank(b->key); });
    for (const Entry *e : ordered)
        out[e->key] = e->set.toFieldsV1();
    return out;
}

const FieldSet *FieldSet::find(std::string_view key) const
{
    auto it = std::lower_bound(m_children.begin(), m_children.end(), key,
                               [](const Entry &e, std::string_view k) { return std::string_view(e.key) < k; });
    return it != m_children.end() && it->key == key ? &it->set : nullptr;
}

const FieldSet *FieldSet::findField(std::string_view name) const
{
    auto it = std::lower_bound(m_children.begin(), m_children.end(), name,
                               [](const Entry &e, std::string_view n) { return compareKeyToField(e.key, n) < 0; });
    return it != m_children.end() && compareKeyToField(it->key, name) == 0 ? &it->set : nullptr;
}

const FieldSet *FieldSet::find(const PathElement &element) const
{
    if (element.kind == PathElement::Kind::Field)
        return findField(element.field);
    return find(fieldsV1Key(element));
}

const FieldSet *FieldSet::find(const FieldPath &path) const
{
    const FieldSet *cur = this;
    for (const auto &e : path.elements()) {
        cur = cur->find(e);
        if (!cur)
            return nullptr;
    }
    return cur;
}

bool FieldSet::contains(const FieldPath &path) const
{
    const FieldSet *s = find(path);
    return s && s->isMember();
}

FieldSet &FieldSet::child(const PathElement &element)
{
    std::string key = fieldsV1Key(element);
    auto it = std::lower_bound(m_children.begin(), m_children.end(), key,
                               [](const Entry &e, const std::string &k) { return e.key < k; });
    if (it != m_children.end() && it->key == key)
        return it->set;
    it = m_children.insert(it, Entry{std::move(key), element, FieldSet()});
    return it->set;
}

void FieldSet::insert(const FieldPath &path)
{
    FieldSet *cur = this;
    for (const auto &e : path.elements())
        cur = &cur->child(e);
    cur->setMember(true);
}

FieldSet &FieldSet::appendChild(PathElement element, std::string key)
{
    m_children.push_back(Entry{std::move(key), std::move(element), FieldSet()});
    return m_children.back().set;
}

void FieldSet::normalize()
{
    if (!std::is_sorted(m_children.begin(), m_children.end(),
                        [](const Entry &a, const Entry &b) { return a.key < b.key; }))
        std::stable_sort(m_children.begin(), m_children.end(),
                         [](const Entry &a, const Entry &b) { return a.key < b.key; });
    // Duplicates (the same list item twice, or k: payloads in different key order) are merged.
    std::size_t out = 0;
    for (std::size_t i = 0; i < m_children.size(); ++i) {
        if (out > 0 && m_children[out - 1].key == m_children[i].key) {
            m_children[out - 1].set.merge(m_children[i].set);
            continue;
        }
        if (out != i)
            m_children[out] = std::move(m_children[i]);
        ++out;
    }
    m_children.resize(out);
    for (auto &e : m_children)
        e.set.normalize();
}

void FieldSet::merge(const FieldSet &other)
{
    m_member = m_member || other.m_member;
    if (other.m_children.empty())
        return;
    std::vector<Entry> merged;
    merged.reserve(m_children.size() + other.m_children.size());
    auto a = m_children.begin();
    auto b = other.m_children.begin();
    while (a != m_children.end() || b != other.m_children.end()) {
        if (b == other.m_children.end() || (a != m_children.end() && a->key < b->key)) {
            merged.push_back(std::move(*a++));
        } else if (a == m_children.end() || b->key < a->key) {
            merged.push_back(*b++);
        } else {
            a->set.merge(b->set);
            merged.push_back(std::move(*a++));
            ++b;
        }
    }
    m_children = std::move(merged);
}

std::size_t FieldSet::memberCount() const
{
    std::size_t n = m_member ? 1 : 0;
    for (const auto &e : m_children)
        n += e.set.memberCount();
    return n;
}

namespace {
void collectMembers(const FieldSet &set, std::vector<PathElement> &prefix, std::vector<FieldPath> &out)
{
    if (set.isMember() && !prefix.empty())
        out.emplace_back(prefix);
    for (const auto &e : set.children()) {
        prefix.push_back(e.element);
        collectMembers(e.set, prefix, out);
        prefix.pop_back();
    }
}
} // namespace

std::vector<FieldPath> FieldSet::members() const
{
    std::vector<FieldPath> out;
    std::vector<PathElement> prefix;
    collectMembers(*this, prefix, out);
    return out;
}

bool FieldSet::operator==(const FieldSet &other) const
{
    if (m_member != other.m_member || m_children.size() != other.m_children.size())
        return false;
    for (std::size_t i = 0; i < m_children.size(); ++i) {
        if (m_children[i].key != other.m_children[i].key || !(m_children[i].set == other.m_children[i].set))
            return false;
    }
    return true;
}

} // namespace fieldscope::core
