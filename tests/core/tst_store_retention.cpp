// A team store's own retention on a real PostgreSQL (the `postgres` ctest fixture): the policy its
// owner sets is what every recorder prunes to, whatever its user's Settings say; only the owner
// changes it; each pruning is recorded; recorders take turns instead of each pruning.
#include "core/history/historywriter.h"
#include "testpostgres.h"

#include <QDateTime>
#include <QScopeGuard>
#include <QTemporaryDir>
#include <QTest>

using namespace fieldscope::core;

namespace {

const WatchScope kMaps = WatchScope::of({"", "v1", "configmaps"}, "team");

// Version n (1-based) of ConfigMap i; resourceVersions grow with n as a server's do.
WatchEvent version(int i, int n)
{
    const std::string json = R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm-)" + std::to_string(i)
                           + R"(","namespace":"team","uid":"uid-)" + std::to_string(i) + R"(","resourceVersion":")"
                           + std::to_string(1000 + n * 10 + i) + R"("},"data":{"n":")" + std::to_string(n) + R"("}})";
    return {n == 1 ? HistoryEventType::Added : HistoryEventType::Modified, json, QDateTime::currentMSecsSinceEpoch()};
}

HistoryOpenOptions team(const std::string &recorder = "test")
{
    HistoryOpenOptions o;
    o.clusterIdentity = "sha256:team";
    o.clusterLabel = "https://team.example:6443";
    o.recorderName = recorder;
    return o;
}

std::unique_ptr<HistoryStore> open(const std::string &location, HistoryStore::OpenMode mode,
                                   const HistoryOpenOptions &options = team())
{
    auto s = HistoryStore::open(location, mode, options);
    if (!s)
        qFatal("%s", s.error().describe().c_str());
    return std::move(*s);
}

// Versions 1..n of `objects` ConfigMaps, one transaction per round.
void writeRounds(HistoryStore &store, int objects, int from, int to)
{
    for (int n = from; n <= to; ++n) {
        HistoryWriteItem item{kMaps, {}, {}, {}};
        for (int i = 0; i < objects; ++i)
            item.events.push_back(version(i, n));
        if (auto r = store.write({item}); !r)
            qFatal("%s", r.error().describe().c_str());
    }
}

std::size_t versionsOf(const std::string &location, int object)
{
    auto reader = open(location, HistoryStore::OpenMode::ReadOnly, {});
    const std::vector<HistoryObject> objects = reader->allObjects().value();
    for (const auto &o : objects)
        if (o.ref.uid == "uid-" + std::to_string(object))
            return reader->versions(o.id).value().size();
    return 0;
}

RetentionChange keepVersions(std::int64_t n)
{
    RetentionChange c;
    c.maxVersionsPerObject = n;
    return c;
}

void ensureRole(const std::string &role, const std::string &password)
{
    testpostgres::run("postgres", "DO $$ BEGIN IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = '" + role
                                      + "') THEN CREATE ROLE " + role + " LOGIN; END IF; END $$");
    testpostgres::run("postgres", "ALTER ROLE " + role + " PASSWORD '" + password + "'");
}

} // namespace

class TestStoreRetention : public QObject
{
    Q_OBJECT
    QTemporaryDir m_dir;

private Q_SLOTS:
    void initTestCase()
    {
        if (testpostgres::folder().isEmpty())
            QSKIP("needs the postgres fixture (ctest starts it)");
    }

