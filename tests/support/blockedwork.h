#pragma once
// Work that stays blocked until the test lets it go: a probe the code under test runs on its
// worker thread (a history load, an audit step, a file being read). A test can then say "the
// owner's destructor returned while its work was still blocked" without measuring any time. A
// watchdog lets the work go after 20 s, so that a destructor that waits for it ends the test with
// a failure (releasedByWatchdog()) rather than hanging it.
#include <QSemaphore>

#include <atomic>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>

namespace testsupport {

class BlockedWork
{
public:
    BlockedWork()
    {
        m_watchdog = std::thread([s = m_state] {
            std::unique_lock lock(s->mutex);
            if (!s->done.wait_for(lock, std::chrono::seconds(20), [&] { return s->released; })) {
                s->byWatchdog = true;
                s->open();
            }
        });
    }
    ~BlockedWork()
    {
        release();
        m_watchdog.join();
    }
    BlockedWork(const BlockedWork &) = delete;
    BlockedWork &operator=(const BlockedWork &) = delete;

    // Hand this to the code under test: each call blocks its thread until the work is let go
    // (later calls pass). It owns what it uses: it may run after this object is gone.
    std::function<void()> probe() const
    {
        return [s = m_state] {
            s->entered.release();
            s->gate.acquire();
            s->gate.release(); // the gate stays open for whoever comes next
        };
    }
    // Waits until the work is blocked in the probe.
    bool waitUntilEntered(int timeoutMs = 20000) { return m_state->entered.tryAcquire(1, timeoutMs); }
    // Lets the work go.
    void release()
    {
        std::lock_guard lock(m_state->mutex);
        m_state->open();
        m_state->done.notify_all();
    }
    // The watchdog let the work go: whatever the test waited for waited for the work.
    bool releasedByWatchdog() const
    {
        std::lock_guard lock(m_state->mutex);
        return m_state->byWatchdog;
    }

private:
    struct State {
        QSemaphore entered, gate;
        std::mutex mutex;
        std::condition_variable done;
        bool released = false, byWatchdog = false;
        void open() // under mutex
        {
            if (!std::exchange(released, true))
                gate.release();
        }
    };
    std::shared_ptr<State> m_state = std::make_shared<State>();
    std::thread m_watchdog;
};

} // namespace testsupport
