#include "core/ownership/ownershiptree.h"

#include <algorithm>
#include <charconv>
#include <deque>
#include <unordered_map>
#include <unordered_set>

namespace fieldscope::core {

struct OwnershipTree::Data {
    std::vector<ManagedFieldsEntry> entries;
    std::vector<OwnershipNode> nodes;
    std::vector<std::size_t> ownedCounts; // per entry, direct (non-inherited) ownerships
    std::string kind;
};

namespace {

void setValue(OwnershipNode &n, const Json *v)
{
    using T = OwnershipNode::ValueType;
    if (!v) {
        n.type = T::Absent;
        return;
    }
    switch (v->type()) {
    case Json::value_t::null:
        n.type = T::Null;
        n.scalar = nullptr;
        break;
    case Json::value_t::boolean:
        n.type = T::Bool;
        n.scalar = *v;
        break;
    case Json::value_t::number_integer:
    case Json::value_t::number_unsigned:
    case Json::value_t::number_float:
        n.type = T::Number;
        n.scalar = *v;
        break;
    case Json::value_t::string:
        n.type = T::String;
        n.scalar = *v;
        break;
    case Json::value_t::object:
        n.type = T::Object;
        n.size = std::uint32_t(v->size());
        break;
    case Json::value_t::array:
        n.type = T::Array;
        n.size = std::uint32_t(v->size());
        break;
    default: n.type = T::Null; break; // binary/discarded never come out of a JSON parse
    }
}

bool isNonEmptyContainer(const Json *v)
{
    return v && (v->is_object() || v->is_array()) && !v->empty();
}

} // namespace

// Walks the live object and all entries' FieldSets in lockstep. Children of a node are appended
// contiguously, then each child is expanded depth-first; per-depth scratch buffers are reused so
// that building allocates little beyond the nodes themselves.
class OwnershipTreeBuilder
{
public:
    struct Active {
        std::uint32_t entry;
        const FieldSet *set;
    };
    struct Assign {
        std::uint32_t slot;
        Active a;
    };

    OwnershipTreeBuilder(OwnershipTree::Data &d, const OwnershipTreeOptions &options)
        : m_d(d), m_options(options), m_semantics(options.semantics)
    {
    }

    void run(const Json &object)
    {
        addHints();
        OwnershipNode root;
        setValue(root, &object);
        m_d.nodes.push_back(std::move(root));
        std::vector<Assign> top;
        for (std::uint32_t i = 0; i < m_d.entries.size(); ++i)
            top.push_back({0, {i, &m_d.entries[i].fields}});
        expand(0, &object, top.data(), top.data() + top.size(), nullptr, nullptr, 0);
        m_d.ownedCounts.assign(m_d.entries.size(), 0);
        for (const auto &n : m_d.nodes)
            for (const auto &o : n.owners)
                if (!o.inherited)
                    ++m_d.ownedCounts[o.entry];
    }

private:
    struct Plan {
        PathElement element;
        const Json *live = nullptr;
        std::int64_t liveIndex = -1;
    };
    struct Scratch {
        std::vector<Plan> plans;
        std::vector<Assign> assigns;
        std::vector<std::uint32_t> inherited;
        std::vector<std::uint32_t> fieldHits;
        std::unordered_map<std::string, std::uint32_t> absentSlots;
    };

    void addHints() { addListSemanticsHints(m_d.entries, &m_semantics); }

    Scratch &scratch(int depth)
    {
        while (m_scratch.size() <= std::size_t(depth))
            m_scratch.emplace_back();
        return m_scratch[std::size_t(depth)];
    }

    std::uint32_t absentSlot(Scratch &s, const FieldSet::Entry &e)
    {
        auto [it, inserted] = s.absentSlots.try_emplace(e.key, std::uint32_t(s.plans.size()));
        if (inserted)
            s.plans.push_back(Plan{e.element, nullptr, -1});
        return it->second;
    }

