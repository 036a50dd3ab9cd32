#pragma once
// Background recording: `fieldscope record --store` (what fieldscope-record@.service
// runs) records a context into the same per-cluster store the window reads. It says so in a small
// marker next to the database, "<db>.recorder": its pid, since when, what it records and a
// heartbeat it refreshes every 30 s. The window reads the marker to show that background
// recording is on and since when; a marker whose process is gone or whose heartbeat is stale is
// ignored (a killed recorder cannot remove it).
#include "core/base/result.h"

#include <QDateTime>
#include <QString>

#include <optional>

namespace fieldscope::app {

struct BackgroundRecorder {
    qint64 pid = 0;
    QDateTime since;
    QDateTime heartbeat;
    QString resources; // "configmaps,deployments"
    QString context;
};

QString backgroundMarkerFor(const QString &database);
// Writes the marker (0600, atomically); the heartbeat is now.
core::Status writeBackgroundMarker(const QString &database, const BackgroundRecorder &recorder);
void removeBackgroundMarker(const QString &database);
// The live recorder of `database`, if one runs: the marker parses, its process exists and its
// heartbeat is at most 90 s old.
std::optional<BackgroundRecorder> runningBackgroundRecorder(const QString &database,
                                                            const QDateTime &now = QDateTime::currentDateTimeUtc());

// What `record --store` records when no RESOURCES are given, and what Settings lists.
QString backgroundResources();
// The unit instance for a context, escaped as systemd-escape does ("team/prod" -> "team-prod").
QString systemdInstanceName(const QString &context);

} // namespace fieldscope::app
