// History store figures: sustained recording rate through HistoryRecorder (target
// >= 10,000 versions/s), median stored bytes per small (status-only) update, and the time to open
// a 1,000-version history (open + listing + decoding every version + attribution; target < 200 ms),
// and the History tab's data for 1,000 versions of a 1 MiB object (rows + the shown pair; target
// < 2 s and < 300 MB peak RSS, measured in a child process so the set-up does not count).
// A plain executable: `bench_history [pod.json]`; not a test.
#include "core/history/historyquery.h"
#include "core/history/historywriter.h"
#include "models/historyversions.h"
#include "models/objecthistorymodel.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QElapsedTimer>
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>

#include <algorithm>
#include <cstdio>
#include <cstring>

using namespace fieldscope::core;

namespace {

Json loadPod(const char *path)
{
    QFile f(QString::fromLocal8Bit(path));
    if (!f.open(QIODevice::ReadOnly))
        qFatal("cannot read %s", path);
    return parseJson(f.readAll().toStdString()).value();
}

// A kubelet-style status update: readiness flips, restart count, the kubelet entry's time.
std::string statusUpdate(Json pod, const std::string &uid, long long rv)
{
    pod["metadata"]["uid"] = uid;
    pod["metadata"]["name"] = "pod-" + uid;
    pod["metadata"]["resourceVersion"] = std::to_string(rv);
    pod["status"]["conditions"][1]["status"] = rv % 2 ? "False" : "True";
    pod["status"]["conditions"][1]["lastTransitionTime"] = "2026-07-20T10:" + std::to_string(10 + rv % 50) + ":00Z";
    pod["status"]["containerStatuses"][0]["restartCount"] = rv / 7;
    pod["metadata"]["managedFields"][1]["time"] = "2026-07-20T10:" + std::to_string(10 + rv % 50) + ":0"
                                                + std::to_string(rv % 10) + "Z";
    return toJsonText(pod);
}

// A ConfigMap of about 1 MiB: 1,000 keys of 1 KiB, each owned by the writer's managedFields entry.
// Version i changes key i % 1000 and the entry's time.
std::string bigConfigMap(long long version)
{
    static const Json base = [] {
        Json data = Json::object(), fields = Json::object();
        for (int k = 0; k < 1000; ++k) {
            const std::string key = "key-" + std::to_string(k);
            data[key] = std::string(1024, char('a' + k % 26));
            fields["f:" + key] = Json::object();
        }
        return Json{{"apiVersion", "v1"},
                    {"kind", "ConfigMap"},
                    {"metadata",
                     {{"name", "big"},
                      {"namespace", "bench"},
                      {"uid", "big-uid"},
                      {"resourceVersion", "1"},
                      {"managedFields", Json::array({Json{{"manager", "bench-writer"},
                                                          {"operation", "Update"},
                                                          {"apiVersion", "v1"},
                                                          {"time", "2026-07-20T10:00:00Z"},
                                                          {"fieldsType", "FieldsV1"},
                                                          {"fieldsV1", {{"f:data", fields}}}}})}}},
                    {"data", data}};
    }();
    Json cm = base;
    cm["metadata"]["resourceVersion"] = std::to_string(version);
    cm["metadata"]["managedFields"][0]["time"] = "2026-07-20T10:" + std::to_string(10 + version % 50) + ":00Z";
    cm["data"]["key-" + std::to_string(version % 1000)] = "changed in version " + std::to_string(version);
    return toJsonText(cm);
}

// VmHWM, not getrusage's ru_maxrss: Linux carries ru_maxrss across execve, so a child would
// report the parent's peak from before its fork.
long peakRssMb()
{
    QFile status(QStringLiteral("/proc/self/status"));
    if (!status.open(QIODevice::ReadOnly))
        return -1;
    for (const QByteArray &line : status.readAll().split('\n'))
        if (line.startsWith("VmHWM:"))
            return line.mid(6).trimmed().split(' ').value(0).toLong() * 1024 / 1000000; // KiB -> MB
    return -1;
}

// Where the peak happens (FIELDSCOPE_BENCH_STAGES=1): peak RSS after each stage.
void stage(const char *name)
{
    if (qEnvironmentVariableIsSet("FIELDSCOPE_BENCH_STAGES"))
        std::printf("  after %s: peak RSS %ld MB\n", name, peakRssMb());
}

// The child's part: what the History tab loads for the object (HistorySource's worker: rows with
// attribution, streaming), then the pair a selected row diffs (HistoryVersions).
int openHistoryTab(const std::string &db)
{
    QElapsedTimer t;
    t.start();
    stage("start");
    auto store = std::move(HistoryStore::open(db, HistoryStore::OpenMode::ReadOnly).value());
    stage("open");
    ObjectQuery q;
    q.allNamespaces = true;
    q.name = "big";
    (void)store->history(store->findObjects(q).value().front().id).value();
    stage("listing");
    auto attributed = attributedHistory(*store, q).value();
    stage("attribution");
    const auto rows = fieldscope::models::historyRows(attributed);
    attributed.clear();
    stage("rows");
    const double rowsMs = double(t.nsecsElapsed()) / 1e6;
    fieldscope::models::HistoryVersions versions(fieldscope::models::storeVersionReader(db));
    const auto &newest = rows.back();
    const auto &previous = rows[std::size_t(newest.previousVersion)];
    const auto after = versions.json(newest.objectId, newest.seq).value();
    const auto before = versions.json(previous.objectId, previous.seq).value();
    stage("shown pair");
    const double totalMs = double(t.nsecsElapsed()) / 1e6;
    std::printf(
        "history tab: 1000 versions x %.2f MiB object: %zu rows in %.0f ms, with the shown pair in %.0f ms (target < 2000); "
        "peak RSS %ld MB (target < 300)\n",
        double(after.size()) / 1048576.0, rows.size(), rowsMs, totalMs, peakRssMb());
    return before.isEmpty() ? 1 : 0;
}

} // namespace

