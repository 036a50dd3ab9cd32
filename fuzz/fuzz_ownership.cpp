// An object with managedFields (FieldsV1) from JSON: the ownership join, blame in both forms, and
// the diff of the object against itself (empty by definition).
#include "core/base/json.h"
#include "core/diff/objectdiff.h"
#include "core/ownership/blame.h"
#include "core/ownership/ownershiptree.h"

#include <cstdint>
#include <cstdlib>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    using namespace fieldscope::core;
    auto object = parseJson(std::string_view(reinterpret_cast<const char *>(data), size));
    if (!object)
        return 0;
    auto tree = OwnershipTree::build(*object);
    if (tree) {
        (void)blameJson(*tree);
        (void)blameText(*object, *tree, 1'700'000'000);
    }
    if (!diffObjects(*object, *object).empty())
        std::abort();
    return 0;
}