    // The recorder's own choice (Settings: keep 2) used to prune everyone's history to 2.
    void aRecorderWhoseSettingsKeepTwoKeepsWhatTheStoresPolicySays()
    {
        const std::string url = testpostgres::freshDatabase(QStringLiteral("retention-policy"));
        QVERIFY(open(url, HistoryStore::OpenMode::ReadWrite)->setStoreRetention(keepVersions(50), 1).ok());
        HistoryRecorder::Options ro;
        ro.path = url;
        ro.open = team("record@host (alice)");
        ro.retention.maxVersionsPerObject = 2; // what this user's Settings say
        ro.retentionIntervalMs = 0;            // a round after every batch
        HistoryRecorder recorder(ro);
        for (int n = 1; n <= 60; ++n) {
            recorder.record(kMaps, {version(1, n)});
            QVERIFY(recorder.flush().ok());
        }
        const std::size_t kept = versionsOf(url, 1);
        QVERIFY2(kept >= 50 && kept <= 56, std::to_string(kept).c_str()); // pruned past 50 + 1/8 only
        // The owner changes the policy: the running recorder prunes to it at its next round.
        QVERIFY(open(url, HistoryStore::OpenMode::ReadWrite)->setStoreRetention(keepVersions(20), 2).ok());
        recorder.record(kMaps, {version(1, 61)});
        QVERIFY(recorder.flush().ok());
        QCOMPARE(versionsOf(url, 1), std::size_t(20));
    }

    void aPruningIsRecordedWithTheRecorderAndHowMuchItRemoved()
    {
        const std::string url = testpostgres::freshDatabase(QStringLiteral("retention-record"));
        auto store = open(url, HistoryStore::OpenMode::ReadWrite, team("night-recorder"));
        writeRounds(*store, 2, 1, 10);
        QVERIFY(store->prunings(10).value().empty());
        QVERIFY(store->setStoreRetention(keepVersions(2), 1).ok());
        const std::int64_t before = store->stats().value().storedBytes;
        QVERIFY(store->applyStoreRetention(123456789, 0).ok());
        const auto prunings = store->prunings(10).value();
        QCOMPARE(prunings.size(), std::size_t(1));
        QCOMPARE(prunings[0].recorder, std::string("night-recorder"));
        QCOMPARE(prunings[0].atMs, std::int64_t(123456789));
        QCOMPARE(prunings[0].versions, std::int64_t(16)); // 8 of each object's 10
        QVERIFY(prunings[0].bytes > 0 && prunings[0].bytes <= before);
        // A round that removes nothing leaves no record.
        QVERIFY(store->applyStoreRetention(123456790, 0).ok());
        QCOMPARE(store->prunings(10).value().size(), std::size_t(1));
        // A reader sees them too, newest first; the store keeps the last kKeptPrunings.
        testpostgres::run("t_retention_record", "INSERT INTO fieldscope_c1.prunings SELECT 1 + g, 'old', g, 1, 1 "
                                                "FROM generate_series(1, 150) g");
        writeRounds(*store, 2, 11, 14);
        QVERIFY(store->applyStoreRetention(223456789, 0).ok());
        auto reader = open(url, HistoryStore::OpenMode::ReadOnly, {});
        const auto last = reader->prunings(1000).value();
        QCOMPARE(int(last.size()), HistoryStore::kKeptPrunings);
        QCOMPARE(last.front().recorder, std::string("night-recorder"));
        QCOMPARE(last.front().versions, std::int64_t(8));
    }

