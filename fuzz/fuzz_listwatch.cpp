// What a list or watch answer carries: a LIST page, and a watch stream split into lines by the
// same splitter the watcher uses, each line decoded.
#include "kube/listdecoder.h"

#include <cstdint>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    const std::string input(reinterpret_cast<const char *>(data), size);
    std::string page = input;
    (void)fieldscope::kube::decodeListPage(page, "ConfigMap", "v1");
    std::string buffer;
    std::vector<std::string> lines;
    // Two chunks, cut in the middle, as the network delivers them.
    fieldscope::kube::splitLines(buffer, std::string_view(input).substr(0, size / 2), lines);
    fieldscope::kube::splitLines(buffer, std::string_view(input).substr(size / 2), lines);
    for (const auto &line : lines)
        (void)fieldscope::kube::decodeWatchLine(line);
    return 0;
}
