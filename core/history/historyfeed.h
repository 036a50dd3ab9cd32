#pragma once
// HistoryFeed: the one mapping from the watch layer's batches of one scope to HistoryRecorder
// calls, shared by `fieldscope record` and the GUI. It decides how list and watch events become
// history event types, where the scope's resume point moves, and which honest gaps are stored:
// the relists the watcher reports, and the time before this run that nobody recorded.
//
// Thread: call feed() on the thread that receives the watcher's batches; it only enqueues (the
// recorder's writer thread does all disk I/O), so it is safe on the GUI thread.
#include "core/history/historywriter.h"
#include "core/objects/watchtypes.h"

namespace fieldscope::core {

class HistoryFeed
{
public:
    HistoryFeed(HistoryRecorder &recorder, WatchScope scope) : m_recorder(recorder), m_scope(std::move(scope)) {}

    // Enqueues the batch's gaps and versions; returns how many versions were handed over.
    std::size_t feed(const WatchBatch &batch);
    bool initialListDone() const { return m_initialDone; }
    const WatchScope &scope() const { return m_scope; }

    static constexpr const char *kNotRecordingReason = "not recording";

private:
    HistoryRecorder &m_recorder;
    WatchScope m_scope;
    bool m_started = false;
    bool m_initialDone = false;
};

HistoryEventType historyEventType(const ObjectVersion &version);

} // namespace fieldscope::core
