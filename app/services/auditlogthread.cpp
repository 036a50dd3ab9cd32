#include "app/services/auditlogthread.h"

#include "app/services/recordaudit.h"
#include "app/services/threadreaper.h"
#include "core/base/boundary.h"

#include <QTimer>

#include <mutex>

namespace fieldscope::app {

// What the follower's thread reaches of its owner: the owner's signals, emitted on the GUI
// thread, while the owner lives. The destructor clears `owner` under the mutex; a signal posted
// before that and not yet delivered is dropped with the owner's other events.
struct AuditLogThread::Outlet {
    std::mutex mutex;
    AuditLogThread *owner;

    void stored()
    {
        std::lock_guard lock(mutex);
        if (owner)
            QMetaObject::invokeMethod(owner, &AuditLogThread::stored, Qt::QueuedConnection);
    }
    void failing(const QString &message)
    {
        std::lock_guard lock(mutex);
        if (owner)
            QMetaObject::invokeMethod(
                owner, [o = owner, message] { Q_EMIT o->failing(message); }, Qt::QueuedConnection);
    }
};

AuditLogThread::AuditLogThread(std::string database, core::HistoryOpenOptions options, std::string logPath,
                               std::function<bool()> ready, std::optional<AuditWebhookOptions> webhook, QObject *parent)
    : QObject(parent)
    , m_logPath(QString::fromStdString(logPath))
    , m_outlet(std::make_shared<Outlet>())
    , m_thread(new QThread)
{
    m_outlet->owner = this;
    m_thread->setObjectName(QStringLiteral("fieldscope-audit-log"));
    m_worker = new QObject; // parent of the follower, on the follower's thread
    m_worker->moveToThread(m_thread);
    connect(m_thread, &QThread::finished, m_worker, &QObject::deleteLater);
    // Opening the database happens on the thread too: nothing here touches the disk. What runs
    // there owns what it uses, and never touches `this`: it may outlive it.
    auto open = [outlet = m_outlet, worker = m_worker, database = std::move(database), options = std::move(options),
                 logPath = std::move(logPath), webhook = std::move(webhook)] {
        std::unique_ptr<AuditWebhookReceiver> receiver;
        if (webhook) {
            auto started = core::guarded("start the audit webhook",
                                         [&] { return AuditWebhookReceiver::start(*webhook); });
            if (started)
                receiver = std::move(*started);
            else
                outlet->failing(QString::fromStdString(started.error().describe()));
        }
        auto opened = core::guarded("open the audit log follower",
                                    [&] { return RecordAudit::open(database, options, logPath, receiver.get()); });
        if (!opened) {
            outlet->failing(QString::fromStdString(opened.error().describe()));
            return;
        }
        RecordAudit *follower = opened->release();
        follower->setParent(worker);
        follower->setQuiet(true);
        follower->adoptWebhook(std::move(receiver));
        connect(follower, &RecordAudit::stored, follower, [outlet] { outlet->stored(); });
        connect(follower, &RecordAudit::failing, follower, [outlet](const QString &m) { outlet->failing(m); });
        follower->start();
    };
    connect(m_thread, &QThread::started, m_worker,
            [worker = m_worker, open = std::move(open), ready = std::move(ready)] {
                if (!ready || ready()) {
                    open();
                    return;
                }
                auto *wait = new QTimer(worker);
                wait->callOnTimeout(worker, [wait, open, ready] {
                    if (!ready())
                        return;
                    wait->stop();
                    wait->deleteLater();
                    open();
                });
                wait->start(250);
            });
    m_thread->start(QThread::LowPriority);
}

// Closing a tab never waits for the database: after the outlet is closed nothing reaches this
// object, and the thread quits once the step in progress is over (the store's lock and statement
// timeouts bound it).
AuditLogThread::~AuditLogThread()
{
    {
        std::lock_guard lock(m_outlet->mutex);
        m_outlet->owner = nullptr;
    }
    reapWhenFinished(m_thread);
}

} // namespace fieldscope::app
