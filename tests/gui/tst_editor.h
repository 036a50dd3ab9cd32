#pragma once
// The fixture of the object editor's GUI tests, one executable (tst_editor.cpp, then
// tst_editor_actions.cpp): helpers, and the test class with its set-up against the test cluster.
#include "app/gui/clustercontroller.h"
#include "app/services/settings.h"
#include "clusterenv.h"
#include "core/base/json.h"
#include "core/edit/drafts.h"
#include "core/yaml/yaml.h"
#include "guitesting.h"
#include "widgets/clusterview.h"
#include "widgets/detailpane.h"
#include "widgets/editorwindow.h"
#include "widgets/mainwindow.h"
#include "widgets/newobjectwindow.h"
#include "widgets/objecttablepage.h"
#include "widgets/qsci.h"
#include "widgets/settingsdialog.h"

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

namespace fieldscope::editortest {

inline const char *const kNamespace = "gui-editor";

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

inline std::string objectPath(const std::string &name)
{
    return std::string("/api/v1/namespaces/") + kNamespace + "/configmaps/" + name;
}

// Bodies are built with the JSON library (moc and raw string literals do not mix in tests).
inline std::string configMap(const std::string &name, const core::Json &data)
{
    return core::toJsonText({{"apiVersion", "v1"},
                             {"kind", "ConfigMap"},
                             {"metadata", {{"name", name}, {"namespace", kNamespace}}},
                             {"data", data}});
}

inline QString text(const QsciScintilla *pane)
{
    return pane ? pane->text() : QString();
}

// Managers whose managedFields entry owns .data.<key>.
inline std::set<std::string> ownersOf(const core::Json &object, const std::string &key)
{
    std::set<std::string> out;
    for (const auto &entry : object["metadata"]["managedFields"])
        if (entry.contains("fieldsV1") && entry["fieldsV1"].contains("f:data")
            && entry["fieldsV1"]["f:data"].contains("f:" + key))
            out.insert(entry.value("manager", std::string()));
    return out;
}

} // namespace fieldscope::editortest

using namespace fieldscope;
using namespace fieldscope::editortest;
using widgets::EditorWindow;

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
              "del-me",     "del-stale",     "made-new",   "edit-rows",   "edit-merge3", "edit-foo",   "edit-unknown"})
            (void)testing::call(*m_client, testing::request("DELETE", objectPath(name)));
        QVERIFY(applyAs("fieldscope", "edit-ssa", {{"color", "blue"}}));
        QVERIFY(applyAs("fieldscope", "edit-conflict", {{"color", "blue"}, {"size", "small"}}));
        QVERIFY(applyAs("other-tool", "edit-conflict", {{"color", "red"}})); // other-tool owns .data.color
        QVERIFY(applyAs("fieldscope", "edit-stale", {{"color", "blue"}, {"owner", "team-a"}}));
        QVERIFY(applyAs("fieldscope", "edit-bad", {{"color", "blue"}}));
        QVERIFY(applyAs("teacher", "edit-cas", {{"foo", "1"}, {"bar", "x"}}));
        QVERIFY(applyAs("fieldscope", "edit-merge", {{"color", "blue"}, {"size", "small"}}));
        QVERIFY(applyAs("fieldscope", "edit-invalid", {{"color", "blue"}}));
        QVERIFY(applyAs("fieldscope", "edit-unknown", {{"color", "blue"}}));
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
    void anUnknownFieldIsRefusedAndMarkedOnTheLineThatWritesIt();
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
