#pragma once
// Inside core/audit (and its tests): the two decoders behind decodeAuditEventText and
// decodeAuditEventList. The indexed one (core/history/versioncodec.h's JsonIndex: one pass, no
// DOM) reads an event in the shape the API server writes it and gives up at anything else; the DOM
// one then decides, with the skips and errors it always gave. Each event was parsed into a DOM
// before (nlohmann builds every node of a RequestResponse body, managedFields and data included),
// which held the webhook to ~28k events/s (bench/bench_audit.cpp). tst_auditeventindex holds the
// two to the same results on hostile input.
#include "core/audit/auditevent.h"
#include "core/history/versioncodec.h"

#include <optional>
#include <string>
#include <string_view>

namespace fieldscope::core {

// Cuts at most `limit` bytes without splitting a UTF-8 sequence.
std::string cutAuditUtf8(std::string s, std::size_t limit);

// The event at the index's root, or nullopt when it is not certainly a well-formed event (not an
// object, a member of the wrong type, not an Event, no auditID or stage): the caller then asks the
// DOM decoder, which names the problem. Never laxer than decodeAuditEvent.
std::optional<AuditEvent> decodeIndexedAuditEvent(const JsonIndex &index, bool inList);

// decodeAuditEventText with the caller's index, whose node room is reused from event to event.
Result<AuditEvent> decodeAuditEventText(std::string_view text, std::string_view where, bool inList, JsonIndex &scratch);

// The DOM decoders, unchanged: parseJson + decodeAuditEvent, and the EventList validated whole by
// nlohmann's SAX parser then decoded item by item. The reference the indexed path is held to.
Result<AuditEvent> decodeAuditEventTextDom(std::string_view text, std::string_view where, bool inList);
Result<AuditDecodeResult> decodeAuditEventListDom(std::string_view body);

} // namespace fieldscope::core
