#include "core/objects/watchtypes.h"

namespace fieldscope::core {

const char *watchEventTypeName(WatchEventType t)
{
    switch (t) {
    case WatchEventType::Added: return "ADDED";
    case WatchEventType::Modified: return "MODIFIED";
    case WatchEventType::Deleted: return "DELETED";
    }
    return "?";
}

} // namespace fieldscope::core
