// A team's history on a real PostgreSQL (the `postgres` ctest fixture): what only a shared store
// has. The behaviour both stores share runs against both in tst_historystore(_postgres).
#include "core/history/historycopy.h"
#include "core/history/historydb.h"
#include "core/history/historyexport.h"
#include "core/history/historywriter.h"
#include "testpostgres.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QFile>
#include <QProcess>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include <csignal>
#include <cstdio>
#include <set>
#include <thread>

using namespace fieldscope::core;

namespace {

const WatchScope kMaps = WatchScope::of({"", "v1", "configmaps"}, "team");

// Version `n` (1-based) of ConfigMap `i`: resourceVersions grow with n across every object, as
// a server's do.
std::string configMap(int i, int n, int objects)
{
    const int rv = 1000 + n * objects + i;
    return R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm-)" + std::to_string(i)
         + R"(","namespace":"team","uid":"uid-)" + std::to_string(i) + R"(","resourceVersion":")" + std::to_string(rv)
         + R"("},"data":{"n":")" + std::to_string(n) + R"(","pad":")" + std::string(200, 'x') + R"("}})";
}

WatchEvent versionEvent(int i, int n, int objects)
{
    return {n == 1 ? HistoryEventType::Added : HistoryEventType::Modified, configMap(i, n, objects),
            QDateTime::currentMSecsSinceEpoch()};
}

HistoryOpenOptions forCluster(const std::string &identity, const std::string &recorder = "test")
{
    HistoryOpenOptions o;
    o.clusterIdentity = identity;
    o.clusterLabel = "https://" + identity + ".example:6443";
    o.recorderName = recorder;
    return o;
}

std::unique_ptr<HistoryStore> open(const std::string &location, HistoryStore::OpenMode mode,
                                   const HistoryOpenOptions &options = {})
{
    auto s = HistoryStore::open(location, mode, options);
    if (!s)
        qFatal("%s", s.error().describe().c_str());
    return std::move(*s);
}

// The writer a child process runs (see main): versions 1..kVersions of kObjects ConfigMaps, one
// transaction per version round, as a recorder watching them would.
constexpr int kObjects = 20;
constexpr int kVersions = 60;

int runChildWriter(const std::string &location, const std::string &name)
{
    auto store = HistoryStore::open(location, HistoryStore::OpenMode::ReadWrite, forCluster("sha256:team", name));
    if (!store) {
        std::fprintf(stderr, "child writer: %s\n", store.error().describe().c_str());
        return 2;
    }
    for (int n = 1; n <= kVersions; ++n) {
        HistoryWriteItem item{kMaps, {}, {}, {}};
        for (int i = 0; i < kObjects; ++i)
            item.events.push_back(versionEvent(i, n, kObjects));
        if (auto r = (*store)->write({item}); !r) {
            std::fprintf(stderr, "child writer: %s\n", r.error().describe().c_str());
            return 3;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(15));
    }
    return 0;
}

QString pgScript()
{
    return QProcessEnvironment::systemEnvironment().value(QStringLiteral("FIELDSCOPE_PG_SCRIPT"));
}

} // namespace

