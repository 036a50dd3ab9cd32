#pragma once
// The window's follower of a cluster's audit log (the sandbox's own, or --audit-log FILE): a
// RecordAudit (app/services/recordaudit.h) on a thread of its own, since reading the log and the
// database must never hold up the window. It writes who made each version into the cluster's
// history database; `stored` tells the History tab to reload. Lives on the GUI thread; the
// follower itself lives on m_thread, and reaches this object only through m_outlet.
#include "app/services/auditwebhook.h"
#include "core/history/historystore.h"

#include <QObject>
#include <QThread>

#include <functional>
#include <memory>
#include <optional>

namespace fieldscope::app {

class RecordAudit;

class AuditLogThread : public QObject
{
    Q_OBJECT
public:
    // `ready` (asked on the follower's thread every 250 ms until true) says the database may be
    // opened: the window waits for its recorder's first commit.
    // `webhook`: also receive the API server's webhook batches (the sandbox's); a webhook that
    // cannot listen is reported through `failing` and the log is followed all the same.
    AuditLogThread(std::string database, core::HistoryOpenOptions options, std::string logPath,
                   std::function<bool()> ready = {}, std::optional<AuditWebhookOptions> webhook = {},
                   QObject *parent = nullptr);
    // Stops following without waiting: the step in progress (at most 16 MiB of log and one
    // transaction, which may wait 30 s for the store's lock) ends on the thread, which the reaper
    // (app/services/threadreaper.h) deletes once it has.
    ~AuditLogThread() override;
    const QString &logPath() const { return m_logPath; }

Q_SIGNALS:
    void stored();
    void failing(const QString &message);

private:
    struct Outlet;
    QString m_logPath;
    std::shared_ptr<Outlet> m_outlet; // shared with the thread; closed by the destructor
    QThread *m_thread;                // handed to the reaper by the destructor
    QObject *m_worker = nullptr;      // owns the RecordAudit; deleted on m_thread when it finishes
};

} // namespace fieldscope::app
