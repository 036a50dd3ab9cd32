#include "core/lessons/lessonrequests.h"

#include "core/base/jsonread.h"
#include "core/objects/objectref.h"

namespace fieldscope::core {
namespace {

// Percent-encoding of a query value (RFC 3986 unreserved characters kept), as kube/resource.cpp
// encodes the other query values.
// The query of every lesson write: an explicit field manager, unknown fields refused, and force
// only for apply (even force=false is a 422 on the other verbs).
std::string writeQuery(const LessonRequest &q, const std::string &manager)
{
    std::string query = "?fieldManager=" + urlEncode(manager) + "&fieldValidation=Strict";
    if (q.verb == LessonVerb::Apply && q.force)
        query += "&force=true";
    return query;
}

// RFC 7386 merge patch applied locally: what a read-modify-write client does with its change.
// Every step checks the type first, so a read object of any shape merges without a throw.
void mergeInto(Json &target, const Json &patch)
{
    if (!patch.is_object()) {
        target = patch;
        return;
    }
    if (!target.is_object())
        target = Json::object();
    for (auto it = patch.begin(); it != patch.end(); ++it) {
        if (it.value().is_null())
            target.erase(it.key());
        else
            mergeInto(target[it.key()], it.value());
    }
}

Error cannotBuild(const std::string &where, const std::string &reason)
{
    return Error::make(ErrorCategory::Invalid, reason, where);
}

// Writes metadata.resourceVersion into `body`: the optimistic-lock precondition of PUT and of a
// merge patch. `at` names the body in the lesson file ("/object", "/patch").
Status setResourceVersion(Json &body, const std::string &at, const std::string &rv)
{
    if (!body.is_object())
        return cannotBuild(at, "the resourceVersion precondition is written into metadata, so this must be a mapping");
    if (!body.contains("metadata"))
        body["metadata"] = Json::object();
    Json &meta = body["metadata"];
    if (!meta.is_object())
        return cannotBuild(at + "/metadata", "\"metadata\" must be a mapping, not " + std::string(jsonTypeName(meta))
                                                 + " (the resourceVersion precondition is written into it)");
    meta["resourceVersion"] = rv;
    return success();
}

LessonHttpRequest request(const char *method, std::string path, const char *contentType, const Json &body)
{
    return {method, std::move(path), contentType, toJsonText(body)};
}

} // namespace

Result<LessonHttpRequest> buildLessonWrite(const LessonRequest &q, const LessonRequestPaths &paths, int client,
                                           int write, const Json &read, const std::string &resourceVersion)
{
    const std::string query = writeQuery(q, expandClient(q.manager, client, write));
    switch (q.verb) {
    case LessonVerb::Create:
        return request("POST", paths.collection + query, "application/json", expandClient(q.object, client, write));
    case LessonVerb::Apply: {
        Json body = expandClient(q.object, client, write);
        // The server refuses managedFields in an apply body.
        if (body.is_object() && body.contains("metadata") && body["metadata"].is_object())
            body["metadata"].erase("managedFields");
        return request("PATCH", paths.object + query, "application/apply-patch+yaml", body);
    }
    case LessonVerb::Update: {
        Json body = expandClient(q.object, client, write);
        if (!read.is_null()) {
            Json merged = read;
            mergeInto(merged, body);
            body = std::move(merged);
        }
        if (!resourceVersion.empty())
            if (auto st = setResourceVersion(body, "/object", resourceVersion); !st)
                return st.error();
        return request("PUT", paths.object + query, "application/json", body);
    }
    case LessonVerb::MergePatch: {
        Json patch = expandClient(q.patch, client, write);
        if (!resourceVersion.empty())
            if (auto st = setResourceVersion(patch, "/patch", resourceVersion); !st)
                return st.error();
        return request("PATCH", paths.object + query, "application/merge-patch+json", patch);
    }
    case LessonVerb::JsonPatch: {
        Json patch = expandClient(q.patch, client, write);
        if (!patch.is_array())
            return cannotBuild("/patch", "a JSON Patch is a list of operations");
        // The precondition as a first `replace` of the resourceVersion rather than a `test`, so
        // etcd answers 409 instead of a generic 422 (as kube::withResourceVersionPrecondition,
        // after client-go's csaupgrade).
        if (!resourceVersion.empty())
            patch.insert(patch.begin(),
                         Json{{"op", "replace"}, {"path", "/metadata/resourceVersion"}, {"value", resourceVersion}});
        return request("PATCH", paths.object + query, "application/json-patch+json", patch);
    }
    }
    return cannotBuild("/verb", "unknown verb");
}

Status checkLessonRequest(const LessonRequest &q)
{
    // The runner sends a resourceVersion with a precondition and on every retried update (a
    // read-modify-write); "1" stands for the one the server will give. The client and write
    // numbers only change digits in strings, so the first of each builds like the others.
    const bool withVersion = q.precondition != LessonPrecondition::None || q.retry;
    auto built = buildLessonWrite(q, {"/collection", "/collection/object"}, 1, 1, Json(), withVersion ? "1" : "");
    if (!built)
        return built.error();
    return success();
}

} // namespace fieldscope::core
