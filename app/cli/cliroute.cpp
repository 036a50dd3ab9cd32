#include "app/cli/cliroute.h"

#include "app/cli/commands.h"
#include "app/services/windowoptions.h"

#include <QSet>

namespace fieldscope::app {
namespace {

// Options whose next argument is their value, so that value is never taken for a subcommand
// (`fieldscope --context list list pods`): the window's and the connection options, plus the
// subcommands' own (kubectl users type `-n demo get pods`, so `fieldscope -n demo list pods`).
bool takesValue(const QString &arg)
{
    static const QSet<QString> window = [] {
        const QStringList names = guiOptionsWithValues();
        return QSet<QString>(names.begin(), names.end());
    }();
    static const QSet<QString> withValue{QStringLiteral("--context"),
                                         QStringLiteral("--kubeconfig"),
                                         QStringLiteral("-n"),
                                         QStringLiteral("--namespace"),
                                         QStringLiteral("-l"),
                                         QStringLiteral("--selector"),
                                         QStringLiteral("--field-selector"),
                                         QStringLiteral("-o"),
                                         QStringLiteral("--output"),
                                         QStringLiteral("-f"),
                                         QStringLiteral("--filename"),
                                         QStringLiteral("--mode"),
                                         QStringLiteral("--db"),
                                         QStringLiteral("--for"),
                                         QStringLiteral("--to"),
                                         QStringLiteral("--expect"),
                                         QStringLiteral("--manager"),
                                         QStringLiteral("--live-file"),
                                         QStringLiteral("-platform"),
                                         QStringLiteral("-style"),
                                         QStringLiteral("-qwindowgeometry")};
    return withValue.contains(arg) || window.contains(arg);
}

// The connection options a subcommand without a cluster ignores (kubectl ignores global flags a
// command does not use): {option, takes a value}.
bool isConnectionOption(const QString &arg, bool *takesNext)
{
    *takesNext = arg == QLatin1String("--context") || arg == QLatin1String("--kubeconfig");
    return *takesNext || arg == QLatin1String("--allow-exec-plugins") || arg.startsWith(QLatin1String("--context="))
        || arg.startsWith(QLatin1String("--kubeconfig="));
}

// -v, --verbose, -v=N, --v=N (kubectl's spelling); N = 0 turns it off.
bool verbosityFlag(const QString &arg, bool *on)
{
    if (arg == QLatin1String("-v") || arg == QLatin1String("--verbose")) {
        *on = true;
        return true;
    }
    for (const auto prefix : {QLatin1String("-v="), QLatin1String("--v="), QLatin1String("--verbose=")}) {
        if (arg.startsWith(prefix)) {
            bool ok = false;
            const int level = QStringView(arg).mid(prefix.size()).toInt(&ok);
            *on = !ok || level > 0;
            return true;
        }
    }
    return false;
}

const SubcommandInfo *findSubcommand(const QString &name)
{
    for (const auto *c = subcommands(); c->name; ++c)
        if (name == QLatin1String(c->name))
            return c;
    return nullptr;
}

CliRoute subcommandRoute(const SubcommandInfo *c, const QStringList &before, const QStringList &after, bool verbose)
{
    CliRoute r;
    r.kind = CliRoute::Kind::Subcommand;
    r.command = c;
    r.verbose = verbose;
    r.args << QStringLiteral("fieldscope ") + QString::fromUtf8(c->name);
    for (int i = 0; i < before.size(); ++i) {
        bool next = false;
        if (!c->connects && isConnectionOption(before[i], &next)) {
            i += next ? 1 : 0;
            continue;
        }
        r.args << before[i];
    }
    r.args << after;
    return r;
}

} // namespace

CliRoute routeCommandLine(const QStringList &argv)
{
    CliRoute r;
    QStringList before; // arguments ahead of the first positional one, verbosity flags removed
    bool help = false, version = false;
    int i = 1;
    for (; i < argv.size(); ++i) {
        const QString &a = argv[i];
        if (a == QLatin1String("--"))
            break;
        if (verbosityFlag(a, &r.verbose))
            continue;
        if (!a.startsWith(u'-') || a.size() == 1)
            break; // the first positional argument ("-" alone is one: standard input)
        help = help || a == QLatin1String("-h") || a == QLatin1String("--help") || a == QLatin1String("--help-all");
        version = version || a == QLatin1String("--version");
        before << a;
        if (takesValue(a) && i + 1 < argv.size())
            before << argv[++i];
    }
    QStringList after;
    for (int k = i + 1; k < argv.size(); ++k) {
        bool on = false;
        if (verbosityFlag(argv[k], &on))
            r.verbose = on;
        else
            after << argv[k];
    }
    const QString first = i < argv.size() ? argv[i] : QString();

    if (first == QLatin1String("help")) {
        if (after.isEmpty()) {
            r.kind = CliRoute::Kind::Help;
            return r;
        }
        if (const auto *c = findSubcommand(after.first()))
            return subcommandRoute(c, {}, {QStringLiteral("--help")}, r.verbose);
        r.kind = CliRoute::Kind::UnknownSubcommand;
        r.unknown = after.first();
        return r;
    }
    if (!first.isEmpty() && first != QLatin1String("--")) {
        if (const auto *c = findSubcommand(first))
            return subcommandRoute(c, before, after, r.verbose);
        r.kind = CliRoute::Kind::UnknownSubcommand;
        r.unknown = first;
        return r;
    }
    if (version) {
        r.kind = CliRoute::Kind::Version;
        return r;
    }
    if (help) {
        r.kind = CliRoute::Kind::Help;
        return r;
    }
    r.args << argv.value(0) << before;
    if (i < argv.size()) // "--" and what follows, for the window's own parser
        r.args << argv.mid(i);
    return r;
}

} // namespace fieldscope::app
