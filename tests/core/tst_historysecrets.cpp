// The history store keeps Secret values only as keyed hashes unless the user
// opted in; every file it (and an export) creates is private whatever the umask; a store belongs
// to one cluster; a failed write or a rejected object is a marked gap, never a silent hole.
#include "core/history/historyexport.h"
#include "core/history/historywriter.h"
#include "core/history/secretredaction.h"

#include <QByteArray>
#include <QDateTime>
#include <QDir>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include <sqlite3.h>
#include <sys/stat.h>

#include <filesystem>

using namespace fieldscope::core;

namespace {

const WatchScope kSecrets = WatchScope::of({"", "v1", "secrets"}, "prod");
constexpr const char *kCanary = "canary-Secret-value-7f3a9c";

std::string base64(const std::string &s)
{
    return QByteArray::fromStdString(s).toBase64().toStdString();
}

Json secret(const std::string &rv, const std::string &password, const std::string &user = "admin")
{
    Json s = {{"apiVersion", "v1"}, {"kind", "Secret"}, {"type", "Opaque"}};
    s["metadata"] = {{"name", "db"}, {"namespace", "prod"}, {"uid", "0a0b-secret"}, {"resourceVersion", rv}};
    s["metadata"]["annotations"][kLastAppliedAnnotation] =
        R"({"apiVersion":"v1","kind":"Secret","stringData":{"password":")" + password + R"("}})";
    s["metadata"]["managedFields"] =
        Json::array({{{"manager", "kubectl-client-side-apply"},
                      {"operation", "Update"},
                      {"apiVersion", "v1"},
                      {"fieldsType", "FieldsV1"},
                      {"fieldsV1", {{"f:data", {{"f:password", Json::object()}, {"f:user", Json::object()}}}}}}});
    s["data"] = {{"password", base64(password)}, {"user", base64(user)}};
    return s;
}

WatchEvent watchEvent(HistoryEventType t, const Json &obj)
{
    return {t, toJsonText(obj), QDateTime::currentMSecsSinceEpoch()}; // the recorder's 30-day retention keeps it
}

// Every byte of every file in `dir` (the database, its -wal and -shm, exports).
QByteArray allBytesIn(const QString &dir)
{
    QByteArray all;
    for (const auto &e : std::filesystem::recursive_directory_iterator(dir.toStdString())) {
        if (!e.is_regular_file())
            continue;
        QFile f(QString::fromStdString(e.path().string()));
        if (f.open(QIODevice::ReadOnly))
            all += f.readAll();
    }
    return all;
}

int modeOf(const std::string &path)
{
    struct stat st {};
    return ::stat(path.c_str(), &st) == 0 ? int(st.st_mode & 07777) : -1;
}

void exec(const std::string &path, const char *sql)
{
    sqlite3 *db = nullptr;
    sqlite3_open(path.c_str(), &db);
    char *msg = nullptr;
    if (sqlite3_exec(db, sql, nullptr, nullptr, &msg) != SQLITE_OK)
        qFatal("%s", msg);
    sqlite3_close(db);
}

// A new store at `path` whose inserts of resourceVersion 3 fail (a trigger's constraint).
void storeThatRefusesVersion3(const std::string &path)
{
    if (!HistoryStore::open(path).ok())
        qFatal("cannot open %s", path.c_str());
    exec(
        path,
        "CREATE TRIGGER failing BEFORE INSERT ON versions WHEN NEW.rv = '3' BEGIN SELECT RAISE(ABORT, 'injected'); END");
}

} // namespace

