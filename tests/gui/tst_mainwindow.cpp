// The main window on the offscreen platform against the real test cluster: it connects, shows
// the server version, resource kinds grouped by API group, the objects of a kind with namespace
// selection and the quick filter, and keeps the selection through watch updates. Writes
// screenshots under the build tree for a person to look at.
#include "app/gui/clustercontroller.h"
#include "app/gui/workspace.h"
#include "clusterenv.h"
#include "core/base/json.h"
#include "guitesting.h"
#include "models/eventtablemodel.h"
#include "models/managerlegendmodel.h"
#include "models/objecthistorymodel.h"
#include "models/objecttablemodel.h"
#include "models/ownershiptreemodel.h"
#include "models/resourcekindsmodel.h"
#include "models/roles.h"
#include "widgets/clusterview.h"
#include "widgets/commandpalette.h"
#include "widgets/contextswitcher.h"
#include "widgets/detailpane.h"
#include "widgets/helpdialogs.h"
#include "widgets/mainwindow.h"
#include "widgets/namespaceselector.h"
#include "widgets/objecttablepage.h"
#include "widgets/resourcekindsview.h"
#include "widgets/settingsdialog.h"
#include "widgets/watchstatus.h"
#include "widgets/yamlview.h"

#include <QAction>
#include <QApplication>
#include <QComboBox>
#include <QDateTime>
#include <QDir>
#include <QFileInfo>
#include <QItemSelectionModel>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QMenu>
#include <QMenuBar>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTableView>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QTextBrowser>
#include <QTreeView>

#include <memory>

using namespace fieldscope;
using models::ObjectTableModel;

namespace {

using testing::saveShot;

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

std::string deploymentBody()
{
    core::Json labels = {{"app", "web"}};
    core::Json container = {
        {"name", "nginx"}, {"image", "nginx:1.25"}, {"ports", core::Json::array({{{"containerPort", 80}}})}};
    return core::toJsonText(
        {{"apiVersion", "apps/v1"},
         {"kind", "Deployment"},
         {"metadata", {{"name", "web"}, {"labels", {{"app", "web"}, {"team", "shop"}}}}},
         {"spec",
          {{"replicas", 2},
           {"selector", {{"matchLabels", labels}}},
           {"template",
            {{"metadata", {{"labels", labels}}}, {"spec", {{"containers", core::Json::array({container})}}}}}}}});
}

std::string configMapBody(const std::string &name, const std::string &tier, int index)
{
    core::Json labels = core::Json::object();
    if (!tier.empty())
        labels = {{"tier", tier}, {"app", "shop"}};
    return core::toJsonText({{"metadata", {{"name", name}, {"labels", labels}}},
                             {"data", {{"index", std::to_string(index)}}}});
}

} // namespace

