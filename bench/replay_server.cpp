// replay_server: serves a Pod list bigger than the test apiserver can hold on this machine, for
// bench/run-scale-bench.sh. The Pods are one Pod as a real kube-apiserver returned it (the
// managedFields of kubelet and kube-controller-manager, status, ~4 KB; tests/data/history/pod.json)
// multiplied with new names, namespaces, uids and resourceVersions. LIST pages follow the
// request's limit and continue as the apiserver does (metadata.continue, remainingItemCount), an
// unpaged GET returns the whole list, and discovery answers what kubectl needs to get there.
// Plain HTTP on 127.0.0.1; prints its URL on stdout, serves until stdin closes.
//
//   replay_server --pod FILE --pods 150000 [--namespaces 100]
#include "replaypods.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QFile>

#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

using namespace fieldscope;
using namespace fieldscope::testing;

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
    const auto pods = std::make_shared<const std::vector<std::string>>(bench::makePods(
        *templ, p.value(QStringLiteral("pods")).toInt(), std::max(1, p.value(QStringLiteral("namespaces")).toInt())));

    TranscriptServer server;
    bench::addPodDiscoveryRules(server);
    server.on("/api/v1/pods")
        .hasQuery("watch")
        .reply(TranscriptReply::stream({}, TranscriptReply::End::Hang))
        .repeatLast();
    bench::addPodListRule(server, pods);
    std::printf("%s\n", server.url().c_str());
    std::fflush(stdout);
    std::string line;
    while (std::getline(std::cin, line)) {}
    return 0;
}
