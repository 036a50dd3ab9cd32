#pragma once
#include <cstdint>

namespace fieldscope::app {

// How much watch data (a list, a burst) the window and `fieldscope record` take in before they
// give the heap back once nothing waits. At 64 MB a window listing 10,000 Pods (42 MB) kept 120 MB
// of garbage for good, 5x its JSON resident; one trim after a list of that size costs a few
// milliseconds on a worker.
inline constexpr std::int64_t kReturnHeapAfterBytes = std::int64_t(16) << 20;

// Process-wide malloc settings for a process that holds a cluster's objects for hours (the
// window, `fieldscope record`). Call once, before the first cluster connects.
void keepHeapCompact();

// Gives the heap a large list or burst left behind back to the system: the parsers sized to its
// pages, then every whole free page of malloc's arenas. Blocks for a while (it walks every
// arena): call it on a worker, once nothing waits to be applied or recorded.
void returnFreedHeap();

} // namespace fieldscope::app
