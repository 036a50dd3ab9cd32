#include "kube/discovery.h"

#include "core/base/json.h"
#include "core/base/jsonread.h"
#include "kube/apierror.h"

#include <QLoggingCategory>
#include <QPointer>

#include <algorithm>
#include <optional>

Q_LOGGING_CATEGORY(lcDiscovery, "fieldscope.kube.discovery", QtInfoMsg)

namespace fieldscope::kube {

using core::Error;
using core::ErrorCategory;
using core::Json;

namespace {

constexpr const char *kAcceptAggregated =
    "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json";

// A discovery answer parsed as a JSON object; a Parse error naming `what` (the request) otherwise.
core::Result<Json> parseObject(const std::string &body, const std::string &what)
{
    auto doc = core::parseJson(body);
    if (!doc)
        return Error::make(ErrorCategory::Parse, what + ": " + doc.error().message, doc.error().where);
    core::JsonReader read(what);
    if (!read.expectObject(*doc, ""))
        return read.error();
    return doc;
}

std::string lower(std::string s)
{
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return char(std::tolower(c)); });
    return s;
}

} // namespace

bool isAggregatedContentType(const std::string &contentType)
{
    const std::string ct = lower(contentType);
    return ct.find("as=apigroupdiscoverylist") != std::string::npos
        && ct.find("g=apidiscovery.k8s.io") != std::string::npos;
}

namespace {

// One entry that could not be read: kept aside with its error, the rest of the document is used
// (client-go fails the group version it cannot decode and goes on with the others; one entry is
// a finer unit still, and the core group version holds what most views need).
void recordFailure(std::vector<std::pair<std::string, Error>> &failures, std::string key, const core::JsonReader &read)
{
    failures.emplace_back(std::move(key), read.error());
}

// Adds what a document yielded. Nothing usable and something failed: the first failure is the
// document's error and `into` is left as it was.
core::Status commitFound(std::vector<ResourceInfo> &found, std::vector<std::pair<std::string, Error>> &failures,
                         DiscoverySnapshot &into)
{
    if (found.empty() && !failures.empty())
        return failures.front().second;
    for (auto &info : found)
        into.resources.push_back(std::move(info));
    for (auto &[key, error] : failures)
        into.failedResources[key] = error.describe();
    return core::success();
}

// One aggregated resource entry; false (with the reader's error) when a field has a wrong type.
bool readAggregatedResource(core::JsonReader &read, const Json &r, const std::string &rp, ResourceInfo &info)
{
    if (!read.expectObject(r, rp))
        return false;
    info.resource = read.string(r, "resource", rp);
    info.singular = read.string(r, "singularResource", rp);
    info.namespaced = read.string(r, "scope", rp) == "Namespaced";
    if (const Json *rk = read.object(r, "responseKind", rp))
        info.kind = read.string(*rk, "kind", core::jsonPath(rp, "responseKind"));
    info.verbs = read.strings(r, "verbs", rp);
    info.shortNames = read.strings(r, "shortNames", rp);
    info.categories = read.strings(r, "categories", rp);
    if (const Json *subs = read.array(r, "subresources", rp)) {
        for (std::size_t si = 0; si < subs->size() && read.ok(); ++si) {
            const std::string sp = core::jsonPath(core::jsonPath(rp, "subresources"), si);
            if (!read.expectObject((*subs)[si], sp))
                break;
            info.subresources.push_back(read.string((*subs)[si], "subresource", sp));
        }
    }
    return read.ok();
}

} // namespace

