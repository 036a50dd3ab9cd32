// The watch contract against the real apiserver: per object, every version the server sends is
// delivered exactly once and in order, nothing is invented, and drops, stalls and truncated
// frames (through our fault proxy) are survived by resuming, not by relisting.
#include "faultproxy.h"
#include "watchrecorder.h"

#include <QUrl>

using namespace fieldscope;
using namespace fieldscope::testing;

namespace {

kube::WatcherOptions fastOptions()
{
    kube::WatcherOptions o;
    o.stallSeconds = 3; // production default is 45 s; the proxy's stall is what we test
    o.backoffInitialMs = 100;
    o.backoffMaxMs = 1000;
    return o;
}

// A connection whose traffic goes through `proxy`.
kube::Connection connectThrough(FaultProxy &proxy)
{
    auto conn = connectTo(ctxToken());
    auto resolved = conn.config;
    resolved.server = "https://127.0.0.1:" + std::to_string(proxy.port());
    return kube::connectResolved(resolved, {});
}

std::uint16_t apiserverPort()
{
    return std::uint16_t(QUrl(QString::fromStdString(connectTo(ctxToken()).config.server)).port());
}

} // namespace

class TestWatch : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void deliversEveryVersionExactlyOnceInOrder()
    {
        auto conn = connectTo(ctxToken());
        kube::ApiClient client(conn.transport);
        ScratchNamespace ns(client);
        kube::WatchScope scope{configMaps(), ns.name(), {}, {}};
        kube::Watcher watcher(&client, scope, fastOptions());
        WatchRecorder rec;
        rec.attach(watcher);
        watcher.start();
        QTRY_VERIFY_WITH_TIMEOUT(watcher.state() == kube::Watcher::State::Watching, 20000);

        for (int i = 0; i < 5; ++i)
            ns.create("cm-" + std::to_string(i), "0");
        for (int round = 1; round <= 4; ++round)
            for (int i = 0; i < 5; ++i)
                ns.update("cm-" + std::to_string(i), std::to_string(round));
        ns.remove("cm-0");
        ns.remove("cm-1");
        const std::string gone0 = ns.uidOf["cm-0"], gone1 = ns.uidOf["cm-1"];
        QTRY_VERIFY_WITH_TIMEOUT(rec.deleted.count(gone0) && rec.deleted.count(gone1), 20000);
        QTRY_VERIFY_WITH_TIMEOUT(rec.has(ns.uidOf["cm-4"], ns.written[ns.uidOf["cm-4"]].back()), 20000);
        QString why;
        QVERIFY2(deliveredExactlyOnceInOrder(ns, rec, &why), qPrintable(why));
        QVERIFY(rec.gaps.empty());
        QCOMPARE(watcher.relistCount(), 0);
        // The store equals the server's list (which includes the kube-root-ca.crt ConfigMap that
        // kube-controller-manager publishes in every namespace).
        const auto server = ns.serverState();
        QTRY_COMPARE_WITH_TIMEOUT(watcher.store().size(), server.size(), 10000);
        for (const auto &[uid, rv] : server)
            QCOMPARE(QString::fromStdString(std::string(watcher.store().find(uid)->resourceVersion())),
                     QString::fromStdString(rv));
    }

    void recoversFromCutsStallsAndTruncatedFramesWithoutLossOrDuplicates()
    {
        FaultProxy proxy(apiserverPort());
        auto direct = connectTo(ctxToken());
        kube::ApiClient writer(direct.transport);
        ScratchNamespace ns(writer);
        auto proxied = connectThrough(proxy);
        kube::ApiClient client(proxied.transport);
        kube::Watcher watcher(&client, {configMaps(), ns.name(), {}, {}}, fastOptions());
        WatchRecorder rec;
        rec.attach(watcher);
        watcher.start();
        QTRY_VERIFY_WITH_TIMEOUT(watcher.state() == kube::Watcher::State::Watching, 20000);

        auto burst = [&](int round) {
            for (int i = 0; i < 4; ++i)
                round == 0 ? (void)ns.create("cm-" + std::to_string(i), "0")
                           : (void)ns.update("cm-" + std::to_string(i), std::to_string(round));
        };
        burst(0);
        proxy.cutAll(); // 1. the connection drops
        burst(1);
        QTRY_VERIFY_WITH_TIMEOUT(watcher.state() == kube::Watcher::State::Watching && watcher.resumeCount() >= 1,
                                 20000);
        proxy.setStalled(true); // 2. half-open: no bytes, no bookmark
        burst(2);
        QTRY_VERIFY_WITH_TIMEOUT(watcher.resumeCount() >= 2, 20000);
        proxy.setStalled(false);
        burst(3);
        proxy.truncateNextServerChunk(); // 3. a frame cut in half, then the connection dies
        burst(4);
        QTRY_VERIFY_WITH_TIMEOUT(watcher.resumeCount() >= 3, 20000);
        burst(5);

        // Compare with the server's own list once everything arrived.
        const auto server = ns.serverState();
        QTRY_VERIFY_WITH_TIMEOUT(std::all_of(server.begin(), server.end(),
                                             [&](const auto &kv) { return rec.has(kv.first, kv.second); }),
                                 30000);
        QString why;
        QVERIFY2(deliveredExactlyOnceInOrder(ns, rec, &why), qPrintable(why));
        QVERIFY(rec.gaps.empty());
        QCOMPARE(watcher.relistCount(), 0); // resumed, never relisted
        for (const auto &[uid, rv] : server)
            QCOMPARE(QString::fromStdString(std::string(watcher.store().find(uid)->resourceVersion())),
                     QString::fromStdString(rv));
        QVERIFY(proxy.connectionsAccepted() >= 3);
    }

    void manyWatchesShareFewConnectionsOverHttp2()
    {
        auto conn = connectTo(ctxToken());
        kube::ApiClient client(conn.transport);
        std::vector<std::unique_ptr<ScratchNamespace>> namespaces;
        std::vector<std::unique_ptr<kube::Watcher>> watchers;
        const long before = conn.transport->connectionsOpened();
        for (int i = 0; i < 24; ++i) {
            namespaces.push_back(std::make_unique<ScratchNamespace>(client, "fs-h2"));
            watchers.push_back(std::make_unique<kube::Watcher>(
                &client, kube::WatchScope{configMaps(), namespaces.back()->name(), {}, {}}, fastOptions()));
            watchers.back()->start();
        }
        QTRY_VERIFY_WITH_TIMEOUT(std::all_of(watchers.begin(), watchers.end(),
                                             [](const auto &w) {
                                                 return w->state() == kube::Watcher::State::Watching;
                                             }),
                                 30000);
        const long opened = conn.transport->connectionsOpened() - before;
        qInfo("24 concurrent watches (+ their lists and 24 namespace creations) opened %ld new connection(s)", opened);
        QVERIFY2(opened <= 2, qPrintable(QString::number(opened)));
        watchers.clear();
    }
};

QTEST_GUILESS_MAIN(TestWatch)
#include "tst_watch.moc"
