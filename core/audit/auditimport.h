#pragma once
// Backfilling "who made each version" from audit log files into a history store: the events are
// joined (core/audit/auditjoin.h) to the versions the store already holds of the objects they
// name, and the joins and refused writes are kept in the store (`fieldscope audit import`).
// Thread: blocking reads and writes of the store; call on a thread that owns it.
#include "core/audit/auditevent.h"
#include "core/audit/auditjoin.h"
#include "core/history/historystore.h"

#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace fieldscope::core {

struct AuditImportReport {
    std::int64_t files = 0;
    std::int64_t events = 0;           // decoded events
    std::int64_t skipped = 0;          // junk: not JSON, not an audit.k8s.io/v1 Event, wrong types, too large
    std::vector<std::string> problems; // the first kMaxAuditProblems, "FILE: line N: ..."
    std::int64_t objects = 0;          // recorded incarnations whose versions were offered to the join
    std::int64_t versions = 0;
    std::int64_t exact = 0; // versions joined, by how (the last emission of each version)
    std::int64_t probable = 0;
    std::int64_t ambiguous = 0;
    std::int64_t attempts = 0;       // refused writes (403, 409, 422) on objects of the scopes the store records
    std::int64_t unmatched = 0;      // successful writes no recorded version fits (object not recorded, or missed)
    std::int64_t duplicates = 0;     // the same auditID + stage again
    std::int64_t storedJoins = 0;    // joins new or changed in the store (0 when a log is imported twice)
    std::int64_t storedAttempts = 0; // attempts new in the store
};

// The object a write event is about; nullopt for reads, collections and refused creates the server
// did not decode (no name): those cannot join a version.
std::optional<AuditObjectKey> auditJoinableObject(const AuditEvent &event);

// Which objects a store records, from its scope ids ("configmaps.v1/team"): refused writes are
// kept for those only, not for every refusal in a cluster's log.
struct RecordedScopes {
    struct Scope {
        std::string resource, group, namespace_; // namespace "" = every namespace
    };
    std::vector<Scope> scopes;
    static Result<RecordedScopes> of(HistoryStore &store);
    bool covers(const AuditObjectKey &object) const;
};

class AuditImporter
{
public:
    explicit AuditImporter(HistoryStore &store, AuditJoinLimits limits = importLimits());
    // Events in any batch size and order; the versions of each object an event names are read from
    // the store the first time it is named.
    Status add(const std::vector<AuditEvent> &events);
    // Counts a decode's skips and problems (prefixing each problem with `source`).
    void noteDecode(const AuditDecodeResult &decoded, const std::string &source);
    // Lets every held event go, then stores the joins and attempts in one transaction.
    Result<AuditImportReport> finish();

    // Nothing ages while importing (the clock of a log is not ours): only the bounds apply.
    static AuditJoinLimits importLimits();

private:
    Status loadObject(const AuditObjectKey &key);
    void collect(AuditJoinOutput out);

    HistoryStore &m_store;
    AuditJoiner m_joiner;
    AuditImportReport m_report;
    std::set<std::string> m_loaded;                                   // auditObjectMapKey() of objects already offered
    std::map<std::pair<std::string, std::string>, AuditJoin> m_joins; // uid + RV, kept by keepJoinEmission
    std::vector<AuditAttempt> m_attempts;
    std::optional<RecordedScopes> m_scopes;
};

