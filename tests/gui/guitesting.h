#pragma once
// What the GUI tests share: where their screenshots go (README images and the review of every
// run come from build/<preset>/screenshots/).
#include <QDir>
#include <QString>

namespace fieldscope::testing {

inline QString shotPath(const QString &name)
{
    const QString dir = QStringLiteral(FIELDSCOPE_BUILD_DIR "/screenshots");
    QDir().mkpath(dir);
    return dir + QLatin1Char('/') + name;
}

} // namespace fieldscope::testing
