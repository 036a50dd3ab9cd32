#pragma once

namespace fieldscope::app {

// Process-wide malloc settings for a process that holds a cluster's objects for hours (the
// window, `fieldscope record`). Call once, before the first cluster connects.
void keepHeapCompact();

// Gives the heap a large list or burst left behind back to the system: the parsers sized to its
// pages, then every whole free page of malloc's arenas. Blocks for a while (it walks every
// arena): call it on a worker, once nothing waits to be applied or recorded.
void returnFreedHeap();

} // namespace fieldscope::app
