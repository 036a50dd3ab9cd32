#pragma once
// ClassFeed: a running class (app/services/classroom.h) as the window sees it: the class's state
// and, as they happen, the requests its students send, read from the sandbox's audit log.
//
// Every tick (default 1 s) a task on a one-thread pool reads DIR/class/state.json (the class may
// be started or stopped from the command line too) and, while a class runs, what the audit log
// gained since the last tick (ClassAuditTail of app/services/classrequestdecode.h: it keeps its
// file offset across ticks and rotation, and reads at most kMaxBytesPerTick a tick, so a flood is
// taken in steps). The requests
// of students (group fieldscope:class) received since the class started go out as one batch a
// tick; a tick is never started while the previous one runs. When a class is first seen, the
// current log is read from about a minute before the class started (found by bisection), so a
// window opened mid-class counts what came before, and a 100 MB log costs a few reads.
//
// Lives on the GUI thread and waits for nothing; its destructor hands the pool to the reaper
// (app/services/threadreaper.h): a tick in flight owns what it reads.
#include "app/services/classrequestdecode.h"
#include "app/services/classroom.h"

#include <QList>
#include <QObject>
#include <QTimer>

#include <memory>
#include <optional>

class QThreadPool;

namespace fieldscope::app {

class ClassFeed : public QObject
{
    Q_OBJECT
public:
    static constexpr qint64 kMaxBytesPerTick = 16 << 20;

    explicit ClassFeed(QObject *parent = nullptr);
    ~ClassFeed() override;

    // The sandbox (or cluster) directory whose class to follow; "" stops following.
    void setClusterDir(const QString &dir);
    const QString &clusterDir() const { return m_dir; }
    void setInterval(int ms) { m_timer.setInterval(ms); }
    // A tick now (after a start or stop the window made), unless one is running.
    void pollNow();
    // The last state read; nullopt: no class in this directory.
    const std::optional<ClassState> &state() const { return m_state; }
    bool isRunning() const { return m_state && m_state->running; }

Q_SIGNALS:
    // The class appeared, ended, or its roster, listen address or expiry changed.
    void stateChanged();
    // Students' requests in the order the audit log has them (one batch per tick).
    void requestsArrived(const QList<fieldscope::app::ClassRequest> &batch);
    // Reading the log failed (the message names the file); the next tick tries again.
    void failing(const QString &message);

private:
    struct Tail;
    struct Tick {
        std::optional<ClassState> state;
        QList<ClassRequest> requests;
        QString problem;
    };
    static Tick work(const std::shared_ptr<Tail> &tail, const QString &dir);
    void tick();
    void onTick(int generation, Tick result);

    QString m_dir;
    QTimer m_timer;
    QThreadPool *m_pool;
    std::shared_ptr<Tail> m_tail; // the follower of m_dir; a new directory makes a new one
    std::optional<ClassState> m_state;
    int m_generation = 0; // ticks of an earlier directory are dropped
    bool m_busy = false;
};

} // namespace fieldscope::app
