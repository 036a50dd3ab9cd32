#pragma once
// Whether the widgets are drawn on a dark palette: manager colours, diff backgrounds and the YAML
// lexer pick their dark tone from this one test.
#include <QPalette>

namespace fieldscope::widgets {

inline bool isDarkPalette(const QPalette &p)
{
    return p.color(QPalette::Base).lightness() < 128;
}

} // namespace fieldscope::widgets
