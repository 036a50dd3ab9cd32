// The window's audit log follower (app/services/auditlogthread.cpp) when its tab closes while a
// step is inside the database (a LOCK TABLE may wait 30 s): the window does not wait, nothing
// reaches the closed tab afterwards, and the thread is deleted once the step is over.
#include "app/services/auditlogthread.h"
#include "app/services/threadreaper.h"
#include "blockedwork.h"

#include <QTemporaryDir>
#include <QTest>

#include <memory>

using namespace fieldscope;

class TestAuditLogThread : public QObject
{
    Q_OBJECT
    QTemporaryDir m_dir; // outlives the follower's thread, which opens files here once let go

private Q_SLOTS:
    // The follower's first step is blocked (the `ready` question, asked on its thread, stands for
    // a step waiting for the store's lock) until after the destructor returned; once let go, the
    // step goes on to open the follower, whose failure has no tab left to reach.
    void closingATabWhileItsAuditStepIsBlockedReturnsAtOnce()
    {
        // Earlier tests' sources may still be finishing their own loads: count from none.
        QTRY_COMPARE_WITH_TIMEOUT(app::orphanCount(), 0, 20000);
        testsupport::BlockedWork work;
        auto follower = std::make_unique<app::AuditLogThread>(
            m_dir.filePath(QStringLiteral("history.db")).toStdString(), core::HistoryOpenOptions{},
            m_dir.filePath(QStringLiteral("missing/audit.log")).toStdString(), [probe = work.probe()] {
                probe();
                return true;
            });
        QVERIFY(work.waitUntilEntered());
        follower.reset();
        QVERIFY2(!work.releasedByWatchdog(), "the destructor waited for the blocked step");
        QCOMPARE(app::orphanCount(), 1);
        work.release();
        QTRY_COMPARE_WITH_TIMEOUT(app::orphanCount(), 0, 20000);
    }
};

QTEST_GUILESS_MAIN(TestAuditLogThread)
#include "tst_auditlogthread.moc"
