#include "app/gui/clusterdrift.h"

#include "app/gui/clusterrecording.h"
#include "app/gui/objectwrites.h"
#include "app/gui/tablefeed.h"
#include "core/base/boundary.h"
#include "models/objectviewmodel.h"
#include "widgets/clusterview.h"
#include "widgets/detailpane.h"
#include "widgets/driftview.h"
#include "widgets/namespaceselector.h"
#include "widgets/objecttablepage.h"

#include <QFutureWatcher>
#include <QLineEdit>
#include <QTimer>
#include <QtConcurrent/QtConcurrentRun>

#include <set>

namespace fieldscope::app {

namespace {

// A recorder commits about every 250 ms while an object changes: at most one badge analysis per
// pause, however many reloads arrive.
constexpr int kReloadPauseMs = 400;

// Where a Give back writes: the field's JSON Pointer in the object as the table has it now, when
// it still holds the value the Drift view showed (else the row is out of date: nothing is sent).
struct GiveBackTarget {
    std::string pointer;
    std::vector<core::PointerPin> pins; // the list items on the way are still the ones the path names
    bool missing = false;               // the field is not in the object any more
    bool changed = false;               // it has another value than the one shown
};

GiveBackTarget findTarget(const QByteArray &json, const core::FieldPath &path, const core::Json &shown)
{
    GiveBackTarget t;
    auto live = core::parseJson(std::string_view(json.constData(), std::size_t(json.size())));
    const core::Json *node = nullptr;
    if (!live || !path.resolve(*live, &t.pointer, &node, &t.pins) || !node) {
        t.missing = true;
        return t;
    }
    t.changed = !core::jsonEqual(*node, shown);
    return t;
}

} // namespace

ClusterDrift::ClusterDrift(widgets::ClusterView *view, const TableFeed &table, ClusterRecording &recording,
                           ObjectWrites &writes)
    : m_view(view), m_table(table), m_recording(recording), m_writes(writes)
{
    wireView();
    wireParts(recording, writes);
}

// The view may outlive this part: it lets go of the model and of the badge first.
ClusterDrift::~ClusterDrift()
{
    if (m_view) {
        m_view->driftView()->setModel(nullptr);
        m_view->detailPane()->setDrift({});
    }
}

void ClusterDrift::wireView()
{
    widgets::DriftView *drift = m_view->driftView();
    drift->setModel(&m_model);
    connect(m_view, &widgets::ClusterView::driftViewOpened, this, &ClusterDrift::refresh);
    connect(drift, &widgets::DriftView::refreshRequested, this, &ClusterDrift::refresh);
    connect(drift, &widgets::DriftView::findingActivated, this, &ClusterDrift::showFinding);
    connect(drift, &widgets::DriftView::giveBackConfirmed, this, &ClusterDrift::giveBack);
    connect(m_view->tablePage()->namespaceSelector(), &widgets::NamespaceSelector::selectionChanged, this, [this] {
        if (m_view && m_view->isDriftViewShown())
            refresh();
    });
    connect(&m_viewSource, &DriftSource::reportsReady, this,
            [this](int, const std::vector<core::DriftReport> &reports) { m_model.addReports(reports); });
    connect(&m_viewSource, &DriftSource::finished, this, [this](int, const QStringList &problems) {
        m_model.endRun();
        if (m_view)
            m_view->driftView()->showFinished(problems);
        Q_EMIT refreshed();
    });
}

void ClusterDrift::wireParts(ClusterRecording &recording, ObjectWrites &writes)
{
    // Another kind: its rows are for another list; computed again once that list is in.
    connect(&m_table, &TableFeed::watchStarting, this, [this] {
        m_viewSource.cancel();
        m_model.clear();
        m_scopeKey.clear();
        if (m_view && m_view->isDriftViewShown())
            refresh(); // waits for the list
    });
    connect(&m_table, &TableFeed::applying, this, &ClusterDrift::onBatchApplying);
    // The badge follows the selected object, and its recorded history as it reloads (a commit of
    // a new version, an audit join naming who made it).
    connect(&m_table, &TableFeed::currentObjectChanged, this, [this](const QString &uid) {
        m_currentUid = uid;
        m_reloadPause.stop(); // a new selection is analysed now
        analyseCurrent();
    });
    m_reloadPause.setSingleShot(true);
    m_reloadPause.setInterval(kReloadPauseMs);
    connect(&m_reloadPause, &QTimer::timeout, this, &ClusterDrift::analyseCurrent);
    connect(recording.historySource(), &HistorySource::loaded, this, [this] {
        if (!m_reloadPause.isActive()) // started by the first reload, not pushed back by the next
            m_reloadPause.start();
    });
    connect(&m_objectSource, &DriftSource::reportsReady, this,
            [this](int, const std::vector<core::DriftReport> &reports) {
                if (!m_view || reports.empty() || QString::fromStdString(reports.front().object.uid) != m_currentUid)
                    return;
                m_view->detailPane()->setDrift(reports.front());
                Q_EMIT objectDriftShown();
            });
    connect(&writes, &ObjectWrites::setIfUnchangedFinished, this, &ClusterDrift::onWritten);
}

DriftInput ClusterDrift::inputOf(int row) const
{
    const auto &object = m_table.rows().row(row);
    const kube::ResourceInfo &r = m_table.watcher()->scope().resource;
    return {
        {r.qualifiedName(), std::string(object.namespace_()), std::string(object.name()), std::string(object.uid())},
        object.json()};
}

// The table's objects in the namespaces it shows (all its rows for a cluster-scoped kind).
std::vector<DriftInput> ClusterDrift::shownObjects(QString *scope, QString *scopeKey, QString *oneNamespace) const
{
    const kube::ResourceInfo &r = m_table.watcher()->scope().resource;
    const QStringList chosen = r.namespaced ? m_view->tablePage()->viewModel()->namespaces() : QStringList();
    std::set<std::string> namespaces;
    for (const QString &ns : chosen)
        namespaces.insert(ns.toStdString());
    const QString kind = QString::fromStdString(r.qualifiedName());
    *scope = !r.namespaced      ? kind
           : chosen.isEmpty()   ? tr("%1 in all namespaces").arg(kind)
           : chosen.size() == 1 ? tr("%1 in %2").arg(kind, chosen.first())
                                : tr("%1 in %2 namespaces").arg(kind).arg(chosen.size());
    *scopeKey = kind + u'\x1f' + chosen.join(u'\x1f');
    *oneNamespace = chosen.size() == 1 ? chosen.first() : QString();
    std::vector<DriftInput> objects;
    const models::ObjectTableModel &rows = m_table.rows();
    for (int i = 0; i < rows.rowCount(); ++i)
        if (namespaces.empty() || namespaces.count(std::string(rows.row(i).namespace_())))
            objects.push_back(inputOf(i));
    return objects;
}

void ClusterDrift::refresh()
{
    if (!m_view)
        return;
    widgets::DriftView *drift = m_view->driftView();
    if (!m_table.watcher() || !m_table.isListed()) { // the rows are computed from the listed objects
        m_pendingRefresh = true;
        drift->showMessage(tr("Waiting for the objects to be listed…"));
        return;
    }
    m_pendingRefresh = false;
    QString scope, key, oneNamespace;
    std::vector<DriftInput> objects = shownObjects(&scope, &key, &oneNamespace);
    if (key != m_scopeKey) { // other objects: the old rows would mislead while the new come
        m_model.clear();
        m_scopeKey = key;
    }
    m_model.setShownNamespace(oneNamespace);
    drift->setScope(scope);
    drift->showComputing(int(objects.size()));
    m_model.beginRun();
    m_viewSource.setDatabase(m_recording.historyDatabase());
    m_viewSource.analyse(std::move(objects));
}

// Runs after the batch is in the table (queued), so a refresh reads the new versions.
void ClusterDrift::onBatchApplying(const core::WatchBatch &batch)
{
    bool again = m_pendingRefresh;
    if (!m_refreshAfterWrite.isEmpty())
        for (const auto &e : batch.events)
            if (QString::fromStdString(e.uid) == m_refreshAfterWrite) {
                m_refreshAfterWrite.clear();
                again = true;
            }
    if (again)
        QTimer::singleShot(0, this, &ClusterDrift::refreshWhenListed);
}

void ClusterDrift::refreshWhenListed()
{
    if (m_table.isListed() && m_view && m_view->isDriftViewShown())
        refresh();
}

void ClusterDrift::analyseCurrent()
{
    const int row = m_currentUid.isEmpty() || !m_table.watcher() ? -1
                                                                 : m_table.rows().rowOf(m_currentUid.toStdString());
    if (row < 0) {
        m_objectSource.cancel();
        if (m_view)
            m_view->detailPane()->setDrift({});
        return;
    }
    m_objectSource.setDatabase(m_recording.historyDatabase());
    m_objectSource.analyse({inputOf(row)});
}

// The object in the table, its History tab, and the version whose write made the field what it is.
void ClusterDrift::showFinding(const core::DriftFinding &finding)
{
    if (!m_view)
        return;
    widgets::ObjectTablePage *page = m_view->tablePage();
    const QString uid = QString::fromStdString(finding.object.uid);
    if (!page->selectUid(uid)) { // hidden by the quick filter
        page->filterEdit()->clear();
        if (!page->selectUid(uid)) {
            m_view->driftView()->showMessage(
                tr("%1 is not in the table any more: Refresh.").arg(QString::fromStdString(finding.object.name)));
            return;
        }
    }
    m_view->detailPane()->setCurrentTab(widgets::DetailPane::HistoryTab);
    if (!finding.now.resourceVersion.empty())
        m_view->detailPane()->historyPanel()->selectVersion(uid, QString::fromStdString(finding.now.resourceVersion));
}

// Finds the field in the object as the table has it now (on a worker: the object may be large),
// then writes the applied value with a test of the value shown.
void ClusterDrift::giveBack(const core::DriftFinding &finding)
{
    const QString uid = QString::fromStdString(finding.object.uid);
    const int row = m_table.watcher() ? m_table.rows().rowOf(finding.object.uid) : -1;
    if (row < 0) {
        if (m_view)
            m_view->driftView()->showMessage(tr("Not written: the object is not in the table any more."));
        return;
    }
    auto *w = new QFutureWatcher<GiveBackTarget>(this);
    connect(w, &QFutureWatcherBase::finished, this, [this, w, uid, finding] {
        w->deleteLater();
        auto target = core::takeResult(w->future(), "finding the field to give back");
        QString problem;
        if (!target)
            problem = QString::fromStdString(target.error().describe());
        else if (target->missing)
            problem = tr("the field is not in the object any more. Refresh the Drift view.");
        else if (target->changed)
            problem = tr("the field changed since the drift was computed. Refresh the Drift view.");
        if (!problem.isEmpty()) {
            if (m_view)
                m_view->driftView()->showMessage(tr("Not written: %1").arg(problem));
            return;
        }
        m_givingBack = uid;
        m_writes.setIfUnchanged(uid, QString::fromStdString(target->pointer), finding.now.value, finding.appliedValue,
                                target->pins);
    });
    w->setFuture(QtConcurrent::run([json = m_table.rows().row(row).json(), path = finding.path,
                                    shown = finding.now.value] { return findTarget(json, path, shown); }));
}

void ClusterDrift::onWritten(bool written, const QString &message)
{
    if (m_givingBack.isEmpty()) // the Ownership tab's "Set only if unchanged…"
        return;
    if (written)
        m_refreshAfterWrite = std::exchange(m_givingBack, QString());
    m_givingBack.clear();
    if (m_view)
        m_view->driftView()->showMessage(message);
}

} // namespace fieldscope::app
