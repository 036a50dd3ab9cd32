#pragma once
// Value types exchanged with the transport. Cross threads by value.
#include <cstddef>
#include <string>
#include <utility>
#include <vector>

namespace fieldscope::kube {

// Size limits on what a server may send us (README.md, Security). An object is at most 1.5 MiB (etcd's
// default request limit), so a 500-item list page is ~750 MiB only in theory; real pages of
// 10k small objects are tens of MiB. 256 MiB is far above any sane page and still bounds memory.
// Counted after decompression (libcurl's write callback sees decoded bytes), so a gzip bomb stops
// at the limit too.
inline constexpr std::size_t kMaxResponseBodyBytes = std::size_t(256) << 20;
// One watch event holds one object (1.5 MiB) plus its envelope; 64 MiB leaves room for
// aggregated servers with larger objects while bounding a newline-less stream.
inline constexpr std::size_t kMaxWatchFrameBytes = std::size_t(64) << 20;
// All bodies one Transport holds at once (received, or handed to their decoder) count against
// this: a LIST and the Table LIST of the same huge answer cannot each hold the per-request limit.
inline constexpr std::size_t kMaxBufferedBodyBytes = kMaxResponseBodyBytes;
// A complete body is handed on with this much spare capacity, so a decoder that needs padding
// (simdjson) reads it in place instead of copying it.
inline constexpr std::size_t kResponseBodyPadding = 64;
// A body is received in pieces of this size and joined once at the end into an exact-size string:
// growing one string by doubling would hold up to twice the body while it copies.
inline constexpr std::size_t kBodyPieceBytes = std::size_t(1) << 20;

struct HttpRequest {
    std::string method = "GET";
    std::string path; // "/api/v1/namespaces?limit=500", relative to the cluster's server URL
    std::string accept = "application/json";
    std::string contentType;
    std::string body;
    std::vector<std::pair<std::string, std::string>> headers;
    bool streaming = false;    // watch: body delivered in chunks as it arrives
    bool isWatchStart = false; // counted against the watch-start rate bucket (dozens start at once)
    bool isDiscovery = false;  // counted against the discovery bucket (thousands of group versions at once)
    int timeoutMs = 60'000;    // whole-request limit for non-streaming requests
    int stallSeconds = 45;     // streaming: abort when no byte arrived for this long
    // Non-streaming: a larger (decoded) body fails the request with a Parse error. Tests lower it.
    std::size_t maxBodyBytes = kMaxResponseBodyBytes;
    // Non-streaming: the body's likely size (a LIST page after the first). It is received into
    // one buffer of that size (at most maxBodyBytes), handed on without the final join's copy.
    std::size_t expectedBodyBytes = 0;
};

struct HttpResponse {
    int status = 0;
    std::string contentType;
    std::string etag;
    std::vector<std::string> warnings; // decoded texts of Warning: 299 - "..." headers
    int retryAfterSeconds = -1;
    std::string body;        // complete body (non-streaming) or the unconsumed tail (streaming)
    long newConnections = 0; // connections this transfer had to open (0 = reused/multiplexed)
    int httpVersion = 0;     // 11, 2
};

} // namespace fieldscope::kube
