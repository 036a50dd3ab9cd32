// The object table's columns from the server's Table format (`as=Table`) in the main window,
// on the offscreen platform against the real test cluster: the Data column of ConfigMaps appears
// without repeating Name or Age, sorts by number, follows a change; the wide columns of a
// Deployment start hidden and the header's context menu shows them. Writes screenshots.
#include "app/gui/clustercontroller.h"
#include "clusterenv.h"
#include "core/base/json.h"
#include "guitesting.h"
#include "models/objecttablemodel.h"
#include "models/objectviewmodel.h"
#include "widgets/clusterview.h"
#include "widgets/mainwindow.h"
#include "widgets/namespaceselector.h"
#include "widgets/objecttablepage.h"

#include <QApplication>
#include <QDir>
#include <QHeaderView>
#include <QMenu>
#include <QSettings>
#include <QStandardPaths>
#include <QTableView>
#include <QTest>
#include <QTimer>

using namespace fieldscope;
using models::ObjectTableModel;

namespace {

const char *kNamespace = "gui-table";

using testing::saveShot;

struct Session {
    widgets::MainWindow window;
    widgets::ClusterView *view = window.addCluster(QStringLiteral("test"));
    app::ClusterController controller{view};
    explicit Session(const QString &resource)
    {
        window.resize(1280, 800);
        controller.showResource(resource);
        controller.open(testing::testKubeconfig(), QStringLiteral("fieldscope-test"));
        window.show();
    }
    QTableView *table() const { return view->tablePage()->table(); }
    QStringList headers() const
    {
        QStringList out;
        for (int c = 0; c < table()->model()->columnCount(); ++c)
            out << table()->model()->headerData(c, Qt::Horizontal).toString();
        return out;
    }
    int columnNamed(const QString &name) const { return int(headers().indexOf(name)); }
    // The cell of COLUMN in the row of the object NAME (in kNamespace), through the view.
    QVariant cell(const QString &name, const QString &column) const
    {
        const QAbstractItemModel *m = table()->model();
        const int c = columnNamed(column);
        for (int r = 0; c >= 0 && r < m->rowCount(); ++r)
            if (m->index(r, ObjectTableModel::Name).data().toString() == name
                && m->index(r, ObjectTableModel::Namespace).data().toString() == QLatin1String(kNamespace))
                return m->index(r, c).data();
        return {};
    }
};

std::string configMapBody(const std::string &name, int keys)
{
    core::Json data = core::Json::object();
    for (int i = 0; i < keys; ++i)
        data["k" + std::to_string(i)] = std::to_string(i);
    return core::toJsonText({{"metadata", {{"name", name}}}, {"data", data}});
}

std::string deploymentBody()
{
    const core::Json labels = {{"app", "shop"}};
    const core::Json container = {{"name", "shop"}, {"image", "nginx:1.25"}};
    return core::toJsonText(
        {{"apiVersion", "apps/v1"},
         {"kind", "Deployment"},
         {"metadata", {{"name", "shop"}}},
         {"spec",
          {{"replicas", 1},
           {"selector", {{"matchLabels", labels}}},
           {"template",
            {{"metadata", {{"labels", labels}}}, {"spec", {{"containers", core::Json::array({container})}}}}}}}});
}

} // namespace

