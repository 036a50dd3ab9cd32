// YAML to JSON (every manifest, kubeconfig and edit buffer goes through it), and back: a value
// the reader accepts must render as YAML and read back equal.
#include "core/base/json.h"
#include "core/yaml/yaml.h"

#include <cstdint>
#include <cstdlib>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    const std::string_view text(reinterpret_cast<const char *>(data), size);
    auto docs = fieldscope::core::yamlDocumentsToJson(text);
    auto one = fieldscope::core::yamlToJson(text);
    if (!one)
        return 0;
    auto yaml = fieldscope::core::tryJsonToYaml(one->value);
    if (!yaml)
        std::abort(); // anything the reader accepts is within the emitter's depth
    auto back = fieldscope::core::yamlToJson(*yaml);
    if (!back || !fieldscope::core::jsonEqual(back->value, one->value))
        std::abort(); // the YAML we show must read back as the same value
    (void)docs;
    return 0;
}
