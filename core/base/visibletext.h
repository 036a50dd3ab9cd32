#pragma once
// Strings someone else chose (a kubeconfig, a server, a file) shown to a person: control
// characters and bidirectional overrides must not hide or reorder what is shown ("evil\u202e"
// displays the rest backwards), so they become visible escapes. GUI-free; the window's plain-text
// helpers (widgets/plaintext.h) and the terminal output both use it.
#include <QString>

#include <string>
#include <string_view>

namespace fieldscope::core {

// UTF-8 in, the same text with every C0/C1 control, DEL, bidirectional formatting character
// (U+061C, U+200E/F, U+202A-202E, U+2066-2069) and invisible separator (U+200B-D, U+2028/9,
// U+2060, U+FEFF) written as \uXXXX, and each byte of invalid UTF-8 as \xNN.
std::string visibleEscapes(std::string_view s);

// The same for text shown in the window. `keepNewlines`: a multi-line message keeps its line
// breaks (tabs and the rest are still escaped).
QString visibleText(const QString &text, bool keepNewlines = false);

} // namespace fieldscope::core
