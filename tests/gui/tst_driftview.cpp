// The window's Drift view and the Ownership tab's drift badge on the offscreen platform, against
// the real test cluster: a ConfigMap applied with server-side apply by `gitops` while the window
// records, then changed by alice as `hotfix` (a merge patch, an Update). The view names the field,
// both values, the writer and the person (from the cluster's audit log); a click opens the
// object's History at that change; the badge marks the field; Give back to gitops writes the
// applied value back only if the field still has alice's. A ConfigMap that drifted before the
// window recorded it shows what managedFields alone say, and cannot be given back. Writes
// screenshots under build/<preset>/screenshots/ for a person to look at.
#include "app/gui/clustercontroller.h"
#include "app/services/historysource.h"
#include "clusterenv.h"
#include "core/base/json.h"
#include "guitesting.h"
#include "models/driftmodel.h"
#include "models/objecthistorymodel.h"
#include "models/ownershiptreemodel.h"
#include "models/roles.h"
#include "widgets/clusterview.h"
#include "widgets/detailpane.h"
#include "widgets/driftview.h"
#include "widgets/historypanel.h"
#include "widgets/mainwindow.h"
#include "widgets/namespaceselector.h"
#include "widgets/objecttablepage.h"

#include <QAbstractButton>
#include <QAction>
#include <QDir>
#include <QMenuBar>
#include <QMessageBox>
#include <QPushButton>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTableView>
#include <QTest>
#include <QTreeView>

using namespace fieldscope;
using models::DriftModel;

namespace {

using testing::saveShot;

const char *kNamespace = "gui-drift";

std::string configMapPath(const std::string &name)
{
    return std::string("/api/v1/namespaces/") + kNamespace + "/configmaps/" + name;
}

// Bodies are built with the JSON library: Qt 6.4's moc mis-reads raw string literals.
std::string appliedBody(const std::string &name)
{
    return core::toJsonText({{"apiVersion", "v1"},
                             {"kind", "ConfigMap"},
                             {"metadata", {{"name", name}, {"namespace", kNamespace}}},
                             {"data", {{"color", "blue"}, {"size", "2"}}}});
}

// gitops applies (server-side apply); alice then sets the colour as `hotfix` (an Update).
void applyThenHotfix(const std::string &name)
{
    const kube::Connection adminConnection = testing::connectTo(testing::ctxToken()); // alive while used
    kube::ApiClient admin(adminConnection.transport);
    auto applied = testing::call(admin, testing::request("PATCH", configMapPath(name) + "?fieldManager=gitops",
                                                         appliedBody(name), "application/apply-patch+yaml"));
    QVERIFY2(applied, applied ? "" : applied.error().describe().c_str());
    const kube::Connection aliceConnection = testing::connectTo("fieldscope-test-alice");
    kube::ApiClient alice(aliceConnection.transport);
    auto patched = testing::call(alice, testing::request("PATCH", configMapPath(name) + "?fieldManager=hotfix",
                                                         core::toJsonText({{"data", {{"color", "red"}}}}),
                                                         "application/merge-patch+json"));
    QVERIFY2(patched, patched ? "" : patched.error().describe().c_str());
}

std::string serverColor(const std::string &name)
{
    const kube::Connection adminConnection = testing::connectTo(testing::ctxToken()); // alive while used
    kube::ApiClient admin(adminConnection.transport);
    auto got = testing::call(admin, testing::request("GET", configMapPath(name)));
    if (!got)
        return "error: " + got.error().describe();
    auto json = core::parseJson(got->body);
    return json ? (*json)["data"].value("color", std::string("?")) : std::string("?");
}

// One window with one cluster tab on the ConfigMaps of kNamespace, recording, following the
// cluster's audit log (who made each version).
struct Session {
    widgets::MainWindow window;
    widgets::ClusterView *view = window.addCluster(QStringLiteral("test"));
    app::ClusterController controller{view};
    Session()
    {
        window.resize(1400, 900);
        controller.showResource(QStringLiteral("configmaps"));
        controller.followAuditLog(testing::clusterDir() + QStringLiteral("/logs/audit.log"));
        controller.open(testing::testKubeconfig(), QStringLiteral("fieldscope-test"));
        window.show();
        if (!QTest::qWaitFor([this] { return controller.isLoaded(); }, 30000))
            qFatal("the test cluster did not load");
        view->tablePage()->namespaceSelector()->setSelected({QString::fromLatin1(kNamespace)});
    }
    widgets::DriftView *drift() const { return view->driftView(); }
    DriftModel *model() { return controller.drift()->model(); }
    bool hasRow(const QString &name) const
    {
        return view->tablePage()->selectName(QString::fromLatin1(kNamespace), name);
    }
    // The row of `field` of object `name` (-1: none), after a refresh that finished.
    int rowOf(const QString &name, const QString &field)
    {
        for (int r = 0; r < model()->rowCount(); ++r)
            if (model()->index(r, DriftModel::ObjectColumn).data().toString() == name
                && model()->index(r, DriftModel::FieldColumn).data().toString() == field)
                return r;
        return -1;
    }
    QString cell(int row, int column) { return model()->index(row, column).data().toString(); }
    // Refreshes until `ready` holds: the recorder commits and the audit log is joined on their
    // own threads, a moment after the server answered.
    bool refreshUntil(const std::function<bool()> &ready, int timeoutMs = 60000)
    {
        return QTest::qWaitFor(
            [&] {
                QSignalSpy done(controller.drift(), &app::ClusterDrift::refreshed);
                QTest::mouseClick(drift()->refreshButton(), Qt::LeftButton);
                return done.wait(20000) && ready();
            },
            timeoutMs);
    }
};

} // namespace