class TestHistoryStoreShared : public QObject
{
    Q_OBJECT
    QTemporaryDir m_dir;

private Q_SLOTS:
    void twoClustersInOneDatabaseKeepApartAndAReaderIsToldWhichExist()
    {
        const std::string url = testpostgres::freshDatabase(QStringLiteral("two-clusters"));
        for (const char *cluster : {"sha256:aaa", "sha256:bbb"}) {
            auto w = open(url, HistoryStore::OpenMode::ReadWrite, forCluster(cluster));
            QVERIFY(w->write({{kMaps, {versionEvent(cluster[7] == 'a' ? 1 : 2, 1, 3)}, {}, {}}}).ok());
        }
        auto any = HistoryStore::open(url, HistoryStore::OpenMode::ReadOnly);
        QVERIFY(!any);
        QVERIFY2(any.error().message.find("holds the history of 2 clusters") != std::string::npos,
                 any.error().message.c_str());
        QVERIFY(any.error().message.find("https://sha256:aaa.example:6443") != std::string::npos);
        auto a = open(url + "#sha256:aaa", HistoryStore::OpenMode::ReadOnly);
        QCOMPARE(a->clusterIdentity(), std::string("sha256:aaa"));
        const auto objects = a->allObjects().value();
        QCOMPARE(objects.size(), std::size_t(1));
        QCOMPARE(objects[0].ref.uid, std::string("uid-1"));
        // Opened for its cluster, a reader needs no selector.
        auto b = open(url, HistoryStore::OpenMode::ReadOnly, forCluster("sha256:bbb"));
        QCOMPARE(b->allObjects().value().at(0).ref.uid, std::string("uid-2"));
        // A writer that names no cluster writes where the location points, never a third store.
        {
            auto w = open(url + "#sha256:aaa", HistoryStore::OpenMode::ReadWrite);
            QCOMPARE(w->clusterIdentity(), std::string("sha256:aaa"));
            auto unnamed = HistoryStore::open(url, HistoryStore::OpenMode::ReadWrite);
            QVERIFY(!unnamed);
            QVERIFY(unnamed.error().message.find("holds the history of 2 clusters") != std::string::npos);
        }
        auto none = HistoryStore::open(url + "#sha256:ccc", HistoryStore::OpenMode::ReadOnly);
        QVERIFY(!none);
        QCOMPARE(none.error().category, ErrorCategory::NotFound);
        // A row Fieldscope did not write (its schema name is quoted into statements) is not a store.
        testpostgres::run("t_two_clusters", "INSERT INTO fieldscope.stores(id, schema_name, cluster_identity, "
                                            "cluster_label) VALUES(99, 'x\"; DROP SCHEMA fieldscope_c1; --', "
                                            "'sha256:evil', 'evil')");
        auto evil = HistoryStore::open(url + "#sha256:evil", HistoryStore::OpenMode::ReadOnly);
        QVERIFY(!evil);
        QCOMPARE(evil.error().category, ErrorCategory::NotFound);
        QCOMPARE(open(url + "#sha256:aaa", HistoryStore::OpenMode::ReadOnly)->allObjects().value().size(),
                 std::size_t(1));
    }

    // Exact claims go to the server many a statement (a round trip per claim bounded a live
    // join's flush): what is stored, and the count of what changed, are what one at a time gives,
    // with claims of versions that hold a row and the same version twice in one statement.
    void auditClaimsStoredTogetherAreStoredAsOneAtATime()
    {
        const std::string url = testpostgres::freshDatabase(QStringLiteral("audit-claims"));
        auto together = open(url, HistoryStore::OpenMode::ReadWrite, forCluster("sha256:aaa"));
        auto oneByOne = open(url, HistoryStore::OpenMode::ReadWrite, forCluster("sha256:bbb"));
        std::vector<AuditJoin> joins;
        for (int i = 0; i < 90; ++i) {
            AuditJoin j;
            j.object = {"", "configmaps", "team", "cm-1"};
            j.uid = "uid-1";
            j.resourceVersion = std::to_string(1000 + i);
            j.match = AuditMatch::Exact;
            AuditWho who;
            who.user.username = "alice";
            who.auditID = "claim-" + std::to_string(i);
            j.candidates.push_back(who);
            joins.push_back(std::move(j));
        }
        for (auto *store : {together.get(), oneByOne.get()}) // rows before: alice's, then bob's
            QCOMPARE(store->writeAudit({joins[3], joins[5]}, {}).value().joins, std::int64_t(2));
        joins[5].candidates.front().user.username = "bob"; // someone else: contested
        joins[3].candidates.front().auditID = "no-op";     // alice again: nothing changes
        joins[40].resourceVersion = joins[10].resourceVersion;
        joins[40].candidates.front().user.username = "mallory";
        std::int64_t changed = 0;
        for (const AuditJoin &j : joins)
            changed += oneByOne->writeAudit({j}, {}).value().joins;
        QCOMPARE(together->writeAudit(joins, {}).value().joins, changed);
        const auto stored = together->auditJoins("uid-1").value();
        QCOMPARE(stored, oneByOne->auditJoins("uid-1").value());
        QCOMPARE(stored.size(), std::size_t(89));
        QCOMPARE(stored.at("1005").match, AuditMatch::Contested);
        QCOMPARE(stored.at("1010").match, AuditMatch::Contested);
        QCOMPARE(stored.at("1003").match, AuditMatch::Exact);
        QCOMPARE(stored.at("1003").candidates.size(), std::size_t(1));
    }

