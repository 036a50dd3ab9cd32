#pragma once
// The HTTP requests a lesson step sends (docs/lessons.md), built from the lesson's values with no
// network: method, path and query, content type, body and the resourceVersion precondition.
// lessons/lessonrunner.cpp sends what this builds; core::parseLesson builds every request once, so a
// request that cannot be built is refused with its line by `lesson check` before anything runs;
// fuzz/fuzz_lesson.cpp builds them all. Values are read only after a type check: nothing here
// throws on a lesson's (or a server's) JSON. Pure functions, any thread.
#include "core/base/json.h"
#include "core/base/result.h"
#include "core/lessons/lesson.h"

#include <string>

namespace fieldscope::core {

// Where the request's object lives, from the server's discovery (kube::ResourceInfo).
struct LessonRequestPaths {
    std::string collection; // "/api/v1/namespaces/NS/configmaps"
    std::string object;     // ".../configmaps/NAME", with "/status" or "/scale" for a subresource
};

struct LessonHttpRequest {
    std::string method; // POST, PUT or PATCH
    std::string path;   // with the query: fieldManager, fieldValidation=Strict, force=true
    std::string contentType;
    std::string body; // JSON text
};

// One client's write. `client` is 1-based and `write` 1..repeat (they expand "{i}" and "{n}").
// `read` is the object the client read, into which an update merges its manifest (null when it
// did not read); `resourceVersion` is the precondition written into the body ("" for none).
// A request that cannot be built is an Invalid error whose `where` is a JSON Pointer into the
// request's mapping in the lesson file ("/patch/metadata").
Result<LessonHttpRequest> buildLessonWrite(const LessonRequest &q, const LessonRequestPaths &paths, int client,
                                           int write, const Json &read, const std::string &resourceVersion);

// Whether every write of `q` can be built as the runner will build it (with a resourceVersion
// when the request has a precondition or retries), without a server. parseLesson calls it.
Status checkLessonRequest(const LessonRequest &q);

} // namespace fieldscope::core
