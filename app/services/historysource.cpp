#include "app/services/historysource.h"

#include "app/services/settings.h"
#include "app/services/threadreaper.h"
#include "core/base/boundary.h"

#include <QCryptographicHash>
#include <QFutureWatcher>
#include <QLoggingCategory>
#include <QStandardPaths>
#include <QSysInfo>
#include <QtConcurrent/QtConcurrentRun>

#include <algorithm>
#include <mutex>
#include <thread>

namespace fieldscope::app {

namespace {

Q_LOGGING_CATEGORY(lcHistorySource, "fieldscope.app.history")

struct LoadResult {
    std::vector<models::HistoryRow> rows;
    QString error;
    bool missing = false;     // nothing recorded yet (no database, or no version of the object)
    std::int64_t omitted = 0; // older versions left out (maxVersions)
};

LoadResult loadRows(const std::string &path, const core::ObjectQuery &query, std::int64_t maxVersions)
{
    auto store = core::HistoryStore::open(path, core::HistoryStore::OpenMode::ReadOnly);
    if (!store && core::isSharedHistoryLocation(path) && store.error().category != core::ErrorCategory::NotFound)
        return {{}, QString::fromStdString("history unavailable: " + store.error().describe()), false};
    if (!store)
        return {{}, {}, true}; // the recorder has not created the file (or the shared store) yet
    // The rows only: the versions' objects are read one at a time when shown (HistoryVersions).
    std::int64_t omitted = 0;
    auto loaded = core::attributedHistory(**store, query, maxVersions, &omitted);
    if (!loaded)
        return {{}, QString::fromStdString(loaded.error().describe()), false};
    if (loaded->empty())
        return {{}, {}, true};
    // Who made the versions, where audit events were joined; a damaged audit table costs only that.
    auto audit = models::historyAudit(**store, *loaded);
    if (!audit)
        qCWarning(lcHistorySource, "%s", audit.error().describe().c_str());
    return {models::historyRows(*loaded, audit ? &*audit : nullptr), {}, false, omitted};
}

} // namespace

namespace {
QString safeFileName(const QString &contextName)
{
    QString safe = contextName;
    for (QChar &c : safe)
        if (!c.isLetterOrNumber() && c != u'-' && c != u'_' && c != u'.')
            c = u'_';
    return safe.isEmpty() ? QStringLiteral("default") : safe;
}
} // namespace

std::string clusterIdentityOf(const kube::ResolvedConfig &config)
{
    QCryptographicHash h(QCryptographicHash::Sha256);
    h.addData(QByteArray::fromStdString(config.server));
    h.addData(QByteArrayView("\n"));
    h.addData(QCryptographicHash::hash(config.caPem, QCryptographicHash::Sha256));
    return "sha256:" + h.result().toHex().toStdString();
}

QString historyFolder()
{
    return QStandardPaths::writableLocation(QStandardPaths::GenericDataLocation)
         + QStringLiteral("/fieldscope/history");
}

QString historyDatabaseFor(const QString &contextName, const std::string &identity)
{
    const QString id = QString::fromStdString(identity).section(u':', -1).left(12);
    return historyFolder() + u'/' + safeFileName(contextName) + u'-' + id + QStringLiteral(".db");
}

QString historyLocationFor(const QString &contextName, const std::string &identity)
{
    const QString shared = Settings::sharedHistoryUrl();
    if (!shared.isEmpty() && core::isSharedHistoryLocation(shared.toStdString()))
        return shared.section(u'#', 0, 0) + u'#' + QString::fromStdString(identity);
    return historyDatabaseFor(contextName, identity);
}

core::Result<QString> historyLocationForContext(const QString &kubeconfig, const QString &context)
{
    kube::LoadOptions load;
    load.explicitPath = kubeconfig.toStdString();
    auto config = kube::Kubeconfig::load(load);
    if (!config)
        return config.error();
    auto resolved = config->resolve(context.toStdString());
    if (!resolved)
        return resolved.error();
    return historyLocationFor(QString::fromStdString(resolved->contextName), clusterIdentityOf(*resolved));
}

bool isSharedHistoryLocation(const QString &location)
{
    return core::isSharedHistoryLocation(location.toStdString());
}

std::string recorderNameFor(const char *what)
{
    QString user = qEnvironmentVariable("USER");
    if (user.isEmpty())
        user = qEnvironmentVariable("LOGNAME");
    return QStringLiteral("%1@%2 (%3)")
        .arg(QLatin1String(what), QSysInfo::machineHostName(), user.isEmpty() ? QStringLiteral("?") : user)
        .toStdString();
}

std::vector<std::string> legacyHistoryDatabasesFor(const QString &contextName)
{
    const QString file = safeFileName(contextName) + QStringLiteral(".db");
    return {(historyFolder() + u'/' + file).toStdString(),
            (QStandardPaths::writableLocation(QStandardPaths::AppDataLocation) + QStringLiteral("/history/") + file)
                .toStdString()};
}

HistorySource::HistorySource(models::ObjectHistoryModel *model, QObject *parent)
    : QObject(parent), m_model(model), m_pool(new QThreadPool), m_maxVersions(core::kDefaultMaxListedVersions)
{
    m_pool->setMaxThreadCount(1);
    connect(model, &models::ObjectHistoryModel::olderRequested, this, &HistorySource::showOlder);
    m_coalesce.setSingleShot(true);
    m_coalesce.setInterval(250); // a burst of commits becomes one reload
    connect(&m_coalesce, &QTimer::timeout, this, &HistorySource::load);
}

// Shared with the listener thread, which outlives its source when a database is slow to answer:
// it posts only while `stop` is false, under the mutex stopListening() takes to set it.
struct HistorySource::Listener {
    HistorySource *source;
    std::mutex mutex;
    bool stop = false;