class TestMainWindow : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);      // QSettings of this test stay out of the user's
        QSettings().remove(QStringLiteral("columns")); // each kind's column layout from an earlier run
        // Each run records its own history: versions of an earlier run must not satisfy a check.
        QDir(app::historyFolder()).removeRecursively();
        // ... and where earlier versions kept it (it would be adopted).
        QDir(QStandardPaths::writableLocation(QStandardPaths::AppDataLocation) + QStringLiteral("/history"))
            .removeRecursively();
        // A namespace with a few hundred ConfigMaps, labelled in three tiers.
        const kube::Connection connection = testing::connectTo(testing::ctxToken());
        kube::ApiClient client(connection.transport);
        (void)testing::call(client, testing::request("POST", "/api/v1/namespaces", namespaceBody(kNamespace)));
        // What an earlier run on the same cluster added or changed goes, so a rerun starts from the
        // same 300 objects (the loop below recreates what is missing).
        const std::string base = std::string("/api/v1/namespaces/") + kNamespace + "/configmaps/";
        for (int i = 0; i < 20; ++i)
            (void)testing::call(client, testing::request("DELETE", base + "settings-0" + std::to_string(100 + i)));
        (void)testing::call(client, testing::request("DELETE", base + "settings-1150"));
        for (int i = 0; i < 300; ++i) {
            const std::string tier = i % 3 == 0 ? "web" : (i % 3 == 1 ? "api" : "db");
            const std::string body = configMapBody("settings-" + std::to_string(1000 + i), tier, i);
            auto r = testing::call(client,
                                   testing::request("POST",
                                                    std::string("/api/v1/namespaces/") + kNamespace + "/configmaps",
                                                    body));
            QVERIFY2(r || r.error().httpStatus == 409, r ? "" : r.error().describe().c_str());
        }
        // A Deployment applied by "kubectl": the controller manager adds status and a ReplicaSet
        // (Pods stay Pending without a kubelet), so it has several managers and events.
        auto d = testing::call(client, testing::request("PATCH",
                                                        std::string("/apis/apps/v1/namespaces/") + kNamespace
                                                            + "/deployments/web?fieldManager=kubectl&force=true",
                                                        deploymentBody(), "application/apply-patch+yaml"));
        QVERIFY2(d, d ? "" : d.error().describe().c_str());
    }

    void showsClusterVersionAndNamespaces()
    {
        Session s;
        QTRY_VERIFY_WITH_TIMEOUT(s.controller.isLoaded(), 30000);
        auto *version = s.window.findChild<QLabel *>(QStringLiteral("versionLabel"));
        QVERIFY(version);
        QTRY_VERIFY(!testing::testKubeVersion().isEmpty() && version->text().contains(testing::testKubeVersion()));
        QCOMPARE(s.window.findChild<QLabel *>(QStringLiteral("contextLabel"))->text(),
                 QStringLiteral("fieldscope-test"));
        const QStringList names = column(s.table()->model(), ObjectTableModel::Name);
        QVERIFY2(names.contains(QLatin1String("kube-system")), qPrintable(names.join(u',')));
        QVERIFY(names.contains(QLatin1String("default")));
        QStringList sorted = names;
        sorted.sort();
        QCOMPARE(names, sorted);
        QVERIFY(saveShot(&s.window, QStringLiteral("mainwindow-namespaces.png")));
    }

    void filterNarrowsTheTable()
    {
        Session s;
        QTRY_VERIFY_WITH_TIMEOUT(s.controller.isLoaded(), 30000);
        const int all = s.table()->model()->rowCount();
        QVERIFY(all >= 4);
        // "/" focuses the filter from the table.
        s.window.activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(&s.window));
        s.table()->setFocus();
        QTest::keyClick(s.table(), Qt::Key_Slash);
        QTRY_VERIFY(s.view->tablePage()->filterEdit()->hasFocus());
        QTest::keyClicks(s.view->tablePage()->filterEdit(), QStringLiteral("kube-"));
        QTRY_COMPARE(s.table()->model()->rowCount(), 3); // kube-system, kube-public, kube-node-lease
        QVERIFY(saveShot(&s.window, QStringLiteral("mainwindow-filtered.png")));
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
        QVERIFY2(groups.contains(QLatin1String("apps")) && groups.contains(QLatin1String("rbac.authorization.k8s.io")),
                 qPrintable(groups.join(u',')));
        // Counts arrive from the metadata-only LIST with limit=1.
        QTRY_VERIFY_WITH_TIMEOUT(m->count(QStringLiteral("configmaps")) >= 300, 15000);
        // Choosing a kind in the tree shows its objects.
        auto *tree = s.view->kindsView()->tree();
        const QModelIndex deployments = s.view->kindsView()
                                            ->findChild<QTreeView *>(QStringLiteral("resourceKinds"))
                                            ->model()
                                            ->match(tree->model()->index(0, 0), Qt::DisplayRole,
                                                    QStringLiteral("Deployment"), 1, Qt::MatchRecursive)
                                            .value(0);
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
        QVERIFY(saveShot(&s.window, QStringLiteral("mainwindow-kinds.png")));
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
        QVERIFY(saveShot(&s.window, QStringLiteral("mainwindow-configmaps.png")));
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
            QVERIFY(testing::call(client,
                                  testing::request("POST", base,
                                                   configMapBody("settings-0" + std::to_string(100 + i), {}, i))));
        QVERIFY(testing::call(client, testing::request("DELETE", base + "/settings-1010")));
        QVERIFY(testing::call(client, testing::request("PATCH", base + "/settings-1150",
                                                       core::toJsonText({{"data", {{"changed", "yes"}}}}),
                                                       "application/merge-patch+json")));
        QTRY_COMPARE_WITH_TIMEOUT(s.table()->model()->rowCount(), 320, 10000);
        const QModelIndex changed = s.table()->model()->index(s.table()->currentIndex().row(), 0);
        QTRY_VERIFY(changed.data(ObjectTableModel::ObjectJsonRole).toByteArray().contains("\"changed\""));
        QCOMPARE(page->currentUid(), uid);
        QCOMPARE(s.table()->selectionModel()->selectedRows().size(), 1);
        QCOMPARE(s.table()->currentIndex().data().toString(), QStringLiteral("settings-1150"));
        // The first visible row is still the same object.
        QCOMPARE(s.table()->indexAt(QPoint(1, 1)).data().toString(), topName);
        QVERIFY(saveShot(&s.window, QStringLiteral("mainwindow-selection-kept.png")));
    }

    void detailTabsShowTheSelectedObject();
    void commandPaletteGoesToAnObjectWithTheKeyboard();
    void contextSwitcherListsEveryContextAndOpensSeveralClusters();
    void helpListsTheShortcutsAndStatusShowsWatchHealth();
    void keyboardGoesFromFilterToObjectToDetailAndBack();
    void favouritePinnedInOneRunIsPinnedInTheNext();
};

