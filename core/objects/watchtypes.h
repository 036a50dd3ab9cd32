#pragma once
// Value types that carry observed object versions from the watch layer (kube/) to the models,
// the history recorder and the command line. Implicitly shared bytes: cheap to copy across threads.
#include <QByteArray>
#include <QMetaType>

#include <cstdint>
#include <string>
#include <vector>

namespace fieldscope::core {

enum class WatchEventType { Added, Modified, Deleted };
const char *watchEventTypeName(WatchEventType t); // "ADDED", "MODIFIED", "DELETED"

// One version of one object as the server sent it (or as a list/relist showed it).
struct ObjectVersion {
    WatchEventType type = WatchEventType::Added;
    std::string uid;
    std::string namespace_;
    std::string name;
    std::string resourceVersion; // opaque; compared for equality only
    QByteArray json;             // the whole object, with kind and apiVersion
    // Read by the decoder on the network thread so table models never parse JSON:
    std::string creationTimestamp; // RFC 3339
    int managerCount = 0;          // entries in metadata.managedFields
    std::string lastManager;       // the entry with the latest time ("" when none)
    std::string lastManagerOperation;
    std::string lastChangedAt; // that entry's time
    // True when this version came from a LIST (initial or after a relist) rather than a watch
    // event; for a relist-detected deletion, `json` is the last state we saw and
    // `resourceVersion` the last one we saw, since the server never told us the deletion's RV.
    bool fromList = false;
};

// Versions of the scope between these two resourceVersions were not observed (a relist after
// 410, a restart). Consumers must show it, never fill it in.
struct ObservationGap {
    std::string fromResourceVersion; // last RV seen before the gap ("" if none)
    std::string toResourceVersion;   // the list RV we resumed from
    std::string reason;
};

struct WatchBatch {
    std::string scope; // e.g. "configmaps.v1 in default"
    std::vector<ObjectVersion> events;
    std::vector<ObservationGap> gaps;
    bool initialListComplete = false; // this batch ends the first full list
    std::string resourceVersion;      // the scope's resume point after this batch
    std::int64_t observedAtMs = 0;    // wall-clock ms since epoch when the batch was cut
};

} // namespace fieldscope::core

Q_DECLARE_METATYPE(fieldscope::core::WatchBatch)
