#include "kube/discovery.h"

#include "core/json.h"
#include "core/jsonread.h"

#include <QLoggingCategory>

#include <algorithm>

Q_LOGGING_CATEGORY(lcDiscovery, "fieldscope.kube.discovery", QtInfoMsg)

namespace fieldscope::kube {

using core::Error;
using core::ErrorCategory;
using core::Json;

namespace {

constexpr const char *kAcceptAggregated =
    "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json";

std::string lower(std::string s)
{
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return char(std::tolower(c)); });
    return s;
}

} // namespace

bool isAggregatedContentType(const std::string &contentType)
{
    const std::string ct = lower(contentType);
    return ct.find("as=apigroupdiscoverylist") != std::string::npos && ct.find("g=apidiscovery.k8s.io") != std::string::npos;
}

core::Status parseAggregatedDiscovery(const std::string &body, bool coreGroup, DiscoverySnapshot &into)
{
    const std::string what = std::string("aggregated discovery GET ") + (coreGroup ? "/api" : "/apis");
    auto doc = core::parseJson(body);
    if (!doc)
        return Error::make(ErrorCategory::Parse, what + ": " + doc.error().message, doc.error().where);
    core::JsonReader read(what);
    if (!read.expectObject(*doc, ""))
        return read.status();
    const Json *items = read.array(*doc, "items", "");
    if (!items)
        return read.ok() ? Error::make(ErrorCategory::Parse, what + ": APIGroupDiscoveryList without items", "items") : read.status();
    // Decoded into a local list first: a wrong type anywhere fails the whole document, so a
    // half-read group never reaches the snapshot.
    std::vector<ResourceInfo> found;
    for (std::size_t gi = 0; gi < items->size() && read.ok(); ++gi) {
        const Json &g = (*items)[gi];
        const std::string gp = core::jsonPath("items", gi);
        if (!read.expectObject(g, gp))
            break;
        std::string group;
        if (const Json *md = read.object(g, "metadata", gp); md && !coreGroup)
            group = read.string(*md, "name", core::jsonPath(gp, "metadata"));
        const Json *versions = read.array(g, "versions", gp);
        if (!versions)
            continue;
        bool first = true; // versions are listed in descending preference
        for (std::size_t vi = 0; vi < versions->size() && read.ok(); ++vi) {
            const Json &v = (*versions)[vi];
            const std::string vp = core::jsonPath(core::jsonPath(gp, "versions"), vi);
            if (!read.expectObject(v, vp))
                break;
            const std::string version = read.string(v, "version", vp);
            const bool stale = read.string(v, "freshness", vp) == "Stale";
            if (const Json *resources = read.array(v, "resources", vp)) {
                for (std::size_t ri = 0; ri < resources->size() && read.ok(); ++ri) {
                    const Json &r = (*resources)[ri];
                    const std::string rp = core::jsonPath(core::jsonPath(vp, "resources"), ri);
                    if (!read.expectObject(r, rp))
                        break;
                    ResourceInfo info;
                    info.group = group;
                    info.version = version;
                    info.resource = read.string(r, "resource", rp);
                    info.singular = read.string(r, "singularResource", rp);
                    info.namespaced = read.string(r, "scope", rp) == "Namespaced";
                    if (const Json *rk = read.object(r, "responseKind", rp))
                        info.kind = read.string(*rk, "kind", core::jsonPath(rp, "responseKind"));
                    info.verbs = read.strings(r, "verbs", rp);
                    info.shortNames = read.strings(r, "shortNames", rp);
                    info.categories = read.strings(r, "categories", rp);
                    if (const Json *subs = read.array(r, "subresources", rp)) {
                        for (std::size_t si = 0; si < subs->size(); ++si) {
                            const std::string sp = core::jsonPath(core::jsonPath(rp, "subresources"), si);
                            if (!read.expectObject((*subs)[si], sp))
                                break;
                            info.subresources.push_back(read.string((*subs)[si], "subresource", sp));
                        }
                    }
                    info.preferred = first;
                    info.stale = stale;
                    found.push_back(std::move(info));
                }
            }
            first = false;
        }
    }
    if (!read.ok())
        return read.status();
    for (auto &info : found)
        into.resources.push_back(std::move(info));
    return core::success();
}

core::Status parseLegacyResourceList(const std::string &body, const std::string &groupVersion, bool preferred, DiscoverySnapshot &into)
{
    const std::string what = "discovery GET " + std::string(groupVersion.find('/') == std::string::npos ? "/api/" : "/apis/") + groupVersion;
    auto doc = core::parseJson(body);
    if (!doc)
        return Error::make(ErrorCategory::Parse, what + ": " + doc.error().message, doc.error().where);
    core::JsonReader read(what);
    if (!read.expectObject(*doc, ""))
        return read.status();
    const auto gv = groupVersion.find('/');
    const std::string group = gv == std::string::npos ? std::string() : groupVersion.substr(0, gv);
    const std::string version = gv == std::string::npos ? groupVersion : groupVersion.substr(gv + 1);
    std::map<std::string, std::size_t> byName;
    std::vector<std::pair<std::string, std::string>> subs;
    std::vector<ResourceInfo> found;
    const Json *resources = read.array(*doc, "resources", "");
    for (std::size_t i = 0; resources && i < resources->size() && read.ok(); ++i) {
        const Json &r = (*resources)[i];
        const std::string rp = core::jsonPath("resources", i);
        if (!read.expectObject(r, rp))
            break;
        const std::string name = read.string(r, "name", rp);
        if (auto slash = name.find('/'); slash != std::string::npos) {
            subs.emplace_back(name.substr(0, slash), name.substr(slash + 1));
            continue;
        }
        ResourceInfo info;
        info.group = group;
        info.version = version;
        info.resource = name;
        info.singular = read.string(r, "singularName", rp);
        info.namespaced = read.boolean(r, "namespaced", rp);
        info.kind = read.string(r, "kind", rp);
        info.verbs = read.strings(r, "verbs", rp);
        info.shortNames = read.strings(r, "shortNames", rp);
        info.categories = read.strings(r, "categories", rp);
        info.preferred = preferred;
        byName[name] = found.size();
        found.push_back(std::move(info));
    }
    if (!read.ok())
        return read.status();
    for (const auto &[parent, sub] : subs)
        if (auto it = byName.find(parent); it != byName.end())
            found[it->second].subresources.push_back(sub);
    for (auto &info : found)
        into.resources.push_back(std::move(info));
    return core::success();
}