void TestMainWindow::detailTabsShowTheSelectedObject()
{
    Session s(QStringLiteral("deployments"));
    // The test cluster's API server sends its audit events to a webhook (scripts/fieldscope-cluster),
    // which the window receives as it does the sandbox's: the History tab then names the person
    // behind each version. The log it follows does not exist, so the names come from the webhook.
    app::AuditWebhookOptions hook;
    hook.server.certFile = (testing::clusterDir() + QStringLiteral("/pki/audit-webhook.crt")).toStdString();
    hook.server.keyFile = (testing::clusterDir() + QStringLiteral("/pki/audit-webhook.key")).toStdString();
    hook.server.clientCaFile = (testing::clusterDir() + QStringLiteral("/pki/ca.crt")).toStdString();
    hook.portFile = (testing::clusterDir() + QStringLiteral("/run/audit-webhook.port")).toStdString();
    s.controller.receiveAuditWebhook(hook);
    QTemporaryDir noLog;
    s.controller.followAuditLog(noLog.filePath(QStringLiteral("audit.log")));
    QTRY_VERIFY_WITH_TIMEOUT(s.controller.isLoaded(), 30000);
    auto *detail = s.view->detailPane();
    QVERIFY(s.view->tablePage()->selectName(QString::fromLatin1(kNamespace), QStringLiteral("web")));
    QTRY_VERIFY_WITH_TIMEOUT(detail->isReady(), 10000);
    // The controller manager writes status soon after creation: wait until it owns fields.
    QTRY_VERIFY_WITH_TIMEOUT(detail->detail().managerNames.contains(QLatin1String("kube-controller-manager")), 20000);
    detail->setCurrentTab(widgets::DetailPane::SummaryTab);
    auto *summary = detail->findChild<QTextBrowser *>(QStringLiteral("summaryView"));
    QVERIFY(summary->toPlainText().contains(QLatin1String("team=shop")));
    QVERIFY(summary->toPlainText().contains(QLatin1String("kubectl(Apply)")));
    QVERIFY(saveShot(&s.window, QStringLiteral("detail-summary.png")));

    detail->setCurrentTab(widgets::DetailPane::YamlTab);
    auto *yaml = detail->findChild<widgets::YamlView *>(QStringLiteral("yamlView"));
    QVERIFY(yaml->text().contains(QLatin1String("image: nginx:1.25")));
    QVERIFY(!yaml->text().contains(QLatin1String("managedFields"))); // shown in the gutter instead
    const QString yamlText = yaml->text();
    const int imageLine = int(QStringView(yamlText).left(yamlText.indexOf(QLatin1String("image: nginx"))).count(u'\n'));
    QCOMPARE(detail->detail().lineOwners.value(imageLine).size(), 1);
    QCOMPARE(detail->detail().managerLabels.value(detail->detail().lineOwners.value(imageLine).value(0)),
             QStringLiteral("kubectl(Apply)"));
    QVERIFY(saveShot(&s.window, QStringLiteral("detail-yaml.png")));

    detail->setCurrentTab(widgets::DetailPane::OwnershipTab);
    auto *legend = detail->findChild<QTableView *>(QStringLiteral("managerLegend"));
    QVERIFY(legend->model()->rowCount() >= 2);
    auto *tree = detail->findChild<QTreeView *>(QStringLiteral("ownershipTree"));
    const int allTop = tree->model()->rowCount();
    QTest::mouseClick(legend->viewport(), Qt::LeftButton, {},
                      legend->visualRect(legend->model()->index(0, 0)).center());
    QVERIFY(tree->model()->rowCount() < allTop); // only what kubectl owns (and ancestors)
    QTest::mouseClick(legend->viewport(), Qt::LeftButton, {},
                      legend->visualRect(legend->model()->index(0, 0)).center());
    QCOMPARE(tree->model()->rowCount(), allTop);
    QVERIFY(saveShot(&s.window, QStringLiteral("detail-ownership.png")));

    // Tree and YAML follow each other: the image line selects the image node, and back.
    detail->setCurrentTab(widgets::DetailPane::YamlTab);
    yaml->setCursorPosition(imageLine, 0); // QScintilla reports cursor moves on its next UI update
    QTRY_COMPARE(tree->currentIndex().data(models::JsonPointerRole).toString(),
                 detail->detail().linePointers.value(imageLine));
    QVERIFY(tree->currentIndex().data(models::JsonPointerRole).toString().endsWith(QLatin1String("/image")));
    const QModelIndex labels =
        static_cast<models::OwnershipTreeModel *>(tree->model())->indexForJsonPointer(QStringLiteral("/metadata/name"));
    QVERIFY(labels.isValid());
    tree->setCurrentIndex(labels);
    int line = 0, col = 0;
    yaml->getCursorPosition(&line, &col);
    QCOMPARE(detail->detail().linePointers.value(line), QStringLiteral("/metadata/name"));
    QTest::qWait(50); // the echo of that cursor move must not pull the tree elsewhere
    QCOMPARE(tree->currentIndex().data(models::JsonPointerRole).toString(), QStringLiteral("/metadata/name"));

    // History comes from the on-disk store the controller records every watched version into.
    detail->setCurrentTab(widgets::DetailPane::HistoryTab);
    auto *history = detail->findChild<QTableView *>(QStringLiteral("historyTable"));
    QTRY_VERIFY_WITH_TIMEOUT(history->model()->rowCount() >= 1, 10000);
    QVERIFY(QFileInfo::exists(s.controller.historyDatabase()));
    auto *diff = detail->findChild<QTextBrowser *>(QStringLiteral("historyDiff"));
    auto rowsText = [history] {
        QStringList rows;
        for (int r = 0; r < history->model()->rowCount(); ++r)
            rows << history->model()->index(r, 0).data().toString() + u' '
                        + history->model()->index(r, 1).data().toString();
        return rows.join(QStringLiteral("; "));
    };
    QTRY_VERIFY2(diff->toPlainText().contains(QLatin1String("kind: Deployment"))
                     || diff->toPlainText().contains(QStringLiteral("→")),
                 qPrintable(QStringLiteral("diff: [%1] rows: [%2] current row %3")
                                .arg(diff->toPlainText().left(200), rowsText())
                                .arg(history->currentIndex().row())));
    // A new writer's change appears on top, attributed to it, without losing the list.
    const int versionsBefore = history->model()->rowCount();
    const kube::Connection connection = testing::connectTo(testing::ctxToken());
    kube::ApiClient client(connection.transport);
    // Through the /scale subresource, as kubectl scale and autoscalers write: since 1.22 the
    // server records the subresource with the manager, and every view names it.
    QVERIFY(testing::call(client, testing::request("PATCH",
                                                   std::string("/apis/apps/v1/namespaces/") + kNamespace
                                                       + "/deployments/web/scale?fieldManager=gui-test-scaler",
                                                   R"({"spec":{"replicas":3}})", "application/merge-patch+json")));
    auto writtenBy = [history](const QString &manager) {
        for (int r = 0; r < history->model()->rowCount(); ++r)
            if (history->model()
                    ->index(r, models::ObjectHistoryModel::ChangedByColumn)
                    .data()
                    .toString()
                    .contains(manager))
                return true;
        return false;
    };
    QTRY_VERIFY_WITH_TIMEOUT(writtenBy(QStringLiteral("gui-test-scaler(Update/scale)")), 10000);
    QVERIFY(history->model()->rowCount() > versionsBefore);
    // ... and the audit event of that PATCH names who sent it: the admin token's user, exactly.
    auto whoWrote = [history](const QString &manager) {
        for (int r = 0; r < history->model()->rowCount(); ++r)
            if (history->model()
                    ->index(r, models::ObjectHistoryModel::ChangedByColumn)
                    .data()
                    .toString()
                    .contains(manager))
                return history->model()->index(r, models::ObjectHistoryModel::WhoColumn).data().toString();
        return QString();
    };
    QTRY_COMPARE_WITH_TIMEOUT(whoWrote(QStringLiteral("gui-test-scaler(Update/scale)")),
                              QStringLiteral("fieldscope-admin"), 60000);
    // The Ownership tab's legend names the same person as who last wrote as that manager.
    auto lastWriter = [legend](const QString &manager) {
        const QAbstractItemModel *m = legend->model();
        for (int r = 0; r < m->rowCount(); ++r)
            if (m->index(r, models::ManagerLegendModel::ManagerColumn).data().toString() == manager)
                return m->index(r, models::ManagerLegendModel::WrittenByColumn).data().toString();
        return QString();
    };
    QTRY_COMPARE_WITH_TIMEOUT(lastWriter(QStringLiteral("gui-test-scaler")), QStringLiteral("fieldscope-admin"), 10000);
    // Selecting spec.replicas in the ownership tree shows its values and owners across versions.
    auto *treeModel = static_cast<models::OwnershipTreeModel *>(tree->model());
    QTRY_VERIFY(treeModel
                    ->indexForPath(core::FieldPath({core::PathElement::makeField("spec"),
                                                    core::PathElement::makeField("replicas")}))
                    .isValid());
    tree->setCurrentIndex(treeModel->indexForPath(core::FieldPath({core::PathElement::makeField("spec"),
                                                                   core::PathElement::makeField("replicas")})));
    auto *timeline = detail->findChild<QTableView *>(QStringLiteral("fieldTimeline"));
    auto timelineHas = [timeline](const QString &value, const QString &owner) {
        for (int r = 0; r < timeline->model()->rowCount(); ++r)
            if (timeline->model()->index(r, models::FieldTimelineModel::ValueColumn).data().toString() == value
                && timeline->model()
                       ->index(r, models::FieldTimelineModel::OwnersColumn)
                       .data()
                       .toString()
                       .contains(owner))
                return true;
        return false;
    };
    QTRY_VERIFY_WITH_TIMEOUT(timeline->isVisible() && timelineHas(QStringLiteral("2"), QStringLiteral("kubectl(Apply)"))
                                 && timelineHas(QStringLiteral("3"), QStringLiteral("gui-test-scaler(Update/scale)")),
                             10000);
    QVERIFY(saveShot(&s.window, QStringLiteral("detail-history.png")));
    // The tree's replicas node and the YAML gutter name the scaler with its subresource.
    auto replicasNode = [treeModel](int column) {
        return treeModel
            ->indexForPath(core::FieldPath({core::PathElement::makeField("spec"),
                                            core::PathElement::makeField("replicas")}))
            .siblingAtColumn(column)
            .data()
            .toString();
    };
    QTRY_COMPARE_WITH_TIMEOUT(replicasNode(models::OwnershipTreeModel::OwnersColumn), QStringLiteral("gui-test-scaler"),
                              10000);
    QCOMPARE(replicasNode(models::OwnershipTreeModel::OperationColumn), QStringLiteral("Update/scale"));
    detail->setCurrentTab(widgets::DetailPane::YamlTab);
    auto replicasOwner = [yaml, detail] {
        const QString text = yaml->text();
        const qsizetype at = text.indexOf(QLatin1String("replicas: 3")); // spec comes before status
        if (at < 0)
            return QString();
        const int line = int(QStringView(text).left(at).count(u'\n'));
        const auto owners = detail->detail().lineOwners.value(line);
        return owners.size() == 1 ? detail->detail().managerLabels.value(owners.value(0)) : QString();
    };
    QTRY_COMPARE_WITH_TIMEOUT(replicasOwner(), QStringLiteral("gui-test-scaler(Update/scale)"), 10000);
    QVERIFY(saveShot(&s.window, QStringLiteral("detail-yaml-scale-owner.png")));

    detail->setCurrentTab(widgets::DetailPane::EventsTab);
    QTRY_VERIFY_WITH_TIMEOUT(s.controller.eventsModel()->rowCount() >= 1, 20000);
    QCOMPARE(s.controller.eventsModel()->index(0, models::EventTableModel::ReasonColumn).data().toString(),
             QStringLiteral("ScalingReplicaSet"));
    // Live: an event about the object written now appears without reselecting it.
    const std::string now = QDateTime::currentDateTimeUtc().toString(Qt::ISODate).toStdString();
    const core::Json event = {
        {"metadata", {{"name", "web.gui-test-" + std::to_string(QDateTime::currentMSecsSinceEpoch())}}},
        {"involvedObject",
         {{"apiVersion", "apps/v1"},
          {"kind", "Deployment"},
          {"namespace", kNamespace},
          {"name", "web"},
          {"uid", detail->uid().toStdString()}}},
        {"reason", "GuiTestLiveEvent"},
        {"message", "written while the Events tab is open"},
        {"type", "Normal"},
        {"firstTimestamp", now},
        {"lastTimestamp", now},
        {"count", 1},
        {"source", {{"component", "gui-test"}}}};
    auto posted = testing::call(client,
                                testing::request("POST", std::string("/api/v1/namespaces/") + kNamespace + "/events",
                                                 core::toJsonText(event)));
    QVERIFY2(posted, posted ? "" : posted.error().describe().c_str());
    auto eventReasons = [&s] {
        QStringList reasons;
        for (int r = 0; r < s.controller.eventsModel()->rowCount(); ++r)
            reasons << s.controller.eventsModel()->index(r, models::EventTableModel::ReasonColumn).data().toString();
        return reasons;
    };
    QTRY_VERIFY_WITH_TIMEOUT(eventReasons().contains(QLatin1String("GuiTestLiveEvent")), 10000);
    QVERIFY(saveShot(&s.window, QStringLiteral("detail-events.png")));
}