core::Status parseAggregatedDiscovery(const std::string &body, bool coreGroup, DiscoverySnapshot &into)
{
    const std::string what = std::string("aggregated discovery GET ") + (coreGroup ? "/api" : "/apis");
    auto doc = parseObject(body, what);
    if (!doc)
        return doc.error();
    core::JsonReader read(what);
    const Json *items = read.array(*doc, "items", "");
    if (!items)
        return read.ok() ? Error::make(ErrorCategory::Parse, what + ": APIGroupDiscoveryList without items", "items")
                         : read.status();
    // Each group, version and resource is read with its own reader: a wrong type fails only that
    // entry (recorded in failedResources), and a half-read entry never reaches the snapshot.
    std::vector<ResourceInfo> found;
    std::vector<std::pair<std::string, Error>> failures;
    for (std::size_t gi = 0; gi < items->size(); ++gi) {
        const Json &g = (*items)[gi];
        const std::string gp = core::jsonPath("items", gi);
        core::JsonReader groupRead(what);
        std::string group;
        const Json *versions = nullptr;
        if (groupRead.expectObject(g, gp)) {
            if (const Json *md = groupRead.object(g, "metadata", gp); md && !coreGroup)
                group = groupRead.string(*md, "name", core::jsonPath(gp, "metadata"));
            versions = groupRead.array(g, "versions", gp);
        }
        if (!groupRead.ok()) {
            recordFailure(failures, gp, groupRead);
            continue;
        }
        bool first = true; // versions are listed in descending preference
        for (std::size_t vi = 0; versions && vi < versions->size(); ++vi) {
            const Json &v = (*versions)[vi];
            const std::string vp = core::jsonPath(core::jsonPath(gp, "versions"), vi);
            core::JsonReader versionRead(what);
            std::string version;
            bool stale = false;
            const Json *resources = nullptr;
            if (versionRead.expectObject(v, vp)) {
                version = versionRead.string(v, "version", vp);
                stale = versionRead.string(v, "freshness", vp) == "Stale";
                resources = versionRead.array(v, "resources", vp);
            }
            const bool preferred = first;
            first = false;
            if (!versionRead.ok()) {
                recordFailure(failures,
                              (group.empty() ? std::string() : group + "/") + (version.empty() ? vp : version),
                              versionRead);
                continue;
            }
            const std::string gv = group.empty() ? version : group + "/" + version;
            for (std::size_t ri = 0; resources && ri < resources->size(); ++ri) {
                const std::string rp = core::jsonPath(core::jsonPath(vp, "resources"), ri);
                core::JsonReader resourceRead(what);
                ResourceInfo info;
                info.group = group;
                info.version = version;
                info.preferred = preferred;
                info.stale = stale;
                if (!readAggregatedResource(resourceRead, (*resources)[ri], rp, info)) {
                    recordFailure(failures, gv + " " + rp, resourceRead);
                    continue;
                }
                found.push_back(std::move(info));
            }
        }
    }
    return commitFound(found, failures, into);
}

core::Status parseLegacyResourceList(const std::string &body, const std::string &groupVersion, bool preferred,
                                     DiscoverySnapshot &into)
{
    const std::string what = "discovery GET "
                           + std::string(groupVersion.find('/') == std::string::npos ? "/api/" : "/apis/")
                           + groupVersion;
    auto doc = parseObject(body, what);
    if (!doc)
        return doc.error();
    core::JsonReader read(what);
    const auto gv = groupVersion.find('/');
    const std::string group = gv == std::string::npos ? std::string() : groupVersion.substr(0, gv);
    const std::string version = gv == std::string::npos ? groupVersion : groupVersion.substr(gv + 1);
    std::map<std::string, std::size_t> byName;
    std::vector<std::pair<std::string, std::string>> subs;
    std::vector<ResourceInfo> found;
    std::vector<std::pair<std::string, Error>> failures;
    const Json *resources = read.array(*doc, "resources", "");
    if (!read.ok())
        return read.status();
    // One reader per entry: a wrong-typed entry fails that resource only; the failure is kept in
    // failedResources.
    for (std::size_t i = 0; resources && i < resources->size(); ++i) {
        const Json &r = (*resources)[i];
        const std::string rp = core::jsonPath("resources", i);
        core::JsonReader entry(what);
        ResourceInfo info;
        std::string name;
        if (entry.expectObject(r, rp)) {
            name = entry.string(r, "name", rp);
            info.singular = entry.string(r, "singularName", rp);
            info.namespaced = entry.boolean(r, "namespaced", rp);
            info.kind = entry.string(r, "kind", rp);
            info.verbs = entry.strings(r, "verbs", rp);
            info.shortNames = entry.strings(r, "shortNames", rp);
            info.categories = entry.strings(r, "categories", rp);
        }
        if (!entry.ok()) {
            recordFailure(failures, groupVersion + " " + rp, entry);
            continue;
        }
        if (auto slash = name.find('/'); slash != std::string::npos) {
            subs.emplace_back(name.substr(0, slash), name.substr(slash + 1));
            continue;
        }
        info.group = group;
        info.version = version;
        info.resource = name;
        info.preferred = preferred;
        byName[name] = found.size();
        found.push_back(std::move(info));
    }
    for (const auto &[parent, sub] : subs)
        if (auto it = byName.find(parent); it != byName.end())
            found[it->second].subresources.push_back(sub);
    return commitFound(found, failures, into);
}

