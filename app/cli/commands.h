#pragma once
// Subcommands. Each takes the arguments after the subcommand name (argv[0] first) and returns the
// process exit code. Their names, flags and JSON fields are interfaces: scripts depend on them.
#include <QStringList>

namespace fieldscope::app {

int runList(const QStringList &args);
int runWatch(const QStringList &args);
int runRecord(const QStringList &args);
int runHistory(const QStringList &args);
int runExport(const QStringList &args);
int runAudit(const QStringList &args);
int runStore(const QStringList &args);
int runStoreRetention(const QStringList &args); // `store retention`, dispatched by runStore
int runBlame(const QStringList &args);
int runConflicts(const QStringList &args);
int runConsent(const QStringList &args);
int runCompletion(const QStringList &args);
int runLesson(const QStringList &args);
int runApply(const QStringList &args);
int runDrift(const QStringList &args);
int runRevert(const QStringList &args);
int runMerge(const QStringList &args);
int runClass(const QStringList &args);

// Subcommands this build knows, for --help.
struct SubcommandInfo {
    const char *name;
    const char *summary;
    int (*run)(const QStringList &);
    bool connects; // takes --context, --kubeconfig, --allow-exec-plugins (others ignore them)
};
const SubcommandInfo *subcommands(); // terminated by {nullptr, nullptr, nullptr, false}
// Runs one subcommand; any exception that escapes it is a message on stderr and exit code 1.
int runSubcommand(const SubcommandInfo &command, const QStringList &args);

} // namespace fieldscope::app
