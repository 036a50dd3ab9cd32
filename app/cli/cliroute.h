#pragma once
// Where a command line goes, decided before any Qt application object exists: the
// window, a subcommand, or help and version text that must print without a display. Global
// options may come before or after the subcommand, as with kubectl:
//   fieldscope --kubeconfig F list configmaps -A  ==  fieldscope list configmaps -A --kubeconfig F
// Pure: no I/O, no Qt application; tests call it directly.
#include <QStringList>

namespace fieldscope::app {

struct SubcommandInfo;

struct CliRoute {
    enum class Kind {
        Gui,               // the window; `args` is argv without the verbosity flags
        Subcommand,        // `command` with `args` = {"fieldscope NAME", every other argument}
        Help,              // the window's --help (or `fieldscope help`)
        Version,           // --version; `verbose` adds the library versions
        UnknownSubcommand, // `unknown` names it
    };
    Kind kind = Kind::Gui;
    const SubcommandInfo *command = nullptr;
    QStringList args;
    QString unknown;
    bool verbose = false; // -v, -v=N (N > 0), --v=N, --verbose: debug logging on
};

// `argv` as the process got it (argv[0] first).
CliRoute routeCommandLine(const QStringList &argv);

} // namespace fieldscope::app