    void aNewerSchemaIsRefusedNamingBothVersions()
    {
        const std::string url = testpostgres::freshDatabase(QStringLiteral("newer-schema"));
        open(url, HistoryStore::OpenMode::ReadWrite, forCluster("sha256:aaa"));
        testpostgres::run("t_newer_schema", "UPDATE fieldscope_c1.meta SET value = 7 WHERE key = 'schema_version'");
        for (auto mode : {HistoryStore::OpenMode::ReadOnly, HistoryStore::OpenMode::ReadWrite}) {
            auto s = HistoryStore::open(url, mode, forCluster("sha256:aaa"));
            QVERIFY(!s);
            QVERIFY2(s.error().message.find("newer Fieldscope (schema 7; this Fieldscope knows schemas up to 5)")
                         != std::string::npos,
                     s.error().message.c_str());
        }
    }

    // Every connection to a shared store (connectPostgres() makes them all: stores, probes,
    // listeners) bounds what it may wait for, so that no thread (a closed tab's last load, an
    // audit step) waits on the database without end; only a schema change may run long.
    void everyConnectionBoundsItsStatementsLocksAndIdleTransactions()
    {
        const std::string url = testpostgres::freshDatabase(QStringLiteral("timeouts"));
        auto c = historydb::connectPostgres(url);
        QVERIFY2(c.ok(), c ? "" : c.error().message.c_str());
        auto show = [&](const char *setting) {
            historydb::Query q((*c)->prepare(std::string("SELECT current_setting('") + setting + "')"));
            return q.step() == historydb::kRow ? q.text(0) : "error: " + (*c)->lastMessage();
        };
        QCOMPARE(show("statement_timeout"), std::string("1min"));
        QCOMPARE(show("idle_in_transaction_session_timeout"), std::string("1min"));
        QCOMPARE(show("lock_timeout"), std::string("30s"));
        QVERIFY((*c)->beginSchemaChange().ok());
        QCOMPARE(show("statement_timeout"), std::string("0"));
        QVERIFY((*c)->exec("ROLLBACK").ok());
        QCOMPARE(show("statement_timeout"), std::string("1min"));
    }

