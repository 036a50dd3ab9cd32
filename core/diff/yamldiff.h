#pragma once
// Side-by-side YAML diff of two object versions, as pure data for the GUI to paint: rows of
// left/right text with a change kind and the changed character ranges within changed lines.
// Pure functions; run on a worker thread for big objects (house style: diffing is heavy work).
#include "core/diff/objectdiff.h"

#include <string>
#include <string_view>
#include <vector>

namespace fieldscope::core {

// A highlighted span in a row's text: UTF-8 byte offsets, always on code-point boundaries.
struct TextRange {
    int start = 0;
    int length = 0;
    bool operator==(const TextRange &) const = default;
};

struct YamlDiffRow {
    enum class Kind { Same, Added, Removed, Changed, Folded };
    Kind kind = Kind::Same;
    int leftLine = 0;  // 1-based line number in the old YAML; 0 = nothing on the left
    int rightLine = 0; // 1-based line number in the new YAML; 0 = nothing on the right
    std::string left;
    std::string right;
    std::vector<TextRange> leftRanges;  // Changed rows only
    std::vector<TextRange> rightRanges; // Changed rows only
    int foldedLines = 0;                // Folded rows: how many unchanged lines this row hides
};

struct YamlDiffOptions {
    DiffOptions filters;   // noise filters, applied before rendering to YAML
    int contextLines = -1; // unchanged lines kept around changes; -1 = show everything
};

struct YamlDiff {
    std::vector<YamlDiffRow> rows;
    int addedLines = 0;
    int removedLines = 0;
    int changedLines = 0;
};

const char *yamlDiffRowKindName(YamlDiffRow::Kind kind); // "same", "added", ... (tests, dumps)

YamlDiff diffYaml(const Json &oldObject, const Json &newObject, const YamlDiffOptions &options = {});
// The same on two texts (line-based; a final newline does not make an extra line).
YamlDiff diffYamlText(std::string_view oldText, std::string_view newText, int contextLines = -1);

} // namespace fieldscope::core