    void objectChildren(Scratch &s, const Json &live, const Assign *b, const Assign *e, bool skipManagedFields)
    {
        const auto nActive = std::size_t(e - b);
        s.fieldHits.assign(nActive, 0);
        for (auto it = live.begin(); it != live.end(); ++it) {
            if (skipManagedFields && it.key() == "managedFields")
                continue;
            const auto slot = std::uint32_t(s.plans.size());
            s.plans.push_back(Plan{PathElement::makeField(it.key()), &it.value(), -1});
            for (std::size_t i = 0; i < nActive; ++i) {
                if (!b[i].a.set->hasChildren())
                    continue;
                if (const FieldSet *c = b[i].a.set->findField(it.key())) {
                    s.assigns.push_back({slot, {b[i].a.entry, c}});
                    ++s.fieldHits[i];
                }
            }
        }
        // Owned fields the object no longer has: found by counting, so the common case (all
        // present) costs no lookups into the live object.
        std::unordered_set<std::string_view> liveKeys;
        for (std::size_t i = 0; i < nActive; ++i) {
            const auto &children = b[i].a.set->children();
            std::uint32_t fields = 0;
            for (const auto &c : children)
                fields += c.element.kind == PathElement::Kind::Field ? 1 : 0;
            if (fields == s.fieldHits[i] && fields == children.size())
                continue;
            if (liveKeys.empty())
                for (auto it = live.begin(); it != live.end(); ++it)
                    liveKeys.insert(it.key());
            for (const auto &c : children) {
                const bool present = c.element.kind == PathElement::Kind::Field && liveKeys.count(c.element.field)
                                  && !(skipManagedFields && c.element.field == "managedFields");
                if (!present)
                    s.assigns.push_back({absentSlot(s, c), {b[i].a.entry, &c.set}});
            }
        }
        if (!s.absentSlots.empty())
            std::stable_sort(s.assigns.begin(), s.assigns.end(),
                             [](const Assign &x, const Assign &y) { return x.slot < y.slot; });
    }

    ListSemantics listSemantics(const Assign *b, const Assign *e)
    {
        // Evidence first: key names straight from a k: payload, v: means a set.
        for (const Assign *a = b; a != e; ++a) {
            for (const auto &c : a->a.set->children()) {
                if (c.element.kind == PathElement::Kind::Key) {
                    ListSemantics s = m_semantics.forList(FieldPath(m_path), m_d.kind);
                    std::vector<std::string> names;
                    for (auto it = c.element.key.begin(); it != c.element.key.end(); ++it)
                        names.push_back(it.key());
                    if (s.type != ListSemantics::Type::Map || s.keys != names)
                        s = ListSemantics{ListSemantics::Type::Map, std::move(names), {}};
                    return s;
                }
                if (c.element.kind == PathElement::Kind::Value)
                    return ListSemantics{ListSemantics::Type::Set, {}, {}};
            }
        }
        return m_semantics.forList(FieldPath(m_path), m_d.kind);
    }