void TestMainWindow::commandPaletteGoesToAnObjectWithTheKeyboard()
{
    Session s(QStringLiteral("configmaps"));
    QTRY_VERIFY_WITH_TIMEOUT(s.controller.isLoaded(), 30000);
    s.window.activateWindow();
    QTest::keyClick(&s.window, Qt::Key_K, Qt::ControlModifier);
    widgets::CommandPalette *palette = nullptr;
    QTRY_VERIFY((palette = s.window.findChild<widgets::CommandPalette *>()) && palette->isVisible());
    QTest::keyClicks(palette->input(), QStringLiteral("settings-1042"));
    QCOMPARE(palette->list()->count(), 1);
    QVERIFY(saveShot(&s.window, QStringLiteral("command-palette.png")));
    QTest::keyClick(palette->input(), Qt::Key_Return);
    QTRY_COMPARE(s.table()->currentIndex().data().toString(), QStringLiteral("settings-1042"));
    // The palette also switches kinds.
    QTest::keyClick(&s.window, Qt::Key_K, Qt::ControlModifier);
    QTRY_VERIFY((palette = s.window.findChild<widgets::CommandPalette *>()) && palette->isVisible());
    QTest::keyClicks(palette->input(), QStringLiteral("deployments.apps"));
    QTest::keyClick(palette->input(), Qt::Key_Return);
    QTRY_COMPARE(s.controller.currentResource(), QStringLiteral("deployments.apps"));
}

