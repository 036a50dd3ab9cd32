// The object editor on the offscreen platform against the real test cluster: a
// server-side apply of a changed value is written and the detail pane follows; a field another
// manager owns shows up as a conflict row with both values and Force takes it; a replace after
// someone else's change shows opened / written / current; malformed YAML sends nothing; a JSON
// Patch writes a field only while it still has its opened value; a merge patch's dry run stores
// nothing and its write keeps others' changes; the server's 422 causes are shown; unsent edits
// are never lost to a closed window, cluster or application. Saves screenshots of the conflict
// table, the three-way view and the failed precondition. The fixture is in tst_editor.h, more
// tests in tst_editor_actions.cpp.
#include "tst_editor.h"

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
    // The cause names metadata.labels: its note stands under the line that writes the labels.
    const int labels = int(QStringView(broken).left(broken.indexOf(QLatin1String("  labels:"))).count(u'\n')) + 1;
    QTRY_VERIFY2_WITH_TIMEOUT(editor->lineNote(labels).contains(QLatin1String("metadata.labels")),
                              qPrintable(editor->lineNote(labels)), 5000);
}

void TestEditor::anUnknownFieldIsRefusedAndMarkedOnTheLineThatWritesIt()
{
    Session s;
    EditorWindow *editor = openEditor(s, QStringLiteral("edit-unknown"));
    QVERIFY(editor);
    const std::string before = resourceVersion("edit-unknown");
    // A field ConfigMaps do not have: the server's Strict validation (the editor's default)
    // refuses the whole write instead of dropping the field and writing the rest.
    const QString topLevel = editor->bufferText() + QStringLiteral("colour: green\n");
    editor->buffer()->setText(topLevel);
    write(editor, widgets::WriteMode::Replace);
    // Typed while the write is on its way: the note follows the field to where it is now.
    const QString typed = QStringLiteral("# typed while it was sent\n") + topLevel;
    editor->buffer()->setText(typed);
    QTRY_VERIFY_WITH_TIMEOUT(editor->state() == EditorWindow::State::Failed, 15000);
    QVERIFY2(editor->resultText().contains(QLatin1String("unknown field")), qPrintable(editor->resultText()));
    const int line = int(typed.count(u'\n')); // the last line
    QTRY_VERIFY2_WITH_TIMEOUT(editor->lineNote(line).contains(QLatin1String("unknown field \"colour\"")),
                              qPrintable(editor->lineNote(line) + QStringLiteral(" / ") + editor->bufferText()), 5000);
    QVERIFY(editor->lineNote(line - 1).isEmpty());
    QCOMPARE(resourceVersion("edit-unknown"), before);
    QVERIFY(saveShot(editor, QStringLiteral("editor-unknown-field.png")));
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
        app::Settings::setRecordsSecretValues(QString::fromStdString(cluster()), optIn);
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
    app::Settings::setRecordsSecretValues(QString::fromStdString(cluster()), false);
}

// The rest of the tests are in tst_editor_actions.cpp.
QTEST_MAIN(TestEditor)