    void arrayChildren(Scratch &s, const Json &live, const Assign *b, const Assign *e)
    {
        const ListSemantics sem = listSemantics(b, e);
        std::unordered_map<std::string, std::uint32_t> keyIndex;
        std::unordered_map<std::string, std::uint32_t> valueIndex;
        s.plans.reserve(live.size());
        for (std::size_t i = 0; i < live.size(); ++i) {
            const Json &item = live[i];
            PathElement element = PathElement::makeIndex(std::int64_t(i));
            Json key;
            if (sem.type == ListSemantics::Type::Map && ListSemanticsResolver::keyFor(sem, item, &key)) {
                keyIndex.try_emplace(canonicalJsonText(key), std::uint32_t(i));
                element = PathElement::makeKey(std::move(key));
            } else if (sem.type == ListSemantics::Type::Set) {
                valueIndex.try_emplace(canonicalJsonText(item), std::uint32_t(i));
                element = PathElement::makeValue(item);
            }
            s.plans.push_back(Plan{std::move(element), &item, std::int64_t(i)});
        }
        for (const Assign *a = b; a != e; ++a) {
            for (const auto &c : a->a.set->children()) {
                std::int64_t slot = -1;
                if (c.element.kind == PathElement::Kind::Key) {
                    auto it = keyIndex.find(c.key.substr(2));
                    slot = it == keyIndex.end() ? -1 : it->second;
                } else if (c.element.kind == PathElement::Kind::Value) {
                    auto it = valueIndex.find(c.key.substr(2));
                    slot = it == valueIndex.end() ? -1 : it->second;
                } else if (c.element.kind == PathElement::Kind::Index) {
                    slot = c.element.index >= 0 && std::size_t(c.element.index) < live.size() ? c.element.index : -1;
                }
                s.assigns.push_back({slot >= 0 ? std::uint32_t(slot) : absentSlot(s, c), {a->a.entry, &c.set}});
            }
        }
        std::stable_sort(s.assigns.begin(), s.assigns.end(),
                         [](const Assign &x, const Assign &y) { return x.slot < y.slot; });
    }

    void absentChildren(Scratch &s, const Assign *b, const Assign *e)
    {
        for (const Assign *a = b; a != e; ++a)
            for (const auto &c : a->a.set->children())
                s.assigns.push_back({absentSlot(s, c), {a->a.entry, &c.set}});
        std::stable_sort(s.assigns.begin(), s.assigns.end(),
                         [](const Assign &x, const Assign &y) { return x.slot < y.slot; });
    }

    void expand(NodeId id, const Json *live, const Assign *b, const Assign *e, const std::uint32_t *ib,
                const std::uint32_t *ie, int depth)
    {
        if (depth >= m_options.maxDepth)
            return;
        const bool enumerated = std::any_of(b, e, [](const Assign &a) { return a.a.set->hasChildren(); });
        if (!isNonEmptyContainer(live) && !enumerated)
            return;
        Scratch &s = scratch(depth);
        s.plans.clear();
        s.assigns.clear();
        s.absentSlots.clear();
        const bool isMetadata = depth == 1 && m_d.nodes[id].element.field == "metadata";
        if (isMetadata && live && live->is_object() && live->contains("managedFields"))
            --m_d.nodes[id].size; // the tree leaves managedFields out; the preview should agree
        if (live && live->is_object())
            objectChildren(s, *live, b, e, isMetadata);
        else if (live && live->is_array())
            arrayChildren(s, *live, b, e);
        else
            absentChildren(s, b, e);

        const auto first = NodeId(m_d.nodes.size());
        m_d.nodes[id].firstChild = first;
        m_d.nodes[id].childCount = std::uint32_t(s.plans.size());
        for (auto &p : s.plans) {
            OwnershipNode n;
            n.element = std::move(p.element);
            n.parent = id;
            n.liveIndex = p.liveIndex;
            setValue(n, p.live);
            m_d.nodes.push_back(std::move(n));
        }

        std::size_t a = 0;
        for (std::uint32_t slot = 0; slot < s.plans.size(); ++slot) {
            std::size_t aEnd = a;
            while (aEnd < s.assigns.size() && s.assigns[aEnd].slot == slot)
                ++aEnd;
            descend(s, first + slot, s.plans[slot].live, a, aEnd, ib, ie, depth);
            a = aEnd;
        }
    }

