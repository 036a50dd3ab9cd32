#pragma once
// Joins audit events (core/audit/auditevent.h) to recorded versions of objects: who made each version,
// and which writes were refused. Rules (docs/audit.md):
//  - exact: the event's responseObject resourceVersion is the version's and the event is about the
//    same object (namespace and name, and the uid where the answer has one), or a delete whose
//    answer names the uid of a DELETED version. Every such claim is reported, none wins by its
//    time: another person's claim of the same version makes it contested in the store;
//  - probable: no resourceVersion in the event (level Metadata/Request): same object, verb fits
//    the watch event type, the event's field manager (fieldManager= or the User-Agent prefix)
//    wrote the version's managedFields entry whose time (whole seconds) lies within the request's
//    time span plus a tolerance; several fitting events are reported as such, none gives nothing;
//  - refused writes (403, 409, 422 on an object) become attempts.
// Events and versions arrive in any order and any batch size: both are held (bounded, aged out)
// and joined when their partner arrives. Plain value types in and out, so a store can persist
// them. Not thread-safe: one owner thread.
#include "core/audit/auditevent.h"
#include "core/base/json.h"
#include "core/history/historytypes.h"
#include "core/history/historywho.h"

#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace fieldscope::core {

// One managedFields entry of a version, and whether it may have made this version.
struct AuditVersionManager {
    std::string manager;
    std::string operation; // "Apply" or "Update"
    std::string subresource;
    std::int64_t timeSeconds = 0; // the entry's time, seconds since the epoch; 0 when unknown
    bool writer = false;
    bool operator==(const AuditVersionManager &) const = default;
};

// The who of an event (no bodies).
AuditWho auditWhoOf(const AuditEvent &e);

// A recorded version as the joiner needs it.
struct AuditVersion {
    AuditObjectKey object;
    std::string uid;
    std::string resourceVersion;
    HistoryEventType eventType = HistoryEventType::Modified;
    std::int64_t observedAtMs = 0; // local clock; only used for deletes at level Metadata
    std::vector<AuditVersionManager> managers;
    bool operator==(const AuditVersion &) const = default;
};

// Builds an AuditVersion from a watched object and the previous version of the same uid
// (nullptr when none was observed). `writer` marks the entries that may have made this version:
// entries that are new or whose time moved; when none did (the same manager wrote twice within
// one second), the entries with the newest time, since a write's time is at least every earlier
// entry's; all entries when there is no previous version.
Result<AuditVersion> auditVersionOf(const Json &object, const Json *previous, HistoryEventType type,
                                    const std::string &group, const std::string &resource, std::int64_t observedAtMs);

// What auditVersionOf reads of the previous version: its managedFields entries, or the error
// reading them gave (auditVersionOf of the next version then fails with it). Kept instead of the
// version itself by a join that walks an object's versions in order.
struct AuditPredecessor {
    std::vector<AuditVersionManager> managers;
    std::optional<Error> error;
};
AuditPredecessor auditPredecessorOf(const Json &previous);
// The predecessor a successfully built version is to the next one.
AuditPredecessor auditPredecessorOf(const AuditVersion &previous);
// auditVersionOf with the previous version already read: the same result.
Result<AuditVersion> auditVersionOf(const Json &object, const AuditPredecessor *previous, HistoryEventType type,
                                    const std::string &group, const std::string &resource, std::int64_t observedAtMs);

// An event that left the hold without any version fitting it (its object was not recorded, the
// version was missed, or the event came too late), kept for queries.
struct AuditUnmatched {
    AuditObjectKey object;
    std::string resourceVersion; // the response's, when the event carried it
    AuditWho who;
    bool operator==(const AuditUnmatched &) const = default;
};

// An object as a map key: each part with its length, so no two objects share one. Not
// AuditObjectKey::toString(), which joins with '/' and '.': an event's name may hold those, and a
// forged "team/cm" in no namespace would take the entry of configmaps "cm" in "team".
std::string auditObjectMapKey(const AuditObjectKey &key);

struct AuditJoinLimits {
    std::size_t maxHeldEvents = 100000;         // oldest become unmatched past this
    std::size_t maxHeldEventBytes = 256u << 20; // ... or past this much memory (auditEventBytes)
    std::size_t maxHeldVersions = 100000;       // oldest are let go past this
    std::int64_t holdMs = 600'000;              // ten minutes: how long either side waits for its partner
    std::size_t maxUnmatched = 10000;           // unmatched events kept for queries (oldest dropped)
    std::size_t maxUnmatchedBytes = 64u << 20;  // ... and at most this much of their who
    std::int64_t toleranceSeconds = 0;          // around the request's time span (see AuditJoiner)
    std::int64_t deleteWindowMs = 10000;        // DELETED observed vs. stageTimestamp (Metadata level)
    std::size_t maxCandidates = 8;              // listed per ambiguous join (the first to arrive)
    std::size_t maxRememberedIds = 200000;      // auditID+stage kept for deduplication
};

