#pragma once

namespace fieldscope::app {

// The window's --help text (its options, then the subcommands) on stdout; needs only a
// QCoreApplication (or none).
int printGuiHelp();

} // namespace fieldscope::app
