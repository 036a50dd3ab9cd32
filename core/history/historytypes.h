#pragma once
// Value types of the resourceVersion history: what the watch layer hands to the recorder
// and what the store hands back. Thread-agnostic, copyable; safe to pass through queued signals.
#include "core/objects/objectref.h"

#include <QMetaType>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace fieldscope::core {

// How a version reached us. Listed = part of an initial LIST or a relist (after a 410 Expired);
// the synthetic ADDED events of a watch without RV are "Added" and that is fine too.
enum class HistoryEventType { Listed = 0, Added = 1, Modified = 2, Deleted = 3 };

// "LISTED", "ADDED", "MODIFIED", "DELETED": the wire names, used in exports and CLI JSON.
const char *historyEventTypeName(HistoryEventType t);
bool parseHistoryEventType(std::string_view name, HistoryEventType *out);

// One event as delivered by the watch layer. objectJson is the object exactly as the server sent
// it; for DELETED the last state with the deletion's resourceVersion (k8s.io/apiserver/pkg/storage/etcd3/watcher.go).
struct WatchEvent {
    HistoryEventType type = HistoryEventType::Modified;
    std::string objectJson;
    std::int64_t observedAtMs = 0; // wall clock, ms since the Unix epoch (UTC)
};

// What a watch covers, e.g. one GVR in one namespace. Gaps are recorded per scope because an RV
// range is only meaningful within one watch.
struct WatchScope {
    std::string id;       // opaque and stable across runs: "deployments.v1.apps/prod"
    std::string resource; // plural ("deployments"), so the CLI can find RESOURCE/NAME offline
    // id = "<gvr.toString()>/<namespace>" ("" namespace = all namespaces or cluster-scoped).
    static WatchScope of(const GroupVersionResource &gvr, const std::string &namespace_);
    // For scope strings made elsewhere ("configmaps.v1 in default"): resource = up to the first
    // '.' or space.
    static WatchScope fromId(const std::string &id);
    bool operator==(const WatchScope &) const = default;
};

// "Versions after fromRv up to and including toRv were not observed in this scope."
// fromRv is empty when the start is unknown (first run, or the last RV was never stored).
// RVs are opaque (https://kubernetes.io/docs/reference/using-api/api-concepts/#resource-versions):
// the store never orders them numerically, it orders gaps and versions by recording order (ord).
struct HistoryGap {
    std::string scope;
    std::string fromRv;
    std::string toRv;
    std::string reason; // "relist after 410", "app restart", "recorder queue overflow", ...
    std::int64_t observedAtMs = 0;
    std::int64_t ord = 0; // position in the store's recording order; 0 until stored

    // Whether a LIST ended the gap (a relist, or the first list of a run after a stretch nobody
    // recorded), so each object's state at toRv was seen; a recorder overflow has no such end.
    bool endsWithList() const;
};

// One incarnation (uid) of one object, as the store knows it.
struct HistoryObject {
    std::int64_t id = 0;
    ObjectRef ref;        // apiVersion of the latest stored version
    std::string resource; // plural from the scope ("deployments"), for CLI lookups
    std::int64_t versionCount = 0;
    std::int64_t prunedCount = 0; // older versions removed by retention (shown as a gap)
    bool deleted = false;
};

// Metadata of one stored version (no body).
struct VersionInfo {
    std::int64_t objectId = 0;
    std::string uid;
    std::int64_t seq = 0; // 1-based per uid, never reused; pruning leaves holes at the front
    std::int64_t ord = 0; // global recording order across objects and gaps
    std::string resourceVersion;
    HistoryEventType eventType = HistoryEventType::Modified;
    std::int64_t observedAtMs = 0;
    std::string scope;
    bool snapshot = false;
    std::int64_t storedBytes = 0; // compressed payload size
    std::int64_t rawBytes = 0;    // size of the object's compact JSON
    std::string recorder;         // the recorder that stored it ("" = unnamed or an older store)
};

// A row of an object's history listing: a version, or a gap honestly shown in its place.
struct HistoryEntry {
    enum class Kind { Version, Gap, Pruned };
    Kind kind = Kind::Version;
    VersionInfo version;          // Kind::Version
    HistoryGap gap;               // Kind::Gap
    std::int64_t prunedCount = 0; // Kind::Pruned: versions removed by retention before the first kept
};

// Retention: applied by the writer after its batches. Zero/negative disables a limit.
struct RetentionPolicy {
    std::int64_t maxVersionsPerObject = 1000;
    std::int64_t maxTotalBytes = 512ll << 20; // stored (compressed) payload bytes
    std::int64_t maxAgeMs = 30ll * 24 * 3600 * 1000;
};

// A shared store's own retention: set by its owner (`fieldscope store retention`), read by every
// recorder, so no teammate's Settings decide what the team's history keeps.
struct StoreRetention {
    RetentionPolicy policy; // the defaults above until the owner sets one
    bool set = false;
    std::string setBy; // the database role that set it
    std::int64_t setAtMs = 0;
};

// What `store retention --versions/--days/--bytes` changes; the others stay as they are.
struct RetentionChange {
    std::optional<std::int64_t> maxVersionsPerObject;
    std::optional<std::int64_t> maxAgeMs;
    std::optional<std::int64_t> maxTotalBytes;
};

// One pruning of a shared store, kept in the store (the last ones only).
struct PruningRecord {
    std::string recorder; // the recorder's name (its database role when it has none)
    std::int64_t atMs = 0;
    std::int64_t versions = 0; // versions removed
    std::int64_t bytes = 0;    // stored bytes freed (net of the snapshots rewritten)
};

// What one committed transaction contained; reported after COMMIT returned (crash test relies on it).
struct CommitReport {
    struct Item {
        std::string uid;
        std::string resourceVersion;
        std::int64_t seq = 0;
    };
    std::vector<Item> versions;         // versions stored by this transaction
    std::vector<HistoryGap> gaps;       // gaps stored by this transaction
    std::int64_t skippedDuplicates = 0; // same uid+RV as the last stored version (e.g. a relist)
    std::int64_t rejected = 0;          // unparsable or uid-less objects (logged, never stored)
    bool inBulk = false;                // written by the bulk statements (Connection::writesInBulk)
    // Why a bulk write failed and this transaction was written again row by row ("" when it was
    // not): a stored copy out of the duplicate checks' sight is expected once; anything else is a
    // bug of the bulk path that would otherwise only show as a slower store.
    std::string bulkFallback;
    // Heads read back with a query of their own before a delta was made against them (the bulk
    // writer reads a batch's heads in one; a head it could not decode, or a row writer's, is alone).
    std::int64_t headsReadAlone = 0;
    // Events read while the write before was committed (HistoryStore::write with `next`).
    std::int64_t readBeforehand = 0;
    // Versions the bulk writer asked the store about (was it stored by another writer?) before
    // writing: none for an object whose head this writer stored itself and no other wrote since.
    std::int64_t storedChecks = 0;
};

} // namespace fieldscope::core

Q_DECLARE_METATYPE(fieldscope::core::CommitReport)
