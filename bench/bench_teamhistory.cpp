// The team's history store on PostgreSQL against the SQLite file, in one run on one machine, each
// goal printed against its baseline with PASS or MISS (bench/README.md):
//  - versions/s written (kubelet-style status updates of real Pods, 500 per transaction as the
//    recorder commits them), one recorder against the SQLite file (goal >= 1.0x) and four
//    recorders at once against one (goal >= 2x); durable commits on PostgreSQL (fsync and
//    synchronous_commit on: this bench starts its server with FIELDSCOPE_PG_DURABLE=1, the tests'
//    server runs with them off);
//  - the physical baseline: the same version rows loaded by COPY over libpq, 500 per committed
//    transaction (goal: the recorder within 2x of it);
//  - a burst of 10,000 Pod status updates seen by two recorders of one cluster (HistoryRecorder,
//    as `fieldscope record` runs): from the last event handed over to both committed (< 1 s);
//  - the time to open one object's history (open + find + listing + decoding every version) when
//    the store holds 1,000,000 versions of 10,000 objects (goal: under 50 ms);
//  - bytes per stored version: the payload, and what the database holds on disk (tables and
//    indexes) per version;
//  - the cores each rate goal would keep busy at the CPU per version measured, against the
//    machine's (printCoresNeeded): whether this machine could meet it at all.
// It starts its own PostgreSQL (scripts/fieldscope-postgres, a temporary folder) and stops it.
// `bench_teamhistory [--versions N]` (default 1,000,000); a plain executable, not a test.
#include "core/history/historystore.h"
#include "core/history/historywriter.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QProcess>
#include <QTemporaryDir>

#include <libpq-fe.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
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

// PostgreSQL transactions whose bulk write failed and were written again row by row
// (CommitReport::bulkFallback): a figure measured on the row writer would not be the bulk path's.
std::atomic<long long> g_bulkFallbacks{0};

// CPU seconds every process on the machine used so far (/proc/stat: user, nice, system, irq and
// softirq; not idle, iowait, the hypervisor's steal, nor guest time, which user already counts):
// with the server on the same machine, a write's whole cost, client and server.
double machineBusySeconds()
{
    QFile stat(QStringLiteral("/proc/stat"));
    if (!stat.open(QIODevice::ReadOnly))
        return 0;
    const QList<QByteArray> f = stat.readLine().simplified().split(' '); // cpu user nice system idle iowait ...
    double busy = 0;
    for (int i : {1, 2, 3, 6, 7})
        busy += i < f.size() ? f[i].toDouble() : 0;
    return busy / double(sysconf(_SC_CLK_TCK));
}
// Machine CPU seconds per version of the last versionsPerSecond run.
double g_cpuPerVersion = 0;
// Cores the whole machine kept busy from the last burst's first event to its commit.
double g_burstCores = 0;

// Whether each write names the next (HistoryStore::write(items, next)), as the recorder does.
bool g_nameNextWrite = true;
// `writers` threads, each its own connection and its own 500 Pods, 20 versions of each.
double versionsPerSecond(const std::vector<std::string> &locations, const Json &pod, int writers,
                         bool durableFile = false)
{
    constexpr int kPodsPerWriter = 500, kRounds = 20;
    std::vector<std::vector<HistoryStore::Batch>> batches{std::size_t(writers)};
    for (int w = 0; w < writers; ++w)
        for (int r = 0; r < kRounds; ++r) {
            std::vector<WatchEvent> events;
            events.reserve(kPodsPerWriter);
            for (int p = 0; p < kPodsPerWriter; ++p)
                events.push_back({r == 0 ? HistoryEventType::Added : HistoryEventType::Modified,
                                  statusUpdate(pod, "w" + std::to_string(w) + "-" + std::to_string(p),
                                               1000 + (r * writers + w) * kPodsPerWriter + p),
                                  1'784'000'000'000});
            batches[std::size_t(w)].push_back(std::make_shared<const std::vector<HistoryWriteItem>>(
                std::vector<HistoryWriteItem>{{podsScope(), std::move(events), {}, {}}}));
        }
    std::vector<std::unique_ptr<HistoryStore>> stores;
    stores.reserve(std::size_t(writers));
    HistoryOpenOptions options;
    options.clusterIdentity = "sha256:bench";
    options.durableCommits = durableFile;
    for (int w = 0; w < writers; ++w)
        stores.push_back(openOrDie(locations[std::size_t(w)], HistoryStore::OpenMode::ReadWrite, options));
    QElapsedTimer t;
    t.start();
    const double busyBefore = machineBusySeconds();
    std::vector<std::thread> threads;
    threads.reserve(std::size_t(writers));
    for (int w = 0; w < writers; ++w)
        threads.emplace_back([&, w] {
            // Each write names the next, as a HistoryRecorder that has it queued does: it is read
            // while the one before is written (HistoryStore::write).
            const auto &mine = batches[std::size_t(w)];
            for (std::size_t b = 0; b < mine.size(); ++b)
                if (auto r = stores[std::size_t(w)]->write(mine[b], g_nameNextWrite && b + 1 < mine.size() ? mine[b + 1]
                                                                                                           : nullptr);
                    !r)
                    qFatal("%s", r.error().describe().c_str());
                else if (!r->bulkFallback.empty())
                    ++g_bulkFallbacks;
        });
    for (auto &th : threads)
        th.join();
    const double seconds = double(t.nsecsElapsed()) / 1e9;
    g_cpuPerVersion = (machineBusySeconds() - busyBefore) / double(writers * kPodsPerWriter * kRounds);
    return double(writers * kPodsPerWriter * kRounds) / seconds;
}

