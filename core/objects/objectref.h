#pragma once
// Object identity value types (group/version/kind, resource, namespace/name/uid).
#include <string>
#include <string_view>

namespace fieldscope::core {

struct GroupVersion {
    std::string group;   // "" for the core group
    std::string version; // "v1"
    std::string toString() const { return group.empty() ? version : group + "/" + version; }
    static GroupVersion parse(std::string_view apiVersion);
    bool operator==(const GroupVersion &) const = default;
};

struct GroupVersionResource {
    std::string group;
    std::string version;
    std::string resource; // plural, as in URLs
    bool operator==(const GroupVersionResource &) const = default;
    std::string toString() const; // "deployments.v1.apps", "configmaps.v1"
};

// Identifies one incarnation of one object; uid tells apart a re-created object of the same name.
struct ObjectRef {
    std::string apiVersion;
    std::string kind;
    std::string namespace_; // "" when cluster-scoped
    std::string name;
    std::string uid;
    bool operator==(const ObjectRef &) const = default;
    std::string displayName() const { return namespace_.empty() ? name : namespace_ + "/" + name; }
};

// Percent-encodes a path segment or query value: every byte but RFC 3986's unreserved characters.
std::string urlEncode(const std::string &value);

} // namespace fieldscope::core
