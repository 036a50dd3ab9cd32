#include "app/services/heaptuning.h"

#include "kube/parserpool.h"

#include <cstdlib> // defines __GLIBC__ on glibc
#include <cstring>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace fieldscope::app {

// glibc raises its mmap threshold to the size of each large block freed (up to 32 MiB), so after
// the first list page (~8 MiB) every later page body is carved out of the same arenas as the
// objects the window keeps. The kept objects then fill the holes the pages leave, between
// short-lived blocks, and after the list ~50 MB of free fragments smaller than a page stay
// resident, which no malloc_trim returns (bench_window, 150,000 Pods: +769-791 MB for 624 MB of
// JSON, 1.23-1.27x). A fixed threshold keeps page bodies in their own mappings, given back when
// freed: +717-719 MB (1.15x) over six runs at 256 KiB, 1 MiB and 4 MiB alike. The cost is fresh
// page faults for every page body (bench_list, 150,000 Pods in-process: 0.59-0.65 s -> 0.90-0.92
// s), which is why the one-shot `fieldscope list`, measured against one plain GET, keeps the
// default; a window or a recording lists once and then holds the objects for hours.
void keepHeapCompact()
{
#if defined(__GLIBC__)
    // A threshold the user chose is left alone.
    const char *tunables = std::getenv("GLIBC_TUNABLES");
    if (std::getenv("MALLOC_MMAP_THRESHOLD_") || (tunables && std::strstr(tunables, "glibc.malloc.mmap_threshold")))
        return;
    mallopt(M_MMAP_THRESHOLD, 4 << 20);
#endif
}

// glibc keeps freed memory in its arenas (the decoded pages, the batch copies, the recorder's
// queue: 238 MB of 1,119 MB resident after 150,000 Pods, bench_window); malloc_trim returns
// whole free pages.
void returnFreedHeap()
{
    kube::releaseIdleParsers(); // ~95 MB after 150,000 Pods: the parsers sized to list pages
#if defined(__GLIBC__)
    malloc_trim(0);
#endif
}

} // namespace fieldscope::app
