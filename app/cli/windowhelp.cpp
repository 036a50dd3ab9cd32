// The window's --help: its options and the subcommands, printed without a display.
#include "app/cli/windowhelp.h"

#include "app/cli/commands.h"
#include "app/services/windowoptions.h"

#include <QCommandLineParser>

#include <cstdio>

namespace fieldscope::app {
namespace {

QString subcommandHelp()
{
    QString s = QStringLiteral(
        "\nSubcommands (fieldscope help SUBCOMMAND, or fieldscope SUBCOMMAND --help, for each; --context,\n--kubeconfig, --allow-exec-plugins and -v go before or after the subcommand):\n");
    for (const auto *c = subcommands(); c->name; ++c)
        s += QStringLiteral("  %1  %2\n")
                 .arg(QString::fromUtf8(c->name).leftJustified(10), QString::fromUtf8(c->summary));
    return s;
}

} // namespace

int printGuiHelp()
{
    QCommandLineParser p;
    addWindowOptions(p, subcommandHelp());
    std::fputs(qUtf8Printable(p.helpText()), stdout);
    return 0;
}

} // namespace fieldscope::app
