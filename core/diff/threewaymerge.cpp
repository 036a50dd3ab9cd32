#include "core/diff/threewaymerge.h"

#include <algorithm>

namespace fieldscope::core {
namespace {

bool same(const std::optional<Json> &a, const std::optional<Json> &b)
{
    return a.has_value() == b.has_value() && (!a || jsonEqual(*a, *b));
}

bool isObject(const std::optional<Json> &v)
{
    return v && v->is_object();
}

const Json *member(const std::optional<Json> &o, const std::string &key)
{
    if (!isObject(o))
        return nullptr;
    auto it = o->find(key);
    return it == o->end() ? nullptr : &*it;
}

std::optional<Json> opt(const Json *v)
{
    return v ? std::optional<Json>(*v) : std::nullopt;
}

// The merged value at `pointer` (nullopt: absent), conflicts appended.
std::optional<Json> merge(const std::optional<Json> &base, const std::optional<Json> &mine,
                          const std::optional<Json> &theirs, const std::string &pointer, ThreeWayMerge &out)
{
    if (same(mine, base))
        return theirs;
    if (same(theirs, base) || same(mine, theirs)) {
        ++out.mineApplied;
        return mine;
    }
    if (isObject(mine) && isObject(theirs)) {
        Json result = Json::object();
        std::vector<std::string> keys;
        for (const std::optional<Json> *side : {&theirs, &mine, &base}) // theirs' order first: the server's
            if (isObject(*side))
                for (auto it = (*side)->begin(); it != (*side)->end(); ++it)
                    if (std::find(keys.begin(), keys.end(), it.key()) == keys.end())
                        keys.push_back(it.key());
        for (const std::string &k : keys) {
            auto v = merge(opt(member(base, k)), opt(member(mine, k)), opt(member(theirs, k)),
                           pointer + "/" + jsonPointerEscape(k), out);
            if (v)
                result[k] = std::move(*v);
        }
        return result;
    }
    out.conflicts.push_back({pointer, base, mine, theirs});
    return theirs;
}

void setAt(Json &root, const std::string &pointer, const std::optional<Json> &value)
{
    try {
        const Json::json_pointer p(pointer);
        if (value) {
            root[p] = *value;
        } else if (root.contains(p)) {
            Json &parent = root[p.parent_pointer()];
            if (parent.is_object())
                parent.erase(p.back());
        }
    } catch (const std::exception &) { // a pointer through a value that is no object: leave it
    }
}

} // namespace

Result<ThreeWayMerge> threeWayMerge(const Json &base, const Json &mine, const Json &theirs)
{
    for (const Json *v : {&base, &mine, &theirs})
        if (auto st = checkJsonDepth(*v, "merge input"); !st)
            return st.error();
    ThreeWayMerge out;
    auto merged = merge(base, mine, theirs, std::string(), out);
    out.merged = merged ? std::move(*merged) : Json::object();
    return out;
}

Json resolveMerge(const ThreeWayMerge &merge, const std::map<std::string, MergeChoice> &choices)
{
    Json out = merge.merged;
    for (const MergeConflict &c : merge.conflicts) {
        auto it = choices.find(c.pointer);
        if (it != choices.end() && it->second == MergeChoice::Mine)
            setAt(out, c.pointer, c.mine);
    }
    return out;
}

} // namespace fieldscope::core
