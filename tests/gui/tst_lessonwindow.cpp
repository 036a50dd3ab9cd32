// A lesson beside the live views on the offscreen platform, against the
// real test cluster. Lesson 5 mid-way in presenter mode, and lesson 2's History tab showing every
// overwrite. Writes screenshots under build/<preset>/screenshots/ for a person to look at.
#include "app/gui/clustercontroller.h"
#include "app/gui/demoseeder.h"
#include "app/gui/lessoncontroller.h"
#include "app/services/historysource.h"
#include "app/services/lessoncatalog.h"
#include "clusterenv.h"
#include "core/base/jsonread.h"
#include "core/history/historystore.h"
#include "core/ownership/ownershiptree.h"
#include "guitesting.h"
#include "models/objecthistorymodel.h"
#include "models/ownershiptreemodel.h"
#include "models/roles.h"
#include "widgets/clusterview.h"
#include "widgets/detailpane.h"
#include "widgets/lessonpanel.h"
#include "widgets/mainwindow.h"
#include "widgets/objecttablepage.h"

#include <QDockWidget>
#include <QHeaderView>
#include <QLabel>
#include <QSettings>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTableWidget>
#include <QTest>
#include <QTreeView>

using namespace fieldscope;

namespace {

int storedVersionsOf(const QString &database, const std::string &uid)
{
    auto store = core::HistoryStore::open(database.toStdString(), core::HistoryStore::OpenMode::ReadOnly);
    if (!store)
        return -1;
    core::ObjectQuery q;
    q.uid = uid;
    q.allNamespaces = true;
    auto objects = (*store)->findObjects(q);
    if (!objects || objects->size() != 1)
        return 0;
    auto versions = (*store)->versions(objects->front().id);
    return versions ? int(versions->size()) : -1;
}

struct Session {
    widgets::MainWindow window;
    widgets::ClusterView *view = window.addCluster(QStringLiteral("test"));
    app::ClusterController controller{view};
    std::unique_ptr<app::LessonController> lesson;

    explicit Session(const std::string &lessonName)
    {
        window.resize(1600, 900);
        controller.open(testing::testKubeconfig(), QStringLiteral("fieldscope-test"));
        window.show();
        if (!QTest::qWaitFor([this] { return controller.isLoaded(); }, 30000))
            qFatal("the test cluster did not load");
        const app::LessonCatalog catalog = app::loadLessons();
        const core::Lesson *l = catalog.find(lessonName);
        if (!l)
            qFatal("no lesson %s", lessonName.c_str());
        lesson = std::make_unique<app::LessonController>(&window, &controller, *l);
    }

    // Runs the lesson up to step `index` (0-based) and waits until its view is up.
    bool runTo(int index)
    {
        QSignalSpy shown(lesson.get(), &app::LessonController::stepShown);
        lesson->runTo(index);
        lesson->start(true);
        return QTest::qWaitFor(
            [&] {
                return std::any_of(shown.begin(), shown.end(),
                                   [&](const QList<QVariant> &args) { return args.at(0).toInt() == index; });
            },
            60000);
    }
};

} // namespace

