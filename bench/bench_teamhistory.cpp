// The team's history store on PostgreSQL against the SQLite file, in one run on one machine:
//  - versions/s written (kubelet-style status updates of real Pods, 500 per transaction as the
//    recorder commits them), with one recorder and with four recording at once;
//  - the time to open one object's history (open + find + listing + decoding every version) when
//    the store holds 1,000,000 versions of 10,000 objects (goal: under 50 ms);
//  - bytes per stored version: the payload, and what the database holds on disk (tables and
//    indexes) per version.
// It starts its own PostgreSQL (scripts/fieldscope-postgres, a temporary folder) and stops it.
// `bench_teamhistory [--versions N]` (default 1,000,000); a plain executable, not a test.
#include "core/history/historystore.h"

#include <QDateTime>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QProcess>
#include <QTemporaryDir>

#include <libpq-fe.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

using namespace fieldscope::core;

namespace {

Json loadPod()
{
    QFile f(QStringLiteral(FIELDSCOPE_BENCH_POD));
    if (!f.open(QIODevice::ReadOnly))
        qFatal("cannot read %s", FIELDSCOPE_BENCH_POD);
    return parseJson(f.readAll().toStdString()).value();
}

std::string statusUpdate(Json pod, const std::string &uid, long long rv)
{
    pod["metadata"]["uid"] = uid;
    pod["metadata"]["name"] = "pod-" + uid;
    pod["metadata"]["resourceVersion"] = std::to_string(rv);
    pod["status"]["conditions"][1]["status"] = rv % 2 ? "False" : "True";
    pod["status"]["containerStatuses"][0]["restartCount"] = rv / 7;
    pod["metadata"]["managedFields"][1]["time"] = "2026-07-20T10:" + std::to_string(10 + rv % 50) + ":0"
                                                + std::to_string(rv % 10) + "Z";
    return toJsonText(pod);
}

// A small ConfigMap: the million-version store is about the number of rows, not their size.
std::string smallConfigMap(int object, long long rv)
{
    return R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm-)" + std::to_string(object)
         + R"(","namespace":"bench","uid":"uid-)" + std::to_string(object) + R"(","resourceVersion":")"
         + std::to_string(rv) + R"("},"data":{"step":")" + std::to_string(rv) + R"("}})";
}

const WatchScope &podsScope()
{
    static const WatchScope scope = WatchScope::of({"", "v1", "pods"}, "bench");
    return scope;
}

const WatchScope &mapsScope()
{
    static const WatchScope scope = WatchScope::of({"", "v1", "configmaps"}, "bench");
    return scope;
}

std::unique_ptr<HistoryStore> openOrDie(const std::string &location, HistoryStore::OpenMode mode,
                                        const HistoryOpenOptions &options = {})
{
    auto s = HistoryStore::open(location, mode, options);
    if (!s)
        qFatal("%s", s.error().describe().c_str());
    return std::move(*s);
}

// `writers` threads, each its own connection and its own 500 Pods, 20 versions of each.
double versionsPerSecond(const std::vector<std::string> &locations, const Json &pod, int writers)
{
    constexpr int kPodsPerWriter = 500, kRounds = 20;
    std::vector<std::vector<std::vector<WatchEvent>>> batches{std::size_t(writers)};
    for (int w = 0; w < writers; ++w)
        for (int r = 0; r < kRounds; ++r) {
            std::vector<WatchEvent> events;
            events.reserve(kPodsPerWriter);
            for (int p = 0; p < kPodsPerWriter; ++p)
                events.push_back({r == 0 ? HistoryEventType::Added : HistoryEventType::Modified,
                                  statusUpdate(pod, "w" + std::to_string(w) + "-" + std::to_string(p),
                                               1000 + (r * writers + w) * kPodsPerWriter + p),
                                  1'784'000'000'000});
            batches[std::size_t(w)].push_back(std::move(events));
        }
    std::vector<std::unique_ptr<HistoryStore>> stores;
    stores.reserve(std::size_t(writers));
    HistoryOpenOptions options;
    options.clusterIdentity = "sha256:bench";
    for (int w = 0; w < writers; ++w)
        stores.push_back(openOrDie(locations[std::size_t(w)], HistoryStore::OpenMode::ReadWrite, options));
    QElapsedTimer t;
    t.start();
    std::vector<std::thread> threads;
    threads.reserve(std::size_t(writers));
    for (int w = 0; w < writers; ++w)
        threads.emplace_back([&, w] {
            for (auto &events : batches[std::size_t(w)])
                if (auto r = stores[std::size_t(w)]->write({{podsScope(), std::move(events), {}, {}}}); !r)
                    qFatal("%s", r.error().describe().c_str());
        });
    for (auto &th : threads)
        th.join();
    return double(writers * kPodsPerWriter * kRounds) / (double(t.nsecsElapsed()) / 1e9);
}

