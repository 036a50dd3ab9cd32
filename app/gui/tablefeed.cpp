#include "app/gui/tablefeed.h"

#include "app/gui/clusternotices.h"
#include "app/gui/clustersession.h"
#include "core/base/boundary.h"
#include "widgets/clusterview.h"
#include "widgets/detailpane.h"
#include "widgets/objecttablepage.h"

#include <QElapsedTimer>
#include <QFutureWatcher>
#include <QtConcurrent/QtConcurrentRun>

#include <algorithm>
#include <utility>

namespace fieldscope::app {

namespace {

constexpr qint64 kApplyBudgetMs = 8; // half a 60 Hz frame

// "Deployments", "Ingresses", "NetworkPolicies"; the plural resource name when the kind's own
// plural is not obvious.
QString pluralTitle(const kube::ResourceInfo &info)
{
    const QString kind = QString::fromStdString(info.kind);
    QString res = QString::fromStdString(info.resource);
    if (kind.isEmpty())
        return res;
    const QString lower = kind.toLower();
    if (res == lower + u's')
        return kind + u's';
    if (res == lower + QLatin1String("es"))
        return kind + QLatin1String("es");
    if (lower.endsWith(u'y') && res == lower.chopped(1) + QLatin1String("ies"))
        return kind.chopped(1) + QLatin1String("ies");
    return res;
}

// Events [from, from + count) of `b`; what ends the batch (gaps, a completed list, its resume
// point) goes with its last slice only, so the slices applied in order equal the batch.
core::WatchBatch sliceOf(const core::WatchBatch &b, std::size_t from, std::size_t count)
{
    core::WatchBatch out;
    out.scope = b.scope;
    out.observedAtMs = b.observedAtMs;
    const std::size_t to = std::min(b.events.size(), from + count);
    out.events.assign(b.events.begin() + std::ptrdiff_t(from), b.events.begin() + std::ptrdiff_t(to));
    if (to == b.events.size()) {
        out.gaps = b.gaps;
        out.initialListComplete = b.initialListComplete;
        out.resourceVersion = b.resourceVersion;
    }
    return out;
}

// What the status bar shows of one watcher; times become steady-clock points so the view can
// keep "3 s ago" and "retry in 4 s" current on its own.
widgets::WatchHealth healthOf(const kube::Watcher &w, const QString &name, const QString &purpose, qint64 objects)
{
    using S = kube::Watcher::State;
    using H = widgets::WatchHealth::State;
    const auto now = widgets::WatchHealth::Clock::now();
    widgets::WatchHealth h;
    h.name = name;
    h.purpose = purpose;
    h.objects = objects;
    h.expected = w.listTotalEstimate();
    h.resourceVersion = QString::fromStdString(w.lastResourceVersion());
    h.detail = w.stateDetail();
    for (const std::string &warning : w.serverWarnings())
        h.warnings << QString::fromStdString(warning);
    switch (w.state()) {
    case S::Idle: h.state = H::Idle; break;
    case S::Listing: h.state = H::Listing; break;
    case S::Watching: h.state = H::Live; break;
    case S::Relisting: h.state = H::Resyncing; break;
    case S::BackingOff: h.state = H::BackingOff; break;
    case S::Failed: h.state = H::Failed; break;
    }
    if (const qint64 ago = w.lastEventMsecsAgo(); ago >= 0)
        h.lastEvent = now - std::chrono::milliseconds(ago);
    if (const qint64 in = w.retryInMsecs(); in >= 0 && h.state == H::BackingOff)
        h.retryAt = now + std::chrono::milliseconds(in);
    return h;
}

// The identity column (format "name") and the age ("Age", or "Created At" for types without a
// printer) repeat fixed columns; the server's age is text frozen at response time, ours ticks.
bool duplicatesFixedColumn(const kube::TableColumn &c)
{
    return c.format == "name" || c.name == "Age" || (c.name == "Created At" && c.type == "date");
}

bool sameColumns(const std::vector<models::ServerColumn> &a, const std::vector<models::ServerColumn> &b)
{
    return std::equal(a.begin(), a.end(), b.begin(), b.end(), [](const auto &x, const auto &y) {
        return x.name == y.name && x.type == y.type && x.format == y.format && x.priority == y.priority
            && x.description == y.description;
    });
}

} // namespace

TableFeed::TableFeed(widgets::ClusterView *view, ClusterSession &session, ClusterNotices &notices)
    : m_view(view), m_session(session), m_notices(notices)
{
    m_pool.setMaxThreadCount(1); // keeps batches in order
    // Finished batches are applied from one zero timer: several finishing in one event-loop turn
    // share that turn's budget instead of taking one each (a LIST page is prepared in slices).
    m_drainTimer.setSingleShot(true);
    m_drainTimer.setInterval(0);
    connect(&m_drainTimer, &QTimer::timeout, this, [this] { drainPrepared(m_generation); });
}

void TableFeed::stopWatching()
{
    m_tableFetcher.reset();
    m_watcher.reset();
    m_eventsWatcher.reset();
    m_namespaceWatcher.reset();
}

bool TableFeed::columnsSettled() const
{
    using S = kube::TableFetcher::State;
    return !m_tableFetcher || (m_tableFetcher->state() != S::Idle && m_tableFetcher->state() != S::Listing);
}

bool TableFeed::isBusy() const
{
    // Between two pages of a list nothing waits here, but more is on its way: busy.
    const bool listing = m_watcher
                      && (m_watcher->state() == kube::Watcher::State::Listing
                          || m_watcher->state() == kube::Watcher::State::Relisting);
    return !m_preparing.empty() || listing;
}

// --- which resource is shown ----------------------------------------------------------------------

void TableFeed::showResource(const QString &resource)
{
    m_wantedResource = resource;
    const kube::Discovery *discovery = m_session.discovery();
    if (!discovery || !discovery->hasSnapshot())
        return; // onDiscoveryProgress() shows it as soon as discovery can tell what it is
    const auto *info = discovery->snapshot().resolve(resource.toStdString());
    if (!info && discovery->isRunning()) {
        // The snapshot came from the cache; the server, asked now, may know the type.
        m_view->setWatchStatus(tr("Looking for resource type \"%1\"…").arg(resource), false);
        return;
    }
    if (!info) {
        m_view->setWatchStatus(tr("The server has no resource type \"%1\"").arg(resource), false);
        Q_EMIT failed(tr("The server has no resource type \"%1\"").arg(resource));
        return;
    }
    showResolved(*info);
}

// Before the whole of discovery is in, the wanted resource is watched as soon as no group still
// to answer could change what its name means.
void TableFeed::onDiscoveryProgress()
{
    if (m_watcher)
        return;
    const auto decided = m_session.discovery()->decide(m_wantedResource.toStdString());
    if (decided && *decided) {
        m_session.showConnected();
        showResolved(**decided);
    }
}

void TableFeed::onDiscovered(bool first)
{
    if (first) {
        watchNamespaces();
        if (!m_currentUid.isEmpty()) {
            // The current object's events watch needs the events resource, known only now.
            const QString uid = std::exchange(m_currentUid, QString());
            onCurrentObject(uid);
        }
    }
    showResource(m_wantedResource);
    noteLoaded();
}

// Loaded: the shown resource's first list is in the table and the server's resource types are
// known. The rows may come first (the watch starts as soon as discovery can name the resource);
// what follows `loaded` (the demo namespace, lessons, screenshots) resolves other types too.
void TableFeed::noteLoaded()
{
    if (m_loaded || !m_listed || !m_session.discovery() || !m_session.discovery()->hasSnapshot())
        return;
    m_loaded = true;
    Q_EMIT loaded();
}

// It may have started before discovery finished (showResolved from a decided name), so restart
// what it shows.
void TableFeed::restartShownWatch()
{
    if (!m_watcher || !m_shownInfo)
        return;
    m_shownKind.clear();
    showResolved(kube::ResourceInfo(*m_shownInfo));
}

void TableFeed::showResolved(const kube::ResourceInfo &resolved)
{
    // A copy on purpose: `resolved` may live in the discovery snapshot a refresh below replaces.
    const kube::ResourceInfo copy = resolved; // NOLINT(performance-unnecessary-copy-initialization)
    const kube::ResourceInfo *info = &copy;
    m_shownInfo = copy;
    const QString qualified = QString::fromStdString(info->qualifiedName());
    if (qualified == m_shownKind && m_watcher)
        return;
    ++m_generation;
    m_preparing.clear();
    m_loaded = false;
    m_listed = false;
    m_shownKind = qualified;
    m_session.setShownKind(m_shownKind, m_listed);
    m_watcher.reset();
    m_tableFetcher.reset();
    onCurrentObject({});
    m_model.clear();
    kube::WatchScope scope;
    scope.resource = *info;
    kube::WatcherOptions opts;
    opts.estimateStreamingLists = true; // the status bar's progress has a total on modern servers too
    m_watcher = std::make_unique<kube::Watcher>(m_session.client(), scope, opts);
    Q_EMIT watchStarting(scope); // recording follows the new watch from its first batch
    connect(m_watcher.get(), &kube::Watcher::batchReady, this, &TableFeed::onBatch);
    followHealth(m_watcher.get(), false); // drainPrepared updates after the table has the batch
    m_view->setWatchStatus({}, false);    // the watches speak for the connection from here on
    m_view->setObjectModel(&m_model, pluralTitle(*info), info->namespaced, qualified);
    m_view->setCurrentKind(qualified);
    m_watcher->start();
    startTableFetch(scope);
    updateStatus();
}

void TableFeed::watchNamespaces()
{
    const auto *info = m_session.discovery()->snapshot().resolve("namespaces");
    if (!info)
        return;
    kube::WatchScope scope;
    scope.resource = *info;
    m_namespaceWatcher = std::make_unique<kube::Watcher>(m_session.client(), scope);
    connect(m_namespaceWatcher.get(), &kube::Watcher::batchReady, this, [this](const core::WatchBatch &b) {
        for (const auto &e : b.events) {
            if (e.type == core::WatchEventType::Deleted)
                m_namespaceNames.remove(QString::fromStdString(e.name));
            else
                m_namespaceNames.insert(QString::fromStdString(e.name));
        }
        m_view->tablePage()->setAvailableNamespaces(m_namespaceNames.values());
    });
    followHealth(m_namespaceWatcher.get(), true);
    m_namespaceWatcher->start();
}

// --- watch -> prepare (batch worker) -> apply (here) ----------------------------------------------

void TableFeed::onBatch(const core::WatchBatch &batch)
{
    const int gen = m_generation;
    auto shared = std::make_shared<const core::WatchBatch>(batch);
    std::int64_t batchBytes = 0;
    for (const auto &e : shared->events)
        batchBytes += std::int64_t(e.json.size());
    if (m_watcher && m_watcher->listTotalEstimate() > 0)
        m_model.expectRows(std::size_t(m_watcher->listTotalEstimate()));
    // Recording takes the same shared copy (on a thread of its own, ClusterRecording::onBatch).
    Q_EMIT batchArrived(shared, batchBytes);
    // A LIST page holds thousands of objects: it is prepared and applied in slices, so that one
    // event-loop turn applies no more than drainPrepared's budget (150,000 Pods: bench_window).
    for (std::size_t from = 0; from == 0 || from < shared->events.size(); from += kApplySliceEvents) {
        const bool whole = shared->events.size() <= kApplySliceEvents;
        m_preparing.push_back(QtConcurrent::run(&m_pool, [shared, from, whole] {
            return models::ObjectTableModel::prepare(whole ? *shared : sliceOf(*shared, from, kApplySliceEvents));
        }));
        auto *w = new QFutureWatcher<models::PreparedBatch>(this);
        connect(w, &QFutureWatcherBase::finished, this, [this, w, gen] {
            w->deleteLater();
            if (gen == m_generation && !m_drainTimer.isActive())
                m_drainTimer.start();
        });
        w->setFuture(m_preparing.back());
    }
}

void TableFeed::drainPrepared(int generation)
{
    if (generation != m_generation)
        return;
    bool completed = false;
    std::vector<std::string> touched;
    // A burst (a relist, a rollout) can leave many finished batches: apply them within a frame's
    // budget per event-loop turn so input and painting keep up; the rest follows on the next turn.
    QElapsedTimer budget;
    budget.start();
    while (!m_preparing.empty() && m_preparing.front().isFinished()) {
        if (budget.elapsed() >= kApplyBudgetMs) {
            m_drainTimer.start();
            break;
        }
        auto prepared = core::takeResult(m_preparing.front(), "preparing a batch of the object table");
        m_preparing.pop_front();
        if (!prepared) {
            // Those changes are not in the table: say so instead of showing it as current.
            m_notices.addDistinctWarning(
                tr("The object table missed a batch of changes and may be out of date until the next list: %1")
                    .arg(QString::fromStdString(prepared.error().message)));
            m_notices.show();
            continue;
        }
        completed |= prepared->batch.initialListComplete;
        applyToTable(std::move(*prepared), touched);
    }
    refreshDetail(touched);
    if (m_listed || completed)
        m_session.kindsModel()->setCount(m_shownKind, m_model.rowCount());
    if (completed && !m_listed) {
        m_listed = true;
        m_session.setShownKind(m_shownKind, m_listed);
        noteLoaded();
    }
    updateStatus();
}

// One prepared batch into the table; `touched` collects the current object's uid if it changed.
void TableFeed::applyToTable(models::PreparedBatch prepared, std::vector<std::string> &touched)
{
    if (!m_currentUid.isEmpty()) {
        const std::string current = m_currentUid.toStdString();
        for (const auto &e : prepared.batch.events)
            if (e.uid == current)
                touched.push_back(e.uid);
    }
    Q_EMIT applying(prepared.batch); // open editors learn of the versions the table is about to show
    noteTableVersions(prepared.batch);
    const bool listed = prepared.batch.initialListComplete;
    m_model.applyPrepared(std::move(prepared));
    // After the rows are in: the fetcher then drops cells of uids the model does not show.
    if (listed && m_tableFetcher)
        m_tableFetcher->noteWatchListed();
}

// --- the detail pane: the current object, its events ------------------------------------------

// The detail pane follows the table's current object; its events come from a watch on core/v1
// events with fieldSelector involvedObject.uid (a field selector the events API supports).
void TableFeed::onCurrentObject(const QString &uid)
{
    if (uid == m_currentUid)
        return;
    m_currentUid = uid;
    m_eventsWatcher.reset();
    m_events.clear();
    updateStatus(); // the status bar drops the previous object's events watch
    const int row = uid.isEmpty() ? -1 : m_model.rowOf(uid.toStdString());
    m_view->detailPane()->showObject(row < 0 ? QString() : uid, row < 0 ? QByteArray() : m_model.objectJson(row));
    Q_EMIT currentObjectChanged(row < 0 ? QString() : uid, row); // the History tab
    watchEventsOf(uid, row);
}

void TableFeed::watchEventsOf(const QString &uid, int row)
{
    const kube::Discovery *discovery = m_session.discovery();
    const auto *info = discovery && !uid.isEmpty() ? discovery->snapshot().find("", "events") : nullptr;
    if (!info)
        return;
    kube::WatchScope scope;
    scope.resource = *info;
    scope.namespace_ = row < 0 ? std::string() : std::string(m_model.row(row).namespace_());
    scope.fieldSelector = "involvedObject.uid=" + uid.toStdString();
    kube::WatcherOptions opts;
    opts.tryWatchList = false;
    m_eventsWatcher = std::make_unique<kube::Watcher>(m_session.client(), scope, opts);
    connect(m_eventsWatcher.get(), &kube::Watcher::batchReady, &m_events, &models::EventTableModel::applyBatch);
    followHealth(m_eventsWatcher.get(), true);
    m_eventsWatcher->start();
}

void TableFeed::refreshDetail(const std::vector<std::string> &touched)
{
    if (touched.empty())
        return;
    const int row = m_model.rowOf(m_currentUid.toStdString());
    if (row >= 0)
        m_view->detailPane()->showObject(m_currentUid, m_model.objectJson(row));
}

// --- the status bar -------------------------------------------------------------------------------

// Every watch this cluster runs, the shown resource first (the status bar's main line).
void TableFeed::updateStatus()
{
    QList<widgets::WatchHealth> watches;
    if (m_watcher)
        watches << healthOf(*m_watcher, QString::fromStdString(m_watcher->scope().describe()), tr("object table"),
                            m_model.rowCount());
    if (m_namespaceWatcher)
        watches << healthOf(*m_namespaceWatcher, tr("namespaces"), tr("namespace selector"), m_namespaceNames.size());
    if (m_eventsWatcher) {
        const int row = m_model.rowOf(m_currentUid.toStdString());
        const QString object = row < 0 ? m_currentUid : models::viewText(m_model.row(row).name());
        watches << healthOf(*m_eventsWatcher, tr("events of %1").arg(object), tr("Events tab"), m_events.rowCount());
    }
    if (!watches.isEmpty())
        m_view->setWatches(watches);
}

// Status follows every watcher. Queued for state changes: a watcher starts its retry timer just
// after it announces BackingOff, and the countdown reads that timer.
void TableFeed::followHealth(kube::Watcher *watcher, bool batches)
{
    connect(watcher, &kube::Watcher::stateChanged, this, &TableFeed::updateStatus, Qt::QueuedConnection);
    connect(watcher, &kube::Watcher::listProgress, this, &TableFeed::updateStatus);
    connect(watcher, &kube::Watcher::warned, this, &TableFeed::updateStatus);
    if (batches) // the last event time and the count move with each batch
        connect(watcher, &kube::Watcher::batchReady, this, &TableFeed::updateStatus);
}

// --- server Table columns (`as=Table`, docs/architecture.md "Server columns") --------------------
// The watch decides which rows exist; the TableFetcher adds the server's columns to them, joined
// by uid, and keeps them current from the versions the watch reports (kube/tablefetcher.h).

void TableFeed::startTableFetch(const kube::WatchScope &scope)
{
    m_tableColumnOf.clear();
    m_tableFetcher = std::make_unique<kube::TableFetcher>(m_session.client(), scope);
    connect(m_tableFetcher.get(), &kube::TableFetcher::columnsChanged, this, &TableFeed::onTableColumns);
    connect(m_tableFetcher.get(), &kube::TableFetcher::rowsReady, this, &TableFeed::onTableRows);
    connect(m_tableFetcher.get(), &kube::TableFetcher::unwatchedRowsDropped, &m_model,
            &models::ObjectTableModel::dropUnjoinedCells);
    // unsupported() needs nothing: the fixed columns stay, and the watch reports real errors.
    m_tableFetcher->start();
}

void TableFeed::onTableColumns(const std::vector<kube::TableColumn> &columns)
{
    std::vector<models::ServerColumn> shown;
    m_tableColumnOf.clear();
    for (std::size_t i = 0; i < columns.size(); ++i) {
        const auto &c = columns[i];
        if (duplicatesFixedColumn(c))
            continue;
        m_tableColumnOf.push_back(int(i));
        shown.push_back({QString::fromStdString(c.name), QString::fromStdString(c.type),
                         QString::fromStdString(c.format), QString::fromStdString(c.description), c.priority});
    }
    // Same columns again (a relist): keep them, so the header layout is not rebuilt.
    if (!sameColumns(shown, m_model.serverColumns()))
        m_model.setServerColumns(shown);
}

void TableFeed::onTableRows(const std::vector<kube::TableRow> &rows)
{
    if (m_tableColumnOf.empty())
        return;
    std::vector<models::ServerRow> out;
    out.reserve(rows.size());
    for (const auto &r : rows) {
        QVariantList cells;
        cells.reserve(qsizetype(m_tableColumnOf.size()));
        for (const int i : m_tableColumnOf)
            cells.push_back(r.cells.value(i));
        out.push_back({r.uid, std::move(cells), r.resourceVersion});
    }
    m_model.applyServerRows(std::move(out));
}

void TableFeed::noteTableVersions(const core::WatchBatch &batch)
{
    if (!m_tableFetcher)
        return;
    for (const auto &e : batch.events) {
        if (e.type == core::WatchEventType::Deleted)
            m_tableFetcher->forget(e.uid);
        else
            m_tableFetcher->noteVersion(e.uid, e.namespace_, e.name, e.resourceVersion);
    }
}

} // namespace fieldscope::app
