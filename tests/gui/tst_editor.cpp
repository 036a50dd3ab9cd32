// The object editor on the offscreen platform against the real test cluster: a
// server-side apply of a changed value is written and the detail pane follows; a field another
// manager owns shows up as a conflict row with both values and Force takes it; a replace after
// someone else's change shows opened / written / current; malformed YAML sends nothing; a JSON
// Patch writes a field only while it still has its opened value; a merge patch's dry run stores
// nothing and its write keeps others' changes; the server's 422 causes are shown; unsent edits
// are never lost to a closed window, cluster or application. Saves screenshots of the conflict
// table, the three-way view and the failed precondition.
#include "../integration/clusterenv.h"
#include "app/clustercontroller.h"
#include "core/base/json.h"
#include "core/edit/drafts.h"
#include "core/yaml/yaml.h"
#include "guitesting.h"
#include "widgets/clusterview.h"
#include "widgets/detailpane.h"
#include "widgets/editorwindow.h"
#include "widgets/helpdialogs.h"
#include "widgets/mainwindow.h"
#include "widgets/newobjectwindow.h"
#include "widgets/objecttablepage.h"
#include "widgets/qsci.h"

#include <QAction>
#include <QApplication>
#include <QCheckBox>
#include <QClipboard>
#include <QComboBox>
#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QFileInfo>
#include <QFrame>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QPointer>
#include <QPushButton>
#include <QRegularExpression>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QTextBrowser>
#include <QTimer>

#include <memory>
#include <set>

using namespace fieldscope;
using widgets::EditorWindow;

namespace {

const char *kNamespace = "gui-editor";

using testing::saveShot;

struct Session {
    widgets::MainWindow window;
    widgets::ClusterView *view = window.addCluster(QStringLiteral("test"));
    app::ClusterController controller{view};
    explicit Session(const QString &kubeconfig = testing::testKubeconfig(),
                     const QString &context = QStringLiteral("fieldscope-test"))
    {
        window.resize(1280, 800);
        controller.showResource(QStringLiteral("configmaps"));
        controller.open(kubeconfig, context);
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
    return core::toJsonText({{"apiVersion", "v1"},
                             {"kind", "ConfigMap"},
                             {"metadata", {{"name", name}, {"namespace", kNamespace}}},
                             {"data", data}});
}

QString text(const QsciScintilla *pane)
{
    return pane ? pane->text() : QString();
}

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
        auto r = testing::call(*m_client,
                               testing::request("PATCH", objectPath(name) + "?fieldManager=" + manager + "&force=true",
                                                configMap(name, data), "application/apply-patch+yaml"));
        if (!r)
            qWarning("apply failed: %s", r.error().describe().c_str());
        return bool(r);
    }

    // Drafts and the Secret opt-in are kept per cluster (app::clusterIdentityOf).
    std::string cluster() const { return app::clusterIdentityOf(m_connection->config); }

    core::Json get(const std::string &name)
    {
        auto r = testing::call(*m_client, testing::request("GET", objectPath(name)));
        return r ? core::parseJson(r->body).valueOr(core::Json()) : core::Json();
    }

    // Selects the object and opens its editor with the YAML tab's Edit button; null on failure.
    EditorWindow *openEditor(Session &s, const QString &name) { return openEditor(s.controller, s.view, name); }
    EditorWindow *openEditor(app::ClusterController &controller, widgets::ClusterView *view, const QString &name)
    {
        if (!QTest::qWaitFor(
                [&] {
                    return controller.isLoaded()
                        && view->tablePage()->selectName(QString::fromLatin1(kNamespace), name);
                },
                30000))
            return nullptr;
        widgets::DetailPane *detail = view->detailPane();
        if (!QTest::qWaitFor([&] { return detail->isReady() && detail->detail().name == name; }, 10000))
            return nullptr;
        detail->setCurrentTab(widgets::DetailPane::YamlTab);
        auto *edit = detail->findChild<QPushButton *>(QStringLiteral("editButton"));
        if (!edit || !edit->isEnabled())
            return nullptr;
        QTest::mouseClick(edit, Qt::LeftButton);
        EditorWindow *editor = controller.editor(detail->uid());
        if (!editor || !QTest::qWaitFor([&] { return editor->state() == EditorWindow::State::Editing; }, 10000))
            return nullptr;
        editor->findChild<QLineEdit *>(QStringLiteral("editorFieldManager"))->setText(QStringLiteral("fieldscope"));
        return editor;
    }

    // Clicks Preview in `mode`; the request text shown, or "" when none came.
    static QString preview(EditorWindow *editor, widgets::WriteMode mode)
    {
        auto *combo = editor->findChild<QComboBox *>(QStringLiteral("writeMode"));
        combo->setCurrentIndex(combo->findData(int(mode)));
        auto *messages = editor->findChild<QTextBrowser *>(QStringLiteral("editorMessages"));
        messages->clear();
        QTest::mouseClick(editor->findChild<QPushButton *>(QStringLiteral("previewButton")), Qt::LeftButton);
        if (!QTest::qWaitFor([&] { return !messages->toPlainText().isEmpty(); }, 10000))
            return {};
        return messages->toPlainText();
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
        QSettings().remove(QStringLiteral("columns")); // each kind's column layout from an earlier run
        m_connection = std::make_unique<kube::Connection>(testing::connectTo(testing::ctxToken()));
        m_client = std::make_unique<kube::ApiClient>(m_connection->transport);
        (void)testing::call(*m_client, testing::request("POST", "/api/v1/namespaces",
                                                        core::toJsonText({{"metadata", {{"name", kNamespace}}}})));
        // Fresh objects each run: an earlier run's versions must not satisfy a check.
        for (const char *name :
             {"edit-ssa",   "edit-conflict", "edit-stale", "edit-bad",    "edit-cas",    "edit-merge", "edit-invalid",
              "edit-close", "edit-claim",    "edit-coown", "edit-giveup", "edit-live",   "edit-draft", "edit-copy",
              "del-me",     "del-stale",     "made-new",   "edit-rows",   "edit-merge3", "edit-foo"})
            (void)testing::call(*m_client, testing::request("DELETE", objectPath(name)));
        QVERIFY(applyAs("fieldscope", "edit-ssa", {{"color", "blue"}}));
        QVERIFY(applyAs("fieldscope", "edit-conflict", {{"color", "blue"}, {"size", "small"}}));
        QVERIFY(applyAs("other-tool", "edit-conflict", {{"color", "red"}})); // other-tool owns .data.color
        QVERIFY(applyAs("fieldscope", "edit-stale", {{"color", "blue"}, {"owner", "team-a"}}));
        QVERIFY(applyAs("fieldscope", "edit-bad", {{"color", "blue"}}));
        QVERIFY(applyAs("teacher", "edit-cas", {{"foo", "1"}, {"bar", "x"}}));
        QVERIFY(applyAs("fieldscope", "edit-merge", {{"color", "blue"}, {"size", "small"}}));
        QVERIFY(applyAs("fieldscope", "edit-invalid", {{"color", "blue"}}));
        QVERIFY(applyAs("fieldscope", "edit-close", {{"color", "blue"}}));
        QVERIFY(applyAs("fieldscope", "edit-live", {{"color", "blue"}}));
        QVERIFY(applyAs("fieldscope", "edit-draft", {{"color", "blue"}, {"size", "small"}}));
        QVERIFY(applyAs("fieldscope", "edit-copy", {{"color", "blue"}}));
        QVERIFY(applyAs("fieldscope", "del-me", {{"color", "blue"}}));
        QVERIFY(applyAs("fieldscope", "edit-rows", {{"a", "1"}, {"b", "1"}, {"c", "1"}}));
        QVERIFY(applyAs("other-tool", "edit-rows", {{"a", "2"}, {"b", "2"}, {"c", "2"}}));
        QVERIFY(applyAs("fieldscope", "edit-merge3", {{"a", "1"}, {"b", "1"}, {"c", "1"}}));
        QVERIFY(applyAs("teacher", "edit-foo", {{"foo", "1"}}));
        QVERIFY(applyAs("fieldscope", "del-stale", {{"color", "blue"}}));
        for (const char *name : {"edit-coown", "edit-giveup"}) {
            QVERIFY(applyAs("fieldscope", name, {{"color", "blue"}, {"size", "small"}}));
            QVERIFY(applyAs("other-tool", name, {{"color", "red"}}));
        }
        // Created the way `kubectl create` does: an Update entry owns every field.
        QVERIFY(testing::call(*m_client,
                              testing::request("POST",
                                               std::string("/api/v1/namespaces/") + kNamespace
                                                   + "/configmaps?fieldManager=creator",
                                               configMap("edit-claim", {{"color", "blue"}, {"size", "small"}}))));
    }

