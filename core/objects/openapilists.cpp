#include "core/objects/openapilists.h"

#include <algorithm>
#include <map>

namespace fieldscope::core {
namespace {

// allOf inside allOf and $ref chains: real documents nest two levels; this bounds a hostile one.
constexpr int kMaxCollectDepth = 8;
constexpr std::size_t kMaxPartsPerNode = 64;

const Json *field(const Json &object, std::string_view key)
{
    if (!object.is_object())
        return nullptr;
    auto it = object.find(std::string(key));
    return it == object.end() ? nullptr : &*it;
}

std::string stringOr(const Json *v)
{
    return v && v->is_string() ? v->get<std::string>() : std::string();
}

// "#/components/schemas/io.k8s.api.core.v1.PodSpec" -> "io.k8s.api.core.v1.PodSpec"; "" for
// anything else (a reference into another document is not followed).
std::string refName(const Json &node)
{
    static const std::string prefix = "#/components/schemas/";
    const std::string ref = stringOr(field(node, "$ref"));
    return ref.rfind(prefix, 0) == 0 ? jsonPointerUnescape(ref.substr(prefix.size())) : std::string();
}

// The schema objects that together describe one node: itself, what its $ref names and its allOf
// members (OpenAPI v3 wraps a reference in allOf to give it a default), recursively. A reference
// already in `refs` (the way down) is not followed; the ones followed are appended to it.
void collect(const Json &node, const Json &schemas, std::vector<std::string> &refs, std::vector<const Json *> &parts,
             int depth = 0)
{
    if (!node.is_object() || depth > kMaxCollectDepth || parts.size() >= kMaxPartsPerNode)
        return;
    parts.push_back(&node);
    if (const std::string name = refName(node);
        !name.empty() && std::find(refs.begin(), refs.end(), name) == refs.end()) {
        if (const Json *target = field(schemas, name)) {
            refs.push_back(name);
            collect(*target, schemas, refs, parts, depth + 1);
        }
    }
    if (const Json *all = field(node, "allOf"); all && all->is_array())
        for (const Json &member : *all)
            collect(member, schemas, refs, parts, depth + 1);
}

const Json *extension(const std::vector<const Json *> &parts, std::string_view key)
{
    for (const Json *p : parts)
        if (const Json *v = field(*p, key))
            return v;
    return nullptr;
}

// k8s.io/kube-openapi/pkg/schemaconv/smd.go, getListElementRelationship. A schema the server
// itself refuses (a map without keys, an unknown list type) is atomic here.
ListSemantics semanticsOf(const std::vector<const Json *> &parts)
{
    using T = ListSemantics::Type;
    ListSemantics s;
    if (const Json *type = extension(parts, "x-kubernetes-list-type")) {
        const std::string t = stringOr(type);
        const Json *keys = extension(parts, "x-kubernetes-list-map-keys");
        if (t == "set") {
            s.type = T::Set;
        } else if (t == "map" && keys && keys->is_array() && !keys->empty()) {
            for (const Json &k : *keys) {
                if (!k.is_string())
                    return {};
                s.keys.push_back(k.get<std::string>());
            }
            s.type = T::Map;
        }
        return s;
    }
    const std::string strategy = stringOr(extension(parts, "x-kubernetes-patch-strategy"));
    if (strategy == "merge" || strategy == "merge,retainKeys") {
        const Json *key = extension(parts, "x-kubernetes-patch-merge-key");
        if (!key) {
            s.type = T::Set;
        } else if (key->is_string()) {
            s.type = T::Map;
            s.keys = {key->get<std::string>()};
        }
    }
    return s;
}

// Each key field's schema default (a container port's protocol: "TCP"): the server fills it in
// before it matches items, so an item without it has that key.
std::map<std::string, Json> keyDefaults(const Json &items, const std::vector<std::string> &keys, const Json &schemas,
                                        std::vector<std::string> refs)
{
    std::map<std::string, Json> out;
    std::vector<const Json *> parts;
    collect(items, schemas, refs, parts);
    for (const std::string &key : keys) {
        for (const Json *p : parts) {
            const Json *prop = field(*p, "properties");
            const Json *keySchema = prop ? field(*prop, key) : nullptr;
            if (!keySchema)
                continue;
            std::vector<std::string> keyRefs = refs;
            std::vector<const Json *> keyParts;
            collect(*keySchema, schemas, keyRefs, keyParts);
            if (const Json *d = extension(keyParts, "default"); d && d->is_primitive() && !d->is_null())
                out[key] = *d;
            break;
        }
    }
    return out;
}

struct Walk {
    const Json &schemas;
    std::vector<std::string> refs; // followed on the way down to the current node
    std::size_t visited = 0;
    std::map<std::string, ListSemantics> found;
};

// Lists have no path element of their own: their items' fields continue the list's path, as in
// schemaPathOf.
void walk(const Json &node, const std::string &path, int depth, Walk &w)
{
    if (++w.visited > kMaxSchemaNodes || depth > kMaxSchemaFieldDepth)
        return;
    const std::size_t refsBefore = w.refs.size();
    std::vector<const Json *> parts;
    collect(node, w.schemas, w.refs, parts);
    const Json *items = nullptr;
    bool list = false;
    for (const Json *p : parts) {
        list = list || stringOr(field(*p, "type")) == "array";
        if (const Json *i = field(*p, "items"); i && i->is_object() && !items)
            items = i;
    }
    if ((list || items) && !path.empty()) {
        ListSemantics s = semanticsOf(parts);
        std::sort(s.keys.begin(), s.keys.end());
        if (s.type == ListSemantics::Type::Map && items)
            s.keyDefaults = keyDefaults(*items, s.keys, w.schemas, w.refs);
        w.found[path] = std::move(s);
    }
    if (items)
        walk(*items, path, depth + 1, w);
    for (const Json *p : parts)
        if (const Json *props = field(*p, "properties"); props && props->is_object())
            for (auto it = props->begin(); it != props->end(); ++it)
                walk(it.value(), path.empty() ? it.key() : path + "." + it.key(), depth + 1, w);
    w.refs.resize(refsBefore);
}

void splitApiVersion(std::string_view apiVersion, std::string *group, std::string *version)
{
    const auto slash = apiVersion.find('/');
    *group = slash == std::string_view::npos ? std::string() : std::string(apiVersion.substr(0, slash));
    *version = std::string(slash == std::string_view::npos ? apiVersion : apiVersion.substr(slash + 1));
}

bool namesKind(const Json &schema, const std::string &group, const std::string &version, std::string_view kind)
{
    const Json *gvks = field(schema, "x-kubernetes-group-version-kind");
    if (!gvks || !gvks->is_array())
        return false;
    for (const Json &gvk : *gvks)
        if (stringOr(field(gvk, "group")) == group && stringOr(field(gvk, "version")) == version
            && stringOr(field(gvk, "kind")) == kind)
            return true;
    return false;
}

} // namespace

std::string openApiV3Path(std::string_view apiVersion)
{
    return (apiVersion.find('/') == std::string_view::npos ? "api/" : "apis/") + std::string(apiVersion);
}

Result<std::string> openApiV3DocumentUrl(const Json &index, std::string_view apiVersion)
{
    const std::string path = openApiV3Path(apiVersion);
    const Json *paths = field(index, "paths");
    if (!paths || !paths->is_object())
        return Error::make(ErrorCategory::Parse, "the /openapi/v3 index has no paths object", "/openapi/v3");
    const Json *entry = field(*paths, path);
    if (!entry)
        return Error::make(ErrorCategory::NotFound,
                           "the server publishes no OpenAPI v3 document for " + std::string(apiVersion), "/openapi/v3");
    // Sent back to the same server as a path: anything but a document path of its own is refused.
    const std::string url = stringOr(field(*entry, "serverRelativeURL"));
    if (url.rfind("/openapi/v3/", 0) != 0 || url.find_first_of(" \r\n#") != std::string::npos)
        return Error::make(ErrorCategory::Parse, "paths." + path + ".serverRelativeURL is not an /openapi/v3/ path",
                           "/openapi/v3");
    return url;
}

Result<std::vector<ListSemanticsHint>> listSemanticsFromOpenApi(const Json &document, std::string_view apiVersion,
                                                                std::string_view kind)
{
    const std::string where = "/openapi/v3/" + openApiV3Path(apiVersion);
    const Json *components = field(document, "components");
    const Json *schemas = components ? field(*components, "schemas") : nullptr;
    if (!schemas || !schemas->is_object())
        return Error::make(ErrorCategory::Parse, "the OpenAPI document has no components.schemas object", where);
    std::string group, version;
    splitApiVersion(apiVersion, &group, &version);
    const Json *root = nullptr;
    for (auto it = schemas->begin(); it != schemas->end() && !root; ++it)
        if (namesKind(it.value(), group, version, kind))
            root = &it.value();
    if (!root)
        return Error::make(ErrorCategory::NotFound,
                           "the OpenAPI document has no schema for " + std::string(kind) + " "
                               + std::string(apiVersion),
                           where);
    Walk w{*schemas, {}, 0, {}};
    walk(*root, std::string(), 0, w);
    if (w.visited > kMaxSchemaNodes)
        return Error::make(ErrorCategory::Parse,
                           "the schema of " + std::string(kind) + " has more than " + std::to_string(kMaxSchemaNodes)
                               + " nodes",
                           where);
    std::vector<ListSemanticsHint> out;
    out.reserve(w.found.size());
    for (auto &[path, semantics] : w.found)
        out.push_back({path, std::move(semantics)});
    return out;
}

std::string describeHints(const std::vector<ListSemanticsHint> &hints)
{
    std::string out;
    for (const ListSemanticsHint &h : hints) {
        out += h.schemaPath + "\t";
        switch (h.semantics.type) {
        case ListSemantics::Type::Atomic: out += "atomic"; break;
        case ListSemantics::Type::Set: out += "set"; break;
        case ListSemantics::Type::Map: {
            out += "map ";
            for (std::size_t i = 0; i < h.semantics.keys.size(); ++i)
                out += (i ? "," : "") + h.semantics.keys[i];
            std::string defaults;
            for (const auto &[key, value] : h.semantics.keyDefaults)
                defaults += (defaults.empty() ? "" : ",") + key + "=" + toJsonText(value);
            if (!defaults.empty())
                out += " (" + defaults + ")";
            break;
        }
        }
        out += "\n";
    }
    return out;
}

} // namespace fieldscope::core
