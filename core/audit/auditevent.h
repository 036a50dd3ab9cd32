#pragma once
// Kubernetes audit events (audit.k8s.io/v1 Event) decoded into a small value type that keeps the
// join keys and the "who" of a request and drops everything else: request and response bodies can
// hold Secret values, so of responseObject only metadata.resourceVersion, metadata.uid, the
// managedFields managers and, for a Status answer, its reason/message/details.uid are read.
// Three inputs: an EventList body (the webhook backend's POST), JSON lines (the log backend, and
// per-line exports whose line is an Event, such as EKS CloudWatch records), and one event.
// Everything is bounded (docs/audit.md, "Bounds"); junk is counted and skipped, never fatal.
// Pure functions and value types, no Qt, safe on any thread.
#include "core/base/json.h"
#include "core/base/result.h"
#include "core/history/historywho.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fieldscope::core {

// One event's JSON text may be at most 1 MiB (the API server caps a request body at 3 MiB and an
// event at level Metadata is under 2 KiB; events above this are RequestResponse bodies of large
// objects, whose keys we still cannot trust to be small).
inline constexpr std::size_t kMaxAuditEventBytes = 1u << 20;
// One EventList body (a webhook POST) may be at most 16 MiB.
inline constexpr std::size_t kMaxAuditListBytes = 16u << 20;
// At most this many items in one EventList. The API server sends at most
// --audit-webhook-batch-max-size (default 400) per POST; this leaves room for raised settings.
inline constexpr std::size_t kMaxAuditListItems = 10000;
// Nesting allowed in one event (a request body is a whole object, so the general JSON limit).
inline constexpr int kMaxAuditEventDepth = kMaxJsonDepth;
// A Status message kept for a refused write is cut to this many bytes.
inline constexpr std::size_t kMaxAuditMessageBytes = 4096;
// Problems described per decode call (the rest are only counted).
inline constexpr std::size_t kMaxAuditProblems = 20;

struct AuditObjectRef {
    std::string resource;   // plural: "configmaps"
    std::string namespace_; // "" for cluster-scoped objects
    std::string name;
    std::string apiGroup;   // "" for the core group
    std::string apiVersion; // the version only: "v1"
    std::string uid;
    std::string resourceVersion; // the request's precondition, not the version the write made
    std::string subresource;
    bool operator==(const AuditObjectRef &) const = default;
};

// One managedFields entry of the response object: who wrote as which manager, and when.
struct AuditManagerStamp {
    std::string manager;
    std::string operation; // "Apply" or "Update"
    std::string subresource;
    std::string time; // RFC 3339, whole seconds, as the server wrote it
    bool operator==(const AuditManagerStamp &) const = default;
};

struct AuditEvent {
    std::string auditID;
    std::string stage;      // RequestReceived, ResponseStarted, ResponseComplete, Panic
    std::string level;      // None, Metadata, Request, RequestResponse
    std::string verb;       // create, update, patch, delete, deletecollection, get, ...
    std::string requestURI; // query included
    bool hasObjectRef = false;
    AuditObjectRef objectRef;
    AuditUser user;
    bool hasImpersonatedUser = false;
    AuditUser impersonatedUser;
    std::string userAgent;
    std::vector<std::string> sourceIPs;
    int responseCode = 0; // 0: no responseStatus (stage RequestReceived)
    std::string responseReason;
    std::string responseMessage;          // responseStatus.message, else the Status answer's message
    std::string requestReceivedTimestamp; // as written (RFC 3339, microseconds)
    std::string stageTimestamp;
    std::int64_t requestReceivedMicros = 0; // since the Unix epoch; 0 when missing or unreadable
    std::int64_t stageMicros = 0;

    // From responseObject (level RequestResponse only): the object the write produced, or for a
    // delete the Status answer whose details.uid names the deleted object.
    bool hasResponseObject = false;
    std::string responseKind; // "ConfigMap", "Status", ...
    std::string responseResourceVersion;
    std::string responseUid;
    std::vector<AuditManagerStamp> responseManagers;