core::Status parseApiGroupList(const std::string &body, std::vector<std::pair<std::string, bool>> &groupVersions)
{
    const std::string what = "discovery GET /apis";
    auto doc = parseObject(body, what);
    if (!doc)
        return doc.error();
    core::JsonReader read(what);
    const Json *groups = read.array(*doc, "groups", "");
    for (std::size_t i = 0; groups && i < groups->size() && read.ok(); ++i) {
        const Json &g = (*groups)[i];
        const std::string gp = core::jsonPath("groups", i);
        if (!read.expectObject(g, gp))
            break;
        std::string preferred;
        if (const Json *pv = read.object(g, "preferredVersion", gp))
            preferred = read.string(*pv, "groupVersion", core::jsonPath(gp, "preferredVersion"));
        const Json *versions = read.array(g, "versions", gp);
        for (std::size_t vi = 0; versions && vi < versions->size(); ++vi) {
            const std::string vp = core::jsonPath(core::jsonPath(gp, "versions"), vi);
            if (!read.expectObject((*versions)[vi], vp))
                break;
            const std::string gv = read.string((*versions)[vi], "groupVersion", vp);
            groupVersions.emplace_back(gv, gv == preferred);
        }
    }
    if (!read.ok()) {
        groupVersions.clear();
        return read.status();
    }
    return core::success();
}

const ResourceInfo *DiscoverySnapshot::findKind(const std::string &apiVersion, const std::string &kind) const
{
    for (const auto &r : resources)
        if (r.kind == kind && r.groupVersion() == apiVersion)
            return &r;
    return nullptr;
}

const ResourceInfo *DiscoverySnapshot::find(const std::string &group, const std::string &resource) const
{
    const ResourceInfo *fallback = nullptr;
    for (const auto &r : resources) {
        if (r.group == group && r.resource == resource) {
            if (r.preferred)
                return &r;
            fallback = fallback ? fallback : &r;
        }
    }
    return fallback;
}

const ResourceInfo *DiscoverySnapshot::resolve(const std::string &input) const
{
    const std::string word = lower(input);
    // Split NAME[.VERSION].GROUP; the core group has no dots.
    std::string name = word, rest;
    if (auto dot = word.find('.'); dot != std::string::npos) {
        name = word.substr(0, dot);
        rest = word.substr(dot + 1);
    }
    auto matchesName = [&](const ResourceInfo &r) {
        if (r.resource == name || r.singular == name || lower(r.kind) == name)
            return true;
        return std::any_of(r.shortNames.begin(), r.shortNames.end(), [&](const std::string &s) { return s == name; });
    };
    auto matchesQualifier = [&](const ResourceInfo &r) {
        if (rest.empty())
            return true;
        if (r.group == rest)
            return true;
        return r.version + "." + r.group == rest;
    };
    const ResourceInfo *best = nullptr;
    for (const auto &r : resources) {
        if (!matchesName(r) || !matchesQualifier(r))
            continue;
        // Prefer the core group and preferred versions, like kubectl's priority for built-ins.
        auto score = [](const ResourceInfo &x) { return (x.preferred ? 2 : 0) + (x.group.empty() ? 1 : 0); };
        if (!best || score(r) > score(*best))
            best = &r;
    }
    return best;
}

struct Discovery::Decoded {
    std::string contentType;
    std::string etag;
    std::optional<Error> parseError;
    DiscoverySnapshot part; // resources and failedResources of this document; serverVersion of /version
    std::vector<std::pair<std::string, bool>> groupVersions; // legacy /apis
};

Discovery::Discovery(ApiClient *client, QObject *parent) : QObject(parent), m_client(client) {}

