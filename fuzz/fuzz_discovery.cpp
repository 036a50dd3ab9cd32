// Discovery documents: aggregated (1.26+), the legacy group list and a resource list.
#include "kube/discovery.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    using namespace fieldscope::kube;
    const std::string body(reinterpret_cast<const char *>(data), size);
    DiscoverySnapshot a, b, c;
    (void)parseAggregatedDiscovery(body, true, a);
    (void)parseAggregatedDiscovery(body, false, b);
    (void)parseLegacyResourceList(body, "apps/v1", true, c);
    std::vector<std::pair<std::string, bool>> groups;
    (void)parseApiGroupList(body, groups);
    return 0;
}