class TestHistorySecrets : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void secretValuesAreStoredAsKeyedHashesByDefault()
    {
        QTemporaryDir dir;
        const std::string path = dir.filePath(QStringLiteral("h.db")).toStdString();
        {
            auto store = HistoryStore::open(path).value();
            QVERIFY(
                store
                    ->write(
                        {{kSecrets, {watchEvent(HistoryEventType::Added, secret("1", kCanary))}, {}, {}, {}},
                         {kSecrets, {watchEvent(HistoryEventType::Modified, secret("2", kCanary, "root"))}, {}, {}, {}},
                         {kSecrets,
                          {watchEvent(HistoryEventType::Modified, secret("3", std::string(kCanary) + "-2", "root"))},
                          {},
                          {},
                          {}}})
                    .ok());
            const auto objects = store->allObjects().value();
            QCOMPARE(objects.size(), std::size_t(1));
            const auto all = store->loadAllVersions(objects[0].id).value();
            QCOMPARE(all.size(), std::size_t(3));
            for (const auto &v : all) {
                QVERIFY(isRedactedValue(v["data"]["password"].get<std::string>()));
                QVERIFY(isRedactedValue(v["data"]["user"].get<std::string>()));
                QVERIFY(isRedactedValue(v["metadata"]["annotations"][kLastAppliedAnnotation].get<std::string>()));
                QCOMPARE(v["metadata"]["name"].get<std::string>(), std::string("db")); // metadata stays
                QVERIFY(v["metadata"]["managedFields"] == secret("1", "x")["metadata"]["managedFields"]);
            }
            // "These two versions are equal" and "this key changed" stay visible.
            QVERIFY(all[0]["data"]["password"] == all[1]["data"]["password"]);
            QVERIFY(all[0]["data"]["user"] != all[1]["data"]["user"]);
            QVERIFY(all[1]["data"]["password"] != all[2]["data"]["password"]);
            QVERIFY(all[1]["data"]["user"] == all[2]["data"]["user"]);
            ObjectQuery everything;
            everything.allNamespaces = true;
            QCOMPARE(
                exportJsonLines(*store, everything, dir.filePath(QStringLiteral("out.jsonl")).toStdString()).value(),
                3);
        }
        const QByteArray bytes = allBytesIn(dir.path());
        QVERIFY(!bytes.isEmpty());
        QVERIFY(!bytes.contains(kCanary));
        QVERIFY(!bytes.contains(QByteArray::fromStdString(base64(kCanary))));
        QVERIFY(!bytes.contains(QByteArray::fromStdString(base64(std::string(kCanary) + "-2"))));
    }

    // What people read: the hash's first digits in words, equal values still equal.
    void hashesReadAsHiddenValuesForPeople()
    {
        Json a = secret("1", kCanary), b = secret("2", kCanary, "root");
        redactSecret(a, "k");
        redactSecret(b, "k");
        QCOMPARE(describeRedactedValues(a), 3);
        QCOMPARE(describeRedactedValues(b), 3);
        const std::string shown = a["data"]["password"].get<std::string>();
        QVERIFY2(shown.rfind("(hidden value ", 0) == 0 && shown.size() == 23, shown.c_str());
        QVERIFY(a["data"]["password"] == b["data"]["password"]);
        QVERIFY(a["data"]["user"] != b["data"]["user"]);
        Json configMap = {{"apiVersion", "v1"},
                          {"kind", "ConfigMap"},
                          {"data", {{"k", std::string(kRedactedPrefix) + std::string(64, 'a')}}}};
        QCOMPARE(describeRedactedValues(configMap), 0); // only Secrets are touched
    }

    // The key is random per database: the same value hashes differently elsewhere, so a hash says
    // nothing outside its own file.
    void eachDatabaseHashesWithItsOwnKey()
    {
        QTemporaryDir dir;
        std::string hashes[2];
        for (int i = 0; i < 2; ++i) {
            auto store =
                HistoryStore::open(dir.filePath(QString::number(i) + QStringLiteral(".db")).toStdString()).value();
            QVERIFY(store->write({{kSecrets, {watchEvent(HistoryEventType::Added, secret("1", kCanary))}, {}, {}, {}}})
                        .ok());
            hashes[i] =
                store->loadVersion(store->allObjects().value()[0].id, 1).value()["data"]["password"].get<std::string>();
        }
        QVERIFY(isRedactedValue(hashes[0]));
        QVERIFY(hashes[0] != hashes[1]);
    }

    void secretValuesAreStoredWithTheOptIn()
    {
        QTemporaryDir dir;
        HistoryOpenOptions opts;
        opts.recordSecretValues = true;
        auto store = HistoryStore::open(dir.filePath(QStringLiteral("v.db")).toStdString(),
                                        HistoryStore::OpenMode::ReadWrite, opts)
                         .value();
        QVERIFY(store->recordsSecretValues());
        QVERIFY(
            store->write({{kSecrets, {watchEvent(HistoryEventType::Added, secret("1", kCanary))}, {}, {}, {}}}).ok());
        const Json v = store->loadVersion(store->allObjects().value()[0].id, 1).value();
        QCOMPARE(v["data"]["password"].get<std::string>(), base64(kCanary));
    }

    void storeFilesArePrivateWhateverTheUmask_data()
    {
        QTest::addColumn<int>("mask");
        QTest::newRow("022") << 022;
        QTest::newRow("000") << 0;
    }
    void storeFilesArePrivateWhateverTheUmask()
    {
        QFETCH(int, mask);
        QTemporaryDir dir;
        const std::string folder = dir.filePath(QStringLiteral("new/history")).toStdString();
        const std::string path = folder + "/h.db";
        const mode_t old = ::umask(mode_t(mask));
        std::string exported = dir.filePath(QStringLiteral("export.jsonl")).toStdString();
        {
            auto store = HistoryStore::open(path);
            QVERIFY(store.ok());
            QVERIFY((*store)
                        ->write({{kSecrets, {watchEvent(HistoryEventType::Added, secret("1", "x"))}, {}, {}, {}}})
                        .ok());
            QCOMPARE(modeOf(path), 0600);
            QCOMPARE(modeOf(path + "-wal"), 0600); // open while the connection is
            QCOMPARE(modeOf(path + "-shm"), 0600);
            ObjectQuery everything;
            everything.allNamespaces = true;
            QVERIFY(exportJsonLines(**store, everything, exported).ok());
        }
        ::umask(old);
        QCOMPARE(modeOf(path), 0600);
        QCOMPARE(modeOf(folder), 0700);
        QCOMPARE(modeOf(dir.filePath(QStringLiteral("new")).toStdString()), 0700);
        QCOMPARE(modeOf(exported), 0600);
    }

    // A file an earlier version created 0644 in a 0755 app folder is restricted on open.
    void anExistingStoreIsRestricted()
    {
        QTemporaryDir dir;
        const std::string folder = dir.filePath(QStringLiteral("history")).toStdString();
        const std::string path = folder + "/old.db";
        QVERIFY(HistoryStore::open(path).ok());
        ::chmod(path.c_str(), 0644);
        ::chmod(folder.c_str(), 0755);
        HistoryOpenOptions opts;
        opts.folderIsPrivate = true;
        QVERIFY(HistoryStore::open(path, HistoryStore::OpenMode::ReadWrite, opts).ok());
        QCOMPARE(modeOf(path), 0600);
        QCOMPARE(modeOf(folder), 0700);
    }

    void aStoreOfAnotherClusterIsRefused()
    {
        QTemporaryDir dir;
        const std::string path = dir.filePath(QStringLiteral("default.db")).toStdString();
        QVERIFY(HistoryStore::open(path).ok()); // unstamped (as earlier versions left it)
        HistoryOpenOptions a{"sha256:aaaa", "https://a.example:6443", false, false};
        HistoryOpenOptions b{"sha256:bbbb", "https://b.example:6443", false, false};
        {
            auto first = HistoryStore::open(path, HistoryStore::OpenMode::ReadWrite, a);
            QVERIFY(first.ok()); // stamps it
            QCOMPARE((*first)->clusterIdentity(), a.clusterIdentity);
        }
        QVERIFY(HistoryStore::open(path, HistoryStore::OpenMode::ReadWrite, a).ok());
        auto other = HistoryStore::open(path, HistoryStore::OpenMode::ReadWrite, b);
        QVERIFY(!other.ok());
        QCOMPARE(other.error().category, ErrorCategory::Config);
        QVERIFY2(other.error().message.find("belongs to another cluster (https://a.example:6443)") != std::string::npos,
                 other.error().message.c_str());
        QCOMPARE(HistoryStore::open(path, HistoryStore::OpenMode::ReadOnly).value()->clusterLabel(), a.clusterLabel);
    }

    void theRecorderAdoptsAnUnstampedLegacyStoreOnce()
    {
        QTemporaryDir dir;
        const std::string legacy = dir.filePath(QStringLiteral("old/default.db")).toStdString();
        {
            auto store = HistoryStore::open(legacy).value();
            QVERIFY(
                store->write({{kSecrets, {watchEvent(HistoryEventType::Added, secret("1", "x"))}, {}, {}, {}}}).ok());
        }
        HistoryRecorder::Options o;
        o.path = dir.filePath(QStringLiteral("history/default-aaaa.db")).toStdString();
        o.open = {"sha256:aaaa", "https://a", true, false};
        o.adoptFrom = {legacy};
        {
            HistoryRecorder rec(o);
            rec.record(kSecrets, {watchEvent(HistoryEventType::Modified, secret("2", "y"))});
            QVERIFY(rec.flush().ok());
        }
        QVERIFY(!std::filesystem::exists(legacy));
        auto adopted = HistoryStore::open(o.path, HistoryStore::OpenMode::ReadOnly).value();
        QCOMPARE(adopted->stats().value().versions, 2);
        QCOMPARE(adopted->clusterIdentity(), std::string("sha256:aaaa"));
    }

    // A transaction that fails (here a constraint, raised by a trigger) loses its versions: the
    // next transaction that works stores a gap over them, and the failure is signalled.
    void aFailedWriteBecomesAMarkedGap()
    {
        QTemporaryDir dir;
        const std::string path = dir.filePath(QStringLiteral("fail.db")).toStdString();
        storeThatRefusesVersion3(path);
        HistoryRecorder rec({path});
        QSignalSpy failed(&rec, &HistoryRecorder::writeFailed);
        rec.record(kSecrets, {watchEvent(HistoryEventType::Added, secret("1", "a")),
                              watchEvent(HistoryEventType::Modified, secret("2", "b"))});
        QVERIFY(rec.flush().ok());
        rec.record(kSecrets, {watchEvent(HistoryEventType::Modified, secret("3", "c"))});
        auto st = rec.flush();
        QVERIFY(!st.ok());
        QTRY_COMPARE(failed.count(), 1);
        QVERIFY(failed.at(0).at(0).toString().contains(QLatin1String("injected")));
        rec.record(kSecrets, {watchEvent(HistoryEventType::Modified, secret("4", "d"))});
        QVERIFY(rec.flush().ok());
        auto store = HistoryStore::open(path, HistoryStore::OpenMode::ReadOnly).value();
        const auto gaps = store->gaps(kSecrets.id).value();
        QCOMPARE(gaps.size(), std::size_t(1));
        QCOMPARE(gaps[0].fromRv, std::string("2"));
        QCOMPARE(gaps[0].toRv, std::string("3"));
        QVERIFY2(gaps[0].reason.rfind("history write failed: ", 0) == 0, gaps[0].reason.c_str());
        const auto rows = store->history(store->allObjects().value()[0].id).value();
        QCOMPARE(rows.size(), std::size_t(4)); // 1, 2, the gap, 4
        QCOMPARE(rows[2].kind, HistoryEntry::Kind::Gap);
    }

    // A failed list (a relist's difference, here one update) ends its gap at the list's
    // resourceVersion, as a committed one moves the resume point there, not at its last event's.
    void aFailedListsGapEndsAtTheListsResourceVersion()
    {
        QTemporaryDir dir;
        const std::string path = dir.filePath(QStringLiteral("fail-list.db")).toStdString();
        storeThatRefusesVersion3(path);
        HistoryRecorder rec({path});
        rec.record(kSecrets, {watchEvent(HistoryEventType::Added, secret("1", "a")),
                              watchEvent(HistoryEventType::Modified, secret("2", "b"))});
        QVERIFY(rec.flush().ok());
        rec.record(kSecrets, {watchEvent(HistoryEventType::Modified, secret("3", "c"))}, "9");
        QVERIFY(!rec.flush().ok());
        rec.record(kSecrets, {watchEvent(HistoryEventType::Modified, secret("10", "d"))});
        QVERIFY(rec.flush().ok());
        auto store = HistoryStore::open(path, HistoryStore::OpenMode::ReadOnly).value();
        const auto gaps = store->gaps(kSecrets.id).value();
        QCOMPARE(gaps.size(), std::size_t(1));
        QCOMPARE(gaps[0].fromRv, std::string("2"));
        QCOMPARE(gaps[0].toRv, std::string("9"));
    }

    void aRejectedObjectBecomesAMarkedGap()
    {
        QTemporaryDir dir;
        auto store = HistoryStore::open(dir.filePath(QStringLiteral("r.db")).toStdString()).value();
        Json noUid = secret("7", "x");
        noUid["metadata"].erase("uid");
        auto report = store->write({{kSecrets,
                                     {watchEvent(HistoryEventType::Added, secret("6", "x")),
                                      watchEvent(HistoryEventType::Modified, noUid),
                                      {HistoryEventType::Modified, "{not json", 1}},
                                     {},
                                     {},
                                     {}}});
        QVERIFY(report.ok());
        QCOMPARE(report->rejected, 2);
        const auto gaps = store->gaps(kSecrets.id).value();
        QCOMPARE(gaps.size(), std::size_t(2));
        QCOMPARE(gaps[0].toRv, std::string("7"));
        QVERIFY2(gaps[0].reason.find("rejected an object without metadata.uid") == 0, gaps[0].reason.c_str());
        QVERIFY2(gaps[1].reason.find("rejected an object that is not JSON") == 0, gaps[1].reason.c_str());
    }
};

QTEST_GUILESS_MAIN(TestHistorySecrets)
#include "tst_historysecrets.moc"
