#pragma once
// A stable colour per field manager: the same name gets the same hue in every run, on every
// machine (no seeded qHash), so users learn "kubectl is teal". Pure functions, any thread.
#include <QColor>
#include <QStringView>

namespace fieldscope::models {

// Light: for text and chips on light backgrounds (darker, saturated). Dark: for dark palettes
// (lighter). Both keep a contrast ratio of at least 4.5:1 against white / #202020 respectively.
enum class PaletteTone { Light, Dark };

QColor managerColor(QStringView manager, PaletteTone tone = PaletteTone::Light);
// The hue (0-359) both tones share; exposed for tests and legends that draw their own swatches.
int managerHue(QStringView manager);
// WCAG relative-luminance contrast ratio between two colours (1.0 - 21.0).
double contrastRatio(const QColor &a, const QColor &b);

} // namespace fieldscope::models
