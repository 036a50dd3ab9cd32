// What the cluster view does with a watch batch: records it on the recording thread, prepares the
// table's rows in slices on the batch worker and applies finished ones within a frame's budget.
// Members of ClusterController, kept apart from its connection and detail plumbing.
#include "app/gui/clustercontroller.h"
#include "app/services/heaptuning.h"
#include "core/base/boundary.h"
#include "widgets/editorwindow.h"

#include <QApplication>
#include <QElapsedTimer>
#include <QFutureWatcher>
#include <QPointer>
#include <QThreadPool>
#include <QtConcurrent/QtConcurrentRun>

namespace fieldscope::app {

namespace {

constexpr qint64 kApplyBudgetMs = 8; // half a 60 Hz frame

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

} // namespace

void ClusterController::onBatch(const core::WatchBatch &batch)
{
    const int gen = m_generation;
    auto shared = std::make_shared<const core::WatchBatch>(batch);
    std::int64_t batchBytes = 0;
    for (const auto &e : shared->events)
        batchBytes += std::int64_t(e.json.size());
    noteBatchBytes(batchBytes);
    if (m_watcher && m_watcher->listTotalEstimate() > 0)
        m_model.expectRows(std::size_t(m_watcher->listTotalEstimate()));
    // Recording copies every object's bytes, in arrival order, on a thread of its own: it may wait
    // for the history writer (a large first list), and the table must not wait with it.
    if (m_feed && m_recordBacklog) {
        // The batches waiting here mostly share their bytes with the table, but a server that
        // sends faster than the disk writes must not grow them without end: past the bound the
        // recorder stops waiting (its overflow gap), and waits again once the backlog is halved.
        const std::int64_t bytes = batchBytes;
        if ((m_recordBacklog->bytes += bytes) > kRecordBacklogBytes && m_recorder)
            m_recorder->setWaitingForRoom(false);
        m_recordPool.start([shared, bytes, feed = m_feed, recorder = m_recorder, backlog = m_recordBacklog,
                            self = QPointer<ClusterController>(this)] {
            const core::Status st = core::guarded("recording a batch", [&] { feed->feed(*shared); });
            if (const auto left = backlog->bytes -= bytes; left < kRecordBacklogBytes / 2 && !backlog->closing)
                recorder->setWaitingForRoom(true);
            if (!st)
                QMetaObject::invokeMethod(
                    qApp,
                    [self, why = QString::fromStdString(st.error().message)] {
                        if (!self)
                            return;
                        self->m_errors << tr("History recording is failing: %1").arg(why);
                        self->m_errors.removeDuplicates();
                        self->showWarnings();
                    },
                    Qt::QueuedConnection);
        });
    }
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

void ClusterController::drainPrepared(int generation)
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
            m_warnings
                << tr("The object table missed a batch of changes and may be out of date until the next list: %1")
                       .arg(QString::fromStdString(prepared.error().message));
            m_warnings.removeDuplicates();
            showWarnings();
            continue;
        }
        models::PreparedBatch p = std::move(*prepared);
        completed |= p.batch.initialListComplete;
        for (const auto &e : p.batch.events) {
            if (!m_currentUid.isEmpty() && e.uid == m_currentUid.toStdString())
                touched.push_back(e.uid);
            if (!m_editors.isEmpty())
                if (widgets::EditorWindow *editor = m_editors.value(QString::fromStdString(e.uid)))
                    editor->noteServerVersion(QString::fromStdString(e.resourceVersion),
                                              e.type == core::WatchEventType::Deleted);
        }
        noteTableVersions(p.batch);
        const bool listed = p.batch.initialListComplete;
        m_model.applyPrepared(std::move(p));
        // After the rows are in: the fetcher then drops cells of uids the model does not show.
        if (listed && m_tableFetcher)
            m_tableFetcher->noteWatchListed();
    }
    refreshDetail(touched);
    if (m_listed || completed)
        m_kinds.setCount(m_shownKind, m_model.rowCount());
    if (completed && !m_listed) {
        m_listed = true;
        noteLoaded();
    }
    updateStatus();
}

void ClusterController::noteBatchBytes(std::int64_t bytes)
{
    m_bytesSinceReturn += bytes;
    if (m_bytesSinceReturn >= m_returnMemoryAfterBytes && !m_memoryTimer.isActive())
        m_memoryTimer.start();
}

// Once a second after a large amount of data came in: when nothing waits to be applied or
// recorded any more, the freed heap goes back to the system (returnFreedHeap, on a worker).
void ClusterController::returnMemoryIfSettled()
{
    const bool recording = (m_recordBacklog && m_recordBacklog->bytes > 0)
                        || (m_recorder && m_recorder->counters().queuedBytes > 0);
    // Between two pages of a list nothing waits here, but more is on its way: not settled.
    const bool listing = m_watcher
                      && (m_watcher->state() == kube::Watcher::State::Listing
                          || m_watcher->state() == kube::Watcher::State::Relisting);
    if (!m_preparing.empty() || recording || listing)
        return;
    m_memoryTimer.stop();
    m_bytesSinceReturn = 0;
    Q_EMIT memoryReturnStarted();
    // A watcher owned by this controller, not qApp as the context: the work may still run while the
    // application quits (SIGTERM), and the result is then simply not delivered.
    auto *done = new QFutureWatcher<void>(this);
    connect(done, &QFutureWatcher<void>::finished, this, [this, done] {
        done->deleteLater();
        ++m_memoryReturns;
        Q_EMIT memoryReturned();
    });
    done->setFuture(QtConcurrent::run(returnFreedHeap));
}

} // namespace fieldscope::app
