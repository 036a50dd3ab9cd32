#include "core/history/historytypes.h"

namespace fieldscope::core {

bool HistoryGap::endsWithList() const
{
    // The reasons the watcher ("relist", "relist after 410"), HistoryFeed ("not recording") and
    // older runs ("app restart") write; the recorder's own overflow gap is not among them.
    return !toRv.empty() && (reason.rfind("relist", 0) == 0 || reason == "not recording" || reason == "app restart");
}

const char *historyEventTypeName(HistoryEventType t)
{
    switch (t) {
    case HistoryEventType::Listed: return "LISTED";
    case HistoryEventType::Added: return "ADDED";
    case HistoryEventType::Modified: return "MODIFIED";
    case HistoryEventType::Deleted: return "DELETED";
    }
    return "MODIFIED";
}

bool parseHistoryEventType(std::string_view name, HistoryEventType *out)
{
    for (auto t :
         {HistoryEventType::Listed, HistoryEventType::Added, HistoryEventType::Modified, HistoryEventType::Deleted}) {
        if (name == historyEventTypeName(t)) {
            *out = t;
            return true;
        }
    }
    return false;
}

WatchScope WatchScope::of(const GroupVersionResource &gvr, const std::string &namespace_)
{
    return {gvr.toString() + "/" + namespace_, gvr.resource};
}

WatchScope WatchScope::fromId(const std::string &id)
{
    return {id, id.substr(0, id.find_first_of(". /"))};
}

} // namespace fieldscope::core
