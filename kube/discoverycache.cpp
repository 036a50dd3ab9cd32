#include "kube/discoverycache.h"

#include "core/base/json.h"
#include "core/base/jsonread.h"
#include "core/base/privatefiles.h"
#include "core/base/visibletext.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>

namespace fieldscope::kube {

using core::Error;
using core::ErrorCategory;
using core::Json;

namespace {

constexpr const char *kFormatKey = "fieldscopeDiscoveryCache";
constexpr std::int64_t kFormat = 1;

// Names that become URL path segments (/apis/GROUP/VERSION/RESOURCE/SUBRESOURCE): what the API
// server itself accepts for groups, versions and plurals (lowercase DNS names; kinds are not in
// paths). "." and ".." would be removed by path normalisation and address another collection.
bool isPathName(const std::string &s, bool mayBeEmpty)
{
    if (s.empty())
        return mayBeEmpty;
    if (s == "." || s == ".." || s.size() > 253)
        return false;
    for (unsigned char c : s)
        if (!(std::isalnum(c) || c == '-' || c == '.' || c == '_'))
            return false;
    return true;
}

Json strings(const std::vector<std::string> &v)
{
    Json a = Json::array();
    for (const auto &s : v)
        a.push_back(s);
    return a;
}

Json encodeResource(const ResourceInfo &r)
{
    Json j = Json::object();
    j["group"] = r.group;
    j["version"] = r.version;
    j["resource"] = r.resource;
    j["singular"] = r.singular;
    j["kind"] = r.kind;
    j["namespaced"] = r.namespaced;
    j["preferred"] = r.preferred;
    j["stale"] = r.stale;
    j["verbs"] = strings(r.verbs);
    j["shortNames"] = strings(r.shortNames);
    j["categories"] = strings(r.categories);
    j["subresources"] = strings(r.subresources);
    return j;
}

bool decodeResource(core::JsonReader &read, const Json &j, const std::string &path, ResourceInfo &r,
                    std::string &problem)
{
    if (!read.expectObject(j, path))
        return false;
    r.group = read.string(j, "group", path);
    r.version = read.string(j, "version", path);
    r.resource = read.string(j, "resource", path);
    r.singular = read.string(j, "singular", path);
    r.kind = read.string(j, "kind", path);
    r.namespaced = read.boolean(j, "namespaced", path);
    r.preferred = read.boolean(j, "preferred", path);
    r.stale = read.boolean(j, "stale", path);
    r.verbs = read.strings(j, "verbs", path);
    r.shortNames = read.strings(j, "shortNames", path);
    r.categories = read.strings(j, "categories", path);
    r.subresources = read.strings(j, "subresources", path);
    if (!read.ok())
        return false;
    bool names = isPathName(r.group, true) && isPathName(r.version, false) && isPathName(r.resource, false);
    for (const auto &s : r.subresources)
        names = names && isPathName(s, false);
    if (!names)
        problem = path + ": a group, version, resource or subresource name that cannot be part of a URL path";
    return names;
}

const char *stateName(DiscoverySource::State s)
{
    switch (s) {
    case DiscoverySource::State::Answered: return "answered";
    case DiscoverySource::State::Failed: return "failed";
    case DiscoverySource::State::Pending: break;
    }
    return "pending";
}

bool isGroupVersion(const std::string &gv)
{
    const auto slash = gv.find('/');
    if (slash == std::string::npos)
        return isPathName(gv, false);
    return isPathName(gv.substr(0, slash), false) && isPathName(gv.substr(slash + 1), false);
}

bool decodeSource(core::JsonReader &read, const Json &j, const std::string &path, DiscoverySource &src,
                  std::string &problem)
{
    if (!read.expectObject(j, path))
        return false;
    src.groupVersion = read.string(j, "groupVersion", path);
    src.group = read.string(j, "group", path);
    src.preferred = read.boolean(j, "preferred", path);
    src.anyGroup = read.boolean(j, "anyGroup", path);
    const std::string state = read.string(j, "state", path);
    src.failure = read.string(j, "failure", path);
    src.etag = read.string(j, "etag", path);
    // Sent back as an If-None-Match header: printable ASCII only (no CR/LF to add headers).
    if (src.etag.size() > 512
        || std::any_of(src.etag.begin(), src.etag.end(), [](unsigned char c) { return c < 0x20 || c > 0x7e; })) {
        problem = core::jsonPath(path, "etag") + ": not an ETag (printable ASCII, at most 512 characters)";
        return false;
    }
    const Json *resources = read.array(j, "resources", path);
    for (std::size_t i = 0; resources && i < resources->size() && read.ok(); ++i) {
        ResourceInfo r;
        const std::string rp = core::jsonPath(core::jsonPath(path, "resources"), i);
        if (!decodeResource(read, (*resources)[i], rp, r, problem))
            return false;
        if (!src.anyGroup && r.group != src.group) {
            problem = rp + ": a resource of group \"" + core::visibleEscapes(r.group) + "\" listed under \""
                    + core::visibleEscapes(src.groupVersion) + "\"";
            return false;
        }
        src.resources.push_back(std::move(r));
    }
    if (!read.ok())
        return false;
    if (state == "answered")
        src.state = DiscoverySource::State::Answered;
    else if (state == "failed")
        src.state = DiscoverySource::State::Failed;
    else if (state != "pending") {
        problem = core::jsonPath(path, "state") + ": \"" + core::visibleEscapes(state)
                + "\" is not pending, answered or failed";
        return false;
    }
    const bool named = src.anyGroup ? src.groupVersion == "/apis"
                                    : isGroupVersion(src.groupVersion) && isPathName(src.group, true)
                                          && (src.group.empty() ? src.groupVersion.find('/') == std::string::npos
                                                                : src.groupVersion.rfind(src.group + "/", 0) == 0);
    if (!named)
        problem = core::jsonPath(path, "groupVersion") + ": \"" + core::visibleEscapes(src.groupVersion)
                + "\" is not a group version that can be part of a URL path";
    return named;
}

} // namespace

std::string encodeDiscoveryCache(const CachedDiscovery &cache)
{
    const DiscoveryProgress &p = cache.progress;
    Json doc = Json::object();
    doc[kFormatKey] = kFormat;
    doc["server"] = cache.server;
    doc["savedAtMs"] = cache.savedAtMs;
    doc["serverVersion"] = p.serverVersion;
    doc["aggregated"] = p.aggregated;
    doc["sourcesKnown"] = p.sourcesKnown;
    Json failed = Json::object();
    for (const auto &[entry, why] : p.failedResources)
        failed[entry] = why;
    doc["failedResources"] = std::move(failed);
    Json sources = Json::array();
    for (const auto &src : p.sources) {
        Json j = Json::object();
        j["groupVersion"] = src.groupVersion;
        j["group"] = src.group;
        j["preferred"] = src.preferred;
        j["anyGroup"] = src.anyGroup;
        j["state"] = stateName(src.state);
        j["failure"] = src.failure;
        j["etag"] = src.etag;
        Json resources = Json::array();
        for (const auto &r : src.resources)
            resources.push_back(encodeResource(r));
        j["resources"] = std::move(resources);
        sources.push_back(std::move(j));
    }
    doc["sources"] = std::move(sources);
    return core::toJsonText(doc);
}

core::Result<CachedDiscovery> decodeDiscoveryCache(std::string_view text)
{
    const std::string what = "discovery cache";
    if (text.size() > kMaxDiscoveryCacheBytes)
        return Error::make(ErrorCategory::Parse,
                           what + ": larger than " + std::to_string(kMaxDiscoveryCacheBytes) + " bytes");
    auto doc = core::parseJson(text, 16);
    if (!doc)
        return Error::make(ErrorCategory::Parse, what + ": " + doc.error().message, doc.error().where);
    core::JsonReader read(what);
    if (!read.expectObject(*doc, ""))
        return read.error();
    if (read.integer(*doc, kFormatKey, "") != kFormat)
        return read.ok() ? Error::make(ErrorCategory::Parse, what + ": not a format this version reads", kFormatKey)
                         : read.error();
    CachedDiscovery out;
    DiscoveryProgress &p = out.progress;
    out.server = read.string(*doc, "server", "");
    out.savedAtMs = read.integer(*doc, "savedAtMs", "");
    if (out.savedAtMs < 0 || out.savedAtMs > (std::int64_t(1) << 50))
        return Error::make(ErrorCategory::Parse, what + ": savedAtMs is not a time");
    p.serverVersion = read.string(*doc, "serverVersion", "");
    p.aggregated = read.boolean(*doc, "aggregated", "");
    p.sourcesKnown = read.boolean(*doc, "sourcesKnown", "");
    if (const Json *failed = read.object(*doc, "failedResources", ""))
        for (auto it = failed->begin(); it != failed->end() && read.ok(); ++it)
            p.failedResources[it.key()] = read.string(*failed, it.key(), "failedResources");
    const Json *sources = read.array(*doc, "sources", "");
    std::string problem;
    for (std::size_t i = 0; sources && i < sources->size() && read.ok() && problem.empty(); ++i) {
        DiscoverySource src;
        if (decodeSource(read, (*sources)[i], core::jsonPath("sources", i), src, problem))
            p.sources.push_back(std::move(src));
    }
    if (!read.ok())
        return read.error();
    if (!problem.empty())
        return Error::make(ErrorCategory::Parse, what + ": " + problem);
    // The core group is always the first source; a file without it was not written by us.
    if (out.server.empty() || p.sources.empty() || p.sources.front().anyGroup || !p.sources.front().group.empty())
        return Error::make(ErrorCategory::Parse, what + ": no server or no core group");
    return out;
}

core::Result<CachedDiscovery> loadDiscoveryCache(const std::string &path)
{
    std::ifstream in(path, std::ios::binary);
    if (!in)
        return Error::make(errno == ENOENT ? ErrorCategory::NotFound : ErrorCategory::Io,
                           "discovery cache " + path + ": " + std::strerror(errno));
    std::string text;
    char buffer[1 << 16];
    while (in.read(buffer, sizeof buffer) || in.gcount() > 0) {
        text.append(buffer, std::size_t(in.gcount()));
        if (text.size() > kMaxDiscoveryCacheBytes)
            return Error::make(ErrorCategory::Parse, "discovery cache " + path + ": too large");
    }
    auto decoded = decodeDiscoveryCache(text);
    if (!decoded)
        return Error::make(decoded.error().category, path + ": " + decoded.error().message);
    return decoded;
}

core::Status saveDiscoveryCache(const std::string &path, const CachedDiscovery &cache)
{
    const auto slash = path.rfind('/');
    if (slash != std::string::npos && slash > 0)
        if (auto st = core::makePrivateDirectory(path.substr(0, slash), true); !st)
            return st;
    // Two windows on one cluster, or a window and a command, may save at once: each writes a file
    // of its own and renames it over the cache, so a reader sees one whole file or the other.
    static std::atomic<unsigned> counter{0};
    const std::string own = path + "." + std::to_string(::getpid()) + "." + std::to_string(counter++);
    if (auto st = core::writePrivateFileDurably(own, encodeDiscoveryCache(cache)); !st)
        return st;
    if (std::rename(own.c_str(), path.c_str()) != 0) {
        const int err = errno;
        std::remove(own.c_str());
        return Error::make(ErrorCategory::Io, "cannot rename " + own + ": " + std::strerror(err));
    }
    return core::success();
}

} // namespace fieldscope::kube
