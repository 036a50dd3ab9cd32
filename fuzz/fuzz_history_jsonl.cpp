// A history export (.jsonl) read back, as `fieldscope history --db FILE.jsonl` and
// `fieldscope --open` do.
#include "core/history/historyexport.h"

#include <cstdint>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    (void)fieldscope::core::readJsonLinesText(std::string_view(reinterpret_cast<const char *>(data), size));
    return 0;
}
