// fieldscope: the desktop app, or one of its subcommands. Where the command line goes is decided
// before any Qt application object exists, so --help, --version and every subcommand run on a
// machine without a display (ssh, CI, a container); only the window creates a QApplication.
#include "app/cli/cliroute.h"
#include "app/cli/commands.h"
#include "app/cli/windowhelp.h"
#include "app/gui/guiapp.h"
#include "app/services/versioninfo.h"

#include <QCoreApplication>
#include <QLoggingCategory>

#include <execinfo.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <cstring>
#include <vector>

using namespace fieldscope::app;

namespace {

// argc/argv for a Qt application object, which keeps references to both for its lifetime.
// argv[0] is the name usage lines print ("fieldscope", "fieldscope blame"), not the binary's path.
struct Argv {
    explicit Argv(const QStringList &args)
    {
        for (const QString &a : args)
            bytes.push_back(a.toLocal8Bit());
        for (QByteArray &b : bytes)
            pointers.push_back(b.data());
        pointers.push_back(nullptr);
        argc = int(bytes.size());
    }
    std::vector<QByteArray> bytes;
    std::vector<char *> pointers;
    int argc = 0;
};

void quietLogsUnless(bool verbose)
{
    // Scripts read stdout/stderr: only warnings and errors unless -v or FIELDSCOPE_VERBOSE.
    if (!verbose && qEnvironmentVariableIsEmpty("FIELDSCOPE_VERBOSE"))
        QLoggingCategory::setFilterRules(QStringLiteral("fieldscope.*.debug=false\nfieldscope.*.info=false"));
}

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define FIELDSCOPE_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define FIELDSCOPE_SANITIZED 1
#endif
#endif

#ifndef FIELDSCOPE_SANITIZED
// A crash (a fault or an abort in any thread) prints the stack to stderr before the default action
// (a core dump where enabled) runs: a crash at quit seen once in a CI log is otherwise a bare
// "crashed" with nothing to go on. Addresses are offsets in the binary (addr2line -e fieldscope).
void onFatalSignal(int sig)
{
    static const char head[] = "fieldscope: crashed in thread \"";
    (void)!::write(STDERR_FILENO, head, sizeof head - 1);
    char name[17] = {}; // prctl is a plain system call: safe here
    ::prctl(PR_GET_NAME, name);
    (void)!::write(STDERR_FILENO, name, ::strnlen(name, sizeof name - 1));
    // The signal by name (SIGBUS is a mapped file cut short, SIGSEGV a bad pointer): sigabbrev_np
    // returns a constant string, nothing is allocated.
    static const char signal[] = "\" by SIG";
    (void)!::write(STDERR_FILENO, signal, sizeof signal - 1);
    const char *abbrev = ::sigabbrev_np(sig);
    (void)!::write(STDERR_FILENO, abbrev ? abbrev : "?", abbrev ? ::strlen(abbrev) : 1);
    static const char tail[] = "; the stack:\n";
    (void)!::write(STDERR_FILENO, tail, sizeof tail - 1);
    void *frames[64];
    ::backtrace_symbols_fd(frames, ::backtrace(frames, 64), STDERR_FILENO);
    std::signal(sig, SIG_DFL); // SA_RESETHAND did already; kept for a nested fault
    ::raise(sig);
}
#endif

void reportCrashes()
{
#ifdef FIELDSCOPE_SANITIZED
    return; // the sanitizer's own report says more, and it installs its handlers first
#else
    // backtrace() loads libgcc on its first call, which allocates: done here, never in the handler.
    void *warm[1];
    (void)::backtrace(warm, 1);
    // A stack overflow leaves no stack to run the handler on: it gets one of its own (the main
    // thread's; other threads overflowing still die silently).
    static char altStack[64 * 1024];
    stack_t ss = {};
    ss.ss_sp = altStack;
    ss.ss_size = sizeof altStack;
    ::sigaltstack(&ss, nullptr);
    struct sigaction sa = {};
    sa.sa_handler = onFatalSignal;
    sa.sa_flags = SA_RESETHAND | SA_ONSTACK;
    sigemptyset(&sa.sa_mask);
    for (int sig : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT})
        ::sigaction(sig, &sa, nullptr);
#endif
}

} // namespace

int main(int argc, char **argv)
{
    reportCrashes();
    QStringList raw;
    for (int i = 0; i < argc; ++i)
        raw << QString::fromLocal8Bit(argv[i]);
    const CliRoute route = routeCommandLine(raw);
    switch (route.kind) {
    case CliRoute::Kind::UnknownSubcommand:
        std::fprintf(stderr, "fieldscope: unknown subcommand \"%s\" (see fieldscope --help)\n",
                     qUtf8Printable(route.unknown));
        return 2;
    case CliRoute::Kind::Version: std::fputs(versionText(route.verbose).c_str(), stdout); return 0;
    case CliRoute::Kind::Help: {
        Argv a({QStringLiteral("fieldscope")});
        QCoreApplication app(a.argc, a.pointers.data());
        return printGuiHelp();
    }
    case CliRoute::Kind::Subcommand: {
        quietLogsUnless(route.verbose);
        Argv a({route.args.first()});
        QCoreApplication app(a.argc, a.pointers.data());
        setApplicationIdentity(); // the window's settings file, not "Unknown Organization"'s
        return runSubcommand(*route.command, route.args);
    }
    case CliRoute::Kind::Gui: break;
    }
    QStringList guiArgs = route.args;
    guiArgs[0] = QStringLiteral("fieldscope");
    Argv a(guiArgs);
    return runGui(a.argc, a.pointers.data());
}
