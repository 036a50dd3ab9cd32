#include "core/objectref.h"

namespace fieldscope::core {

GroupVersion GroupVersion::parse(std::string_view apiVersion)
{
    const auto slash = apiVersion.find('/');
    if (slash == std::string_view::npos)
        return {std::string(), std::string(apiVersion)};
    return {std::string(apiVersion.substr(0, slash)), std::string(apiVersion.substr(slash + 1))};
}

std::string GroupVersionResource::toString() const
{
    std::string s = resource + "." + version;
    if (!group.empty())
        s += "." + group;
    return s;
}

} // namespace fieldscope::core
