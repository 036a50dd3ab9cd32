#pragma once
// Pure helpers behind the object editor: the editable form of a live object, the merge patch
// between two versions, and the SSA "give the fields up" resolution, which removes conflicting
// fields, named in the server's path syntax, from the user's object (the three resolutions:
// https://kubernetes.io/docs/reference/using-api/server-side-apply/#conflicts). No I/O; any thread.
#include "core/base/json.h"

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace fieldscope::core {

// The live object without what the server owns or derives: metadata.managedFields,
// resourceVersion, uid, creationTimestamp, generation, selfLink, and `status` when
// `withoutStatus` (types with a status subresource ignore status in writes to the main
// resource). What remains is what a write to the main resource can change.
Json editableObject(const Json &live, bool withoutStatus);

// RFC 7386 merge patch turning `from` into `to`: changed and new keys carry the new value, keys
// missing from `to` are null (deleted); lists are replaced whole (RFC 7386 merge patch).
Json mergePatchBetween(const Json &from, const Json &to);

// RFC 6902 JSON Patch turning `from` into `to` key by key (objects recurse; lists and scalars are
// replaced whole), each replace or remove preceded by a `test` of the value it had in `from`:
// a field-level compare-and-swap, "set foo=2 only if foo is 1", so a concurrent change to any field the
// user changed makes the server refuse the whole patch (422) while changes elsewhere do not
// matter. New keys are plain `add`s: JSON Patch cannot test that a key is absent. An empty array
// when nothing changed.
Json jsonPatchBetween(const Json &from, const Json &to);

// The `test` operations of a JSON Patch whose value differs from `object` at their path (or
// whose path is gone): why the server refused the patch. Pairs of (pointer, value now), the value
// null when the path no longer exists.
std::vector<std::pair<std::string, std::optional<Json>>> failedTests(const Json &jsonPatch, const Json &object);

// The value at one server-syntax path (".data.key", ".spec.containers[name=\"a\"].image") in a
// manifest and in the live object, resolved with the list semantics the server would use for
// that manifest (associative keys from managedFields and built-ins).
struct FieldValues {
    std::string path;
    std::optional<Json> mine; // nullopt: not in the manifest
    std::optional<Json> live; // nullopt: not in the live object
};
std::vector<FieldValues> valuesAtPaths(const Json &manifest, const Json &live, const std::vector<std::string> &paths);

// `manifest` without the fields at `paths` (server syntax). Maps and list items left empty by a
// removal are removed too (an empty map would still be applied, and owned); apiVersion, kind and
// metadata.name/namespace are never removed. Paths not found are listed in `notFound`.
Json withoutFieldPaths(const Json &manifest, const Json &live, const std::vector<std::string> &paths,
                       std::vector<std::string> *notFound = nullptr);

// `manifest` with the value at each of `paths` (server syntax) set to the live object's: the
// SSA "co-own" resolution (see the top of this file), where an equal value shares the field instead of
// conflicting. Paths missing from either object are listed in `notFound`.
Json withLiveValuesAt(const Json &manifest, const Json &live, const std::vector<std::string> &paths,
                      std::vector<std::string> *notFound = nullptr);

} // namespace fieldscope::core
