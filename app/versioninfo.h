#pragma once
#include <string>

namespace fieldscope::app {

// "fieldscope 0.1.0" and, when `libraries`, one line per library this binary runs with (the
// version loaded at run time where the library can tell, else the one built against).
std::string versionText(bool libraries);

} // namespace fieldscope::app