// Transactions the last recorderPerSecond run committed.
std::int64_t g_recorderTransactions = 0;

// One HistoryRecorder (as `fieldscope record` runs) handed the same 500 Pods x 20 versions in
// watch batches of 500 as fast as it takes them: its own writer thread decides how many go into
// one transaction (up to Options::maxEventsPerTransaction), as it does when a watch outruns it.
double recorderPerSecond(const std::string &location, const Json &pod, bool durableFile = false)
{
    constexpr int kPods = 500, kRounds = 20;
    std::vector<std::vector<WatchEvent>> batches;
    for (int r = 0; r < kRounds; ++r) {
        std::vector<WatchEvent> events;
        events.reserve(kPods);
        for (int p = 0; p < kPods; ++p)
            events.push_back({r == 0 ? HistoryEventType::Added : HistoryEventType::Modified,
                              statusUpdate(pod, "r-" + std::to_string(p), 1000 + r * kPods + p),
                              QDateTime::currentMSecsSinceEpoch()}); // older ones its 30-day retention prunes
        batches.push_back(std::move(events));
    }
    HistoryRecorder::Options options;
    options.path = location;
    options.open.clusterIdentity = "sha256:bench";
    options.open.durableCommits = durableFile;
    HistoryRecorder rec(options);
    // The store is opened (and a new one made) by the first write: not timed.
    rec.record(podsScope(),
               {{HistoryEventType::Added, statusUpdate(pod, "warm-up", 999), QDateTime::currentMSecsSinceEpoch()}});
    if (auto st = rec.flush(); !st)
        qFatal("%s", st.error().describe().c_str());
    QElapsedTimer t;
    t.start();
    for (auto &events : batches)
        rec.record(podsScope(), std::move(events));
    if (auto st = rec.flush(); !st)
        qFatal("%s", st.error().describe().c_str());
    const double seconds = double(t.nsecsElapsed()) / 1e9;
    const auto c = rec.counters();
    if (c.committedVersions != kPods * kRounds + 1)
        qFatal("the recorder stored %lld versions, not %d", (long long)c.committedVersions, kPods * kRounds + 1);
    g_recorderTransactions = c.transactions - 1;
    g_bulkFallbacks += c.bulkFallbacks;
    return double(kPods * kRounds) / seconds;
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

std::string pgValue(PGconn *c, const char *sql)
{
    PGresult *r = PQexec(c, sql);
    if (PQresultStatus(r) != PGRES_TUPLES_OK && PQresultStatus(r) != PGRES_COMMAND_OK)
        qFatal("%s: %s", sql, PQresultErrorMessage(r));
    std::string v = PQresultStatus(r) == PGRES_TUPLES_OK && PQntuples(r) > 0 ? PQgetvalue(r, 0, 0) : "";
    PQclear(r);
    return v;
}

long long pgBytesOnDisk(const std::string &url)
{
    PGconn *c = PQconnectdb(url.c_str());
    const std::string v = pgValue(c, "SELECT sum(pg_total_relation_size(c.oid)) FROM pg_class c JOIN pg_namespace n"
                                     " ON n.oid = c.relnamespace WHERE n.nspname LIKE 'fieldscope_c%' AND"
                                     " c.relkind = 'r' AND c.relname <> 'copy_baseline'");
    PQfinish(c);
    return v.empty() ? -1 : std::atoll(v.c_str());
}

void createDatabase(const std::string &adminUrl, const char *name)
{
    PGconn *c = PQconnectdb(adminUrl.c_str());
    PQsetNoticeProcessor(
        c, [](void *, const char *) {}, nullptr);
    pgValue(c, (std::string("DROP DATABASE IF EXISTS ") + name).c_str());
    pgValue(c, (std::string("CREATE DATABASE ") + name).c_str());
    PQfinish(c);
}

// The test server runs without fsync (scripts/fieldscope-postgres); this bench starts it with
// FIELDSCOPE_PG_DURABLE=1 and prints what the server says it runs with.
std::string durability(const std::string &adminUrl)
{
    PGconn *c = PQconnectdb(adminUrl.c_str());
    std::string settings = "fsync=" + pgValue(c, "SHOW fsync")
                         + ", synchronous_commit=" + pgValue(c, "SHOW synchronous_commit")
                         + ", full_page_writes=" + pgValue(c, "SHOW full_page_writes")
                         + ", wal_sync_method=" + pgValue(c, "SHOW wal_sync_method");
    PQfinish(c);
    return settings;
}

std::string urlOf(const QString &pgDir, const char *database)
{
    QProcess p;
    p.start(QStringLiteral(FIELDSCOPE_PG_SCRIPT), {QStringLiteral("url"), pgDir, QString::fromLatin1(database)});
    p.waitForFinished();
    return QString::fromUtf8(p.readAllStandardOutput()).trimmed().toStdString();
}

// The physical baseline: the rows the recorder stored into `db`, read back, then loaded by COPY
// over libpq into a table like versions (same columns and indexes), 500 rows per committed
// transaction as the recorder commits them. Versions/s.
double copyBaseline(const std::string &url)
{
    PGconn *c = PQconnectdb(url.c_str());
    const std::string schema = pgValue(c, "SELECT schema_name FROM fieldscope.stores ORDER BY id LIMIT 1");
    pgValue(c, ("SET search_path TO " + schema).c_str());
    pgValue(c, "CREATE TABLE copy_baseline (LIKE versions INCLUDING ALL)");
    std::vector<std::string> rows;
    PGresult *r = PQexec(c, "COPY (SELECT * FROM versions ORDER BY id) TO STDOUT");
    if (PQresultStatus(r) != PGRES_COPY_OUT)
        qFatal("COPY TO: %s", PQerrorMessage(c));
    PQclear(r);
    char *line = nullptr;
    int n;
    while ((n = PQgetCopyData(c, &line, 0)) > 0) {
        rows.emplace_back(line, std::size_t(n));
        PQfreemem(line);
    }
    while ((r = PQgetResult(c)))
        PQclear(r);
    QElapsedTimer t;
    t.start();
    for (std::size_t first = 0; first < rows.size(); first += 500) {
        pgValue(c, "BEGIN");
        r = PQexec(c, "COPY copy_baseline FROM STDIN");
        if (PQresultStatus(r) != PGRES_COPY_IN)
            qFatal("COPY FROM: %s", PQerrorMessage(c));
        PQclear(r);
        std::string chunk;
        for (std::size_t i = first; i < std::min(rows.size(), first + 500); ++i)
            chunk += rows[i];
        if (PQputCopyData(c, chunk.data(), int(chunk.size())) != 1 || PQputCopyEnd(c, nullptr) != 1)
            qFatal("COPY: %s", PQerrorMessage(c));
        while ((r = PQgetResult(c))) {
            if (PQresultStatus(r) != PGRES_COMMAND_OK)
                qFatal("COPY: %s", PQresultErrorMessage(r));
            PQclear(r);
        }
        pgValue(c, "COMMIT");
    }
    const double rate = double(rows.size()) / (double(t.nsecsElapsed()) / 1e9);
    PQfinish(c);
    return rate;
}

// Whether this machine could meet the three rate goals at all. The server shares the machine's
// cores with the recorders, so a goal's rate times the whole machine's CPU per version measured
// (recorders, server and the rest) is the cores it keeps busy: a floor, reached only with every
// core busy all the time. One recorder into the file keeps fewer busy than its PostgreSQL twin,
// whose server does in its own process what SQLite does inside the recorder, and more.
struct GoalRates {
    double file1, pg1, copy; // versions/s: the file (FULL), PostgreSQL with 1 recorder, COPY
};
struct CpuPerVersion {
    double file1, pg1, pg4; // machine CPU seconds per version in the same runs
};
void printCoresNeeded(double cores, const GoalRates &r, const CpuPerVersion &c)
{
    const auto line = [&](const char *what, double needed) {
        std::printf("  %-58s %5.2f cores  %s\n", what, needed,
                    needed <= cores ? "within this machine" : "more than this machine has");
    };
    std::printf("\ncores each rate goal keeps busy at the CPU per version measured (a floor: every core busy all the "
                "time); this machine has %g\n",
                cores);
    line("one recorder into the file, as measured", r.file1 * c.file1);
    line("one recorder into PostgreSQL, as measured", r.pg1 * c.pg1);
    line("goal 1: one recorder into PostgreSQL at the file's rate", r.file1 * c.pg1);
    line("goal 2: four recorders at twice one recorder's rate", 2 * r.pg1 * c.pg4);
    line("goal 3: one recorder within 2x of COPY", r.copy / 2 * c.pg1);
    line("goals 1 and 2 at once (four at twice the file's rate)", 2 * r.file1 * c.pg4);
    // Goal 2 asks one recorder to keep at most half of the cores busy (four then double it within
    // them); goal 1 asks it to keep more than that busy.
    std::printf("  four recorders can reach at most %.2fx of one here (all cores at four's CPU per version)\n",
                cores / c.pg4 / r.pg1);
}

// Two recorders of one cluster (HistoryRecorder, as `fieldscope record` runs) both watch 10,000
// Pods. After their first list, each is handed the same burst of 10,000 status updates in watch
// batches of 500; returns the seconds from the last batch handed over until both committed.
double burstSeconds(const std::string &url, const Json &pod)
{
    constexpr int kPods = 10'000, kWatchBatch = 500;
    auto eventsOf = [&](int round) {
        std::vector<std::vector<WatchEvent>> batches;
        for (int first = 0; first < kPods; first += kWatchBatch) {
            std::vector<WatchEvent> events;
            for (int p = first; p < first + kWatchBatch; ++p)
                events.push_back({round == 0 ? HistoryEventType::Added : HistoryEventType::Modified,
                                  statusUpdate(pod, "burst-" + std::to_string(p), 5'000'000 + round * kPods + p),
                                  QDateTime::currentMSecsSinceEpoch()});
            batches.push_back(std::move(events));
        }
        return batches;
    };
    std::vector<std::unique_ptr<HistoryRecorder>> recorders;
    for (const char *name : {"burst-a", "burst-b"}) {
        HistoryRecorder::Options options;
        options.path = url;
        options.open.clusterIdentity = "sha256:bench-burst";
        options.open.recorderName = name;
        recorders.push_back(std::make_unique<HistoryRecorder>(options));
    }
    auto feed = [&](const std::vector<std::vector<WatchEvent>> &batches) {
        for (auto &events : batches)
            for (auto &rec : recorders)
                rec->record(podsScope(), events);
    };
    auto flushAll = [&] {
        for (auto &rec : recorders)
            if (auto st = rec->flush(); !st)
                qFatal("%s", st.error().describe().c_str());
    };
    feed(eventsOf(0));
    flushAll();
    const auto burst = eventsOf(1);
    QElapsedTimer t;
    const double busyBefore = machineBusySeconds();
    QElapsedTimer sinceFirst;
    sinceFirst.start();
    feed(burst);
    t.start(); // the last event was handed over
    flushAll();
    const double seconds = double(t.nsecsElapsed()) / 1e9;
    g_burstCores = (machineBusySeconds() - busyBefore) / (double(sinceFirst.nsecsElapsed()) / 1e9);
    std::int64_t committed = 0;
    for (auto &rec : recorders) {
        committed += rec->counters().committedVersions;
        g_bulkFallbacks += rec->counters().bulkFallbacks;
    }
    if (committed != 2LL * kPods)
        qFatal("the burst stored %lld versions, not %d", (long long)committed, 2 * kPods);
    return seconds;
}

// The burst into three fresh databases, printed; the median seconds (a single burst moved by
// ±25% between runs on this shared machine).
double burstMedian(const std::string &admin, const QString &pgDir, const Json &pod)
{
    std::vector<double> runs;
    for (int run = 0; run < 3; ++run) {
        const std::string db = "bench_burst" + std::to_string(run);
        createDatabase(admin, db.c_str());
        runs.push_back(burstSeconds(urlOf(pgDir, db.c_str()), pod));
        std::printf("  burst %d: %.2f s after the last event; %.2f cores busy from its first event on\n", run,
                    runs.back(), g_burstCores);
    }
    std::sort(runs.begin(), runs.end());
    std::printf("\nburst: 10,000 Pod updates to two recorders, committed %.2f s after the last event (median; runs "
                "%.2f, %.2f, %.2f s)\n",
                runs[1], runs[0], runs[1], runs[2]);
    std::printf("bulk writes done again row by row so far: %lld (each is logged with its reason)\n",
                g_bulkFallbacks.load());
    return runs[1];
}

void stopPostgres(const QString &pgDir)
{
    QProcess stop;
    stop.start(QStringLiteral(FIELDSCOPE_PG_SCRIPT), {QStringLiteral("stop"), pgDir, QStringLiteral("--purge")});
    stop.waitForFinished(60000);
}

const char *verdict(bool pass)
{
    return pass ? "PASS" : "MISS";
}

} // namespace

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    long long versions = 1'000'000;
    bool ratesOnly = false; // --rates-only: the versions/s table alone (for profiling the write path)
    bool burstOnly = false; // --burst-only: the burst alone (for profiling the recorders' reads)
    for (int i = 1; i < argc; ++i)
        if (std::strcmp(argv[i], "--versions") == 0 && i + 1 < argc)
            versions = std::atoll(argv[i + 1]);
        else if (std::strcmp(argv[i], "--rates-only") == 0)
            ratesOnly = true;
        else if (std::strcmp(argv[i], "--burst-only") == 0)
            burstOnly = true;
    QTemporaryDir dir;
    // Run as root, the script starts PostgreSQL as the postgres user, who must reach its folder.
    QFile::setPermissions(dir.path(), QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner | QFile::ExeOther);
    const QString pgDir = dir.filePath(QStringLiteral("postgres"));
    QProcess start;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("FIELDSCOPE_PG_DURABLE"), QStringLiteral("1"));
    start.setProcessEnvironment(env);
    start.start(QStringLiteral(FIELDSCOPE_PG_SCRIPT), {QStringLiteral("start"), pgDir});
    if (!start.waitForFinished(120000) || start.exitCode() != 0)
        qFatal("cannot start PostgreSQL: %s", start.readAllStandardError().constData());
    const std::string admin = urlOf(pgDir, "postgres");
    const std::string durable = durability(admin);
    // What each SQLite store says it runs with (HistoryStore::durability), not what is assumed.
    const auto fileSays = [&](bool durableCommits) {
        HistoryOpenOptions options;
        options.durableCommits = durableCommits;
        const std::string file = dir.filePath(durableCommits ? QStringLiteral("says-full.db")
                                                             : QStringLiteral("says-normal.db"))
                                     .toStdString();
        return openOrDie(file, HistoryStore::OpenMode::ReadWrite, options)->durability().value();
    };
    std::printf("PostgreSQL over its local socket: %s\n"
                "SQLite file, WAL: %s (durable: each commit reaches the disk, as PostgreSQL's) and %s (the file "
                "store's default: a commit survives a crash of the app, and is flushed at checkpoints)\n\n",
                durable.c_str(), fileSays(true).c_str(), fileSays(false).c_str());

    const Json pod = loadPod();
    if (burstOnly) {
        burstMedian(admin, pgDir, pod);
        stopPostgres(pgDir);
        return 0;
    }
    std::printf("%-40s %10s %10s %11s %8s %8s\n", "versions/s written (real Pods, 500/commit)", "SQLite", "SQLite",
                "PostgreSQL", "ratio", "ratio");
    std::printf("%-40s %10s %10s %11s %8s %8s\n", "(median of 3 runs)", "FULL", "NORMAL", "", "/FULL", "/NORMAL");
    // Each figure is the median of three runs, the three stores' runs interleaved, each into a
    // fresh file or database: this shared 2-core machine's load drifts within seconds.
    constexpr int kRuns = 3;
    double rate[3][2] = {};      // [sqlite FULL, pg, sqlite NORMAL][1, 4 writers]
    std::vector<double> cpu[2];  // PostgreSQL runs: machine CPU seconds per version [1, 4 writers]
    std::vector<double> cpuFile; // the same for one recorder into the SQLite file (FULL)
    double recorderRate[3] = {}; // [sqlite FULL, pg, sqlite NORMAL], one HistoryRecorder
    // The third row: one recorder whose writes do not name the next (as before the next write
    // was read meanwhile), to show what that reading gives each store.
    for (const int row : {0, 1, 2}) {
        const int writers = row == 1 ? 4 : 1;
        g_nameNextWrite = row != 2;
        std::vector<double> runs[3];
        for (int run = 0; run < kRuns; ++run) {
            const std::string db = std::string(row == 0   ? "bench_one"
                                               : row == 1 ? "bench_four"
                                                          : "bench_alone")
                                 + std::to_string(run);
            createDatabase(admin, db.c_str());
            const auto files = [&](const char *suffix) {
                return std::vector<std::string>(
                    std::size_t(writers), dir.filePath(QString::fromStdString(db + suffix + ".db")).toStdString());
            };
            runs[0].push_back(versionsPerSecond(files("-full"), pod, writers, true));
            if (row == 0)
                cpuFile.push_back(g_cpuPerVersion);
            runs[2].push_back(versionsPerSecond(files(""), pod, writers));
            runs[1].push_back(versionsPerSecond(std::vector<std::string>(std::size_t(writers),
                                                                         urlOf(pgDir, db.c_str())),
                                                pod, writers));
            if (row < 2)
                cpu[writers == 4].push_back(g_cpuPerVersion);
        }
        double median[3] = {};
        for (int store = 0; store < 3; ++store) {
            std::sort(runs[store].begin(), runs[store].end());
            median[store] = runs[store][kRuns / 2];
            if (row < 2)
                rate[store][writers == 4] = median[store];
        }
        const char *label = row == 0 ? "  1 recorder"
                          : row == 1 ? "  4 recorders at once"
                                     : "  1 recorder, no write named next";
        std::printf("%-40s %10.0f %10.0f %11.0f %7.2fx %7.2fx\n", label, median[0], median[2], median[1],
                    median[1] / median[0], median[1] / median[2]);
    }
    g_nameNextWrite = true;
    // The same rows through the recorder itself, which batches what it is behind on.
    {
        std::vector<double> runs[3];
        std::vector<std::int64_t> transactions;
        for (int run = 0; run < kRuns; ++run) {
            const std::string db = "bench_recorder" + std::to_string(run);
            createDatabase(admin, db.c_str());
            const auto file = [&](const char *suffix) {
                return dir.filePath(QString::fromStdString(db + suffix + ".db")).toStdString();
            };
            runs[0].push_back(recorderPerSecond(file("-full"), pod, true));
            runs[2].push_back(recorderPerSecond(file(""), pod));
            runs[1].push_back(recorderPerSecond(urlOf(pgDir, db.c_str()), pod));
            transactions.push_back(g_recorderTransactions);
        }
        for (int store = 0; store < 3; ++store) {
            std::sort(runs[store].begin(), runs[store].end());
            recorderRate[store] = runs[store][kRuns / 2];
        }
        std::printf("%-40s %10.0f %10.0f %11.0f %7.2fx %7.2fx\n", "  1 HistoryRecorder, its own batching",
                    recorderRate[0], recorderRate[2], recorderRate[1], recorderRate[1] / recorderRate[0],
                    recorderRate[1] / recorderRate[2]);
        std::printf("    (PostgreSQL: %lld, %lld and %lld transactions for the 10,000 versions)\n",
                    (long long)transactions[0], (long long)transactions[1], (long long)transactions[2]);
    }
    // What two cores allow: the whole machine's CPU per version (recorders, server, the rest),
    // the ceiling any number of recorders meets once they keep both cores busy.
    for (auto &c : cpu)
        std::sort(c.begin(), c.end());
    std::sort(cpuFile.begin(), cpuFile.end());
    const auto cores = double(std::thread::hardware_concurrency());
    std::printf("  CPU per PostgreSQL version, all processes: %.1f us (1 recorder), %.1f us (4); %g cores allow at "
                "most %.0f versions/s\n",
                cpu[0][kRuns / 2] * 1e6, cpu[1][kRuns / 2] * 1e6, cores, cores / cpu[1][kRuns / 2]);
    if (ratesOnly) {
        stopPostgres(pgDir);
        return 0;
    }
    const double copyRate = copyBaseline(urlOf(pgDir, "bench_one0"));
    std::printf("  the same rows by COPY over libpq (500/commit) %29.0f\n", copyRate);

    const double burst = burstMedian(admin, pgDir, pod);

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

    std::printf("\n%-46s %-22s %-22s %-10s %s\n", "goal", "baseline", "measured", "target", "");
    std::printf("%-46s %-22s %-22s %-10s %5.2fx %s\n", "1 recorder into PostgreSQL vs the SQLite file",
                (std::to_string(long(rate[0][0])) + " versions/s").c_str(),
                (std::to_string(long(rate[1][0])) + " versions/s").c_str(), ">= 1.0x", rate[1][0] / rate[0][0],
                verdict(rate[1][0] >= rate[0][0]));
    std::printf("%-46s %-22s %-22s %-10s %5.2fx %s\n", "  the same, vs the file at synchronous=NORMAL",
                (std::to_string(long(rate[2][0])) + " versions/s").c_str(),
                (std::to_string(long(rate[1][0])) + " versions/s").c_str(), "(>= 1.0x)", rate[1][0] / rate[2][0],
                verdict(rate[1][0] >= rate[2][0]));
    std::printf("%-46s %-22s %-22s %-10s %5.2fx %s\n", "  the same, one HistoryRecorder (its batching)",
                (std::to_string(long(recorderRate[0])) + " versions/s").c_str(),
                (std::to_string(long(recorderRate[1])) + " versions/s").c_str(), "(>= 1.0x)",
                recorderRate[1] / recorderRate[0], verdict(recorderRate[1] >= recorderRate[0]));
    std::printf("%-46s %-22s %-22s %-10s %5.2fx %s\n", "4 recorders vs 1 (PostgreSQL)",
                (std::to_string(long(rate[1][0])) + " versions/s").c_str(),
                (std::to_string(long(rate[1][1])) + " versions/s").c_str(), ">= 2x", rate[1][1] / rate[1][0],
                verdict(rate[1][1] >= 2 * rate[1][0]));
    std::printf("%-46s %-22s %-22s %-10s %5.2fx %s\n", "COPY of the same rows vs the recorder",
                (std::to_string(long(copyRate)) + " versions/s").c_str(),
                (std::to_string(long(rate[1][0])) + " versions/s").c_str(), "<= 2x", copyRate / rate[1][0],
                verdict(copyRate <= 2 * rate[1][0]));
    std::printf("%-46s %-22s %-22s %-10s %5s  %s\n", "burst of 10,000 versions, two recorders", "last event",
                (std::to_string(int(burst * 1000)) + " ms to committed").c_str(), "< 1 s", "", verdict(burst < 1.0));
    std::printf("%-46s %-22s %-22s %-10s %5s  %s\n",
                ("open one history among " + std::to_string(versions) + " versions").c_str(),
                (std::to_string(openSqlite).substr(0, 4) + " ms (SQLite)").c_str(),
                (std::to_string(openPg).substr(0, 4) + " ms").c_str(), "< 50 ms", "", verdict(openPg < 50));

    printCoresNeeded(cores, {rate[0][0], rate[1][0], copyRate},
                     {cpuFile[kRuns / 2], cpu[0][kRuns / 2], cpu[1][kRuns / 2]});

    stopPostgres(pgDir);
    return 0;
}
