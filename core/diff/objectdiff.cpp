#include "core/diff/objectdiff.h"

#include "core/ownership/fieldsv1.h"

#include <map>
#include <unordered_set>

namespace fieldscope::core {
namespace {

struct DiffContext {
    const DiffOptions &options;
    const ListSemanticsResolver &semantics;
    std::string kind;
    std::vector<FieldChange> &out;
};

void diffNode(const Json &a, const Json &b, const FieldPath &path, DiffContext &ctx);

void report(DiffContext &ctx, FieldChange::Kind kind, FieldPath path, Json oldValue, Json newValue)
{
    if (isHiddenByFilters(path, ctx.options))
        return;
    ctx.out.push_back({kind, std::move(path), std::move(oldValue), std::move(newValue)});
}

void diffObjectsNode(const Json &a, const Json &b, const FieldPath &path, DiffContext &ctx)
{
    for (auto it = a.begin(); it != a.end(); ++it)
        if (!b.contains(it.key()))
            report(ctx, FieldChange::Kind::Removed, path.child(PathElement::makeField(it.key())), it.value(), nullptr);
    for (auto it = b.begin(); it != b.end(); ++it) {
        FieldPath child = path.child(PathElement::makeField(it.key()));
        auto old = a.find(it.key());
        if (old == a.end())
            report(ctx, FieldChange::Kind::Added, std::move(child), nullptr, it.value());
        else
            diffNode(*old, it.value(), child, ctx);
    }
}

// Key text -> item; false when an item has no key or a key repeats (then the list is compared
// atomically: the server would have rejected such an object for a real map list anyway).
bool indexByKey(const ListSemantics &s, const Json &list, std::vector<std::pair<std::string, Json>> &keys,
                std::map<std::string, const Json *> &byKey)
{
    for (const auto &item : list) {
        Json key;
        if (!ListSemanticsResolver::keyFor(s, item, &key))
            return false;
        std::string text = toJsonText(key);
        if (!byKey.emplace(text, &item).second)
            return false;
        keys.emplace_back(std::move(text), std::move(key));
    }
    return true;
}

bool diffMapList(const ListSemantics &s, const Json &a, const Json &b, const FieldPath &path, DiffContext &ctx)
{
    std::vector<std::pair<std::string, Json>> keysA, keysB;
    std::map<std::string, const Json *> inA, inB;
    if (!indexByKey(s, a, keysA, inA) || !indexByKey(s, b, keysB, inB))
        return false;
    for (std::size_t i = 0; i < keysA.size(); ++i)
        if (!inB.count(keysA[i].first))
            report(ctx, FieldChange::Kind::Removed, path.child(PathElement::makeKey(keysA[i].second)), a[i], nullptr);
    for (std::size_t i = 0; i < keysB.size(); ++i) {
        FieldPath child = path.child(PathElement::makeKey(keysB[i].second));
        auto old = inA.find(keysB[i].first);
        if (old == inA.end())
            report(ctx, FieldChange::Kind::Added, std::move(child), nullptr, b[i]);
        else
            diffNode(*old->second, b[i], child, ctx);
    }
    return true;
}

bool diffSetList(const Json &a, const Json &b, const FieldPath &path, DiffContext &ctx)
{
    for (const auto &v : a)
        if (v.is_structured())
            return false;
    for (const auto &v : b)
        if (v.is_structured())
            return false;
    // Members by canonical text (80 and 80.0 meet, as in jsonEqual): a linear pass instead of a
    // search per member, which a set of 100,000 values made quadratic.
    auto members = [](const Json &list) {
        std::unordered_set<std::string> out;
        out.reserve(list.size());
        for (const auto &x : list)
            out.insert(canonicalJsonText(x));
        return out;
    };
    const auto inA = members(a), inB = members(b);
    auto has = [](const std::unordered_set<std::string> &set, const Json &v) {
        return set.count(canonicalJsonText(v)) != 0;
    };
    for (const auto &v : a)
        if (!has(inB, v))
            report(ctx, FieldChange::Kind::Removed, path.child(PathElement::makeValue(v)), v, nullptr);
    for (const auto &v : b)
        if (!has(inA, v))
            report(ctx, FieldChange::Kind::Added, path.child(PathElement::makeValue(v)), nullptr, v);
    return true;
}

void diffNode(const Json &a, const Json &b, const FieldPath &path, DiffContext &ctx)
{
    if (isHiddenByFilters(path, ctx.options))
        return;
    // Past the common depth limit the rest is compared whole (jsonEqual needs no recursion):
    // one "changed" entry instead of a walk that could exhaust a worker thread's stack.
    if (path.size() >= std::size_t(kMaxJsonDepth)) {
        if (!jsonEqual(a, b))
            report(ctx, FieldChange::Kind::Changed, path, a, b);
        return;
    }
    if (a.is_object() && b.is_object()) {
        diffObjectsNode(a, b, path, ctx);
        return;
    }
    if (a.is_array() && b.is_array()) {
        const ListSemantics s = ctx.semantics.forList(path, ctx.kind);
        if (s.type == ListSemantics::Type::Map && diffMapList(s, a, b, path, ctx))
            return;
        if (s.type == ListSemantics::Type::Set && diffSetList(a, b, path, ctx))
            return;
    }
    // Scalars, type changes and atomic lists: one change for the whole value.
    if (!jsonEqual(a, b))
        report(ctx, FieldChange::Kind::Changed, path, a, b);
}

FieldPath fieldPath(std::initializer_list<const char *> names)
{
    std::vector<PathElement> e;
    for (const char *n : names)
        e.push_back(PathElement::makeField(n));
    return FieldPath(std::move(e));
}

} // namespace

const char *fieldChangeKindName(FieldChange::Kind kind)
{
    switch (kind) {
    case FieldChange::Kind::Added: return "added";
    case FieldChange::Kind::Removed: return "removed";
    case FieldChange::Kind::Changed: return "changed";
    }
    return "changed";
}

bool isHiddenByFilters(const FieldPath &path, const DiffOptions &options)
{
    static const FieldPath managedFields = fieldPath({"metadata", "managedFields"});
    static const FieldPath resourceVersion = fieldPath({"metadata", "resourceVersion"});
    static const FieldPath generation = fieldPath({"metadata", "generation"});
    static const FieldPath status = fieldPath({"status"});
    return (options.hideManagedFields && path.startsWith(managedFields))
        || (options.hideResourceVersion && path.startsWith(resourceVersion))
        || (options.hideGeneration && path.startsWith(generation)) || (options.hideStatus && path.startsWith(status));
}

std::vector<FieldChange> diffObjects(const Json &oldObject, const Json &newObject, const DiffOptions &options)
{
    static const ListSemanticsResolver builtin;
    std::vector<FieldChange> out;
    // Read with type checks: either version may be any JSON someone stored.
    auto kindOf = [](const Json &o) {
        if (!o.is_object())
            return std::string();
        auto k = o.find("kind");
        return k != o.end() && k->is_string() ? k->get<std::string>() : std::string();
    };
    std::string kind = kindOf(newObject);
    if (kind.empty())
        kind = kindOf(oldObject);
    DiffContext ctx{options, options.semantics ? *options.semantics : builtin, kind, out};
    diffNode(oldObject, newObject, FieldPath(), ctx);
    return out;
}

Json applyNoiseFilters(Json object, const DiffOptions &options)
{
    if (!object.is_object())
        return object;
    if (auto meta = object.find("metadata"); meta != object.end() && meta->is_object()) {
        if (options.hideManagedFields)
            meta->erase("managedFields");
        if (options.hideResourceVersion)
            meta->erase("resourceVersion");
        if (options.hideGeneration)
            meta->erase("generation");
    }
    if (options.hideStatus)
        object.erase("status");
    return object;
}

} // namespace fieldscope::core