    // Sets the owners of one child and expands it.
    void descend(Scratch &s, NodeId child, const Json *live, std::size_t a, std::size_t aEnd, const std::uint32_t *ib,
                 const std::uint32_t *ie, int depth)
    {
        const Assign *cb = s.assigns.data() + a;
        const Assign *ce = s.assigns.data() + aEnd;
        std::vector<NodeOwner> owners;
        owners.reserve(std::size_t(ie - ib) + (aEnd - a));
        for (const std::uint32_t *i = ib; i != ie; ++i)
            owners.push_back({*i, true});
        for (const Assign *x = cb; x != ce; ++x)
            if (x->a.set->isMember())
                owners.push_back({x->a.entry, false});
        std::stable_sort(owners.begin(), owners.end(), [](const NodeOwner &x, const NodeOwner &y) {
            return x.entry != y.entry ? x.entry < y.entry : !x.inherited && y.inherited;
        });
        owners.erase(std::unique(owners.begin(), owners.end(),
                                 [](const NodeOwner &x, const NodeOwner &y) { return x.entry == y.entry; }),
                     owners.end());
        m_d.nodes[child].owners = std::move(owners);

        const bool enumerated = std::any_of(cb, ce, [](const Assign &x) { return x.a.set->hasChildren(); });
        if (!isNonEmptyContainer(live) && !enumerated)
            return;
        // A leaf over a non-empty container owns the whole subtree when the container is atomic:
        // nobody enumerates anything below it, and (for lists) the list is not a map or set.
        s.inherited.assign(ib, ie);
        if (!enumerated && isNonEmptyContainer(live)) {
            bool atomic = true;
            m_path.push_back(m_d.nodes[child].element);
            if (live->is_array())
                atomic = m_semantics.forList(FieldPath(m_path), m_d.kind).type == ListSemantics::Type::Atomic;
            m_path.pop_back();
            for (const Assign *x = cb; atomic && x != ce; ++x)
                if (x->a.set->isMember()
                    && std::find(s.inherited.begin(), s.inherited.end(), x->a.entry) == s.inherited.end())
                    s.inherited.push_back(x->a.entry);
        }
        // The inherited list must survive the recursion below, which reuses deeper scratch only.
        std::vector<std::uint32_t> inherited;
        const std::uint32_t *nib = ib, *nie = ie;
        if (s.inherited.size() != std::size_t(ie - ib)) {
            inherited = s.inherited;
            nib = inherited.data();
            nie = inherited.data() + inherited.size();
        }
        m_path.push_back(m_d.nodes[child].element);
        expand(child, live, cb, ce, nib, nie, depth + 1);
        m_path.pop_back();
    }