    void aWrongPasswordAnUnreachableServerAndAPasswordInTheUrlEachSayWhatIsWrong()
    {
        testpostgres::freshDatabase(QStringLiteral("auth"));
        testpostgres::run("postgres", "DO $$ BEGIN IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'carol') "
                                      "THEN CREATE ROLE carol LOGIN; END IF; END $$");
        testpostgres::run("postgres", "ALTER ROLE carol PASSWORD 'right-horse'");
        QVERIFY(testpostgres::usePasswordFile(m_dir.filePath(QStringLiteral("pgpass")),
                                              "127.0.0.1:*:*:carol:wrong-battery"));
        auto wrong = HistoryStore::open(testpostgres::tcpUrlOf("carol", "t_auth"), HistoryStore::OpenMode::ReadOnly);
        qunsetenv("PGPASSFILE");
        QVERIFY(!wrong);
        QCOMPARE(wrong.error().category, ErrorCategory::Auth);
        QVERIFY2(wrong.error().message.find("password authentication failed for user \"carol\"") != std::string::npos,
                 wrong.error().message.c_str());
        QVERIFY(wrong.error().message.find("wrong-battery") == std::string::npos);

        auto refused = HistoryStore::open("postgresql://127.0.0.1:1/fieldscope", HistoryStore::OpenMode::ReadOnly);
        QVERIFY(!refused);
        QCOMPARE(refused.error().category, ErrorCategory::Network);
        QVERIFY2(refused.error().message.find("cannot connect to the history database postgresql://127.0.0.1:1/"
                                              "fieldscope")
                     != std::string::npos,
                 refused.error().message.c_str());

        auto inUrl = HistoryStore::open("postgresql://carol:right-horse@127.0.0.1/t_auth",
                                        HistoryStore::OpenMode::ReadOnly);
        QVERIFY(!inUrl);
        QCOMPARE(inUrl.error().category, ErrorCategory::Config);
        QVERIFY(inUrl.error().message.find("~/.pgpass") != std::string::npos);
        QVERIFY2(inUrl.error().message.find("right-horse") == std::string::npos, inUrl.error().message.c_str());
        QVERIFY(inUrl.error().message.find("postgresql://carol:***@127.0.0.1/t_auth") != std::string::npos);
        // However libpq would read it: '?' or '#' inside the userinfo, a percent-encoded keyword.
        for (const char *hidden :
             {"postgresql://carol:ri?ght-horse@127.0.0.1/t_auth", "postgresql://carol:ri#ght-horse@127.0.0.1/t_auth",
              "postgresql://carol@127.0.0.1/t_auth?pass%77ord=right-horse"}) {
            auto refusedToo = HistoryStore::open(hidden, HistoryStore::OpenMode::ReadOnly);
            QVERIFY2(!refusedToo, hidden);
            QCOMPARE(refusedToo.error().category, ErrorCategory::Config);
            QVERIFY2(refusedToo.error().message.find("ght-horse") == std::string::npos,
                     refusedToo.error().message.c_str());
        }
    }

    // The window browses with a role that may only read; it never needs more.
    void aReadOnlyRoleReadsEverythingAndCannotWrite()
    {
        testpostgres::run("postgres", "DROP DATABASE IF EXISTS t_readonly WITH (FORCE)");
        // Roles are the server's, not a database's: made once per server, kept across databases.
        testpostgres::run("postgres", "DO $$ BEGIN IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = "
                                      "'fieldscope_read') THEN CREATE ROLE fieldscope_read; END IF; END $$");
        testpostgres::run("postgres", "DO $$ BEGIN IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'viewer') "
                                      "THEN CREATE ROLE viewer LOGIN; END IF; END $$");
        testpostgres::run("postgres", "ALTER ROLE viewer PASSWORD 'viewer-pw'");
        testpostgres::run("postgres", "GRANT fieldscope_read TO viewer");
        const std::string url = testpostgres::freshDatabase(QStringLiteral("readonly"));
        {
            auto w = open(url, HistoryStore::OpenMode::ReadWrite, forCluster("sha256:aaa", "the recorder"));
            QVERIFY(w->write({{kMaps, {versionEvent(1, 1, 1), versionEvent(1, 2, 1)}, {}, {}}}).ok());
        }
        QVERIFY(testpostgres::usePasswordFile(m_dir.filePath(QStringLiteral("pgpass-viewer")),
                                              "127.0.0.1:*:*:viewer:viewer-pw"));
        const std::string viewerUrl = testpostgres::tcpUrlOf("viewer", "t_readonly");
        auto reader = HistoryStore::open(viewerUrl, HistoryStore::OpenMode::ReadOnly);
        QVERIFY2(reader.ok(), reader.ok() ? "" : reader.error().describe().c_str());
        const auto objects = (*reader)->allObjects().value();
        QCOMPARE(objects.size(), std::size_t(1));
        const auto versions = (*reader)->versions(objects[0].id).value();
        QCOMPARE(versions.size(), std::size_t(2));
        QCOMPARE(versions[1].recorder, std::string("the recorder"));
        QVERIFY(jsonEqual((*reader)->loadVersion(objects[0].id, 2).value(), parseJson(configMap(1, 2, 1)).value()));
        const auto backend = (*reader)->backend().value();
        QCOMPARE(backend.kind, std::string("PostgreSQL"));
        QCOMPARE(backend.user, std::string("viewer"));
        QCOMPARE(backend.schemaVersion, 5);
        QVERIFY(!backend.mayWrite);
        // Everything but the Secret redaction key: with it a reader could test guesses of Secret
        // values offline against the stored hashes (it used to be readable).
        PGconn *viewer = PQconnectdb(viewerUrl.c_str());
        QCOMPARE(PQstatus(viewer), CONNECTION_OK);
        const auto rows = [viewer](const char *sql) {
            PGresult *r = PQexec(viewer, sql);
            const int n = PQresultStatus(r) == PGRES_TUPLES_OK ? PQntuples(r) : -1;
            PQclear(r);
            return n;
        };
        const std::string schema = "fieldscope_c1";
        QCOMPARE(rows(("SELECT value FROM " + schema + ".store_info WHERE key = 'redaction_key'").c_str()), 0);
        QVERIFY(rows(("SELECT key FROM " + schema + ".store_info").c_str()) > 0); // the rest stays readable
        PQfinish(viewer);
        {
            // The owner still reads it (it hashes with it).
            auto owner = open(url, HistoryStore::OpenMode::ReadWrite, forCluster("sha256:aaa", "the recorder"));
            QVERIFY(owner->write({{kMaps, {versionEvent(1, 3, 1)}, {}, {}}}).ok());
        }
        auto writer = HistoryStore::open(viewerUrl, HistoryStore::OpenMode::ReadWrite, forCluster("sha256:aaa"));
        qunsetenv("PGPASSFILE");
        QVERIFY(!writer);
        QVERIFY2(writer.error().message.find("permission denied") != std::string::npos, writer.error().message.c_str());
    }

