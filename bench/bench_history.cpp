// History store figures (issue 5): sustained recording rate through HistoryRecorder (target
// >= 10,000 versions/s), median stored bytes per small (status-only) update, and the time to open
// a 1,000-version history (open + listing + decoding every version + attribution; target < 200 ms).
// A plain executable: `bench_history [pod.json]`; not a test.
#include "core/historyquery.h"
#include "core/historywriter.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QElapsedTimer>
#include <QFile>
#include <QTemporaryDir>

#include <algorithm>
#include <cstdio>

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
    pod["metadata"]["managedFields"][1]["time"] = "2026-07-20T10:" + std::to_string(10 + rv % 50) + ":0" + std::to_string(rv % 10) + "Z";
    return toJsonText(pod);
}

} // namespace

int main(int argc, char **argv)
{
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
            batch.push_back({i == 1 ? HistoryEventType::Added : HistoryEventType::Modified, statusUpdate(pod, "one", i), now + i});
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
    return 0;
}