class TestDriftView : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase()
    {
        // Every test has a home of its own (tests/CMakeLists.txt): the history recorded here is this run's alone.
        QVERIFY(app::historyFolder().contains(QStringLiteral("tst_driftview")));
        QDir(app::historyFolder()).removeRecursively();
        const kube::Connection adminConnection = testing::connectTo(testing::ctxToken()); // alive while used
        kube::ApiClient admin(adminConnection.transport);
        (void)testing::call(admin, testing::request("POST", "/api/v1/namespaces",
                                                    core::toJsonText({{"metadata", {{"name", kNamespace}}}})));
        for (const char *name : {"settings", "before-recording"})
            (void)testing::call(admin, testing::request("DELETE", configMapPath(name)));
        // This one drifts before any window records it: only managedFields can tell.
        applyThenHotfix("before-recording");
    }

    void driftViewNamesTheChangeOpensItsHistoryAndGivesItBack();
    void driftFromManagedFieldsAloneCannotBeGivenBack();
};

void TestDriftView::driftViewNamesTheChangeOpensItsHistoryAndGivesItBack()
{
    Session s;
    // Both writes while the window records: the apply and the change are versions in its history.
    applyThenHotfix("settings");
    QTRY_VERIFY_WITH_TIMEOUT(s.hasRow(QStringLiteral("settings")), 20000);

    // Go → Drift view opens it beside the objects and computes it.
    QAction *open = nullptr;
    for (QAction *a : s.window.menuBar()->findChildren<QAction *>())
        if (a->text() == QStringLiteral("Drift view"))
            open = a;
    QVERIFY(open);
    QSignalSpy refreshed(s.controller.drift(), &app::ClusterDrift::refreshed);
    open->trigger();
    QVERIFY(s.view->isDriftViewShown());
    QVERIFY(refreshed.wait(30000));
    QVERIFY(s.refreshUntil([&] {
        const int r = s.rowOf(QStringLiteral("settings"), QStringLiteral(".data.color"));
        return r >= 0 && s.cell(r, DriftModel::SourceColumn) == QStringLiteral("history")
            && !s.cell(r, DriftModel::WhoColumn).isEmpty();
    }));
    const int row = s.rowOf(QStringLiteral("settings"), QStringLiteral(".data.color"));
    QCOMPARE(s.cell(row, DriftModel::AppliedByColumn), QStringLiteral("gitops"));
    QCOMPARE(s.cell(row, DriftModel::AppliedValueColumn), QStringLiteral("blue"));
    QCOMPARE(s.cell(row, DriftModel::NowColumn), QStringLiteral("red"));
    QCOMPARE(s.cell(row, DriftModel::ChangedByColumn), QStringLiteral("hotfix (Update)"));
    QVERIFY2(s.cell(row, DriftModel::WhoColumn).contains(QLatin1String("alice")),
             qPrintable(s.cell(row, DriftModel::WhoColumn)));
    QCOMPARE(s.rowOf(QStringLiteral("settings"), QStringLiteral(".data.size")), -1); // still gitops'
    const QString changeRv = s.model()->index(row, 0).data(DriftModel::ResourceVersionRole).toString();
    QVERIFY(!changeRv.isEmpty());

    // A click opens the object's History at the change.
    QTableView *table = s.drift()->table();
    auto *proxy = table->model();
    QModelIndex shown;
    for (int r = 0; r < proxy->rowCount(); ++r)
        if (proxy->index(r, DriftModel::FieldColumn).data().toString() == QStringLiteral(".data.color")
            && proxy->index(r, DriftModel::ObjectColumn).data().toString() == QStringLiteral("settings"))
            shown = proxy->index(r, DriftModel::FieldColumn);
    QVERIFY(shown.isValid());
    table->scrollTo(shown);
    QTest::mouseClick(table->viewport(), Qt::LeftButton, {}, table->visualRect(shown).center());
    widgets::DetailPane *detail = s.view->detailPane();
    QCOMPARE(s.view->tablePage()->currentUid(), s.model()->index(row, 0).data(DriftModel::UidRole).toString());
    QCOMPARE(detail->tabs()->currentIndex(), int(widgets::DetailPane::HistoryTab));
    QTableView *versions = detail->historyPanel()->versionsView();
    QTRY_COMPARE_WITH_TIMEOUT(versions->currentIndex().data(models::ObjectHistoryModel::ResourceVersionRole).toString(),
                              changeRv, 20000);
    QVERIFY(saveShot(&s.window, QStringLiteral("drift-view.png")));

    // The Ownership tab marks the field.
    detail->setCurrentTab(widgets::DetailPane::OwnershipTab);
    auto *tree = detail->findChild<QTreeView *>(QStringLiteral("ownershipTree"));
    tree->expandAll();
    auto colorValue = [&]() -> QModelIndex {
        auto *m = qobject_cast<models::OwnershipTreeModel *>(tree->model());
        const QModelIndex data = m->indexForPath(core::FieldPath({core::PathElement::makeField("data"),
                                                                  core::PathElement::makeField("color")}));
        return data.siblingAtColumn(models::OwnershipTreeModel::ValueColumn);
    };
    QTRY_COMPARE_WITH_TIMEOUT(colorValue().data().toString(), QStringLiteral("red  [drift]"), 20000);
    QVERIFY2(colorValue()
                 .data(models::DriftRole)
                 .toString()
                 .startsWith(QLatin1String("Drift: applied by gitops: blue; now red by hotfix (Update)")),
             qPrintable(colorValue().data(models::DriftRole).toString()));
    tree->scrollTo(colorValue());
    QVERIFY(saveShot(&s.window, QStringLiteral("drift-ownership.png")));

    // Give back to gitops: asked first, then written only if the colour is still red.
    table->setCurrentIndex(shown);
    QPushButton *giveBack = s.drift()->giveBackButton();
    QCOMPARE(giveBack->text(), QStringLiteral("Give back to gitops…"));
    QVERIFY(giveBack->isEnabled());
    QTest::mouseClick(giveBack, Qt::LeftButton);
    QMessageBox *box = nullptr;
    QTRY_VERIFY((box = s.window.findChild<QMessageBox *>(QStringLiteral("giveBackBox"))) != nullptr);
    QVERIFY2(box->text().contains(QLatin1String(".data.color of configmaps gui-drift/settings back to \"blue\""))
                 && box->text().contains(QLatin1String("still \"red\" (set by hotfix (Update)")),
             qPrintable(box->text()));
    QVERIFY(testing::saveShotShowingErrors(box, QStringLiteral("drift-give-back.png")));
    QSignalSpy written(&s.controller, &app::ClusterController::setIfUnchangedFinished);
    QAbstractButton *yes = nullptr;
    for (QAbstractButton *b : box->buttons())
        if (box->buttonRole(b) == QMessageBox::AcceptRole)
            yes = b;
    QVERIFY(yes);
    QTest::mouseClick(yes, Qt::LeftButton);
    QVERIFY(written.wait(20000));
    QVERIFY2(written.first().at(0).toBool(), qPrintable(written.first().at(1).toString()));
    QCOMPARE(serverColor("settings"), std::string("blue"));
    // The Drift view follows: blue again, by the window's manager, until gitops applies again.
    QVERIFY(s.refreshUntil([&] {
        const int r = s.rowOf(QStringLiteral("settings"), QStringLiteral(".data.color"));
        return r >= 0 && s.cell(r, DriftModel::NowColumn) == QStringLiteral("blue");
    }));
    const int after = s.rowOf(QStringLiteral("settings"), QStringLiteral(".data.color"));
    QCOMPARE(s.cell(after, DriftModel::ChangedByColumn), QStringLiteral("fieldscope (Update)"));
    for (int r = 0; r < proxy->rowCount(); ++r)
        if (proxy->index(r, DriftModel::ObjectColumn).data().toString() == QStringLiteral("settings"))
            table->setCurrentIndex(proxy->index(r, 0));
    QVERIFY(!giveBack->isEnabled());
    QVERIFY(giveBack->toolTip().contains(QLatin1String("owns it again at its next apply")));
}

