// `fieldscope store retention URL` with the real binary on the test PostgreSQL: the owner sets a
// team store's retention, anyone who may read it sees it and the last prunings, and neither a
// reader nor a writer who is not the owner can change it.
#include "core/base/json.h"
#include "core/history/historystore.h"
#include "fieldscoperun.h"
#include "testpostgres.h"

#include <QDateTime>
#include <QScopeGuard>
#include <QTemporaryDir>
#include <QTest>

using namespace fieldscope;
using namespace fieldscope::testing;

namespace {

const core::WatchScope kMaps = core::WatchScope::of({"", "v1", "configmaps"}, "team");

core::HistoryOpenOptions team(const std::string &recorder)
{
    core::HistoryOpenOptions o;
    o.clusterIdentity = "sha256:team";
    o.clusterLabel = "https://team.example:6443";
    o.recorderName = recorder;
    return o;
}

// Versions 1..n of one ConfigMap.
bool writeVersions(core::HistoryStore &store, int n)
{
    for (int i = 1; i <= n; ++i) {
        const std::string json = R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm","namespace":"team",)"
                                 R"("uid":"uid-1","resourceVersion":")"
                               + std::to_string(100 + i) + R"("},"data":{"n":")" + std::to_string(i) + R"("}})";
        if (!store.write(
                {{kMaps, {{core::HistoryEventType::Modified, json, QDateTime::currentMSecsSinceEpoch()}}, {}, {}}}))
            return false;
    }
    return true;
}

void ensureRole(const std::string &role, const std::string &password)
{
    testpostgres::run("postgres", "DO $$ BEGIN IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = '" + role
                                      + "') THEN CREATE ROLE " + role + " LOGIN; END IF; END $$");
    testpostgres::run("postgres", "ALTER ROLE " + role + " PASSWORD '" + password + "'");
}

QStringList retention(const std::string &url, const QStringList &more = {})
{
    return QStringList{QStringLiteral("store"), QStringLiteral("retention"), QString::fromStdString(url)} + more;
}

} // namespace

class TestStoreRetentionCli : public QObject
{
    Q_OBJECT
    QTemporaryDir m_home;

private Q_SLOTS:
    void initTestCase()
    {
        if (testpostgres::folder().isEmpty())
            QSKIP("needs the postgres fixture (ctest starts it)");
    }

    void theOwnerSetsTheRetentionAndItPrintsWithTheLastPrunings()
    {
        const std::string url = testpostgres::freshDatabase(QStringLiteral("retention-cli"));
        {
            auto store = core::HistoryStore::open(url, core::HistoryStore::OpenMode::ReadWrite, team("record@night"));
            QVERIFY(store && writeVersions(**store, 10));
        }
        const FieldscopeRun unset = runFieldscope(retention(url), m_home.path());
        QVERIFY2(unset.code == 0, unset.err.constData());
        QVERIFY2(unset.out.contains("versions per object  1000"), unset.out.constData());
        QVERIFY2(unset.out.contains("not set: the defaults"), unset.out.constData());
        QVERIFY2(unset.out.contains("Prunings: none recorded"), unset.out.constData());

        const FieldscopeRun set = runFieldscope(retention(url, {QStringLiteral("--versions"), QStringLiteral("3"),
                                                                QStringLiteral("--days"), QStringLiteral("7"),
                                                                QStringLiteral("--bytes"), QStringLiteral("1G")}),
                                                m_home.path());
        QVERIFY2(set.code == 0, set.err.constData());
        QVERIFY2(set.err.contains("is set"), set.err.constData());
        QVERIFY2(set.out.contains("versions per object  3\n"), set.out.constData());
        QVERIFY2(set.out.contains("age                  7 days\n"), set.out.constData());
        QVERIFY2(set.out.contains("stored bytes         1 GiB\n"), set.out.constData());
        QVERIFY2(set.out.contains("set by postgres at "), set.out.constData());

        // A recorder prunes to it; the pruning is listed with its recorder and count.
        {
            auto store = core::HistoryStore::open(url, core::HistoryStore::OpenMode::ReadWrite, team("record@night"));
            QVERIFY(store && (*store)->applyStoreRetention(QDateTime::currentMSecsSinceEpoch(), 0));
        }
        const FieldscopeRun shown = runFieldscope(retention(url, {QStringLiteral("-o"), QStringLiteral("json")}),
                                                  m_home.path());
        QVERIFY2(shown.code == 0, shown.err.constData());
        const auto json = core::parseJson(shown.out.toStdString());
        QVERIFY2(json && json->is_object(), shown.out.constData());
        QCOMPARE((*json)["policy"]["versions"].get<std::int64_t>(), std::int64_t(3));
        QCOMPARE((*json)["policy"]["days"].get<std::int64_t>(), std::int64_t(7));
        QCOMPARE((*json)["policy"]["bytes"].get<std::int64_t>(), std::int64_t(1) << 30);
        QCOMPARE((*json)["policy"]["set"].get<bool>(), true);
        QCOMPARE((*json)["mayChange"].get<bool>(), true);
        QCOMPARE((*json)["prunings"].size(), std::size_t(1));
        QCOMPARE((*json)["prunings"][0]["recorder"].get<std::string>(), std::string("record@night"));
        QCOMPARE((*json)["prunings"][0]["versions"].get<std::int64_t>(), std::int64_t(7));
        const FieldscopeRun text = runFieldscope(retention(url), m_home.path());
        QVERIFY2(text.out.contains("Last prunings, newest first:") && text.out.contains("record@night  7 versions"),
                 text.out.constData());
    }

