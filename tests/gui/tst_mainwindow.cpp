// The main window on the offscreen platform against the real test cluster: it connects, shows
// the server version, resource kinds grouped by API group, the objects of a kind with namespace
// selection and the quick filter, and keeps the selection through watch updates. Writes
// screenshots under the build tree for a person to look at.
#include "../integration/clusterenv.h"
#include "app/clustercontroller.h"
#include "core/json.h"
#include "models/objecttablemodel.h"
#include "models/resourcekindsmodel.h"
#include "widgets/clusterview.h"
#include "widgets/mainwindow.h"
#include "widgets/namespaceselector.h"
#include "widgets/objecttablepage.h"
#include "widgets/resourcekindsview.h"

#include <QApplication>
#include <QDir>
#include <QItemSelectionModel>
#include <QLabel>
#include <QLineEdit>
#include <QStandardPaths>
#include <QTableView>
#include <QTest>
#include <QTreeView>

#include <memory>

using namespace fieldscope;
using models::ObjectTableModel;

namespace {

QString shotPath(const QString &name)
{
    const QString dir = QStringLiteral(FIELDSCOPE_BUILD_DIR "/screenshots");
    QDir().mkpath(dir);
    return dir + QLatin1Char('/') + name;
}

QStringList column(const QAbstractItemModel *m, int col)
{
    QStringList out;
    for (int r = 0; r < m->rowCount(); ++r)
        out << m->index(r, col).data().toString();
    return out;
}

// One window with one cluster tab, connected to the test cluster.
struct Session {
    widgets::MainWindow window;
    widgets::ClusterView *view = window.addCluster(QStringLiteral("test"));
    app::ClusterController controller{view};
    explicit Session(const QString &resource = {})
    {
        window.resize(1280, 800);
        if (!resource.isEmpty())
            controller.showResource(resource);
        controller.open(testing::testKubeconfig(), QStringLiteral("fieldscope-test"));
        window.show();
    }
    QTableView *table() const { return view->tablePage()->table(); }
};

const char *kNamespace = "gui-objects";

// Bodies are built with the JSON library: Qt 6.4's moc mis-reads raw string literals in this file.
std::string namespaceBody(const std::string &name)
{
    return core::toJsonText({{"metadata", {{"name", name}}}});
}

std::string configMapBody(const std::string &name, const std::string &tier, int index)
{
    core::Json labels = core::Json::object();
    if (!tier.empty())
        labels = {{"tier", tier}, {"app", "shop"}};
    return core::toJsonText({{"metadata", {{"name", name}, {"labels", labels}}}, {"data", {{"index", std::to_string(index)}}}});
}

} // namespace