struct AuditJoinStats {
    std::int64_t events = 0;     // accepted into the joiner
    std::int64_t duplicates = 0; // same auditID + stage seen before
    std::int64_t notFinal = 0;   // RequestReceived / ResponseStarted
    std::int64_t ignored = 0;    // reads, dry runs, no object, other failures
    std::int64_t exact = 0;
    std::int64_t probable = 0; // joins emitted as probable (re-emissions counted again)
    std::int64_t ambiguous = 0;
    std::int64_t attempts = 0;
    std::int64_t unmatched = 0;       // events that aged out or were pushed out without a join
    std::int64_t versionsDropped = 0; // versions pushed out past maxHeldVersions
};

struct AuditJoinOutput {
    std::vector<AuditJoin> joins;
    std::vector<AuditAttempt> attempts;
    std::vector<AuditUnmatched> unmatched; // events that left the hold without a join, this call
};

// Keeps a joiner's emissions for one uid + resourceVersion until they are stored: a later
// probable or ambiguous emission replaces an earlier one, never an exact one; every exact claim
// of another event is kept beside the first (as candidates of one exact join; the store decides
// whether they contest the version, historystoreaudit.cpp).
void keepJoinEmission(std::map<std::pair<std::string, std::string>, AuditJoin> &kept, AuditJoin join);

class AuditJoiner
{
public:
    explicit AuditJoiner(AuditJoinLimits limits = {});
    ~AuditJoiner();
    AuditJoiner(const AuditJoiner &) = delete;
    AuditJoiner &operator=(const AuditJoiner &) = delete;

    // nowMs drives holding and ageing (pass the wall clock; tests pass their own).
    AuditJoinOutput addEvents(const std::vector<AuditEvent> &events, std::int64_t nowMs);
    // The same, the held events moved in rather than copied (a hold is most of an event's cost).
    AuditJoinOutput addEvents(std::vector<AuditEvent> &&events, std::int64_t nowMs);
    AuditJoinOutput addVersions(const std::vector<AuditVersion> &versions, std::int64_t nowMs);
    // Versions that held events claim exactly (by resourceVersion, or a delete by the uid of a
    // DELETED version) join them, as addVersions would join them; the indexes of the others go to
    // `unclaimed`, and they are not held. An exact join never looks at a version's managedFields,
    // so a caller can offer versions without reading their bodies, and read only the unclaimed
    // ones (which a probable join compares by their writers) for addVersions.
    AuditJoinOutput addClaimedVersions(const std::vector<AuditVersion> &versions, std::vector<std::size_t> &unclaimed);
    // Lets go of what waited longer than holdMs; their events become unmatched.
    AuditJoinOutput expire(std::int64_t nowMs);

    // Unmatched events, oldest first (at most maxUnmatched).
    const std::deque<AuditUnmatched> &unmatched() const { return m_unmatched; }
    const AuditJoinStats &stats() const { return m_stats; }
    std::size_t heldEvents() const;
    // Whether any event about this object waits in the hold (a version stored later may join it).
    bool holdsEventsOf(const AuditObjectKey &object) const;
    std::size_t heldVersions() const;

private:
    struct State;
    bool admit(const AuditEvent &event, AuditJoinOutput &out);
    bool joinOnArrival(const AuditEvent &event, AuditJoinOutput &out);
    void holdEvent(AuditEvent &&event, std::int64_t nowMs, AuditJoinOutput &out);
    void holdVersion(const AuditVersion &version, std::int64_t nowMs, AuditJoinOutput &out);
    bool joinHeldClaims(const AuditVersion &version, AuditJoinOutput &out);
    void emitIfChanged(std::uint64_t versionId, AuditJoinOutput &out);
    void emitExact(AuditWho who, const AuditVersion &version, AuditJoinOutput &out);
    void letGo(std::uint64_t eventId, AuditJoinOutput &out);
    void enforceBounds(AuditJoinOutput &out);
    void addUnmatched(const AuditEvent &event, AuditJoinOutput &out);
    AuditJoinLimits m_limits;
    std::unique_ptr<State> m_state;
    std::deque<AuditUnmatched> m_unmatched;
    std::deque<std::size_t> m_unmatchedSizes; // bytes of each, same order
    std::size_t m_unmatchedBytes = 0;
    AuditJoinStats m_stats;
};

} // namespace fieldscope::core
