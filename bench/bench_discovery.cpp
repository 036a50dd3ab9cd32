// bench_discovery: a legacy API server with 3,000 API groups (discovery as every server before
// aggregated discovery; clusters with large CRD sets reach hundreds of groups), served on loopback
// from recorded documents (the core group and built-in groups as a real apiserver answered them,
// each CRD group shaped like a real CRD group version with its own name). Times, in one run:
//   - `fieldscope list configmaps -o count`, first run (no cache) and next run (cache),
//   - `kubectl get configmaps -o name` with a fresh --cache-dir, first and next run,
//   - the window's first table rows (ClusterController, offscreen), first and next start.
// Prints how many discovery requests each made. See bench/README.md.
//
//   bench_discovery --fieldscope PATH [--kubectl PATH] [--groups 3000] [--group-delay-ms 0]
#include "app/gui/clustercontroller.h"
#include "transcriptserver.h"
#include "widgets/clusterview.h"
#include "widgets/mainwindow.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QElapsedTimer>
#include <QFile>
#include <QProcess>
#include <QStandardPaths>
#include <QTemporaryDir>

#include <algorithm>
#include <cstdio>

using namespace fieldscope;
using namespace fieldscope::testing;

namespace {

std::string crdGroupVersion(const std::string &group, int i)
{
    // What a 1.20 apiserver answers for a CRD's group version (one resource, its status subresource).
    const std::string plural = "widget" + std::to_string(i) + "s";
    return R"({"kind":"APIResourceList","apiVersion":"v1","groupVersion":")" + group + R"(/v1","resources":[)"
         + R"({"name":")" + plural + R"(","singularName":"widget)" + std::to_string(i)
         + R"(","namespaced":true,"kind":"Widget)" + std::to_string(i)
         + R"(","verbs":["delete","deletecollection","get","list","patch","create","update","watch"],)"
         + R"("storageVersionHash":"kMz1dQ6Z5Zk="},)" + R"({"name":")" + plural
         + R"(/status","singularName":"","namespaced":true,"kind":"Widget)" + std::to_string(i)
         + R"(","verbs":["get","patch","update"]}]})";
}

std::string groupEntry(const std::string &g)
{
    return R"({"name":")" + g + R"(","versions":[{"groupVersion":")" + g
         + R"(/v1","version":"v1"}],"preferredVersion":{"groupVersion":")" + g + R"(/v1","version":"v1"}})";
}

std::string configMapList(int n)
{
    std::string out = R"({"kind":"ConfigMapList","apiVersion":"v1","metadata":{"resourceVersion":"1000"},"items":[)";
    for (int i = 0; i < n; ++i)
        out += std::string(i ? "," : "") + R"({"metadata":{"name":"cm-)" + std::to_string(i)
             + R"(","namespace":"default","uid":"00000000-0000-0000-0000-)" + std::to_string(100000000000 + i)
             + R"(","resourceVersion":")" + std::to_string(900 + i)
             + R"(","creationTimestamp":"2026-11-27T00:00:00Z"},"data":{"k":"v"}})";
    return out + "]}";
}

TranscriptReply delayed(std::string body, int ms)
{
    if (ms <= 0)
        return TranscriptReply::json(200, std::move(body));
    TranscriptReply r;
    r.chunked = true;
    r.headers.emplace_back("Content-Type", "application/json");
    r.pieces.push_back({ms, std::move(body)});
    return r;
}

