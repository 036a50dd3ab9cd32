#include "lessons/eventcollector.h"

#include "core/base/jsonread.h"
#include "kube/apierror.h"

#include <algorithm>
#include <thread>

namespace fieldscope::lessons {

using namespace kube;
using core::Json;
using core::LessonEvent;
using core::Result;
using Clock = std::chrono::steady_clock;

EventCollector::EventCollector(Transport &transport, const ResourceInfo &r, const std::string &ns,
                               const std::string &name, const std::string &fromResourceVersion)
    : m_transport(transport)
{
    HttpRequest req;
    req.path = r.collectionPath(ns) + "?watch=1&allowWatchBookmarks=false&timeoutSeconds=600&fieldSelector="
             + urlEncode("metadata.name=" + name)
             + (fromResourceVersion.empty() ? "" : "&resourceVersion=" + fromResourceVersion);
    req.streaming = true;
    req.isWatchStart = true;
    auto state = m_state;
    m_id = transport.start(
        std::move(req),
        [state](Result<HttpResponse> r) {
            std::lock_guard lock(state->mutex);
            state->ended = true;
            if (r.ok() && !isSuccess(r->status))
                state->error = errorFromResponse(*r, "watch").describe();
        },
        [state](const HttpResponse &, std::string_view bytes) {
            std::lock_guard lock(state->mutex);
            state->buffer.append(bytes);
            for (std::size_t nl; (nl = state->buffer.find('\n')) != std::string::npos;) {
                auto event = core::parseJson(std::string_view(state->buffer).substr(0, nl));
                state->buffer.erase(0, nl + 1);
                const auto type = event ? core::stringAt(*event, "/type") : std::nullopt;
                if (!type)
                    continue;
                const auto object = event->find("object"); // an object: stringAt found its "type"
                LessonEvent e{*type, {}, object != event->end() ? *object : Json()};
                e.resourceVersion = core::stringAt(e.object, "/metadata/resourceVersion").value_or(std::string());
                state->events.push_back(std::move(e));
            }
            return true;
        });
}

EventCollector::~EventCollector()
{
    m_transport.cancel(m_id);
}

std::vector<LessonEvent> EventCollector::until(const std::string &resourceVersion, std::chrono::milliseconds limit,
                                               const std::atomic<bool> &stop)
{
    const auto deadline = Clock::now() + limit;
    for (;;) {
        {
            std::lock_guard lock(m_state->mutex);
            const bool caughtUp = std::any_of(m_state->events.begin(), m_state->events.end(),
                                              [&](const LessonEvent &e) {
                                                  return e.resourceVersion == resourceVersion;
                                              });
            if (caughtUp || m_state->ended || Clock::now() > deadline || stop.load())
                return m_state->events;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
}

} // namespace fieldscope::lessons
