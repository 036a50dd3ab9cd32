#include "app/cli/commands.h"

#include <cstdio>
#include <exception>
#include <new>

namespace fieldscope::app {

const SubcommandInfo *subcommands()
{
    static const SubcommandInfo table[] = {
        {"list", "list objects of a resource type (names, json, count)", &runList, true},
        {"watch", "print one line per watch event", &runWatch, true},
        {"record", "record every version of some resources into a history database", &runRecord, true},
        {"blame", "an object's YAML with every owner of every field", &runBlame, true},
        {"conflicts", "what a server-side apply would conflict on, own and remove", &runConflicts, true},
        {"apply", "write objects from a file: server-side apply, replace, JSON Patch or merge patch", &runApply, true},
        {"merge", "three-way merge of manifest files: keyed lists item by item, conflicts per field", &runMerge, true},
        {"revert", "put back a recorded version's fields, or undo one change, with preconditions", &runRevert, true},
        {"drift", "fields an Apply manager set that another manager changed or took since", &runDrift, true},
        {"history", "the versions of an object and who made each change", &runHistory, false},
        {"export", "write recorded history as JSON Lines, to read without a cluster", &runExport, false},
        {"audit", "who made each recorded version: import the API server's audit log", &runAudit, false},
        {"store", "copy history between stores; a team store's retention and prunings", &runStore, false},
        {"class", "a class on the sandbox: a kubeconfig per student, every write named (start, status, stop, report)",
         &runClass, false},
        {"lesson", "teaching lessons: list them, check a lesson file, run one headless", &runLesson, true},
        {"consent", "list or forget the remembered answers about exec credential plugins", &runConsent, false},
        {"completion", "print a bash or zsh completion script", &runCompletion, false},
        {nullptr, nullptr, nullptr, false},
    };
    return table;
}

int runSubcommand(const SubcommandInfo &command, const QStringList &args)
{
    // The last boundary of a subcommand: every decoder returns typed errors, but an exception a
    // library still throws on bytes someone else chose (nlohmann, yaml-cpp, bad_alloc,
    // length_error) becomes a message and exit 1 here, never std::terminate (exit 134).
    try {
        return command.run(args);
    } catch (const std::bad_alloc &) {
        std::fprintf(stderr, "%s: out of memory while reading the input; giving up\n", qPrintable(args.value(0)));
    } catch (const std::exception &e) {
        std::fprintf(stderr, "%s: could not read the input: %s\n", qPrintable(args.value(0)), e.what());
    } catch (...) {
        std::fprintf(stderr, "%s: could not read the input (unknown error)\n", qPrintable(args.value(0)));
    }
    return 1;
}

} // namespace fieldscope::app