class TestMainWindow : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true); // QSettings of this test stay out of the user's
        // A namespace with a few hundred ConfigMaps, labelled in three tiers.
        const kube::Connection connection = testing::connectTo(testing::ctxToken());
        kube::ApiClient client(connection.transport);
        (void)testing::call(client, testing::request("POST", "/api/v1/namespaces", namespaceBody(kNamespace)));
        for (int i = 0; i < 300; ++i) {
            const std::string tier = i % 3 == 0 ? "web" : (i % 3 == 1 ? "api" : "db");
            const std::string body = configMapBody("settings-" + std::to_string(1000 + i), tier, i);
            auto r = testing::call(client, testing::request("POST", std::string("/api/v1/namespaces/") + kNamespace + "/configmaps", body));
            QVERIFY2(r || r.error().httpStatus == 409, r ? "" : r.error().describe().c_str());
        }
    }

    void showsClusterVersionAndNamespaces()
    {
        Session s;
        QTRY_VERIFY_WITH_TIMEOUT(s.controller.isLoaded(), 30000);
        auto *version = s.window.findChild<QLabel *>(QStringLiteral("versionLabel"));
        QVERIFY(version);
        QTRY_VERIFY(version->text().contains(QLatin1String("v1.20")));
        QCOMPARE(s.window.findChild<QLabel *>(QStringLiteral("contextLabel"))->text(), QStringLiteral("fieldscope-test"));
        const QStringList names = column(s.table()->model(), ObjectTableModel::Name);
        QVERIFY2(names.contains(QLatin1String("kube-system")), qPrintable(names.join(u',')));
        QVERIFY(names.contains(QLatin1String("default")));
        QStringList sorted = names;
        sorted.sort();
        QCOMPARE(names, sorted);
        QVERIFY(s.window.grab().save(shotPath(QStringLiteral("mainwindow-namespaces.png"))));
    }

    void filterNarrowsTheTable()
    {
        Session s;
        QTRY_VERIFY_WITH_TIMEOUT(s.controller.isLoaded(), 30000);
        const int all = s.table()->model()->rowCount();
        QVERIFY(all >= 4);
        // "/" focuses the filter from the table.
        s.table()->setFocus();
        QTest::keyClick(s.table(), Qt::Key_Slash);
        QTRY_VERIFY(s.view->tablePage()->filterEdit()->hasFocus());
        QTest::keyClicks(s.view->tablePage()->filterEdit(), QStringLiteral("kube-"));
        QTRY_COMPARE(s.table()->model()->rowCount(), 3); // kube-system, kube-public, kube-node-lease
        QVERIFY(s.window.grab().save(shotPath(QStringLiteral("mainwindow-filtered.png"))));
    }

    void resourceKindsAreGroupedByApiGroupWithCounts()
    {
        Session s;
        QTRY_VERIFY_WITH_TIMEOUT(s.controller.isLoaded(), 30000);
        auto *m = s.controller.kindsModel();
        QStringList groups;
        for (int g = 0; g < m->rowCount(); ++g)
            groups << m->index(g, 0).data().toString();
        QCOMPARE(groups.first(), QStringLiteral("core"));
        QVERIFY2(groups.contains(QLatin1String("apps")) && groups.contains(QLatin1String("rbac.authorization.k8s.io")), qPrintable(groups.join(u',')));
        // Counts arrive from the metadata-only LIST with limit=1.
        QTRY_VERIFY_WITH_TIMEOUT(m->count(QStringLiteral("configmaps")) >= 300, 15000);
        // Choosing a kind in the tree shows its objects.
        auto *tree = s.view->kindsView()->tree();
        const QModelIndex deployments = s.view->kindsView()->findChild<QTreeView *>(QStringLiteral("resourceKinds"))->model()->match(
            tree->model()->index(0, 0), Qt::DisplayRole, QStringLiteral("Deployment"), 1, Qt::MatchRecursive).value(0);
        QVERIFY(deployments.isValid());
        tree->setCurrentIndex(deployments);
        QTRY_COMPARE(s.controller.currentResource(), QStringLiteral("deployments.apps"));
        QTRY_VERIFY_WITH_TIMEOUT(s.controller.isLoaded(), 30000);
        QCOMPARE(s.window.findChild<QLabel *>(QStringLiteral("resourceTitle"))->text(), QStringLiteral("Deployments"));
        // Pinning a favourite puts it first.
        tree->setFocus();
        QTest::keyClick(tree, Qt::Key_F);
        QCOMPARE(m->index(0, 0).data().toString(), QStringLiteral("Favourites"));
        QCOMPARE(m->index(0, 0, m->index(0, 0)).data().toString(), QStringLiteral("Deployment"));
        QVERIFY(s.window.grab().save(shotPath(QStringLiteral("mainwindow-kinds.png"))));
    }

    void namespaceSelectorAndLabelFilterNarrowConfigMaps()
    {
        Session s(QStringLiteral("configmaps"));
        QTRY_VERIFY_WITH_TIMEOUT(s.controller.isLoaded(), 30000);
        auto *page = s.view->tablePage();
        QTRY_VERIFY(page->namespaceSelector()->available().contains(QLatin1String(kNamespace)));
        page->namespaceSelector()->setSelected({QString::fromLatin1(kNamespace)});
        QCOMPARE(s.table()->model()->rowCount(), 301); // and kube-root-ca.crt
        QTest::keyClicks(page->filterEdit(), QStringLiteral("tier=web"));
        QCOMPARE(s.table()->model()->rowCount(), 100);
        page->filterEdit()->clear();
        QTest::keyClicks(page->filterEdit(), QStringLiteral("settings-10 tier in (api,db)"));
        QCOMPARE(s.table()->model()->rowCount(), 66); // settings-1000..1099 minus the 34 in tier web
        page->filterEdit()->clear();
        page->namespaceSelector()->setSelected({QString::fromLatin1(kNamespace), QStringLiteral("kube-system")});
        QVERIFY(s.table()->model()->rowCount() > 300);
        page->namespaceSelector()->setSelected({QString::fromLatin1(kNamespace)});
        QVERIFY(s.window.grab().save(shotPath(QStringLiteral("mainwindow-configmaps.png"))));
    }

    void selectionAndScrollSurviveWatchUpdates()
    {
        Session s(QStringLiteral("configmaps"));
        QTRY_VERIFY_WITH_TIMEOUT(s.controller.isLoaded(), 30000);
        auto *page = s.view->tablePage();
        page->namespaceSelector()->setSelected({QString::fromLatin1(kNamespace)});
        QVERIFY(page->selectName(QString::fromLatin1(kNamespace), QStringLiteral("settings-1150")));
        const QString uid = page->currentUid();
        s.table()->scrollTo(s.table()->currentIndex(), QAbstractItemView::PositionAtTop);
        const QModelIndex top = s.table()->indexAt(QPoint(1, 1));
        const QString topName = top.data().toString();
        QVERIFY(!topName.isEmpty());

        // Objects added before the selection, one deleted, the selected one modified.
        const kube::Connection connection = testing::connectTo(testing::ctxToken());
        kube::ApiClient client(connection.transport);
        const std::string base = std::string("/api/v1/namespaces/") + kNamespace + "/configmaps";
        for (int i = 0; i < 20; ++i)
            QVERIFY(testing::call(client, testing::request("POST", base, configMapBody("settings-0" + std::to_string(100 + i), {}, i))));
        QVERIFY(testing::call(client, testing::request("DELETE", base + "/settings-1010")));
        QVERIFY(testing::call(client, testing::request("PATCH", base + "/settings-1150", core::toJsonText({{"data", {{"changed", "yes"}}}}),
                                                       "application/merge-patch+json")));
        QTRY_COMPARE_WITH_TIMEOUT(s.table()->model()->rowCount(), 320, 10000);
        const QModelIndex changed = s.table()->model()->index(s.table()->currentIndex().row(), 0);
        QTRY_VERIFY(changed.data(ObjectTableModel::ObjectJsonRole).toByteArray().contains("\"changed\""));
        QCOMPARE(page->currentUid(), uid);
        QCOMPARE(s.table()->selectionModel()->selectedRows().size(), 1);
        QCOMPARE(s.table()->currentIndex().data().toString(), QStringLiteral("settings-1150"));
        // The first visible row is still the same object.
        QCOMPARE(s.table()->indexAt(QPoint(1, 1)).data().toString(), topName);
        QVERIFY(s.window.grab().save(shotPath(QStringLiteral("mainwindow-selection-kept.png"))));
    }
};

QTEST_MAIN(TestMainWindow)
#include "tst_mainwindow.moc"