// 10,000 objects x versions/10,000 versions, written as a recorder would (2,000 per transaction).
void fill(const std::string &location, long long versions)
{
    HistoryOpenOptions options;
    options.clusterIdentity = "sha256:bench-big";
    auto store = openOrDie(location, HistoryStore::OpenMode::ReadWrite, options);
    constexpr int kObjects = 10'000;
    const long long perObject = std::max(1LL, versions / kObjects);
    long long rv = 1;
    for (long long n = 0; n < perObject; ++n)
        for (int first = 0; first < kObjects; first += 2000) {
            std::vector<WatchEvent> events;
            for (int o = first; o < first + 2000; ++o)
                events.push_back({n == 0 ? HistoryEventType::Added : HistoryEventType::Modified,
                                  smallConfigMap(o, ++rv), 1'784'000'000'000 + rv});
            if (auto r = store->write({{mapsScope(), std::move(events), {}, {}}}); !r)
                qFatal("%s", r.error().describe().c_str());
        }
}

// Median of 9 opens of one object's history, in ms.
double openHistoryMs(const std::string &location)
{
    std::vector<double> times;
    for (int i = 0; i < 9; ++i) {
        QElapsedTimer t;
        t.start();
        auto store = openOrDie(location, HistoryStore::OpenMode::ReadOnly);
        ObjectQuery q;
        q.resource = "configmaps";
        q.namespace_ = "bench";
        q.name = "cm-" + std::to_string(1234 + i);
        const auto objects = store->findObjects(q).value();
        if (objects.size() != 1)
            qFatal("object not found");
        const auto rows = store->history(objects[0].id).value();
        const auto decoded = store->loadAllVersions(objects[0].id).value();
        if (rows.empty() || decoded.empty())
            qFatal("empty history");
        times.push_back(double(t.nsecsElapsed()) / 1e6);
    }
    std::sort(times.begin(), times.end());
    return times[times.size() / 2];
}

long long pgBytesOnDisk(const std::string &url)
{
    PGconn *c = PQconnectdb(url.c_str());
    PGresult *r = PQexec(c, "SELECT sum(pg_total_relation_size(c.oid)) FROM pg_class c JOIN pg_namespace n ON "
                            "n.oid = c.relnamespace WHERE n.nspname LIKE 'fieldscope_c%' AND c.relkind = 'r'");
    const long long bytes = PQntuples(r) == 1 ? std::atoll(PQgetvalue(r, 0, 0)) : -1;
    PQclear(r);
    PQfinish(c);
    return bytes;
}

void createDatabase(const std::string &adminUrl, const char *name)
{
    PGconn *c = PQconnectdb(adminUrl.c_str());
    PGresult *r = PQexec(c, (std::string("DROP DATABASE IF EXISTS ") + name).c_str());
    PQclear(r);
    r = PQexec(c, (std::string("CREATE DATABASE ") + name).c_str());
    if (PQresultStatus(r) != PGRES_COMMAND_OK)
        qFatal("%s", PQresultErrorMessage(r));
    PQclear(r);
    PQfinish(c);
}

std::string urlOf(const QString &pgDir, const char *database)
{
    QProcess p;
    p.start(QStringLiteral(FIELDSCOPE_PG_SCRIPT), {QStringLiteral("url"), pgDir, QString::fromLatin1(database)});
    p.waitForFinished();
    return QString::fromUtf8(p.readAllStandardOutput()).trimmed().toStdString();
}

} // namespace

