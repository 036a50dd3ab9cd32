#pragma once
#include <string>

namespace fieldscope::app {

// "fieldscope 0.1.0" and, when `libraries`, one line per library this binary runs with (the
// version loaded at run time where the library can tell, else the one built against).
std::string versionText(bool libraries);

// Names the application "fieldscope" of organisation "fieldscope" (and its version) on the
// running Qt application: QSettings() then reads ~/.config/fieldscope/fieldscope.conf. The
// window and every subcommand call it, so `fieldscope apply`, `record --store` and the window
// share one settings file (field manager, retention, Secret choice, background resources).
void setApplicationIdentity();

} // namespace fieldscope::app
