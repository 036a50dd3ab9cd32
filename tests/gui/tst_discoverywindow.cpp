// The window against a legacy server of 200 slow API groups (a real socket and transport): the
// wanted resource is watched before discovery has heard every group, the kinds list follows when
// it has, and the next window starts from the discovery cache, keeping the current kind when the
// background refresh brings a new type. No cluster needed.
#include "app/gui/clustercontroller.h"
#include "transcriptserver.h"
#include "widgets/clusterview.h"
#include "widgets/mainwindow.h"
#include "widgets/resourcekindsview.h"

#include <QFile>
#include <QTemporaryDir>
#include <QTest>
#include <QTreeView>

#include <algorithm>
#include <memory>

using namespace fieldscope;
using namespace fieldscope::testing;

namespace {

constexpr int kGroups = 200;
constexpr int kGroupMs = 100;

// Documents built in code (outside the test class: moc miscounts braces inside raw strings).
std::string coreV1(bool withGadgets)
{
    std::string out =
        R"({"kind":"APIResourceList","groupVersion":"v1","resources":[)"
        R"({"name":"configmaps","singularName":"configmap","namespaced":true,"kind":"ConfigMap","verbs":["get","list","watch"]},)"
        R"({"name":"namespaces","singularName":"namespace","namespaced":false,"kind":"Namespace","verbs":["get","list","watch"]})";
    if (withGadgets)
        out +=
            R"(,{"name":"gadgets","singularName":"gadget","namespaced":true,"kind":"Gadget","verbs":["get","list","watch"]})";
    return out + "]}";
}
std::string groupList()
{
    std::string out = R"({"kind":"APIGroupList","groups":[)";
    for (int i = 0; i < kGroups; ++i) {
        const std::string g = "g" + std::to_string(i) + ".example.com";
        out += std::string(i ? "," : "") + R"({"name":")" + g + R"(","versions":[{"groupVersion":")" + g
             + R"(/v1","version":"v1"}],"preferredVersion":{"groupVersion":")" + g + R"(/v1","version":"v1"}})";
    }
    return out + "]}";
}
std::string widgets()
{
    return R"({"kind":"APIResourceList","resources":[{"name":"widgets","singularName":"widget","namespaced":true,"kind":"Widget","verbs":["get","list","watch"]}]})";
}
std::string statusInvalid()
{
    return R"({"kind":"Status","apiVersion":"v1","status":"Failure","reason":"Invalid","code":422,"message":"no WatchList"})";
}
std::string configMaps()
{
    return R"({"kind":"ConfigMapList","apiVersion":"v1","metadata":{"resourceVersion":"10"},"items":[)"
           R"({"metadata":{"name":"a","namespace":"x","uid":"u1","resourceVersion":"9"}}]})";
}
std::string namespaces()
{
    return R"({"kind":"NamespaceList","apiVersion":"v1","metadata":{"resourceVersion":"10"},"items":[)"
           R"({"metadata":{"name":"x","uid":"n1","resourceVersion":"8"}}]})";
}

// `coreAnswers`: how many times /api/v1 answers without gadgets before it lists them.
void serve(TranscriptServer &server, int coreAnswers)
{
    server.on("/version").exactPath().reply(TranscriptReply::json(200, R"({"gitVersion":"v1.20.2"})")).repeatLast();
    server.on("/api")
        .exactPath()
        .reply(TranscriptReply::json(200, R"({"kind":"APIVersions","versions":["v1"]})"))
        .repeatLast();
    auto &core = server.on("/api/v1").exactPath();
    for (int i = 0; i < coreAnswers; ++i)
        core.reply(TranscriptReply::json(200, coreV1(false)));
    server.on("/api/v1").exactPath().reply(TranscriptReply::json(200, coreV1(true))).repeatLast();
    server.on("/apis").exactPath().reply(TranscriptReply::json(200, groupList())).repeatLast();
    TranscriptReply slow;
    slow.chunked = true;
    slow.headers.emplace_back("Content-Type", "application/json");
    slow.pieces.push_back({kGroupMs, widgets()});
    server.on("/apis/")
        .where([](const RecordedRequest &r) { return std::count(r.path.begin(), r.path.end(), '/') == 3; })
        .reply(slow)
        .repeatLast();
    server.on("/api/v1/").hasQuery("sendInitialEvents").reply(TranscriptReply::json(422, statusInvalid())).repeatLast();
    server.on("/api/v1/").hasQuery("watch").reply(TranscriptReply::stream({}, TranscriptReply::End::Hang)).repeatLast();
    server.on("/api/v1/configmaps").reply(TranscriptReply::json(200, configMaps())).repeatLast();
    server.on("/api/v1/namespaces").exactPath().reply(TranscriptReply::json(200, namespaces())).repeatLast();
}

