#pragma once
// Test helpers around the watch layer: records every delivered version per uid, and a scratch
// namespace with a writer that remembers the resourceVersion the server gave each write.
#include "clusterenv.h"
#include "core/base/json.h"
#include "kube/discovery.h"
#include "kube/watcher.h"
#include "kube/writes.h"

#include <QUuid>

#include <map>
#include <set>

namespace fieldscope::testing {

struct WatchRecorder {
    std::map<std::string, std::vector<std::string>> versions; // uid -> RVs in delivery order
    std::map<std::string, std::vector<core::WatchEventType>> types;
    std::vector<core::ObservationGap> gaps;
    std::set<std::string> deleted;
    int batches = 0;

    void attach(kube::Watcher &w)
    {
        QObject::connect(&w, &kube::Watcher::batchReady, &w, [this](const core::WatchBatch &b) {
            ++batches;
            for (const auto &g : b.gaps)
                gaps.push_back(g);
            for (const auto &e : b.events) {
                versions[e.uid].push_back(e.resourceVersion);
                types[e.uid].push_back(e.type);
                if (e.type == core::WatchEventType::Deleted)
                    deleted.insert(e.uid);
            }
        });
    }
    bool has(const std::string &uid, const std::string &rv) const
    {
        auto it = versions.find(uid);
        return it != versions.end() && std::find(it->second.begin(), it->second.end(), rv) != it->second.end();
    }
};

inline kube::ResourceInfo configMaps()
{
    kube::ResourceInfo r;
    r.version = "v1";
    r.resource = "configmaps";
    r.kind = "ConfigMap";
    r.namespaced = true;
    r.verbs = {"create", "delete", "get", "list", "patch", "update", "watch"};
    return r;
}

// Writes ConfigMaps in a fresh namespace and remembers, per uid, every RV the server returned.
class ScratchNamespace
{
public:
    explicit ScratchNamespace(kube::ApiClient &client, const std::string &prefix = "fs-test")
        : m_client(client), m_name(prefix + "-" + QUuid::createUuid().toString(QUuid::Id128).left(8).toStdString())
    {
        auto r = call(
            client,
            request("POST", "/api/v1/namespaces",
                    core::toJsonText({{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", m_name}}}})));
        if (!r)
            qFatal("cannot create namespace %s: %s", m_name.c_str(), r.error().describe().c_str());
    }
    ~ScratchNamespace() { (void)call(m_client, request("DELETE", "/api/v1/namespaces/" + m_name)); }
    const std::string &name() const { return m_name; }

    // Returns the object the server answered (with uid and RV), recording its RV.
    core::Json create(const std::string &cm, const std::string &value)
    {
        core::Json obj = {
            {"apiVersion", "v1"}, {"kind", "ConfigMap"}, {"metadata", {{"name", cm}}}, {"data", {{"v", value}}}};
        return record(call(m_client, kube::createRequest(configMaps(), m_name, obj)));
    }
    core::Json update(const std::string &cm, const std::string &value)
    {
        return record(call(m_client, kube::patchRequest(configMaps(), m_name, cm, kube::PatchType::Merge,
                                                        {{"data", {{"v", value}}}})));
    }
    void remove(const std::string &cm)
    {
        auto r = call(m_client, request("DELETE", configMaps().objectPath(m_name, cm)));
        if (!r)
            qFatal("delete failed: %s", r.error().describe().c_str());
    }
    std::map<std::string, std::vector<std::string>> written; // uid -> RVs
    std::map<std::string, std::string> uidOf;                // name -> uid

    // The server's own view: name -> RV for every ConfigMap in the namespace.
    std::map<std::string, std::string> serverState()
    {
        std::map<std::string, std::string> out;
        auto r = call(m_client, request("GET", configMaps().collectionPath(m_name)));
        if (!r)
            qFatal("list failed: %s", r.error().describe().c_str());
        auto doc = core::parseJson(r->body);
        for (const auto &item : (*doc)["items"])
            out[item["metadata"]["uid"].get<std::string>()] = item["metadata"]["resourceVersion"].get<std::string>();
        return out;
    }

private:
    core::Json record(core::Result<kube::HttpResponse> r)
    {
        if (!r)
            qFatal("write failed: %s", r.error().describe().c_str());
        auto doc = core::parseJson(r->body);
        const std::string uid = (*doc)["metadata"]["uid"].get<std::string>();
        written[uid].push_back((*doc)["metadata"]["resourceVersion"].get<std::string>());
        uidOf[(*doc)["metadata"]["name"].get<std::string>()] = uid;
        return *doc;
    }
    kube::ApiClient &m_client;
    std::string m_name;
};

// Every version we wrote was delivered, in the order written, and nothing twice.
inline bool deliveredExactlyOnceInOrder(const ScratchNamespace &ns, const WatchRecorder &rec, QString *why)
{
    for (const auto &[uid, rvs] : ns.written) {
        auto it = rec.versions.find(uid);
        if (it == rec.versions.end()) {
            *why = QStringLiteral("uid %1: nothing delivered").arg(QString::fromStdString(uid));
            return false;
        }
        std::vector<std::string> delivered = it->second;
        const auto &types = rec.types.at(uid);
        // The DELETED event carries the deletion's own RV, which no write returned.
        if (!types.empty() && types.back() == core::WatchEventType::Deleted)
            delivered.pop_back();
        if (delivered != rvs) {
            QStringList d, w;
            for (const auto &v : delivered)
                d << QString::fromStdString(v);
            for (const auto &v : rvs)
                w << QString::fromStdString(v);
            *why = QStringLiteral("uid %1: delivered [%2], written [%3]")
                       .arg(QString::fromStdString(uid), d.join(u','), w.join(u','));
            return false;
        }
    }
    return true;
}

} // namespace fieldscope::testing
