#include "kube/resource.h"

#include <algorithm>

namespace fieldscope::kube {

bool ResourceInfo::supports(const std::string &verb) const
{
    return std::find(verbs.begin(), verbs.end(), verb) != verbs.end();
}

bool ResourceInfo::hasSubresource(const std::string &sub) const
{
    return std::find(subresources.begin(), subresources.end(), sub) != subresources.end();
}

std::string ResourceInfo::collectionPath(const std::string &ns) const
{
    std::string p = group.empty() ? "/api/" + version : "/apis/" + group + "/" + version;
    if (namespaced && !ns.empty())
        p += "/namespaces/" + urlEncode(ns);
    return p + "/" + resource;
}

std::string ResourceInfo::objectPath(const std::string &ns, const std::string &name,
                                     const std::string &subresource) const
{
    std::string p = collectionPath(namespaced ? ns : std::string()) + "/" + urlEncode(name);
    if (!subresource.empty())
        p += "/" + subresource;
    return p;
}

} // namespace fieldscope::kube
