#pragma once
// The replayed Pods of the scale benchmarks (replay_server, bench_window): one Pod as a real
// kube-apiserver returned it (tests/data/history/pod.json: managedFields of kubelet and
// kube-controller-manager, status, ~4 KB) multiplied with new names, namespaces, uids and
// resourceVersions, served in LIST pages that follow limit and continue as the apiserver does.
#include "core/base/json.h"
#include "transcriptserver.h"

#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

namespace fieldscope::bench {

using testing::RecordedRequest;
using testing::TranscriptReply;
using testing::TranscriptServer;

// The resourceVersion of Pod i is 1000 + i; the list's is 1000 + count.
inline std::vector<std::string> makePods(const core::Json &templ, int count, int namespaces)
{
    std::vector<std::string> out;
    out.reserve(std::size_t(count));
    core::Json pod = templ;
    for (int i = 0; i < count; ++i) {
        const std::string n = std::to_string(i);
        auto &md = pod["metadata"];
        md["name"] = "web-" + n;
        md["namespace"] = "ns-" + std::to_string(i % namespaces);
        md["uid"] = "00000000-0000-4000-8000-" + std::string(12 - std::min<std::size_t>(12, n.size()), '0') + n;
        md["resourceVersion"] = std::to_string(1000 + i);
        if (pod.contains("spec") && pod["spec"].is_object())
            pod["spec"]["nodeName"] = "node-" + std::to_string(i % 500);
        if (pod.contains("status") && pod["status"].is_object())
            pod["status"]["podIP"] = "10." + std::to_string((i >> 16) & 255) + "." + std::to_string((i >> 8) & 255)
                                   + "." + std::to_string(i & 255);
        out.push_back(core::toJsonText(pod));
    }
    return out;
}

inline TranscriptReply podPage(const std::vector<std::string> &pods, const RecordedRequest &r)
{
    // strtoull, not stoull: a malformed value must not throw on the connection's thread.
    auto number = [&](const char *key, std::size_t fallback) {
        const auto v = r.queryValue(key);
        if (!v || v->empty())
            return fallback;
        const unsigned long long n = std::strtoull(v->c_str(), nullptr, 10);
        return n > 0 ? std::size_t(n) : fallback;
    };
    const std::size_t from = std::min(pods.size(), number("continue", 0));
    const std::size_t limit = number("limit", pods.size());
    const std::size_t to = std::min(pods.size(), from + limit);
    std::size_t bytes = 256;
    for (std::size_t i = from; i < to; ++i)
        bytes += pods[i].size() + 1;
    std::string body;
    body.reserve(bytes);
    body += R"({"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":")"
          + std::to_string(1000 + pods.size()) + "\"";
    if (to < pods.size())
        body += R"(,"continue":")" + std::to_string(to) + R"(","remainingItemCount":)"
              + std::to_string(pods.size() - to);
    body += R"(},"items":[)";
    for (std::size_t i = from; i < to; ++i) {
        if (i > from)
            body += ',';
        body += pods[i];
    }
    body += "]}";
    return TranscriptReply::json(200, std::move(body));
}

// Discovery enough for kubectl and Fieldscope to reach /api/v1/pods, as a 1.30 server without
// WatchList (streaming lists are refused with 422, so clients list). Add the watch rule after
// these and the list (addPodListRule) last: a rule matches any query it does not exclude.
inline void addPodDiscoveryRules(TranscriptServer &server)
{
    server.on("/version")
        .exactPath()
        .reply(TranscriptReply::json(200, R"({"major":"1","minor":"30","gitVersion":"v1.30.0-replay"})"))
        .repeatLast();
    server.on("/api")
        .exactPath()
        .reply(TranscriptReply::json(200, R"({"kind":"APIVersions","versions":["v1"]})"))
        .repeatLast();
    server.on("/apis")
        .exactPath()
        .reply(TranscriptReply::json(200, R"({"kind":"APIGroupList","groups":[]})"))
        .repeatLast();
    server.on("/api/v1").exactPath().replyFile(QStringLiteral("discovery/legacy-api-v1.http")).repeatLast();
    server.on("/api/v1/pods")
        .hasQuery("sendInitialEvents")
        .reply(TranscriptReply::json(
            422,
            R"({"kind":"Status","apiVersion":"v1","status":"Failure","reason":"Invalid","code":422,)"
            R"("message":"sendInitialEvents is forbidden for watch unless the WatchList feature gate is enabled"})"))
        .repeatLast();
}

inline void addPodListRule(TranscriptServer &server, const std::shared_ptr<const std::vector<std::string>> &pods)
{
    server.on("/api/v1/pods").exactPath().replyWith([pods](const RecordedRequest &r) { return podPage(*pods, r); });
}

} // namespace fieldscope::bench