// Joins events as they arrive (a followed log, webhook batches) to the versions a recorder stores
// meanwhile, and keeps the result in the store: `fieldscope record --audit-log`. The watch may
// deliver a version after the log has its event, or before: events wait in the joiner (ten
// minutes, bounded) and each flush offers the versions stored since the last one, for the objects
// events named recently (kReofferMs) that still have events waiting: the versions held events
// claim exactly join without their bodies being read, the others are read in one walk of their
// chain. Memory: the joiner's bounds plus the managedFields entries of one version per object
// named in the last ten minutes (at most kMaxTrackedObjects).
class AuditLiveJoin
{
public:
    static constexpr std::size_t kMaxTrackedObjects = 20000;
    // Each flush looks for new versions of the objects events named this recently: a watch
    // delivers within seconds of the write. Objects named earlier had theirs offered already.
    static constexpr std::int64_t kReofferMs = 30'000;
    explicit AuditLiveJoin(HistoryStore &store, AuditJoinLimits limits = {});
    // Offers events (any order, duplicates allowed); counts a decode's skips. The first time an
    // object is named its versions are offered at once (an error when they cannot be read; the
    // events are held all the same and the next flush offers them).
    Status addEvents(const AuditDecodeResult &decoded, std::int64_t nowMs);
    // The same, the events that wait moved into the hold instead of copied.
    Status addEvents(AuditDecodeResult &&decoded, std::int64_t nowMs);
    // Offers the versions stored since the last flush (of objects with events still waiting for
    // theirs: a version that no held event can join is offered with the next event that names its
    // object), lets go of what waited too long, and stores
    // the joins and refused writes with `info` (store_info keys, e.g. the follower's position) in one
    // transaction. The report counts this flush's work only. `final`: every held event goes (the
    // watches have stopped, no version will come): those that fit nothing count as unmatched.
    Result<AuditImportReport> flush(std::int64_t nowMs, const std::map<std::string, std::string> &info = {},
                                    bool final = false);
    std::size_t trackedObjects() const { return m_tracked.size(); }
    const AuditJoiner &joiner() const { return m_joiner; }

private:
    struct Incarnation {
        std::int64_t lastSeq = 0; // the last version offered
        // Its entries, so the next version's writers are known: none before the first version
        // and after one that could not be read. Not read (previousRead false) when an exact claim
        // took it without its body, or it is the version before the hold: read when needed.
        std::optional<AuditPredecessor> previous;
        bool previousRead = true;
    };
    struct Tracked {
        AuditObjectKey key;
        std::int64_t lastEventMs = 0;
        std::map<std::string, Incarnation> byUid;
        bool offered = false; // an offer of its versions succeeded once: until then every flush tries
    };
    std::vector<Status> offerNewVersions(const std::vector<Tracked *> &tracked, std::int64_t nowMs);
    std::vector<Status> offerGroup(const std::vector<Tracked *> &tracked, std::int64_t nowMs);
    void makeRoom();
    Status offerIncarnation(Tracked &t, const HistoryObject &object, const std::vector<VersionInfo> &infos,
                            std::int64_t nowMs, std::vector<AuditVersion> &batch);
    Status readUnclaimed(Tracked &t, const HistoryObject &object, const std::vector<VersionInfo> &infos,
                         std::size_t start, const std::vector<std::size_t> &unclaimed,
                         std::vector<AuditVersion> &batch);
    void collect(AuditJoinOutput out);

    HistoryStore &m_store;
    AuditJoiner m_joiner;
    AuditJoinLimits m_limits;
    std::map<std::string, Tracked> m_tracked; // by auditObjectMapKey()
    AuditImportReport m_report;
    std::map<std::pair<std::string, std::string>, AuditJoin> m_joins;
    std::vector<AuditAttempt> m_attempts;
    RecordedScopes m_scopes; // reread each flush: a recorder may add scopes
};

// Reads an audit log as the API server's log backend writes it (JSON lines), plain or gzip
// (rotated logs compressed by logrotate), in 1 MiB chunks: `onChunk` gets each chunk's decoded
// events and skips. Memory: one chunk and one partial line (at most kMaxAuditEventBytes).
Status readAuditLogFile(const std::string &path, const std::function<Status(AuditDecodeResult &)> &onChunk);

// import one file into `importer`: readAuditLogFile + add + noteDecode.
Status importAuditLogFile(const std::string &path, AuditImporter &importer);

} // namespace fieldscope::core
