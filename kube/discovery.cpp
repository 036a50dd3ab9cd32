#include "kube/discovery.h"

#include "core/base/json.h"
#include "core/base/jsonread.h"

#include <algorithm>
#include <optional>

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

ResourceQuery::ResourceQuery(const std::string &input)
{
    const std::string word = lower(input);
    // Split NAME[.VERSION].GROUP; the core group has no dots.
    name = word;
    if (auto dot = word.find('.'); dot != std::string::npos) {
        name = word.substr(0, dot);
        qualifier = word.substr(dot + 1);
    }
}

bool ResourceQuery::matches(const ResourceInfo &r) const
{
    if (!admits(r.group, r.version))
        return false;
    if (r.resource == name || r.singular == name || lower(r.kind) == name)
        return true;
    return std::any_of(r.shortNames.begin(), r.shortNames.end(), [&](const std::string &s) { return s == name; });
}

bool ResourceQuery::admits(const std::string &group, const std::string &version) const
{
    return qualifier.empty() || group == qualifier || version + "." + group == qualifier;
}

const ResourceInfo *DiscoverySnapshot::resolve(const std::string &input) const
{
    const ResourceQuery query(input);
    const ResourceInfo *best = nullptr;
    for (const auto &r : resources)
        if (query.matches(r) && (!best || ResourceQuery::rank(r) > ResourceQuery::rank(*best)))
            best = &r;
    return best;
}

bool DiscoveryProgress::complete() const
{
    return sourcesKnown && std::none_of(sources.begin(), sources.end(), [](const DiscoverySource &s) {
               return s.state == DiscoverySource::State::Pending;
           });
}

DiscoverySnapshot DiscoveryProgress::assemble() const
{
    DiscoverySnapshot out;
    out.serverVersion = serverVersion;
    out.aggregated = aggregated;
    out.failedResources = failedResources;
    for (const auto &src : sources) {
        if (src.state == DiscoverySource::State::Failed)
            out.failedGroups[src.groupVersion] = src.failure;
        out.resources.insert(out.resources.end(), src.resources.begin(), src.resources.end());
    }
    return out;
}

namespace {
// The highest rank a source that has not answered could still give a match of `query`; -1 when
// it cannot hold one.
int rankBound(const ResourceQuery &query, const DiscoverySource &src)
{
    if (src.anyGroup)
        return 2; // any group's preferred version
    const auto slash = src.groupVersion.find('/');
    const std::string version = slash == std::string::npos ? src.groupVersion : src.groupVersion.substr(slash + 1);
    if (!query.admits(src.group, version))
        return -1;
    return (src.preferred ? 2 : 0) + (src.group.empty() ? 1 : 0);
}
} // namespace

std::optional<const ResourceInfo *> DiscoveryProgress::decide(const ResourceQuery &query, bool moreToCome) const
{
    const ResourceInfo *best = nullptr;
    int bestRank = -1;
    std::size_t bestSource = 0;
    for (std::size_t i = 0; i < sources.size(); ++i)
        for (const auto &r : sources[i].resources)
            if (query.matches(r) && ResourceQuery::rank(r) > bestRank) {
                best = &r;
                bestRank = ResourceQuery::rank(r);
                bestSource = i;
            }
    if (!moreToCome)
        return best;
    // Undecided while a source still to answer could beat the best match: a higher rank, or the
    // same rank earlier in discovery order (a later one loses the tie).
    for (std::size_t i = 0; i < sources.size(); ++i) {
        if (sources[i].state != DiscoverySource::State::Pending)
            continue;
        const int bound = rankBound(query, sources[i]);
        if (bound > bestRank || (bound == bestRank && best && i < bestSource))
            return std::nullopt;
    }
    // Groups not listed yet come after every listed one: only a higher rank (a preferred
    // version, 2) beats what is here.
    if (!sourcesKnown && bestRank < 2)
        return std::nullopt;
    return best;
}

} // namespace fieldscope::kube
