#include "app/gui/draftkeeper.h"

#include "core/base/boundary.h"
#include "widgets/editorwindow.h"
#include "widgets/qsci.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QFutureWatcher>
#include <QLoggingCategory>
#include <QThreadPool>
#include <QtConcurrent/QtConcurrentRun>

namespace fieldscope::app {

namespace {

Q_LOGGING_CATEGORY(lcDrafts, "fieldscope.drafts")

// One thread for every window's drafts: a save and the removal after it never overtake.
QThreadPool &draftThread()
{
    static QThreadPool *pool = [] {
        auto *p = new QThreadPool;
        p->setMaxThreadCount(1);
        // Quitting right after "Discard and quit" must not leave the draft it removes behind.
        if (QCoreApplication::instance())
            QObject::connect(QCoreApplication::instance(), &QCoreApplication::aboutToQuit, p,
                             [p] { p->waitForDone(2000); });
        return p;
    }();
    return *pool;
}

constexpr int kDebounceMs = 800;

} // namespace

DraftKeeper::DraftKeeper(widgets::EditorWindow *window, std::shared_ptr<core::DraftStore> store, std::string cluster,
                         std::string uid, std::string title, bool keepOnDisk, std::string legacyContext)
    : QObject(window)
    , m_window(window)
    , m_store(std::move(store))
    , m_context(std::move(cluster))
    , m_uid(std::move(uid))
    , m_title(std::move(title))
    , m_legacyContext(std::move(legacyContext))
    , m_keepOnDisk(keepOnDisk)
{
    if (!keepOnDisk)
        window->setDraftsKeptOnDisk(false, tr("Unsent edits of this Secret are not kept on disk: a crash loses them. "
                                              "(Settings: record Secret values for this cluster.)"));
    m_debounce.setSingleShot(true);
    m_debounce.setInterval(kDebounceMs);
    connect(&m_debounce, &QTimer::timeout, this, &DraftKeeper::keepNow);
    connect(window->buffer(), &QsciScintilla::textChanged, this, [this] {
        // Typing while the restore question is open is an edit like any other: kept.
        if (!m_armed && m_offered && m_window && m_window->draftOffered() && m_window->hasUnsentEdits())
            m_armed = true;
        if (m_armed)
            m_debounce.start();
    });
    // Written: the buffer now shows what was stored (no unsent edits), so keepNow() removes.
    connect(window, &widgets::EditorWindow::writeFinished, this, [this] {
        if (m_armed)
            m_debounce.start();
    });
    // A quit that closes no window (SIGTERM, logout) must not lose the edits of the last debounce
    // interval: keep them now, and let the draft thread finish before the process ends.
    if (QCoreApplication::instance())
        connect(QCoreApplication::instance(), &QCoreApplication::aboutToQuit, this, [this] {
            if (m_debounce.isActive()) {
                m_debounce.stop();
                keepNow();
            }
            draftThread().waitForDone(2000);
        });
    connect(window, &widgets::EditorWindow::draftNotNeeded, this, [this] {
        m_armed = false;
        m_debounce.stop();
        // Closed with the restore question unanswered: the earlier draft is not the user's to
        // lose by closing (new edits were asked about and discarded, or there were none).
        if (m_offered && m_window && m_window->draftOffered() && m_keepOnDisk) {
            run([d = *m_offered](core::DraftStore &s) { return s.save(d); }, true);
            return;
        }
        run([context = m_context, uid = m_uid](core::DraftStore &s) { return s.remove(context, uid); });
    });
}

void DraftKeeper::loadThen(std::function<void(std::optional<core::EditDraft>)> done)
{
    auto *watcher = new QFutureWatcher<core::Result<std::optional<core::EditDraft>>>(this);
    connect(watcher, &QFutureWatcherBase::finished, this, [this, watcher, done = std::move(done)] {
        watcher->deleteLater();
        auto r = core::takeResult(watcher->future(), "reading the kept draft");
        if (!r) { // moved aside for a person to read: say where
            qCWarning(lcDrafts, "%s", r.error().describe().c_str());
            if (m_window)
                m_window->showDraftProblem(QString::fromStdString(r.error().message));
        }
        m_offered = r ? *r : std::nullopt;
        done(r ? std::move(*r) : std::nullopt);
    });
    watcher->setFuture(QtConcurrent::run(&draftThread(),
                                         [store = m_store, cluster = m_context, legacy = m_legacyContext, uid = m_uid] {
                                             auto r = store->load(cluster, uid);
                                             if (!r || *r || legacy.empty() || legacy == cluster)
                                                 return r;
                                             // A draft an earlier version kept under the context name: from now on the
                                             // cluster's.
                                             auto old = store->load(legacy, uid);
                                             if (!old || !*old)
                                                 return old;
                                             (*old)->context = cluster;
                                             if (auto st = store->save(**old); !st)
                                                 return core::Result<std::optional<core::EditDraft>>(st.error());
                                             (void)store->remove(legacy, uid);
                                             return old;
                                         }));
}

void DraftKeeper::arm()
{
    m_offered.reset(); // answered (restored), or nothing to offer
    m_armed = true;
    keepNow();
}

void DraftKeeper::discard()
{
    m_offered.reset();
    run([context = m_context, uid = m_uid](core::DraftStore &s) { return s.remove(context, uid); });
    m_armed = true;
    if (m_window && m_window->hasUnsentEdits())
        keepNow(); // typed while the question was open: those edits stay kept (after the removal)
}

void DraftKeeper::keepNow()
{
    if (!m_window || !m_armed)
        return;
    if (m_offered && m_window->draftOffered() && !m_window->hasUnsentEdits()) {
        // Typed and undone while the restore question is open: the offered draft again.
        if (m_keepOnDisk)
            run([d = *m_offered](core::DraftStore &s) { return s.save(d); }, true);
        return;
    }
    if (!m_window->hasUnsentEdits() || !m_keepOnDisk) {
        run([context = m_context, uid = m_uid](core::DraftStore &s) { return s.remove(context, uid); });
        return;
    }
    core::EditDraft d{m_context,
                      m_uid,
                      m_title,
                      m_window->openedYaml().toStdString(),
                      m_window->openedResourceVersion().toStdString(),
                      m_window->bufferText().toStdString(),
                      QDateTime::currentMSecsSinceEpoch()};
    run([d = std::move(d)](core::DraftStore &s) { return s.save(d); }, true);
}

void DraftKeeper::run(std::function<core::Status(core::DraftStore &)> work, bool isSave)
{
    // The outcome comes back as text (a Status is not default-constructible for QFuture).
    auto *watcher = new QFutureWatcher<QString>(this);
    connect(watcher, &QFutureWatcherBase::finished, this, [this, watcher, isSave] {
        watcher->deleteLater();
        const auto taken = core::takeResult(watcher->future(), "keeping the draft");
        const QString failure = taken ? *taken : QString::fromStdString(taken.error().message);
        if (!m_window)
            return;
        if (!failure.isEmpty())
            m_window->showDraftProblem(isSave ? tr("Your unsent edits could not be kept on disk: %1").arg(failure)
                                              : failure);
        else if (isSave && !m_window->draftProblem().isEmpty() && m_saveFailed)
            m_window->showDraftProblem({});
        if (isSave)
            m_saveFailed = !failure.isEmpty();
    });
    watcher->setFuture(QtConcurrent::run(&draftThread(), [store = m_store, work = std::move(work)] {
        auto st = work(*store);
        if (st)
            return QString();
        qCWarning(lcDrafts, "%s", st.error().describe().c_str());
        return QString::fromStdString(st.error().message);
    }));
}

} // namespace fieldscope::app
