#include "app/services/windowrecorder.h"

#include "app/services/historysource.h"

namespace fieldscope::app {

core::HistoryRecorder::Options windowRecorderOptions(const WindowRecorderChoices &choices)
{
    core::HistoryRecorder::Options ro;
    ro.path = choices.location;
    ro.open.clusterIdentity = choices.clusterIdentity;
    ro.open.clusterLabel = choices.clusterLabel;
    ro.open.recordSecretValues = choices.recordSecretValues;
    ro.open.folderIsPrivate = true;
    ro.open.recorderName = recorderNameFor("window");
    ro.browseReadOnlyStore = true; // a teammate whose role may only read still browses
    if (!core::isSharedHistoryLocation(choices.location))
        ro.adoptFrom = legacyHistoryDatabasesFor(choices.contextName);
    ro.retention.maxVersionsPerObject = choices.versionsPerObject;
    ro.pruneSharedStore = false;
    return ro;
}

} // namespace fieldscope::app
