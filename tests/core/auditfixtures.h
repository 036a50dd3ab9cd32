#pragma once
// The audit samples of tests/data/audit (recorded from a real kube-apiserver 1.20.2, see its
// README) as a history store holds them: the watch of ConfigMaps in `team` recorded into a store,
// each version observed just after the newest managedFields time it carries (the raw watch has no
// local times), the DELETED one 400 ms after the delete request ended.
#include "core/base/json.h"
#include "core/history/auditevent.h"
#include "core/history/historystore.h"

#include <QFile>

#include <string>

namespace auditfixtures {

using namespace fieldscope::core;

inline std::string readAuditData(const std::string &name)
{
    QFile f(QStringLiteral(FIELDSCOPE_TEST_DATA "/audit/") + QString::fromStdString(name));
    if (!f.open(QIODevice::ReadOnly))
        qFatal("missing test data %s", name.c_str());
    return f.readAll().toStdString();
}

inline std::string auditDataPath(const std::string &name)
{
    return std::string(FIELDSCOPE_TEST_DATA "/audit/") + name;
}

inline std::int64_t newestManagerTimeMs(const Json &object)
{
    std::int64_t newest = 0;
    for (const auto &e : object["metadata"]["managedFields"])
        newest = std::max(newest, parseRfc3339Micros(e["time"].get<std::string>()).value_or(0) / 1000);
    return newest;
}

// Records `policy`-watch.jsonl ("rr" or "md") into the store as the recorder would.
inline void recordSampleWatch(HistoryStore &store, const std::string &policy)
{
    std::int64_t deleteEndMs = 0;
    for (const auto &e : decodeAuditLines(readAuditData(policy + "-audit.log")).events)
        if (e.verb == "delete" && e.isFinal())
            deleteEndMs = e.stageMicros / 1000;
    const WatchScope scope = WatchScope::of({"", "v1", "configmaps"}, "team");
    std::vector<WatchEvent> events;
    const std::string text = readAuditData(policy + "-watch.jsonl");
    for (std::size_t start = 0; start < text.size();) {
        const std::size_t nl = text.find('\n', start);
        const Json line = parseJson(text.substr(start, nl - start)).value();
        start = nl == std::string::npos ? text.size() : nl + 1;
        HistoryEventType type = HistoryEventType::Modified;
        if (!parseHistoryEventType(line["type"].get<std::string>(), &type))
            qFatal("bad watch type");
        const std::int64_t observed = type == HistoryEventType::Deleted ? deleteEndMs + 400
                                                                        : newestManagerTimeMs(line["object"]) + 999;
        events.push_back({type, toJsonText(line["object"]), observed});
    }
    if (!store.write({{scope, events, {}, {}}}).ok())
        qFatal("cannot record the sample watch");
}

} // namespace auditfixtures
