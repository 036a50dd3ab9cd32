#include "app/commands.h"

namespace fieldscope::app {

const SubcommandInfo *subcommands()
{
    static const SubcommandInfo table[] = {
        {"list", "list objects of a resource type (names, json, count)", &runList},
        {"watch", "print one line per watch event", &runWatch},
        {nullptr, nullptr, nullptr},
    };
    return table;
}

} // namespace fieldscope::app
