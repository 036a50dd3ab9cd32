#pragma once
// YAML <-> JSON conversion with the Kubernetes server's YAML 1.1 reading of plain scalars
// (sigs.k8s.io/yaml over go-yaml v2): unquoted yes/no/on/off are booleans, 0123 is octal. We convert on the
// client and send JSON, and tell the user when a scalar was read in one of those surprising ways.
#include "core/base/json.h"

#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace fieldscope::core {

// Every limit is checked while the text is read (one streaming pass, no node graph), so a hostile
// document is refused after at most the work and memory the limits allow (docs/architecture.md,
// "Limits"; bench/bench_json.cpp measures the worst cases).
// yaml-cpp's own parser refuses nesting of 499 and more (its DepthGuard), with a message that
// says "bad file"; our limit stays below it so that a deep document gets our clear error.
inline constexpr int kMaxYamlDepth = 480;

struct YamlLimits {
    std::size_t maxBytes = 8u << 20;          // input size (the API server refuses a body over 3 MiB)
    std::size_t maxNodes = 600'000;           // values produced, aliases expanded ("billion laughs")
    std::size_t maxExpandedBytes = 32u << 20; // scalar and key bytes produced, aliases expanded
    int maxDepth = kMaxYamlDepth;             // nesting of the JSON produced, as parseJson counts it
};

struct YamlParseResult {
    Json value;
    std::vector<std::string> warnings; // "line 4: 'on' was read as the boolean true (YAML 1.1)"
};

// Parses exactly one YAML document (an empty input is an error). Errors carry "line N, column M"
// (or "byte N" for invalid UTF-8). Never throws.
Result<YamlParseResult> yamlToJson(std::string_view text, const YamlLimits &limits = {});
// JSON Pointer -> 1-based line where that value (for a mapping member: its key) is written.
using YamlLineMap = std::unordered_map<std::string, int>;
// yamlToJson that also tells where each value came from, so a checker of the document's meaning
// (a lesson file) can name the line of a mistake.
Result<YamlParseResult> yamlToJsonWithLines(std::string_view text, YamlLineMap &lines, const YamlLimits &limits = {});
// Parses every document of a multi-document stream ("---"), skipping empty ones.
Result<std::vector<Json>> yamlDocumentsToJson(std::string_view text, const YamlLimits &limits = {});
// The same, with the YAML 1.1 warnings of every document.
Result<std::vector<Json>> yamlDocumentsToJson(std::string_view text, const YamlLimits &limits,
                                              std::vector<std::string> *warnings);

// Block-style YAML in the JSON's key order; strings that YAML 1.1 would misread are quoted.
// A value nested deeper than kMaxJsonDepth is a Parse error (checked before the recursive walk).
Result<std::string> tryJsonToYaml(const Json &value);
// The same; a value too deep to render gives one YAML comment line with the error instead (for
// callers that show text; values from parseJson / yamlToJson are never too deep).
std::string jsonToYaml(const Json &value);

// jsonToYaml's exact text plus, for every output line, the JSON Pointer of the value that line
// shows ("" for the document root; a list item's dash line shows its first key). Lets blame
// gutters and editor selections map lines to fields.
struct AnnotatedYaml {
    std::string text;
    std::vector<std::string> linePointers; // one per '\n'-terminated line of `text`
};
Result<AnnotatedYaml> tryJsonToAnnotatedYaml(const Json &value);
AnnotatedYaml jsonToAnnotatedYaml(const Json &value); // an error comment line when too deep, as jsonToYaml

} // namespace fieldscope::core
