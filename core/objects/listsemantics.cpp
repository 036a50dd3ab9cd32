#include "core/objects/listsemantics.h"

#include <algorithm>
#include <array>
#include <string_view>

namespace fieldscope::core {
namespace {

bool endsWith(std::string_view s, std::string_view suffix)
{
    return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix
        && (s.size() == suffix.size() || s[s.size() - suffix.size() - 1] == '.');
}

ListSemantics mapOn(std::vector<std::string> keys, std::map<std::string, Json> defaults = {})
{
    std::sort(keys.begin(), keys.end());
    return {ListSemantics::Type::Map, std::move(keys), std::move(defaults)};
}

// Built-in list markers from k8s.io/api (patchMergeKey / listType), the ones objects commonly
// carry, as the 1.37 server's OpenAPI schema declares them (tests/core/tst_openapilists.cpp holds
// the table to a recorded Deployment schema). Matched on the last segments of the schema path.
ListSemantics builtin(const std::string &sp, const std::string &kind)
{
    using T = ListSemantics::Type;
    static const std::array<std::string_view, 9> containerLists = {
        "containers",  "initContainers", "ephemeralContainers", "volumes",           "imagePullSecrets",
        "hostAliases", "resourceClaims", "schedulingGates",     "evictionResponders"};
    // Any object's metadata, and the metadata of the templates inside it.
    if (endsWith(sp, "metadata.finalizers"))
        return {T::Set, {}, {}};
    if (endsWith(sp, "metadata.ownerReferences"))
        return mapOn({"uid"});
    if (endsWith(sp, "status.conditions"))
        return mapOn({"type"});
    for (auto name : containerLists) {
        if (endsWith(sp, std::string("spec.") + std::string(name))
            || endsWith(sp, std::string("template.spec.") + std::string(name)))
            return name == "hostAliases" ? mapOn({"ip"}) : mapOn({"name"});
    }
    if (endsWith(sp, "resources.claims")) // a container's or the pod's claims by name
        return mapOn({"name"});
    if (endsWith(sp, "restartPolicyRules.exitCodes.values") || endsWith(sp, "volumeMounts.bindMountOptions"))
        return {T::Set, {}, {}};
    if (endsWith(sp, "containers.ports") || endsWith(sp, "initContainers.ports")
        || endsWith(sp, "ephemeralContainers.ports"))
        return mapOn({"containerPort", "protocol"}, {{"protocol", "TCP"}});
    if ((kind == "Service" || kind.empty()) && sp == "spec.ports")
        return mapOn({"port", "protocol"}, {{"protocol", "TCP"}});
    if (endsWith(sp, "containers.env") || endsWith(sp, "initContainers.env") || endsWith(sp, "ephemeralContainers.env"))
        return mapOn({"name"});
    if (endsWith(sp, "volumeMounts"))
        return mapOn({"mountPath"});
    if (endsWith(sp, "volumeDevices"))
        return mapOn({"devicePath"});
    if (endsWith(sp, "topologySpreadConstraints"))
        return mapOn({"topologyKey", "whenUnsatisfiable"});
    if (endsWith(sp, "status.podIPs") || endsWith(sp, "status.hostIPs"))
        return mapOn({"ip"});
    if (endsWith(sp, "spec.rules") && kind == "ClusterRole")
        return {};
    return {}; // atomic: command, args, tolerations, envFrom, CRD lists without markers
}

} // namespace

std::string schemaPathOf(const FieldPath &path)
{
    std::string s;
    for (const auto &e : path.elements()) {
        if (e.kind != PathElement::Kind::Field)
            continue;
        if (!s.empty())
            s += '.';
        s += e.field;
    }
    return s;
}

void ListSemanticsResolver::addHint(const std::string &schemaPath, ListSemantics semantics)
{
    m_hints[schemaPath] = std::move(semantics);
}

ListSemantics ListSemanticsResolver::forList(const FieldPath &listPath, const std::string &kind) const
{
    const std::string sp = schemaPathOf(listPath);
    if (auto it = m_hints.find(sp); it != m_hints.end()) {
        ListSemantics s = it->second;
        // Hints from managedFields know the key names but not schema defaults; borrow those
        // from the table. A schema's hint brings its own.
        const ListSemantics b = builtin(sp, kind);
        if (s.type == ListSemantics::Type::Map && b.type == ListSemantics::Type::Map && s.keys == b.keys
            && s.keyDefaults.empty())
            s.keyDefaults = b.keyDefaults;
        return s;
    }
    return builtin(sp, kind);
}

bool ListSemanticsResolver::keyFor(const ListSemantics &s, const Json &item, Json *key)
{
    if (s.type != ListSemantics::Type::Map || !item.is_object())
        return false;
    Json k = Json::object();
    for (const auto &name : s.keys) {
        auto it = item.find(name);
        if (it != item.end()) {
            k[name] = *it;
        } else if (auto d = s.keyDefaults.find(name); d != s.keyDefaults.end()) {
            k[name] = d->second;
        } else {
            return false;
        }
    }
    if (key)
        *key = std::move(k);
    return true;
}

} // namespace fieldscope::core
