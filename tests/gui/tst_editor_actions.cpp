// The object editor's GUI tests, continued (tst_editor.h has the fixture): a history that cannot
// be written is shown; Copy as curl / kubectl give the exact write without the token; without
// write rights the editor is read-only; delete removes only the version the user saw; a new
// object never overwrites an existing one; each conflicting field gets its own resolution; a
// stale write merges onto the current object; "set only if unchanged" from the Ownership tab.
#include "tst_editor.h"

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
    QCOMPARE(table->item(0, 0)->text(), QStringLiteral(".data.c")); // the field as the server names it
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