void TestDriftView::driftFromManagedFieldsAloneCannotBeGivenBack()
{
    Session s;
    s.view->showDriftView();
    QVERIFY(s.refreshUntil([&] {
        return s.rowOf(QStringLiteral("before-recording"), QStringLiteral(".data.color")) >= 0;
    }));
    const int row = s.rowOf(QStringLiteral("before-recording"), QStringLiteral(".data.color"));
    QCOMPARE(s.cell(row, DriftModel::SourceColumn), QStringLiteral("managedFields"));
    QCOMPARE(s.cell(row, DriftModel::AppliedValueColumn), QStringLiteral("(not recorded)"));
    QCOMPARE(s.cell(row, DriftModel::NowColumn), QStringLiteral("red"));
    QTableView *table = s.drift()->table();
    for (int r = 0; r < table->model()->rowCount(); ++r)
        if (table->model()->index(r, DriftModel::ObjectColumn).data().toString() == QStringLiteral("before-recording"))
            table->setCurrentIndex(table->model()->index(r, 0));
    QPushButton *giveBack = s.drift()->giveBackButton();
    QVERIFY(!giveBack->isEnabled());
    QVERIFY2(giveBack->toolTip().contains(QLatin1String("was not recorded")), qPrintable(giveBack->toolTip()));
    QVERIFY(saveShot(&s.window, QStringLiteral("drift-managedfields.png")));
}

QTEST_MAIN(TestDriftView)
#include "tst_driftview.moc"
