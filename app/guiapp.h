#pragma once
#include <QStringList>

namespace fieldscope::app {

// The desktop application: fieldscope [--context C] [--kubeconfig F] [--sandbox] [--screenshot FILE ...]
int runGui(int &argc, char **argv);
// The window's --help text on stdout; needs only a QCoreApplication (or none).
int printGuiHelp();

} // namespace fieldscope::app
