// The object editor (issue 6) on the offscreen platform against the real test cluster: a
// server-side apply of a changed value is written and the detail pane follows; a field another
// manager owns shows up as a conflict row with both values and Force takes it; a replace after
// someone else's change shows opened / written / current; malformed YAML sends nothing. Saves
// screenshots of the conflict table and the three-way view.
#include "guitesting.h"
#include "../integration/clusterenv.h"
#include "app/clustercontroller.h"
#include "core/json.h"
#include "widgets/clusterview.h"
#include "widgets/detailpane.h"
#include "widgets/editorwindow.h"
#include "widgets/mainwindow.h"
#include "widgets/objecttablepage.h"
#include "widgets/qsci.h"

#include <QComboBox>
#include <QDir>
#include <QLineEdit>
#include <QPushButton>
#include <QStandardPaths>
#include <QTest>

#include <memory>

using namespace fieldscope;
using widgets::EditorWindow;

namespace {

const char *kNamespace = "gui-editor";

using testing::shotPath;

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

std::string objectPath(const std::string &name)
{
    return std::string("/api/v1/namespaces/") + kNamespace + "/configmaps/" + name;
}

// Bodies are built with the JSON library (moc and raw string literals do not mix in tests).
std::string configMap(const std::string &name, const core::Json &data)
{
    return core::toJsonText({{"apiVersion", "v1"}, {"kind", "ConfigMap"},
                             {"metadata", {{"name", name}, {"namespace", kNamespace}}}, {"data", data}});
}

QString text(const QsciScintilla *pane) { return pane ? pane->text() : QString(); }

} // namespace

class TestEditor : public QObject
{
    Q_OBJECT
private:
    std::unique_ptr<kube::Connection> m_connection;
    std::unique_ptr<kube::ApiClient> m_client;

    // A server-side apply by `manager` (force: it takes what it names), as another tool would.
    bool applyAs(const std::string &manager, const std::string &name, const core::Json &data)
    {
        auto r = testing::call(*m_client, testing::request("PATCH", objectPath(name) + "?fieldManager=" + manager + "&force=true",
                                                           configMap(name, data), "application/apply-patch+yaml"));
        if (!r)
            qWarning("apply failed: %s", r.error().describe().c_str());
        return bool(r);
    }

    core::Json get(const std::string &name)
    {
        auto r = testing::call(*m_client, testing::request("GET", objectPath(name)));
        return r ? core::parseJson(r->body).valueOr(core::Json()) : core::Json();
    }

    // Selects the object and opens its editor with the YAML tab's Edit button; null on failure.
    EditorWindow *openEditor(Session &s, const QString &name)
    {
        if (!QTest::qWaitFor([&] { return s.controller.isLoaded() && s.view->tablePage()->selectName(QString::fromLatin1(kNamespace), name); }, 30000))
            return nullptr;
        widgets::DetailPane *detail = s.view->detailPane();
        if (!QTest::qWaitFor([&] { return detail->isReady() && detail->detail().name == name; }, 10000))
            return nullptr;
        detail->setCurrentTab(widgets::DetailPane::YamlTab);
        auto *edit = detail->findChild<QPushButton *>(QStringLiteral("editButton"));
        if (!edit || !edit->isEnabled())
            return nullptr;
        QTest::mouseClick(edit, Qt::LeftButton);
        EditorWindow *editor = s.controller.editor(detail->uid());
        if (!editor || !QTest::qWaitFor([&] { return editor->state() == EditorWindow::State::Editing; }, 10000))
            return nullptr;
        editor->findChild<QLineEdit *>(QStringLiteral("editorFieldManager"))->setText(QStringLiteral("fieldscope"));
        return editor;
    }

    static void write(EditorWindow *editor, widgets::WriteMode mode)
    {
        auto *combo = editor->findChild<QComboBox *>(QStringLiteral("writeMode"));
        combo->setCurrentIndex(combo->findData(int(mode)));
        QTest::mouseClick(editor->findChild<QPushButton *>(QStringLiteral("writeButton")), Qt::LeftButton);
    }

