// fieldscope: the desktop app, or one of its subcommands when the first argument names one.
#include "app/commands.h"
#include "app/guiapp.h"

#include <QCoreApplication>
#include <QLoggingCategory>

#include <cstring>

using namespace fieldscope::app;

int main(int argc, char **argv)
{
    if (argc > 1 && argv[1][0] != '-') {
        for (const auto *c = subcommands(); c->name; ++c) {
            if (std::strcmp(argv[1], c->name) != 0)
                continue;
            // Scripts read stdout/stderr: only warnings and errors unless FIELDSCOPE_VERBOSE is set.
            if (qEnvironmentVariableIsEmpty("FIELDSCOPE_VERBOSE"))
                QLoggingCategory::setFilterRules(QStringLiteral("fieldscope.*.debug=false\nfieldscope.*.info=false"));
            QCoreApplication app(argc, argv);
            QCoreApplication::setApplicationName(QStringLiteral("fieldscope"));
            QCoreApplication::setApplicationVersion(QStringLiteral(FIELDSCOPE_VERSION));
            QStringList args = QCoreApplication::arguments();
            args.removeAt(1); // the subcommand
            args[0] = QStringLiteral("fieldscope ") + QString::fromUtf8(c->name);
            return runSubcommand(*c, args);
        }
        std::fprintf(stderr, "fieldscope: unknown subcommand \"%s\" (see fieldscope --help)\n", argv[1]);
        return 2;
    }
    return runGui(argc, argv);
}