int main(int argc, char **argv)
{
    long long versions = 1'000'000;
    for (int i = 1; i + 1 < argc; ++i)
        if (std::strcmp(argv[i], "--versions") == 0)
            versions = std::atoll(argv[i + 1]);
    QTemporaryDir dir;
    // Run as root, the script starts PostgreSQL as the postgres user, who must reach its folder.
    QFile::setPermissions(dir.path(), QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner | QFile::ExeOther);
    const QString pgDir = dir.filePath(QStringLiteral("postgres"));
    QProcess start;
    start.start(QStringLiteral(FIELDSCOPE_PG_SCRIPT), {QStringLiteral("start"), pgDir});
    if (!start.waitForFinished(120000) || start.exitCode() != 0)
        qFatal("cannot start PostgreSQL: %s", start.readAllStandardError().constData());
    const std::string admin = urlOf(pgDir, "postgres");
    std::printf("PostgreSQL (scripts/fieldscope-postgres: local socket, fsync off as in the tests) against SQLite "
                "(WAL, synchronous=NORMAL), one run on this machine\n\n");

    const Json pod = loadPod();
    std::printf("%-44s %12s %12s %8s\n", "versions/s written (real Pods, 500/commit)", "SQLite", "PostgreSQL", "ratio");
    for (int writers : {1, 4}) {
        const char *db = writers == 1 ? "bench_one" : "bench_four";
        createDatabase(admin, db);
        const std::string file = dir.filePath(QStringLiteral("%1.db").arg(QLatin1String(db))).toStdString();
        const double sqlite = versionsPerSecond(std::vector<std::string>(std::size_t(writers), file), pod, writers);
        const double pg = versionsPerSecond(std::vector<std::string>(std::size_t(writers), urlOf(pgDir, db)), pod,
                                            writers);
        std::printf("  %d recorder%-32s %12.0f %12.0f %7.2fx\n", writers, writers == 1 ? "" : "s at once", sqlite, pg,
                    pg / sqlite);
    }

    createDatabase(admin, "bench_big");
    const std::string bigFile = dir.filePath(QStringLiteral("big.db")).toStdString();
    const std::string bigUrl = urlOf(pgDir, "bench_big");
    QElapsedTimer t;
    t.start();
    fill(bigFile, versions);
    const double fillSqlite = double(t.restart()) / 1000;
    fill(bigUrl, versions);
    const double fillPg = double(t.elapsed()) / 1000;
    std::printf("\n%lld versions of 10,000 objects written in %.0f s (SQLite) and %.0f s (PostgreSQL)\n", versions,
                fillSqlite, fillPg);
    const double openSqlite = openHistoryMs(bigFile), openPg = openHistoryMs(bigUrl);
    std::printf("%-44s %10.1f ms %10.1f ms   (goal < 50 ms)\n", "open one object's history (median of 9)", openSqlite,
                openPg);

    const auto sqliteStats = openOrDie(bigFile, HistoryStore::OpenMode::ReadOnly)->stats().value();
    const auto pgStats = openOrDie(bigUrl, HistoryStore::OpenMode::ReadOnly)->stats().value();
    const long long fileBytes = QFileInfo(QString::fromStdString(bigFile)).size()
                              + QFileInfo(QString::fromStdString(bigFile + "-wal")).size();
    std::printf("%-44s %10.1f B  %10.1f B\n", "payload per version (compressed)",
                double(sqliteStats.storedBytes) / double(sqliteStats.versions),
                double(pgStats.storedBytes) / double(pgStats.versions));
    std::printf("%-44s %10.1f B  %10.1f B\n", "on disk per version (tables + indexes)",
                double(fileBytes) / double(sqliteStats.versions),
                double(pgBytesOnDisk(bigUrl)) / double(pgStats.versions));

    QProcess stop;
    stop.start(QStringLiteral(FIELDSCOPE_PG_SCRIPT), {QStringLiteral("stop"), pgDir, QStringLiteral("--purge")});
    stop.waitForFinished(60000);
    return 0;
}