class TestLessonWindow : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase()
    {
        // CMake gives this test its own XDG folders (not QStandardPaths' test mode, which all GUI
        // tests share): the history recorded here is this run's alone.
        QVERIFY(app::historyFolder().contains(QStringLiteral("lessonwindow-home")));
        QDir(app::historyFolder()).removeRecursively();
    }

    void fieldManagerConflictsMidWayInPresenterMode()
    {
        Session s("field-manager-conflicts");
        s.lesson->setPresenter(true);
        QVERIFY(s.runTo(2)); // "Resolution 1: force"
        widgets::LessonPanel *panel = s.lesson->panel();
        QVERIFY(panel->isPresenter());
        QVERIFY(panel->font().pointSizeF() > s.window.font().pointSizeF() * 1.4); // readable from the back row
        QVERIFY(panel->palette().color(QPalette::Window).lightness() < 40);       // high contrast
        QCOMPARE(s.lesson->currentStep(), 2);
        QVERIFY(s.lesson->report(1) && s.lesson->report(1)->passed());
        // Step 2 was the conflict: its answer names the owner.
        const core::LessonStepReport *conflict = s.lesson->report(1);
        QCOMPARE(conflict->calls.at(0).status, 409);
        // The request table lists step 3's one apply, answered 200.
        QCOMPARE(panel->requestTable()->rowCount(), 1);
        QVERIFY(panel->requestTable()->item(0, 3)->text().startsWith(QStringLiteral("200")));
        QVERIFY(panel->outcomeText().contains(QStringLiteral("/metadata/labels/label1 is owned by bob (Apply)")));
        QVERIFY(panel->outcomeText().contains(QStringLiteral("As the lesson says")));
        // The view the step names: the object selected, the Ownership tab, label1 highlighted.
        widgets::DetailPane *detail = s.view->detailPane();
        QCOMPARE(detail->tabs()->currentIndex(), int(widgets::DetailPane::OwnershipTab));
        auto *tree = detail->findChild<QTreeView *>();
        QVERIFY(tree);
        QTRY_COMPARE(tree->currentIndex().data(models::JsonPointerRole).toString(),
                     QStringLiteral("/metadata/labels/label1"));
        // Space is Next in presenter mode.
        QSignalSpy shown(s.lesson.get(), &app::LessonController::stepShown);
        QTest::keyClick(&s.window, Qt::Key_Space);
        QVERIFY(shown.wait(60000));
        QCOMPARE(s.lesson->currentStep(), 3);
        QTest::keyClick(&s.window, Qt::Key_Backspace);
        QCOMPARE(s.lesson->currentStep(), 2);
        QTRY_COMPARE(tree->currentIndex().data(models::JsonPointerRole).toString(),
                     QStringLiteral("/metadata/labels/label1"));
        QVERIFY(testing::saveShot(&s.window, QStringLiteral("lesson-field-manager-conflicts-presenter.png")));
        QVERIFY(s.lesson->report(2)->passed());
    }

    // A class lesson waits for students' writes: without a class on the cluster (the test
    // cluster's directory has none) it says how to start one, or to rehearse from the command
    // line, and sends nothing. tst_class_lessons runs one with a class.
    void aClassLessonWithoutAClassSaysHowToStartOne()
    {
        Session s("class-resourceversion-race");
        QSignalSpy shown(s.lesson.get(), &app::LessonController::stepShown);
        QSignalSpy failed(s.lesson.get(), &app::LessonController::failed);
        s.lesson->start(true);
        QVERIFY(failed.wait(30000));
        const QString status = s.lesson->panel()->statusText();
        QVERIFY2(status.contains(QLatin1String("no class runs on fieldscope-test")), qPrintable(status));
        QVERIFY2(status.contains(QLatin1String("Class menu")), qPrintable(status));
        QVERIFY2(
            status.contains(QLatin1String("fieldscope lesson run class-resourceversion-race --simulate-students N")),
            qPrintable(status));
        QCOMPARE(shown.count(), 0);
        QCOMPARE(s.lesson->currentStep(), -1); // nothing ran
        // Start (Next on the introduction) looks for the class again rather than running step 1.
        s.lesson->next();
        QVERIFY(failed.wait(30000));
        QCOMPARE(failed.count(), 2);
        QCOMPARE(shown.count(), 0);
        QCOMPARE(s.lesson->currentStep(), -1);
        QVERIFY(s.lesson->report(0) == nullptr);
    }

    void lastWriteWinsHistoryShowsEveryOverwrite()
    {
        Session s("last-write-wins");
        QVERIFY(s.runTo(1));
        const core::LessonStepReport *race = s.lesson->report(1);
        QVERIFY(race);
        QVERIFY2(race->passed(), race->mismatches.empty() ? "" : race->mismatches.front().c_str());
        QVERIFY(race->last.has_value());
        widgets::DetailPane *detail = s.view->detailPane();
        QCOMPARE(detail->tabs()->currentIndex(), int(widgets::DetailPane::HistoryTab));
        // The create and the five overwrites, each its own version, the latest by the last writer.
        QTRY_VERIFY_WITH_TIMEOUT(s.controller.historyModel()->rowCount() >= 6, 15000);
        bool lastWriterNamed = false;
        const QString writer = QStringLiteral("client-%1").arg(*race->last);
        for (int r = 0; r < s.controller.historyModel()->rowCount(); ++r)
            for (int c = 0; c < s.controller.historyModel()->columnCount(); ++c)
                lastWriterNamed = lastWriterNamed
                               || s.controller.historyModel()->index(r, c).data().toString().contains(writer);
        QVERIFY(lastWriterNamed);
        QTest::qWait(300);
        QVERIFY(testing::saveShot(&s.window, QStringLiteral("lesson-last-write-wins-history.png")));
        auto saved = s.lesson->saveHistory(QDir::temp().filePath(QStringLiteral("fieldscope-lesson-test.jsonl")));
        QVERIFY2(saved.ok(), saved.ok() ? "" : saved.error().describe().c_str());
        QVERIFY(*saved >= 6);
    }

    // `--screenshot`, `--resource` or a quick click elsewhere: the table does not show ConfigMaps
    // while the demo writes. Its versions still reach the history (from the runner's own watch),
    // and a window opened later (a restart) shows them.
    void demoHistoryIsRecordedWhateverKindTheTableShows()
    {
        std::string uid;
        QString database;
        {
            widgets::MainWindow window;
            widgets::ClusterView *view = window.addCluster(QStringLiteral("test"));
            app::ClusterController controller{view};
            controller.open(testing::testKubeconfig(), QStringLiteral("fieldscope-test"));
            controller.showResource(QStringLiteral("namespaces"));
            QVERIFY(QTest::qWaitFor([&] { return controller.isLoaded(); }, 30000));
            app::DemoSeeder demo(&controller, false);
            QSignalSpy finished(&demo, &app::DemoSeeder::finished);
            QVERIFY(finished.wait(90000));
            QCOMPARE(finished.at(0).at(0).toString(), QString());
            kube::ApiClient client(controller.connection()->transport);
            auto settings = testing::call(client,
                                          testing::request("GET", "/api/v1/namespaces/demo/configmaps/settings"));
            QVERIFY(settings.ok());
            uid = core::stringAt(*core::parseJson(settings->body), "/metadata/uid").value_or("");
            QVERIFY(!uid.empty());
            database = controller.historyDatabase();
            // This incarnation's three versions, by uid (earlier runs left other incarnations).
            QTRY_COMPARE_WITH_TIMEOUT(storedVersionsOf(database, uid), 3, 15000);
        }
        // A restart: a new window on the same cluster lists the ConfigMap's history.
        widgets::MainWindow window;
        widgets::ClusterView *view = window.addCluster(QStringLiteral("test"));
        app::ClusterController controller{view};
        window.resize(1600, 900);
        controller.open(testing::testKubeconfig(), QStringLiteral("fieldscope-test"));
        controller.showResource(QStringLiteral("configmaps"));
        window.show();
        QVERIFY(QTest::qWaitFor([&] { return controller.isLoaded(); }, 30000));
        QCOMPARE(controller.historyDatabase(), database);
        QTRY_VERIFY_WITH_TIMEOUT(view->tablePage()->selectName(QStringLiteral("demo"), QStringLiteral("settings")),
                                 15000);
        view->detailPane()->setCurrentTab(widgets::DetailPane::HistoryTab);
        QTRY_VERIFY_WITH_TIMEOUT(controller.historyModel()->rowCount() >= 3, 15000);
        QStringList changedBy;
        for (int r = 0; r < controller.historyModel()->rowCount(); ++r)
            changedBy
                << controller.historyModel()->index(r, models::ObjectHistoryModel::ChangedByColumn).data().toString();
        for (const char *manager : {"kubectl-create", "kubectl-edit", "config-operator"})
            QVERIFY2(changedBy.join(u' ').contains(QLatin1String(manager)), qPrintable(changedBy.join(u',')));
    }

    // A new sandbox's first minute: the demo namespace with a co-owned Deployment and a ConfigMap
    // whose History tab lists three versions by three managers, and names the people who wrote
    // them (alice, bob, the admin) and bob's refused edit, from the real API server's audit log.
    void demoNamespaceShowsCoOwnersAndAHistory()
    {
        widgets::MainWindow window;
        widgets::ClusterView *view = window.addCluster(QStringLiteral("test"));
        app::ClusterController controller{view};
        window.resize(1600, 900);
        controller.followAuditLog(testing::clusterDir() + QStringLiteral("/logs/audit.log"));
        controller.open(testing::testKubeconfig(), QStringLiteral("fieldscope-test"));
        window.show();
        app::DemoSeeder demo(&controller, true);
        QSignalSpy finished(&demo, &app::DemoSeeder::finished);
        QVERIFY(finished.wait(90000));
        QCOMPARE(finished.at(0).at(0).toString(), QString());
        QTRY_COMPARE_WITH_TIMEOUT(view->detailPane()->tabs()->currentIndex(), int(widgets::DetailPane::HistoryTab),
                                  15000);
        QTRY_VERIFY_WITH_TIMEOUT(controller.historyModel()->rowCount() >= 3, 15000);
        QStringList changedBy;
        for (int r = 0; r < controller.historyModel()->rowCount(); ++r)
            changedBy << controller.historyModel()->index(r, 2).data().toString();
        const QString all = changedBy.join(QLatin1Char(' '));
        for (const char *manager : {"kubectl-create", "kubectl-edit", "config-operator"})
            QVERIFY2(all.contains(QLatin1String(manager)), qPrintable(all));
        // Who: only the audit events fill it (the versions came from a watch, which names no one).
        // Earlier runs' incarnations come first in the rows (oldest first): this run's start at
        // the first row of the ConfigMap's uid now.
        kube::ApiClient admin(controller.connection()->transport);
        auto settings = testing::call(admin, testing::request("GET", "/api/v1/namespaces/demo/configmaps/settings"));
        QVERIFY(settings.ok());
        const std::string uid = core::stringAt(*core::parseJson(settings->body), "/metadata/uid").value_or("");
        const auto thisRun = [&] {
            const std::vector<models::HistoryRow> &rows = controller.historyModel()->rows();
            auto first = std::find_if(rows.begin(), rows.end(), [&](const auto &r) { return r.uid == uid; });
            return std::vector<models::HistoryRow>(first, rows.end());
        };
        const auto whoOf = [&](const char *manager) {
            for (const models::HistoryRow &r : thisRun())
                if (!r.refused && r.changedBy.contains(QLatin1String(manager)))
                    return r.who;
            return QString();
        };
        const auto refusedBy = [&] {
            QStringList out;
            for (const models::HistoryRow &r : thisRun())
                if (r.refused)
                    out << QStringLiteral("%1 %2").arg(r.refusedCode).arg(r.who);
            return out;
        };
        QTRY_COMPARE_WITH_TIMEOUT(whoOf("kubectl-create"), QStringLiteral("alice"), 30000);
        QTRY_COMPARE_WITH_TIMEOUT(whoOf("kubectl-edit"), QStringLiteral("bob"), 30000);
        QTRY_COMPARE_WITH_TIMEOUT(refusedBy(), QStringList{QStringLiteral("409 bob")}, 30000);
        QVERIFY2(thisRun().back().refused, "bob's stale edit came last, after the operator's apply");
        QVERIFY2(!whoOf("config-operator").isEmpty() && whoOf("config-operator") != QLatin1String("alice")
                     && whoOf("config-operator") != QLatin1String("bob"),
                 qPrintable(whoOf("config-operator")));
        QTest::qWait(300);
        QVERIFY(testing::saveShot(&window, QStringLiteral("sandbox-demo-history.png")));
        // The Deployment: an applier and a scaler (and, soon, the controller manager's status).
        auto web = testing::call(admin, testing::request("GET", "/apis/apps/v1/namespaces/demo/deployments/web"));
        QVERIFY(web.ok());
        auto tree = core::OwnershipTree::build(*core::parseJson(web->body));
        QVERIFY(tree.ok());
        QStringList managers;
        for (const core::ManagedFieldsEntry &e : tree->entries())
            managers << QString::fromStdString(e.manager);
        QVERIFY2(managers.contains(QStringLiteral("kubectl")) && managers.contains(QStringLiteral("autoscaler")),
                 qPrintable(managers.join(u',')));
    }
};

QTEST_MAIN(TestLessonWindow)
#include "tst_lessonwindow.moc"
