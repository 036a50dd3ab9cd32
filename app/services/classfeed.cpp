#include "app/services/classfeed.h"

#include "app/services/classrequestdecode.h"
#include "app/services/threadreaper.h"
#include "core/base/boundary.h"

#include <QCoreApplication>
#include <QPointer>
#include <QThreadPool>

#include <algorithm>
#include <mutex>

namespace fieldscope::app {

namespace {

QString qs(const std::string &s)
{
    return QString::fromStdString(s);
}

bool sameClass(const ClassState &a, const ClassState &b)
{
    if (a.running != b.running || a.listen != b.listen || a.started != b.started || a.expires != b.expires
        || a.outDir != b.outDir || a.students.size() != b.students.size())
        return false;
    for (qsizetype i = 0; i < a.students.size(); ++i)
        if (a.students[i].name != b.students[i].name || a.students[i].kubeconfigPath != b.students[i].kubeconfigPath)
            return false;
    return true;
}

} // namespace

// The follower of one directory's audit log; one tick at a time uses it (the pool has one thread).
struct ClassFeed::Tail {
    std::mutex mutex;
    std::unique_ptr<ClassAuditTail> follower;
    QDateTime following; // the start time of the class being followed
};

ClassFeed::ClassFeed(QObject *parent) : QObject(parent), m_pool(new QThreadPool)
{
    m_pool->setMaxThreadCount(1);
    m_timer.setInterval(1000);
    connect(&m_timer, &QTimer::timeout, this, &ClassFeed::tick);
}

ClassFeed::~ClassFeed()
{
    reapWhenDone(std::exchange(m_pool, nullptr));
}

void ClassFeed::setClusterDir(const QString &dir)
{
    if (dir == m_dir)
        return;
    m_dir = dir;
    ++m_generation;
    m_busy = false;
    m_tail = std::make_shared<Tail>();
    const bool had = m_state.has_value();
    m_state.reset();
    if (had)
        Q_EMIT stateChanged();
    if (dir.isEmpty()) {
        m_timer.stop();
        return;
    }
    m_timer.start();
    tick();
}

void ClassFeed::pollNow()
{
    tick();
}

void ClassFeed::tick()
{
    if (m_busy || m_dir.isEmpty())
        return;
    m_busy = true;
    QPointer<ClassFeed> self(this);
    m_pool->start([self, tail = m_tail, dir = m_dir, generation = m_generation] {
        Tick result;
        const core::Status done = core::guarded("class feed", [&] { result = work(tail, dir); });
        if (!done)
            result.problem = qs(done.error().describe());
        // Posted to the application, not to `self`: the feed may be destroyed on the GUI thread
        // while this runs, and reading the guarded pointer here would race with that.
        QMetaObject::invokeMethod(
            qApp,
            [self, generation, r = std::move(result)]() mutable {
                if (self)
                    self->onTick(generation, std::move(r));
            },
            Qt::QueuedConnection);
    });
}

// On the pool's thread.
ClassFeed::Tick ClassFeed::work(const std::shared_ptr<Tail> &tail, const QString &dir)
{
    Tick out;
    auto state = readClassState(dir);
    if (!state) {
        std::lock_guard lock(tail->mutex);
        tail->follower.reset();
        return out; // no class here (yet): nothing to say
    }
    out.state = *state;
    std::lock_guard lock(tail->mutex);
    if (!state->running) {
        tail->follower.reset();
        return out;
    }
    if (!tail->follower || tail->following != state->started) {
        tail->follower = std::make_unique<ClassAuditTail>(dir, state->started);
        tail->following = state->started;
    }
    if (auto polled = tail->follower->poll(out.requests, state->started, kMaxBytesPerTick); !polled)
        out.problem = qs(polled.error().describe());
    return out;
}

void ClassFeed::onTick(int generation, Tick result)
{
    if (generation != m_generation)
        return;
    m_busy = false;
    const bool changed = result.state.has_value() != m_state.has_value()
                      || (result.state && !sameClass(*result.state, *m_state));
    m_state = std::move(result.state);
    if (changed)
        Q_EMIT stateChanged();
    if (!result.requests.isEmpty())
        Q_EMIT requestsArrived(result.requests);
    if (!result.problem.isEmpty())
        Q_EMIT failing(result.problem);
}

} // namespace fieldscope::app
