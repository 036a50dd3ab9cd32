#pragma once
// Who made a recorded version, and the writes the server refused: the values the history store
// keeps (docs/audit.md). The audit-event decoding and the join that produce them live in
// core/audit/; the store and its readers need only these types.
#include "core/base/json.h"
#include "core/base/result.h"
#include "core/history/historytypes.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fieldscope::core {

// Microseconds since the Unix epoch of an RFC 3339 time ("2026-11-25T13:54:07.175327Z", offsets
// allowed, fraction optional); nullopt when it is not one.
std::optional<std::int64_t> parseRfc3339Micros(std::string_view s);

struct AuditUser {
    std::string username;
    std::string uid;
    std::vector<std::string> groups;
    bool operator==(const AuditUser &) const = default;
};

// The object a version or an event is about.
struct AuditObjectKey {
    std::string group; // "" for the core group
    std::string resource;
    std::string namespace_;
    std::string name;
    bool operator==(const AuditObjectKey &) const = default;
    std::string toString() const; // "configmaps/team/app", "deployments.apps/prod/web"
};

// The key of a recorded incarnation (the group from its apiVersion).
AuditObjectKey auditObjectKeyOf(const HistoryObject &object);

// Contested: two or more audit events from different people each name this exact
// resourceVersion. Whoever can post events (a webhook client, a log writer) chooses their
// contents and their times, so no claim wins: every claim is kept and none is picked.
enum class AuditMatch { Exact, Probable, Ambiguous, Contested };
const char *auditMatchName(AuditMatch m); // "exact", "probable", "ambiguous", "contested"

// What is kept of an event for a join or an attempt: no bodies.
struct AuditWho {
    AuditUser user;
    bool hasImpersonatedUser = false;
    AuditUser impersonatedUser;
    std::string userAgent;
    std::vector<std::string> sourceIPs;
    std::string verb;
    std::string requestURI;
    std::string fieldManager;
    std::string auditID;
    std::string requestReceivedTimestamp;
    std::string stageTimestamp;
    int responseCode = 0;
    bool operator==(const AuditWho &) const = default;
};

// The one shape of a who, for `history -o json` (docs/cli.md) and the store: user, groups,
// impersonatedUser (null when none), impersonatedGroups, userAgent, sourceIPs, verb, requestURI,
// auditID, fieldManager, requestReceivedTimestamp, stageTimestamp, responseCode.
Json auditWhoJson(const AuditWho &who);
// safeDump(auditWhoJson(who)), byte for byte, appended to `out` without building the DOM (the store
// writes one per join candidate and per refused write; the DOM and its dump were most of that).
void appendAuditWhoJsonText(std::string &out, const AuditWho &who);
// safeDump of a JSON array of auditWhoJson of each, the same way.
std::string auditWhosJsonText(const std::vector<AuditWho> &whos);
// Back from that shape with type checks: a history file may have been written by anyone.
Result<AuditWho> auditWhoFromJson(const Json &json, std::string_view where);
// "alice", "alice as system:serviceaccount:team:deployer": who acted, for one line of text.
std::string auditActingName(const AuditWho &who);

// A version's join. Emitted again whenever it changes (a late event adds a candidate): the latest
// probable or ambiguous emission for a uid + resourceVersion replaces earlier ones; an exact one
// is final, and a second exact one from someone else makes the version contested (the store
// keeps both claims, historystoreaudit.cpp).
struct AuditJoin {
    AuditObjectKey object;
    std::string uid;
    std::string resourceVersion;
    AuditMatch match = AuditMatch::Probable;
    std::vector<AuditWho> candidates; // one for exact and probable, two or more for ambiguous and contested
    bool moreCandidates = false;      // more events fitted than AuditJoinLimits::maxCandidates
    bool operator==(const AuditJoin &) const = default;
};

// A refused write (403, 409, 422 on an object): never seen by a watch.
struct AuditAttempt {
    AuditObjectKey object; // name is empty for a refused create the server did not read
    std::string uid;       // objectRef.uid when the request named one
    AuditWho who;
    int code = 0;
    std::string reason;  // AlreadyExists, Conflict, Invalid, Forbidden
    std::string message; // the Status message when the event carries it (level RequestResponse)
    bool operator==(const AuditAttempt &) const = default;
};

} // namespace fieldscope::core
