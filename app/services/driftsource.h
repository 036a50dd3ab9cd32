#pragma once
// DriftSource: the drift of live objects (core/drift/driftquery.h), computed off the GUI thread
// for the window's Drift view and the Ownership tab's drift badge. Runs read the cluster's history
// store through one read-only connection on a one-thread pool (a HistoryStore is one connection
// used by one thread at a time; WAL lets it read while the recorder commits), opened by the first
// run and kept while the location stays the same (the badge runs at every reload of the selected
// object's history), analyse the objects one at a time and post their reports back in batches. A newer run supersedes
// the one in progress: that one stops before its next object and whatever it posted is dropped. Lives on the GUI
// thread; its destructor never waits (app/services/threadreaper.h): a run in flight owns what it reads and ends on its
// own.
#include "core/drift/driftreport.h"

#include <QByteArray>
#include <QObject>
#include <QStringList>

#include <functional>
#include <memory>
#include <string>
#include <vector>

class QThreadPool;

namespace fieldscope::app {

// One live object to analyse: its identity and its JSON as the table holds it (shared, not copied).
struct DriftInput {
    core::DriftObjectRef object;
    QByteArray json;
};

class DriftSource : public QObject
{
    Q_OBJECT
public:
    explicit DriftSource(QObject *parent = nullptr);
    ~DriftSource() override;

    // The cluster's history store ("" = none: managedFields alone say what they can).
    void setDatabase(const QString &location);
    QString database() const { return m_location; }
    // Starts a run over `objects`, superseding the one in progress; returns its number.
    int analyse(std::vector<DriftInput> objects);
    // Drops the run in progress: it stops before its next object and nothing more arrives.
    void cancel();
    bool isRunning() const { return m_running; }
    int currentRun() const { return m_run; }
    // Reports per batch (tests make it small); a batch also goes out after 100 ms.
    void setBatchSize(int objects) { m_batchSize = objects > 0 ? objects : 1; }
    // Tests: runs on the worker before each object, where a damaged store would throw.
    void setProbe(std::function<void()> probe) { m_probe = std::move(probe); }
    // How many times a run opened the store (a changed location or a failed open opens again).
    int storeOpens() const;

Q_SIGNALS:
    // Reports of run `run`, in the order its objects were given.
    void reportsReady(int run, const std::vector<fieldscope::core::DriftReport> &reports);
    // Run `run` analysed every object; `problems`: what limited it for people to read (the store
    // could not be read, an object that failed), at most kMaxProblems lines.
    void finished(int run, const QStringList &problems);

public:
    static constexpr int kMaxProblems = 20;

private:
    struct Run;
    struct Connection; // the open store, touched only on the pool's thread
    static void work(const std::shared_ptr<Run> &run, Connection &connection, const std::string &location,
                     const std::vector<DriftInput> &objects, int batchSize, const std::function<void()> &probe);
    void deliver(int run, const std::vector<core::DriftReport> &reports);
    void finish(int run, const QStringList &problems);

    QString m_location;
    QThreadPool *m_pool; // one run at a time; handed to the reaper when this is destroyed
    std::shared_ptr<Run> m_current;
    std::shared_ptr<Connection> m_connection;
    int m_run = 0;
    bool m_running = false;
    int m_batchSize = 64;
    std::function<void()> m_probe;
};

} // namespace fieldscope::app
