#pragma once
// A discovered resource type and how to address it (/api/v1/... for core, /apis/GROUP/VERSION/...).
#include "core/objects/objectref.h"

#include <string>
#include <vector>

namespace fieldscope::kube {

struct ResourceInfo {
    std::string group; // "" for core
    std::string version;
    std::string resource; // plural, used in URLs
    std::string singular;
    std::string kind;
    bool namespaced = false;
    bool preferred = true; // the group's preferred version
    bool stale = false;    // aggregated discovery freshness "Stale"
    std::vector<std::string> verbs;
    std::vector<std::string> shortNames;
    std::vector<std::string> categories;
    std::vector<std::string> subresources; // "status", "scale", ...

    std::string groupVersion() const { return group.empty() ? version : group + "/" + version; }
    std::string apiVersion() const { return groupVersion(); }
    // "deployments.apps", "configmaps" (core)
    std::string qualifiedName() const { return group.empty() ? resource : resource + "." + group; }
    bool supports(const std::string &verb) const;
    bool hasSubresource(const std::string &sub) const;

    // /api/v1/namespaces/NS/configmaps, /apis/apps/v1/deployments (all namespaces when ns is "")
    std::string collectionPath(const std::string &ns) const;
    std::string objectPath(const std::string &ns, const std::string &name, const std::string &subresource = {}) const;
};

// Percent-encodes a query parameter value (one implementation, core's: lessons build URLs too).
using core::urlEncode;

} // namespace fieldscope::kube
