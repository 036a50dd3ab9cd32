#pragma once
#include <QStringList>

namespace fieldscope::app {

// The desktop application: fieldscope [--context C] [--kubeconfig F] [--sandbox] [--screenshot FILE ...]
int runGui(int &argc, char **argv);
// The window's --help text on stdout; needs only a QCoreApplication (or none).
int printGuiHelp();
// The window's options that take a value ("--screenshot-timeout", ...), from the same parser
// definition: the command-line router must never take such a value for a subcommand.
QStringList guiOptionsWithValues();

} // namespace fieldscope::app
