#pragma once
// Private to core/yaml/yaml.cpp and core/yaml/yamlemit.cpp: how a plain (unquoted, untagged) scalar reads
// under YAML 1.1, which the reader uses to resolve it and the writer to decide when to quote.
// Hand-written linear scans: std::regex (libstdc++) backtracks recursively, and a long digit
// string in a file would exhaust the stack.
#include <string_view>

namespace fieldscope::core::yamldetail {

enum class PlainKind {
    String,
    Null,    // "", ~, null, Null, NULL
    True,    // true, True, TRUE
    False,   // false, False, FALSE
    YesTrue, // y, yes, on (any of the YAML 1.1 spellings): true, with a warning
    NoFalse, // n, no, off: false, with a warning
    Int,     // [-+]?(0|[1-9][0-9_]*)
    Octal,   // [-+]?0[0-7_]+ (YAML 1.1), with a warning
    Hex,     // [-+]?0x[0-9a-fA-F_]+
    Float,   // [-+]?(\.[0-9]+|[0-9][0-9_]*(\.[0-9_]*)?)([eE][-+]?[0-9]+)?
    Special, // .inf, -.inf, .nan spellings: kept as a string, with a warning
};

PlainKind classifyPlain(std::string_view s);

} // namespace fieldscope::core::yamldetail
