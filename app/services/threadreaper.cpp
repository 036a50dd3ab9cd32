#include "app/services/threadreaper.h"

#include <QThread>
#include <QThreadPool>

#include <set>
#include <vector>

namespace fieldscope::app {

namespace {

// GUI thread only: filled by the reap functions, emptied as the orphans are destroyed.
std::set<QObject *> &orphans()
{
    static std::set<QObject *> all;
    return all;
}

void adopt(QObject *orphan)
{
    orphans().insert(orphan);
    QObject::connect(orphan, &QObject::destroyed, [orphan] { orphans().erase(orphan); });
}

} // namespace

void reapWhenFinished(QThread *thread)
{
    if (!thread)
        return;
    adopt(thread);
    // Connected before the check below: a thread that finishes in between is deleted by one of
    // the two (a second deleteLater is dropped with the object).
    QObject::connect(thread, &QThread::finished, thread, &QObject::deleteLater);
    thread->quit();
    if (!thread->isRunning())
        thread->deleteLater();
}

void reapWhenDone(QThreadPool *pool)
{
    if (!pool)
        return;
    Q_ASSERT(pool->maxThreadCount() == 1);
    adopt(pool);
    pool->clear();
    // Runs after the task in progress; ~QThreadPool then waits only for this one to return.
    pool->start([pool] { pool->deleteLater(); });
}

int orphanCount()
{
    return int(orphans().size());
}

bool finishOrphans(QDeadlineTimer deadline)
{
    const std::vector<QObject *> left(orphans().begin(), orphans().end());
    for (QObject *o : left) {
        if (auto *thread = qobject_cast<QThread *>(o); thread && thread->wait(deadline))
            delete thread;
        else if (auto *pool = qobject_cast<QThreadPool *>(o); pool && pool->waitForDone(int(deadline.remainingTime())))
            delete pool;
    }
    return orphans().empty();
}

} // namespace fieldscope::app
