// Error bodies: a Status (or anything else) with each status code class, and the SSA conflict
// cause messages parsed out of them.
#include "kube/apierror.h"

#include <cstdint>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    using namespace fieldscope::kube;
    const std::string body(reinterpret_cast<const char *>(data), size);
    for (int status : {400, 403, 404, 409, 410, 422, 429, 500, 503}) {
        HttpResponse r;
        r.status = status;
        r.contentType = "application/json";
        r.body = body;
        (void)errorFromResponse(r, "GET /api/v1/namespaces/x/configmaps/y");
    }
    (void)parseConflictCause(body, ".data.key");
    return 0;
}
