// bench_list: Fieldscope's list-and-index of many ConfigMaps against its peers, in one run on
// one apiserver (see bench/README.md). Prints each figure and the ratios.
//
//   bench_list --kubeconfig FILE --context C [--count 100000] [--namespace bench-list]
//              [--kubectl PATH] [--skip-populate] [--final-page-bytes N]
#include "app/services/heaptuning.h"
#include "core/base/json.h"
#include "kube/apiclient.h"
#include "kube/connection.h"
#include "kube/listdecoder.h"
#include "kube/watcher.h"
#include "kube/writes.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QThread>
#include <QTimer>

#include <sys/resource.h>

#include <cstdio>
#include <fstream>

using namespace fieldscope;

namespace {

long rssKb()
{
    std::ifstream f("/proc/self/status");
    std::string line;
    while (std::getline(f, line))
        if (line.rfind("VmRSS:", 0) == 0)
            return std::stol(line.substr(6));
    return 0;
}

// /proc's and getrusage's "kB" are KiB: megabytes (10^6 bytes, as the JSON's size is printed).
double kbToMb(long kb)
{
    return double(kb) * 1024.0 / 1e6;
}

double cpuSeconds()
{
    rusage u{};
    getrusage(RUSAGE_SELF, &u);
    return double(u.ru_utime.tv_sec + u.ru_stime.tv_sec) + double(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

double childCpuSeconds()
{
    rusage u{};
    getrusage(RUSAGE_CHILDREN, &u);
    return double(u.ru_utime.tv_sec + u.ru_stime.tv_sec) + double(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

bool g_pods = false; // --resource pods (a replay server's Pods, all namespaces)

// What is listed: ConfigMaps, or with --resource pods the replay server's Pods.
kube::ResourceInfo listedResource()
{
    if (g_pods) {
        kube::ResourceInfo r;
        r.version = "v1";
        r.resource = "pods";
        r.kind = "Pod";
        r.namespaced = true;
        return r;
    }
    kube::ResourceInfo r;
    r.version = "v1";
    r.resource = "configmaps";
    r.kind = "ConfigMap";
    r.namespaced = true;
    return r;
}

// ~1 KB ConfigMaps, created with many requests in flight over HTTP/2.
void populate(kube::ApiClient &client, const std::string &ns, int count)
{
    QEventLoop loop;
    int started = 0, done = 0, failed = 0;
    const std::string payload(700, 'x');
    kube::HttpRequest nsReq;
    nsReq.method = "POST";
    nsReq.path = "/api/v1/namespaces";
    nsReq.contentType = "application/json";
    nsReq.body = core::toJsonText({{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", ns}}}});
    client.send(nsReq, nullptr, [&](auto) { loop.quit(); });
    loop.exec();
    QElapsedTimer t;
    t.start();
    std::function<void()> next = [&] {
        while (started < count && started - done < 128) {
            const int i = started++;
            core::Json cm = {{"apiVersion", "v1"},
                             {"kind", "ConfigMap"},
                             {"metadata",
                              {{"name", "cm-" + std::to_string(i)},
                               {"labels", {{"bench", "list"}, {"index", std::to_string(i % 100)}}}}},
                             {"data", {{"payload", payload}, {"index", std::to_string(i)}}}};
            kube::WriteOptions o;
            o.fieldManager = "bench-populate";
            client.send(kube::createRequest(listedResource(), ns, cm, o), nullptr,
                        [&](core::Result<kube::HttpResponse> r) {
                            ++done;
                            if (!r.ok() && r.error().reason != "AlreadyExists")
                                ++failed;
                            if (done == count)
                                loop.quit();
                            else
                                next();
                        });
        }
    };
    next();
    loop.exec();
    std::printf("populate: %d ConfigMaps in %.1f s (%d failed)\n", count, t.elapsed() / 1000.0, failed);
}

struct ListFigures {
    double wall = 0, cpu = 0;
    std::size_t objects = 0, jsonBytes = 0;
    long rssDeltaKb = 0;
    long settledRssDeltaKb = 0; // after the idle parsers and free pages went back
};

// settle: then give back what the window gives back once a list is absorbed (app::returnFreedHeap)
// and measure again.
ListFigures fieldscopeList(kube::ApiClient &client, const std::string &ns, const kube::WatcherOptions &pages,
                           bool settle = false)
{
    if (settle)
        app::returnFreedHeap(); // a baseline without free memory the list could reuse (the warm-up's)
    const long rss0 = rssKb();
    const double cpu0 = cpuSeconds();
    QElapsedTimer t;
    t.start();
    kube::WatcherOptions o = pages;
    o.listOnly = true;
    o.tryWatchList = false;
    kube::Watcher w(&client, {listedResource(), ns, {}, {}}, o);
    QEventLoop loop;
    QObject::connect(&w, &kube::Watcher::listCompleted, &loop, &QEventLoop::quit);
    QObject::connect(&w, &kube::Watcher::errorOccurred, &loop, [&](const QString &m) {
        std::fprintf(stderr, "list failed: %s\n", qPrintable(m));
        loop.quit();
    });
    w.start();
    loop.exec();
    ListFigures f;
    f.wall = t.elapsed() / 1000.0;
    f.cpu = cpuSeconds() - cpu0;
    f.objects = w.store().size();
    f.jsonBytes = w.store().jsonBytes();
    f.rssDeltaKb = rssKb() - rss0;
    if (settle) {
        app::returnFreedHeap();
        f.settledRssDeltaKb = rssKb() - rss0;
    }
    return f;
}

// The same pages, fetched raw through the same transport (no decoding, no store): the same
// page-size sequence as the watcher's (full pages hold `limit` objects).
double rawPages(kube::ApiClient &client, const std::string &ns, std::size_t *bytes, const kube::WatcherOptions &pages)
{
    int pageSize = pages.pageSize;
    QElapsedTimer t;
    t.start();
    std::string cont;
    *bytes = 0;
    QEventLoop loop;
    bool more = true;
    while (more) {
        kube::HttpRequest req;
        req.path = listedResource().collectionPath(ns) + "?limit=" + std::to_string(pageSize)
                 + (cont.empty() ? "" : "&continue=" + kube::urlEncode(cont));
        client.send(req, nullptr, [&](core::Result<kube::HttpResponse> r) {
            more = false;
            if (r.ok()) {
                *bytes += r->body.size();
                long long remaining = -1; // as the watcher reads it, from the page's metadata
                if (const auto rc = r->body.find(R"("remainingItemCount":)"); rc != std::string::npos && rc < 400)
                    remaining = std::atoll(r->body.c_str() + rc + 21);
                pageSize = kube::nextPageSize(pages, pageSize, std::size_t(pageSize), r->body.size(), remaining);
                // Only the continue token: the raw baseline does no other parsing.
                const auto at = r->body.find(R"("continue":")");
                if (at != std::string::npos && at < 400) {
                    const auto end = r->body.find('"', at + 12);
                    cont = r->body.substr(at + 12, end - at - 12);
                    more = !cont.empty();
                }
            }
            loop.quit();
        });
        loop.exec();
    }
    return t.elapsed() / 1000.0;
}

struct PeerFigures {
    double wall = -1, cpu = -1, peakRssMb = -1;
};

PeerFigures runPeer(const QString &program, const QStringList &args, const QString &outFile,
                    const QProcessEnvironment &env = QProcessEnvironment::systemEnvironment())
{
    const double cpu0 = childCpuSeconds();
    QElapsedTimer t;
    t.start();
    QProcess p;
    p.setProcessEnvironment(env);
    p.setStandardOutputFile(outFile);
    p.start(program, args);
    if (!p.waitForFinished(600000) || p.exitCode() != 0) {
        std::fprintf(stderr, "%s failed: %s\n", qPrintable(program), p.readAllStandardError().constData());
        return {};
    }
    rusage u{};
    getrusage(RUSAGE_CHILDREN, &u); // the largest child so far: run the bigger peer last
    return {t.elapsed() / 1000.0, childCpuSeconds() - cpu0, kbToMb(u.ru_maxrss)};
}

// Watch decoding on one core: MODIFIED lines made of real objects from the list.
double decodeRate(const std::vector<std::string> &lines)
{
    QElapsedTimer t;
    t.start();
    std::size_t ok = 0;
    for (const auto &l : lines)
        ok += kube::decodeWatchLine(l).ok() ? 1 : 0;
    const double s = t.nsecsElapsed() / 1e9;
    return double(ok) / s;
}

} // namespace

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    QCommandLineParser p;
    p.addOption({QStringLiteral("kubeconfig"), QStringLiteral("kubeconfig"), QStringLiteral("FILE")});
    p.addOption({QStringLiteral("context"), QStringLiteral("context"), QStringLiteral("NAME")});
    p.addOption({QStringLiteral("count"), QStringLiteral("ConfigMaps to create"), QStringLiteral("N"),
                 QStringLiteral("100000")});
    p.addOption({QStringLiteral("namespace"), QStringLiteral("namespace"), QStringLiteral("NS"),
                 QStringLiteral("bench-list")});
    p.addOption({QStringLiteral("kubectl"), QStringLiteral("kubectl binary"), QStringLiteral("PATH")});
    p.addOption({QStringLiteral("fieldscope"),
                 QStringLiteral("the fieldscope binary: times `fieldscope list -o count` too"),
                 QStringLiteral("PATH")});
    p.addOption({QStringLiteral("skip-populate"), QStringLiteral("the ConfigMaps exist already")});
    p.addOption({QStringLiteral("page-size"), QStringLiteral("first LIST page size (client-go and kubectl use 500)"),
                 QStringLiteral("N"), QStringLiteral("500")});
    p.addOption(
        {QStringLiteral("max-page-size"),
         QStringLiteral("largest later page (Fieldscope's default 10000; = --page-size for kubectl's fixed pages)"),
         QStringLiteral("N"), QStringLiteral("10000")});
    p.addOption({QStringLiteral("resource"),
                 QStringLiteral("configmaps (created in --namespace) or pods (listed in all namespaces, as served by "
                                "bench/replay_server; implies --skip-populate)"),
                 QStringLiteral("NAME"), QStringLiteral("configmaps")});
    p.addOption(
        {QStringLiteral("final-page-bytes"),
         QStringLiteral("ask for all remaining objects at once when they fit (0 = never; Fieldscope's default 32 MiB)"),
         QStringLiteral("BYTES"), QString::number(kube::WatcherOptions().finalPageBytes)});
    p.addHelpOption();
    p.process(app);
    kube::ConnectionOptions co;
    co.kubeconfigPath = p.value(QStringLiteral("kubeconfig")).toStdString();
    co.context = p.value(QStringLiteral("context")).toStdString();
    co.qps = 0; // no client-side throttling: we measure the client, not the limiter
    auto conn = kube::connect(co);
    if (!conn) {
        std::fprintf(stderr, "%s\n", conn.error().describe().c_str());
        return 1;
    }
    kube::ApiClient client(conn->transport);
    g_pods = p.value(QStringLiteral("resource")) == QLatin1String("pods");
    const std::string ns = g_pods ? std::string() : p.value(QStringLiteral("namespace")).toStdString();
    const int count = p.value(QStringLiteral("count")).toInt();
    if (!g_pods && !p.isSet(QStringLiteral("skip-populate")))
        populate(client, ns, count);

    QTemporaryDir tmp;
    kube::WatcherOptions pages;
    pages.pageSize = p.value(QStringLiteral("page-size")).toInt();
    pages.maxPageSize = p.value(QStringLiteral("max-page-size")).toInt();
    pages.finalPageBytes = p.value(QStringLiteral("final-page-bytes")).toULongLong();
    std::size_t rawBytes = 0;
    rawPages(client, ns, &rawBytes, pages); // warm the apiserver's and etcd's caches for everyone
    // Best of 3 interleaved rounds: the server shares the machine, so single runs are noisy.
    double raw = 1e9, raw2 = 0;
    ListFigures fs;
    fs.wall = 1e9;
    long firstRssKb = 0; // later rounds reuse memory the first one freed
    long firstSettledKb = 0;
    double firstWall = 0; // the first round also makes that memory resident (page faults)
    for (int round = 0; round < 3; ++round) {
        raw = std::min(raw, rawPages(client, ns, &rawBytes, pages));
        ListFigures f = fieldscopeList(client, ns, pages, round == 0);
        if (round == 0) {
            firstRssKb = f.rssDeltaKb;
            firstSettledKb = f.settledRssDeltaKb;
            firstWall = f.wall;
        }
        if (f.wall < fs.wall)
            fs = f;
    }
    fs.rssDeltaKb = firstRssKb;
    fs.settledRssDeltaKb = firstSettledKb;
    raw2 = raw;

    // Peers: curl (one GET of the whole list), kubectl get -o json.
    const auto &cfg = conn->config;
    QFile ca(tmp.filePath(QStringLiteral("ca.crt")));
    ca.open(QIODevice::WriteOnly);
    ca.write(cfg.caPem);
    ca.close();
    const QString url = QString::fromStdString(cfg.server + listedResource().collectionPath(ns));
    QStringList curlArgs = {QStringLiteral("-sS"),
                            QStringLiteral("--fail"),
                            QStringLiteral("--compressed"),
                            QStringLiteral("--cacert"),
                            ca.fileName(),
                            QStringLiteral("-H"),
                            QStringLiteral("Authorization: Bearer ") + QString::fromStdString(cfg.auth.token),
                            url};
    // Best of 3, as the command below; the body into a file (as kubectl's), and thrown away (the
    // least any client can do: nothing kept, no memory made resident).
    auto bestCurl = [&](const QStringList &extra) {
        PeerFigures best;
        for (int round = 0; round < 3; ++round)
            if (const PeerFigures f = runPeer(QStringLiteral("curl"), extra + curlArgs,
                                              tmp.filePath(QStringLiteral("curl.json")));
                f.wall >= 0 && (best.wall < 0 || f.wall < best.wall))
                best = f;
        return best;
    };
    const PeerFigures curl = bestCurl({});
    const PeerFigures curlNull = bestCurl({QStringLiteral("-o"), QStringLiteral("/dev/null")});
    PeerFigures kubectl;
    if (p.isSet(QStringLiteral("kubectl")))
        kubectl = runPeer(p.value(QStringLiteral("kubectl")),
                          {QStringLiteral("--kubeconfig"), p.value(QStringLiteral("kubeconfig")),
                           QStringLiteral("--context"), p.value(QStringLiteral("context")), QStringLiteral("get"),
                           QString::fromStdString(listedResource().resource),
                           ns.empty() ? QStringLiteral("-A") : QStringLiteral("-n"),
                           ns.empty() ? QStringLiteral("--request-timeout=0") : QString::fromStdString(ns),
                           QStringLiteral("-o"), QStringLiteral("json")},
                          tmp.filePath(QStringLiteral("kubectl.json")));

    // The command a user types: process start, kubeconfig, TLS, discovery (first without the
    // discovery cache, then with it, best of 3), the list, the count.
    PeerFigures cliCold, cliWarm;
    if (p.isSet(QStringLiteral("fieldscope"))) {
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("XDG_CACHE_HOME"), tmp.filePath(QStringLiteral("cli-cache")));
        env.insert(QStringLiteral("XDG_CONFIG_HOME"), tmp.filePath(QStringLiteral("cli-config")));
        const QStringList args{QStringLiteral("list"),
                               QString::fromStdString(listedResource().resource),
                               ns.empty() ? QStringLiteral("-A")
                                          : QStringLiteral("--namespace=") + QString::fromStdString(ns),
                               QStringLiteral("-o"),
                               QStringLiteral("count"),
                               QStringLiteral("--kubeconfig"),
                               p.value(QStringLiteral("kubeconfig")),
                               QStringLiteral("--context"),
                               p.value(QStringLiteral("context"))};
        const QString out = tmp.filePath(QStringLiteral("cli.txt"));
        cliCold = runPeer(p.value(QStringLiteral("fieldscope")), args, out, env);
        for (int round = 0; round < 3; ++round) {
            const PeerFigures f = runPeer(p.value(QStringLiteral("fieldscope")), args, out, env);
            if (cliWarm.wall < 0 || (f.wall >= 0 && f.wall < cliWarm.wall))
                cliWarm = f;
        }
    }

    // Watch decoding: every listed object as a MODIFIED event line.
    std::vector<std::string> lines;
    {
        kube::WatcherOptions o;
        o.listOnly = true;
        o.tryWatchList = false;
        kube::Watcher w(&client, {listedResource(), ns, {}, {}}, o);
        QEventLoop loop;
        QObject::connect(&w, &kube::Watcher::listCompleted, &loop, &QEventLoop::quit);
        w.start();
        loop.exec();
        w.store().forEach([&lines](const core::StoredObject &obj) {
            lines.push_back(R"({"type":"MODIFIED","object":)" + obj.json().toStdString() + "}");
        });
    }
    const double rate = decodeRate(lines);

    std::printf("\nobjects listed:                 %zu (%.1f MB of JSON)\n", fs.objects, fs.jsonBytes / 1e6);
    std::printf("fieldscope list+index:          %.2f s wall (best of 3), %.2f s CPU; first round %.2f s (its "
                "memory made resident)\n",
                fs.wall, fs.cpu, firstWall);
    std::printf("raw paged fetch (same pages):   %.2f s wall (best of 3), %.1f MB after gunzip\n", raw, rawBytes / 1e6);
    if (curl.wall >= 0)
        std::printf("curl, one GET of the list:      %.2f s wall (best of 3), %.2f s CPU; %.2f s into /dev/null\n",
                    curl.wall, curl.cpu, curlNull.wall);
    if (kubectl.wall >= 0)
        std::printf("kubectl get %s -o json > file:  %.2f s wall, %.2f s CPU, %.0f MB peak RSS\n",
                    listedResource().resource.c_str(), kubectl.wall, kubectl.cpu, kubectl.peakRssMb);
    if (cliCold.wall >= 0)
        std::printf(
            "fieldscope list -o count:       %.2f s wall without the discovery cache, %.2f s with it (best of 3)\n",
            cliCold.wall, cliWarm.wall);
    std::printf("store resident memory:          %.1f MB RSS growth for %.1f MB of JSON (%.2fx); %.1f MB (%.2fx) once "
                "the idle parsers and free pages are given back (app::returnFreedHeap)\n",
                kbToMb(fs.rssDeltaKb), fs.jsonBytes / 1e6,
                fs.jsonBytes ? kbToMb(fs.rssDeltaKb) * 1e6 / double(fs.jsonBytes) : 0.0, kbToMb(fs.settledRssDeltaKb),
                fs.jsonBytes ? kbToMb(fs.settledRssDeltaKb) * 1e6 / double(fs.jsonBytes) : 0.0);
    std::printf("watch decoding, one core:       %.0f events/s\n", rate);
    std::printf("\nratios (targets in parentheses)\n");
    if (kubectl.wall >= 0)
        std::printf("  kubectl wall / fieldscope wall:        %.1fx  (>= 10x)\n", kubectl.wall / fs.wall);
    std::printf("  fieldscope wall / raw paged fetch:     %.2fx  (<= 2x)\n", fs.wall / std::min(raw, raw2));
    if (curl.wall >= 0)
        std::printf("  fieldscope wall / curl single GET:     %.2fx  (first round %.2fx)\n", fs.wall / curl.wall,
                    firstWall / curl.wall);
    if (cliWarm.wall >= 0 && curl.wall >= 0)
        std::printf(
            "  fieldscope list command / curl GET:    %.2fx  (<= 1.2x; %.2fx without the discovery cache; %.2fx "
            "against curl into /dev/null)\n",
            cliWarm.wall / curl.wall, cliCold.wall / curl.wall, cliWarm.wall / curlNull.wall);
    if (cliWarm.wall >= 0 && kubectl.wall >= 0)
        std::printf("  kubectl / fieldscope list command:     %.1fx  (>= 10x)\n", kubectl.wall / cliWarm.wall);
    std::printf("  store memory / JSON bytes:             %.2fx right after the list, %.2fx settled  (<= 1.5x)\n",
                fs.jsonBytes ? kbToMb(fs.rssDeltaKb) * 1e6 / double(fs.jsonBytes) : 0.0,
                fs.jsonBytes ? kbToMb(fs.settledRssDeltaKb) * 1e6 / double(fs.jsonBytes) : 0.0);
    std::printf("  watch decode events/s:                 %.0f  (>= 20000)\n", rate);
    return 0;
}
