// The History tab's Revert to this version and Undo this change on the offscreen platform against
// the real test cluster: the editor opens with the recorded fields put back and JSON Patch chosen,
// nothing is sent until Write, the write restores the live values, and a revert whose field
// someone changed after the editor read the object is refused with the three-way view. Saves the
// revert preview screenshot the README shows.
#include "app/gui/clustercontroller.h"
#include "clusterenv.h"
#include "core/base/json.h"
#include "core/base/jsonread.h"
#include "guitesting.h"
#include "models/objecthistorymodel.h"
#include "widgets/clusterview.h"
#include "widgets/detailpane.h"
#include "widgets/editorwindow.h"
#include "widgets/mainwindow.h"
#include "widgets/objecttablepage.h"

#include <QAction>
#include <QComboBox>
#include <QPushButton>
#include <QSettings>
#include <QStandardPaths>
#include <QTableView>
#include <QTest>

#include <memory>

using namespace fieldscope;
using widgets::EditorWindow;

namespace {

const char *const kNamespace = "gui-revert";

std::string objectPath(const std::string &name)
{
    return std::string("/api/v1/namespaces/") + kNamespace + "/configmaps/" + name;
}

struct Session {
    widgets::MainWindow window;
    widgets::ClusterView *view = window.addCluster(QStringLiteral("test"));
    app::ClusterController controller{view};
    Session()
    {
        window.resize(1280, 800);
        controller.showResource(QStringLiteral("configmaps"));
        controller.open(testing::testKubeconfig(), QStringLiteral("fieldscope-test"));
        window.show();
    }
};

} // namespace

class TestHistoryRevert : public QObject
{
    Q_OBJECT
    std::unique_ptr<kube::Connection> m_connection;
    std::unique_ptr<kube::ApiClient> m_client;

    std::string write(const char *method, const std::string &name, const std::string &manager, const core::Json &data)
    {
        const bool create = std::string(method) == "POST";
        const std::string path = (create ? std::string("/api/v1/namespaces/") + kNamespace + "/configmaps"
                                         : objectPath(name))
                               + "?fieldManager=" + manager;
        const core::Json body = create ? core::Json{{"apiVersion", "v1"},
                                                    {"kind", "ConfigMap"},
                                                    {"metadata", {{"name", name}}},
                                                    {"data", data}}
                                       : core::Json{{"data", data}};
        auto r = testing::call(*m_client,
                               testing::request(method, path, core::toJsonText(body),
                                                create ? "application/json" : "application/merge-patch+json"));
        if (!r)
            return {};
        return core::stringAt(core::parseJson(r->body).valueOr(core::Json()), "/metadata/resourceVersion")
            .value_or(std::string());
    }

    core::Json get(const std::string &name)
    {
        auto r = testing::call(*m_client, testing::request("GET", objectPath(name)));
        return r ? core::parseJson(r->body).valueOr(core::Json()) : core::Json();
    }

    // Selects `name` in the table once the table has its version `latest` (the editor plans
    // against the object as the table has it), shows its History tab and selects the version `rv`.
    static bool selectVersion(Session &s, const QString &name, const QString &rv, const std::string &latest)
    {
        if (!QTest::qWaitFor(
                [&] {
                    return s.controller.isLoaded()
                        && s.view->tablePage()->selectName(QString::fromLatin1(kNamespace), name);
                },
                30000))
            return false;
        widgets::DetailPane *detail = s.view->detailPane();
        if (!QTest::qWaitFor(
                [&] {
                    s.view->tablePage()->selectName(QString::fromLatin1(kNamespace), name);
                    return detail->isReady() && detail->detail().name == name
                        && detail->detail().resourceVersion == QString::fromStdString(latest);
                },
                15000))
            return false;
        detail->setCurrentTab(widgets::DetailPane::HistoryTab);
        auto *table = detail->findChild<QTableView *>(QStringLiteral("historyTable"));
        int row = -1;
        if (!QTest::qWaitFor(
                [&] {
                    for (int r = 0; r < table->model()->rowCount(); ++r)
                        if (table->model()->index(r, 0).data(models::ObjectHistoryModel::ResourceVersionRole) == rv)
                            row = r;
                    return row >= 0;
                },
                15000))
            return false;
        table->selectRow(row);
        return true;
    }

