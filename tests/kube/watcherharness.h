#pragma once
// The watcher tests' shared harness: one TranscriptServer, a transport pointed at it and one
// Watcher on the ConfigMaps of namespace "test", recording every batch, event, progress report and
// error it emits (tst_watcher_transcripts: watch and relists; tst_watcher_paging: LIST pages).
#include "kube/watcher.h"
#include "transcriptserver.h"

#include <QStringList>

#include <algorithm>
#include <map>
#include <memory>

namespace fieldscope::testing {
inline const std::string kPath = "/api/v1/namespaces/test/configmaps";
inline const std::string kUidA = "6f1c2f0e-8d3a-4c55-9a51-0c2b1e7a9a01";
inline const std::string kUidB = "0b7d9e4c-2f61-4f0a-8f0e-5d9c3a1b2c02";
inline const std::string kUidC = "9a2e4b7d-1c3f-4e8a-b6d5-7f0a2c4e6b03";
inline const std::string kUidD = "3c8f1a6e-5b2d-4a97-8e14-2d6b9f0c7e04";
inline const std::string kToken4711 = "eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6NDcxMSwic3RhcnQiOiJ0ZXN0L2JcdTAwMDAifQ";
inline const std::string kToken4800 = "eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6NDgwMCwic3RhcnQiOiJ0ZXN0L2NcdTAwMDAifQ";
inline const std::string kInconsistentToken = "eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6LTEsInN0YXJ0IjoidGVzdC9iXHUwMDAwIn0";

inline kube::ResourceInfo configMaps()
{
    kube::ResourceInfo r;
    r.version = "v1";
    r.resource = "configmaps";
    r.singular = "configmap";
    r.kind = "ConfigMap";
    r.namespaced = true;
    r.verbs = {"create", "delete", "get", "list", "patch", "update", "watch"};
    return r;
}

inline kube::WatcherOptions fastOptions(bool tryWatchList = false)
{
    kube::WatcherOptions o;
    o.tryWatchList = tryWatchList;
    o.flushIntervalMs = 20;
    o.backoffInitialMs = 50;
    o.backoffMaxMs = 200;
    return o;
}

inline bool isWatch(const RecordedRequest &r)
{
    return r.path == kPath && r.queryValue("watch") == "1";
}
inline bool isList(const RecordedRequest &r)
{
    return r.path == kPath && !r.queryValue("watch");
}

struct Delivered {
    core::WatchEventType type;
    std::string rv;
    bool fromList;
    QByteArray json;
};

// One transcript server, a transport pointed at it and one watcher on the test's namespace.
// Destruction order matters: the watcher and client go first, the server (hung streams) last.
struct Harness {
    TranscriptServer server;
    kube::ApiClient client;
    std::unique_ptr<kube::Watcher> watcher;
    std::vector<core::WatchBatch> batches;
    std::map<std::string, std::vector<Delivered>> byUid;
    std::vector<std::pair<qint64, qint64>> progress;
    QStringList errors;

    Harness() : client(makeTransport(server)) {}

    static std::shared_ptr<kube::Transport> makeTransport(const TranscriptServer &s)
    {
        kube::TransportConfig config;
        config.server = s.url();
        config.qps = 0;
        return std::make_shared<kube::Transport>(config);
    }

    TranscriptServer::Rule &list() { return server.on(kPath).exactPath().lacksQuery("watch"); }
    TranscriptServer::Rule &watchFrom(std::string rv)
    {
        return server.on(kPath)
            .exactPath()
            .query("watch", "1")
            .lacksQuery("sendInitialEvents")
            .query("resourceVersion", std::move(rv));
    }
    TranscriptServer::Rule &watchList()
    {
        return server.on(kPath).exactPath().query("watch", "1").query("sendInitialEvents", "true");
    }

    void start(kube::WatcherOptions options)
    {
        watcher = std::make_unique<kube::Watcher>(&client, kube::WatchScope{configMaps(), "test", {}, {}}, options);
        QObject::connect(watcher.get(), &kube::Watcher::batchReady, watcher.get(), [this](const core::WatchBatch &b) {
            batches.push_back(b);
            for (const auto &e : b.events)
                byUid[e.uid].push_back({e.type, e.resourceVersion, e.fromList, e.json});
        });
        QObject::connect(watcher.get(), &kube::Watcher::listProgress, watcher.get(),
                         [this](qint64 loaded, qint64 remaining) { progress.emplace_back(loaded, remaining); });
        QObject::connect(watcher.get(), &kube::Watcher::errorOccurred, watcher.get(),
                         [this](const QString &m) { errors << m; });
        watcher->start();
    }

    std::vector<std::string> rvs(const std::string &uid) const
    {
        std::vector<std::string> out;
        if (auto it = byUid.find(uid); it != byUid.end())
            for (const auto &d : it->second)
                out.push_back(d.rv);
        return out;
    }
    bool delivered(const std::string &uid, const std::string &rv) const
    {
        const auto v = rvs(uid);
        return std::find(v.begin(), v.end(), rv) != v.end();
    }
    std::vector<RecordedRequest> watches() const
    {
        std::vector<RecordedRequest> out;
        for (const auto &r : server.requests())
            if (isWatch(r))
                out.push_back(r);
        return out;
    }
    int lists() const { return server.count(isList); }
    std::vector<core::ObservationGap> gaps() const
    {
        std::vector<core::ObservationGap> out;
        for (const auto &b : batches)
            out.insert(out.end(), b.gaps.begin(), b.gaps.end());
        return out;
    }
    int completedInitialLists() const
    {
        return int(std::count_if(batches.begin(), batches.end(), [](const auto &b) { return b.initialListComplete; }));
    }
};

inline QString str(const std::optional<std::string> &s)
{
    return s ? QString::fromStdString(*s) : QStringLiteral("<absent>");
}

inline QString join(const std::vector<std::string> &v)
{
    QStringList l;
    for (const auto &s : v)
        l << QString::fromStdString(s);
    return l.join(u',');
}

} // namespace fieldscope::testing
