#pragma once
// Secret values never reach the history store unless the user opted in (docs/architecture.md).
// A core/v1 Secret keeps its metadata and managedFields; each `data` and `stringData` value is
// replaced by a keyed hash, so "this key changed" and "these two versions are equal" stay
// visible without the value. The key is random per database (stored in it): the same value in
// two databases hashes differently, and nobody without the file can test guesses against it.
// `kubectl.kubernetes.io/last-applied-configuration` holds the Secret's data in plain text (it
// is the applied manifest): it is replaced by one hash too.
// Thread-agnostic, pure functions.
#include "core/base/json.h"

#include <string>
#include <string_view>

namespace fieldscope::core {

// The prefix of every hashed value: "hidden:hmac-sha256:<64 hex digits>". Not base64 (the ':'),
// so it can never be taken for a value.
inline constexpr std::string_view kRedactedPrefix = "hidden:hmac-sha256:";
inline constexpr const char *kLastAppliedAnnotation = "kubectl.kubernetes.io/last-applied-configuration";

// 32 random bytes from the system's CSPRNG.
std::string newRedactionKey();

// Whether `object` is a core/v1 Secret (apiVersion "v1", kind "Secret").
bool isSecretObject(std::string_view apiVersion, std::string_view kind);
bool isSecretObject(const Json &object);

// Replaces the values in place; returns how many were replaced. `key` must not be empty.
int redactSecret(Json &object, std::string_view key);

// Whether `value` is one of redactSecret()'s hashes.
bool isRedactedValue(std::string_view value);

// For people (the History tab and its diffs): each hash of a redacted Secret becomes
// "(hidden value 1a2b3c4d)", so a diff reads "value changed (hidden)" rather than 64 hex digits;
// the 8 digits still tell equal values from changed ones. Returns how many were replaced.
int describeRedactedValues(Json &object);

} // namespace fieldscope::core
