#include "app/services/recordaudit.h"

#include "app/services/historysource.h"
#include "core/base/boundary.h"
#include "core/base/visibletext.h"

#include <QDateTime>
#include <QLoggingCategory>

#include <cstdio>
#include <filesystem>
#include <limits>
#include <map>
#include <utility>

namespace fieldscope::app {

// The window's follower is quiet (its failures reach the banner); the log says why as well.
Q_LOGGING_CATEGORY(lcRecordAudit, "fieldscope.app.audit", QtInfoMsg)

core::Result<std::unique_ptr<RecordAudit>> RecordAudit::open(const std::string &db,
                                                             const core::HistoryOpenOptions &options,
                                                             const std::string &logPath, AuditWebhookReceiver *webhook)
{
    auto store = core::HistoryStore::open(db, core::HistoryStore::OpenMode::ReadWrite, options);
    if (!store)
        return store.error();
    std::unique_ptr<RecordAudit> r(new RecordAudit);
    r->m_webhook = webhook;
    if (!logPath.empty()) {
        std::error_code ec;
        const std::string absolute = std::filesystem::absolute(logPath, ec).lexically_normal().string();
        // One position per follower: two recorders (on two nodes, or the window and `record`)
        // following the same path read different files or at different paces, and one's
        // position would make the other skip events (rotated files included). Earlier versions
        // kept "log:PATH" for everyone; starting afresh re-reads, which stores nothing twice.
        const std::string name = options.recorderName.empty() ? recorderNameFor("audit") : options.recorderName;
        r->m_stateKey = "log:" + name + "|" + (ec ? logPath : absolute);
        auto saved = (*store)->auditState(r->m_stateKey);
        if (!saved)
            return saved.error();
        r->m_follower = std::make_unique<core::AuditLogFollower>(logPath, core::AuditLogPosition::fromText(*saved));
    }
    r->m_join = std::make_unique<core::AuditLiveJoin>(**store);
    r->m_store = std::move(*store);
    r->m_timer.callOnTimeout(r.get(), [p = r.get()] { p->guardedStep(false); });
    return r;
}

RecordAudit::~RecordAudit() = default;

void RecordAudit::start(int intervalMs)
{
    if (!m_quiet && m_follower)
        std::fprintf(stderr, "fieldscope: following audit log %s\n", core::visibleEscapes(m_follower->path()).c_str());
    if (!m_quiet && m_webhook)
        std::fprintf(stderr, "fieldscope: receiving audit webhook batches on port %d\n", m_webhook->port());
    guardedStep(false);
    m_timer.start(intervalMs);
}

void RecordAudit::stop()
{
    m_timer.stop();
    guardedStep(true);
    if (!m_quiet)
        printTotals();
}

void RecordAudit::printTotals() const
{
    if (m_follower)
        for (const auto &f : m_follower->rotatedFilesRead())
            std::fprintf(stderr, "fieldscope: read the rotated audit log %s\n", core::visibleEscapes(f).c_str());
    if (m_webhook) {
        const auto c = m_webhook->server().counters();
        std::fprintf(stderr,
                     "fieldscope: audit webhook: %lld requests (%lld accepted, %lld refused), %lld connections, %lld "
                     "refused TLS handshakes\n",
                     static_cast<long long>(c.requests), static_cast<long long>(c.accepted),
                     static_cast<long long>(c.refused), static_cast<long long>(c.connections),
                     static_cast<long long>(c.tlsRefused));
    }
    const auto &t = m_total;
    std::fprintf(
        stderr,
        "fieldscope: audit: %lld events (%lld skipped), %lld versions joined (%lld exact, %lld probable, %lld with several "
        "candidates), %lld refused writes, %lld writes not recorded\n",
        static_cast<long long>(t.events), static_cast<long long>(t.skipped),
        static_cast<long long>(t.exact + t.probable + t.ambiguous), static_cast<long long>(t.exact),
        static_cast<long long>(t.probable), static_cast<long long>(t.ambiguous), static_cast<long long>(t.attempts),
        static_cast<long long>(t.unmatched));
}

void RecordAudit::fail(const std::string &message)
{
    if (!m_failing) {
        if (!m_quiet)
            std::fprintf(stderr, "fieldscope: audit: %s\n", message.c_str());
        else
            qCWarning(lcRecordAudit, "%s", core::visibleEscapes(message).c_str());
        Q_EMIT failing(QString::fromStdString(message));
    }
    m_failing = true;
}

// Whatever a library throws on a log someone else wrote (bad_alloc included) is a message.
void RecordAudit::guardedStep(bool final)
{
    if (auto st = core::guarded("follow the audit log", [&] { step(final); }); !st)
        fail(st.error().describe());
}

void RecordAudit::step(bool final)
{
    const std::int64_t now = QDateTime::currentMSecsSinceEpoch();
    core::AuditDecodeResult decoded;
    std::map<std::string, std::string> position;
    if (m_follower) {
        // At the end everything left is read, however much; while running, 16 MiB a step.
        const auto st = m_follower->poll(decoded, final ? std::numeric_limits<std::int64_t>::max() / 2 : 16 << 20);
        if (!st) {
            fail(st.error().describe());
            return;
        }
        position[m_stateKey] = m_follower->position().toText();
    }
    if (m_webhook) {
        if (!m_quiet)
            for (const auto &why : m_webhook->server().takeRefusals())
                if (m_problemsShown++ < 20)
                    std::fprintf(stderr, "fieldscope: audit webhook: refused %s\n", core::visibleEscapes(why).c_str());
        decoded.append(m_webhook->queue().take());
    }
    if (auto added = m_join->addEvents(std::move(decoded), now); !added) {
        fail(added.error().describe());
        return;
    }
    // The final flush lets every held event go: the watches have stopped, no version will come.
    auto report = m_join->flush(now, position, final);
    if (!report) {
        fail("cannot store who made the versions: " + report.error().describe());
        return;
    }
    m_failing = false;
    if (report->storedJoins > 0 || report->storedAttempts > 0)
        Q_EMIT stored();
    for (const auto &p : report->problems)
        if (m_problemsShown++ < 20) {
            if (m_quiet)
                qCInfo(lcRecordAudit, "skipped %s", core::visibleEscapes(p).c_str());
            else
                std::fprintf(stderr, "fieldscope: audit: skipped %s\n", core::visibleEscapes(p).c_str());
        }
    m_total.events += report->events;
    m_total.skipped += report->skipped;
    m_total.exact += report->exact;
    m_total.probable += report->probable;
    m_total.ambiguous += report->ambiguous;
    m_total.attempts += report->storedAttempts;
    m_total.unmatched += report->unmatched;
    m_total.storedJoins += report->storedJoins;
}

} // namespace fieldscope::app