    // Two recorders of one store: the second skips a round the first has just done, or is doing.
    void recordersOfOneStoreTakeTurnsInsteadOfEachPruning()
    {
        const std::string url = testpostgres::freshDatabase(QStringLiteral("retention-turns"));
        auto a = open(url, HistoryStore::OpenMode::ReadWrite, team("recorder-a"));
        auto b = open(url, HistoryStore::OpenMode::ReadWrite, team("recorder-b"));
        QVERIFY(a->setStoreRetention(keepVersions(2), 1).ok());
        writeRounds(*a, 1, 1, 10);
        QVERIFY(a->applyStoreRetention(1'000'000, 10'000).ok());
        writeRounds(*b, 1, 11, 20);
        QVERIFY(b->applyStoreRetention(1'005'000, 10'000).ok()); // a pruned 5 s ago
        QCOMPARE(versionsOf(url, 0), std::size_t(12));
        // While a holds the pruning lock, b skips its round however long ago the last one was.
        const std::string db = "t_retention_turns";
        PGconn *holder = PQconnectdb(testpostgres::urlOf(db).c_str());
        PGresult *r = PQexec(holder, "SELECT pg_advisory_lock(70463, hashtext('fieldscope_c1'))");
        QCOMPARE(PQresultStatus(r), PGRES_TUPLES_OK);
        PQclear(r);
        QVERIFY(b->applyStoreRetention(2'000'000, 10'000).ok());
        QCOMPARE(versionsOf(url, 0), std::size_t(12));
        PQclear(PQexec(holder, "SELECT pg_advisory_unlock(70463, hashtext('fieldscope_c1'))"));
        PQfinish(holder);
        QVERIFY(b->applyStoreRetention(2'000'000, 10'000).ok());
        QCOMPARE(versionsOf(url, 0), std::size_t(2));
        const auto prunings = b->prunings(10).value();
        QCOMPARE(prunings.size(), std::size_t(2));
        QCOMPARE(prunings[0].recorder, std::string("recorder-b"));
        QCOMPARE(prunings[1].recorder, std::string("recorder-a"));
    }

    // The owner role (and who holds it) sets the policy; a role granted the tables' rights records
    // and prunes but cannot change it, not even with its own SQL; a reader reads it.
    void onlyTheStoresOwnerSetsItsRetention()
    {
        testpostgres::run("postgres", "DO $$ BEGIN IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = "
                                      "'fieldscope_read') THEN CREATE ROLE fieldscope_read; END IF; END $$");
        ensureRole("keeper", "keeper-pw");
        ensureRole("scribe", "scribe-pw");
        ensureRole("viewer", "viewer-pw");
        testpostgres::run("postgres", "GRANT fieldscope_read TO viewer");
        testpostgres::freshDatabase(QStringLiteral("retention-owner"));
        const std::string db = "t_retention_owner";
        testpostgres::run("postgres", "ALTER DATABASE " + db + " OWNER TO keeper");
        QVERIFY(testpostgres::usePasswordFile(m_dir.filePath(QStringLiteral("pgpass")),
                                              "127.0.0.1:*:*:keeper:keeper-pw\n127.0.0.1:*:*:scribe:scribe-pw\n"
                                              "127.0.0.1:*:*:viewer:viewer-pw"));
        const auto unset = qScopeGuard([] { qunsetenv("PGPASSFILE"); });
        auto owner = open(testpostgres::tcpUrlOf("keeper", db), HistoryStore::OpenMode::ReadWrite, team("keeper"));
        writeRounds(*owner, 1, 1, 10);
        testpostgres::run(db, "GRANT USAGE ON SCHEMA fieldscope, fieldscope_c1 TO scribe;"
                              "GRANT SELECT ON fieldscope.stores TO scribe;"
                              "GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA fieldscope_c1 TO scribe;"
                              "GRANT USAGE ON ALL SEQUENCES IN SCHEMA fieldscope_c1 TO scribe");
        QVERIFY(owner->ownership().value().isOwner);
        QVERIFY(owner->setStoreRetention(keepVersions(5), 1).ok());

        auto scribe = open(testpostgres::tcpUrlOf("scribe", db), HistoryStore::OpenMode::ReadWrite, team("scribe"));
        const auto who = scribe->ownership().value();
        QVERIFY(!who.isOwner);
        QCOMPARE(who.owner, std::string("keeper"));
        QCOMPARE(who.user, std::string("scribe"));
        const Status refused = scribe->setStoreRetention(keepVersions(2), 2);
        QVERIFY(!refused);
        QCOMPARE(refused.error().category, ErrorCategory::Forbidden);
        QVERIFY2(refused.error().message.find("only the store's owner (the role keeper)") != std::string::npos,
                 refused.error().message.c_str());
        // Its own SQL: the row policy lets it read the row and change none.
        PGconn *c = PQconnectdb(testpostgres::tcpUrlOf("scribe", db).c_str());
        QCOMPARE(PQstatus(c), CONNECTION_OK);
        PGresult *r = PQexec(c, "UPDATE fieldscope_c1.store_retention SET max_versions = 2");
        QCOMPARE(PQresultStatus(r), PGRES_COMMAND_OK);
        QCOMPARE(QByteArray(PQcmdTuples(r)), QByteArray("0"));
        PQclear(r);
        r = PQexec(c, "DELETE FROM fieldscope_c1.store_retention");
        QCOMPARE(QByteArray(PQcmdTuples(r)), QByteArray("0"));
        PQclear(r);
        PQfinish(c);
        QCOMPARE(scribe->storeRetention().value().policy.maxVersionsPerObject, std::int64_t(5));
        // It prunes to the owner's policy, and says so.
        QVERIFY(scribe->applyStoreRetention(QDateTime::currentMSecsSinceEpoch(), 0).ok());
        QCOMPARE(scribe->prunings(1).value().at(0).recorder, std::string("scribe"));

        auto viewer = open(testpostgres::tcpUrlOf("viewer", db), HistoryStore::OpenMode::ReadOnly, {});
        const StoreRetention seen = viewer->storeRetention().value();
        QVERIFY(seen.set);
        QCOMPARE(seen.setBy, std::string("keeper"));
        QCOMPARE(seen.policy.maxVersionsPerObject, std::int64_t(5));
        QVERIFY(!viewer->ownership().value().isOwner);
        QCOMPARE(viewer->prunings(10).value().size(), std::size_t(1));
    }

    void valuesOutsideTheirRangeAreRefused()
    {
        QVERIFY(checkRetentionChange(keepVersions(2)).empty());
        QVERIFY(checkRetentionChange(keepVersions(0)).empty()); // no limit
        QVERIFY(!checkRetentionChange(keepVersions(1)).empty());
        QVERIFY(!checkRetentionChange(keepVersions(-3)).empty());
        RetentionChange c;
        c.maxAgeMs = 3600 * 1000; // an hour: less than a day
        QVERIFY(!checkRetentionChange(c).empty());
        c = {};
        c.maxTotalBytes = 4096;
        QVERIFY(!checkRetentionChange(c).empty());
        c.maxTotalBytes = 1ll << 20;
        QVERIFY(checkRetentionChange(c).empty());
    }

    // A store of schema 4 (before the policy) opens: it reads as "not set", and a writer's open
    // migrates it so its owner can set one.
    void aStoreFromBeforeThePolicyOpensAndGainsIt()
    {
        const std::string url = testpostgres::freshDatabase(QStringLiteral("retention-v4"));
        writeRounds(*open(url, HistoryStore::OpenMode::ReadWrite), 1, 1, 3);
        testpostgres::run("t_retention_v4", "DROP TABLE fieldscope_c1.store_retention, fieldscope_c1.prunings;"
                                            "UPDATE fieldscope_c1.meta SET value = 4 WHERE key = 'schema_version'");
        {
            auto reader = open(url, HistoryStore::OpenMode::ReadOnly, {});
            QVERIFY(!reader->storeRetention().value().set);
            QVERIFY(reader->prunings(10).value().empty());
        }
        auto writer = open(url, HistoryStore::OpenMode::ReadWrite);
        QCOMPARE(writer->backend().value().schemaVersion, 5);
        QVERIFY(writer->setStoreRetention(keepVersions(2), 1).ok());
        QVERIFY(writer->applyStoreRetention(QDateTime::currentMSecsSinceEpoch(), 0).ok());
        QCOMPARE(versionsOf(url, 0), std::size_t(2));
    }

    // A file's retention stays its user's: it has no policy of its own to read or set.
    void aFileHasNoPolicyOfItsOwn()
    {
        auto file = open(m_dir.filePath(QStringLiteral("mine.db")).toStdString(), HistoryStore::OpenMode::ReadWrite);
        QCOMPARE(file->storeRetention().error().category, ErrorCategory::Config);
        QCOMPARE(file->setStoreRetention(keepVersions(5), 1).error().category, ErrorCategory::Config);
    }
};

QTEST_GUILESS_MAIN(TestStoreRetention)
#include "tst_store_retention.moc"
