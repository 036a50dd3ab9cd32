#include "app/services/driftsource.h"

#include "app/services/threadreaper.h"
#include "core/base/boundary.h"
#include "core/drift/driftquery.h"

#include <QElapsedTimer>
#include <QFileInfo>
#include <QThreadPool>

#include <atomic>
#include <mutex>

namespace fieldscope::app {

// Shared by the source and its run on the worker. The run posts to the source only while
// `source` is set, under the mutex the source takes to let go of it: after cancel() or the
// destructor nothing more is posted, and what was posted before goes with the source's events.
struct DriftSource::Run {
    int number = 0;
    std::mutex mutex;
    DriftSource *source = nullptr;
    std::atomic<bool> superseded = false;

    void letGo()
    {
        superseded = true;
        std::lock_guard lock(mutex);
        source = nullptr;
    }
    // Runs f(source) on the GUI thread, unless the source let go of this run first.
    template<class F>
    void post(F f)
    {
        std::lock_guard lock(mutex);
        if (source)
            QMetaObject::invokeMethod(
                source, [s = source, f = std::move(f)]() mutable { f(s); }, Qt::QueuedConnection);
    }
};

// One read-only connection for every run: opened on the worker by the first run that needs it,
// reopened when the location changes, closed on the worker too (a PostgreSQL connection's close
// is a network round trip the GUI thread must not wait for).
struct DriftSource::Connection {
    std::string location;
    std::unique_ptr<core::HistoryStore> store;
    std::atomic<int> opens = 0;
};

namespace {

void addProblem(QStringList &problems, const QString &problem)
{
    if (problems.size() < DriftSource::kMaxProblems)
        problems << problem;
}

// One object: its JSON read, its recorded versions walked. A failure is its report's note, so
// one object that cannot be analysed costs that object only. `storeFailed`: set when the store
// itself failed (disk, network), not the object.
core::DriftReport analyseOne(core::HistoryStore *store, const DriftInput &in, QStringList &problems, bool &storeFailed)
{
    auto report = core::guarded("drift analysis", [&]() -> core::Result<core::DriftReport> {
        auto live = core::parseJson(std::string_view(in.json.constData(), std::size_t(in.json.size())));
        if (!live)
            return live.error();
        return core::analyseDrift(store, *live, in.object);
    });
    if (report)
        return std::move(*report);
    const std::string why = report.error().describe();
    const core::ErrorCategory category = report.error().category;
    storeFailed = storeFailed || category == core::ErrorCategory::Io || category == core::ErrorCategory::Network;
    addProblem(problems, QString::fromStdString(in.object.namespace_ + '/' + in.object.name + ": " + why));
    core::DriftReport failed;
    failed.object = in.object;
    failed.notes.push_back(why);
    return failed;
}

} // namespace

// The worker's whole run. A store that cannot be opened leaves managedFields to say what they can.
void DriftSource::work(const std::shared_ptr<Run> &run, Connection &connection, const std::string &location,
                       const std::vector<DriftInput> &objects, int batchSize, const std::function<void()> &probe)
{
    QStringList problems;
    if (connection.location != location || (!connection.store && !location.empty())) {
        connection.store.reset();
        connection.location = location;
        // A file not written yet (nothing recorded for this cluster so far) is no problem: the
        // next run looks again.
        const bool notRecordedYet = !location.empty() && !core::isSharedHistoryLocation(location)
                                 && !QFileInfo::exists(QString::fromStdString(location));
        if (!location.empty() && !notRecordedYet) {
            ++connection.opens;
            auto opened = core::HistoryStore::open(location, core::HistoryStore::OpenMode::ReadOnly);
            if (opened)
                connection.store = std::move(*opened);
            else
                addProblem(problems, QString::fromStdString("history unavailable: " + opened.error().describe()));
        }
    }
    core::HistoryStore *store = connection.store.get();
    bool storeFailed = false;
    std::vector<core::DriftReport> batch;
    QElapsedTimer sinceBatch;
    sinceBatch.start();
    for (const DriftInput &in : objects) {
        if (run->superseded)
            return;
        if (probe)
            probe();
        batch.push_back(analyseOne(store, in, problems, storeFailed));
        if (int(batch.size()) >= batchSize || sinceBatch.elapsed() >= 100) {
            run->post([n = run->number, b = std::move(batch)](DriftSource *s) { s->deliver(n, b); });
            batch = {};
            sinceBatch.restart();
        }
    }
    if (storeFailed)
        connection.store.reset(); // a broken connection (a restarted server) is opened again next run
    if (!batch.empty())
        run->post([n = run->number, b = std::move(batch)](DriftSource *s) { s->deliver(n, b); });
    run->post([n = run->number, problems](DriftSource *s) { s->finish(n, problems); });
}

DriftSource::DriftSource(QObject *parent)
    : QObject(parent), m_pool(new QThreadPool), m_connection(std::make_shared<Connection>())
{
    m_pool->setMaxThreadCount(1);
}

DriftSource::~DriftSource()
{
    cancel();
    // The last task closes the connection on the worker, after any run still queued.
    m_pool->start([connection = std::exchange(m_connection, nullptr)] { connection->store.reset(); });
    reapWhenDone(std::exchange(m_pool, nullptr));
}

int DriftSource::storeOpens() const
{
    return m_connection->opens;
}

void DriftSource::setDatabase(const QString &location)
{
    m_location = location;
}

int DriftSource::analyse(std::vector<DriftInput> objects)
{
    cancel();
    m_current = std::make_shared<Run>();
    m_current->number = ++m_run;
    m_current->source = this;
    m_running = true;
    m_pool->start([run = m_current, connection = m_connection, location = m_location.toStdString(),
                   objects = std::move(objects), batch = m_batchSize, probe = m_probe] {
        // The last line of defence of this thread: what work() did not catch ends the run.
        const core::Status done = core::guarded("drift run",
                                                [&] { work(run, *connection, location, objects, batch, probe); });
        if (!done)
            run->post([n = run->number, why = QString::fromStdString(done.error().describe())](DriftSource *s) {
                s->finish(n, {why});
            });
    });
    return m_run;
}

void DriftSource::cancel()
{
    if (m_current)
        std::exchange(m_current, nullptr)->letGo();
    m_running = false;
}

// A posted lambda reaches here only while its run is current: one that was let go of never
// posts again, and what it posted before carries its number, which no longer matches.
void DriftSource::deliver(int run, const std::vector<core::DriftReport> &reports)
{
    if (run == m_run && m_running)
        Q_EMIT reportsReady(run, reports);
}

void DriftSource::finish(int run, const QStringList &problems)
{
    if (run != m_run || !m_running)
        return;
    m_running = false;
    m_current.reset();
    Q_EMIT finished(run, problems);
}

} // namespace fieldscope::app