void TestMainWindow::contextSwitcherListsEveryContextAndOpensSeveralClusters()
{
    widgets::MainWindow window;
    window.resize(1280, 800);
    app::Workspace workspace(&window);
    workspace.setKubeconfig(testing::testKubeconfig());
    QSignalSpy loaded(&workspace, &app::Workspace::contextsLoaded);
    workspace.loadContexts();
    app::ClusterController *first = workspace.open(QStringLiteral("fieldscope-test"));
    window.show();
    QVERIFY(loaded.wait(10000));
    auto *switcher = window.contextSwitcher();
    QCOMPARE(switcher->contextNames().size(), 6); // token, cert, exec, nobody, alice, bob
    QCOMPARE(switcher->contextNames().constFirst(), QStringLiteral("fieldscope-test")); // the current one first
    QTRY_VERIFY_WITH_TIMEOUT(first->isLoaded(), 30000);
    QTRY_VERIFY(switcher->combo()->itemText(0).contains(testing::testKubeVersion()));
    // Choosing another context opens a second tab; choosing an open one shows its tab.
    const int cert = int(switcher->contextNames().indexOf(QStringLiteral("fieldscope-test-cert")));
    switcher->combo()->setCurrentIndex(cert);
    Q_EMIT switcher->combo()->activated(cert);
    QCOMPARE(window.clusterCount(), 2);
    app::ClusterController *second = workspace.controllerFor(QStringLiteral("fieldscope-test-cert"));
    QVERIFY(second);
    QTRY_VERIFY_WITH_TIMEOUT(second->isLoaded(), 30000);
    QCOMPARE(window.currentCluster(), second->view());
    QVERIFY(saveShot(&window, QStringLiteral("two-clusters.png")));
    workspace.open(QStringLiteral("fieldscope-test"));
    QCOMPARE(window.clusterCount(), 2);
    QCOMPARE(window.currentCluster(), first->view());
    // Ctrl+W closes the current tab.
    window.activateWindow();
    QTest::keyClick(&window, Qt::Key_W, Qt::ControlModifier);
    QCOMPARE(window.clusterCount(), 1);
    QCOMPARE(workspace.count(), 1);
}