void serve(TranscriptServer &server, int groups, int groupDelayMs)
{
    server.on("/version").exactPath().replyFile(QStringLiteral("discovery/version-1.37.http")).repeatLast();
    server.on("/api").exactPath().replyFile(QStringLiteral("discovery/legacy-api.http")).repeatLast();
    server.on("/api/v1").exactPath().replyFile(QStringLiteral("discovery/legacy-api-v1.http")).repeatLast();
    server.on("/apis/apps/v1").exactPath().replyFile(QStringLiteral("discovery/legacy-apps-v1.http")).repeatLast();
    std::string list = R"({"kind":"APIGroupList","apiVersion":"v1","groups":[)" + groupEntry("apps");
    for (int i = 0; i < groups; ++i) {
        const std::string g = "crd" + std::to_string(i) + ".bench.example.com";
        list += "," + groupEntry(g);
        server.on("/apis/" + g + "/v1").exactPath().reply(delayed(crdGroupVersion(g, i), groupDelayMs)).repeatLast();
    }
    server.on("/apis").exactPath().reply(TranscriptReply::json(200, list + "]}")).repeatLast();
    // Watches stay open and quiet; lists answer at once. A streaming list (sendInitialEvents) is
    // refused as by a server without the WatchList feature, so clients list.
    server.on("/api/v1/")
        .hasQuery("sendInitialEvents")
        .reply(TranscriptReply::json(
            422,
            R"({"kind":"Status","apiVersion":"v1","status":"Failure","reason":"Invalid","code":422,)"
            R"("message":"sendInitialEvents is forbidden for watch unless the WatchList feature gate is enabled"})"))
        .repeatLast();
    server.on("/api/v1/").hasQuery("watch").reply(TranscriptReply::stream({}, TranscriptReply::End::Hang)).repeatLast();
    server.on("/api/v1/namespaces/default/configmaps")
        .reply(TranscriptReply::json(200, configMapList(100)))
        .repeatLast();
    server.on("/api/v1/configmaps").reply(TranscriptReply::json(200, configMapList(100))).repeatLast();
    server.on("/api/v1/namespaces")
        .exactPath()
        .reply(TranscriptReply::json(
            200, R"({"kind":"NamespaceList","apiVersion":"v1","metadata":{"resourceVersion":"1000"},"items":[)"
                 R"({"metadata":{"name":"default","uid":"ns-default","resourceVersion":"1"}}]})"))
        .repeatLast();
}

int discoveryRequests(const TranscriptServer &s)
{
    return s.count([](const RecordedRequest &r) {
        // /apis/GROUP/VERSION, not the window's count LISTs below it
        return r.path == "/api" || r.path == "/apis" || r.path == "/api/v1"
            || (r.path.rfind("/apis/", 0) == 0 && std::count(r.path.begin(), r.path.end(), '/') == 3);
    });
}

struct Timed {
    double seconds = -1;
    int discovery = 0;
    bool ok = false;
};

Timed runCommand(TranscriptServer &server, const QString &program, const QStringList &args, const QString &cacheHome)
{
    const int before = discoveryRequests(server);
    QProcess p;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("XDG_CACHE_HOME"), cacheHome);
    env.insert(QStringLiteral("XDG_CONFIG_HOME"), cacheHome + QStringLiteral("/config"));
    env.insert(QStringLiteral("HOME"), cacheHome);
    p.setProcessEnvironment(env);
    p.setProcessChannelMode(QProcess::ForwardedErrorChannel);
    QElapsedTimer t;
    t.start();
    p.start(program, args);
    const bool finished = p.waitForFinished(1'200'000);
    Timed out;
    out.seconds = t.nsecsElapsed() / 1e9;
    out.ok = finished && p.exitStatus() == QProcess::NormalExit && p.exitCode() == 0;
    out.discovery = discoveryRequests(server) - before;
    p.readAllStandardOutput();
    return out;
}

// The window: a cluster tab showing ConfigMaps, from open() to the first rows in its table.
Timed windowFirstRows(TranscriptServer &server, const QString &kubeconfig)
{
    const int before = discoveryRequests(server);
    widgets::MainWindow window;
    widgets::ClusterView *view = window.addCluster(QStringLiteral("bench"));
    app::ClusterController controller(view);
    window.resize(1280, 800);
    window.show();
    QElapsedTimer t;
    t.start();
    controller.showResource(QStringLiteral("configmaps"));
    controller.open(kubeconfig, QStringLiteral("bench"));
    Timed out;
    QEventLoop loop;
    // First rows in the table (`loaded` also waits for the whole of discovery).
    QObject::connect(controller.model(), &QAbstractItemModel::rowsInserted, &loop, [&] {
        if (controller.model()->rowCount() > 0)
            loop.quit();
    });
    QObject::connect(&controller, &app::ClusterController::loaded, &loop, &QEventLoop::quit);
    QObject::connect(&controller, &app::ClusterController::failed, &loop, [&](const QString &m) {
        std::fprintf(stderr, "window: %s\n", qPrintable(m));
        loop.quit();
    });
    QTimer::singleShot(120'000, &loop, &QEventLoop::quit);
    loop.exec();
    out.seconds = t.nsecsElapsed() / 1e9;
    out.ok = controller.model()->rowCount() > 0;
    out.discovery = discoveryRequests(server) - before;
    return out;
}

void print(const char *what, const Timed &t)
{
    std::printf("%-46s %7.2f s  %5d discovery requests%s\n", what, t.seconds, t.discovery, t.ok ? "" : "  (FAILED)");
}

} // namespace

