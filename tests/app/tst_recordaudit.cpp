// `record --audit-log` and the window's follower (app/services/recordaudit.h) against the recorded
// audit sample (tests/data/audit): where a follower stopped is its own, and events survive a
// store that cannot be read for a while.
#include "app/services/recordaudit.h"
#include "auditfixtures.h"

#include <QCoreApplication>
#include <QTemporaryDir>
#include <QTest>

#include <sqlite3.h>

using namespace fieldscope;
using namespace fieldscope::core;
using namespace auditfixtures;

namespace {

std::unique_ptr<app::RecordAudit> follower(const std::string &db, const std::string &recorder)
{
    HistoryOpenOptions o;
    o.recorderName = recorder;
    auto r = app::RecordAudit::open(db, o, auditDataPath("rr-audit.log"));
    if (!r)
        qFatal("%s", r.error().describe().c_str());
    (*r)->setQuiet(true);
    return std::move(*r);
}

bool execSql(const std::string &db, const char *sql)
{
    sqlite3 *c = nullptr;
    const bool ok = sqlite3_open(db.c_str(), &c) == SQLITE_OK
                 && sqlite3_exec(c, sql, nullptr, nullptr, nullptr) == SQLITE_OK;
    sqlite3_close(c);
    return ok;
}

} // namespace

class TestRecordAudit : public QObject
{
    Q_OBJECT
    QTemporaryDir m_dir;

    std::string recordedDb(const char *name)
    {
        std::string path = m_dir.filePath(QString::fromLatin1(name)).toStdString();
        auto store = HistoryStore::open(path).value();
        recordSampleWatch(*store, "rr");
        return path;
    }

private Q_SLOTS:
    // Two recorders following the same path (two nodes' logs, or the window and `record`) used to
    // share one position: the second started where the first stopped and read nothing.
    void eachFollowerOfALogPathKeepsItsOwnPosition()
    {
        const std::string db = recordedDb("positions.db");
        auto first = follower(db, "record@node-a (ops)");
        first->stop();
        QVERIFY(first->totals().events > 0);
        const std::int64_t all = first->totals().events;
        first.reset();
        auto second = follower(db, "record@node-b (ops)");
        second->stop();
        QCOMPARE(second->totals().events, all);
        second.reset();
        // The same recorder again resumes where it stopped: nothing is read twice.
        auto again = follower(db, "record@node-a (ops)");
        again->stop();
        QCOMPARE(again->totals().events, std::int64_t(0));
    }

    // The objects' versions could not be read when the events arrived (a lock, a dropped
    // connection): the events used to be dropped, though the log had been read past them.
    void eventsSurviveAStoreThatCannotBeReadForAWhile()
    {
        const std::string db = recordedDb("unreadable.db");
        auto store = HistoryStore::open(db).value();
        AuditLiveJoin live(*store);
        QVERIFY(execSql(db, "ALTER TABLE versions RENAME TO versions_away"));
        const auto decoded = decodeAuditLines(readAuditData("rr-audit.log"));
        // The join's clock: just after the sample was recorded (its versions are within the hold).
        std::int64_t now = 0;
        for (const auto &e : decoded.events)
            now = std::max(now, e.stageMicros / 1000 + 1000);
        QVERIFY(!live.addEvents(decoded, now));
        QVERIFY(execSql(db, "ALTER TABLE versions_away RENAME TO versions"));
        // A minute later: longer than the join re-reads recently named objects for (30 s).
        auto report = live.flush(now + 60'000, {}, true);
        QVERIFY2(report, report ? "" : report.error().describe().c_str());
        QVERIFY(report->storedJoins > 0);
        const std::string uid = store->findObjects(appQuery()).value().front().ref.uid;
        const auto joins = store->auditJoins(uid).value();
        QVERIFY(joins.count("227"));
        QCOMPARE(joins.at("227").candidates.front().user.username, std::string("alice"));
    }
};

QTEST_GUILESS_MAIN(TestRecordAudit)
#include "tst_recordaudit.moc"
