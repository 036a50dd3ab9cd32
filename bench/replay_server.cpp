// replay_server: serves a Pod list bigger than the test apiserver can hold on this machine, for
// bench/run-scale-bench.sh. The Pods are one Pod as a real kube-apiserver returned it (the
// managedFields of kubelet and kube-controller-manager, status, ~4 KB; tests/data/history/pod.json)
// multiplied with new names, namespaces, uids and resourceVersions. LIST pages follow the
// request's limit and continue as the apiserver does (metadata.continue, remainingItemCount), an
// unpaged GET returns the whole list, and discovery answers what kubectl needs to get there.
// Plain HTTP on 127.0.0.1; prints its URL on stdout, serves until stdin closes.
//
//   replay_server --pod FILE --pods 150000 [--namespaces 100]
#include "../tests/kube/transcriptserver.h"
#include "core/base/json.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QFile>

#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

using namespace fieldscope;
using namespace fieldscope::testing;

namespace {

std::vector<std::string> makePods(const core::Json &templ, int count, int namespaces)
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

TranscriptReply page(const std::vector<std::string> &pods, const RecordedRequest &r)
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

} // namespace

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    QCommandLineParser p;
    p.addOption({QStringLiteral("pod"), QStringLiteral("a Pod as the apiserver returned it"), QStringLiteral("FILE")});
    p.addOption({QStringLiteral("pods"), QStringLiteral("how many"), QStringLiteral("N"), QStringLiteral("150000")});
    p.addOption({QStringLiteral("namespaces"), QStringLiteral("spread over"), QStringLiteral("N"),
                 QStringLiteral("100")});
    p.addHelpOption();
    p.process(app);
    QFile f(p.value(QStringLiteral("pod")));
    if (!f.open(QIODevice::ReadOnly)) {
        std::fprintf(stderr, "replay_server: cannot read --pod\n");
        return 2;
    }
    auto templ = core::parseJson(f.readAll().toStdString());
    if (!templ || !templ->is_object() || !templ->contains("metadata") || !(*templ)["metadata"].is_object()) {
        std::fprintf(stderr, "replay_server: --pod is not a Pod (an object with metadata)\n");
        return 2;
    }
    const auto pods = std::make_shared<const std::vector<std::string>>(makePods(
        *templ, p.value(QStringLiteral("pods")).toInt(), std::max(1, p.value(QStringLiteral("namespaces")).toInt())));

    TranscriptServer server;
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
    server.on("/api/v1/pods")
        .hasQuery("watch")
        .reply(TranscriptReply::stream({}, TranscriptReply::End::Hang))
        .repeatLast();
    server.on("/api/v1/pods").exactPath().replyWith([pods](const RecordedRequest &r) { return page(*pods, r); });
    std::printf("%s\n", server.url().c_str());
    std::fflush(stdout);
    std::string line;
    while (std::getline(std::cin, line)) {}
    return 0;
}
