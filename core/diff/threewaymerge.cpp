#include "core/diff/threewaymerge.h"

#include "core/ownership/fieldsv1.h"

#include <algorithm>
#include <charconv>
#include <unordered_map>
#include <unordered_set>

namespace fieldscope::core {
namespace {

using Side = std::optional<Json>;

struct Where {
    std::string pointer; // into the merged object
    FieldPath path;      // the server's syntax
};

struct Context {
    const ListSemanticsResolver &semantics;
    std::string kind;
    ThreeWayMerge &out;
};

Side merge(const Side &base, const Side &mine, const Side &theirs, const Where &at, Context &ctx);

bool same(const Side &a, const Side &b)
{
    return a.has_value() == b.has_value() && (!a || jsonEqual(*a, *b));
}

bool isObject(const Side &v)
{
    return v && v->is_object();
}

bool isArray(const Side &v)
{
    return v && v->is_array();
}

const Json *member(const Side &o, const std::string &key)
{
    if (!isObject(o))
        return nullptr;
    auto it = o->find(key);
    return it == o->end() ? nullptr : &*it;
}

Side opt(const Json *v)
{
    return v ? Side(*v) : std::nullopt;
}

Where fieldOf(const Where &at, const std::string &key)
{
    return {at.pointer + "/" + jsonPointerEscape(key), at.path.child(PathElement::makeField(key))};
}

Json mergeObjects(const Side &base, const Side &mine, const Side &theirs, const Where &at, Context &ctx)
{
    Json result = Json::object();
    std::vector<std::string> keys;
    std::unordered_set<std::string> seen;
    for (const Side *side : {&theirs, &mine, &base}) // theirs' order first: the server's
        if (isObject(*side))
            for (auto it = (*side)->begin(); it != (*side)->end(); ++it)
                if (seen.insert(it.key()).second)
                    keys.push_back(it.key());
    for (const std::string &k : keys) {
        auto v = merge(opt(member(base, k)), opt(member(mine, k)), opt(member(theirs, k)), fieldOf(at, k), ctx);
        if (v)
            result[k] = std::move(*v);
    }
    return result;
}

// One keyed list: each item's key (as text, to find it, and as the path element) by position.
struct KeyedList {
    std::vector<std::pair<std::string, Json>> keys;
    std::unordered_map<std::string, std::size_t> index;
};

// False when an item has no key or a key repeats: such a list merges as one value.
bool indexList(const ListSemantics &s, const Json &list, KeyedList &out)
{
    for (std::size_t i = 0; i < list.size(); ++i) {
        Json key;
        if (!ListSemanticsResolver::keyFor(s, list[i], &key))
            return false;
        std::string text = canonicalJsonText(key);
        if (!out.index.emplace(text, i).second)
            return false;
        out.keys.emplace_back(std::move(text), std::move(key));
    }
    return true;
}

Side itemOf(const KeyedList &keyed, const Json &list, const std::string &keyText)
{
    auto it = keyed.index.find(keyText);
    return it == keyed.index.end() ? std::nullopt : Side(list[it->second]);
}

Where itemAt(const Where &at, std::size_t index, const Json &key)
{
    return {at.pointer + "/" + std::to_string(index), at.path.child(PathElement::makeKey(key))};
}

// Items matched by key. Theirs' items first, in their order, each merged with its base and mine
// (absent where that side has none: added or removed there); then mine's items theirs does not
// have. The generic merge decides each: an item only removed on one side goes, one removed there
// and changed here is a conflict on the item.
std::optional<Json> mergeMapList(const ListSemantics &s, const Json &base, const Json &mine, const Json &theirs,
                                 const Where &at, Context &ctx)
{
    KeyedList b, m, t;
    if (!indexList(s, base, b) || !indexList(s, mine, m) || !indexList(s, theirs, t))
        return std::nullopt;
    Json result = Json::array();
    for (std::size_t i = 0; i < theirs.size(); ++i) {
        const auto &[text, key] = t.keys[i];
        auto v = merge(itemOf(b, base, text), itemOf(m, mine, text), Side(theirs[i]), itemAt(at, result.size(), key),
                       ctx);
        if (v)
            result.push_back(std::move(*v));
    }
    // An item theirs removed and mine changed is not in the result; its pointer is the index it
    // takes when mine is chosen for it and for those before it, so no two conflicts share one.
    std::size_t notTaken = 0;
    for (std::size_t i = 0; i < mine.size(); ++i) {
        const auto &[text, key] = m.keys[i];
        if (t.index.count(text))
            continue;
        const std::size_t conflicts = ctx.out.conflicts.size();
        auto v = merge(itemOf(b, base, text), Side(mine[i]), std::nullopt, itemAt(at, result.size() + notTaken, key),
                       ctx);
        if (v)
            result.push_back(std::move(*v));
        else if (ctx.out.conflicts.size() > conflicts)
            ++notTaken;
    }
    return result;
}

// Members by canonical text (80 and 80.0 meet, as in jsonEqual). Theirs' members stay unless
// mine removed them; mine's additions follow. Sets of objects or lists merge as one value.
std::optional<Json> mergeSetList(const Json &base, const Json &mine, const Json &theirs, Context &ctx)
{
    for (const Json *list : {&base, &mine, &theirs})
        for (const Json &v : *list)
            if (v.is_structured())
                return std::nullopt;
    auto members = [](const Json &list) {
        std::unordered_set<std::string> out;
        for (const Json &v : list)
            out.insert(canonicalJsonText(v));
        return out;
    };
    const auto inBase = members(base), inMine = members(mine);
    Json result = Json::array();
    std::unordered_set<std::string> taken;
    for (const Json &v : theirs) {
        const std::string text = canonicalJsonText(v);
        if (inBase.count(text) && !inMine.count(text)) {
            ++ctx.out.mineApplied; // removed here
            continue;
        }
        if (taken.insert(text).second)
            result.push_back(v);
    }
    for (const Json &v : mine) {
        const std::string text = canonicalJsonText(v);
        if (!inBase.count(text) && taken.insert(text).second) {
            ++ctx.out.mineApplied; // added here
            result.push_back(v);
        }
    }
    return result;
}

// Both sides changed a list, differently: item by item when its semantics allow, else nullopt
// (one value).
std::optional<Json> mergeList(const Side &base, const Json &mine, const Json &theirs, const Where &at, Context &ctx)
{
    if (base && !base->is_array())
        return std::nullopt;
    static const Json empty = Json::array();
    const Json &b = base ? *base : empty; // absent: both sides added the list
    const ListSemantics s = ctx.semantics.forList(at.path, ctx.kind);
    switch (s.type) {
    case ListSemantics::Type::Map: return mergeMapList(s, b, mine, theirs, at, ctx);
    case ListSemantics::Type::Set: return mergeSetList(b, mine, theirs, ctx);
    case ListSemantics::Type::Atomic: break;
    }
    return std::nullopt;
}

// The merged value at `at` (nullopt: absent), conflicts appended.
Side merge(const Side &base, const Side &mine, const Side &theirs, const Where &at, Context &ctx)
{
    if (same(mine, base))
        return theirs;
    if (same(theirs, base) || same(mine, theirs)) {
        ++ctx.out.mineApplied;
        return mine;
    }
    if (isObject(mine) && isObject(theirs))
        return mergeObjects(base, mine, theirs, at, ctx);
    if (isArray(mine) && isArray(theirs))
        if (auto list = mergeList(base, *mine, *theirs, at, ctx))
            return list;
    ctx.out.conflicts.push_back({at.pointer, at.path.toString(), base, mine, theirs});
    return theirs;
}

bool arrayIndex(const std::string &token, std::size_t *index)
{
    const char *end = token.data() + token.size();
    auto r = std::from_chars(token.data(), end, *index);
    return !token.empty() && r.ec == std::errc() && r.ptr == end;
}

std::string parentOf(const std::string &pointer)
{
    const auto slash = pointer.rfind('/');
    return slash == std::string::npos ? std::string() : pointer.substr(0, slash);
}

// Sets (or removes, for nullopt) the value at `pointer`. Under a list, an item theirs did not
// have (`notTakenBefore`: how many such items of that list come before it) is inserted where it
// goes when the ones before it were not taken.
void setAt(Json &root, const std::string &pointer, const Side &value, std::optional<std::size_t> notTakenBefore)
{
    try {
        const Json::json_pointer p(pointer);
        if (p.empty()) {
            root = value ? *value : Json::object();
            return;
        }
        if (!root.contains(p.parent_pointer())) {
            if (value)
                root[p] = *value;
            return;
        }
        Json &parent = root[p.parent_pointer()];
        std::size_t i = 0;
        if (parent.is_array() && arrayIndex(p.back(), &i)) {
            if (value && notTakenBefore && *notTakenBefore <= i && i - *notTakenBefore <= parent.size())
                parent.insert(parent.begin() + std::ptrdiff_t(i - *notTakenBefore), *value);
            else if (value && !notTakenBefore && i < parent.size())
                parent[i] = *value;
            else if (!value && i < parent.size())
                parent.erase(i);
        } else if (parent.is_object()) {
            if (value)
                parent[p.back()] = *value;
            else
                parent.erase(p.back());
        }
    } catch (const std::exception &) { // a pointer through a value that is no container: leave it
    }
}

std::string kindOf(const Json &theirs, const Json &mine)
{
    for (const Json *side : {&theirs, &mine})
        if (side->is_object())
            if (auto it = side->find("kind"); it != side->end() && it->is_string())
                return it->get<std::string>();
    return {};
}

} // namespace

Result<ThreeWayMerge> threeWayMerge(const Json &base, const Json &mine, const Json &theirs, const MergeOptions &options)
{
    for (const Json *v : {&base, &mine, &theirs})
        if (auto st = checkJsonDepth(*v, "merge input"); !st)
            return st.error();
    static const ListSemanticsResolver builtin;
    ThreeWayMerge out;
    Context ctx{options.semantics ? *options.semantics : builtin,
                options.kind.empty() ? kindOf(theirs, mine) : options.kind, out};
    auto merged = merge(base, mine, theirs, Where{}, ctx);
    out.merged = merged ? std::move(*merged) : Json::object();
    return out;
}

Json resolveMerge(const ThreeWayMerge &merge, const std::map<std::string, MergeChoice> &choices)
{
    Json out = merge.merged;
    const auto &conflicts = merge.conflicts;
    std::vector<std::size_t> notTakenBefore(conflicts.size(), 0);
    std::unordered_map<std::string, std::size_t> notTaken; // per list: items only mine has, so far
    for (std::size_t i = 0; i < conflicts.size(); ++i)
        if (!conflicts[i].theirs)
            notTakenBefore[i] = notTaken[parentOf(conflicts[i].pointer)]++;
    // Last conflict first: taking mine inserts or removes list items, which moves the items after
    // them; conflicts come in document order, so the earlier ones' pointers stay valid.
    for (std::size_t i = conflicts.size(); i-- > 0;) {
        const MergeConflict &c = conflicts[i];
        auto it = choices.find(c.pointer);
        if (it != choices.end() && it->second == MergeChoice::Mine)
            setAt(out, c.pointer, c.mine, c.theirs ? std::nullopt : std::optional<std::size_t>(notTakenBefore[i]));
    }
    return out;
}

Json mergeReport(const ThreeWayMerge &merge)
{
    std::map<std::string, MergeChoice> mine;
    Json conflicts = Json::array();
    for (const MergeConflict &c : merge.conflicts) {
        mine[c.pointer] = MergeChoice::Mine;
        conflicts.push_back({{"path", c.path},
                             {"base", c.base.value_or(nullptr)},
                             {"mine", c.mine.value_or(nullptr)},
                             {"theirs", c.theirs.value_or(nullptr)}});
    }
    return {{"merged", resolveMerge(merge, mine)}, {"conflicts", std::move(conflicts)}};
}

} // namespace fieldscope::core
