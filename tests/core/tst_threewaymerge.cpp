// core::threeWayMerge: a stale edit merged onto what is there now, objects key by key and lists
// as the server merges them (golden cases under tests/data/merge/).
#include "core/diff/threewaymerge.h"
#include "mergefixtures.h"

#include <QTest>

using namespace fieldscope::core;
using fieldscope::testing::loadTestObject;

namespace {
Json j(const char *text)
{
    return *parseJson(text);
}
} // namespace

class TestThreeWayMerge : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void changesThatDoNotOverlapMergeByThemselves()
    {
        const Json base = j("{\"data\":{\"a\":\"1\",\"b\":\"1\",\"gone\":\"x\"}}");
        const Json mine =
            j("{\"data\":{\"a\":\"2\",\"b\":\"1\",\"mine\":\"new\"}}"); // a changed, gone removed, mine added
        const Json theirs =
            j("{\"data\":{\"a\":\"1\",\"b\":\"3\",\"gone\":\"x\",\"their\":\"t\"}}"); // b changed, their added
        auto m = threeWayMerge(base, mine, theirs);
        QVERIFY(m.ok());
        QVERIFY(m->conflicts.empty());
        QVERIFY(jsonEqual(m->merged, j("{\"data\":{\"a\":\"2\",\"b\":\"3\",\"their\":\"t\",\"mine\":\"new\"}}")));
        QCOMPARE(m->mineApplied, 3);
    }

    void aFieldBothChangedDifferentlyIsAConflictResolvedOneByOne()
    {
        const Json base = j("{\"data\":{\"foo\":\"1\",\"bar\":\"1\"},\"list\":[1,2]}");
        const Json mine = j("{\"data\":{\"foo\":\"2\",\"bar\":\"9\"},\"list\":[1,2,3]}");
        const Json theirs = j("{\"data\":{\"foo\":\"3\",\"bar\":\"9\"},\"list\":[0]}");
        auto m = threeWayMerge(base, mine, theirs);
        QVERIFY(m.ok());
        QCOMPARE(m->conflicts.size(), std::size_t(2)); // foo, and the list as one value; bar agrees
        QCOMPARE(m->conflicts[0].pointer, std::string("/data/foo"));
        QCOMPARE(m->conflicts[0].mine->get<std::string>(), std::string("2"));
        QCOMPARE(m->conflicts[0].theirs->get<std::string>(), std::string("3"));
        QCOMPARE(m->conflicts[1].pointer, std::string("/list"));
        QCOMPARE(m->merged["data"]["foo"].get<std::string>(), std::string("3")); // theirs until chosen
        const Json chosen = resolveMerge(*m, {{"/data/foo", MergeChoice::Mine}});
        QCOMPARE(chosen["data"]["foo"].get<std::string>(), std::string("2"));
        QVERIFY(jsonEqual(chosen["list"], j("[0]")));
    }

    void aFieldRemovedOnOneSideAndChangedOnTheOtherIsAConflict()
    {
        const Json base = j("{\"a\":\"1\"}"), mine = j("{}"), theirs = j("{\"a\":\"2\"}");
        auto m = threeWayMerge(base, mine, theirs);
        QVERIFY(m.ok());
        QCOMPARE(m->conflicts.size(), std::size_t(1));
        QVERIFY(!m->conflicts[0].mine.has_value());
        const Json removed = resolveMerge(*m, {{"/a", MergeChoice::Mine}});
        QVERIFY(!removed.contains("a"));
    }

    void keysWithSlashesAndTildesKeepTheirPointers()
    {
        const Json base = j("{\"metadata\":{\"labels\":{\"app.kubernetes.io/name\":\"a\",\"x~y\":\"1\"}}}");
        const Json mine = j("{\"metadata\":{\"labels\":{\"app.kubernetes.io/name\":\"b\",\"x~y\":\"1\"}}}");
        const Json theirs = j("{\"metadata\":{\"labels\":{\"app.kubernetes.io/name\":\"c\",\"x~y\":\"1\"}}}");
        auto m = threeWayMerge(base, mine, theirs);
        QVERIFY(m.ok());
        QCOMPARE(m->conflicts.at(0).pointer, std::string("/metadata/labels/app.kubernetes.io~1name"));
        QCOMPARE(resolveMerge(*m, {{m->conflicts[0].pointer,
                                    MergeChoice::Mine}})["metadata"]["labels"]["app.kubernetes.io/name"]
                     .get<std::string>(),
                 std::string("b"));
    }

    // Each case: CASE.base/mine/theirs.yaml merged, compared with CASE.merged.json (what
    // `fieldscope merge -o json` prints: mine at each conflict). "schema": the list semantics the
    // recorded 1.37 OpenAPI document declares for the custom resource.
    void goldenCasesMergeAsTheServerMergesLists_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<bool>("schema");
        QTest::newRow("containers by name") << QStringLiteral("containers") << false;
        QTest::newRow("ports by containerPort and protocol") << QStringLiteral("ports") << false;
        QTest::newRow("env by name") << QStringLiteral("env") << false;
        QTest::newRow("finalizers as a set") << QStringLiteral("set") << false;
        QTest::newRow("command and tolerations atomic") << QStringLiteral("atomic") << false;
        QTest::newRow("CRD keyed by its schema") << QStringLiteral("crd") << true;
    }

    void goldenCasesMergeAsTheServerMergesLists()
    {
        QFETCH(QString, name);
        QFETCH(bool, schema);
        ListSemanticsResolver semantics;
        if (schema)
            for (auto &h : fieldscope::testing::recordedHints(QStringLiteral("merge.fieldscope.dev-v1-1.37.json"),
                                                              "merge.fieldscope.dev/v1", "Router"))
                semantics.addHint(h.schemaPath, h.semantics);
        MergeOptions options;
        options.semantics = &semantics;
        auto m = threeWayMerge(loadTestObject(QStringLiteral("merge/%1.base.yaml").arg(name)),
                               loadTestObject(QStringLiteral("merge/%1.mine.yaml").arg(name)),
                               loadTestObject(QStringLiteral("merge/%1.theirs.yaml").arg(name)), options);
        QVERIFY(m.ok());
        QString message;
        QVERIFY2(fieldscope::testing::matchesGoldenFile(QStringLiteral("merge/%1.merged.json").arg(name),
                                                        QString::fromStdString(toJsonText(mergeReport(*m), 2) + "\n"),
                                                        &message),
                 qPrintable(message));
    }

    // The same cases, said in words: one conflict per field both changed inside one item, one per
    // item removed on one side and changed on the other, one per atomic list.
    void conflictsNameTheItemAndFieldInTheServersSyntax_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<QStringList>("paths");
        QTest::newRow("containers") << QStringLiteral("containers")
                                    << QStringList{QStringLiteral(".spec.template.spec.containers[name=\"app\"].image"),
                                                   QStringLiteral(".spec.template.spec.containers[name=\"sidecar\"]")};
        QTest::newRow("ports")
            << QStringLiteral("ports")
            << QStringList{
                   QStringLiteral(".spec.containers[name=\"app\"].ports[containerPort=8080,protocol=\"TCP\"].name")};
        QTest::newRow("env") << QStringLiteral(
            "env") << QStringList{QStringLiteral(".spec.template.spec.containers[name=\"app\"].env[name=\"A\"].value")};
        QTest::newRow("set") << QStringLiteral("set") << QStringList{};
        QTest::newRow("atomic") << QStringLiteral("atomic")
                                << QStringList{QStringLiteral(".spec.containers[name=\"app\"].command"),
                                               QStringLiteral(".spec.tolerations")};
        // Without the CRD's schema its lists are atomic, as the server assumes without markers.
        QTest::newRow("crd without its schema")
            << QStringLiteral("crd")
            << QStringList{QStringLiteral(".spec.routes"), QStringLiteral(".spec.tags"), QStringLiteral(".spec.steps")};
    }

    void conflictsNameTheItemAndFieldInTheServersSyntax()
    {
        QFETCH(QString, name);
        QFETCH(QStringList, paths);
        auto m = threeWayMerge(loadTestObject(QStringLiteral("merge/%1.base.yaml").arg(name)),
                               loadTestObject(QStringLiteral("merge/%1.mine.yaml").arg(name)),
                               loadTestObject(QStringLiteral("merge/%1.theirs.yaml").arg(name)));
        QVERIFY(m.ok());
        QStringList actual;
        for (const MergeConflict &c : m->conflicts)
            actual << QString::fromStdString(c.path);
        QCOMPARE(actual, paths);
    }

    void anItemRemovedHereAndChangedThereIsChosenWhole()
    {
        const Json base =
            j(R"j({"kind":"Pod","spec":{"containers":[{"name":"a","image":"1"},{"name":"b","image":"1"}]}})j");
        const Json mine = j(R"j({"kind":"Pod","spec":{"containers":[{"name":"a","image":"1"}]}})j");
        const Json theirs =
            j(R"j({"kind":"Pod","spec":{"containers":[{"name":"a","image":"1"},{"name":"b","image":"2"}]}})j");
        auto m = threeWayMerge(base, mine, theirs);
        QVERIFY(m.ok());
        QCOMPARE(m->conflicts.size(), std::size_t(1));
        QCOMPARE(m->conflicts[0].pointer, std::string("/spec/containers/1"));
        QVERIFY(!m->conflicts[0].mine);
        QCOMPARE(resolveMerge(*m, {})["spec"]["containers"].size(), std::size_t(2)); // theirs keeps it
        const Json removed = resolveMerge(*m, {{"/spec/containers/1", MergeChoice::Mine}});
        QVERIFY(jsonEqual(removed["spec"]["containers"], j(R"j([{"name":"a","image":"1"}])j")));
    }

    // Theirs removed B and D, mine changed both and added N between them: each comes back where
    // mine has it, whichever of them is chosen.
    void itemsTheirsRemovedComeBackInMinesOrder_data()
    {
        QTest::addColumn<QStringList>("keep");
        QTest::addColumn<QString>("names");
        QTest::newRow("both") << QStringList{QStringLiteral("B"), QStringLiteral("D")} << QStringLiteral("ACBND");
        QTest::newRow("B only") << QStringList{QStringLiteral("B")} << QStringLiteral("ACBN");
        QTest::newRow("D only") << QStringList{QStringLiteral("D")} << QStringLiteral("ACND");
        QTest::newRow("neither") << QStringList{} << QStringLiteral("ACN");
    }

    void itemsTheirsRemovedComeBackInMinesOrder()
    {
        QFETCH(QStringList, keep);
        QFETCH(QString, names);
        auto env = [](const char *items) {
            return j(
                (std::string(R"j({"kind":"Pod","spec":{"containers":[{"name":"c","env":)j") + items + "}]}}").c_str());
        };
        const Json base = env(R"j([{"name":"A"},{"name":"B"},{"name":"C"},{"name":"D"}])j");
        const Json mine =
            env(R"j([{"name":"A"},{"name":"B","value":"b"},{"name":"N"},{"name":"C"},{"name":"D","value":"d"}])j");
        const Json theirs = env(R"j([{"name":"A"},{"name":"C"}])j");
        auto m = threeWayMerge(base, mine, theirs);
        QVERIFY(m.ok());
        QCOMPARE(m->conflicts.size(), std::size_t(2));
        QCOMPARE(m->conflicts[0].path, std::string(R"j(.spec.containers[name="c"].env[name="B"])j"));
        QVERIFY(m->conflicts[0].pointer != m->conflicts[1].pointer);
        std::map<std::string, MergeChoice> choices;
        for (const MergeConflict &c : m->conflicts)
            if (keep.contains(QString::fromStdString(c.mine->at("name").get<std::string>())))
                choices[c.pointer] = MergeChoice::Mine;
        QString actual;
        const Json resolved = resolveMerge(*m, choices);
        for (const Json &item : resolved["spec"]["containers"][0]["env"])
            actual += QString::fromStdString(item["name"].get<std::string>());
        QCOMPARE(actual, names);
    }

    // The server would refuse such a keyed list; merged whole, nothing is matched wrongly.
    void aKeyedListWithAMissingOrRepeatedKeyIsOneValue_data()
    {
        QTest::addColumn<QString>("theirs");
        QTest::newRow("missing key") << QStringLiteral(R"j([{"name":"a","image":"2"},{"image":"x"}])j");
        QTest::newRow("repeated key") << QStringLiteral(R"j([{"name":"a","image":"2"},{"name":"a","image":"3"}])j");
        QTest::newRow("not objects") << QStringLiteral(R"j(["a"])j");
    }

    void aKeyedListWithAMissingOrRepeatedKeyIsOneValue()
    {
        QFETCH(QString, theirs);
        const Json base = j(R"j({"kind":"Pod","spec":{"containers":[{"name":"a","image":"1"}]}})j");
        const Json mine = j(R"j({"kind":"Pod","spec":{"containers":[{"name":"a","image":"9"}]}})j");
        Json now = base;
        now["spec"]["containers"] = j(theirs.toUtf8().constData());
        auto m = threeWayMerge(base, mine, now);
        QVERIFY(m.ok());
        QCOMPARE(m->conflicts.size(), std::size_t(1));
        QCOMPARE(m->conflicts[0].path, std::string(".spec.containers"));
    }

    // What managedFields show of a custom resource's list (k: entries) makes it keyed.
    void aHintMakesACustomListKeyed()
    {
        const Json base = j(R"j({"kind":"Thing","spec":{"items":[{"id":"a","v":1},{"id":"b","v":1}]}})j");
        const Json mine = j(R"j({"kind":"Thing","spec":{"items":[{"id":"a","v":2},{"id":"b","v":1}]}})j");
        const Json theirs = j(R"j({"kind":"Thing","spec":{"items":[{"id":"a","v":1},{"id":"b","v":3}]}})j");
        QCOMPARE(threeWayMerge(base, mine, theirs)->conflicts.size(), std::size_t(1)); // atomic: one value
        ListSemanticsResolver semantics;
        semantics.addHint("spec.items", ListSemantics{ListSemantics::Type::Map, {"id"}, {}});
        MergeOptions options;
        options.semantics = &semantics;
        auto m = threeWayMerge(base, mine, theirs, options);
        QVERIFY(m.ok());
        QVERIFY(m->conflicts.empty());
        QVERIFY(jsonEqual(m->merged["spec"]["items"], j(R"j([{"id":"a","v":2},{"id":"b","v":3}])j")));
    }
};

QTEST_GUILESS_MAIN(TestThreeWayMerge)
#include "tst_threewaymerge.moc"
