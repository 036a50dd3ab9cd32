#pragma once
// What the window's recorder of one cluster is told (app/gui/clusterrecording.cpp uses it): kept
// apart from the window so that its choices are checked without one (tests/app).
#include "app/services/settings.h"
#include "core/history/historywriter.h"

#include <QString>

#include <string>

namespace fieldscope::app {

struct WindowRecorderChoices {
    std::string location; // historyLocationFor(): a file of this computer or "postgresql://...#IDENTITY"
    std::string clusterIdentity;
    std::string clusterLabel; // the server URL
    QString contextName;      // names earlier versions gave the file
    bool recordSecretValues = false;
    int versionsPerObject = Settings::kDefaultVersionsPerObject; // Settings -> History
};

// The window records into its own file with the user's retention, or into the team's store, which
// it never prunes: a teammate's window (and its Settings) must not shrink everyone's history; the
// store's own policy is applied by its recorders (`fieldscope record`).
core::HistoryRecorder::Options windowRecorderOptions(const WindowRecorderChoices &choices);

} // namespace fieldscope::app
