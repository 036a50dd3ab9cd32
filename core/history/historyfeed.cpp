#include "core/history/historyfeed.h"

namespace fieldscope::core {

HistoryEventType historyEventType(const ObjectVersion &v)
{
    if (v.type == WatchEventType::Deleted)
        return HistoryEventType::Deleted;
    if (v.fromList)
        return HistoryEventType::Listed;
    return v.type == WatchEventType::Added ? HistoryEventType::Added : HistoryEventType::Modified;
}

std::size_t HistoryFeed::feed(const WatchBatch &b)
{
    for (const auto &g : b.gaps)
        m_recorder.recordGap(m_scope, g.fromResourceVersion, g.toResourceVersion, g.reason, b.observedAtMs);
    std::vector<WatchEvent> events;
    events.reserve(b.events.size());
    for (const auto &e : b.events)
        events.push_back({historyEventType(e), e.json.toStdString(), b.observedAtMs});
    const std::size_t n = events.size();
    // A completed list (first or after a relist) is a resume point; watch events move it
    // themselves inside the store.
    const bool listed = b.initialListComplete || !b.gaps.empty();
    // Only the first list of this run can follow a stretch nobody recorded (later relists carry
    // their own gap from the watcher): its first and its completing batch say so.
    const bool firstList = !m_initialDone && (!m_started || b.initialListComplete);
    m_started = true;
    m_initialDone = m_initialDone || b.initialListComplete;
    m_recorder.record(m_scope, std::move(events), listed ? b.resourceVersion : std::string(),
                      firstList ? std::string(kNotRecordingReason) : std::string());
    return n;
}

} // namespace fieldscope::core
