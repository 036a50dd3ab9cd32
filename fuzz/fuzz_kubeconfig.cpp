// A kubeconfig file: parsed, every context listed and resolved (files it names are read through
// the same limits as always; exec plugins are never run by resolve()).
#include "kube/kubeconfig.h"

#include <cstdint>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    using namespace fieldscope::kube;
    auto kc = Kubeconfig::fromYaml(std::string_view(reinterpret_cast<const char *>(data), size),
                                   "/nonexistent/fuzz/kubeconfig");
    if (!kc)
        return 0;
    (void)kc->resolve();
    int budget = 16; // a file with thousands of contexts resolves each one: keep executions fast
    for (const auto &c : kc->contexts())
        if (budget-- > 0)
            (void)kc->resolve(c.name);
    return 0;
}
