#include "app/historysource.h"

#include "core/base/boundary.h"

#include <QCryptographicHash>
#include <QFutureWatcher>
#include <QLoggingCategory>
#include <QStandardPaths>
#include <QtConcurrent/QtConcurrentRun>

namespace fieldscope::app {

namespace {

Q_LOGGING_CATEGORY(lcHistorySource, "fieldscope.app.history")

struct LoadResult {
    std::vector<models::HistoryRow> rows;
    QString error;
    bool missing = false; // nothing recorded yet (no database, or no version of the object)
};

LoadResult loadRows(const std::string &path, const core::ObjectQuery &query)
{
    auto store = core::HistoryStore::open(path, core::HistoryStore::OpenMode::ReadOnly);
    if (!store)
        return {{}, {}, true}; // the recorder has not created the file yet
    // The rows only: the versions' objects are read one at a time when shown (HistoryVersions).
    auto loaded = core::attributedHistory(**store, query);
    if (!loaded)
        return {{}, QString::fromStdString(loaded.error().describe()), false};
    if (loaded->empty())
        return {{}, {}, true};
    // Who made the versions, where audit events were joined; a damaged audit table costs only that.
    auto audit = models::historyAudit(**store, *loaded);
    if (!audit)
        qCWarning(lcHistorySource, "%s", audit.error().describe().c_str());
    return {models::historyRows(*loaded, audit ? &*audit : nullptr), {}, false};
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

std::vector<std::string> legacyHistoryDatabasesFor(const QString &contextName)
{
    const QString file = safeFileName(contextName) + QStringLiteral(".db");
    return {(historyFolder() + u'/' + file).toStdString(),
            (QStandardPaths::writableLocation(QStandardPaths::AppDataLocation) + QStringLiteral("/history/") + file)
                .toStdString()};
}

HistorySource::HistorySource(models::ObjectHistoryModel *model, QObject *parent) : QObject(parent), m_model(model)
{
    m_pool.setMaxThreadCount(1);
    m_coalesce.setSingleShot(true);
    m_coalesce.setInterval(250); // a burst of commits becomes one reload
    connect(&m_coalesce, &QTimer::timeout, this, &HistorySource::load);
}

HistorySource::~HistorySource()
{
    ++m_generation;
    m_pool.waitForDone();
}

void HistorySource::show(const core::ObjectQuery &query, const QString &uid)
{
    m_query = query;
    m_key = QString::fromStdString(query.resource + '/' + query.namespace_ + '/' + query.name);
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
        }
        Q_EMIT loaded();
        if (std::exchange(m_again, false))
            load();
    });
    w->setFuture(QtConcurrent::run(&m_pool, [path = m_path.toStdString(), q = m_query, probe = m_loadProbe] {
        if (probe)
            probe();
        return loadRows(path, q);
    }));
}

} // namespace fieldscope::app
