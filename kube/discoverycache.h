#pragma once
// What discovery found, kept in a file per cluster between runs, so that a command or a window
// does not wait for thousands of group versions every time (kubectl keeps its own under
// ~/.kube/cache/discovery for six hours). An unfinished run is kept too: the groups it had not
// asked yet are marked pending and the next run asks them. The file is the user's (0600, written
// atomically) but is read as untrusted input: a wrong type, an unknown format or a name that
// could not be part of a URL path makes the whole file unusable and discovery asks the server.
#include "core/base/result.h"
#include "kube/discovery.h"

#include <cstdint>
#include <string>
#include <string_view>

namespace fieldscope::kube {

struct CachedDiscovery {
    std::string server;         // the API server URL the progress is of (a file for another is not used)
    std::int64_t savedAtMs = 0; // wall clock, ms since the epoch
    DiscoveryProgress progress;
};

// A cache file larger than this is not read (3,000 groups of ten resources take about 3 MiB).
inline constexpr std::size_t kMaxDiscoveryCacheBytes = 32u << 20;

std::string encodeDiscoveryCache(const CachedDiscovery &cache);
core::Result<CachedDiscovery> decodeDiscoveryCache(std::string_view text);

// Blocking file I/O (a worker thread or the command line's main thread). Missing file: NotFound.
core::Result<CachedDiscovery> loadDiscoveryCache(const std::string &path);
core::Status saveDiscoveryCache(const std::string &path, const CachedDiscovery &cache);

} // namespace fieldscope::kube
