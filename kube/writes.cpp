#include "kube/writes.h"

namespace fieldscope::kube {
namespace {

std::string writeQuery(const WriteOptions &o, bool apply)
{
    std::string q = "?fieldManager=" + urlEncode(o.fieldManager);
    if (!o.fieldValidation.empty())
        q += "&fieldValidation=" + o.fieldValidation;
    if (o.dryRun)
        q += "&dryRun=All";
    // force is only valid for apply: even force=false is a 422 elsewhere (API brief 4.1).
    if (apply && o.force)
        q += "&force=true";
    return q;
}

std::string nameOf(const core::Json &object)
{
    return object.value("/metadata/name"_json_pointer, std::string());
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

HttpRequest getRequest(const ResourceInfo &r, const std::string &ns, const std::string &name, const std::string &subresource)
{
    HttpRequest req;
    req.path = r.objectPath(ns, name, subresource);
    return req;
}

HttpRequest createRequest(const ResourceInfo &r, const std::string &ns, const core::Json &object, const WriteOptions &o)
{
    HttpRequest req;
    req.method = "POST";
    req.path = r.collectionPath(ns) + writeQuery(o, false);
    req.contentType = "application/json";
    req.body = core::toJsonText(object);
    return req;
}

HttpRequest replaceRequest(const ResourceInfo &r, const std::string &ns, const core::Json &object, const WriteOptions &o)
{
    HttpRequest req;
    req.method = "PUT";
    req.path = r.objectPath(ns, nameOf(object), o.subresource) + writeQuery(o, false);
    req.contentType = "application/json";
    req.body = core::toJsonText(object);
    return req;
}

HttpRequest patchRequest(const ResourceInfo &r, const std::string &ns, const std::string &name, PatchType type,
                         const core::Json &patch, const WriteOptions &o)
{
    HttpRequest req;
    req.method = "PATCH";
    req.path = r.objectPath(ns, name, o.subresource) + writeQuery(o, false);
    req.contentType = patchContentType(type);
    req.body = core::toJsonText(patch);
    return req;
}

HttpRequest applyRequest(const ResourceInfo &r, const std::string &ns, const core::Json &object, const WriteOptions &o)
{
    HttpRequest req;
    req.method = "PATCH";
    req.path = r.objectPath(ns, nameOf(object), o.subresource) + writeQuery(o, true);
    req.contentType = "application/apply-patch+yaml";
    core::Json body = object;
    // The server refuses managedFields in an apply body (API brief 3.6).
    if (body.contains("metadata") && body["metadata"].is_object())
        body["metadata"].erase("managedFields");
    req.body = core::toJsonText(body);
    return req;
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

core::Json withResourceVersionPrecondition(core::Json jsonPatch, const std::string &resourceVersion)
{
    // `replace` rather than `test`, so etcd answers 409 instead of a generic 422 (client-go csaupgrade).
    jsonPatch.insert(jsonPatch.begin(), core::Json{{"op", "replace"}, {"path", "/metadata/resourceVersion"}, {"value", resourceVersion}});
    return jsonPatch;
}

} // namespace fieldscope::kube