    bool stopped() // the thread's check between waits; unlocked reads would race with stop
    {
        std::lock_guard lock(mutex);
        return stop;
    }
    // Runs `f` on the GUI thread unless the source let go of this listener.
    template<class F>
    void post(F f)
    {
        std::lock_guard lock(mutex);
        if (!stop)
            QMetaObject::invokeMethod(source, std::move(f), Qt::QueuedConnection);
    }
    // setProblem() says each distinct problem once, however often an attempt repeats it.
    void problem(const std::string &why)
    {
        post([s = source, why = QString::fromStdString(why)] { s->setProblem(why); });
    }
    void sleepFor(int ms)
    {
        for (int t = 0; t < ms && !stopped(); t += 100)
            std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    void run(const std::string &location, const std::function<core::Status()> &probe);
    std::int64_t follow(core::HistoryStore &store, const std::function<core::Status()> &probe);
};

// The listener thread: one connection after another, each attempt after the backoff's wait.
void HistorySource::Listener::run(const std::string &location, const std::function<core::Status()> &probe)
{
    ReconnectBackoff backoff;
    while (!stopped()) {
        auto store = core::HistoryStore::open(location, core::HistoryStore::OpenMode::ReadOnly);
        if (!store) // no store of this cluster yet is no outage: the first recorder makes it
            problem(store.error().category == core::ErrorCategory::NotFound ? "" : store.error().describe());
        else
            backoff.listenedFor(follow(**store, probe));
        if (!stopped())
            sleepFor(backoff.failed());
    }
}

// Follows one open store's commits until its connection breaks or the source lets go; returns
// how long it listened (0: the LISTEN itself failed).
std::int64_t HistorySource::Listener::follow(core::HistoryStore &store, const std::function<core::Status()> &probe)
{
    // LISTEN before the reload that covers what was not announced to us. A server that refuses it
    // (a hot standby: "cannot execute LISTEN during recovery") refuses it again at once: the
    // caller waits as for a server that is away, never reconnecting in a loop.
    core::Result<std::string> listening = std::string();
    if (const core::Status refused = probe ? probe() : core::success(); !refused)
        listening = refused.error();
    else
        listening = store.waitForChange(0);
    if (!listening) {
        problem("cannot follow the team's commits: " + listening.error().describe());
        return 0;
    }
    problem("");
    if (!listening->empty())
        post([s = source] { s->reload(); });
    const auto since = std::chrono::steady_clock::now();
    while (!stopped()) {
        auto heard = store.waitForChange(250);
        if (!heard) {
            problem(heard.error().describe());
            break;
        }
        if (!heard->empty())
            post([s = source] { s->reload(); });
    }
    return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - since).count();
}

HistorySource::~HistorySource()
{
    ++m_generation;
    stopListening();
    reapWhenDone(std::exchange(m_pool, nullptr));
}

// Never waits for the thread (it may be inside a 10 s connect): after this returns it posts
// nothing, and it ends at its next check.
void HistorySource::stopListening()
{
    if (!m_listener)
        return;
    const std::shared_ptr<Listener> l = std::move(m_listener); // alive until unlocked below
    std::lock_guard lock(l->mutex);
    l->stop = true;
}

void HistorySource::setProblem(const QString &problem)
{
    if (problem == m_problem)
        return;
    m_problem = problem;
    Q_EMIT availabilityChanged(problem);
    if (!problem.isEmpty() && !m_key.isEmpty())
        m_model->clear(tr("History unavailable: %1").arg(problem));
    else if (problem.isEmpty())
        reload(); // commits made meanwhile were not announced to us
}

void HistorySource::startListening()
{
    stopListening();
    if (!isSharedHistoryLocation(m_path))
        return;
    m_listener = std::make_shared<Listener>();
    m_listener->source = this;
    std::thread([l = m_listener, location = m_path.toStdString(), probe = m_listenProbe] {
        l->run(location, probe);
    }).detach();
}

int ReconnectBackoff::failed()
{
    const int wait = m_nextMs;
    m_nextMs = std::min(m_nextMs * 2, kMaxMs);
    return wait;
}

void ReconnectBackoff::listenedFor(std::int64_t ms)
{
    if (ms >= kHealthyMs)
        m_nextMs = kInitialMs;
}

void HistorySource::show(const core::ObjectQuery &query, const QString &uid)
{
    m_query = query;
    const QString key = QString::fromStdString(query.resource + '/' + query.namespace_ + '/' + query.name);
    if (key != m_key)
        m_maxVersions = core::kDefaultMaxListedVersions;
    m_key = key;
    m_uids = {uid.toStdString()};
    if (m_model->key() != m_key)
        m_model->clear(tr("Loading the recorded history…"));
    m_coalesce.stop();
    m_again = false;
    m_loading = false; // a load for another object still running is dropped when it finishes
    load();
}

void HistorySource::setDatabase(const QString &path)
{
    if (path == m_path && m_versions)
        return;
    m_path = path;
    startListening();
    // One reader (and cache) per database, kept across reloads: the versions being read survive
    // a commit that reloads the rows.
    m_versions = path.isEmpty()
                   ? nullptr
                   : std::make_shared<models::HistoryVersions>(models::storeVersionReader(path.toStdString()));
}

void HistorySource::clear()
{
    ++m_generation;
    m_key.clear();
    m_uids.clear();
    m_coalesce.stop();
    m_loading = false;
    m_model->clear();
}

void HistorySource::onCommitted(const core::CommitReport &report)
{
    if (m_key.isEmpty())
        return;
    bool touched = !report.gaps.empty(); // gaps belong to scopes; they are rare: reload
    for (const auto &v : report.versions)
        touched = touched || m_uids.count(v.uid);
    if (touched && !m_coalesce.isActive())
        m_coalesce.start();
}

void HistorySource::showOlder()
{
    if (m_key.isEmpty())
        return;
    m_maxVersions += core::kDefaultMaxListedVersions;
    load();
}

void HistorySource::reload()
{
    if (!m_key.isEmpty() && !m_coalesce.isActive())
        m_coalesce.start();
}

void HistorySource::load()
{
    if (m_key.isEmpty())
        return;
    if (m_path.isEmpty()) {
        m_model->clear(tr("History is not recorded for this view."));
        return;
    }
    if (m_loading) { // one load at a time; the newest state is loaded once this one lands
        m_again = true;
        return;
    }
    m_loading = true;
    const int gen = ++m_generation;
    auto *w = new QFutureWatcher<LoadResult>(this);
    connect(w, &QFutureWatcherBase::finished, this, [this, w, gen, key = m_key] {
        w->deleteLater();
        if (gen != m_generation)
            return;
        m_loading = false;
        auto taken = core::takeResult(w->future(), "history load");
        LoadResult r = taken ? std::move(*taken) : LoadResult{};
        if (!taken)
            r.error = QString::fromStdString(taken.error().message);
        if (!r.error.isEmpty())
            m_model->clear(tr("Cannot read the recorded history: %1").arg(r.error));
        else if (r.missing)
            m_model->clear(tr("No version of this object is recorded yet."));
        else {
            for (const auto &row : r.rows)
                m_uids.insert(row.uid);
            m_model->setRows(key, std::move(r.rows), m_versions);
            m_model->setOlderNotShown(r.omitted);
        }
        Q_EMIT loaded();
        if (std::exchange(m_again, false))
            load();
    });
    w->setFuture(QtConcurrent::run(m_pool, [path = m_path.toStdString(), q = m_query, probe = m_loadProbe,
                                            max = m_maxVersions] {
        if (probe)
            probe();
        return loadRows(path, q, max);
    }));
}

} // namespace fieldscope::app
