#pragma once
// QScintilla's headers use the `signals` and `slots` keywords, which QT_NO_KEYWORDS (on for the
// whole project) turns off: map them to the macros for these includes only.
#include <QtGlobal>

#define signals Q_SIGNALS
#define slots Q_SLOTS
#include <Qsci/qscilexeryaml.h>
#include <Qsci/qsciscintilla.h>
#include <Qsci/qscistyle.h>
#undef signals
#undef slots
