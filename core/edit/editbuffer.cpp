#include "core/edit/editbuffer.h"

#include "core/ownership/conflictprediction.h"
#include "core/ownership/fieldsv1.h"

#include <map>

namespace fieldscope::core {

namespace {

using Pointer = Json::json_pointer;

// Every node of the manifest's applied field set (members and the maps/items above them),
// keyed by its server-syntax string, so a 409 cause's `field` finds its structured path.
void collectPaths(const FieldSet &set, const FieldPath &prefix, std::map<std::string, FieldPath> &out)
{
    for (const auto &e : set.children()) {
        FieldPath p = prefix.child(e.element);
        out.emplace(p.toString(), p);
        collectPaths(e.set, p, out);
    }
}

std::map<std::string, FieldPath> pathsOf(const Json &manifest, const Json &live)
{
    std::map<std::string, FieldPath> out;
    // The live object supplies list-map keys from its managedFields; without it, built-ins only.
    auto set = appliedFieldSet(manifest, live.is_object() ? live : Json());
    if (set)
        collectPaths(*set, {}, out);
    return out;
}

// Identity and routing fields: the server needs them in every write, and never reports them.
bool isProtected(const std::string &pointer)
{
    return pointer.empty() || pointer == "/apiVersion" || pointer == "/kind" || pointer == "/metadata"
        || pointer == "/metadata/name" || pointer == "/metadata/namespace";
}

void eraseAt(Json &root, const Pointer &ptr)
{
    Json &parent = root.at(ptr.parent_pointer());
    if (parent.is_object())
        parent.erase(ptr.back());
    else if (parent.is_array())
        parent.erase(std::size_t(std::stoull(ptr.back())));
}

// Removes the value at `pointer`, then every ancestor the removal left empty.
void removeAndPrune(Json &root, const std::string &pointer)
{
    eraseAt(root, Pointer(pointer));
    Pointer parent = Pointer(pointer).parent_pointer();
    while (!isProtected(parent.to_string())) {
        const Json &node = root.at(parent);
        if (!node.empty() || !(node.is_object() || node.is_array()))
            break;
        eraseAt(root, parent);
        parent = parent.parent_pointer();
    }
}

} // namespace

Json editableObject(const Json &live, bool withoutStatus)
{
    Json out = live;
    if (!out.is_object())
        return out;
    if (auto meta = out.find("metadata"); meta != out.end() && meta->is_object())
        for (const char *key :
             {"managedFields", "resourceVersion", "uid", "creationTimestamp", "generation", "selfLink"})
            meta->erase(key);
    if (withoutStatus)
        out.erase("status");
    return out;
}

Json mergePatchBetween(const Json &from, const Json &to)
{
    if (!from.is_object() || !to.is_object())
        return to;
    Json patch = Json::object();
    for (const auto &[key, value] : from.items())
        if (!to.contains(key))
            patch[key] = nullptr;
    for (const auto &[key, value] : to.items()) {
        const auto old = from.find(key);
        if (old != from.end() && old->is_object() && value.is_object()) {
            Json sub = mergePatchBetween(*old, value);
            if (!sub.empty())
                patch[key] = std::move(sub);
        } else if (old == from.end() || !jsonEqual(*old, value)) {
            patch[key] = value;
        }
    }
    return patch;
}

namespace {

void jsonPatchInto(const Json &from, const Json &to, const std::string &at, Json &ops)
{
    for (const auto &[key, old] : from.items())
        if (!to.contains(key)) {
            const std::string path = at + '/' + jsonPointerEscape(key);
            ops.push_back({{"op", "test"}, {"path", path}, {"value", old}});
            ops.push_back({{"op", "remove"}, {"path", path}});
        }
    for (const auto &[key, value] : to.items()) {
        const std::string path = at + '/' + jsonPointerEscape(key);
        const auto old = from.find(key);
        if (old == from.end()) {
            ops.push_back({{"op", "add"}, {"path", path}, {"value", value}});
        } else if (old->is_object() && value.is_object()) {
            jsonPatchInto(*old, value, path, ops);
        } else if (!jsonEqual(*old, value)) {
            ops.push_back({{"op", "test"}, {"path", path}, {"value", *old}});
            ops.push_back({{"op", "replace"}, {"path", path}, {"value", value}});
        }
    }
}

} // namespace

Json jsonPatchBetween(const Json &from, const Json &to)
{
    Json ops = Json::array();
    if (from.is_object() && to.is_object())
        jsonPatchInto(from, to, {}, ops);
    else if (!jsonEqual(from, to))
        ops.push_back({{"op", "replace"}, {"path", ""}, {"value", to}});
    return ops;
}

std::vector<std::pair<std::string, std::optional<Json>>> failedTests(const Json &jsonPatch, const Json &object)
{
    std::vector<std::pair<std::string, std::optional<Json>>> out;
    if (!jsonPatch.is_array())
        return out;
    for (const auto &op : jsonPatch) {
        // Type-checked: value("op", "") would throw on an "op" that is not a string.
        const auto kind = op.is_object() ? op.find("op") : op.end();
        if (!op.is_object() || kind == op.end() || !kind->is_string() || kind->get_ref<const std::string &>() != "test"
            || !op.contains("path") || !op["path"].is_string())
            continue;
        const std::string path = op["path"].get<std::string>();
        std::optional<Json> now;
        try {
            const Json::json_pointer pointer(path);
            if (object.contains(pointer))
                now = object.at(pointer);
        } catch (const Json::exception &) { // malformed pointer: treat as gone
        }
        if (!now || !jsonEqual(*now, op.value("value", Json())))
            out.emplace_back(path, std::move(now));
    }
    return out;
}

std::vector<FieldValues> valuesAtPaths(const Json &manifest, const Json &live, const std::vector<std::string> &paths)
{
    const auto known = pathsOf(manifest, live);
    std::vector<FieldValues> out;
    for (const auto &p : paths) {
        FieldValues v;
        v.path = p;
        if (auto it = known.find(p); it != known.end()) {
            const Json *node = nullptr;
            if (it->second.resolve(manifest, nullptr, &node))
                v.mine = *node;
            if (live.is_object() && it->second.resolve(live, nullptr, &node))
                v.live = *node;
        }
        out.push_back(std::move(v));
    }
    return out;
}

Json withoutFieldPaths(const Json &manifest, const Json &live, const std::vector<std::string> &paths,
                       std::vector<std::string> *notFound)
{
    const auto known = pathsOf(manifest, live);
    Json out = manifest;
    for (const auto &p : paths) {
        std::string pointer;
        const auto it = known.find(p);
        // Resolved on the partly edited copy: list items are found by key, not by position.
        if (it == known.end() || !it->second.resolve(out, &pointer) || isProtected(pointer)) {
            if (notFound)
                notFound->push_back(p);
            continue;
        }
        try {
            removeAndPrune(out, pointer);
        } catch (const Json::exception &) { // a path resolve() produced no longer fits: leave it
            if (notFound)
                notFound->push_back(p);
        }
    }
    return out;
}

Json withLiveValuesAt(const Json &manifest, const Json &live, const std::vector<std::string> &paths,
                      std::vector<std::string> *notFound)
{
    const auto known = pathsOf(manifest, live);
    Json out = manifest;
    for (const auto &p : paths) {
        std::string pointer;
        const Json *liveValue = nullptr;
        const auto it = known.find(p);
        if (it == known.end() || !it->second.resolve(out, &pointer) || isProtected(pointer)
            || !it->second.resolve(live, nullptr, &liveValue)) {
            if (notFound)
                notFound->push_back(p);
            continue;
        }
        try {
            out.at(Pointer(pointer)) = *liveValue;
        } catch (const Json::exception &) { // as in withoutFieldPaths
            if (notFound)
                notFound->push_back(p);
        }
    }
    return out;
}

} // namespace fieldscope::core
