#pragma once
// The audit samples of tests/data/audit (recorded from a real kube-apiserver 1.20.2, see its
// README) as a history store holds them: the watch of ConfigMaps in `team` recorded into a store,
// each version observed just after the newest managedFields time it carries (the raw watch has no
// local times), the DELETED one 400 ms after the delete request ended.
#include "core/audit/auditevent.h"
#include "core/base/json.h"
#include "core/history/historystore.h"

#include <QFile>

#include <map>
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
// `deliveredLateByMs` adds a watch that lags every write by that long, as a loaded recorder's does.
inline void recordSampleWatch(HistoryStore &store, const std::string &policy, std::int64_t deliveredLateByMs = 0)
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
        events.push_back({type, toJsonText(line["object"]), observed + deliveredLateByMs});
    }
    if (!store.write({{scope, events, {}, {}}}).ok())
        qFatal("cannot record the sample watch");
}

// The sample's main object: configmaps team/app.
inline ObjectQuery appQuery()
{
    ObjectQuery q;
    q.resource = "configmaps";
    q.namespace_ = "team";
    q.name = "app";
    return q;
}

// Who acted: the impersonated identity after the authenticated one.
inline std::string acting(const AuditWho &w)
{
    return w.hasImpersonatedUser ? w.user.username + " as " + w.impersonatedUser.username : w.user.username;
}

// resourceVersion -> "match: user[ user]" of every version of the sample's ConfigMaps: exact with the
// RequestResponse policy; with Metadata only, the two annotations of one second by one manager
// cannot be told apart, so both versions list both users.
inline const std::map<std::string, std::string> kExactRr = {
    {"214", "exact: system:kube-controller-manager"},
    {"227", "exact: alice"},
    {"228", "exact: bob"},
    {"229", "exact: bob"},
    {"230", "exact: fieldscope-admin as system:serviceaccount:team:deployer"},
    {"231", "exact: alice"},
    {"233", "exact: bob"},
    {"234", "exact: alice"},
    {"235", "exact: bob"},
};

inline const std::map<std::string, std::string> kProbableMd = {
    {"215", "probable: system:kube-controller-manager"},
    {"227", "probable: alice"},
    {"228", "probable: bob"},
    {"229", "probable: bob"},
    {"230", "probable: fieldscope-admin as system:serviceaccount:team:deployer"},
    {"231", "probable: alice"},
    {"233", "ambiguous: alice bob"},
    {"234", "ambiguous: alice bob"},
    {"235", "probable: bob"},
};

inline std::string dump(const std::map<std::string, std::string> &m)
{
    std::string s;
    for (const auto &[k, v] : m)
        s += k + " -> " + v + "\n";
    return s;
}

} // namespace auditfixtures
