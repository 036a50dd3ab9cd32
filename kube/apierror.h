#pragma once
// Typed errors from API responses: the HTTP status and the metav1.Status body the server sends with
// it (https://kubernetes.io/docs/reference/using-api/api-concepts/#response-status-kind).
#include "core/base/error.h"
#include "core/base/jsonread.h"
#include "kube/http.h"

#include <string>
#include <string_view>
#include <vector>

namespace fieldscope::kube {

// Builds the typed error for a non-2xx response: category from the code and the Status reason,
// causes from details.causes, SSA conflicts parsed from FieldManagerConflict causes, stale
// writes (409 without FieldManagerConflict, reason Conflict) told apart.
// A Status body with a wrong type at any field it reads is a Parse error naming the path and
// `request` ("GET /api/v1/pods"), still carrying the HTTP status.
core::Error errorFromResponse(const HttpResponse &response, std::string_view request = {});

// Parses one FieldManagerConflict cause message: `conflict with "kubectl-edit" with subresource
// "scale" using apps/v1` -> manager, subresource, apiVersion.
core::FieldConflict parseConflictCause(std::string_view message, std::string field);

// The causes of a Status (metav1.StatusDetails.causes, k8s.io/apimachinery/pkg/apis/meta/v1/types.go)
// from its `details` object found at `detailsPath` ("details", "object.details"). Every field is
// type-checked through `read`; a wrong type is recorded there and ends the list.
std::vector<core::StatusCause> readStatusCauses(core::JsonReader &read, const core::Json &details,
                                                const std::string &detailsPath);

inline bool isSuccess(int status)
{
    return status >= 200 && status < 300;
}

} // namespace fieldscope::kube