    // Two recorders of one cluster write the same versions at the same time; one is killed with
    // SIGKILL in the middle of its work. Every version is stored once, in order, and decodes.
    void twoRecordersOneKilledMidBatchStoreEveryVersionOnce()
    {
        const std::string url = testpostgres::freshDatabase(QStringLiteral("two-recorders"));
        open(url, HistoryStore::OpenMode::ReadWrite, forCluster("sha256:team"));
        QProcess a, b;
        for (auto [p, name] : {std::pair{&a, "recorder-a"}, std::pair{&b, "recorder-b"}}) {
            auto env = QProcessEnvironment::systemEnvironment();
            env.insert(QStringLiteral("FIELDSCOPE_CHILD_WRITER"), QString::fromStdString(url));
            env.insert(QStringLiteral("FIELDSCOPE_CHILD_NAME"), QLatin1String(name));
            p->setProcessEnvironment(env);
            p->start(QCoreApplication::applicationFilePath(), {});
            QVERIFY(p->waitForStarted());
        }
        // Let a write a part of its rounds, then kill it wherever it is (often inside a transaction).
        QTRY_VERIFY_WITH_TIMEOUT(open(url, HistoryStore::OpenMode::ReadOnly)->stats().value().versions
                                     >= kObjects * kVersions / 3,
                                 30000);
        ::kill(pid_t(a.processId()), SIGKILL);
        QVERIFY(a.waitForFinished(10000));
        QVERIFY(b.waitForFinished(60000));
        QCOMPARE(b.exitCode(), 0);

        auto reader = open(url, HistoryStore::OpenMode::ReadOnly);
        const auto objects = reader->allObjects().value();
        QCOMPARE(int(objects.size()), kObjects);
        std::set<std::string> recorders;
        for (const auto &o : objects) {
            const auto versions = reader->versions(o.id).value();
            QCOMPARE(int(versions.size()), kVersions);
            for (int n = 1; n <= kVersions; ++n) {
                const int i = std::stoi(o.ref.uid.substr(4));
                QCOMPARE(versions[std::size_t(n - 1)].resourceVersion, std::to_string(1000 + n * kObjects + i));
                recorders.insert(versions[std::size_t(n - 1)].recorder);
            }
        }
        QVERIFY(recorders.count("recorder-b"));
        QVERIFY(reader->checkIntegrity().ok());
        QVERIFY(reader->allGaps().value().empty());
    }

