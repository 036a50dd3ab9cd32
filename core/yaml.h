#pragma once
// YAML <-> JSON conversion with the Kubernetes server's YAML 1.1 reading of plain scalars
// (API brief section 0): unquoted yes/no/on/off are booleans, 0123 is octal. We convert on the
// client and send JSON, and tell the user when a scalar was read in one of those surprising ways.
#include "core/json.h"

#include <string>
#include <string_view>
#include <vector>

namespace fieldscope::core {

struct YamlLimits {
    std::size_t maxBytes = 16u << 20;   // input size
    std::size_t maxNodes = 2'000'000;   // after alias expansion ("billion laughs")
    int maxDepth = 200;
};

struct YamlParseResult {
    Json value;
    std::vector<std::string> warnings; // "line 4: 'on' was read as the boolean true (YAML 1.1)"
};

// Parses exactly one YAML document (an empty input is an error). Errors carry "line N, column M".
Result<YamlParseResult> yamlToJson(std::string_view text, const YamlLimits &limits = {});
// Parses every document of a multi-document stream ("---"), skipping empty ones.
Result<std::vector<Json>> yamlDocumentsToJson(std::string_view text, const YamlLimits &limits = {});

// Block-style YAML in the JSON's key order; strings that YAML 1.1 would misread are quoted.
std::string jsonToYaml(const Json &value);

// jsonToYaml's exact text plus, for every output line, the JSON Pointer of the value that line
// shows ("" for the document root; a list item's dash line shows its first key). Lets blame
// gutters and editor selections map lines to fields.
struct AnnotatedYaml {
    std::string text;
    std::vector<std::string> linePointers; // one per '\n'-terminated line of `text`
};
AnnotatedYaml jsonToAnnotatedYaml(const Json &value);

} // namespace fieldscope::core
