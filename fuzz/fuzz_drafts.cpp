// A draft file of the editor (unsent edits kept on disk): parsed, and a parsed draft written and
// parsed again unchanged.
#include "core/edit/drafts.h"

#include <cstdint>
#include <cstdlib>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    using namespace fieldscope::core;
    auto draft = parseDraft(std::string_view(reinterpret_cast<const char *>(data), size));
    if (!draft)
        return 0;
    auto again = parseDraft(draftFileText(*draft));
    if (!again || again->text != draft->text || again->uid != draft->uid)
        std::abort();
    return 0;
}