    // A reader (fieldscope_read) and a writer granted the tables' rights: each may print it, and
    // setting it is refused with exit 2 naming the owner; the policy stays as it was.
    void neitherAReaderNorAWriterWhoIsNotTheOwnerCanSetIt()
    {
        testpostgres::run("postgres", "DO $$ BEGIN IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = "
                                      "'fieldscope_read') THEN CREATE ROLE fieldscope_read; END IF; END $$");
        ensureRole("scribe", "scribe-pw");
        ensureRole("viewer", "viewer-pw");
        testpostgres::run("postgres", "GRANT fieldscope_read TO viewer");
        const std::string url = testpostgres::freshDatabase(QStringLiteral("retention-cli-roles"));
        const std::string db = "t_retention_cli_roles";
        {
            auto store = core::HistoryStore::open(url, core::HistoryStore::OpenMode::ReadWrite, team("owner"));
            QVERIFY(store && writeVersions(**store, 3));
        }
        testpostgres::run(db, "GRANT USAGE ON SCHEMA fieldscope, fieldscope_c1 TO scribe;"
                              "GRANT SELECT ON fieldscope.stores TO scribe;"
                              "GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA fieldscope_c1 TO scribe;"
                              "GRANT USAGE ON ALL SEQUENCES IN SCHEMA fieldscope_c1 TO scribe");
        QVERIFY(testpostgres::usePasswordFile(m_home.filePath(QStringLiteral("pgpass")),
                                              "127.0.0.1:*:*:scribe:scribe-pw\n127.0.0.1:*:*:viewer:viewer-pw"));
        const auto unset = qScopeGuard([] { qunsetenv("PGPASSFILE"); });
        for (const char *role : {"viewer", "scribe"}) {
            const std::string theirs = testpostgres::tcpUrlOf(role, db);
            const FieldscopeRun seen = runFieldscope(retention(theirs), m_home.path());
            QVERIFY2(seen.code == 0, seen.err.constData());
            QVERIFY2(seen.out.contains("owner                postgres (only it may change the policy; this role is "
                                       + QByteArray(role) + ")"),
                     seen.out.constData());
            const FieldscopeRun refused = runFieldscope(retention(theirs,
                                                                  {QStringLiteral("--versions"), QStringLiteral("2")}),
                                                        m_home.path());
            QCOMPARE(refused.code, 2);
            QVERIFY2(refused.err.contains("only the store's owner (the role postgres) may set its retention"),
                     refused.err.constData());
        }
        auto reader = core::HistoryStore::open(url, core::HistoryStore::OpenMode::ReadOnly);
        QVERIFY(reader);
        QVERIFY(!(*reader)->storeRetention().value().set);
    }

    void valuesOutsideTheirRangeAndFilesAreRefused()
    {
        const std::string url = "postgresql:///nowhere?host=/nonexistent";
        for (const QStringList &bad : {QStringList{QStringLiteral("--versions"), QStringLiteral("1")},
                                       QStringList{QStringLiteral("--versions"), QStringLiteral("many")},
                                       QStringList{QStringLiteral("--days"), QStringLiteral("-1")},
                                       QStringList{QStringLiteral("--bytes"), QStringLiteral("512")}}) {
            const FieldscopeRun r = runFieldscope(retention(url, bad), m_home.path());
            QCOMPARE(r.code, 2);
            QVERIFY2(!r.err.contains("cannot connect"), r.err.constData()); // refused before connecting
        }
        const FieldscopeRun file = runFieldscope(retention(m_home.filePath(QStringLiteral("mine.db")).toStdString()),
                                                 m_home.path());
        QCOMPARE(file.code, 2);
        QVERIFY2(file.err.contains("Settings -> History"), file.err.constData());
        const FieldscopeRun password = runFieldscope(retention("postgresql://team:horse-battery@db.example/fieldscope"),
                                                     m_home.path());
        QCOMPARE(password.code, 2);
        QVERIFY(!password.err.contains("horse-battery"));
    }
};

QTEST_GUILESS_MAIN(TestStoreRetentionCli)
#include "tst_store_retention_cli.moc"
