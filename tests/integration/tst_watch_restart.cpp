// A watch survives a kube-apiserver restart (killed with -9, started again on the same etcd).
// Changes made while the watcher could not reach the server are older than the new server's
// watch cache, so resuming gets a real 410: the watcher must relist, report the interval it did
// not observe, and deliver what changed meanwhile (added, modified, deleted) without inventing
// versions. Runs its own cluster so restarting it disturbs no other test.
#include "faultproxy.h"
#include "watchrecorder.h"

#include <QTemporaryDir>
#include <QUrl>

using namespace fieldscope;
using namespace fieldscope::testing;

class TestWatchRestart : public QObject
{
    Q_OBJECT
    QTemporaryDir m_dir;
    QString m_clusterDir;

private Q_SLOTS:
    void initTestCase()
    {
        m_clusterDir = m_dir.filePath(QStringLiteral("cluster"));
        QVERIFY2(runClusterScript({QStringLiteral("start"), m_clusterDir, QStringLiteral("--name"),
                                   QStringLiteral("restart"), QStringLiteral("--max-lifetime"), QStringLiteral("900")}),
                 "private cluster did not start");
    }
    void cleanupTestCase() { runClusterScript({QStringLiteral("stop"), m_clusterDir, QStringLiteral("--purge")}); }

    void relistsAfterRestartWithGapAndTheDifferences()
    {
        kube::ConnectionOptions o;
        o.kubeconfigPath = (m_clusterDir + QStringLiteral("/kubeconfig")).toStdString();
        o.context = "restart";
        auto direct = kube::connect(o);
        QVERIFY(direct.ok());
        kube::ApiClient writer(direct->transport);
        ScratchNamespace ns(writer, "fs-restart");
        FaultProxy proxy(std::uint16_t(QUrl(QString::fromStdString(direct->config.server)).port()));
        auto viaProxy = direct->config;
        viaProxy.server = "https://127.0.0.1:" + std::to_string(proxy.port());
        auto proxied = kube::connectResolved(viaProxy, {});
        kube::ApiClient client(proxied.transport);

        kube::WatcherOptions wo;
        wo.backoffInitialMs = 100;
        wo.backoffMaxMs = 500;
        wo.stallSeconds = 3;
        kube::Watcher watcher(&client, {configMaps(), ns.name(), {}, {}}, wo);
        WatchRecorder rec;
        rec.attach(watcher);
        ns.create("keep", "0");
        ns.create("change", "0");
        ns.create("drop", "0");
        watcher.start();
        QTRY_VERIFY_WITH_TIMEOUT(watcher.state() == kube::Watcher::State::Watching && watcher.store().size() >= 3,
                                 30000);

        // The watcher loses the server; meanwhile the world moves on and the server restarts.
        // The last version it saw is read once it has taken in the cut stream's end: an event
        // still on its way (the namespace's kube-root-ca.crt, say) would move it after.
        const int resumesBefore = watcher.resumeCount();
        proxy.setRefusing(true);
        proxy.cutAll();
        QTRY_VERIFY_WITH_TIMEOUT(watcher.resumeCount() > resumesBefore, 10000);
        const std::string rvBefore = watcher.lastResourceVersion();
        ns.update("change", "1");
        ns.remove("drop");
        ns.create("new", "0");
        QVERIFY(runClusterScript({QStringLiteral("restart-apiserver"), m_clusterDir}));
        proxy.setRefusing(false);

        QTRY_VERIFY_WITH_TIMEOUT(watcher.relistCount() >= 1 && watcher.state() == kube::Watcher::State::Watching,
                                 60000);
        QVERIFY(!rec.gaps.empty());
        QCOMPARE(QString::fromStdString(rec.gaps.front().fromResourceVersion), QString::fromStdString(rvBefore));
        QVERIFY(rec.deleted.count(ns.uidOf["drop"]));
        QVERIFY(rec.has(ns.uidOf["new"], ns.written[ns.uidOf["new"]].back()));
        QVERIFY(rec.has(ns.uidOf["change"], ns.written[ns.uidOf["change"]].back()));
        // "keep" did not change: delivered once (its first listing), not again after the relist.
        QCOMPARE(int(rec.versions[ns.uidOf["keep"]].size()), 1);

        // And the watch goes on after the restart.
        ns.update("keep", "after-restart");
        QTRY_VERIFY_WITH_TIMEOUT(rec.has(ns.uidOf["keep"], ns.written[ns.uidOf["keep"]].back()), 20000);
        const auto server = ns.serverState();
        QCOMPARE(watcher.store().size(), server.size());
        for (const auto &[uid, rv] : server)
            QCOMPARE(QString::fromStdString(std::string(watcher.store().find(uid)->resourceVersion())),
                     QString::fromStdString(rv));
    }
};

QTEST_GUILESS_MAIN(TestWatchRestart)
#include "tst_watch_restart.moc"
