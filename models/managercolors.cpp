#include "models/managercolors.h"

#include <QByteArray>
#include <QString>

#include <cmath>

namespace fieldscope::models {
namespace {

double channel(double c)
{
    return c <= 0.03928 ? c / 12.92 : std::pow((c + 0.055) / 1.055, 2.4);
}

double luminance(const QColor &c)
{
    return 0.2126 * channel(c.redF()) + 0.7152 * channel(c.greenF()) + 0.0722 * channel(c.blueF());
}

} // namespace

int managerHue(QStringView manager)
{
    // FNV-1a over UTF-8, then a final avalanche so that similar names ("kubectl",
    // "kubectl-edit") land on clearly different hues.
    const QByteArray utf8 = manager.toUtf8();
    quint32 h = 2166136261u;
    for (char c : utf8) {
        h ^= quint8(c);
        h *= 16777619u;
    }
    h ^= h >> 16;
    h *= 0x7feb352du;
    h ^= h >> 15;
    return int(h % 360u);
}

QColor managerColor(QStringView manager, PaletteTone tone)
{
    const double hue = managerHue(manager) / 360.0;
    // Start from a pleasant mid saturation and walk lightness until the colour is readable on
    // the tone's background; yellows and greens need to go darker than blues.
    const QColor background = tone == PaletteTone::Light ? QColor(255, 255, 255) : QColor(0x20, 0x20, 0x20);
    double lightness = tone == PaletteTone::Light ? 0.42 : 0.68;
    const double step = tone == PaletteTone::Light ? -0.02 : 0.02;
    QColor c = QColor::fromHslF(float(hue), 0.62f, float(lightness));
    for (int i = 0; i < 20 && contrastRatio(c, background) < 4.5; ++i) {
        lightness += step;
        c = QColor::fromHslF(float(hue), 0.62f, float(lightness));
    }
    return c;
}

double contrastRatio(const QColor &a, const QColor &b)
{
    const double la = luminance(a) + 0.05;
    const double lb = luminance(b) + 0.05;
    return la > lb ? la / lb : lb / la;
}

} // namespace fieldscope::models
