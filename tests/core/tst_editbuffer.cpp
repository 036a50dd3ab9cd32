// The editor's pure helpers (core/edit/editbuffer.h): what of a live object is editable, merge patches
// and guarded JSON patches between two versions, and giving up SSA-conflicting fields named in the server's path
// syntax.
#include "core/edit/editbuffer.h"

#include <QTest>

using namespace fieldscope::core;

namespace {
Json json(const char *text)
{
    return parseJson(text).value();
}
QByteArray text(const Json &j)
{
    return QByteArray::fromStdString(toJsonText(j));
}
} // namespace

class TestEditBuffer : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void editableObjectDropsWhatTheServerOwns()
    {
        const Json live = json(
            R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","namespace":"n","uid":"u","resourceVersion":"7",
            "creationTimestamp":"2026-01-01T00:00:00Z","generation":2,"managedFields":[{}],"labels":{"a":"b"}},"spec":{"x":1},"status":{"phase":"Running"}})");
        QCOMPARE(
            text(editableObject(live, true)),
            QByteArray(
                R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","namespace":"n","labels":{"a":"b"}},"spec":{"x":1}})"));
        QVERIFY(editableObject(live, false).contains("status")); // no status subresource: status is data
    }

    void mergePatchBetween_data()
    {
        QTest::addColumn<QByteArray>("from");
        QTest::addColumn<QByteArray>("to");
        QTest::addColumn<QByteArray>("patch");
        QTest::newRow("changed value") << QByteArray(R"({"data":{"a":"1","b":"2"}})")
                                       << QByteArray(R"({"data":{"a":"3","b":"2"}})")
                                       << QByteArray(R"({"data":{"a":"3"}})");
        QTest::newRow("removed key is null")
            << QByteArray(R"({"data":{"a":"1","b":"2"}})") << QByteArray(R"({"data":{"a":"1"}})")
            << QByteArray(R"({"data":{"b":null}})");
        QTest::newRow("added map") << QByteArray(R"({"data":{}})")
                                   << QByteArray(R"({"data":{},"metadata":{"labels":{"x":"y"}}})")
                                   << QByteArray(R"({"metadata":{"labels":{"x":"y"}}})");
        QTest::newRow("lists replaced whole")
            << QByteArray(R"({"l":[1,2]})") << QByteArray(R"({"l":[1,3]})") << QByteArray(R"({"l":[1,3]})");
        QTest::newRow("nothing changed") << QByteArray(R"({"a":{"b":1}})") << QByteArray(R"({"a":{"b":1.0}})")
                                         << QByteArray(R"({})");
    }
    void mergePatchBetween()
    {
        QFETCH(QByteArray, from);
        QFETCH(QByteArray, to);
        QFETCH(QByteArray, patch);
        QCOMPARE(text(fieldscope::core::mergePatchBetween(json(from.constData()), json(to.constData()))), patch);
    }

    void jsonPatchGuardsEveryChangeWithATestOfTheOpenedValue_data()
    {
        QTest::addColumn<QByteArray>("from");
        QTest::addColumn<QByteArray>("to");
        QTest::addColumn<QByteArray>("patch");
        // "Set foo=2 only if foo is 1".
        QTest::newRow("changed value")
            << QByteArray(R"({"data":{"foo":"1","bar":"x"}})") << QByteArray(R"({"data":{"foo":"2","bar":"x"}})")
            << QByteArray(
                   R"([{"op":"test","path":"/data/foo","value":"1"},{"op":"replace","path":"/data/foo","value":"2"}])");
        QTest::newRow("removed key")
            << QByteArray(R"({"data":{"foo":"1","bar":"x"}})") << QByteArray(R"({"data":{"bar":"x"}})")
            << QByteArray(R"([{"op":"test","path":"/data/foo","value":"1"},{"op":"remove","path":"/data/foo"}])");
        QTest::newRow("added key has no test") << QByteArray(R"({"data":{}})") << QByteArray(R"({"data":{"new":"v"}})")
                                               << QByteArray(R"([{"op":"add","path":"/data/new","value":"v"}])");
        QTest::newRow("list tested and replaced whole")
            << QByteArray(R"({"spec":{"args":["a","b"]}})") << QByteArray(R"({"spec":{"args":["a","c"]}})")
            << QByteArray(
                   R"([{"op":"test","path":"/spec/args","value":["a","b"]},{"op":"replace","path":"/spec/args","value":["a","c"]}])");
        QTest::newRow("keys escaped as JSON pointers")
            << QByteArray(R"({"metadata":{"annotations":{"app.kubernetes.io/name":"a"}}})")
            << QByteArray(R"({"metadata":{"annotations":{"app.kubernetes.io/name":"b"}}})")
            << QByteArray(R"([{"op":"test","path":"/metadata/annotations/app.kubernetes.io~1name","value":"a"},)"
                          R"({"op":"replace","path":"/metadata/annotations/app.kubernetes.io~1name","value":"b"}])");
        QTest::newRow("nothing changed") << QByteArray(R"({"a":{"b":1}})") << QByteArray(R"({"a":{"b":1.0}})")
                                         << QByteArray("[]");
    }
    void jsonPatchGuardsEveryChangeWithATestOfTheOpenedValue()
    {
        QFETCH(QByteArray, from);
        QFETCH(QByteArray, to);
        QFETCH(QByteArray, patch);
        QCOMPARE(text(jsonPatchBetween(json(from.constData()), json(to.constData()))), patch);
    }

    void failedTestsNameTheFieldsThatNoLongerHaveTheirOpenedValue()
    {
        const Json patch = jsonPatchBetween(json(R"({"data":{"foo":"1","bar":"x","gone":"g"}})"),
                                            json(R"({"data":{"foo":"2","bar":"y"}})"));
        // Someone set foo to 3 and deleted gone; bar is as opened.
        const auto failed = failedTests(patch, json(R"({"data":{"foo":"3","bar":"x"}})"));
        QCOMPARE(failed.size(), std::size_t(2));
        QCOMPARE(failed[0].first, std::string("/data/gone"));
        QVERIFY(!failed[0].second);
        QCOMPARE(failed[1].first, std::string("/data/foo"));
        QCOMPARE(text(*failed[1].second), QByteArray(R"("3")"));
        QVERIFY(failedTests(patch, json(R"({"data":{"foo":"1","bar":"x","gone":"g"}})")).empty());
    }

    void failedTestsSkipOpsOfTheWrongTypeInsteadOfThrowing()
    {
        const Json patch =
            json(R"([{"op":7,"path":"/data/foo"},{"op":["test"],"path":"/data/foo"},{"op":"test","path":5},)"
                 R"({"op":"test","path":"/data/foo","value":"1"}])");
        std::vector<std::pair<std::string, std::optional<Json>>> failed;
        try {
            failed = failedTests(patch, json(R"({"data":{"foo":"2"}})"));
        } catch (const std::exception &e) {
            QFAIL(e.what());
        }
        QCOMPARE(failed.size(), std::size_t(1)); // only the well-formed test op is judged
        QCOMPARE(failed[0].first, std::string("/data/foo"));
    }

    void givingUpFieldsRemovesThemAndTheMapsTheyLeaveEmpty_data()
    {
        QTest::addColumn<QByteArray>("manifest");
        QTest::addColumn<QByteArrayList>("paths");
        QTest::addColumn<QByteArray>("expected");
        const QByteArray cm = QByteArray(
            R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","labels":{"t":"x"}},"data":{"a":"1","b":"2"}})");
        QTest::newRow("one of two keys")
            << cm << QByteArrayList{".data.a"}
            << QByteArray(
                   R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","labels":{"t":"x"}},"data":{"b":"2"}})");
        QTest::newRow("both keys drop the map")
            << cm << QByteArrayList{".data.a", ".data.b"}
            << QByteArray(R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","labels":{"t":"x"}}})");
        QTest::newRow("label leaves metadata with its name")
            << cm << QByteArrayList{".metadata.labels.t"}
            << QByteArray(R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"},"data":{"a":"1","b":"2"}})");
        QTest::newRow("unknown path keeps the manifest") << cm << QByteArrayList{".data.zzz"} << cm;
        const QByteArray dep = QByteArray(
            R"({"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d"},"spec":{"replicas":2,)"
            R"("template":{"spec":{"containers":[{"name":"a","image":"x:1"},{"name":"b","image":"y:1"}]}}}})");
        QTest::newRow("list-map item field by key")
            << dep << QByteArrayList{R"(.spec.template.spec.containers[name="b"].image)", ".spec.replicas"}
            << QByteArray(
                   R"({"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d"},"spec":{"template":{"spec":{"containers":[{"name":"a","image":"x:1"},{"name":"b"}]}}}})");
    }
    void givingUpFieldsRemovesThemAndTheMapsTheyLeaveEmpty()
    {
        QFETCH(QByteArray, manifest);
        QFETCH(QByteArrayList, paths);
        QFETCH(QByteArray, expected);
        std::vector<std::string> p, notFound;
        for (const QByteArray &s : paths)
            p.push_back(s.toStdString());
        const Json out = withoutFieldPaths(json(manifest.constData()), Json(), p, &notFound);
        QCOMPARE(text(out), expected);
        QCOMPARE(notFound.empty(), expected != manifest);
    }

    void coOwningSetsTheConflictingFieldsToTheLiveValues()
    {
        const Json mine = json(R"({"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web"},
            "spec":{"replicas":5,"template":{"spec":{"containers":[{"name":"app","image":"app:2"},{"name":"side","image":"s:1"}]}}}})");
        const Json live = json(R"({"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web"},
            "spec":{"replicas":3,"template":{"spec":{"containers":[{"name":"side","image":"s:1"},{"name":"app","image":"app:1"}]}}}})");
        std::vector<std::string> notFound;
        const Json out = withLiveValuesAt(mine, live,
                                          {".spec.replicas", R"(.spec.template.spec.containers[name="app"].image)",
                                           ".spec.paused"},
                                          &notFound);
        QCOMPARE(out["spec"]["replicas"].get<int>(), 3);
        // Found by key, not position: the live list has the containers the other way round.
        QCOMPARE(out["spec"]["template"]["spec"]["containers"][0]["image"].get<std::string>(), std::string("app:1"));
        QCOMPARE(out["spec"]["template"]["spec"]["containers"][1]["image"].get<std::string>(), std::string("s:1"));
        QCOMPARE(notFound, std::vector<std::string>{".spec.paused"});
    }

    void valuesAtConflictPathsComeFromBothObjects()
    {
        const Json mine =
            json(R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"},"data":{"a":"mine","new":"n"}})");
        const Json live =
            json(R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"},"data":{"a":"theirs"}})");
        const auto v = valuesAtPaths(mine, live, {".data.a", ".data.new", ".data.nowhere"});
        QCOMPARE(v.size(), std::size_t(3));
        QCOMPARE(text(*v[0].mine), QByteArray("\"mine\""));
        QCOMPARE(text(*v[0].live), QByteArray("\"theirs\""));
        QCOMPARE(text(*v[1].mine), QByteArray("\"n\""));
        QVERIFY(!v[1].live);
        QVERIFY(!v[2].mine && !v[2].live);
    }
};

QTEST_GUILESS_MAIN(TestEditBuffer)
#include "tst_editbuffer.moc"
