#include "core/objects/objectref.h"

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

std::string urlEncode(const std::string &value)
{
    static const char hex[] = "0123456789ABCDEF";
    std::string out;
    for (const unsigned char c : value) {
        const bool unreserved = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-'
                             || c == '_' || c == '.' || c == '~';
        if (unreserved) {
            out += char(c);
        } else {
            out += '%';
            out += hex[c >> 4];
            out += hex[c & 15];
        }
    }
    return out;
}

} // namespace fieldscope::core
