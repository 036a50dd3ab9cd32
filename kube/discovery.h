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

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace fieldscope::kube {

// A user-typed resource name, as kubectl reads it: plural, singular, short name or kind
// (case-insensitive), optionally qualified as NAME.GROUP or NAME.VERSION.GROUP.
struct ResourceQuery {
    explicit ResourceQuery(const std::string &input);
    bool matches(const ResourceInfo &r) const;
    // Whether a resource of `group`/`version` could match the qualifier (always without one).
    bool admits(const std::string &group, const std::string &version) const;
    // Among several matches the highest rank wins, then the first in discovery order: a preferred
    // version (2) of the core group (1), like kubectl's priority for built-ins.
    static int rank(const ResourceInfo &r) { return (r.preferred ? 2 : 0) + (r.group.empty() ? 1 : 0); }

    std::string name;      // lower-case
    std::string qualifier; // "apps", "v1.apps"; "" when unqualified
};

struct DiscoverySnapshot {
    std::string serverVersion; // gitVersion, e.g. v1.20.2
    bool aggregated = false;
    std::vector<ResourceInfo> resources;             // every served version, preferred flagged, in discovery order
    std::map<std::string, std::string> failedGroups; // group version -> error text
    // Entries skipped for a wrong type ("v1 resources[3]", "apps/v1 items[0].versions[0]...") ->
    // error text naming the field; the rest of their group version is in `resources`.
    std::map<std::string, std::string> failedResources;

    // kubectl-style resolution (ResourceQuery). Prefers preferred versions.
    const ResourceInfo *resolve(const std::string &input) const;
    const ResourceInfo *find(const std::string &group, const std::string &resource) const;
    // The resource a manifest's apiVersion ("apps/v1") and kind ("Deployment") name; null if none.
    const ResourceInfo *findKind(const std::string &apiVersion, const std::string &kind) const;
};

// One document of a discovery run: a legacy group version (/api/v1, /apis/apps/v1), or for
// aggregated discovery the /api or /apis document (the latter holds any group).
struct DiscoverySource {
    enum class State { Pending, Answered, Failed };
    std::string groupVersion; // "v1", "apps/v1"; "/apis" for the aggregated document of every group
    std::string group;        // "" for the core group
    bool preferred = true;
    bool anyGroup = false; // the aggregated /apis document
    State state = State::Pending;
    std::string failure; // Failed: why
    std::string etag;    // aggregated documents: for If-None-Match
    std::vector<ResourceInfo> resources;
};

// What a discovery run knows so far, in discovery order (the core group first, then /apis's order).
// What the command line and the window decide on before every group has answered, and what the
// cache file keeps (an unfinished run is resumed by the next one).
struct DiscoveryProgress {
    std::string serverVersion;
    bool aggregated = false;
    bool sourcesKnown = false; // every source is listed (legacy: /apis has answered)
    std::vector<DiscoverySource> sources;
    std::map<std::string, std::string> failedResources;

    bool complete() const;
    DiscoverySnapshot assemble() const;
    // The resource `query` names, once nothing still to come could change the answer: nullopt
    // while undecided, a null pointer when it is decided that nothing matches. `moreToCome`:
    // pending sources will still be answered (false: they never will, decide on what is here).
    std::optional<const ResourceInfo *> decide(const ResourceQuery &query, bool moreToCome) const;
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

struct CachedDiscovery; // kube/discoverycache.h

// How a Discovery uses its cache file (kube/discoverycache.h).
struct DiscoveryCacheUse {
    std::string path;   // "" = no file
    std::string server; // the API server URL: a file of another server is not used
    // A legacy snapshot younger than this is used without asking the server (kubectl: six hours);
    // a resource it lacks makes the command line ask again. Aggregated discovery always
    // revalidates (If-None-Match: one or two requests answered 304).
    std::int64_t maxAgeMs = 6LL * 3600 * 1000;
    // The window: publish what the file holds at once, then ask the server anyway and publish again.
    bool refreshAfterCache = false;
    // The command line: read and write the file on this thread (the window uses a worker).
    bool blockingIo = false;
};

class Discovery : public QObject
{
    Q_OBJECT
public:
    explicit Discovery(ApiClient *client, QObject *parent = nullptr);

    void setCache(DiscoveryCacheUse use) { m_cache = std::move(use); }
    // Starts: from the cache file when it is young enough (see DiscoveryCacheUse), else from the
    // server. Emits progressed() as documents arrive, then finished() or failed(). A refresh in
    // progress is superseded.
    void refresh();
    // Asks the server now, whatever the file holds (a resource the cached snapshot lacks).
    void refreshFromServer();
    const DiscoverySnapshot &snapshot() const { return m_snapshot; }
    bool hasSnapshot() const { return m_hasSnapshot; }
    bool isRunning() const { return m_running; }
    // The progress being decided on came from the cache file, not from the server in this run.
    bool fromCache() const { return m_fromCache; }
    // The published snapshot came from the cache file (the window's, until the refresh ends).
    bool snapshotFromCache() const { return m_snapshotFromCache; }
    const DiscoveryProgress &progress() const { return m_progress; }
    // Whether the core group has answered (or the run ended): enough to know the server is there.
    bool coreKnown() const;
    // DiscoveryProgress::decide on what is known now. The pointer is valid until control returns
    // to the event loop: copy the ResourceInfo to keep it.
    std::optional<const ResourceInfo *> decide(const std::string &word) const;
    // Writes what is known now to the cache file, on this thread (the command line before it
    // exits: the next run resumes the groups not yet asked).
    void saveProgress();
    // The most legacy group-version requests that were in flight at once during the last refresh.
    int peakConcurrentGroupRequests() const { return m_peakGroupRequests; }
    // The last refresh's requests for discovery documents (not /version): aggregated discovery
    // takes one or two, legacy one per group version; and how many of them the server answered
    // 304 Not Modified to our ETag (the documents we held were current).
    int documentRequests() const { return m_documentRequests; }
    int notModifiedAnswers() const { return m_notModified; }

Q_SIGNALS:
    void progressed();
    void finished();
    void failed(const QString &message);

private:
    struct Decoded; // what the network thread made of one answer
    using Decoder = std::function<Decoded(const HttpResponse &)>;
    // Sends `req`, runs `decode` on the network thread (exceptions become the result's error),
    // and delivers the decoded value to `done` on this object's thread if the refresh is current.
    void sendDecoded(HttpRequest req, Decoder decode, std::function<void(core::Result<Decoded>)> done);
    void loadCache();
    void onCacheLoaded(core::Result<CachedDiscovery> cached);
    void startServerRun();
    void resumeCachedRun();
    void fetchVersion();
    void fetchAggregated(bool coreGroup);
    void onAggregated(bool coreGroup, core::Result<Decoded> r);
    void fetchLegacy();
    void fetchGroupList();
    void addGroupVersion(const std::string &gv, bool preferred);
    void queueSource(std::size_t index);
    void startQueuedGroupVersions();
    void onGroupVersion(std::size_t index, core::Result<Decoded> r);
    void completeIfDone();
    void publish(const DiscoveryProgress &progress, bool fromCache);
    void saveCache(bool blocking);

    ApiClient *m_client;
    DiscoveryCacheUse m_cache;
    DiscoverySnapshot m_snapshot;
    DiscoveryProgress m_progress;
    // The last progress that came from the cache file or a finished run: its aggregated
    // documents' ETags and resources answer a 304.
    std::shared_ptr<const DiscoveryProgress> m_previous;
    bool m_hasSnapshot = false;
    bool m_running = false;
    bool m_fromCache = false;
    bool m_snapshotFromCache = false;
    std::int64_t m_progressSavedAtMs = 0; // when what m_progress holds was asked of the server
    int m_generation = 0;
    int m_outstanding = 0;
    std::string m_firstError;
    std::deque<std::size_t> m_queuedSources; // legacy: sources not yet asked
    int m_groupRequests = 0;                 // legacy group-version requests in flight
    int m_peakGroupRequests = 0;
    int m_documentRequests = 0;
    int m_notModified = 0;
};

} // namespace fieldscope::kube
