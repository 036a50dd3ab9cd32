#pragma once
// Discovery: which resource types the server serves (API brief 1). Tries aggregated discovery
// (apidiscovery.k8s.io/v2) and falls back to the legacy per-group-version requests, chosen by
// the response Content-Type. A failing group version (503 aggregated API) is recorded and the
// rest is still shown. Lives on its ApiClient's thread.
#include "core/result.h"
#include "kube/apiclient.h"
#include "kube/resource.h"

#include <QObject>

#include <map>
#include <string>
#include <vector>

namespace fieldscope::kube {

struct DiscoverySnapshot {
    std::string serverVersion; // gitVersion, e.g. v1.20.2
    bool aggregated = false;
    std::vector<ResourceInfo> resources;             // every served version, preferred flagged
    std::map<std::string, std::string> failedGroups; // group version -> error text

    // kubectl-style resolution: plural, singular, short name or kind (case-insensitive), each
    // optionally qualified as NAME.GROUP or NAME.VERSION.GROUP. Prefers preferred versions.
    const ResourceInfo *resolve(const std::string &word) const;
    const ResourceInfo *find(const std::string &group, const std::string &resource) const;
    // The resource a manifest's apiVersion ("apps/v1") and kind ("Deployment") name; null if none.
    const ResourceInfo *findKind(const std::string &apiVersion, const std::string &kind) const;
};

// Pure parsers, shared with the transcript tests.
core::Status parseAggregatedDiscovery(const std::string &body, bool coreGroup, DiscoverySnapshot &into);
core::Status parseLegacyResourceList(const std::string &body, const std::string &groupVersion, bool preferred, DiscoverySnapshot &into);
// Legacy /apis (APIGroupList): every group version with whether it is its group's preferred one.
core::Status parseApiGroupList(const std::string &body, std::vector<std::pair<std::string, bool>> &groupVersions);
bool isAggregatedContentType(const std::string &contentType);

class Discovery : public QObject
{
    Q_OBJECT
public:
    explicit Discovery(ApiClient *client, QObject *parent = nullptr);

    // Starts a refresh; emits finished() or failed(). A refresh in progress is superseded.
    void refresh();
    const DiscoverySnapshot &snapshot() const { return m_snapshot; }
    bool hasSnapshot() const { return m_hasSnapshot; }

Q_SIGNALS:
    void finished();
    void failed(const QString &message);

private:
    void fetchVersion();
    void fetchAggregated(bool coreGroup);
    void fetchLegacy();
    void completeIfDone();

    ApiClient *m_client;
    DiscoverySnapshot m_snapshot;
    DiscoverySnapshot m_building;
    bool m_hasSnapshot = false;
    int m_generation = 0;
    int m_outstanding = 0;
    std::string m_firstError;
    // ETag revalidation for aggregated discovery (304 keeps the cached document).
    std::map<std::string, std::pair<std::string, std::string>> m_etags; // path -> (etag, body)
};

} // namespace fieldscope::kube