void TestMainWindow::helpListsTheShortcutsAndStatusShowsWatchHealth()
{
    Session s;
    QTRY_VERIFY_WITH_TIMEOUT(s.controller.isLoaded(), 30000);
    QTRY_VERIFY(s.window.watchStatus()->text().contains(QLatin1String("live")));
    s.window.activateWindow();
    QTest::keyClick(&s.window, Qt::Key_F1);
    widgets::ShortcutsDialog *help = nullptr;
    QTRY_VERIFY((help = s.window.findChild<widgets::ShortcutsDialog *>()) && help->isVisible());
    auto *table = help->findChild<QTableWidget *>(QStringLiteral("shortcutsTable"));
    // Every menu action with a key is listed with that key, and so are the keys views handle.
    int withKeys = 0;
    for (QAction *menu : s.window.menuBar()->actions())
        for (QAction *a : menu->menu()->actions()) {
            if (a->shortcut().isEmpty())
                continue;
            ++withKeys;
            QVERIFY2(table->findItems(a->shortcut().toString(QKeySequence::NativeText), Qt::MatchExactly).size() == 1,
                     qPrintable(a->text()));
        }
    QVERIFY(withKeys >= 14);
    QCOMPARE(table->rowCount(), withKeys + int(widgets::ShortcutsDialog::keysInViews().size()));
    for (const char *keys : {"Ctrl+K", "/", "Enter (object table)", "Esc (detail)"})
        QVERIFY2(table->findItems(QString::fromUtf8(keys), Qt::MatchExactly).size() == 1, keys);
    QVERIFY(saveShot(help, QStringLiteral("shortcuts.png")));
    help->close();
}