core::Status parseApiGroupList(const std::string &body, std::vector<std::pair<std::string, bool>> &groupVersions)
{
    const std::string what = "discovery GET /apis";
    auto doc = core::parseJson(body);
    if (!doc)
        return Error::make(ErrorCategory::Parse, what + ": " + doc.error().message, doc.error().where);
    core::JsonReader read(what);
    if (!read.expectObject(*doc, ""))
        return read.status();
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

Discovery::Discovery(ApiClient *client, QObject *parent) : QObject(parent), m_client(client) {}

void Discovery::refresh()
{
    ++m_generation;
    m_building = {};
    m_firstError.clear();
    m_outstanding = 0;
    fetchVersion();
    fetchAggregated(true);
}

void Discovery::fetchVersion()
{
    ++m_outstanding;
    const int gen = m_generation;
    HttpRequest req;
    req.path = "/version";
    m_client->send(req, this, [this, gen](core::Result<HttpResponse> r) {
        if (gen != m_generation)
            return;
        --m_outstanding;
        if (r.ok()) {
            // Only shown to the user: a wrong type leaves the version empty.
            if (auto doc = core::parseJson(r->body); doc.ok() && doc->is_object()) {
                core::JsonReader read("GET /version");
                m_building.serverVersion = read.string(*doc, "gitVersion", "");
            }
        }
        completeIfDone();
    });
}

// Asks /api with the aggregated Accept header; the Content-Type of the answer says which
// discovery format the server speaks (never infer it from the status).
void Discovery::fetchAggregated(bool coreGroup)
{
    ++m_outstanding;
    const int gen = m_generation;
    const std::string path = coreGroup ? "/api" : "/apis";
    HttpRequest req;
    req.path = path;
    req.accept = kAcceptAggregated;
    if (auto it = m_etags.find(path); it != m_etags.end())
        req.headers.emplace_back("If-None-Match", it->second.first);
    m_client->send(req, this, [this, gen, coreGroup, path](core::Result<HttpResponse> r) {
        if (gen != m_generation)
            return;
        --m_outstanding;
        if (!r.ok() && r.error().httpStatus != 304) {
            if (m_firstError.empty())
                m_firstError = r.error().describe();
            completeIfDone();
            return;
        }
        std::string body, contentType;
        if (r.ok()) {
            body = r->body;
            contentType = r->contentType;
            if (isAggregatedContentType(contentType) && !r->etag.empty())
                m_etags[path] = {r->etag, body};
        } else if (auto it = m_etags.find(path); it != m_etags.end()) {
            body = it->second.second; // 304 Not Modified: our cached copy is current
            contentType = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList";
        }
        if (isAggregatedContentType(contentType)) {
            m_building.aggregated = true;
            if (auto st = parseAggregatedDiscovery(body, coreGroup, m_building); !st && m_firstError.empty())
                m_firstError = st.error().describe();
            if (coreGroup)
                fetchAggregated(false);
        } else if (coreGroup) {
            // Legacy server: /api answered APIVersions. Continue with per-GV requests.
            fetchLegacy();
        }
        completeIfDone();
    });
}

void Discovery::fetchLegacy()
{
    const int gen = m_generation;
    auto fetchGv = [this, gen](const std::string &gv, bool preferred) {
        ++m_outstanding;
        HttpRequest req;
        req.path = gv.find('/') == std::string::npos ? "/api/" + gv : "/apis/" + gv;
        m_client->send(req, this, [this, gen, gv, preferred](core::Result<HttpResponse> r) {
            if (gen != m_generation)
                return;
            --m_outstanding;
            if (r.ok()) {
                if (auto st = parseLegacyResourceList(r->body, gv, preferred, m_building); !st)
                    m_building.failedGroups[gv] = st.error().describe();
            } else {
                m_building.failedGroups[gv] = r.error().describe();
                qCInfo(lcDiscovery, "discovery of %s failed: %s", gv.c_str(), r.error().describe().c_str());
            }
            completeIfDone();
        });
    };
    fetchGv("v1", true);
    ++m_outstanding;
    HttpRequest req;
    req.path = "/apis";
    m_client->send(req, this, [this, gen, fetchGv](core::Result<HttpResponse> r) {
        if (gen != m_generation)
            return;
        --m_outstanding;
        if (!r.ok()) {
            if (m_firstError.empty())
                m_firstError = r.error().describe();
        } else {
            std::vector<std::pair<std::string, bool>> gvs;
            if (auto st = parseApiGroupList(r->body, gvs); !st) {
                if (m_firstError.empty())
                    m_firstError = st.error().describe();
            }
            for (const auto &[gv, preferred] : gvs)
                fetchGv(gv, preferred);
        }
        completeIfDone();
    });
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