int main(int argc, char **argv)
{
    qputenv("QT_QPA_PLATFORM", "offscreen");
    QTemporaryDir home;
    // The window keeps its settings, history and caches in the bench's own folder.
    qputenv("XDG_CACHE_HOME", home.filePath(QStringLiteral("window-cache")).toUtf8());
    qputenv("XDG_CONFIG_HOME", home.filePath(QStringLiteral("window-config")).toUtf8());
    qputenv("XDG_DATA_HOME", home.filePath(QStringLiteral("window-data")).toUtf8());
    QApplication app(argc, argv);
    QCommandLineParser p;
    p.addOption({QStringLiteral("fieldscope"), QStringLiteral("the fieldscope binary"), QStringLiteral("PATH")});
    p.addOption({QStringLiteral("kubectl"), QStringLiteral("kubectl binary"), QStringLiteral("PATH")});
    p.addOption({QStringLiteral("groups"), QStringLiteral("CRD groups"), QStringLiteral("N"), QStringLiteral("3000")});
    p.addOption({QStringLiteral("group-delay-ms"), QStringLiteral("server time per group-version answer"),
                 QStringLiteral("MS"), QStringLiteral("0")});
    p.addHelpOption();
    p.process(app);
    const int groups = p.value(QStringLiteral("groups")).toInt();

    TranscriptServer server;
    serve(server, groups, p.value(QStringLiteral("group-delay-ms")).toInt());
    const QString kubeconfig = home.filePath(QStringLiteral("kubeconfig"));
    {
        QFile f(kubeconfig);
        if (!f.open(QIODevice::WriteOnly))
            return 1;
        f.write(QStringLiteral("apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster:\n    server: %1\n"
                               "users:\n- name: u\n  user:\n    token: bench\ncontexts:\n- name: bench\n  context:\n"
                               "    cluster: c\n    user: u\n    namespace: default\ncurrent-context: bench\n")
                    .arg(QString::fromStdString(server.url()))
                    .toUtf8());
    }
    std::printf("legacy discovery: %d CRD groups + apps + core, served on loopback (%s)\n\n", groups,
                server.url().c_str());

    const QString fsCache = home.filePath(QStringLiteral("fieldscope-cache"));
    const QStringList fsArgs{QStringLiteral("list"),         QStringLiteral("configmaps"),
                             QStringLiteral("--kubeconfig"), kubeconfig,
                             QStringLiteral("-o"),           QStringLiteral("count")};
    const Timed fsFirst = runCommand(server, p.value(QStringLiteral("fieldscope")), fsArgs, fsCache);
    const Timed fsNext = runCommand(server, p.value(QStringLiteral("fieldscope")), fsArgs, fsCache);
    print("fieldscope list configmaps, first run", fsFirst);
    print("fieldscope list configmaps, next run", fsNext);
    Timed kFirst, kNext;
    if (p.isSet(QStringLiteral("kubectl"))) {
        const QString kCache = home.filePath(QStringLiteral("kubectl-cache"));
        const QStringList kArgs{QStringLiteral("--kubeconfig"), kubeconfig,
                                QStringLiteral("--cache-dir"),  kCache,
                                QStringLiteral("get"),          QStringLiteral("configmaps"),
                                QStringLiteral("-o"),           QStringLiteral("name")};
        kFirst = runCommand(server, p.value(QStringLiteral("kubectl")), kArgs, home.filePath(QStringLiteral("k")));
        kNext = runCommand(server, p.value(QStringLiteral("kubectl")), kArgs, home.filePath(QStringLiteral("k")));
        print("kubectl get configmaps, first run", kFirst);
        print("kubectl get configmaps, next run", kNext);
    }
    const Timed winFirst = windowFirstRows(server, kubeconfig);
    print("window: first ConfigMap rows, first start", winFirst);
    const Timed winNext = windowFirstRows(server, kubeconfig);
    print("window: first ConfigMap rows, next start", winNext);

    std::printf("\ntargets: fieldscope first run < 2 s (%s), next run < 0.5 s (%s), window first rows < 3 s (%s)\n",
                fsFirst.ok && fsFirst.seconds < 2 ? "met" : "NOT met",
                fsNext.ok && fsNext.seconds < 0.5 ? "met" : "NOT met",
                winFirst.ok && winFirst.seconds < 3 ? "met" : "NOT met");
    if (kFirst.ok && kNext.ok)
        std::printf("kubectl / fieldscope: first run %.1fx, next run %.1fx\n", kFirst.seconds / fsFirst.seconds,
                    kNext.seconds / fsNext.seconds);
    return fsFirst.ok && fsNext.ok && winFirst.ok ? 0 : 1;
}
