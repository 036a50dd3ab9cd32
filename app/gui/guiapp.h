#pragma once
#include <QStringList>

namespace fieldscope::app {

// The desktop application: fieldscope [--context C] [--kubeconfig F] [--sandbox] [--screenshot FILE ...]
int runGui(int &argc, char **argv);

} // namespace fieldscope::app