    // The server restarts while the recorder records: what it watched meanwhile waits in the
    // recorder and is written when the database is back; nothing is lost, no gap is invented.
    void aRestartedDatabaseLosesNothingTheRecorderHeld()
    {
        const std::string url = testpostgres::freshDatabase(QStringLiteral("restart"));
        HistoryRecorder::Options o;
        o.path = url;
        o.open = forCluster("sha256:team", "restart-test");
        HistoryRecorder rec(o);
        QSignalSpy failed(&rec, &HistoryRecorder::writeFailed);
        rec.record(kMaps, {versionEvent(1, 1, 1), versionEvent(1, 2, 1)});
        QVERIFY(rec.flush().ok());
        QProcess restart;
        restart.start(pgScript(), {QStringLiteral("restart"), testpostgres::folder()});
        QVERIFY(restart.waitForFinished(90000));
        QCOMPARE(restart.exitCode(), 0);
        for (int n = 3; n <= 10; ++n)
            rec.record(kMaps, {versionEvent(1, n, 1)});
        QTRY_COMPARE_WITH_TIMEOUT(rec.counters().committedVersions, 10, 30000);
        // Written in the end: flush() no longer reports the outage they waited through.
        QVERIFY(rec.flush().ok());
        QVERIFY(!failed.isEmpty());
        QVERIFY2(failed.front().front().toString().startsWith(QLatin1String("history unavailable: ")),
                 qPrintable(failed.front().front().toString()));
        auto reader = open(url, HistoryStore::OpenMode::ReadOnly);
        QCOMPARE(reader->stats().value().versions, 10);
        QVERIFY(reader->allGaps().value().empty());
        QCOMPARE(rec.counters().droppedEvents, 0);
    }

    // Past its bound the recorder drops what it holds (marked as a gap once the store is back) rather than grow.
    void aStoreAwayLongerThanTheQueueHoldsDropsTheOverflowInsteadOfGrowing()
    {
        HistoryRecorder::Options o;
        o.path = "postgresql://127.0.0.1:1/nowhere";
        o.maxRetainedBytes = 2000;
        HistoryRecorder rec(o);
        for (int n = 1; n <= 20; ++n)
            rec.record(kMaps, {versionEvent(1, n, 1)});
        QTRY_VERIFY_WITH_TIMEOUT(rec.counters().droppedEvents > 0, 20000);
    }

    // A window (reader) hears every commit of any recorder, with the recorder's name.
    void aReaderIsToldOfEveryCommitAnotherRecorderMakes()
    {
        const std::string url = testpostgres::freshDatabase(QStringLiteral("notify"));
        auto writer = open(url, HistoryStore::OpenMode::ReadWrite, forCluster("sha256:team", "night-shift"));
        auto reader = open(url, HistoryStore::OpenMode::ReadOnly);
        QCOMPARE(reader->waitForChange(50).value(), std::string()); // listening now, nothing yet
        QVERIFY(writer->write({{kMaps, {versionEvent(1, 1, 1), versionEvent(2, 1, 2)}, {}, {}}}).ok());
        const auto heard = reader->waitForChange(5000);
        QVERIFY(heard.ok());
        QCOMPARE(*heard, std::string("2 night-shift"));
        QCOMPARE(reader->allObjects().value().size(), std::size_t(2));
        auto file = open(m_dir.filePath(QStringLiteral("local.db")).toStdString(), HistoryStore::OpenMode::ReadWrite);
        QCOMPARE(file->waitForChange(10).error().category, ErrorCategory::Config);
    }

