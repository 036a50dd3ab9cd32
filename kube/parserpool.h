#pragma once
// The decoders' simdjson parsers are lent out of one pool so their buffers can be given back.
//
// A parser keeps buffers sized to the largest document it parsed, about five times its bytes (a
// list page of 8 MiB leaves ~40 MB). As thread_local parsers, the decode threads held ~95 MB
// after a 150,000-Pod list for as long as they lived. Leased parsers (kube/parserlease.h) return
// to the pool, and releaseIdleParsers() frees the idle ones once a list or burst is absorbed.
#include <cstddef>

namespace fieldscope::kube {

struct ParserPoolStats {
    std::size_t idle = 0;         // parsers waiting in the pool
    std::size_t idleCapacity = 0; // the bytes of document they take without growing, with scratch
};
ParserPoolStats parserPoolStats();

// Frees the idle parsers (a leased one is left to its holder); returns the capacity they had.
// Any thread; the next lease makes a new parser, which grows on its first document.
std::size_t releaseIdleParsers();

} // namespace fieldscope::kube