    static EditorWindow *clickAndWaitForProposal(Session &s, const char *button, const char *note)
    {
        auto *a = s.view->detailPane()->findChild<QAction *>(QLatin1String(button));
        if (!a || !QTest::qWaitFor([&] { return a->isEnabled(); }, 5000))
            return nullptr;
        a->trigger(); // the History tab's Revert menu
        EditorWindow *editor = nullptr;
        if (!QTest::qWaitFor(
                [&] {
                    editor = s.controller.editor(s.view->detailPane()->uid());
                    return editor && editor->state() == EditorWindow::State::Editing
                        && editor->resultText().contains(QLatin1String(note));
                },
                15000))
            return nullptr;
        return editor;
    }

    static widgets::WriteMode modeOf(EditorWindow *editor)
    {
        return widgets::WriteMode(editor->findChild<QComboBox *>(QStringLiteral("writeMode"))->currentData().toInt());
    }

private Q_SLOTS:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QSettings().remove(QStringLiteral("columns"));
        m_connection = std::make_unique<kube::Connection>(testing::connectTo(testing::ctxToken()));
        m_client = std::make_unique<kube::ApiClient>(m_connection->transport);
        (void)testing::call(*m_client, testing::request("POST", "/api/v1/namespaces",
                                                        core::toJsonText({{"metadata", {{"name", kNamespace}}}})));
        for (const char *name : {"revert-me", "revert-stale", "undo-me", "undo-again"})
            (void)testing::call(*m_client, testing::request("DELETE", objectPath(name)));
    }

    void revertToAnOlderVersionProposesATestedJsonPatchAndWritesOnlyOnWrite()
    {
        Session s;
        QVERIFY(QTest::qWaitFor([&] { return s.controller.isLoaded(); }, 30000));
        // Created and changed while the window records, so both versions are in its history.
        const std::string blue = write("POST", "revert-me", "gitops", {{"color", "blue"}, {"size", "small"}});
        QVERIFY(!blue.empty());
        const std::string red = write("PATCH", "revert-me", "kubectl-edit", {{"color", "red"}, {"extra", "1"}});
        QVERIFY(!red.empty());
        QVERIFY(selectVersion(s, QStringLiteral("revert-me"), QString::fromStdString(blue), red));
        EditorWindow *editor = clickAndWaitForProposal(s, "revertToVersion", "Reverting to resourceVersion");
        QVERIFY(editor);
        QVERIFY2(editor->bufferText().contains(QLatin1String("color: blue")), qPrintable(editor->bufferText()));
        QVERIFY(!editor->bufferText().contains(QLatin1String("extra:"))); // added after the version: removed
        QCOMPARE(modeOf(editor), widgets::WriteMode::JsonPatch);
        QVERIFY(editor->hasUnsentEdits());
        QCOMPARE(get("revert-me")["data"]["color"].get<std::string>(), std::string("red")); // nothing sent yet
        QVERIFY(testing::saveShot(editor, QStringLiteral("revert-preview.png")));
        QTest::mouseClick(editor->findChild<QPushButton *>(QStringLiteral("writeButton")), Qt::LeftButton);
        QTRY_COMPARE_WITH_TIMEOUT(editor->state(), EditorWindow::State::Written, 15000);
        const core::Json live = get("revert-me");
        QCOMPARE(live["data"]["color"].get<std::string>(), std::string("blue"));
        QVERIFY(!live["data"].contains("extra"));
        QCOMPARE(live["data"]["size"].get<std::string>(), std::string("small"));
    }

    void aRevertWhoseFieldChangedAfterTheEditorReadItIsRefusedWithTheThreeWayView()
    {
        Session s;
        QVERIFY(QTest::qWaitFor([&] { return s.controller.isLoaded(); }, 30000));
        const std::string blue = write("POST", "revert-stale", "gitops", {{"color", "blue"}});
        QVERIFY(!blue.empty());
        const std::string red = write("PATCH", "revert-stale", "kubectl-edit", {{"color", "red"}});
        QVERIFY(!red.empty());
        QVERIFY(selectVersion(s, QStringLiteral("revert-stale"), QString::fromStdString(blue), red));
        EditorWindow *editor = clickAndWaitForProposal(s, "revertToVersion", "Reverting to resourceVersion");
        QVERIFY(editor);
        // Someone sets the field again after the revert was prepared against "red".
        QVERIFY(!write("PATCH", "revert-stale", "someone-else", {{"color", "green"}}).empty());
        QTest::mouseClick(editor->findChild<QPushButton *>(QStringLiteral("writeButton")), Qt::LeftButton);
        QTRY_COMPARE_WITH_TIMEOUT(editor->state(), EditorWindow::State::Stale, 15000);
        QCOMPARE(get("revert-stale")["data"]["color"].get<std::string>(), std::string("green")); // kept
        QVERIFY2(editor->resultText().contains(QLatin1String("color")), qPrintable(editor->resultText()));
    }

    void undoThisChangePutsBackOnlyWhatThatVersionChanged()
    {
        Session s;
        QVERIFY(QTest::qWaitFor([&] { return s.controller.isLoaded(); }, 30000));
        QVERIFY(!write("POST", "undo-me", "gitops", {{"color", "blue"}, {"size", "small"}}).empty());
        const std::string red = write("PATCH", "undo-me", "kubectl-edit", {{"color", "red"}});
        QVERIFY(!red.empty());
        const std::string large = write("PATCH", "undo-me", "resizer", {{"size", "large"}});
        QVERIFY(!large.empty());
        QVERIFY(selectVersion(s, QStringLiteral("undo-me"), QString::fromStdString(red), large));
        EditorWindow *editor = clickAndWaitForProposal(s, "undoChange", "Undoing the change of resourceVersion");
        QVERIFY(editor);
        QVERIFY2(editor->bufferText().contains(QLatin1String("color: blue")), qPrintable(editor->bufferText()));
        QVERIFY(editor->bufferText().contains(QLatin1String("size: large"))); // a later change stays
        QCOMPARE(modeOf(editor), widgets::WriteMode::JsonPatch);
    }

    void undoingAChangeWhoseFieldChangedAgainIsRefusedNamingTheField()
    {
        Session s;
        QVERIFY(QTest::qWaitFor([&] { return s.controller.isLoaded(); }, 30000));
        QVERIFY(!write("POST", "undo-again", "gitops", {{"color", "blue"}}).empty());
        const std::string red = write("PATCH", "undo-again", "kubectl-edit", {{"color", "red"}});
        QVERIFY(!red.empty());
        const std::string green = write("PATCH", "undo-again", "dave", {{"color", "green"}}); // dave's, since
        QVERIFY(!green.empty());
        QVERIFY(selectVersion(s, QStringLiteral("undo-again"), QString::fromStdString(red), green));
        auto *undo = s.view->detailPane()->findChild<QAction *>(QStringLiteral("undoChange"));
        QVERIFY(undo);
        QVERIFY(QTest::qWaitFor([&] { return undo->isEnabled(); }, 5000));
        undo->trigger();
        EditorWindow *editor = nullptr;
        QVERIFY(QTest::qWaitFor(
            [&] {
                editor = s.controller.editor(s.view->detailPane()->uid());
                return editor && editor->state() == EditorWindow::State::Failed;
            },
            15000));
        QVERIFY2(editor->resultText().contains(QLatin1String(".data.color")), qPrintable(editor->resultText()));
        QVERIFY2(editor->resultText().contains(QLatin1String("dave")), qPrintable(editor->resultText()));
        QVERIFY(!editor->hasUnsentEdits()); // nothing proposed: dave's green is not thrown away
        QCOMPARE(get("undo-again")["data"]["color"].get<std::string>(), std::string("green"));
    }
};

QTEST_MAIN(TestHistoryRevert)
#include "tst_historyrevert.moc"
