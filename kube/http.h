#pragma once
// Value types exchanged with the transport. Cross threads by value.
#include <string>
#include <utility>
#include <vector>

namespace fieldscope::kube {

struct HttpRequest {
    std::string method = "GET";
    std::string path; // "/api/v1/namespaces?limit=500", relative to the cluster's server URL
    std::string accept = "application/json";
    std::string contentType;
    std::string body;
    std::vector<std::pair<std::string, std::string>> headers;
    bool streaming = false;     // watch: body delivered in chunks as it arrives
    bool isWatchStart = false;  // counted against the watch-start rate bucket (API brief 2.7)
    int timeoutMs = 60'000;     // whole-request limit for non-streaming requests
    int stallSeconds = 45;      // streaming: abort when no byte arrived for this long
};

struct HttpResponse {
    int status = 0;
    std::string contentType;
    std::string etag;
    std::vector<std::string> warnings; // decoded texts of Warning: 299 - "..." headers
    int retryAfterSeconds = -1;
    std::string body; // complete body (non-streaming) or the unconsumed tail (streaming)
    long newConnections = 0; // connections this transfer had to open (0 = reused/multiplexed)
    int httpVersion = 0;     // 11, 2
};

} // namespace fieldscope::kube