int main(int argc, char **argv)
{
    if (argc == 3 && std::strcmp(argv[1], "--history-tab") == 0) {
        QCoreApplication child(argc, argv);
        return openHistoryTab(argv[2]);
    }
    QCoreApplication app(argc, argv);
    const Json pod = loadPod(argc > 1 ? argv[1] : FIELDSCOPE_BENCH_POD);
    QTemporaryDir dir;
    const WatchScope scope = WatchScope::of({"", "v1", "pods"}, "bench");
    // Observed "now": older versions would be removed by the default 30-day retention.
    const std::int64_t now = QDateTime::currentMSecsSinceEpoch();

    // 1. Sustained recording: 200 pods x 150 updates, pre-serialised (the watch layer hands bytes).
    constexpr int kPods = 200, kUpdates = 150;
    std::vector<std::vector<WatchEvent>> batches;
    long long rv = 1;
    for (int u = 0; u < kUpdates; ++u) {
        std::vector<WatchEvent> batch;
        for (int p = 0; p < kPods; ++p, ++rv)
            batch.push_back({u == 0 ? HistoryEventType::Added : HistoryEventType::Modified,
                             statusUpdate(pod, std::string("u") + std::to_string(p), rv), now + rv});
        batches.push_back(std::move(batch));
    }
    const std::string dbPath = dir.filePath(QStringLiteral("bench.db")).toStdString();
    QElapsedTimer t;
    {
        HistoryRecorder rec({dbPath});
        t.start();
        for (auto &b : batches)
            rec.record(scope, std::move(b));
        if (auto st = rec.flush(); !st)
            qFatal("%s", st.error().describe().c_str());
    }
    const double secs = double(t.nsecsElapsed()) / 1e9;
    const int versions = kPods * kUpdates;
    std::printf("recording: %d versions of a %zu-byte pod in %.2f s = %.0f versions/s (target >= 10000)\n", versions,
                toJsonText(pod).size(), secs, versions / secs);

    // 2. Stored bytes per status-only update.
    auto store = std::move(HistoryStore::open(dbPath).value());
    std::vector<std::int64_t> sizes;
    const auto objects = store->allObjects().value();
    for (const auto &o : objects) {
        const auto versions = store->versions(o.id).value();
        for (const auto &v : versions)
            if (!v.snapshot)
                sizes.push_back(v.storedBytes);
    }
    std::sort(sizes.begin(), sizes.end());
    const auto stats = store->stats().value();
    std::printf("stored: median %lld bytes per small update (%zu deltas); %.1f%% of raw overall (%lld of %lld bytes)\n",
                sizes.empty() ? 0LL : (long long)sizes[sizes.size() / 2], sizes.size(),
                100.0 * double(stats.storedBytes) / double(stats.rawBytes), (long long)stats.storedBytes,
                (long long)stats.rawBytes);
    store.reset();

    // 3. One object with 1,000 versions: open the file, list, decode all, attribute all.
    const std::string oneDb = dir.filePath(QStringLiteral("one.db")).toStdString();
    {
        auto s = std::move(HistoryStore::open(oneDb).value());
        std::vector<WatchEvent> batch;
        for (long long i = 1; i <= 1000; ++i)
            batch.push_back({i == 1 ? HistoryEventType::Added : HistoryEventType::Modified, statusUpdate(pod, "one", i),
                             now + i});
        if (!s->write({{scope, batch, {}, {}}}))
            qFatal("write failed");
    }
    t.restart();
    auto s = std::move(HistoryStore::open(oneDb, HistoryStore::OpenMode::ReadOnly).value());
    ObjectQuery q;
    q.allNamespaces = true;
    q.name = "pod-one";
    const auto rows = attributedHistory(*s, q).value();
    const double openMs = double(t.nsecsElapsed()) / 1e6;
    std::printf("open: 1000-version history (open + list + decode + attribute, %zu rows) in %.1f ms (target < 200)\n",
                rows.size(), openMs);
    t.restart();
    const auto json = historyJson(*s, q).value();
    std::printf("cli: historyJson for 1000 versions in %.1f ms\n", double(t.nsecsElapsed()) / 1e6);
    s.reset();

    // 4. 1,000 versions of a 1 MiB object, written in small batches (the set-up's memory is not
    // the figure); the History tab's data is opened in a child process that measures itself.
    const std::string bigDb = dir.filePath(QStringLiteral("big.db")).toStdString();
    {
        auto big = std::move(HistoryStore::open(bigDb).value());
        for (long long i = 1; i <= 1000;) {
            std::vector<WatchEvent> batch;
            for (int n = 0; n < 10 && i <= 1000; ++n, ++i)
                batch.push_back({i == 1 ? HistoryEventType::Added : HistoryEventType::Modified, bigConfigMap(i),
                                 now + i});
            if (!big->write({{WatchScope::of({"", "v1", "configmaps"}, "bench"), batch, {}, {}}}))
                qFatal("write failed");
        }
    }
    QProcess child;
    child.setProcessChannelMode(QProcess::ForwardedChannels);
    child.start(QCoreApplication::applicationFilePath(),
                {QStringLiteral("--history-tab"), QString::fromStdString(bigDb)});
    if (!child.waitForFinished(600'000) || child.exitCode() != 0)
        std::printf("history tab: the measuring child failed\n");
    return 0;
}