    OwnershipTree::Data &m_d;
    const OwnershipTreeOptions &m_options;
    ListSemanticsResolver m_semantics;
    std::deque<Scratch> m_scratch;
    std::vector<PathElement> m_path;
};

OwnershipTree::OwnershipTree()
{
    static const std::shared_ptr<const Data> empty = [] {
        auto d = std::make_shared<Data>();
        d->nodes.emplace_back();
        return d;
    }();
    m_d = empty;
}

Result<OwnershipTree> OwnershipTree::build(const Json &object, const OwnershipTreeOptions &options)
{
    if (auto depth = checkJsonDepth(object, "the object"); !depth)
        return depth.error();
    auto entries = parseManagedFields(object);
    if (!entries)
        return entries.error();
    return build(object, std::move(*entries), options);
}

OwnershipTree OwnershipTree::build(const Json &object, std::vector<ManagedFieldsEntry> entries,
                                   const OwnershipTreeOptions &options)
{
    auto d = std::make_shared<Data>();
    d->entries = std::move(entries);
    if (object.is_object())
        if (auto k = object.find("kind"); k != object.end() && k->is_string())
            d->kind = k->get<std::string>();
    d->nodes.reserve(256);
    OwnershipTreeBuilder(*d, options).run(object);
    OwnershipTree t;
    t.m_d = std::move(d);
    return t;
}

const std::vector<ManagedFieldsEntry> &OwnershipTree::entries() const
{
    return m_d->entries;
}
std::string OwnershipTree::kind() const
{
    return m_d->kind;
}
std::size_t OwnershipTree::nodeCount() const
{
    return m_d->nodes.size();
}
const OwnershipNode &OwnershipTree::node(NodeId id) const
{
    return m_d->nodes[id];
}

std::size_t OwnershipTree::ownedNodeCount(std::uint32_t entry) const
{
    return entry < m_d->ownedCounts.size() ? m_d->ownedCounts[entry] : 0;
}

FieldPath OwnershipTree::path(NodeId id) const
{
    std::vector<PathElement> elements;
    for (NodeId n = id; n != 0; n = node(n).parent)
        elements.push_back(node(n).element);
    std::reverse(elements.begin(), elements.end());
    return FieldPath(std::move(elements));
}

std::optional<std::string> OwnershipTree::jsonPointer(NodeId id) const
{
    std::vector<NodeId> chain;
    for (NodeId n = id; n != 0; n = node(n).parent) {
        if (!node(n).isPresent())
            return std::nullopt;
        chain.push_back(n);
    }
    std::string ptr;
    // Root first. Not std::views::reverse: clang 14 (the linters' parser) cannot compile
    // libstdc++ 12's <ranges>.
    std::reverse(chain.begin(), chain.end());
    for (const NodeId c : chain) {
        const OwnershipNode &n = node(c);
        ptr += '/';
        ptr += n.liveIndex >= 0 ? std::to_string(n.liveIndex) : jsonPointerEscape(n.element.field);
    }
    return ptr;
}

std::string OwnershipTree::preview(NodeId id, std::size_t maxChars) const
{
    const OwnershipNode &n = node(id);
    using T = OwnershipNode::ValueType;
    switch (n.type) {
    case T::Absent: return {};
    case T::Object: return "{" + std::to_string(n.size) + (n.size == 1 ? " key}" : " keys}");
    case T::Array: return "[" + std::to_string(n.size) + (n.size == 1 ? " item]" : " items]");
    default: return jsonPreview(n.scalar, maxChars);
    }
}

std::optional<std::int64_t> OwnershipTree::lastChanged(NodeId id) const
{
    std::optional<std::int64_t> latest;
    for (const auto &o : node(id).owners) {
        const auto &t = m_d->entries[o.entry].timeSeconds;
        if (t && (!latest || *t > *latest))
            latest = t;
    }
    return latest;
}

std::optional<NodeId> OwnershipTree::find(const FieldPath &path) const
{
    NodeId cur = 0;
    for (const auto &e : path.elements()) {
        const OwnershipNode &n = node(cur);
        std::optional<NodeId> next;
        for (std::uint32_t r = 0; r < n.childCount && !next; ++r)
            if (node(n.firstChild + r).element == e)
                next = n.firstChild + r;
        if (!next)
            return std::nullopt;
        cur = *next;
    }
    return cur;
}

std::optional<NodeId> OwnershipTree::findByJsonPointer(std::string_view pointer) const
{
    NodeId cur = 0;
    std::size_t pos = 0;
    while (pos < pointer.size()) {
        if (pointer[pos] != '/')
            return std::nullopt;
        const std::size_t end = std::min(pointer.find('/', pos + 1), pointer.size());
        const std::string token = jsonPointerUnescape(pointer.substr(pos + 1, end - pos - 1));
        pos = end;
        const OwnershipNode &n = node(cur);
        std::optional<NodeId> next;
        if (n.type == OwnershipNode::ValueType::Array) {
            // Live items come first and in array order, so the index is the row.
            std::size_t idx = 0;
            auto [p, ec] = std::from_chars(token.data(), token.data() + token.size(), idx);
            if (ec == std::errc() && p == token.data() + token.size() && idx < n.size && idx < n.childCount)
                next = n.firstChild + NodeId(idx);
        } else {
            for (std::uint32_t r = 0; r < n.childCount && !next; ++r) {
                const OwnershipNode &c = node(n.firstChild + r);
                if (c.isPresent() && c.element.kind == PathElement::Kind::Field && c.element.field == token)
                    next = n.firstChild + r;
            }
        }
        if (!next)
            return std::nullopt;
        cur = *next;
    }
    return cur;
}

} // namespace fieldscope::core
