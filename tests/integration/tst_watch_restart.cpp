// A watch survives a kube-apiserver restart (killed with -9, started again on the same etcd).
// Changes made while the watcher could not reach the server are older than the new server's
// watch cache, so resuming gets a real 410: the watcher must relist, report the interval it did
// not observe, and deliver what changed meanwhile (added, modified, deleted) without inventing
// versions. And a LIST whose continue token expires between pages (a modern server serves later
// pages from its watch cache until the revision has left it and etcd compacted past it): the
// list starts over, the pages already shown are diffed, and the interval is reported as a gap.
// Runs its own cluster so restarting and compacting it disturbs no other test.
#include "faultproxy.h"
#include "watchrecorder.h"

#include <QFile>
#include <QProcess>
#include <QScopeGuard>
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

    void anExpiredContinueTokenRestartsTheListAndReportsTheGap()
    {
        // A modern server pages from its watch cache's snapshots, which it keeps as long as the
        // cache holds their revision (minutes, and longer under load): there a token expires only
        // once the cache has forgotten it. Where a list is served from etcd (no cache for the
        // resource, or an HA peer whose cache does not reach back that far) the token expires
        // with etcd's compaction, which a test can bring about: this cluster serves ConfigMaps
        // from etcd.
        const QString uncachedDir = m_dir.filePath(QStringLiteral("uncached"));
        QVERIFY2(runClusterScript({QStringLiteral("start"), uncachedDir, QStringLiteral("--name"),
                                   QStringLiteral("uncached"), QStringLiteral("--max-lifetime"), QStringLiteral("600"),
                                   QStringLiteral("--no-watch-cache"), QStringLiteral("configmaps")}),
                 "the cluster without a ConfigMap watch cache did not start");
        const auto stopUncached = qScopeGuard([&uncachedDir] {
            runClusterScript({QStringLiteral("stop"), uncachedDir, QStringLiteral("--purge")});
        });
        kube::ConnectionOptions o;
        o.kubeconfigPath = (uncachedDir + QStringLiteral("/kubeconfig")).toStdString();
        o.context = "uncached";
        auto direct = kube::connect(o);
        QVERIFY(direct.ok());
        kube::ApiClient writer(direct->transport);
        ScratchNamespace ns(writer, "fs-expire");
        for (int i = 0; i < 300; ++i)
            ns.create("c" + std::to_string(i), "0");
        FaultProxy proxy(std::uint16_t(QUrl(QString::fromStdString(direct->config.server)).port()));
        auto viaProxy = direct->config;
        viaProxy.server = "https://127.0.0.1:" + std::to_string(proxy.port());
        auto proxied = kube::connectResolved(viaProxy, {});
        kube::ApiClient client(proxied.transport);

        kube::WatcherOptions wo;
        wo.tryWatchList = false;          // pages, as on servers without streaming lists
        wo.pageSize = wo.maxPageSize = 1; // 300 pages: the list is surely cut between two
        wo.applySliceItems = 1;
        kube::Watcher watcher(&client, {configMaps(), ns.name(), {}, {}}, wo);
        WatchRecorder rec;
        rec.attach(watcher);
        bool stalledMidList = false;
        // Stall the connection as soon as the first page is shown: the next page waits.
        QObject::connect(&watcher, &kube::Watcher::batchReady, &watcher, [&](const core::WatchBatch &b) {
            if (!stalledMidList && !b.events.empty() && !b.initialListComplete) {
                proxy.setStalled(true);
                stalledMidList = true;
            }
        });
        watcher.start();
        QTRY_VERIFY_WITH_TIMEOUT(stalledMidList, 30000);
        QVERIFY2(watcher.state() == kube::Watcher::State::Listing, "the list ended before the stall");

        // Meanwhile: the object changes, then etcd compacts past the list's revision.
        for (int i = 0; i < 20; ++i)
            ns.update("c0", std::to_string(i + 1));
        const QString etcd = QStringLiteral("http://127.0.0.1:")
                           + readFile(uncachedDir + QStringLiteral("/run/etcd.port"));
        const core::Json range = curlJson(etcd + QStringLiteral("/v3/kv/range"), "{\"key\":\"AA==\"}");
        const std::string revision = range["header"]["revision"].get<std::string>();
        QVERIFY(!curlJson(etcd + QStringLiteral("/v3/kv/compaction"),
                          QByteArray::fromStdString(core::toJsonText({{"physical", true}, {"revision", revision}})))
                     .is_null());
        proxy.setStalled(false);

        QTRY_VERIFY_WITH_TIMEOUT(watcher.state() == kube::Watcher::State::Watching, 60000);
        // The interval between the first page's list and the new list is reported, once.
        const auto expired = std::count_if(rec.gaps.begin(), rec.gaps.end(), [](const core::ObservationGap &g) {
            return g.reason == "continue token expired";
        });
        QStringList reasons;
        for (const auto &g : rec.gaps)
            reasons << QString::fromStdString(g.reason + " " + g.fromResourceVersion + ".." + g.toResourceVersion);
        QVERIFY2(expired == 1, qPrintable(reasons.join(QStringLiteral("; "))));
        // From the list the first pages came from to the new list, which is after the compaction
        // (resourceVersions are etcd revisions on this, our own, cluster).
        for (const auto &g : rec.gaps)
            if (g.reason == "continue token expired") {
                QVERIFY(!g.fromResourceVersion.empty());
                QVERIFY(std::stoll(g.fromResourceVersion) < std::stoll(revision));
                QVERIFY(std::stoll(g.toResourceVersion) >= std::stoll(revision));
            }
        // And what the watcher holds is what the server holds: c0 at its last version.
        const auto server = ns.serverState();
        QCOMPARE(watcher.store().size(), server.size());
        for (const auto &[uid, rv] : server)
            QCOMPARE(QString::fromStdString(std::string(watcher.store().find(uid)->resourceVersion())),
                     QString::fromStdString(rv));
        QVERIFY(rec.has(ns.uidOf["c0"], ns.written[ns.uidOf["c0"]].back()));
    }

private:
    static QString readFile(const QString &path)
    {
        QFile f(path);
        return f.open(QIODevice::ReadOnly) ? QString::fromUtf8(f.readAll()).trimmed() : QString();
    }
    // etcd's JSON gateway on loopback (a test's own cluster): POST BODY to URL.
    static core::Json curlJson(const QString &url, const QByteArray &body)
    {
        QProcess curl;
        curl.start(QStringLiteral("curl"), {QStringLiteral("-fsS"), QStringLiteral("-X"), QStringLiteral("POST"),
                                            QStringLiteral("--data-binary"), QStringLiteral("@-"), url});
        curl.write(body);
        curl.closeWriteChannel();
        if (!curl.waitForFinished(30000) || curl.exitCode() != 0)
            return core::Json();
        return core::parseJson(curl.readAllStandardOutput().toStdString()).valueOr(core::Json());
    }
};

QTEST_GUILESS_MAIN(TestWatchRestart)
#include "tst_watch_restart.moc"