// k9s-like: "/" from anywhere in the window, Enter from the filter into the table, Enter on an
// object into its detail (the current tab's view), Escape back to the table.
void TestMainWindow::keyboardGoesFromFilterToObjectToDetailAndBack()
{
    Session s(QStringLiteral("configmaps"));
    QTRY_VERIFY_WITH_TIMEOUT(s.controller.isLoaded(), 30000);
    s.window.activateWindow();
    QVERIFY(QTest::qWaitForWindowActive(&s.window));
    auto *page = s.view->tablePage();
    auto *kinds = s.view->kindsView()->tree();
    kinds->setFocus();
    QTRY_VERIFY(kinds->hasFocus());
    QTest::keyClick(kinds, Qt::Key_Slash);
    QTRY_VERIFY(page->filterEdit()->hasFocus());
    QTest::keyClicks(page->filterEdit(), QStringLiteral("a/b"));
    QCOMPARE(page->filterEdit()->text(), QStringLiteral("a/b")); // a "/" typed into a line edit stays text
    page->filterEdit()->clear();
    QTest::keyClicks(page->filterEdit(), QStringLiteral("settings-1150"));
    QTRY_COMPARE(s.table()->model()->rowCount(), 1);
    QTest::keyClick(page->filterEdit(), Qt::Key_Return);
    QTRY_VERIFY(s.table()->hasFocus());
    QCOMPARE(s.table()->currentIndex().data().toString(), QStringLiteral("settings-1150"));
    QTRY_COMPARE(s.view->detailPane()->uid(), page->currentUid());

    s.view->detailPane()->setCurrentTab(widgets::DetailPane::OwnershipTab);
    QTest::keyClick(s.table(), Qt::Key_Return);
    auto *tree = s.view->detailPane()->findChild<QTreeView *>(QStringLiteral("ownershipTree"));
    QTRY_VERIFY(tree->hasFocus());
    QTest::keyClick(tree, Qt::Key_Escape);
    QTRY_VERIFY(s.table()->hasFocus());

    // "/" from inside the detail pane goes to the filter too.
    s.view->detailPane()->setCurrentTab(widgets::DetailPane::EventsTab);
    QTest::keyClick(s.table(), Qt::Key_Enter);
    auto *events = s.view->detailPane()->findChild<QTableView *>(QStringLiteral("eventsTable"));
    QTRY_VERIFY(events->hasFocus());
    QTest::keyClick(events, Qt::Key_Slash);
    QTRY_VERIFY(page->filterEdit()->hasFocus());
    QVERIFY(page->filterEdit()->selectedText() == QStringLiteral("settings-1150")); // ready to be replaced
}

