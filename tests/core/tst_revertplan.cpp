// Reverts planned against the live object (core/edit/revertplan.h): which fields go back, which
// are left alone, the JSON Patch with its tests, the --expect check and the apply body. The
// objects under tests/data/revert/ were recorded from a real 1.37.2 server: ConfigMap "settings"
// applied by alice (v1), merge-patched by bob (v2: color blue, extra, label tier), carol (v3: size
// small, mode removed) and dave (v4: color green, note); Deployment "web" applied by alice (v1),
// its image changed and an env var added by bob (v2), status written by the controller; Secret
// "creds" created by alice (v1) and patched by bob (v2: password changed, token added).
#include "core/edit/revertplan.h"
#include "core/history/secretredaction.h"

#include <QFile>
#include <QTest>

using namespace fieldscope::core;

namespace {

Json golden(const QString &name)
{
    QFile f(QStringLiteral(FIELDSCOPE_TEST_DATA "/revert/") + name + QStringLiteral(".json"));
    if (!f.open(QIODevice::ReadOnly))
        qFatal("missing golden file %s", qPrintable(name));
    auto j = parseJson(f.readAll().toStdString());
    if (!j)
        qFatal("golden file %s is not JSON", qPrintable(name));
    return *j;
}

Json json(const char *text)
{
    return *parseJson(text);
}

QString s(const char *text)
{
    return QString::fromUtf8(text);
}

QStringList strings(std::initializer_list<const char *> texts)
{
    QStringList out;
    for (const char *t : texts)
        out << s(t);
    return out;
}

QString valueText(const std::optional<Json> &v)
{
    return v ? QString::fromStdString(toJsonText(*v)) : QStringLiteral("-");
}

// "replace .data.color "green" -> "red"": one line per change, values as JSON.
QStringList lines(const RevertPlan &plan)
{
    QStringList out;
    for (const RevertChange &c : plan.changes)
        out << QStringLiteral("%1 %2 %3 -> %4")
                   .arg(QString::fromLatin1(c.action()), QString::fromStdString(c.path), valueText(c.live),
                        valueText(c.restored));
    return out;
}

QStringList skippedPaths(const RevertPlan &plan)
{
    QStringList out;
    for (const RevertSkipped &skip : plan.skipped)
        out << QString::fromStdString(skip.path);
    return out;
}

RevertPlan plan(const Json &target, const Json *predecessor, const Json &live, const RevertOptions &options = {})
{
    auto p = planRevert(target, predecessor, live, options);
    if (!p)
        qFatal("planRevert failed: %s", p.error().describe().c_str());
    return std::move(*p);
}

QStringList stalePaths(const StaleCheck &check)
{
    QStringList out;
    for (const StaleField &f : check.stale)
        out << QString::fromStdString(f.path);
    return out;
}

const QStringList kMetaServerSet{QStringLiteral(".metadata.managedFields"),
                                 QStringLiteral(".metadata.resourceVersion")};

} // namespace