    // The buffer with one line replaced (fails the test's comparison if the line is not there).
    static QString replaced(EditorWindow *editor, const char *from, const char *to)
    {
        QString t = editor->bufferText();
        if (!t.contains(QLatin1String(from)))
            return {};
        return t.replace(QLatin1String(from), QLatin1String(to));
    }

private Q_SLOTS:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        m_connection = std::make_unique<kube::Connection>(testing::connectTo(testing::ctxToken()));
        m_client = std::make_unique<kube::ApiClient>(m_connection->transport);
        (void)testing::call(*m_client, testing::request("POST", "/api/v1/namespaces",
                                                        core::toJsonText({{"metadata", {{"name", kNamespace}}}})));
        // Fresh objects each run: an earlier run's versions must not satisfy a check.
        for (const char *name : {"edit-ssa", "edit-conflict", "edit-stale", "edit-bad"})
            (void)testing::call(*m_client, testing::request("DELETE", objectPath(name)));
        QVERIFY(applyAs("fieldscope", "edit-ssa", {{"color", "blue"}}));
        QVERIFY(applyAs("fieldscope", "edit-conflict", {{"color", "blue"}, {"size", "small"}}));
        QVERIFY(applyAs("other-tool", "edit-conflict", {{"color", "red"}})); // other-tool owns .data.color
        QVERIFY(applyAs("fieldscope", "edit-stale", {{"color", "blue"}, {"owner", "team-a"}}));
        QVERIFY(applyAs("fieldscope", "edit-bad", {{"color", "blue"}}));
    }

    void cleanupTestCase()
    {
        m_client.reset();
        m_connection.reset();
    }

    void serverSideApplyOfAChangedValueIsWrittenAndTheDetailFollows();
    void conflictRowNamesTheOtherManagerWithBothValuesAndForceTakesTheField();
    void staleReplaceShowsOpenedWrittenAndCurrentAndRebaseWritesOnTop();
    void malformedYamlShowsWhereAndSendsNothing();
};

void TestEditor::serverSideApplyOfAChangedValueIsWrittenAndTheDetailFollows()
{
    Session s;
    EditorWindow *editor = openEditor(s, QStringLiteral("edit-ssa"));
    QVERIFY(editor);
    QVERIFY(!editor->bufferText().contains(QLatin1String("managedFields"))); // the server's, not editable
    QVERIFY(!editor->bufferText().contains(QLatin1String("resourceVersion")));
    const QString changed = replaced(editor, "color: blue", "color: green");
    QVERIFY(!changed.isEmpty());
    editor->buffer()->setText(changed);
    write(editor, widgets::WriteMode::Apply);
    QTRY_COMPARE_WITH_TIMEOUT(editor->state(), EditorWindow::State::Written, 15000);
    const core::Json live = get("edit-ssa");
    QCOMPARE(live["data"]["color"].get<std::string>(), std::string("green"));
    const QString rv = QString::fromStdString(live["metadata"]["resourceVersion"].get<std::string>());
    QVERIFY2(editor->resultText().contains(rv), qPrintable(editor->resultText()));
    QCOMPARE(editor->openedResourceVersion(), rv);
    QCOMPARE(editor->bufferText(), changed); // the buffer stays as written
    // The watch brings the new version to the detail pane.
    QTRY_VERIFY_WITH_TIMEOUT(s.view->detailPane()->detail().yaml.contains(QLatin1String("color: green")), 10000);
    QCOMPARE(s.view->detailPane()->detail().resourceVersion, rv);
}

void TestEditor::conflictRowNamesTheOtherManagerWithBothValuesAndForceTakesTheField()
{
    Session s;
    EditorWindow *editor = openEditor(s, QStringLiteral("edit-conflict"));
    QVERIFY(editor);
    const QString changed = replaced(editor, "color: red", "color: green");
    QVERIFY(!changed.isEmpty());
    editor->buffer()->setText(changed);
    write(editor, widgets::WriteMode::Apply);
    QTRY_COMPARE_WITH_TIMEOUT(editor->state(), EditorWindow::State::Conflict, 15000);
    const auto rows = editor->conflicts();
    QCOMPARE(rows.size(), qsizetype(1));
    QCOMPARE(rows[0].path, QStringLiteral(".data.color"));
    QVERIFY2(rows[0].manager.startsWith(QLatin1String("other-tool")), qPrintable(rows[0].manager));
    QCOMPARE(rows[0].liveValue, QStringLiteral("red"));
    QCOMPARE(rows[0].yourValue, QStringLiteral("green"));
    QCOMPARE(get("edit-conflict")["data"]["color"].get<std::string>(), std::string("red")); // nothing written
    QCOMPARE(editor->bufferText(), changed);
    QVERIFY(editor->grab().save(shotPath(QStringLiteral("editor-conflict.png"))));

    QTest::mouseClick(editor->findChild<QPushButton *>(QStringLiteral("forceButton")), Qt::LeftButton);
    QTRY_COMPARE_WITH_TIMEOUT(editor->state(), EditorWindow::State::Written, 15000);
    const core::Json live = get("edit-conflict");
    QCOMPARE(live["data"]["color"].get<std::string>(), std::string("green"));
    bool fieldscopeOwnsColor = false, otherToolOwnsColor = false;
    for (const auto &entry : live["metadata"]["managedFields"]) {
        const bool ownsColor = entry.contains("fieldsV1") && entry["fieldsV1"].contains("f:data")
                            && entry["fieldsV1"]["f:data"].contains("f:color");
        const std::string manager = entry.value("manager", std::string());
        fieldscopeOwnsColor |= ownsColor && manager == "fieldscope" && entry.value("operation", std::string()) == "Apply";
        otherToolOwnsColor |= ownsColor && manager == "other-tool";
    }
    QVERIFY(fieldscopeOwnsColor);
    QVERIFY(!otherToolOwnsColor);
}