    // A merge patch by another writer, the way kubectl patch would change one key.
    bool patchAs(const std::string &manager, const std::string &name, const core::Json &data)
    {
        return bool(testing::call(*m_client, testing::request("PATCH", objectPath(name) + "?fieldManager=" + manager,
                                                              core::toJsonText({{"data", data}}),
                                                              "application/merge-patch+json")));
    }

    std::string resourceVersion(const std::string &name)
    {
        return get(name)["metadata"]["resourceVersion"].get<std::string>();
    }

    // Answers the next message box named `name` by clicking its button labelled `button`.
    static void answerBox(const char *name, const QString &button, bool *seen)
    {
        *seen = false;
        auto *poll = new QTimer;
        QObject::connect(poll, &QTimer::timeout, poll, [=] {
            for (QWidget *w : QApplication::topLevelWidgets()) {
                auto *box = qobject_cast<QMessageBox *>(w);
                if (!box || box->objectName() != QLatin1String(name) || !box->isVisible())
                    continue;
                for (QAbstractButton *b : box->buttons())
                    if (b->text() == button) {
                        *seen = true;
                        b->click();
                        poll->deleteLater();
                        return;
                    }
            }
        });
        poll->start(20);
        QTimer::singleShot(10000, poll, &QObject::deleteLater); // never shown: the test's QVERIFY(seen) says so
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
    void jsonPatchWritesOnlyWhileTheChangedFieldStillHasItsOpenedValue();
    void mergePatchDryRunStoresNothingAndTheWriteKeepsOthersChanges();
    void invalidObjectShowsTheServersCausesAndKeepsTheBuffer();
    void closingWithUnsentEditsAsksAndKeepEditingKeepsThem();
    void applyClaimsOnlyTheChangedFieldAndSaysWhatItCannotRemove();
    void coOwnTakesTheLiveValueAndSharesTheField();
    void aChangeOnTheServerWhileEditingIsShownAndRebaseCatchesUp();
    void unsentEditsSurviveACrashAndComeBackOnTheirBaseVersion();
    void givingUpLeavesTheFieldToItsOwnerAndWritesTheRest();
    void closingTheClusterLeavesUnsentEditsInADetachedWindow();
    void aSecretsUnsentEditsStayOffTheDiskUnlessOptedIn();
    void aHistoryThatCannotBeWrittenIsShownInTheWindow();
    void copyAsCurlAndKubectlGiveTheExactWriteWithoutTheToken();
    void withoutWriteRightsTheEditorIsReadOnlyBeforeAnyoneTypes();
    void deleteRemovesOnlyTheVersionTheUserSaw();
    void newObjectCreatesAndNeverOverwritesAnExistingOne();
    void eachConflictingFieldGetsItsOwnResolution();
    void aStaleWriteMergesOntoCurrentAndOverlapsAreChosenOneByOne();
    void setOnlyIfUnchangedFromTheOwnershipTab();
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
    QCOMPARE(editor->bufferText(), editor->openedYaml()); // the buffer shows what was stored
    QVERIFY(editor->bufferText().contains(QLatin1String("color: green")));
    QVERIFY(!editor->hasUnsentEdits());
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
    QVERIFY(saveShot(editor, QStringLiteral("editor-conflict.png")));

    // The dry run first: the ownership preview says whose field a forced write takes.
    editor->findChild<QCheckBox *>(QStringLiteral("forceCheck"))->setChecked(true);
    QTest::mouseClick(editor->findChild<QPushButton *>(QStringLiteral("dryRunButton")), Qt::LeftButton);
    QTRY_COMPARE_WITH_TIMEOUT(editor->state(), EditorWindow::State::Written, 15000);
    const QString preview = editor->findChild<QTextBrowser *>(QStringLiteral("editorMessages"))->toPlainText();
    QVERIFY2(preview.contains(
                 QLatin1String("Ownership if you write this:\nfieldscope takes .data.color from other-tool (Apply)")),
             qPrintable(preview));
    QVERIFY2(preview.contains(QLatin1String("changed .data.color: red -> green")),
             qPrintable(preview));                                                          // the object diff beside it
    QCOMPARE(get("edit-conflict")["data"]["color"].get<std::string>(), std::string("red")); // still nothing written
    QVERIFY(saveShot(editor, QStringLiteral("editor-ownership-preview.png")));
    editor->findChild<QCheckBox *>(QStringLiteral("forceCheck"))->setChecked(false);
    write(editor, widgets::WriteMode::Apply); // back to the conflict, to resolve it with its button
    QTRY_COMPARE_WITH_TIMEOUT(editor->state(), EditorWindow::State::Conflict, 15000);

    QTest::mouseClick(editor->findChild<QPushButton *>(QStringLiteral("forceButton")), Qt::LeftButton);
    QTRY_COMPARE_WITH_TIMEOUT(editor->state(), EditorWindow::State::Written, 15000);
    const core::Json live = get("edit-conflict");
    QCOMPARE(live["data"]["color"].get<std::string>(), std::string("green"));
    bool fieldscopeOwnsColor = false, otherToolOwnsColor = false;
    for (const auto &entry : live["metadata"]["managedFields"]) {
        const bool ownsColor = entry.contains("fieldsV1") && entry["fieldsV1"].contains("f:data")
                            && entry["fieldsV1"]["f:data"].contains("f:color");
        const std::string manager = entry.value("manager", std::string());
        fieldscopeOwnsColor |= ownsColor && manager == "fieldscope"
                            && entry.value("operation", std::string()) == "Apply";
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
    auto patched = testing::call(*m_client,
                                 testing::request("PATCH", objectPath("edit-stale") + "?fieldManager=someone-else",
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
    QVERIFY2(openedText.contains(QLatin1String("color: blue")) && openedText.contains(QLatin1String("owner: team-a")),
             qPrintable(openedText));
    QVERIFY2(writtenText.contains(QLatin1String("color: green"))
                 && writtenText.contains(QLatin1String("owner: team-a")),
             qPrintable(writtenText));
    QVERIFY2(currentText.contains(QLatin1String("color: blue")) && currentText.contains(QLatin1String("owner: team-b")),
             qPrintable(currentText));
    QCOMPARE(get("edit-stale")["data"]["color"].get<std::string>(), std::string("blue")); // nothing written
    QCOMPARE(editor->bufferText(), changed);
    // The changed lines are marked once the worker's diff is in (never on the GUI thread).
    QTRY_VERIFY(editor->findChild<QsciScintilla *>(QStringLiteral("writtenPane"))->markerFindNext(0, ~0u) >= 0);
    QVERIFY(saveShot(editor, QStringLiteral("editor-threeway.png")));

    // Rebase: based on the current version, the buffer untouched; the replace now goes through.
    QTest::mouseClick(editor->findChild<QPushButton *>(QStringLiteral("rebaseButton")), Qt::LeftButton);
    QTRY_VERIFY(editor->openedResourceVersion() != opened);
    QCOMPARE(editor->openedResourceVersion(),
             QString::fromStdString(get("edit-stale")["metadata"]["resourceVersion"].get<std::string>()));
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

// "Set foo=2 only if foo is 1": a change elsewhere in the object does not matter, a
// change to foo itself makes the server refuse the whole patch.
void TestEditor::jsonPatchWritesOnlyWhileTheChangedFieldStillHasItsOpenedValue()
{
    Session s;
    EditorWindow *editor = openEditor(s, QStringLiteral("edit-cas"));
    QVERIFY(editor);
    QVERIFY(patchAs("someone-else", "edit-cas", {{"bar", "y"}})); // after opening, a field we do not touch
    QString changed = replaced(editor, "foo: \"1\"", "foo: \"2\"");
    QVERIFY2(!changed.isEmpty(), qPrintable(editor->bufferText()));
    editor->buffer()->setText(changed);
    // Preview shows the wire request, test before replace, and sends nothing.
    const std::string unsent = resourceVersion("edit-cas");
    QString request = preview(editor, widgets::WriteMode::JsonPatch);
    QVERIFY2(request.startsWith(QLatin1String("PATCH /api/v1/namespaces/gui-editor/configmaps/edit-cas?"))
                 && request.contains(QLatin1String("Content-Type: application/json-patch+json")),
             qPrintable(request));
    const qsizetype test = request.indexOf(QLatin1String("\"op\": \"test\"")),
                    replace = request.indexOf(QLatin1String("\"op\": \"replace\""));
    QVERIFY2(test > 0 && replace > test && request.contains(QLatin1String("\"path\": \"/data/foo\"")),
             qPrintable(request));
    QCOMPARE(resourceVersion("edit-cas"), unsent);
    QVERIFY(saveShot(editor, QStringLiteral("editor-preview.png")));
    write(editor, widgets::WriteMode::JsonPatch);
    QTRY_COMPARE_WITH_TIMEOUT(editor->state(), EditorWindow::State::Written, 15000);
    core::Json live = get("edit-cas");
    QCOMPARE(live["data"]["foo"].get<std::string>(), std::string("2"));
    QCOMPARE(live["data"]["bar"].get<std::string>(), std::string("y")); // the other change stays
    QVERIFY2(editor->bufferText().contains(QLatin1String("bar: \"y\"")),
             qPrintable(editor->bufferText())); // YAML 1.1 would read y as true

    // Now someone changes foo itself; our next compare-and-swap must not go through.
    QVERIFY(patchAs("someone-else", "edit-cas", {{"foo", "3"}}));
    const std::string before = resourceVersion("edit-cas");
    changed = replaced(editor, "foo: \"2\"", "foo: \"4\"");
    QVERIFY2(!changed.isEmpty(), qPrintable(editor->bufferText()));
    editor->buffer()->setText(changed);
    write(editor, widgets::WriteMode::JsonPatch);
    QTRY_COMPARE_WITH_TIMEOUT(editor->state(), EditorWindow::State::Stale, 15000);
    QVERIFY2(editor->resultText().contains(QLatin1String("/data/foo: opened \"2\", now \"3\"")),
             qPrintable(editor->resultText()));
    QCOMPARE(resourceVersion("edit-cas"), before); // nothing written
    QCOMPARE(get("edit-cas")["data"]["foo"].get<std::string>(), std::string("3"));
    const QString currentText = text(editor->findChild<QsciScintilla *>(QStringLiteral("currentPane")));
    QVERIFY2(currentText.contains(QLatin1String("foo: \"3\"")), qPrintable(currentText));
    QCOMPARE(editor->bufferText(), changed);
    QVERIFY(saveShot(editor, QStringLiteral("editor-precondition.png")));
}

void TestEditor::mergePatchDryRunStoresNothingAndTheWriteKeepsOthersChanges()
{
    Session s;
    EditorWindow *editor = openEditor(s, QStringLiteral("edit-merge"));
    QVERIFY(editor);
    QVERIFY(patchAs("someone-else", "edit-merge", {{"size", "large"}}));
    const QString changed = replaced(editor, "color: blue", "color: green");
    QVERIFY(!changed.isEmpty());
    editor->buffer()->setText(changed);
    auto *combo = editor->findChild<QComboBox *>(QStringLiteral("writeMode"));
    combo->setCurrentIndex(combo->findData(int(widgets::WriteMode::MergePatch)));
    const std::string before = resourceVersion("edit-merge");
    QTest::mouseClick(editor->findChild<QPushButton *>(QStringLiteral("dryRunButton")), Qt::LeftButton);
    QTRY_COMPARE_WITH_TIMEOUT(editor->state(), EditorWindow::State::Written, 15000);
    QVERIFY2(editor->resultText().contains(QLatin1String("Dry run passed")), qPrintable(editor->resultText()));
    QCOMPARE(resourceVersion("edit-merge"), before);
    QCOMPARE(get("edit-merge")["data"]["color"].get<std::string>(), std::string("blue"));
    QVERIFY(editor->hasUnsentEdits()); // a dry run writes nothing
    QCOMPARE(editor->bufferText(), changed);

    write(editor, widgets::WriteMode::MergePatch);
    QTRY_COMPARE_WITH_TIMEOUT(editor->state(), EditorWindow::State::Written, 15000);
    const core::Json live = get("edit-merge");
    QCOMPARE(live["data"]["color"].get<std::string>(), std::string("green"));
    QCOMPARE(live["data"]["size"].get<std::string>(), std::string("large"));
    QVERIFY(!editor->hasUnsentEdits());
}

void TestEditor::invalidObjectShowsTheServersCausesAndKeepsTheBuffer()
{
    Session s;
    EditorWindow *editor = openEditor(s, QStringLiteral("edit-invalid"));
    QVERIFY(editor);
    const std::string before = resourceVersion("edit-invalid");
    const QString broken = replaced(editor, "name: edit-invalid",
                                    "name: edit-invalid\n  labels:\n    tier: \"not a valid value!\"");
    QVERIFY2(!broken.isEmpty(), qPrintable(editor->bufferText()));
    editor->buffer()->setText(broken);
    write(editor, widgets::WriteMode::Replace);
    QTRY_COMPARE_WITH_TIMEOUT(editor->state(), EditorWindow::State::Invalid, 15000);
    const QString causes = editor->findChild<QTextBrowser *>(QStringLiteral("editorMessages"))->toPlainText();
    QVERIFY2(causes.contains(QLatin1String("metadata.labels")) && causes.contains(QLatin1String("FieldValueInvalid")),
             qPrintable(causes));
    QCOMPARE(resourceVersion("edit-invalid"), before);
    QCOMPARE(editor->bufferText(), broken);
}

void TestEditor::closingWithUnsentEditsAsksAndKeepEditingKeepsThem()
{
    Session s;
    QPointer<EditorWindow> editor = openEditor(s, QStringLiteral("edit-close"));
    QVERIFY(editor);
    QVERIFY(editor->close()); // nothing changed: closes without asking
    QTRY_VERIFY(!editor);
    editor = openEditor(s, QStringLiteral("edit-close"));
    QVERIFY(editor);
    const QString changed = replaced(editor, "color: blue", "color: green");
    editor->buffer()->setText(changed);
    QVERIFY(editor->hasUnsentEdits());

    bool asked = false;
    answerBox("discardEditsBox", QStringLiteral("Keep editing"), &asked);
    QVERIFY(!editor->close());
    QVERIFY(asked);
    QVERIFY(editor && editor->isVisible());
    QCOMPARE(editor->bufferText(), changed);

    answerBox("quitWithEditsBox", QStringLiteral("Keep editing"), &asked); // quitting asks too
    QVERIFY(!s.window.close());
    QVERIFY(asked);
    QVERIFY(s.window.isVisible());

    answerBox("discardEditsBox", QStringLiteral("Discard edits"), &asked);
    QVERIFY(editor->close());
    QVERIFY(asked);
    QTRY_VERIFY(!editor);
    QCOMPARE(get("edit-close")["data"]["color"].get<std::string>(), std::string("blue"));
}

// An apply from the editor sends what the manager owns plus what the user changed,
// so it does not claim the creator's other fields; a deletion it cannot make is said, not hidden.
void TestEditor::applyClaimsOnlyTheChangedFieldAndSaysWhatItCannotRemove()
{
    Session s;
    EditorWindow *editor = openEditor(s, QStringLiteral("edit-claim"));
    QVERIFY(editor);
    QString changed = replaced(editor, "color: blue", "color: green");
    static const QRegularExpression sizeLine(QStringLiteral("\\n *size: small"));
    changed = changed.remove(sizeLine);
    QVERIFY2(!changed.contains(QLatin1String("size")) && changed.contains(QLatin1String("color: green")),
             qPrintable(changed));
    editor->buffer()->setText(changed);
    // The apply's body holds the changed field only, and the deletion it cannot make is said.
    const QString request = preview(editor, widgets::WriteMode::Apply);
    QVERIFY2(request.contains(QLatin1String("Content-Type: application/apply-patch+yaml"))
                 && request.contains(QLatin1String("\"color\": \"green\""))
                 && request.contains(QLatin1String(".data.size")),
             qPrintable(request));
    const QString body = request.mid(request.indexOf(QLatin1String("\n\n{")));
    QVERIFY2(!body.contains(QLatin1String("\"size\"")), qPrintable(body));
    write(editor, widgets::WriteMode::Apply);
    // The creator's Update entry owns color with another value: one conflict, on color alone.
    QTRY_COMPARE_WITH_TIMEOUT(editor->state(), EditorWindow::State::Conflict, 15000);
    QCOMPARE(editor->conflicts().size(), qsizetype(1));
    QCOMPARE(editor->conflicts().at(0).path, QStringLiteral(".data.color"));
    QTest::mouseClick(editor->findChild<QPushButton *>(QStringLiteral("forceButton")), Qt::LeftButton);
    QTRY_COMPARE_WITH_TIMEOUT(editor->state(), EditorWindow::State::Written, 15000);
    const core::Json live = get("edit-claim");
    QCOMPARE(live["data"]["color"].get<std::string>(), std::string("green"));
    QCOMPARE(live["data"]["size"].get<std::string>(), std::string("small")); // not ours to remove by apply
    core::Json applied;
    for (const auto &entry : live["metadata"]["managedFields"])
        if (entry.value("manager", std::string()) == "fieldscope" && entry.value("operation", std::string()) == "Apply")
            applied = entry["fieldsV1"];
    QCOMPARE(QString::fromStdString(core::toJsonText(applied["f:data"])), QStringLiteral(R"({"f:color":{}})"));
    const QString messages = editor->findChild<QTextBrowser *>(QStringLiteral("editorMessages"))->toPlainText();
    QVERIFY2(messages.contains(QLatin1String(".data.size")) && messages.contains(QLatin1String("cannot remove")),
             qPrintable(messages));
    QVERIFY2(editor->bufferText().contains(QLatin1String("size: small")),
             qPrintable(editor->bufferText())); // shows what is there
}

namespace {
// Managers whose managedFields entry owns .data.<key>.
std::set<std::string> ownersOf(const core::Json &object, const std::string &key)
{
    std::set<std::string> out;
    for (const auto &entry : object["metadata"]["managedFields"])
        if (entry.contains("fieldsV1") && entry["fieldsV1"].contains("f:data")
            && entry["fieldsV1"]["f:data"].contains("f:" + key))
            out.insert(entry.value("manager", std::string()));
    return out;
}
} // namespace

// A conflict on color while changing size too: each resolution is one click and the rest of the
// change is written.
void TestEditor::coOwnTakesTheLiveValueAndSharesTheField()
{
    Session s;
    EditorWindow *editor = openEditor(s, QStringLiteral("edit-coown"));
    QVERIFY(editor);
    const QString changed = replaced(editor, "color: red", "color: green")
                                .replace(QLatin1String("size: small"), QLatin1String("size: medium"));
    editor->buffer()->setText(changed);
    write(editor, widgets::WriteMode::Apply);
    QTRY_COMPARE_WITH_TIMEOUT(editor->state(), EditorWindow::State::Conflict, 15000);
    QTest::mouseClick(editor->findChild<QPushButton *>(QStringLiteral("coOwnButton")), Qt::LeftButton);
    QTRY_COMPARE_WITH_TIMEOUT(editor->state(), EditorWindow::State::Written, 15000);
    const core::Json live = get("edit-coown");
    QCOMPARE(live["data"]["color"].get<std::string>(), std::string("red"));
    QCOMPARE(live["data"]["size"].get<std::string>(), std::string("medium"));
    QCOMPARE(ownersOf(live, "color"), (std::set<std::string>{"fieldscope", "other-tool"}));
}

void TestEditor::givingUpLeavesTheFieldToItsOwnerAndWritesTheRest()
{
    Session s;
    EditorWindow *editor = openEditor(s, QStringLiteral("edit-giveup"));
    QVERIFY(editor);
    const QString changed = replaced(editor, "color: red", "color: green")
                                .replace(QLatin1String("size: small"), QLatin1String("size: medium"));
    editor->buffer()->setText(changed);
    write(editor, widgets::WriteMode::Apply);
    QTRY_COMPARE_WITH_TIMEOUT(editor->state(), EditorWindow::State::Conflict, 15000);
    QTest::mouseClick(editor->findChild<QPushButton *>(QStringLiteral("giveUpButton")), Qt::LeftButton);
    QTRY_COMPARE_WITH_TIMEOUT(editor->state(), EditorWindow::State::Written, 15000);
    const core::Json live = get("edit-giveup");
    QCOMPARE(live["data"]["color"].get<std::string>(), std::string("red"));
    QCOMPARE(live["data"]["size"].get<std::string>(), std::string("medium"));
    QCOMPARE(ownersOf(live, "color"), (std::set<std::string>{"other-tool"}));
    // Giving up is not a deletion the apply failed to make: no such warning.
    const QString messages = editor->findChild<QTextBrowser *>(QStringLiteral("editorMessages"))->toPlainText();
    QVERIFY2(!messages.contains(QLatin1String("cannot remove")), qPrintable(messages));
    QVERIFY2(editor->bufferText().contains(QLatin1String("color: red")), qPrintable(editor->bufferText()));
}

// The watch tells the editor about someone else's write while the user edits; their own write
// does not count as a change; Rebase bases the next write on what is there.
void TestEditor::aChangeOnTheServerWhileEditingIsShownAndRebaseCatchesUp()
{
    Session s;
    EditorWindow *editor = openEditor(s, QStringLiteral("edit-live"));
    QVERIFY(editor);
    const QString changed = replaced(editor, "color: blue", "color: green");
    editor->buffer()->setText(changed);
    write(editor, widgets::WriteMode::Apply);
    QTRY_COMPARE_WITH_TIMEOUT(editor->state(), EditorWindow::State::Written, 15000);
    QTRY_COMPARE_WITH_TIMEOUT(s.view->detailPane()->detail().resourceVersion, editor->openedResourceVersion(),
                              10000);             // the watch caught up
    QVERIFY(!editor->serverChangedBannerShown()); // our own write

    QVERIFY(patchAs("someone-else", "edit-live", {{"size", "large"}}));
    const QString theirs = QString::fromStdString(resourceVersion("edit-live"));
    QTRY_VERIFY_WITH_TIMEOUT(editor->serverChangedBannerShown(), 10000);
    auto *banner = editor->findChild<QFrame *>(QStringLiteral("serverChangedBanner"));
    const QString text = banner->findChild<QLabel *>()->text();
    QVERIFY2(text.contains(theirs) && text.contains(editor->openedResourceVersion()), qPrintable(text));
    QVERIFY(saveShot(editor, QStringLiteral("editor-server-changed.png")));

    QTest::mouseClick(editor->findChild<QPushButton *>(QStringLiteral("bannerRebaseButton")), Qt::LeftButton);
    QTRY_COMPARE_WITH_TIMEOUT(editor->openedResourceVersion(), theirs, 10000);
    QVERIFY(!editor->serverChangedBannerShown());
    QVERIFY2(editor->openedYaml().contains(QLatin1String("size: large")), qPrintable(editor->openedYaml()));
}

// No close event, no quit question: the process ends as in a crash. The edit was kept on disk
// while typed; the next editor of the object offers it back on the version it was made on, so
// a change someone made since shows as such and no write can quietly undo it.
void TestEditor::unsentEditsSurviveACrashAndComeBackOnTheirBaseVersion()
{
    QString changed, openedRv, draftFile;
    {
        Session s;
        EditorWindow *editor = openEditor(s, QStringLiteral("edit-draft"));
        QVERIFY(editor);
        openedRv = editor->openedResourceVersion();
        changed = replaced(editor, "color: blue", "color: green");
        editor->buffer()->setText(changed);
        core::DraftStore store((QStandardPaths::writableLocation(QStandardPaths::AppDataLocation)
                                + QStringLiteral("/drafts"))
                                   .toStdString());
        const std::string uid = s.view->detailPane()->uid().toStdString();
        draftFile = QString::fromStdString(store.pathFor(cluster(), uid));
        QTRY_VERIFY_WITH_TIMEOUT(QFile::exists(draftFile), 5000);
        QTRY_VERIFY_WITH_TIMEOUT(store.load(cluster(), uid).valueOr(std::nullopt).value_or(core::EditDraft{}).text
                                     == changed.toStdString(),
                                 5000);
    } // gone without closeEvent: what a crash leaves
    QVERIFY(QFile::exists(draftFile));
    QVERIFY(patchAs("someone-else", "edit-draft", {{"size", "large"}})); // meanwhile

    Session s;
    EditorWindow *editor = openEditor(s, QStringLiteral("edit-draft"));
    QVERIFY(editor);
    auto *offer = editor->findChild<QFrame *>(QStringLiteral("draftBanner"));
    QTRY_VERIFY_WITH_TIMEOUT(offer->isVisible(), 5000);
    QVERIFY(saveShot(editor, QStringLiteral("editor-draft-offer.png")));
    QTest::mouseClick(editor->findChild<QPushButton *>(QStringLiteral("restoreDraftButton")), Qt::LeftButton);
    QTRY_COMPARE_WITH_TIMEOUT(editor->bufferText(), changed, 5000);
    QCOMPARE(editor->openedResourceVersion(), openedRv);                 // the version the edit was made on
    QTRY_VERIFY_WITH_TIMEOUT(editor->serverChangedBannerShown(), 10000); // and the change since is said
    QVERIFY(editor->hasUnsentEdits());

    // A JSON Patch of the restored edit changes color only; their size stays.
    write(editor, widgets::WriteMode::JsonPatch);
    QTRY_COMPARE_WITH_TIMEOUT(editor->state(), EditorWindow::State::Written, 15000);
    const core::Json live = get("edit-draft");
    QCOMPARE(live["data"]["color"].get<std::string>(), std::string("green"));
    QCOMPARE(live["data"]["size"].get<std::string>(), std::string("large"));
    QTRY_VERIFY_WITH_TIMEOUT(!QFile::exists(draftFile), 5000); // written: nothing left to keep
}

// A cluster's tab closing (its controller gone) must not take the user's text with it.
void TestEditor::closingTheClusterLeavesUnsentEditsInADetachedWindow()
{
    widgets::MainWindow window;
    widgets::ClusterView *view = window.addCluster(QStringLiteral("test"));
    auto controller = std::make_unique<app::ClusterController>(view);
    window.resize(1280, 800);
    controller->showResource(QStringLiteral("configmaps"));
    controller->open(testing::testKubeconfig(), QStringLiteral("fieldscope-test"));
    window.show();
    QPointer<EditorWindow> editor = openEditor(*controller, view, QStringLiteral("edit-close"));
    QVERIFY(editor);
    const QString changed = replaced(editor, "color: blue", "color: purple");
    editor->buffer()->setText(changed);

    controller.reset(); // what closing the tab does
    delete view;
    QVERIFY(editor);
    QCOMPARE(editor->state(), EditorWindow::State::Detached);
    QVERIFY(editor->isVisible());
    QCOMPARE(editor->parentWidget(), &window);
    QCOMPARE(editor->bufferText(), changed);
    QVERIFY2(editor->resultText().contains(QLatin1String("was closed")), qPrintable(editor->resultText()));
    QVERIFY(!editor->findChild<QPushButton *>(QStringLiteral("writeButton"))->isEnabled());
}

// A Secret's buffer holds its values. Without the per-context opt-in the editor says its
// unsent edits are not kept, and none reaches the drafts folder or the settings; with it (the
// window then says Secret values are recorded) the draft is kept as for any object.
void TestEditor::aSecretsUnsentEditsStayOffTheDiskUnlessOptedIn()
{
    const std::string path = std::string("/api/v1/namespaces/") + kNamespace + "/secrets/edit-secret";
    (void)testing::call(*m_client, testing::request("DELETE", path));
    const std::string body = core::toJsonText({{"apiVersion", "v1"},
                                               {"kind", "Secret"},
                                               {"metadata", {{"name", "edit-secret"}, {"namespace", kNamespace}}},
                                               {"data", {{"password", "c2VjcmV0"}}}});
    QVERIFY(testing::call(*m_client,
                          testing::request("POST", std::string("/api/v1/namespaces/") + kNamespace + "/secrets", body))
                .ok());
    const QString drafts = QStandardPaths::writableLocation(QStandardPaths::AppDataLocation)
                         + QStringLiteral("/drafts");
    const QByteArray canary = "editor-canary-9b2e41";
    QDir(drafts).removeRecursively(); // what a failed earlier run left
    auto draftBytes = [&] {
        QByteArray all;
        QDirIterator it(drafts, QDir::Files | QDir::Hidden, QDirIterator::Subdirectories);
        while (it.hasNext()) {
            QFile f(it.next());
            if (f.open(QIODevice::ReadOnly))
                all += f.readAll();
        }
        return all;
    };
    // A damaged draft is kept aside and reported when the editor opens.
    auto secretUid = [&] {
        auto r = testing::call(*m_client, testing::request("GET", path));
        auto j = r ? core::parseJson(r->body) : core::Result<core::Json>(r.error());
        return j && j->is_object() ? (*j)["metadata"]["uid"].get<std::string>() : std::string();
    };
    for (bool optIn : {false, true}) {
        widgets::SettingsDialog::setRecordsSecretValues(QString::fromStdString(cluster()), optIn);
        core::DraftStore store(drafts.toStdString());
        const QString damaged = QString::fromStdString(store.pathFor(cluster(), secretUid()));
        if (optIn) {
            QVERIFY(QDir().mkpath(QFileInfo(damaged).absolutePath()));
            QFile f(damaged);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write(R"({"uid": 42})");
        }
        widgets::MainWindow window;
        widgets::ClusterView *view = window.addCluster(QStringLiteral("test"));
        app::ClusterController controller(view);
        window.resize(1280, 800);
        controller.showResource(QStringLiteral("secrets"));
        controller.open(testing::testKubeconfig(), QStringLiteral("fieldscope-test"));
        window.show();
        EditorWindow *editor = openEditor(controller, view, QStringLiteral("edit-secret"));
        QVERIFY(editor);
        auto *warning = view->findChild<QLabel *>(QStringLiteral("warningLabel"));
        QCOMPARE(warning->text().contains(QLatin1String("Secret values are recorded for this cluster")), optIn);
        QCOMPARE(editor->draftNote().contains(QLatin1String("not kept on disk")), !optIn);
        if (optIn) {
            QTRY_VERIFY_WITH_TIMEOUT(editor->draftProblem().contains(QLatin1String("moved aside")), 5000);
            QTRY_VERIFY2(!QFile::exists(damaged), qPrintable(editor->draftProblem()));
            QVERIFY(!QDir(QFileInfo(damaged).absolutePath())
                         .entryList({QFileInfo(damaged).fileName() + QStringLiteral(".damaged-*")})
                         .isEmpty());
        }
        editor->buffer()->setText(editor->bufferText() + QStringLiteral("# ") + QString::fromLatin1(canary) + u'\n');
        QVERIFY(editor->hasUnsentEdits());
        if (optIn) {
            QTRY_VERIFY_WITH_TIMEOUT(draftBytes().contains(canary), 5000);
            QVERIFY(saveShot(&window, QStringLiteral("secret-values-recorded.png")));
        } else {
            QVERIFY(saveShot(editor, QStringLiteral("editor-secret-no-draft.png")));
            // Absence cannot be waited for: give the 0.8 s debounce and the drafts thread ample time.
            QTest::qWait(2500);
            QVERIFY(!draftBytes().contains(canary));
            QSettings().sync();
            QFile settings(QSettings().fileName());
            QVERIFY(!settings.open(QIODevice::ReadOnly) || !settings.readAll().contains(canary));
        }
        editor->dropDraft(); // the window goes with the controller (detached, then with `window`)
    }
    widgets::SettingsDialog::setRecordsSecretValues(QString::fromStdString(cluster()), false);
}

// A history that cannot be written is said in the window (the status line's warning),
// never a silent hole. Here its database path is taken by a folder.
void TestEditor::aHistoryThatCannotBeWrittenIsShownInTheWindow()
{
    const QString db = app::historyDatabaseFor(QStringLiteral("fieldscope-test"),
                                               app::clusterIdentityOf(m_connection->config));
    QFile::remove(db);
    QVERIFY(QDir().mkpath(db));
    {
        Session s;
        auto *warning = s.view->findChild<QLabel *>(QStringLiteral("warningLabel"));
        QTRY_VERIFY_WITH_TIMEOUT(warning->text().contains(QLatin1String("History recording is failing")), 20000);
        QVERIFY(warning->isVisible());
        // An error, not a described choice: a screenshot of it exits 1 (ClusterView::shownErrors).
        QVERIFY(s.view->shownErrors().join(u' ').contains(QLatin1String("History recording is failing")));
        QVERIFY(testing::saveShotShowingErrors(
            &s.window, QStringLiteral("history-recording-failing.png"))); // the banner is the point
    }
    QVERIFY(QDir(db).removeRecursively());
}

// Copy as curl / kubectl; tst_requestcommands runs such texts against the server.
void TestEditor::copyAsCurlAndKubectlGiveTheExactWriteWithoutTheToken()
{
    Session s;
    EditorWindow *editor = openEditor(s, QStringLiteral("edit-copy"));
    QVERIFY(editor);
    const QString changed = replaced(editor, "color: blue", "color: green");
    QVERIFY(!changed.isEmpty());
    editor->buffer()->setText(changed);
    auto *combo = editor->findChild<QComboBox *>(QStringLiteral("writeMode"));
    auto *messages = editor->findChild<QTextBrowser *>(QStringLiteral("editorMessages"));
    auto copy = [&](widgets::WriteMode mode, const char *action) {
        combo->setCurrentIndex(combo->findData(int(mode)));
        QApplication::clipboard()->clear();
        messages->clear();
        editor->findChild<QAction *>(QLatin1String(action))->trigger();
        return QTest::qWaitFor([&] { return !QApplication::clipboard()->text().isEmpty(); }, 10000)
                 ? QApplication::clipboard()->text()
                 : QString();
    };
    const QString curl = copy(widgets::WriteMode::JsonPatch, "copyAsCurl");
    QVERIFY2(curl.contains(QLatin1String("curl ")) && curl.contains(QLatin1String("-X PATCH")), qPrintable(curl));
    QVERIFY(curl.contains(QLatin1String("application/json-patch+json")));
    QVERIFY(curl.contains(QLatin1String("\"op\":\"test\"")));
    QVERIFY(curl.contains(QLatin1String("$KUBE_TOKEN")));
    QVERIFY(!curl.contains(QString::fromStdString(m_connection->config.auth.token)));
    QVERIFY(messages->toPlainText().contains(QLatin1String("Copied to the clipboard")));
    const QString kubectl = copy(widgets::WriteMode::Apply, "copyAsKubectl");
    QVERIFY2(
        kubectl.startsWith(QLatin1String("kubectl --context 'fieldscope-test' -n 'gui-editor' apply --server-side")),
        qPrintable(kubectl));
    QVERIFY(kubectl.contains(QLatin1String("--field-manager 'fieldscope'")));
    QVERIFY(!kubectl.contains(QLatin1String("--force-conflicts")));
    QCOMPARE(get("edit-copy")["data"]["color"].get<std::string>(), std::string("blue")); // copying sends nothing
    QVERIFY(editor->hasUnsentEdits());
}

// A user who may read but not write (here "reader", impersonated, bound to the "view"
// cluster role) gets a read-only editor: the SelfSubjectAccessReview on open says so.
void TestEditor::withoutWriteRightsTheEditorIsReadOnlyBeforeAnyoneTypes()
{
    const std::string binding = core::toJsonText(
        {{"apiVersion", "rbac.authorization.k8s.io/v1"},
         {"kind", "ClusterRoleBinding"},
         {"metadata", {{"name", "fieldscope-test-reader-views"}}},
         {"subjects",
          core::Json::array({{{"kind", "User"}, {"name", "reader"}, {"apiGroup", "rbac.authorization.k8s.io"}}})},
         {"roleRef", {{"kind", "ClusterRole"}, {"name", "view"}, {"apiGroup", "rbac.authorization.k8s.io"}}}});
    // Cluster-wide: the window lists ConfigMaps in all namespaces.
    auto made = testing::call(*m_client,
                              testing::request("POST", "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings",
                                               binding));
    QVERIFY(made.ok() || made.error().httpStatus == 409);
    // The test kubeconfig plus a context that impersonates "reader" with the admin's token.
    QFile original(testing::testKubeconfig());
    QVERIFY(original.open(QIODevice::ReadOnly));
    auto kc = core::yamlToJson(original.readAll().toStdString());
    QVERIFY(kc.ok());
    core::Json config = kc->value;
    std::string cluster, token;
    for (const auto &c : config["contexts"])
        if (c["name"] == "fieldscope-test")
            cluster = c["context"]["cluster"].get<std::string>();
    for (const auto &u : config["users"])
        if (u["user"].contains("token") && token.empty())
            token = u["user"]["token"].get<std::string>();
    QVERIFY(!cluster.empty() && !token.empty());
    config["users"].push_back({{"name", "reader-user"}, {"user", {{"token", token}, {"as", "reader"}}}});
    config["contexts"].push_back({{"name", "reader"}, {"context", {{"cluster", cluster}, {"user", "reader-user"}}}});
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("kubeconfig"));
    QFile out(path);
    QVERIFY(out.open(QIODevice::WriteOnly));
    out.write(QByteArray::fromStdString(core::toJsonText(config)));
    out.close();
    QFile::setPermissions(path, QFileDevice::ReadOwner | QFileDevice::WriteOwner);

    Session s(path, QStringLiteral("reader"));
    EditorWindow *editor = openEditor(s, QStringLiteral("edit-copy"));
    QVERIFY(editor);
    QTRY_VERIFY_WITH_TIMEOUT(editor->isReadOnly(), 10000);
    QVERIFY2(editor->readOnlyReason().contains(QLatin1String("neither update nor patch")),
             qPrintable(editor->readOnlyReason()));
    QVERIFY(!editor->findChild<QPushButton *>(QStringLiteral("writeButton"))->isEnabled());
    QVERIFY(!editor->findChild<QPushButton *>(QStringLiteral("dryRunButton"))->isEnabled());
    QVERIFY(editor->findChild<QPushButton *>(QStringLiteral("previewButton"))->isEnabled());
    QVERIFY(saveShot(editor, QStringLiteral("editor-read-only.png")));
    // The editor of a writer stays writable.
    Session writer;
    EditorWindow *writable = openEditor(writer, QStringLiteral("edit-copy"));
    QVERIFY(writable);
    QTest::qWait(500);
    QVERIFY(!writable->isReadOnly());
}

// Delete sends preconditions (uid, resourceVersion) from what the table shows.
void TestEditor::deleteRemovesOnlyTheVersionTheUserSaw()
{
    Session s;
    QVERIFY(QTest::qWaitFor(
        [&] {
            return s.controller.isLoaded()
                && s.view->tablePage()->selectName(QString::fromLatin1(kNamespace), QStringLiteral("del-me"));
        },
        30000));
    QTRY_VERIFY_WITH_TIMEOUT(s.view->detailPane()->isReady(), 10000);
    QSignalSpy done(&s.controller, &app::ClusterController::deleteFinished);
    s.controller.deleteObject(s.view->detailPane()->uid(), false);
    QVERIFY(done.wait(15000));
    QCOMPARE(done.at(0).at(0).toBool(), true);
    QTRY_VERIFY_WITH_TIMEOUT(get("del-me").is_null(), 10000);

    // The table's view of del-stale is frozen (its watch stopped); someone changes it meanwhile.
    QVERIFY(s.view->tablePage()->selectName(QString::fromLatin1(kNamespace), QStringLiteral("del-stale")));
    QTRY_VERIFY_WITH_TIMEOUT(s.view->detailPane()->isReady()
                                 && s.view->detailPane()->detail().name == QStringLiteral("del-stale"),
                             10000);
    const QString uid = s.view->detailPane()->uid();
    s.controller.watcher()->stop();
    QVERIFY(patchAs("someone-else", "del-stale", {{"color", "red"}}));
    done.clear();
    s.controller.deleteObject(uid, false);
    QVERIFY(done.wait(15000));
    QCOMPARE(done.at(0).at(0).toBool(), false);
    QVERIFY2(done.at(0).at(1).toString().contains(QLatin1String("changed since you saw it")),
             qPrintable(done.at(0).at(1).toString()));
    QCOMPARE(get("del-stale")["data"]["color"].get<std::string>(), std::string("red")); // still there
}

// File → New Object… has create semantics: an existing object is reported, not overwritten.
void TestEditor::newObjectCreatesAndNeverOverwritesAnExistingOne()
{
    Session s;
    QTRY_VERIFY_WITH_TIMEOUT(s.controller.isLoaded(), 30000);
    widgets::NewObjectWindow *w = s.controller.openNewObject();
    QVERIFY(w);
    auto run = [&](const QString &yaml, const char *button) {
        w->setText(yaml);
        const QString before = w->resultsText();
        QTest::mouseClick(w->findChild<QPushButton *>(QLatin1String(button)), Qt::LeftButton);
        return QTest::qWaitFor([&] { return w->resultsText() != before && !w->resultsText().isEmpty(); }, 15000)
                 ? w->resultsText()
                 : QString();
    };
    const QString two = QStringLiteral(
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: made-new, namespace: gui-editor}\ndata: {a: \"1\"}\n---\n"
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: edit-copy, namespace: gui-editor}\ndata: {color: overwritten}\n");
    const QString dry = run(two, "newObjectDryRun");
    QVERIFY2(dry.contains(QLatin1String("ConfigMap gui-editor/made-new: would be created (dry run)")), qPrintable(dry));
    QVERIFY(get("made-new").is_null());
    const QString made = run(two + QStringLiteral(" "), "newObjectCreate");
    QVERIFY2(made.contains(QLatin1String("ConfigMap gui-editor/made-new: created")), qPrintable(made));
    QVERIFY(made.contains(QLatin1String("ConfigMap gui-editor/edit-copy: exists already; left as it is")));
    QCOMPARE(get("made-new")["data"]["a"].get<std::string>(), std::string("1"));
    QCOMPARE(get("edit-copy")["data"]["color"].get<std::string>(), std::string("blue"));
    QCOMPARE(w->text(), two + QStringLiteral(" ")); // the buffer is kept
    const QString bad = run(QStringLiteral("kind: [\n"), "newObjectCreate");
    QVERIFY2(bad.startsWith(QLatin1String("Nothing was sent")), qPrintable(bad));
    QVERIFY(saveShot(w, QStringLiteral("new-object.png")));
    w->close();
}

// Field by field. Give up a, co-own b, force c, in one re-send; Force is never preselected.
void TestEditor::eachConflictingFieldGetsItsOwnResolution()
{
    Session s;
    EditorWindow *editor = openEditor(s, QStringLiteral("edit-rows"));
    QVERIFY(editor);
    QString text = editor->bufferText();
    for (const char *k : {"a", "b", "c"})
        text.replace(QStringLiteral("  %1: \"2\"").arg(QLatin1String(k)),
                     QStringLiteral("  %1: \"3\"").arg(QLatin1String(k)));
    QVERIFY2(text.count(QLatin1String(": \"3\"")) == 3, qPrintable(text));
    editor->buffer()->setText(text);
    write(editor, widgets::WriteMode::Apply);
    QTRY_COMPARE_WITH_TIMEOUT(editor->state(), EditorWindow::State::Conflict, 15000);
    QCOMPARE(editor->conflicts().size(), qsizetype(3));
    auto *send = editor->findChild<QPushButton *>(QStringLiteral("sendChoicesButton"));
    QVERIFY(!send->isEnabled()); // nothing chosen yet, and nothing chosen for the user
    const auto rows = editor->conflicts();
    for (int i = 0; i < 3; ++i) {
        auto *choice = editor->findChild<QComboBox *>(QStringLiteral("resolution%1").arg(i));
        QVERIFY(choice);
        QCOMPARE(choice->currentData().toInt(), 0);
        const QString path = rows[i].path;
        const int pick = path == QStringLiteral(".data.a") ? 2 : path == QStringLiteral(".data.b") ? 3 : 1;
        choice->setCurrentIndex(choice->findData(pick));
    }
    QVERIFY(send->isEnabled());
    QVERIFY(saveShot(editor, QStringLiteral("editor-conflict-per-row.png")));
    QTest::mouseClick(send, Qt::LeftButton);
    QTRY_COMPARE_WITH_TIMEOUT(editor->state(), EditorWindow::State::Written, 15000);
    const core::Json live = get("edit-rows");
    QCOMPARE(live["data"]["a"].get<std::string>(), std::string("2")); // given up: theirs stays
    QCOMPARE(live["data"]["b"].get<std::string>(), std::string("2")); // co-owned at the live value
    QCOMPARE(live["data"]["c"].get<std::string>(), std::string("3")); // forced: yours
    std::map<std::string, std::set<std::string>> owners;
    for (const auto &entry : live["metadata"]["managedFields"])
        if (entry.contains("fieldsV1") && entry["fieldsV1"].contains("f:data"))
            for (const char *k : {"a", "b", "c"})
                if (entry["fieldsV1"]["f:data"].contains(std::string("f:") + k))
                    owners[k].insert(entry["manager"].get<std::string>());
    QCOMPARE(owners["a"], (std::set<std::string>{"other-tool"}));
    QCOMPARE(owners["b"], (std::set<std::string>{"fieldscope", "other-tool"}));
    QCOMPARE(owners["c"], (std::set<std::string>{"fieldscope"}));
}

// A stale replace merged: what does not overlap merges by itself (mine on top of theirs),
// a field both changed is chosen; the result is shown in the buffer before it is sent.
void TestEditor::aStaleWriteMergesOntoCurrentAndOverlapsAreChosenOneByOne()
{
    Session s;
    EditorWindow *editor = openEditor(s, QStringLiteral("edit-merge3"));
    QVERIFY(editor);
    QString text = editor->bufferText();
    text.replace(QStringLiteral("a: \"1\""), QStringLiteral("a: \"2\""))
        .replace(QStringLiteral("c: \"1\""), QStringLiteral("c: \"5\""));
    editor->buffer()->setText(text);
    QVERIFY(patchAs("someone-else", "edit-merge3", {{"b", "9"}, {"c", "7"}}));
    write(editor, widgets::WriteMode::Replace);
    QTRY_COMPARE_WITH_TIMEOUT(editor->state(), EditorWindow::State::Stale, 15000);
    QTest::mouseClick(editor->findChild<QPushButton *>(QStringLiteral("mergeButton")), Qt::LeftButton);
    auto *table = editor->findChild<QTableWidget *>(QStringLiteral("mergeTable"));
    QTRY_COMPARE_WITH_TIMEOUT(table->rowCount(), 1, 10000);
    QCOMPARE(table->item(0, 0)->text(), QStringLiteral("/data/c"));
    QCOMPARE(table->item(0, 2)->text(), QStringLiteral("\"5\""));
    QCOMPARE(table->item(0, 3)->text(), QStringLiteral("\"7\""));
    auto *use = editor->findChild<QPushButton *>(QStringLiteral("useMergeButton"));
    QVERIFY(!use->isEnabled());
    auto *choice = editor->findChild<QComboBox *>(QStringLiteral("mergeChoice0"));
    choice->setCurrentIndex(choice->findData(1)); // mine
    QVERIFY(saveShot(editor, QStringLiteral("editor-merge.png")));
    QTest::mouseClick(use, Qt::LeftButton);
    QTRY_COMPARE_WITH_TIMEOUT(editor->state(), EditorWindow::State::Editing, 10000);
    const QString merged = editor->bufferText();
    QVERIFY2(merged.contains(QLatin1String("a: \"2\"")) && merged.contains(QLatin1String("b: \"9\""))
                 && merged.contains(QLatin1String("c: \"5\"")),
             qPrintable(merged));
    QCOMPARE(get("edit-merge3")["data"]["a"].get<std::string>(), std::string("1")); // shown, not sent
    write(editor, widgets::WriteMode::Replace);                                     // now based on the current version
    QTRY_COMPARE_WITH_TIMEOUT(editor->state(), EditorWindow::State::Written, 15000);
    const core::Json live = get("edit-merge3");
    QCOMPARE(live["data"]["a"].get<std::string>(), std::string("2"));
    QCOMPARE(live["data"]["b"].get<std::string>(), std::string("9"));
    QCOMPARE(live["data"]["c"].get<std::string>(), std::string("5"));
}

// "Set foo: 2 only if foo is 1", from the Ownership tab.
void TestEditor::setOnlyIfUnchangedFromTheOwnershipTab()
{
    Session s;
    QVERIFY(QTest::qWaitFor(
        [&] {
            return s.controller.isLoaded()
                && s.view->tablePage()->selectName(QString::fromLatin1(kNamespace), QStringLiteral("edit-foo"));
        },
        30000));
    QTRY_VERIFY_WITH_TIMEOUT(s.view->detailPane()->isReady()
                                 && s.view->detailPane()->detail().name == QStringLiteral("edit-foo"),
                             10000);
    QSignalSpy asked(s.view->detailPane(), &widgets::DetailPane::setIfUnchangedRequested);
    s.view->detailPane()->requestSetIfUnchanged(QStringLiteral("/data/foo"));
    QCOMPARE(asked.size(), 1);
    QCOMPARE(asked.at(0).at(2).toString(), QStringLiteral("\"1\"")); // the value as JSON: "1" is a string
    const QString uid = s.view->detailPane()->uid();
    QSignalSpy done(&s.controller, &app::ClusterController::setIfUnchangedFinished);
    s.controller.setIfUnchanged(uid, QStringLiteral("/data/foo"), core::Json("1"), core::Json("2"));
    QVERIFY(done.wait(15000));
    QCOMPARE(done.at(0).at(0).toBool(), true);
    QCOMPARE(get("edit-foo")["data"]["foo"].get<std::string>(), std::string("2"));
    // Again "only if foo is 1": it is 2 now, so the server refuses and nothing changes.
    done.clear();
    s.controller.setIfUnchanged(uid, QStringLiteral("/data/foo"), core::Json("1"), core::Json("3"));
    QVERIFY(done.wait(15000));
    QCOMPARE(done.at(0).at(0).toBool(), false);
    QVERIFY2(done.at(0).at(1).toString().contains(QLatin1String("is no longer \"1\"")),
             qPrintable(done.at(0).at(1).toString()));
    QCOMPARE(get("edit-foo")["data"]["foo"].get<std::string>(), std::string("2"));
}

QTEST_MAIN(TestEditor)
#include "tst_editor.moc"