void Discovery::refresh()
{
    ++m_generation;
    m_building = {};
    m_firstError.clear();
    m_outstanding = 0;
    m_queuedGroupVersions.clear();
    m_groupRequests = 0;
    m_peakGroupRequests = 0;
    fetchVersion();
    fetchAggregated(true);
}

void Discovery::sendDecoded(HttpRequest req, Decoder decode, std::function<void(core::Result<Decoded>)> done)
{
    auto inbox = m_client->inbox();
    QPointer<Discovery> self(this);
    const int gen = m_generation;
    const std::string what = "discovery GET " + req.path;
    m_client->transport().start(std::move(req), [inbox, self, gen, what, decode = std::move(decode),
                                                 done = std::move(done)](core::Result<HttpResponse> r) mutable {
        // Network thread: a document of up to the body limit is parsed here, never on the GUI
        // thread. Last boundary of this job: whatever the parser throws becomes this answer's error.
        core::Result<Decoded> out = Error::make(ErrorCategory::Parse, what + ": could not be decoded");
        try {
            if (!r.ok())
                out = r.error();
            else if (!isSuccess(r->status))
                out = errorFromResponse(*r, what);
            else
                out = decode(*r);
        } catch (const std::exception &e) {
            out = Error::make(ErrorCategory::Parse, what + ": " + e.what());
        }
        inbox->post([self, gen, done = std::move(done), out = std::move(out)]() mutable {
            if (self && gen == self->m_generation)
                done(std::move(out));
        });
    });
}

void Discovery::fetchVersion()
{
    ++m_outstanding;
    HttpRequest req;
    req.path = "/version";
    sendDecoded(
        req,
        [](const HttpResponse &r) {
            Decoded d;
            // Only shown to the user: a wrong type leaves the version empty.
            if (auto doc = core::parseJson(r.body); doc.ok() && doc->is_object()) {
                core::JsonReader read("GET /version");
                d.part.serverVersion = read.string(*doc, "gitVersion", "");
            }
            return d;
        },
        [this](core::Result<Decoded> r) {
            --m_outstanding;
            if (r.ok())
                m_building.serverVersion = r->part.serverVersion;
            completeIfDone();
        });
}

// Asks /api with the aggregated Accept header; the Content-Type of the answer says which
// discovery format the server speaks (never infer it from the status).
void Discovery::fetchAggregated(bool coreGroup)
{
    ++m_outstanding;
    const std::string path = coreGroup ? "/api" : "/apis";
    HttpRequest req;
    req.path = path;
    req.accept = kAcceptAggregated;
    if (auto it = m_etags.find(path); it != m_etags.end())
        req.headers.emplace_back("If-None-Match", it->second.etag);
    sendDecoded(
        req,
        [coreGroup](const HttpResponse &r) {
            Decoded d;
            d.contentType = r.contentType;
            d.etag = r.etag;
            if (isAggregatedContentType(r.contentType))
                if (auto st = parseAggregatedDiscovery(r.body, coreGroup, d.part); !st)
                    d.parseError = st.error();
            return d;
        },
        [this, coreGroup, path](core::Result<Decoded> r) { onAggregated(coreGroup, path, std::move(r)); });
}

void Discovery::onAggregated(bool coreGroup, const std::string &path, core::Result<Decoded> r)
{
    --m_outstanding;
    const bool notModified = !r.ok() && r.error().httpStatus == 304;
    if (!r.ok() && !notModified) {
        if (m_firstError.empty())
            m_firstError = r.error().describe();
        completeIfDone();
        return;
    }
    std::shared_ptr<const DiscoverySnapshot> part;
    bool aggregated = false;
    if (r.ok()) {
        aggregated = isAggregatedContentType(r->contentType);
        if (aggregated && r->parseError && m_firstError.empty())
            m_firstError = r->parseError->describe();
        auto decoded = std::make_shared<const DiscoverySnapshot>(std::move(r->part));
        if (aggregated && !r->etag.empty() && !r->parseError)
            m_etags[path] = {r->etag, decoded};
        part = decoded;
    } else if (auto it = m_etags.find(path); it != m_etags.end()) {
        aggregated = true; // 304 Not Modified: what our cached copy yielded is current
        part = it->second.decoded;
    }
    if (aggregated) {
        m_building.aggregated = true;
        if (part) {
            m_building.resources.insert(m_building.resources.end(), part->resources.begin(), part->resources.end());
            for (const auto &[key, why] : part->failedResources) {
                m_building.failedResources[key] = why;
                qCWarning(lcDiscovery, "discovery skipped %s: %s", key.c_str(), why.c_str());
            }
        }
        if (coreGroup)
            fetchAggregated(false);
    } else if (coreGroup) {
        // Legacy server: /api answered APIVersions. Continue with per-GV requests.
        fetchLegacy();
    }
    completeIfDone();
}

