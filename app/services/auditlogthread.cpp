#include "app/services/auditlogthread.h"

#include "app/services/recordaudit.h"
#include "core/base/boundary.h"

#include <QTimer>

namespace fieldscope::app {

AuditLogThread::AuditLogThread(std::string database, core::HistoryOpenOptions options, std::string logPath,
                               std::function<bool()> ready, std::optional<AuditWebhookOptions> webhook, QObject *parent)
    : QObject(parent), m_logPath(QString::fromStdString(logPath))
{
    m_thread.setObjectName(QStringLiteral("fieldscope-audit-log"));
    m_worker = new QObject; // parent of the follower, on the follower's thread
    m_worker->moveToThread(&m_thread);
    connect(&m_thread, &QThread::finished, m_worker, &QObject::deleteLater);
    // Opening the database happens on the thread too: nothing here touches the disk.
    auto open = [this, worker = m_worker, database = std::move(database), options = std::move(options),
                 logPath = std::move(logPath), webhook = std::move(webhook)] {
        std::unique_ptr<AuditWebhookReceiver> receiver;
        if (webhook) {
            auto started = core::guarded("start the audit webhook",
                                         [&] { return AuditWebhookReceiver::start(*webhook); });
            if (started)
                receiver = std::move(*started);
            else
                Q_EMIT failing(QString::fromStdString(started.error().describe()));
        }
        auto opened = core::guarded("open the audit log follower",
                                    [&] { return RecordAudit::open(database, options, logPath, receiver.get()); });
        if (!opened) {
            Q_EMIT failing(QString::fromStdString(opened.error().describe()));
            return;
        }
        RecordAudit *follower = opened->release();
        follower->setParent(worker);
        follower->setQuiet(true);
        follower->adoptWebhook(std::move(receiver));
        connect(follower, &RecordAudit::stored, this, &AuditLogThread::stored, Qt::QueuedConnection);
        connect(follower, &RecordAudit::failing, this, &AuditLogThread::failing, Qt::QueuedConnection);
        follower->start();
    };
    connect(&m_thread, &QThread::started, m_worker,
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
    m_thread.start(QThread::LowPriority);
}

AuditLogThread::~AuditLogThread()
{
    m_thread.quit();
    m_thread.wait();
}

} // namespace fieldscope::app
