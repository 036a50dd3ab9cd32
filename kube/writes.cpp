#include "kube/writes.h"

#include "core/base/jsonread.h"

namespace fieldscope::kube {
namespace {

std::string writeQuery(const WriteOptions &o, bool apply)
{
    std::string q = "?fieldManager=" + urlEncode(o.fieldManager);
    if (!o.fieldValidation.empty())
        q += "&fieldValidation=" + o.fieldValidation;
    if (o.dryRun)
        q += "&dryRun=All";
    // force is only valid for apply: even force=false is a 422 on other verbs.
    if (apply && o.force)
        q += "&force=true";
    return q;
}

// The object's metadata.name; empty when absent or not a string (the server then answers with
// its own error rather than the client throwing on a user's malformed edit).
std::string nameOf(const core::Json &object)
{
    return core::stringAt(object, "/metadata/name").value_or(std::string());
}

// Every write with a body (create, replace, patch, apply) differs only in verb, path, content type
// and body.
HttpRequest bodyRequest(const char *method, std::string path, const char *contentType, const core::Json &body)
{
    HttpRequest req;
    req.method = method;
    req.path = std::move(path);
    req.contentType = contentType;
    req.body = core::toJsonText(body);
    return req;
}

} // namespace

const char *patchContentType(PatchType t)
{
    switch (t) {
    case PatchType::Json: return "application/json-patch+json";
    case PatchType::Merge: return "application/merge-patch+json";
    case PatchType::StrategicMerge: return "application/strategic-merge-patch+json";
    }
    return "application/json";
}

HttpRequest getRequest(const ResourceInfo &r, const std::string &ns, const std::string &name,
                       const std::string &subresource)
{
    HttpRequest req;
    req.path = r.objectPath(ns, name, subresource);
    return req;
}

HttpRequest createRequest(const ResourceInfo &r, const std::string &ns, const core::Json &object, const WriteOptions &o)
{
    return bodyRequest("POST", r.collectionPath(ns) + writeQuery(o, false), "application/json", object);
}

HttpRequest replaceRequest(const ResourceInfo &r, const std::string &ns, const core::Json &object,
                           const WriteOptions &o)
{
    return bodyRequest("PUT", r.objectPath(ns, nameOf(object), o.subresource) + writeQuery(o, false),
                       "application/json", object);
}

HttpRequest patchRequest(const ResourceInfo &r, const std::string &ns, const std::string &name, PatchType type,
                         const core::Json &patch, const WriteOptions &o)
{
    return bodyRequest("PATCH", r.objectPath(ns, name, o.subresource) + writeQuery(o, false), patchContentType(type),
                       patch);
}

HttpRequest applyRequest(const ResourceInfo &r, const std::string &ns, const core::Json &object, const WriteOptions &o)
{
    core::Json body = object;
    // The server answers 400 "metadata.managedFields must be nil" to an apply body carrying them.
    if (body.contains("metadata") && body["metadata"].is_object())
        body["metadata"].erase("managedFields");
    return bodyRequest("PATCH", r.objectPath(ns, nameOf(object), o.subresource) + writeQuery(o, true),
                       "application/apply-patch+yaml", body);
}

HttpRequest deleteRequest(const ResourceInfo &r, const std::string &ns, const std::string &name,
                          const DeletePreconditions &pre, PropagationPolicy policy, bool dryRun)
{
    HttpRequest req;
    req.method = "DELETE";
    req.path = r.objectPath(ns, name);
    core::Json opts = {{"kind", "DeleteOptions"}, {"apiVersion", "v1"}};
    if (!pre.uid.empty() || !pre.resourceVersion.empty()) {
        core::Json p = core::Json::object();
        if (!pre.uid.empty())
            p["uid"] = pre.uid;
        if (!pre.resourceVersion.empty())
            p["resourceVersion"] = pre.resourceVersion;
        opts["preconditions"] = p;
    }
    switch (policy) {
    case PropagationPolicy::Orphan: opts["propagationPolicy"] = "Orphan"; break;
    case PropagationPolicy::Background: opts["propagationPolicy"] = "Background"; break;
    case PropagationPolicy::Foreground: opts["propagationPolicy"] = "Foreground"; break;
    case PropagationPolicy::Default: break;
    }
    if (dryRun)
        opts["dryRun"] = core::Json::array({"All"});
    req.contentType = "application/json";
    req.body = core::toJsonText(opts);
    return req;
}

core::Json compareAndSwapPatch(const std::string &pointer, const core::Json &expected, const core::Json &newValue)
{
    return core::Json::array({{{"op", "test"}, {"path", pointer}, {"value", expected}},
                              {{"op", "replace"}, {"path", pointer}, {"value", newValue}}});
}

core::Json compareAndSwapPatch(const std::string &pointer, const core::Json &expected, const core::Json &newValue,
                               const std::vector<core::PointerPin> &pins)
{
    core::Json patch = core::Json::array();
    for (const core::PointerPin &pin : pins)
        patch.push_back({{"op", "test"}, {"path", pin.pointer}, {"value", pin.value}});
    for (core::Json &op : compareAndSwapPatch(pointer, expected, newValue))
        patch.push_back(std::move(op));
    return patch;
}

core::Json withResourceVersionPrecondition(core::Json jsonPatch, const std::string &resourceVersion)
{
    // `replace` rather than `test`, so etcd answers 409 instead of a generic 422 (client-go csaupgrade).
    jsonPatch.insert(jsonPatch.begin(),
                     core::Json{{"op", "replace"}, {"path", "/metadata/resourceVersion"}, {"value", resourceVersion}});
    return jsonPatch;
}

} // namespace fieldscope::kube
