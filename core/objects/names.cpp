#include "core/objects/names.h"

namespace fieldscope::core {

bool isDnsLabel(std::string_view name)
{
    if (name.empty() || name.size() > 63 || name.front() == '-' || name.back() == '-')
        return false;
    for (const char c : name)
        if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-'))
            return false;
    return true;
}

} // namespace fieldscope::core