    bool operator==(const AuditEvent &) const = default;

    // The request's outcome is known (ResponseComplete or Panic): only those stages join.
    bool isFinal() const { return stage == "ResponseComplete" || stage == "Panic"; }
    bool succeeded() const { return responseCode >= 200 && responseCode < 300; }
    // create, update, patch, delete, deletecollection.
    bool isWrite() const;
    // The query says dryRun (nothing was stored).
    bool isDryRun() const;
    // The field manager the server used: fieldManager= from requestURI, else derived from the
    // User-Agent (auditFieldManagerFromUserAgent). "" for verbs without one (delete).
    std::string fieldManager() const;
};

// The value of one query parameter of a request URI, percent-decoded ('+' is a space, as Go's
// url.ParseQuery reads it); nullopt when absent.
std::optional<std::string> auditQueryParameter(std::string_view requestURI, std::string_view name);

// The default field manager the API server derives from a User-Agent when a request names none:
// the text before the first '/', without non-printable characters, cut to 128 bytes (Kubernetes
// staging/src/k8s.io/apiserver/pkg/endpoints/handlers/rest.go, prefixFromUserAgent).
std::string auditFieldManagerFromUserAgent(std::string_view userAgent);

// One event from its parsed JSON; `where` names it in errors ("line 3", "items[7]"). `inList`: an
// item of an EventList, which the API server writes without kind and apiVersion (they are the
// list's); any kind or apiVersion it does carry must still be the Event's.
Result<AuditEvent> decodeAuditEvent(const Json &event, std::string_view where, bool inList = false);
// The same from its text, refused above kMaxAuditEventBytes or kMaxAuditEventDepth.
Result<AuditEvent> decodeAuditEventText(std::string_view text, std::string_view where, bool inList = false);

// About what an event holds in memory (its strings and lists): what the webhook's queue and the
// joiner's hold are bounded by, since an event's user agent, URI and groups may each be large.
std::size_t auditEventBytes(const AuditEvent &e);

// What a decode call produced: the events, and the skipped entries counted and (the first
// kMaxAuditProblems) described.
struct AuditDecodeResult {
    std::vector<AuditEvent> events;
    std::int64_t skipped = 0;  // junk: not JSON, not an Event, wrong types, too large or too deep
    std::int64_t tooLarge = 0; // of skipped: above kMaxAuditEventBytes
    std::vector<std::string> problems;
    void skip(std::string problem);
    // Takes `other`'s events, counts and problems (each prefixed with `prefix`, at most
    // kMaxAuditProblems kept).
    void append(AuditDecodeResult &&other, const std::string &prefix = {});
};

// A webhook body: {"kind":"EventList","apiVersion":"audit.k8s.io/v1","items":[...]}. The whole body
// is an error when it is above kMaxAuditListBytes, not JSON, not an EventList or holds more than
// kMaxAuditListItems items; a bad item is skipped. Items are parsed one at a time, so memory
// follows the largest item, not the body.
Result<AuditDecodeResult> decodeAuditEventList(std::string_view body);

// JSON lines (the log backend's file, or exported records one per line). Empty lines are ignored;
// any other line that is not an Event is skipped. `firstLine` numbers lines in problems.
AuditDecodeResult decodeAuditLines(std::string_view text, std::int64_t firstLine = 1);

// Decodes a stream of JSON lines fed in arbitrary chunks (a file follower's reads). Holds at most
// one partial line of kMaxAuditEventBytes; a longer line is dropped as it streams past.
class AuditLineDecoder
{
public:
    // Appends decoded events and skips to `out`.
    void feed(std::string_view bytes, AuditDecodeResult &out);
    // End of input: a last line without a newline is decoded.
    void finish(AuditDecodeResult &out);
    std::int64_t lineNumber() const { return m_line; }

private:
    void takeLine(std::string_view line, AuditDecodeResult &out);
    std::string m_partial;
    bool m_overlong = false;
    std::int64_t m_line = 1;
};

} // namespace fieldscope::core
