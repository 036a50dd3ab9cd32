// A history database belongs to a cluster, not to a context name. Two kubeconfigs
// with a context called `default` aimed at different clusters (another server, or the same URL
// behind another CA) get different files; the same cluster gets the same one; the folder is
// the documented ~/.local/share/fieldscope/history.
#include "app/services/historysource.h"

#include <QStandardPaths>
#include <QTest>

using namespace fieldscope;

class TestHistoryLocation : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void twoDefaultContextsOfDifferentClustersNeverShareADatabase()
    {
        kube::ResolvedConfig a;
        a.contextName = "default";
        a.server = "https://10.0.0.1:6443";
        a.caPem = "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n";
        kube::ResolvedConfig otherServer = a;
        otherServer.server = "https://10.0.0.2:6443";
        kube::ResolvedConfig otherCa = a; // the same address, another cluster behind it
        otherCa.caPem = "-----BEGIN CERTIFICATE-----\nBBBB\n-----END CERTIFICATE-----\n";
        kube::ResolvedConfig sameCluster = a;
        sameCluster.auth = {}; // another user of the same cluster
        const QString ctx = QStringLiteral("default");
        const QString pa = app::historyDatabaseFor(ctx, app::clusterIdentityOf(a));
        QVERIFY(pa != app::historyDatabaseFor(ctx, app::clusterIdentityOf(otherServer)));
        QVERIFY(pa != app::historyDatabaseFor(ctx, app::clusterIdentityOf(otherCa)));
        QCOMPARE(app::historyDatabaseFor(ctx, app::clusterIdentityOf(sameCluster)), pa);
        QVERIFY2(pa.startsWith(QStandardPaths::writableLocation(QStandardPaths::GenericDataLocation)
                               + QStringLiteral("/fieldscope/history/default-")),
                 qPrintable(pa));
        QVERIFY(app::clusterIdentityOf(a).rfind("sha256:", 0) == 0);
    }
};

QTEST_GUILESS_MAIN(TestHistoryLocation)
#include "tst_historylocation.moc"
