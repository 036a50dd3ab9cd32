#pragma once
// Discovery: which resource types the server serves (as k8s.io/client-go/discovery/discovery_client.go).
// Tries aggregated discovery (apidiscovery.k8s.io/v2), falling back to the legacy per-group-version requests, chosen by
// the response Content-Type. A failing group version (503 aggregated API) or a resource entry of
// the wrong shape is recorded and the rest is still shown. Lives on its ApiClient's thread; the
// documents (up to the transport's body limit) are parsed on the network thread and only the
// decoded ResourceInfo values cross over. Legacy discovery asks at most
// kMaxConcurrentDiscoveryRequests group versions at a time.
#include "core/base/result.h"
#include "kube/apiclient.h"
#include "kube/resource.h"

#include <QObject>

#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace fieldscope::kube {

struct DiscoverySnapshot {
    std::string serverVersion; // gitVersion, e.g. v1.20.2
    bool aggregated = false;
    std::vector<ResourceInfo> resources;             // every served version, preferred flagged
    std::map<std::string, std::string> failedGroups; // group version -> error text
    // Entries skipped for a wrong type ("v1 resources[3]", "apps/v1 items[0].versions[0]...") ->
    // error text naming the field; the rest of their group version is in `resources`.
    std::map<std::string, std::string> failedResources;

    // kubectl-style resolution: plural, singular, short name or kind (case-insensitive), each
    // optionally qualified as NAME.GROUP or NAME.VERSION.GROUP. Prefers preferred versions.
    const ResourceInfo *resolve(const std::string &input) const;
    const ResourceInfo *find(const std::string &group, const std::string &resource) const;
    // The resource a manifest's apiVersion ("apps/v1") and kind ("Deployment") name; null if none.
    const ResourceInfo *findKind(const std::string &apiVersion, const std::string &kind) const;
};

// Pure parsers, shared with the transcript tests.
core::Status parseAggregatedDiscovery(const std::string &body, bool coreGroup, DiscoverySnapshot &into);
core::Status parseLegacyResourceList(const std::string &body, const std::string &groupVersion, bool preferred,
                                     DiscoverySnapshot &into);
// Legacy /apis (APIGroupList): every group version with whether it is its group's preferred one.
core::Status parseApiGroupList(const std::string &body, std::vector<std::pair<std::string, bool>> &groupVersions);
bool isAggregatedContentType(const std::string &contentType);

// Legacy discovery: group versions fetched at once at most (3,000 API groups must not mean 3,000
// simultaneous requests to one server, nor thousands of callbacks in one event-loop turn).
inline constexpr int kMaxConcurrentDiscoveryRequests = 8;

class Discovery : public QObject
{
    Q_OBJECT
public:
    explicit Discovery(ApiClient *client, QObject *parent = nullptr);

    // Starts a refresh; emits finished() or failed(). A refresh in progress is superseded.
    void refresh();
    const DiscoverySnapshot &snapshot() const { return m_snapshot; }
    bool hasSnapshot() const { return m_hasSnapshot; }
    // The most legacy group-version requests that were in flight at once during the last refresh.
    int peakConcurrentGroupRequests() const { return m_peakGroupRequests; }

Q_SIGNALS:
    void finished();
    void failed(const QString &message);

private:
    struct Decoded; // what the network thread made of one answer
    using Decoder = std::function<Decoded(const HttpResponse &)>;
    // Sends `req`, runs `decode` on the network thread (exceptions become the result's error),
    // and delivers the decoded value to `done` on this object's thread if the refresh is current.
    void sendDecoded(HttpRequest req, Decoder decode, std::function<void(core::Result<Decoded>)> done);
    void fetchVersion();
    void fetchAggregated(bool coreGroup);
    void onAggregated(bool coreGroup, const std::string &path, core::Result<Decoded> r);
    void fetchLegacy();
    void queueGroupVersion(const std::string &gv, bool preferred);
    void startQueuedGroupVersions();
    void completeIfDone();

    ApiClient *m_client;
    DiscoverySnapshot m_snapshot;
    DiscoverySnapshot m_building;
    bool m_hasSnapshot = false;
    int m_generation = 0;
    int m_outstanding = 0;
    std::string m_firstError;
    std::deque<std::pair<std::string, bool>> m_queuedGroupVersions; // legacy: not yet asked
    int m_groupRequests = 0;                                        // legacy group-version requests in flight
    int m_peakGroupRequests = 0;
    // ETag revalidation for aggregated discovery: a 304 reuses what the cached document yielded.
    struct Cached {
        std::string etag;
        std::shared_ptr<const DiscoverySnapshot> decoded;
    };
    std::map<std::string, Cached> m_etags; // path -> cache
};

} // namespace fieldscope::kube