void TestEditor::staleReplaceShowsOpenedWrittenAndCurrentAndRebaseWritesOnTop()
{
    Session s;
    EditorWindow *editor = openEditor(s, QStringLiteral("edit-stale"));
    QVERIFY(editor);
    const QString opened = editor->openedResourceVersion();
    // Someone else changes the object after it was opened.
    auto patched = testing::call(*m_client, testing::request("PATCH", objectPath("edit-stale") + "?fieldManager=someone-else",
                                                             core::toJsonText({{"data", {{"owner", "team-b"}}}}),
                                                             "application/merge-patch+json"));
    QVERIFY(patched);
    const QString changed = replaced(editor, "color: blue", "color: green");
    QVERIFY(!changed.isEmpty());
    editor->buffer()->setText(changed);
    write(editor, widgets::WriteMode::Replace);
    QTRY_COMPARE_WITH_TIMEOUT(editor->state(), EditorWindow::State::Stale, 15000);
    const QString openedText = text(editor->findChild<QsciScintilla *>(QStringLiteral("openedPane")));
    const QString writtenText = text(editor->findChild<QsciScintilla *>(QStringLiteral("writtenPane")));
    const QString currentText = text(editor->findChild<QsciScintilla *>(QStringLiteral("currentPane")));
    QVERIFY2(openedText.contains(QLatin1String("color: blue")) && openedText.contains(QLatin1String("owner: team-a")), qPrintable(openedText));
    QVERIFY2(writtenText.contains(QLatin1String("color: green")) && writtenText.contains(QLatin1String("owner: team-a")), qPrintable(writtenText));
    QVERIFY2(currentText.contains(QLatin1String("color: blue")) && currentText.contains(QLatin1String("owner: team-b")), qPrintable(currentText));
    QCOMPARE(get("edit-stale")["data"]["color"].get<std::string>(), std::string("blue")); // nothing written
    QCOMPARE(editor->bufferText(), changed);
    QVERIFY(editor->grab().save(shotPath(QStringLiteral("editor-threeway.png"))));

    // Rebase: based on the current version, the buffer untouched; the replace now goes through.
    QTest::mouseClick(editor->findChild<QPushButton *>(QStringLiteral("rebaseButton")), Qt::LeftButton);
    QTRY_VERIFY(editor->openedResourceVersion() != opened);
    QCOMPARE(editor->openedResourceVersion(), QString::fromStdString(get("edit-stale")["metadata"]["resourceVersion"].get<std::string>()));
    QCOMPARE(editor->bufferText(), changed);
    write(editor, widgets::WriteMode::Replace);
    QTRY_COMPARE_WITH_TIMEOUT(editor->state(), EditorWindow::State::Written, 15000);
    QCOMPARE(get("edit-stale")["data"]["color"].get<std::string>(), std::string("green"));
}

void TestEditor::malformedYamlShowsWhereAndSendsNothing()
{
    Session s;
    EditorWindow *first = openEditor(s, QStringLiteral("edit-bad"));
    QVERIFY(first);
    // Ctrl+E on the main window brings the same editor back rather than a second one.
    s.window.activateWindow();
    QVERIFY(QTest::qWaitForWindowActive(&s.window));
    QTest::keyClick(&s.window, Qt::Key_E, Qt::ControlModifier);
    QCOMPARE(s.controller.editor(s.view->detailPane()->uid()), first);
    EditorWindow *editor = first;
    const std::string before = get("edit-bad")["metadata"]["resourceVersion"].get<std::string>();
    const QString broken = editor->bufferText() + QStringLiteral("  bad: [1, 2\n");
    editor->buffer()->setText(broken);
    write(editor, widgets::WriteMode::Apply);
    QTRY_COMPARE_WITH_TIMEOUT(editor->state(), EditorWindow::State::ParseError, 10000);
    QVERIFY2(editor->resultText().contains(QLatin1String("line ")), qPrintable(editor->resultText()));
    QCOMPARE(editor->bufferText(), broken);
    QTest::qWait(500); // a request sent by mistake would have landed by now
    QCOMPARE(get("edit-bad")["metadata"]["resourceVersion"].get<std::string>(), before);
}

QTEST_MAIN(TestEditor)
#include "tst_editor.moc"
