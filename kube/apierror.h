#pragma once
// Typed errors from API responses (metav1.Status; k8s.io/apimachinery/pkg/api/errors/errors.go).
#include "core/error.h"
#include "kube/http.h"

#include <string>
#include <string_view>

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

inline bool isSuccess(int status) { return status >= 200 && status < 300; }

} // namespace fieldscope::kube