QString writeKubeconfig(const QTemporaryDir &dir, const TranscriptServer &server)
{
    QString path = dir.filePath(QStringLiteral("kubeconfig"));
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly))
        return {};
    f.write(QStringLiteral("apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster:\n    server: %1\n"
                           "users:\n- name: u\n  user:\n    token: t\ncontexts:\n- name: x\n  context:\n"
                           "    cluster: c\n    user: u\ncurrent-context: x\n")
                .arg(QString::fromStdString(server.url()))
                .toUtf8());
    return path;
}

int groupRequests(const TranscriptServer &server)
{
    return server.count([](const RecordedRequest &r) {
        return r.path.rfind("/apis/", 0) == 0 && std::count(r.path.begin(), r.path.end(), '/') == 3;
    });
}

struct Tab {
    widgets::MainWindow window;
    widgets::ClusterView *view = window.addCluster(QStringLiteral("x"));
    app::ClusterController controller{view};
    explicit Tab(const QString &kubeconfig)
    {
        window.resize(1280, 800);
        controller.showResource(QStringLiteral("configmaps"));
        controller.open(kubeconfig, QStringLiteral("x"));
        window.show();
    }
};

int kindRows(models::ResourceKindsModel *m)
{
    int n = 0;
    for (int g = 0; g < m->rowCount(); ++g)
        n += m->rowCount(m->index(g, 0));
    return n;
}

} // namespace

class TestDiscoveryWindow : public QObject
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

    void theWantedResourceIsShownBeforeEveryGroupHasAnsweredAndTheNextWindowStartsFromTheCache()
    {
        TranscriptServer server;
        serve(server, 1); // the first window sees no gadgets; the second window's refresh does
        const QString kubeconfig = writeKubeconfig(m_home, server);
        {
            Tab first(kubeconfig);
            QTRY_VERIFY_WITH_TIMEOUT(first.controller.isListed(), 20'000);
            QCOMPARE(first.controller.model()->rowCount(), 1);
            // 200 groups at 100 ms, 8 at a time, take 2.5 s: the rows came long before, and
            // "loaded" (what the demo namespace and lessons wait for) waits for discovery.
            QVERIFY2(groupRequests(server) < kGroups, qPrintable(QString::number(groupRequests(server))));
            QVERIFY(!first.controller.isLoaded());
            QTRY_VERIFY_WITH_TIMEOUT(first.controller.isLoaded(), 20'000);
            QTRY_COMPARE_WITH_TIMEOUT(kindRows(first.controller.kindsModel()), 2 + kGroups, 20'000);
        }
        // The next window shows the cached kinds at once and refreshes behind them; the refresh
        // finds a new type (gadgets), and the kinds list and table keep the shown ConfigMaps.
        const int asked = groupRequests(server);
        Tab second(kubeconfig);
        QTRY_COMPARE_WITH_TIMEOUT(kindRows(second.controller.kindsModel()), 2 + kGroups, 5'000);
        QTRY_VERIFY_WITH_TIMEOUT(second.controller.isLoaded(), 20'000);
        QTRY_COMPARE_WITH_TIMEOUT(kindRows(second.controller.kindsModel()), 3 + kGroups, 20'000);
        QCOMPARE(second.controller.currentResource(), QStringLiteral("configmaps"));
        // The kinds tree was rebuilt with the new type; its current row is still ConfigMap.
        QCOMPARE(second.view->kindsView()->tree()->currentIndex().data().toString(), QStringLiteral("ConfigMap"));
        QCOMPARE(second.controller.model()->rowCount(), 1);
        QVERIFY(groupRequests(server) >= asked + kGroups); // it did refresh every group
        QVERIFY(second.view->connectionState().startsWith(QLatin1String("connected")));
    }

private:
    QTemporaryDir m_home;
};

QTEST_MAIN(TestDiscoveryWindow)
#include "tst_discoverywindow.moc"
