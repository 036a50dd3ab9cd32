#include "app/commands.h"

namespace fieldscope::app {

const SubcommandInfo *subcommands()
{
    static const SubcommandInfo table[] = {
        {"list", "list objects of a resource type (names, json, count)", &runList},
        {"watch", "print one line per watch event", &runWatch},
        {"record", "record every version of some resources into a history database", &runRecord},
        {"blame", "an object's YAML with every owner of every field", &runBlame},
        {"conflicts", "what a server-side apply would conflict on, own and remove", &runConflicts},
        {"history", "the versions of an object and who made each change", &runHistory},
        {"export", "write recorded history as JSON Lines, to read without a cluster", &runExport},
        {"consent", "list or forget the remembered answers about exec credential plugins", &runConsent},
        {nullptr, nullptr, nullptr},
    };
    return table;
}

} // namespace fieldscope::app