void Discovery::fetchLegacy()
{
    queueGroupVersion("v1", true);
    ++m_outstanding;
    HttpRequest req;
    req.path = "/apis";
    sendDecoded(
        req,
        [](const HttpResponse &r) {
            Decoded d;
            if (auto st = parseApiGroupList(r.body, d.groupVersions); !st)
                d.parseError = st.error();
            return d;
        },
        [this](core::Result<Decoded> r) {
            --m_outstanding;
            if (!r.ok()) {
                if (m_firstError.empty())
                    m_firstError = r.error().describe();
            } else {
                if (r->parseError && m_firstError.empty())
                    m_firstError = r->parseError->describe();
                for (const auto &[gv, preferred] : r->groupVersions)
                    queueGroupVersion(gv, preferred);
            }
            completeIfDone();
        });
}

void Discovery::queueGroupVersion(const std::string &gv, bool preferred)
{
    ++m_outstanding; // counted from the queue on, so the refresh cannot finish before it is asked
    m_queuedGroupVersions.emplace_back(gv, preferred);
    startQueuedGroupVersions();
}

// At most kMaxConcurrentDiscoveryRequests group versions in flight; each answer starts the next.
void Discovery::startQueuedGroupVersions()
{
    while (m_groupRequests < kMaxConcurrentDiscoveryRequests && !m_queuedGroupVersions.empty()) {
        const auto [gv, preferred] = m_queuedGroupVersions.front();
        m_queuedGroupVersions.pop_front();
        ++m_groupRequests;
        m_peakGroupRequests = std::max(m_peakGroupRequests, m_groupRequests);
        HttpRequest req;
        req.path = gv.find('/') == std::string::npos ? "/api/" + gv : "/apis/" + gv;
        sendDecoded(
            req,
            [gv = gv, preferred = preferred](const HttpResponse &r) {
                Decoded d;
                if (auto st = parseLegacyResourceList(r.body, gv, preferred, d.part); !st)
                    d.parseError = st.error();
                return d;
            },
            [this, gv = gv](core::Result<Decoded> r) {
                --m_outstanding;
                --m_groupRequests;
                if (!r.ok()) {
                    m_building.failedGroups[gv] = r.error().describe();
                    qCInfo(lcDiscovery, "discovery of %s failed: %s", gv.c_str(), r.error().describe().c_str());
                } else if (r->parseError) {
                    m_building.failedGroups[gv] = r->parseError->describe();
                    qCWarning(lcDiscovery, "discovery of %s failed: %s", gv.c_str(), r->parseError->describe().c_str());
                } else {
                    for (auto &info : r->part.resources)
                        m_building.resources.push_back(std::move(info));
                    for (auto &[key, why] : r->part.failedResources) {
                        qCWarning(lcDiscovery, "discovery skipped %s: %s", key.c_str(), why.c_str());
                        m_building.failedResources[key] = std::move(why);
                    }
                }
                startQueuedGroupVersions();
                completeIfDone();
            });
    }
}

void Discovery::completeIfDone()
{
    if (m_outstanding > 0)
        return;
    if (m_building.resources.empty()) {
        std::string why = m_firstError;
        if (why.empty() && !m_building.failedGroups.empty())
            why = m_building.failedGroups.begin()->second; // e.g. the only group was malformed
        Q_EMIT failed(QString::fromStdString(why.empty() ? std::string("discovery returned no resources") : why));
        return;
    }
    m_snapshot = std::move(m_building);
    m_building = {};
    m_hasSnapshot = true;
    Q_EMIT finished();
}

} // namespace fieldscope::kube