class TestServerColumns : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QSettings().clear(); // no column layout remembered from an earlier run
        const kube::Connection connection = testing::connectTo(testing::ctxToken());
        kube::ApiClient client(connection.transport);
        (void)testing::call(client, testing::request("POST", "/api/v1/namespaces",
                                                     core::toJsonText({{"metadata", {{"name", kNamespace}}}})));
        const std::string cms = std::string("/api/v1/namespaces/") + kNamespace + "/configmaps";
        for (const auto &[name, keys] : {std::pair{"cm-2", 2}, {"cm-9", 9}, {"cm-10", 10}}) {
            (void)testing::call(client, testing::request("DELETE", cms + "/" + name));
            auto r = testing::call(client, testing::request("POST", cms, configMapBody(name, keys)));
            QVERIFY2(r, r ? "" : r.error().describe().c_str());
        }
        auto d = testing::call(client, testing::request("PATCH",
                                                        std::string("/apis/apps/v1/namespaces/") + kNamespace
                                                            + "/deployments/shop?fieldManager=kubectl&force=true",
                                                        deploymentBody(), "application/apply-patch+yaml"));
        QVERIFY2(d, d ? "" : d.error().describe().c_str());
    }

    void configMapDataColumnAppearsWithoutRepeatingNameOrAge()
    {
        Session s(QStringLiteral("configmaps"));
        QTRY_VERIFY_WITH_TIMEOUT(s.columnNamed(QStringLiteral("Data")) >= 0, 30'000);
        const QStringList h = s.headers();
        QCOMPARE(h.count(QStringLiteral("Name")), 1);
        QCOMPARE(h.count(QStringLiteral("Age")), 1);
        const int data = s.columnNamed(QStringLiteral("Data"));
        QVERIFY(s.table()->model()->headerData(data, Qt::Horizontal, ObjectTableModel::ServerColumnRole).toBool());
        QVERIFY(!s.table()->isColumnHidden(data));
        QTRY_COMPARE_WITH_TIMEOUT(s.cell(QStringLiteral("cm-10"), QStringLiteral("Data")).toLongLong(), 10, 30'000);
        QCOMPARE(s.cell(QStringLiteral("cm-2"), QStringLiteral("Data")).toLongLong(), 2);
    }

    void dataColumnSortsByNumber()
    {
        Session s(QStringLiteral("configmaps"));
        QTRY_COMPARE_WITH_TIMEOUT(s.cell(QStringLiteral("cm-10"), QStringLiteral("Data")).toLongLong(), 10, 30'000);
        s.view->tablePage()->namespaceSelector()->setSelected({QString::fromLatin1(kNamespace)});
        s.table()->sortByColumn(s.columnNamed(QStringLiteral("Data")), Qt::AscendingOrder);
        QStringList names;
        for (int r = 0; r < s.table()->model()->rowCount(); ++r)
            names << s.table()->model()->index(r, ObjectTableModel::Name).data().toString();
        names.removeAll(QStringLiteral("kube-root-ca.crt"));
        QCOMPARE(names, (QStringList{QStringLiteral("cm-2"), QStringLiteral("cm-9"), QStringLiteral("cm-10")}));
        QVERIFY(saveShot(&s.window, QStringLiteral("servercolumns-configmaps.png")));
    }

    void changedConfigMapShowsItsNewDataCount()
    {
        Session s(QStringLiteral("configmaps"));
        QTRY_COMPARE_WITH_TIMEOUT(s.cell(QStringLiteral("cm-2"), QStringLiteral("Data")).toLongLong(), 2, 30'000);
        const kube::Connection connection = testing::connectTo(testing::ctxToken());
        kube::ApiClient client(connection.transport);
        QVERIFY(testing::call(client,
                              testing::request("PATCH",
                                               std::string("/api/v1/namespaces/") + kNamespace + "/configmaps/cm-2",
                                               core::toJsonText({{"data", {{"extra", "yes"}}}}),
                                               "application/merge-patch+json")));
        QTRY_COMPARE_WITH_TIMEOUT(s.cell(QStringLiteral("cm-2"), QStringLiteral("Data")).toLongLong(), 3, 15'000);
    }

    void wideDeploymentColumnsStartHiddenAndTheHeaderMenuShowsThem()
    {
        Session s(QStringLiteral("deployments"));
        QTRY_VERIFY_WITH_TIMEOUT(s.columnNamed(QStringLiteral("Images")) >= 0, 30'000);
        for (const char *name : {"Ready", "Up-to-date", "Available"})
            QVERIFY2(!s.table()->isColumnHidden(s.columnNamed(QString::fromLatin1(name))), name);
        const int images = s.columnNamed(QStringLiteral("Images"));
        QVERIFY(s.table()->isColumnHidden(images)); // priority 1: kubectl's -o wide
        QTRY_COMPARE_WITH_TIMEOUT(s.cell(QStringLiteral("shop"), QStringLiteral("Images")).toString(),
                                  QStringLiteral("nginx:1.25"), 30'000);

        // Right-click the header; the menu (modal) is driven from a queued lambda.
        bool found = false;
        QTimer::singleShot(0, this, [&] {
            auto *menu = qobject_cast<QMenu *>(QApplication::activePopupWidget());
            if (!menu)
                return;
            for (QAction *a : menu->actions())
                if (a->text() == QLatin1String("Images")) {
                    found = true;
                    QVERIFY(!a->isChecked());
                    a->trigger();
                }
            menu->close();
        });
        QHeaderView *header = s.table()->horizontalHeader();
        Q_EMIT header->customContextMenuRequested(QPoint(10, 5));
        QVERIFY(found);
        QVERIFY(!s.table()->isColumnHidden(images));
        QVERIFY(saveShot(&s.window, QStringLiteral("servercolumns-deployments-wide.png")));
    }

    // Each kind keeps its own column layout, server columns included, when the user switches to
    // another kind and back (the server's columns leave and come again) and across a restart.
    void columnLayoutOfEachKindSurvivesSwitchingKindsAndARestart()
    {
        int images = -1, ready = -1;
        auto expectArranged = [&](Session &s, const char *when) {
            QTRY_VERIFY2_WITH_TIMEOUT(s.columnNamed(QStringLiteral("Images")) >= 0, when, 30'000);
            QHeaderView *h = s.table()->horizontalHeader();
            QVERIFY2(!s.table()->isColumnHidden(images), when);
            QCOMPARE(h->sectionSize(images), 321);
            QCOMPARE(h->visualIndex(ready), 0);
            QCOMPARE(h->sortIndicatorSection(), ready);
            QCOMPARE(h->sortIndicatorOrder(), Qt::DescendingOrder);
            QCOMPARE(s.view->tablePage()->viewModel()->sortColumn(), ready); // the rows follow the indicator
            QCOMPARE(s.view->tablePage()->viewModel()->sortOrder(), Qt::DescendingOrder);
        };
        {
            Session s(QStringLiteral("deployments"));
            QTRY_VERIFY_WITH_TIMEOUT(s.columnNamed(QStringLiteral("Images")) >= 0, 30'000);
            images = s.columnNamed(QStringLiteral("Images"));
            ready = s.columnNamed(QStringLiteral("Ready"));
            QHeaderView *h = s.table()->horizontalHeader();
            s.table()->setColumnHidden(images, false); // as the header menu does
            h->resizeSection(images, 321);
            h->moveSection(h->visualIndex(ready), 0);
            s.table()->sortByColumn(ready, Qt::DescendingOrder);

            s.controller.showResource(QStringLiteral("configmaps"));
            QTRY_VERIFY_WITH_TIMEOUT(s.columnNamed(QStringLiteral("Data")) >= 0, 30'000);
            QCOMPARE(s.table()->horizontalHeader()->visualIndex(0), 0); // ConfigMaps keep their own layout
            s.controller.showResource(QStringLiteral("deployments"));
            expectArranged(s, "after switching kinds");
            if (QTest::currentTestFailed())
                return;
            QVERIFY(saveShot(&s.window, QStringLiteral("servercolumns-layout-kept.png")));
            s.window.close(); // what quitting does
        }
        Session again(QStringLiteral("deployments"));
        expectArranged(again, "after a restart");
    }
};

QTEST_MAIN(TestServerColumns)
#include "tst_servercolumns.moc"