class TestRevertPlan : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void putsBackTheFieldsOfAVersionOrUndoesOneChange_data()
    {
        QTest::addColumn<QString>("target");
        QTest::addColumn<QString>("predecessor"); // "" = revert to the target whole
        QTest::addColumn<QString>("live");
        QTest::addColumn<QStringList>("changes");
        QTest::addColumn<QStringList>("skipped");
        QTest::newRow("revert to v1 over v4: every field back, added ones removed")
            << s("configmap-v1") << s("") << s("configmap-v4")
            << strings({R"(replace .data.color "green" -> "red")", R"(replace .data.size "small" -> "big")",
                        R"(add .data.mode - -> "fast")", R"(remove .data.extra "x" -> -)",
                        R"(remove .data.note "hi" -> -)", R"(remove .metadata.labels.tier "web" -> -)"})
            << kMetaServerSet;
        // bob's change: color, extra and the tier label; carol's and dave's later keys stay.
        QTest::newRow("undo v2's change over v4: only bob's fields")
            << s("configmap-v2") << s("configmap-v1") << s("configmap-v4")
            << strings({R"(replace .data.color "green" -> "red")", R"(remove .data.extra "x" -> -)",
                        R"(remove .metadata.labels.tier "web" -> -)"})
            << kMetaServerSet;
        QTest::newRow("undo v3's change over v4: size back, the removed key back")
            << s("configmap-v3") << s("configmap-v2") << s("configmap-v4")
            << strings({R"(replace .data.size "small" -> "big")", R"(add .data.mode - -> "fast")"}) << kMetaServerSet;
        QTest::newRow("revert to the live version: nothing")
            << s("configmap-v4") << s("") << s("configmap-v4") << QStringList() << QStringList();
        // The container list is one field; generation and status are the server's and the controller's.
        QTest::newRow("deployment v1 over v2: the list whole, status and generation left alone")
            << s("deployment-v1") << s("") << s("deployment-v2")
            << QStringList{s(R"(replace .metadata.annotations.deployment.kubernetes.io/revision "2" -> "1")"),
                           QStringLiteral("replace .spec.template.spec.containers %1 -> %2")
                               .arg(QString::fromStdString(toJsonText(golden(
                                        QStringLiteral("deployment-v2"))["spec"]["template"]["spec"]["containers"])),
                                    QString::fromStdString(toJsonText(golden(
                                        QStringLiteral("deployment-v1"))["spec"]["template"]["spec"]["containers"])))}
            << QStringList{QStringLiteral(".metadata.generation"), QStringLiteral(".metadata.managedFields"),
                           QStringLiteral(".metadata.resourceVersion"), QStringLiteral(".status")};
    }
    void putsBackTheFieldsOfAVersionOrUndoesOneChange()
    {
        QFETCH(QString, target);
        QFETCH(QString, predecessor);
        QFETCH(QString, live);
        QFETCH(QStringList, changes);
        QFETCH(QStringList, skipped);
        const Json before = predecessor.isEmpty() ? Json() : golden(predecessor);
        const RevertPlan p = plan(golden(target), predecessor.isEmpty() ? nullptr : &before, golden(live));
        QCOMPARE(lines(p), changes);
        QCOMPARE(skippedPaths(p), skipped);
        QCOMPARE(p.nothingToDo(), changes.isEmpty());
        QVERIFY(!p.otherIncarnation);
        // The editor's buffer: the live object's editable form with the changes made.
        QVERIFY(!p.restored.contains("status"));
        QVERIFY(!p.restored["metadata"].contains("managedFields"));
        for (const RevertChange &c : p.changes) {
            const Json::json_pointer at(c.pointer);
            QCOMPARE(p.restored.contains(at), c.restored.has_value());
            if (c.restored)
                QVERIFY(jsonEqual(p.restored.at(at), *c.restored));
        }
    }

    // Every live value the patch replaces or removes is tested first; an add cannot be tested
    // (RFC 6902 has no test for absence); a list is tested and replaced whole, never by index.
    void theJsonPatchTestsEveryLiveValueItReplacesOrRemoves()
    {
        const RevertPlan p = plan(golden(QStringLiteral("configmap-v1")), nullptr,
                                  golden(QStringLiteral("configmap-v4")));
        const Json expected = json(R"([
            {"op":"test","path":"/data/color","value":"green"},{"op":"replace","path":"/data/color","value":"red"},
            {"op":"test","path":"/data/size","value":"small"},{"op":"replace","path":"/data/size","value":"big"},
            {"op":"add","path":"/data/mode","value":"fast"},
            {"op":"test","path":"/data/extra","value":"x"},{"op":"remove","path":"/data/extra"},
            {"op":"test","path":"/data/note","value":"hi"},{"op":"remove","path":"/data/note"},
            {"op":"test","path":"/metadata/labels/tier","value":"web"},{"op":"remove","path":"/metadata/labels/tier"}])");
        QCOMPARE(toJsonText(p.jsonPatch), toJsonText(expected));

        const Json v1 = golden(QStringLiteral("deployment-v1")), v2 = golden(QStringLiteral("deployment-v2"));
        const RevertPlan d = plan(v1, nullptr, v2);
        const Json &ops = d.jsonPatch;
        QCOMPARE(ops.size(), std::size_t(4));
        QCOMPARE(ops[0]["path"].get<std::string>(),
                 std::string("/metadata/annotations/deployment.kubernetes.io~1revision"));
        QCOMPARE(ops[2]["op"].get<std::string>(), std::string("test"));
        QCOMPARE(ops[2]["path"].get<std::string>(), std::string("/spec/template/spec/containers"));
        QVERIFY(jsonEqual(ops[2]["value"], v2["spec"]["template"]["spec"]["containers"]));
        QCOMPARE(ops[3]["op"].get<std::string>(), std::string("replace"));
        QVERIFY(jsonEqual(ops[3]["value"], v1["spec"]["template"]["spec"]["containers"]));
        QVERIFY(plan(golden(QStringLiteral("configmap-v4")), nullptr, golden(QStringLiteral("configmap-v4")))
                    .jsonPatch.empty());
    }

    void undoingAChangeLeavesWhatOthersAddedSince_data()
    {
        QTest::addColumn<QString>("predecessor");
        QTest::addColumn<QString>("target");
        QTest::addColumn<QString>("live");
        QTest::addColumn<QStringList>("changes");
        QTest::addColumn<QString>("labels"); // the restored object's labels
        QTest::newRow("a deleted map comes back beside keys added since")
            << s(R"({"metadata":{"name":"x","labels":{"a":"1"}}})") << s(R"({"metadata":{"name":"x"}})")
            << s(R"({"metadata":{"name":"x","labels":{"b":"2"}}})") << strings({R"(add .metadata.labels.a - -> "1")"})
            << s(R"({"b":"2","a":"1"})");
        QTest::newRow("an added map loses only its own keys")
            << s(R"({"metadata":{"name":"x"}})") << s(R"({"metadata":{"name":"x","labels":{"a":"1"}}})")
            << s(R"({"metadata":{"name":"x","labels":{"a":"1","b":"2"}}})")
            << strings({R"(remove .metadata.labels.a "1" -> -)"}) << s(R"({"b":"2"})");
        QTest::newRow("an added map nobody added to goes whole")
            << s(R"({"metadata":{"name":"x"}})") << s(R"({"metadata":{"name":"x","labels":{"a":"1"}}})")
            << s(R"({"metadata":{"name":"x","labels":{"a":"1"}}})")
            << strings({R"(remove .metadata.labels {"a":"1"} -> -)"}) << s("null");
        QTest::newRow("a key whose map was deleted since comes back with its map")
            << s(R"({"metadata":{"name":"x","labels":{"a":"1"}}})")
            << s(R"({"metadata":{"name":"x","labels":{"a":"2"}}})") << s(R"({"metadata":{"name":"x"}})")
            << strings({R"(add .metadata.labels - -> {"a":"1"})"}) << s(R"({"a":"1"})");
    }
    void undoingAChangeLeavesWhatOthersAddedSince()
    {
        QFETCH(QString, predecessor);
        QFETCH(QString, target);
        QFETCH(QString, live);
        QFETCH(QStringList, changes);
        QFETCH(QString, labels);
        const Json before = json(predecessor.toUtf8().constData());
        const RevertPlan p = plan(json(target.toUtf8().constData()), &before, json(live.toUtf8().constData()));
        QCOMPARE(lines(p), changes);
        const Json restoredLabels = p.restored["metadata"].contains("labels") ? p.restored["metadata"]["labels"]
                                                                              : Json();
        QCOMPARE(QString::fromStdString(toJsonText(restoredLabels)), labels);
    }

    void serverSetAndControllerFieldsAreLeftAloneWithTheirReason()
    {
        const Json target = json(R"({"metadata":{"name":"x","uid":"u1","finalizers":["a/b"],
            "ownerReferences":[{"apiVersion":"v1","kind":"ConfigMap","name":"o","uid":"gone"}]},"status":{"phase":"A"}})");
        const Json live = json(R"({"metadata":{"name":"x","uid":"u2","deletionTimestamp":"2026-01-01T00:00:00Z"},
            "status":{"phase":"B"}})");
        const RevertPlan p = plan(target, nullptr, live);
        QVERIFY(p.changes.empty());
        QVERIFY(p.otherIncarnation);
        QMap<QString, QString> reasons;
        for (const RevertSkipped &skip : p.skipped)
            reasons.insert(QString::fromStdString(skip.path), QString::fromStdString(skip.reason));
        QCOMPARE(reasons.keys(), (strings({".metadata.deletionTimestamp", ".metadata.finalizers",
                                           ".metadata.ownerReferences", ".metadata.uid", ".status"})));
        QVERIFY(reasons[s(".metadata.uid")].contains(s("API server")));
        QVERIFY(reasons[s(".metadata.ownerReferences")].contains(s("garbage collector")));
        QVERIFY(reasons[s(".metadata.finalizers")].contains(s("controller")));
        QVERIFY(reasons[s(".status")].contains(s("status subresource")));
    }

    // --expect: only the fields the revert touches count; each stale one names its owners now.
    void staleSinceNamesTouchedFieldsThatChangedAfterTheExpectedVersion_data()
    {
        QTest::addColumn<QString>("target");
        QTest::addColumn<QString>("predecessor");
        QTest::addColumn<QString>("expect");
        QTest::addColumn<QStringList>("stale");
        QTest::addColumn<QStringList>("owners"); // of the first stale field
        QTest::newRow("dave's later change touches other keys: not stale")
            << s("configmap-v3") << s("configmap-v2") << s("configmap-v3") << QStringList() << QStringList();
        QTest::newRow("dave changed bob's color after v2: stale, owned by dave")
            << s("configmap-v2") << s("configmap-v1") << s("configmap-v2") << strings({".data.color"})
            << strings({"dave"});
        QTest::newRow("revert to v1 looked at in v3: color and note changed since")
            << s("configmap-v1") << s("") << s("configmap-v3") << strings({".data.color", ".data.note"})
            << strings({"dave"});
        QTest::newRow("looked at the live version: nothing stale")
            << s("configmap-v1") << s("") << s("configmap-v4") << QStringList() << QStringList();
    }
    void staleSinceNamesTouchedFieldsThatChangedAfterTheExpectedVersion()
    {
        QFETCH(QString, target);
        QFETCH(QString, predecessor);
        QFETCH(QString, expect);
        QFETCH(QStringList, stale);
        QFETCH(QStringList, owners);
        const Json before = predecessor.isEmpty() ? Json() : golden(predecessor);
        const Json live = golden(QStringLiteral("configmap-v4"));
        const RevertPlan p = plan(golden(target), predecessor.isEmpty() ? nullptr : &before, live);
        const StaleCheck check = staleSince(p, golden(expect), live);
        QCOMPARE(stalePaths(check), stale);
        QCOMPARE(check.refuses(), !stale.isEmpty());
        if (stale.isEmpty())
            return;
        QStringList names;
        for (const FieldOwnerRef &o : check.stale[0].owners)
            names << QString::fromStdString(o.manager);
        QCOMPARE(names, owners);
        const StaleField &f = check.stale[0];
        QVERIFY(f.expected && f.now && f.restored);
        QVERIFY(!jsonEqual(*f.expected, *f.now));
    }

    // The apply sends the reverted fields and the manager's own applied fields (so none of them is
    // released by omission), with the live resourceVersion as its precondition; the preview names
    // the fields it takes and from whom.
    void theApplyBodyTakesTheRevertedFieldsAndKeepsTheManagersOwn()
    {
        const Json live = golden(QStringLiteral("configmap-v4")), before = golden(QStringLiteral("configmap-v2"));
        const RevertPlan p = plan(golden(QStringLiteral("configmap-v3")), &before, live);
        auto apply = revertApplyBody(p, live, "alice");
        QVERIFY(apply.ok());
        QVERIFY(apply->notRemovable.empty());
        const Json expected = json(R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"settings",
            "namespace":"shop","labels":{"app":"shop"},"resourceVersion":"258"},"data":{"size":"big","mode":"fast"}})");
        QVERIFY2(jsonEqual(apply->body, expected), toJsonText(apply->body).c_str());
        QCOMPARE(apply->preview.conflicts.size(), std::size_t(1));
        QCOMPARE(apply->preview.conflicts[0].path.toString(), std::string(".data.size"));
        QCOMPARE(apply->preview.conflicts[0].owners[0].manager, std::string("carol"));
        QVERIFY(apply->preview.removed.empty() && apply->preview.released.empty());
    }

    // Apply removes only what its manager applied and nobody else owns: leaving out or nulling a
    // field another manager wrote keeps it, so such a revert is not sendable by apply.
    void anApplyCannotRemoveFieldsItsManagerNeverApplied()
    {
        const Json live = golden(QStringLiteral("configmap-v4"));
        const RevertPlan p = plan(golden(QStringLiteral("configmap-v1")), nullptr, live);
        auto apply = revertApplyBody(p, live, "fieldscope");
        QVERIFY(apply.ok());
        QStringList paths;
        for (const std::string &path : apply->notRemovable)
            paths << QString::fromStdString(path);
        paths.sort();
        QCOMPARE(paths, (strings({".data.extra", ".data.note", ".metadata.labels.tier"})));
    }

    // The store keeps a Secret's values as keyed hashes unless the cluster opted in: a revert
    // cannot write them back, nor compare a live value with one.
    void hiddenSecretValuesAreNeverWrittenBackOrCompared()
    {
        const std::string key = newRedactionKey();
        Json v1 = golden(QStringLiteral("secret-v1")), v2 = golden(QStringLiteral("secret-v2"));
        const Json live = v2;
        QVERIFY(redactSecret(v1, key) > 0 && redactSecret(v2, key) > 0);
        RevertOptions options;
        options.isHiddenValue = isRedactedValue;
        const RevertPlan back = plan(v1, nullptr, live, options);
        QCOMPARE(back.hiddenValues, std::vector<std::string>{"/data/password"});
        // Undoing bob's change: the added token goes (no value needed), the password cannot come back.
        const RevertPlan undo = plan(v2, &v1, live, options);
        QCOMPARE(lines(undo).size(), 2);
        QCOMPARE(undo.hiddenValues, std::vector<std::string>{"/data/password"});
        const StaleCheck check = staleSince(undo, v2, live, options);
        QVERIFY(check.stale.empty());
        QCOMPARE(check.hiddenValues, (std::vector<std::string>{"/data/password", "/data/token"}));
        QVERIFY(check.refuses());
        // Without the predicate nothing is hidden (a store with the opt-in).
        QVERIFY(plan(golden(QStringLiteral("secret-v1")), nullptr, live).hiddenValues.empty());
    }

    // A hidden value the live object's own recorded version holds too is the live value: left
    // alone. Only a value that differs from it (or no recorded live version) still refuses.
    void aHiddenValueTheLiveVersionAlsoHoldsIsLeftAlone()
    {
        const std::string key = newRedactionKey();
        Json v1 = golden(QStringLiteral("secret-v1"));
        Json live = v1;
        live["metadata"]["labels"] = {{"tier", "changed"}};
        live["metadata"]["resourceVersion"] = "999";
        Json liveRecorded = live;
        QVERIFY(redactSecret(v1, key) > 0 && redactSecret(liveRecorded, key) > 0);
        RevertOptions options;
        options.isHiddenValue = isRedactedValue;
        QCOMPARE(plan(v1, nullptr, live, options).hiddenValues, std::vector<std::string>{"/data/password"});
        options.liveAsRecorded = &liveRecorded;
        const RevertPlan back = plan(v1, nullptr, live, options);
        QVERIFY(back.hiddenValues.empty());
        for (const RevertChange &c : back.changes)
            QVERIFY2(c.pointer.rfind("/data", 0) != 0, c.pointer.c_str()); // no value is written
        QVERIFY(!back.changes.empty());
        // The live password changed after its recorded version: its hash differs, still refused.
        Json v2 = golden(QStringLiteral("secret-v2"));
        QVERIFY(redactSecret(v2, key) > 0);
        liveRecorded["data"]["password"] = v2["data"]["password"];
        QCOMPARE(plan(v1, nullptr, live, options).hiddenValues, std::vector<std::string>{"/data/password"});
    }

    void inputsThatAreNotObjectsAreRefused()
    {
        const Json object = golden(QStringLiteral("configmap-v1"));
        const Json notObject = json(R"(["a"])");
        QCOMPARE(planRevert(notObject, nullptr, object).error().category, ErrorCategory::Invalid);
        QCOMPARE(planRevert(object, &notObject, object).error().category, ErrorCategory::Invalid);
        QCOMPARE(planRevert(object, nullptr, notObject).error().category, ErrorCategory::Invalid);
        Json deep = "x";
        for (int i = 0; i < kMaxJsonDepth + 2; ++i)
            deep = Json{{"k", std::move(deep)}};
        QCOMPARE(planRevert(deep, nullptr, object).error().category, ErrorCategory::Parse);
    }
};

QTEST_GUILESS_MAIN(TestRevertPlan)
#include "tst_revertplan.moc"