void TestMainWindow::favouritePinnedInOneRunIsPinnedInTheNext()
{
    QSettings().remove(QStringLiteral("favourites"));
    auto favouritesOf = [](app::ClusterController *c) {
        QStringList names;
        const auto *m = c->kindsModel();
        if (m->rowCount() > 0 && m->index(0, 0).data().toString() == QLatin1String("Favourites"))
            for (int r = 0; r < m->rowCount(m->index(0, 0)); ++r)
                names << m->index(r, 0, m->index(0, 0)).data().toString();
        return names;
    };
    // One run of the app: a window whose workspace keeps favourites in QSettings.
    struct Run {
        widgets::MainWindow window;
        app::Workspace workspace{&window};
        app::ClusterController *controller = nullptr;
        Run()
        {
            workspace.setKubeconfig(testing::testKubeconfig());
            controller = workspace.open(QStringLiteral("fieldscope-test"));
            window.show();
        }
    };
    {
        Run first;
        QTRY_VERIFY_WITH_TIMEOUT(first.controller->isLoaded(), 30000);
        QVERIFY(favouritesOf(first.controller).isEmpty());
        auto *tree = first.controller->view()->kindsView()->tree();
        const QModelIndex leases = tree->model()
                                       ->match(tree->model()->index(0, 0), Qt::DisplayRole, QStringLiteral("Lease"), 1,
                                               Qt::MatchRecursive)
                                       .value(0);
        QVERIFY(leases.isValid());
        tree->setCurrentIndex(leases);
        tree->setFocus();
        QTest::keyClick(tree, Qt::Key_F);
        QCOMPARE(favouritesOf(first.controller), QStringList{QStringLiteral("Lease")});
    }
    Run next;
    QTRY_VERIFY_WITH_TIMEOUT(next.controller->isLoaded(), 30000);
    QCOMPARE(favouritesOf(next.controller), QStringList{QStringLiteral("Lease")});
    QSettings().remove(QStringLiteral("favourites"));
}

QTEST_MAIN(TestMainWindow)
#include "tst_mainwindow.moc"
