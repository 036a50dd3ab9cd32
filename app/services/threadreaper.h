#pragma once
// Threads whose owner is gone but whose work is not: a tab closed while its audit step waits 30 s
// for a lock, a history load still inside the database. The owner hands its QThread (or its
// one-thread QThreadPool) here from its destructor and returns at once; the reaper deletes it on
// the GUI thread once its last piece of work has ended. Whatever that work still touches must be
// its own (captured by value or shared), never the owner's. At exit, finishOrphans() gives the
// rest a bounded time. Every function runs on the GUI thread.
#include <QDeadlineTimer>

class QThread;
class QThreadPool;

namespace fieldscope::app {

// Asks the thread to quit (its event loop ends after the slot in progress) and deletes it once
// it has finished; a thread that never started or has finished goes at once.
void reapWhenFinished(QThread *thread);
// Drops the pool's queued tasks and deletes it once the running one has returned. The pool must
// run one task at a time (maxThreadCount 1): the deletion is queued behind that task.
void reapWhenDone(QThreadPool *pool);
// Threads and pools handed over and not deleted yet.
int orphanCount();
// At exit, after the event loop: waits until `deadline` for the orphans and deletes those that
// finished; the rest are left to the process's end. Returns whether none was left.
bool finishOrphans(QDeadlineTimer deadline);

} // namespace fieldscope::app
