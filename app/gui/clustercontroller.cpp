#include "app/gui/clustercontroller.h"

#include "widgets/clusterview.h"
#include "widgets/detailpane.h"
#include "widgets/objecttablepage.h"

namespace fieldscope::app {

ClusterController::ClusterController(widgets::ClusterView *view, QObject *parent)
    : QObject(parent)
    , m_view(view)
    , m_notices(view)
    , m_session(view, m_notices)
    , m_table(view, m_session, m_notices)
    , m_recording(view, m_session, m_table, m_notices)
    , m_writes(view, m_session, m_table, m_recording, m_table.batchWorker())
    , m_drift(view, m_table, m_recording, m_writes)
{
    wireParts();
    wireView(view);
}

// Between the parts (all direct connections: each runs where the sender emits, in that order).
void ClusterController::wireParts()
{
    // Recording starts when connected, before discovery can start the shown watch it follows.
    connect(&m_session, &ClusterSession::connected, &m_recording, &ClusterRecording::onConnected);
    connect(&m_session, &ClusterSession::discoveryProgressed, &m_table, &TableFeed::onDiscoveryProgress);
    connect(&m_session, &ClusterSession::discovered, &m_table, &TableFeed::onDiscovered);
    connect(&m_table, &TableFeed::watchStarting, &m_recording, &ClusterRecording::followWatch);
    connect(&m_table, &TableFeed::batchArrived, &m_recording, &ClusterRecording::onBatch);
    connect(&m_table, &TableFeed::currentObjectChanged, &m_recording, &ClusterRecording::showHistory);
    connect(&m_table, &TableFeed::applying, &m_writes, &ObjectWrites::noteServerVersions);
    connect(&m_recording, &ClusterRecording::secretValuesChosen, this, &ClusterController::setRecordSecretValues);
    // What the parts tell the window, said by this controller.
    connect(&m_session, &ClusterSession::failed, this, &ClusterController::failed);
    connect(&m_table, &TableFeed::failed, this, &ClusterController::failed);
    connect(&m_table, &TableFeed::loaded, this, &ClusterController::loaded);
    connect(&m_recording, &ClusterRecording::memoryReturnStarted, this, &ClusterController::memoryReturnStarted);
    connect(&m_recording, &ClusterRecording::memoryReturned, this, &ClusterController::memoryReturned);
    connect(&m_writes, &ObjectWrites::deleteFinished, this, &ClusterController::deleteFinished);
    connect(&m_writes, &ObjectWrites::setIfUnchangedFinished, this, &ClusterController::setIfUnchangedFinished);
}

// The view shows the parts' models and asks the parts for what the person chose.
void ClusterController::wireView(widgets::ClusterView *view)
{
    connect(view, &widgets::ClusterView::resourceKindChosen, &m_table, &TableFeed::showResource);
    view->setKindsModel(m_session.kindsModel());
    view->detailPane()->setEventsModel(m_table.eventsModel());
    view->detailPane()->setHistoryModel(m_recording.historyModel());
    connect(view->tablePage(), &widgets::ObjectTablePage::currentObjectChanged, &m_table, &TableFeed::onCurrentObject);
    view->detailPane()->setEditable(true);
    connect(view->detailPane(), &widgets::DetailPane::editRequested, &m_writes, &ObjectWrites::openEditor);
    connect(view->detailPane(), &widgets::DetailPane::revertRequested, &m_writes, &ObjectWrites::openRevert);
    connect(view->detailPane(), &widgets::DetailPane::deleteRequested, &m_writes,
            [this](const QString &uid) { m_writes.deleteObject(uid, true); });
    connect(view->detailPane(), &widgets::DetailPane::setIfUnchangedRequested, &m_writes,
            &ObjectWrites::askSetIfUnchanged);
}

// Teardown, in this order. Nothing here waits for the network; what is waited for is bounded and
// was waited for before the parts were split out: a connect reading its files, the batch worker's
// current task, the recording thread's current batch, and (as members go) the audit log follower's
// current step and the History tab's current load.
//  1. The editors close (or detach, keeping unsent text): their ObjectEditors write through the client.
//  2. The view lets go of the parts' models: it may outlive them.
//  3. The table's watches and Table fetcher go; then discovery and the client (ClusterSession::close),
//     and a connect in flight is waited for.
//  4. The batch worker (TableFeed's pool: row slices, manifests) is waited for.
//  5. The recorder is let go of, so the recording thread no longer waits for room in it; then that
//     thread is waited for (what it holds is recorded without waiting, or becomes the overflow gap).
//  6. The parts go in reverse order of declaration: ClusterDrift (its runs end on their own
//     workers, never waited for); ObjectWrites; ClusterRecording (its audit log
//     thread first, stopped before the recorder whose database it writes into is released; then the
//     recorder, which drains and closes on its own writer thread; then the History tab's source and
//     model); TableFeed (its models and idle pool); ClusterSession (the kinds model, the
//     connection); ClusterNotices.
ClusterController::~ClusterController()
{
    m_writes.closeEditors();
    if (m_view) { // the view may outlive the models it shows
        m_view->setKindsModel(nullptr);
        m_view->detailPane()->setEventsModel(nullptr);
        m_view->detailPane()->setHistoryModel(nullptr);
        m_view->setObjectModel(nullptr, {}, false, {});
    }
    m_table.stopWatching();
    m_session.close();
    m_table.waitForBatchWorker();
    m_recording.letGoOfRecorder();
    m_recording.waitForRecordingThread();
}

bool ClusterController::isSettled() const
{
    return m_table.isLoaded() && m_table.columnsSettled() && m_session.countsSettled();
}

void ClusterController::setRecordSecretValues(bool on)
{
    if (m_recording.setRecordSecretValues(on))
        m_table.restartShownWatch(); // the new recorder's feed begins with a list
}

void ClusterController::updateHistoryLocation()
{
    if (m_recording.updateHistoryLocation())
        m_table.restartShownWatch(); // the new store begins with a list
}

} // namespace fieldscope::app
