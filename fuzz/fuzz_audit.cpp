// Audit events as the webhook (an EventList body) and the log backend (JSON lines) deliver them,
// then joined against a fixed set of versions of one object, with ageing: core/audit/auditevent.h and
// core/audit/auditjoin.h on bytes we did not write.
#include "core/audit/auditevent.h"
#include "core/audit/auditjoin.h"

#include <cstdint>
#include <string_view>

using namespace fieldscope::core;

namespace {

std::vector<AuditVersion> fixedVersions()
{
    auto version = [](std::string rv, HistoryEventType type, std::vector<AuditVersionManager> managers) {
        AuditVersion v;
        v.object = {"", "configmaps", "team", "app"};
        v.uid = "a106590e-3af1-46b0-8ae3-c1a29c2f4ff6";
        v.resourceVersion = std::move(rv);
        v.eventType = type;
        v.observedAtMs = (1795615506ll + 12) * 1000;
        v.managers = std::move(managers);
        return v;
    };
    const std::int64_t t = 1795615506; // 2026-11-25T14:05:06Z, the create of tests/data/audit/rr-*
    return {
        version("227", HistoryEventType::Added, {{"kubectl-create", "Update", "", t, true}}),
        version("228", HistoryEventType::Modified,
                {{"kubectl-create", "Update", "", t, false}, {"kubectl-label", "Update", "", t + 1, true}}),
        version("229", HistoryEventType::Modified,
                {{"kubectl", "Apply", "", t + 2, true}, {"team-tool", "Update", "", t + 2, true}}),
        version("230", HistoryEventType::Deleted, {}),
    };
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    const std::string_view text(reinterpret_cast<const char *>(data), size);
    static const std::vector<AuditVersion> versions = fixedVersions();
    AuditJoinLimits limits;
    limits.maxHeldEvents = 64;
    limits.maxUnmatched = 16;
    AuditJoiner joiner(limits);
    if (auto list = decodeAuditEventList(text); list.ok())
        (void)joiner.addEvents(list->events, 0);
    (void)joiner.addVersions({versions[0], versions[1]}, 1000);
    AuditLineDecoder lines;
    AuditDecodeResult decoded;
    lines.feed(text.substr(0, size / 2), decoded);
    lines.feed(text.substr(size / 2), decoded);
    lines.finish(decoded);
    (void)joiner.addEvents(decoded.events, 2000);
    (void)joiner.addEvents(decoded.events, 3000); // duplicates
    (void)joiner.addVersions({versions[2], versions[3]}, 4000);
    (void)joiner.expire(1000000000);
    return 0;
}
