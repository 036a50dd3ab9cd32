#pragma once
// The entries of metadata.managedFields (metav1.ManagedFieldsEntry in k8s.io/apimachinery/pkg/apis/meta/v1/types.go).
#include "core/objects/listsemantics.h"
#include "core/ownership/fieldsv1.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace fieldscope::core {

enum class ManagedOperation { Apply, Update };

const char *operationName(ManagedOperation op);

struct ManagedFieldsEntry {
    std::string manager;
    ManagedOperation operation = ManagedOperation::Update;
    std::string apiVersion;                  // the version the paths are expressed in (may differ from the one read)
    std::string subresource;                 // "" for the main resource; absent before 1.22
    std::string time;                        // RFC 3339 as the server wrote it; may be empty
    std::optional<std::int64_t> timeSeconds; // seconds since the Unix epoch, when `time` parses
    FieldSet fields;

    // "kubectl(Apply)", "kube-controller-manager(Update/status)": the blame gutter's wording.
    std::string label() const;
    // The server's printManager(): "\"kubectl-edit\" using apps/v1", "\"hpa\" with subresource
    // \"scale\" using apps/v1", "\"kubectl\"" (Apply managers get no version), as in the 409 message.
    std::string conflictDescription() const;
    // Entry identity (BuildManagerIdentifier): manager + operation + subresource, plus apiVersion for Update.
    bool sameIdentity(const ManagedFieldsEntry &other) const;
};

// RFC 3339 "2026-07-20T09:14:03Z" (fractions and numeric offsets accepted) to epoch seconds.
std::optional<std::int64_t> parseRfc3339(std::string_view s);

// Decodes one entry; `index` only feeds error locations ("metadata.managedFields[2].fieldsV1...").
Result<ManagedFieldsEntry> parseManagedFieldsEntry(const Json &entry, std::size_t index = 0);
// Decodes `metadata.managedFields` of an object in wire order. An object without the field gives
// an empty list (untracked objects, e.g. created before 1.18). Any malformed entry fails the whole call.
Result<std::vector<ManagedFieldsEntry>> parseManagedFields(const Json &object);

// managedFields are the best evidence of how a list merges (FieldsV1 prefixes): a k: element under a list
// makes it a map keyed by those field names, a v: element a set. Adds one hint per list seen.
void addListSemanticsHints(const std::vector<ManagedFieldsEntry> &entries, ListSemanticsResolver *resolver);

} // namespace fieldscope::core
