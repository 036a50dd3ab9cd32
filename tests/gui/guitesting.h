#pragma once
// What the GUI tests share: where their screenshots go (README images and the review of every
// run come from build/<preset>/screenshots/), and how they are taken.
#include <QCoreApplication>
#include <QDir>
#include <QEvent>
#include <QPixmap>
#include <QString>
#include <QWidget>

namespace fieldscope::testing {

inline QString shotPath(const QString &name)
{
    const QString dir = QStringLiteral(FIELDSCOPE_BUILD_DIR "/screenshots");
    QDir().mkpath(dir);
    return dir + QLatin1Char('/') + name;
}

// WIDGET as a person sees it once the event loop has caught up: a test often grabs right after
// changing a label's text, before the layout request that widens the label was handled.
inline bool saveShot(QWidget *widget, const QString &name)
{
    QCoreApplication::sendPostedEvents(nullptr, QEvent::LayoutRequest);
    return widget->grab().save(shotPath(name));
}

} // namespace fieldscope::testing
