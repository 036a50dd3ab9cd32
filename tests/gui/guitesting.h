#pragma once
// What the GUI tests share: where their screenshots go (README images and the review of every
// run come from build/<preset>/screenshots/), and how they are taken.
#include "widgets/clusterview.h"

#include <QCoreApplication>
#include <QDir>
#include <QEvent>
#include <QPixmap>
#include <QString>
#include <QStringList>
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
// The picture is saved in every case; an error banner nobody expected (a cluster tab saying
// "History recording is failing") makes it a failure, so no screenshot that reaches the README
// shows one. Tests that show an error on purpose use saveShotShowingErrors.
inline bool saveShotShowingErrors(QWidget *widget, const QString &name)
{
    QCoreApplication::sendPostedEvents(nullptr, QEvent::LayoutRequest);
    return widget->grab().save(shotPath(name));
}

inline QStringList shownErrors(QWidget *widget)
{
    QList<widgets::ClusterView *> views = widget->findChildren<widgets::ClusterView *>();
    if (auto *self = qobject_cast<widgets::ClusterView *>(widget))
        views.prepend(self);
    QStringList errors;
    for (const widgets::ClusterView *view : views)
        errors += view->shownErrors();
    return errors;
}

inline bool saveShot(QWidget *widget, const QString &name)
{
    if (!saveShotShowingErrors(widget, name))
        return false;
    if (const QStringList errors = shownErrors(widget); !errors.isEmpty()) {
        qWarning("%s shows an error banner: %s", qPrintable(name), qPrintable(errors.join(QStringLiteral("; "))));
        return false;
    }
    return true;
}

} // namespace fieldscope::testing