    // A laptop's history joins the team's and comes back out unchanged (compared as exports).
    void storeCopyKeepsEverythingBothWays()
    {
        const std::string file = m_dir.filePath(QStringLiteral("laptop.db")).toStdString();
        {
            auto laptop = open(file, HistoryStore::OpenMode::ReadWrite, forCluster("sha256:team"));
            HistoryGap gap{kMaps.id, "1040", "1050", "relist after 410", 5, 0};
            QVERIFY(laptop
                        ->write({{kMaps, {versionEvent(1, 1, 3), versionEvent(2, 1, 3)}, {}, {}},
                                 {kMaps, {}, gap, "1050"},
                                 {kMaps, {versionEvent(1, 2, 3)}, {}, {}},
                                 {kMaps, {{HistoryEventType::Deleted, configMap(2, 2, 3), 7}}, {}, {}}})
                        .ok());
            AuditAttempt refused;
            refused.object = {"", "configmaps", "team", "cm-1"};
            refused.code = 409;
            refused.reason = "Conflict";
            refused.who.auditID = "a-1";
            refused.who.user.username = "alice";
            refused.who.requestReceivedTimestamp = "2026-11-27T10:00:00.000000Z";
            QVERIFY(laptop->writeAudit({}, {refused}).ok());
        }
        const std::string team = testpostgres::freshDatabase(QStringLiteral("copy"));
        auto from = open(file, HistoryStore::OpenMode::ReadOnly);
        auto to = open(team, HistoryStore::OpenMode::ReadWrite, forCluster("sha256:team"));
        const auto report = copyHistory(*from, *to);
        QVERIFY2(report.ok(), report.ok() ? "" : report.error().describe().c_str());
        QCOMPARE(report->objects, 2);
        QCOMPARE(report->versions, 4);
        QCOMPARE(report->gaps, 1);
        QCOMPARE(report->attempts, 1);
        QVERIFY(report->adoptedRedactionKey);
        const std::string back = m_dir.filePath(QStringLiteral("back.db")).toStdString();
        auto returned = open(back, HistoryStore::OpenMode::ReadWrite, forCluster("sha256:team"));
        QCOMPARE(copyHistory(*to, *returned).value().versions, 4);
        // Copying again stores nothing twice.
        QCOMPARE(copyHistory(*from, *to).value().skippedDuplicates, 4);

        ObjectQuery all;
        all.allNamespaces = true;
        QByteArray exports[3];
        HistoryStore *stores[3] = {from.get(), to.get(), returned.get()};
        for (int k = 0; k < 3; ++k) {
            const std::string out = m_dir.filePath(QStringLiteral("export-%1.jsonl").arg(k)).toStdString();
            QVERIFY(exportJsonLines(*stores[k], all, out).ok());
            QFile f(QString::fromStdString(out));
            QVERIFY(f.open(QIODevice::ReadOnly));
            exports[k] = f.readAll();
            // The header names the store it came from; everything after it must match.
            exports[k] = exports[k].mid(exports[k].indexOf('\n') + 1);
        }
        QVERIFY(!exports[0].isEmpty());
        if (exports[1] != exports[0]) {
            QFile a(m_dir.filePath(QStringLiteral("a.jsonl"))), b(m_dir.filePath(QStringLiteral("b.jsonl")));
            QVERIFY(a.open(QIODevice::WriteOnly) && b.open(QIODevice::WriteOnly));
            a.write(exports[0]);
            b.write(exports[1]);
            qWarning("diff %s %s", qPrintable(a.fileName()), qPrintable(b.fileName()));
            m_dir.setAutoRemove(false);
        }
        QCOMPARE(exports[1], exports[0]);
        QCOMPARE(exports[2], exports[0]);
        QCOMPARE(to->allAuditAttempts().value().size(), std::size_t(1));
        QCOMPARE(to->lastResourceVersion(kMaps.id).value(), from->lastResourceVersion(kMaps.id).value());
    }
};

int main(int argc, char **argv)
{
    const QByteArray child = qgetenv("FIELDSCOPE_CHILD_WRITER");
    if (!child.isEmpty())
        return runChildWriter(child.toStdString(), qgetenv("FIELDSCOPE_CHILD_NAME").toStdString());
    QCoreApplication app(argc, argv);
    TestHistoryStoreShared t;
    return QTest::qExec(&t, argc, argv);
}

#include "tst_historystore_shared.moc"
