#pragma once
// `fieldscope record --audit-log FILE` and `--audit-webhook HOST:PORT`: joins the API server's
// audit events to the versions the watches record, and stores who made each version and the
// refused writes in the same database (core/audit/auditimport.h). The events come from a
// followed log (core/audit/auditfollower.h; where it stopped is kept in the database per
// recorder name and path, and moves only with the joins it led to, so a restart neither repeats
// nor skips an event of the log or of its rotated files), from the
// webhook's queue (app/services/auditwebhook.h; the API server pushes, there is nothing to resume), or both
// (the join drops an event seen twice by its auditID and stage).
// Thread: the CLI's main thread (blocking file and database work; there is no window to keep
// responsive).
#include "app/services/auditwebhook.h"
#include "core/audit/auditfollower.h"
#include "core/audit/auditimport.h"

#include <QObject>
#include <QTimer>

#include <memory>

namespace fieldscope::app {

class RecordAudit : public QObject
{
    Q_OBJECT
public:
    // Opens its own connection to `db` with the recorder's options (the same cluster check).
    // `logPath` empty: no log; `webhook` null: no webhook (it must outlive this object).
    static core::Result<std::unique_ptr<RecordAudit>> open(const std::string &db,
                                                           const core::HistoryOpenOptions &options,
                                                           const std::string &logPath,
                                                           AuditWebhookReceiver *webhook = nullptr);
    ~RecordAudit() override;
    // Reads the log and the webhook's queue every `intervalMs` until stop().
    void start(int intervalMs = 1000);
    // One last read and flush; prints the totals on stderr.
    void stop();
    const core::AuditImportReport &totals() const { return m_total; }
    // The window's follower says nothing on stderr: it reports through the signals.
    void setQuiet(bool quiet) { m_quiet = quiet; }
    // Keeps the webhook `open` was given alive as long as this object (the window's follower owns it).
    void adoptWebhook(std::unique_ptr<AuditWebhookReceiver> webhook) { m_ownedWebhook = std::move(webhook); }

Q_SIGNALS:
    // Joins or refused writes that were new reached the database.
    void stored();
    // Reading the log or storing what it said fails (repeated failures are reported once).
    void failing(const QString &message);

private:
    RecordAudit() = default;
    void step(bool final);
    void guardedStep(bool final);
    void fail(const std::string &message);
    void printTotals() const;

    std::unique_ptr<core::HistoryStore> m_store;
    std::unique_ptr<core::AuditLogFollower> m_follower; // null: no log
    AuditWebhookReceiver *m_webhook = nullptr;
    std::unique_ptr<AuditWebhookReceiver> m_ownedWebhook;
    std::unique_ptr<core::AuditLiveJoin> m_join;
    std::string m_stateKey;
    core::AuditImportReport m_total;
    std::int64_t m_problemsShown = 0;
    QTimer m_timer;
    bool m_failing = false;
    bool m_quiet = false;
};

} // namespace fieldscope::app
