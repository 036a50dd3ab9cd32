#include "kube/discovery.h"

#include "core/json.h"

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

std::vector<std::string> strings(const Json &j, const char *key)
{
    std::vector<std::string> out;
    if (auto it = j.find(key); it != j.end() && it->is_array())
        for (const auto &v : *it)
            if (v.is_string())
                out.push_back(v.get<std::string>());
    return out;
}

} // namespace

bool isAggregatedContentType(const std::string &contentType)
{
    const std::string ct = lower(contentType);
    return ct.find("as=apigroupdiscoverylist") != std::string::npos && ct.find("g=apidiscovery.k8s.io") != std::string::npos;
}

core::Status parseAggregatedDiscovery(const std::string &body, bool coreGroup, DiscoverySnapshot &into)
{
    auto doc = core::parseJson(body);
    if (!doc)
        return doc.error();
    const Json &items = (*doc)["items"];
    if (!items.is_array())
        return Error::make(ErrorCategory::Parse, "APIGroupDiscoveryList without items");
    for (const auto &g : items) {
        const std::string group = coreGroup ? std::string() : g.value("/metadata/name"_json_pointer, std::string());
        const Json &versions = g.contains("versions") ? g["versions"] : Json::array();
        bool first = true; // versions are listed in descending preference
        for (const auto &v : versions) {
            const std::string version = v.value("version", std::string());
            const bool stale = v.value("freshness", std::string()) == "Stale";
            if (v.contains("resources") && v["resources"].is_array()) {
                for (const auto &r : v["resources"]) {
                    ResourceInfo info;
                    info.group = group;
                    info.version = version;
                    info.resource = r.value("resource", std::string());
                    info.singular = r.value("singularResource", std::string());
                    info.namespaced = r.value("scope", std::string()) == "Namespaced";
                    if (auto rk = r.find("responseKind"); rk != r.end() && rk->is_object())
                        info.kind = rk->value("kind", std::string());
                    info.verbs = strings(r, "verbs");
                    info.shortNames = strings(r, "shortNames");
                    info.categories = strings(r, "categories");
                    if (auto subs = r.find("subresources"); subs != r.end() && subs->is_array())
                        for (const auto &s : *subs)
                            info.subresources.push_back(s.value("subresource", std::string()));
                    info.preferred = first;
                    info.stale = stale;
                    into.resources.push_back(std::move(info));
                }
            }
            first = false;
        }
    }
    return core::success();
}

core::Status parseLegacyResourceList(const std::string &body, const std::string &groupVersion, bool preferred, DiscoverySnapshot &into)
{
    auto doc = core::parseJson(body);
    if (!doc)
        return doc.error();
    const auto gv = groupVersion.find('/');
    const std::string group = gv == std::string::npos ? std::string() : groupVersion.substr(0, gv);
    const std::string version = gv == std::string::npos ? groupVersion : groupVersion.substr(gv + 1);
    std::map<std::string, std::size_t> byName;
    std::vector<std::pair<std::string, std::string>> subs;
    for (const auto &r : (*doc).value("resources", Json::array())) {
        const std::string name = r.value("name", std::string());
        if (auto slash = name.find('/'); slash != std::string::npos) {
            subs.emplace_back(name.substr(0, slash), name.substr(slash + 1));
            continue;
        }
        ResourceInfo info;
        info.group = group;
        info.version = version;
        info.resource = name;
        info.singular = r.value("singularName", std::string());
        info.namespaced = r.value("namespaced", false);
        info.kind = r.value("kind", std::string());
        info.verbs = strings(r, "verbs");
        info.shortNames = strings(r, "shortNames");
        info.categories = strings(r, "categories");
        info.preferred = preferred;
        byName[name] = into.resources.size();
        into.resources.push_back(std::move(info));
    }
    for (const auto &[parent, sub] : subs)
        if (auto it = byName.find(parent); it != byName.end())
            into.resources[it->second].subresources.push_back(sub);
    return core::success();
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
            if (auto doc = core::parseJson(r->body); doc.ok())
                m_building.serverVersion = doc->value("gitVersion", std::string());
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
        } else if (auto doc = core::parseJson(r->body); doc.ok()) {
            for (const auto &g : doc->value("groups", Json::array())) {
                const std::string preferred = g.value("/preferredVersion/groupVersion"_json_pointer, std::string());
                for (const auto &v : g.value("versions", Json::array())) {
                    const std::string gv = v.value("groupVersion", std::string());
                    fetchGv(gv, gv == preferred);
                }
            }
        } else if (m_firstError.empty()) {
            m_firstError = doc.error().describe();
        }
        completeIfDone();
    });
}

void Discovery::completeIfDone()
{
    if (m_outstanding > 0)
        return;
    if (m_building.resources.empty()) {
        Q_EMIT failed(QString::fromStdString(m_firstError.empty() ? std::string("discovery returned no resources") : m_firstError));
        return;
    }
    m_snapshot = std::move(m_building);
    m_building = {};
    m_hasSnapshot = true;
    Q_EMIT finished();
}

} // namespace fieldscope::kube
