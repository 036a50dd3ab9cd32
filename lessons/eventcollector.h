#pragma once
// The watch a lesson step keeps on its object while it runs (lessons/lessonrunner.cpp): every
// event the server sends, so the report can show that each write arrived whole.
#include "core/lessons/lessonreport.h"
#include "kube/resource.h"
#include "kube/transport.h"

#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace fieldscope::lessons {

// A watch on one object's events, collected while a step runs.
class EventCollector
{
public:
    EventCollector(kube::Transport &transport, const kube::ResourceInfo &r, const std::string &ns,
                   const std::string &name, const std::string &fromResourceVersion);
    ~EventCollector();
    EventCollector(const EventCollector &) = delete;
    EventCollector &operator=(const EventCollector &) = delete;

    // Waits until the event for `resourceVersion` arrived (the watch caught up), at most `limit`.
    std::vector<core::LessonEvent> until(const std::string &resourceVersion, std::chrono::milliseconds limit,
                                         const std::atomic<bool> &stop);

private:
    struct State {
        std::mutex mutex;
        std::string buffer;
        std::vector<core::LessonEvent> events;
        bool ended = false;
        std::string error;
    };
    kube::Transport &m_transport;
    std::shared_ptr<State> m_state = std::make_shared<State>();
    kube::Transport::RequestId m_id = 0;
};

} // namespace fieldscope::lessons
