#pragma once
// The body of a server-side apply made from the object editor (extract, change, apply: see
// https://kubernetes.io/docs/reference/using-api/server-side-apply/): the fields the manager
// already owns through Apply plus the fields the user changed, never the whole buffer. Applying the
// full object under one manager name would claim every field, defaulted and controller-written ones
// included, and make later writes by their owners conflict. Pure function, no I/O; any thread.
#include "core/ownership/conflictprediction.h"

#include <string>
#include <string_view>
#include <vector>

namespace fieldscope::core {

struct ApplyBody {
    // apiVersion, kind, metadata.name/namespace, and from `edited` the owned and changed fields
    // (a selected leaf brings its whole subtree) plus the key fields of every list-map item kept.
    Json body;
    // Deleted in the buffer but not owned by the manager's Apply entry: an apply cannot remove
    // them (apply removes only what it applied before); a merge or JSON patch can. Server syntax.
    std::vector<std::string> notRemovable;
    // Owned and deleted: left out of the body, so the server drops the manager's ownership and
    // deletes the value unless another manager owns it (apply's removal by omission).
    std::vector<std::string> released;
};

// `live`: the current object WITH metadata.managedFields, as fetched (ownership and list
// semantics come from it). `opened`: the editable form the user started from
// (editableObject(live-at-open-time)). `edited`: the parsed buffer. "Owned" is the union of the
// entries of `fieldManager` with operation Apply and subresource `options.subresource`.
// `alsoSend`: server-syntax paths of `edited` to send though unchanged, e.g. fields set to the
// live value to co-own them (an equal value shares ownership). Errors: Parse for undecodable
// managedFields, Invalid for buffers the server would reject (see predictApply).
Result<ApplyBody> applyBodyForEdit(const Json &live, const Json &opened, const Json &edited,
                                   std::string_view fieldManager, const ApplyOptions &options = {},
                                   const std::vector<std::string> &alsoSend = {});

} // namespace fieldscope::core
