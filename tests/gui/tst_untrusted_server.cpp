// The window against a local HTTP server (real socket, real transport) that answers wrongly typed
// documents: the tab shows the parse error naming the field, and the app stays alive: a second
// tab on a well-behaved server still loads (README.md, Security). No cluster needed.
#include "app/gui/clustercontroller.h"
#include "transcriptserver.h"
#include "widgets/clusterview.h"
#include "widgets/mainwindow.h"

#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include <cstring>
#include <memory>

using namespace fieldscope;
using namespace fieldscope::testing;
using State = widgets::WatchHealth::State;

namespace {

const char *kLegacyV1 = R"({"kind":"APIResourceList","groupVersion":"v1","resources":[
  {"name":"configmaps","singularName":"configmap","namespaced":true,"kind":"ConfigMap","verbs":["get","list","watch"]},
  {"name":"namespaces","singularName":"namespace","namespaced":false,"kind":"Namespace","verbs":["get","list","watch"]}]})";
const char *kList = R"({"kind":"ConfigMapList","apiVersion":"v1","metadata":{"resourceVersion":"10"},
  "items":[{"metadata":{"name":"a","namespace":"x","uid":"u1","resourceVersion":"9"}}]})";
const char *kNamespaces = R"({"kind":"NamespaceList","apiVersion":"v1","metadata":{"resourceVersion":"10"},
  "items":[{"metadata":{"name":"x","uid":"n1","resourceVersion":"8"}}]})";

std::string with(const char *doc, const char *from, const char *to)
{
    std::string s = doc;
    const auto at = s.find(from);
    if (at == std::string::npos)
        qFatal("row does not apply: %s", from);
    return s.replace(at, std::strlen(from), to);
}

void serve(TranscriptServer &server, const std::string &v1, const std::string &configMaps)
{
    server.on("/version").exactPath().reply(TranscriptReply::json(200, R"({"gitVersion":"v1.30.0"})")).repeatLast();
    server.on("/api")
        .exactPath()
        .reply(TranscriptReply::json(200, R"({"kind":"APIVersions","versions":["v1"]})"))
        .repeatLast();
    server.on("/apis")
        .exactPath()
        .reply(TranscriptReply::json(200, R"({"kind":"APIGroupList","groups":[]})"))
        .repeatLast();
    server.on("/api/v1").exactPath().reply(TranscriptReply::json(200, v1)).repeatLast();
    server.on("/api/v1/namespaces")
        .exactPath()
        .lacksQuery("watch")
        .reply(TranscriptReply::json(200, kNamespaces))
        .repeatLast();
    server.on("/api/v1/configmaps").lacksQuery("watch").reply(TranscriptReply::json(200, configMaps)).repeatLast();
    // No streaming lists (a 1.26 server): the watcher falls back to LIST.
    server.on("/api/v1")
        .query("sendInitialEvents", "true")
        .reply(TranscriptReply::json(
            422, R"({"kind":"Status","apiVersion":"v1","status":"Failure","reason":"Invalid","code":422})"))
        .repeatLast();
    // Watches hang: nothing else to say.
    server.on("/api/v1").hasQuery("watch").reply(TranscriptReply::stream({}, TranscriptReply::End::Hang)).repeatLast();
}

QString writeKubeconfig(const QTemporaryDir &dir, const TranscriptServer &server, const QString &name)
{
    QString path = dir.filePath(name);
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly))
        return {};
    f.write(
        QStringLiteral(
            "apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster:\n    server: %1\n"
            "users:\n- name: u\n  user:\n    token: t\ncontexts:\n- name: x\n  context:\n    cluster: c\n    user: u\n"
            "current-context: x\n")
            .arg(QString::fromStdString(server.url()))
            .toUtf8());
    return path;
}

struct Tab {
    widgets::ClusterView *view;
    std::unique_ptr<app::ClusterController> controller;
};

Tab openTab(widgets::MainWindow &window, const QString &kubeconfig, const QString &name)
{
    Tab t{window.addCluster(name), nullptr};
    t.controller = std::make_unique<app::ClusterController>(t.view);
    t.controller->showResource(QStringLiteral("configmaps"));
    t.controller->open(kubeconfig, QStringLiteral("x"));
    return t;
}

} // namespace

class TestUntrustedServer : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_home.isValid());
        qputenv("XDG_DATA_HOME", m_home.filePath(QStringLiteral("data")).toUtf8());
        qputenv("XDG_CONFIG_HOME", m_home.filePath(QStringLiteral("config")).toUtf8());
        qputenv("XDG_CACHE_HOME", m_home.filePath(QStringLiteral("cache")).toUtf8());
    }

    void discoveryWithStringNamespacedShowsTheErrorInTheTabAndTheAppGoesOn()
    {
        TranscriptServer bad, good;
        // Every entry wrong: one bad entry fails only that resource (tst_discovery_transcripts).
        serve(bad,
              with(with(kLegacyV1, R"("namespaced":true)", R"("namespaced":"true")").c_str(), R"("namespaced":false)",
                   R"("namespaced":"false")"),
              kList);
        serve(good, kLegacyV1, kList);
        widgets::MainWindow window;
        window.resize(1280, 800);
        Tab broken = openTab(window, writeKubeconfig(m_home, bad, QStringLiteral("bad")), QStringLiteral("bad"));
        window.show();
        QTRY_COMPARE_WITH_TIMEOUT(broken.view->connectionState(), QStringLiteral("failed"), 20000);
        QVERIFY2(broken.view->watchStatus().contains(
                     QLatin1String("resources[0].namespaced is a string, expected a boolean")),
                 qPrintable(broken.view->watchStatus()));
        // The process is alive and a second tab on a sound server loads its table.
        Tab fine = openTab(window, writeKubeconfig(m_home, good, QStringLiteral("good")), QStringLiteral("good"));
        QTRY_VERIFY_WITH_TIMEOUT(fine.controller->isLoaded(), 20000);
    }

    void listPageWithAWrongTypeShowsTheErrorOnTheWatch()
    {
        TranscriptServer server;
        serve(server, kLegacyV1, with(kList, R"("uid":"u1")", R"("uid":{})"));
        widgets::MainWindow window;
        Tab tab = openTab(window, writeKubeconfig(m_home, server, QStringLiteral("list")), QStringLiteral("list"));
        window.show();
        auto failing = [&] {
            for (const auto &w : tab.view->watches())
                if (w.detail.contains(QLatin1String("items[0].metadata.uid")))
                    return true;
            return false;
        };
        QTRY_VERIFY_WITH_TIMEOUT(failing(), 20000);
        QVERIFY(window.isVisible());
    }

private:
    QTemporaryDir m_home;
};

QTEST_MAIN(TestUntrustedServer)
#include "tst_untrusted_server.moc"
