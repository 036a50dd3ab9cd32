#include "core/diff/objectdiff.h"

#include <QTest>

using namespace fieldscope::core;

namespace {

// "changed .spec.replicas 1 -> 3" lines, one per change: easy to read in a failing test.
QString dump(const std::vector<FieldChange> &changes)
{
    QStringList lines;
    for (const auto &c : changes)
        lines << QString::fromStdString(std::string(fieldChangeKindName(c.kind)) + " " + c.path.toString() + " "
                                        + toJsonText(c.oldValue) + " -> " + toJsonText(c.newValue));
    return lines.join(QLatin1Char('\n'));
}

} // namespace

class TestObjectDiff : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void changesUseServerPathsAndListSemantics_data()
    {
        QTest::addColumn<QString>("before");
        QTest::addColumn<QString>("after");
        QTest::addColumn<QString>("expected");
        QTest::newRow("scalar changed") << R"({"spec":{"replicas":1}})"
                                        << R"({"spec":{"replicas":3}})"
                                        << "changed .spec.replicas 1 -> 3";
        QTest::newRow("80 equals 80.0") << R"({"spec":{"port":80}})"
                                        << R"({"spec":{"port":80.0}})"
                                        << "";
        QTest::newRow("map key added and removed")
            << R"({"metadata":{"labels":{"a":"1","b":"2"}}})"
            << R"({"metadata":{"labels":{"b":"2","app.kubernetes.io/name":"x"}}})"
            << "removed .metadata.labels.a \"1\" -> null\nadded .metadata.labels.app.kubernetes.io/name null -> \"x\"";
        QTest::newRow("container matched by name, not position")
            << R"({"kind":"Deployment","spec":{"template":{"spec":{"containers":[{"name":"sidecar","image":"s:1"},{"name":"nginx","image":"nginx:1.25"}]}}}})"
            << R"({"kind":"Deployment","spec":{"template":{"spec":{"containers":[{"name":"nginx","image":"nginx:1.26"},{"name":"sidecar","image":"s:1"}]}}}})"
            << R"(changed .spec.template.spec.containers[name="nginx"].image "nginx:1.25" -> "nginx:1.26")";
        QTest::newRow("port key gets the protocol default")
            << R"({"spec":{"containers":[{"name":"a","ports":[{"containerPort":80}]}]}})"
            << R"({"spec":{"containers":[{"name":"a","ports":[{"containerPort":80},{"containerPort":443,"name":"https"}]}]}})"
            << R"(added .spec.containers[name="a"].ports[containerPort=443,protocol="TCP"] null -> {"containerPort":443,"name":"https"})";
        QTest::newRow("finalizers are a set")
            << R"({"metadata":{"finalizers":["a","b"]}})"
            << R"({"metadata":{"finalizers":["b","c"]}})"
            << "removed .metadata.finalizers[=\"a\"] \"a\" -> null\nadded .metadata.finalizers[=\"c\"] null -> \"c\"";
        QTest::newRow("atomic list compared whole")
            << R"({"spec":{"containers":[{"name":"a","args":["-v","1"]}]}})"
            << R"({"spec":{"containers":[{"name":"a","args":["-v","2"]}]}})"
            << R"(changed .spec.containers[name="a"].args ["-v","1"] -> ["-v","2"])";
        QTest::newRow("map list with a duplicate key falls back to atomic")
            << R"({"spec":{"containers":[{"name":"a"},{"name":"a"}]}})"
            << R"({"spec":{"containers":[{"name":"a"}]}})"
            << R"(changed .spec.containers [{"name":"a"},{"name":"a"}] -> [{"name":"a"}])";
        QTest::newRow("set members compare by value, 80 meets 80.0")
            << R"({"metadata":{"finalizers":[80,"a"]}})"
            << R"({"metadata":{"finalizers":["a",80.0,"b"]}})"
            << "added .metadata.finalizers[=\"b\"] null -> \"b\"";
        QTest::newRow("kind of the wrong type is ignored, not thrown")
            << R"({"kind":7,"spec":{"replicas":1}})"
            << R"({"kind":["x"],"spec":{"replicas":2}})"
            << "changed .kind 7 -> [\"x\"]\nchanged .spec.replicas 1 -> 2";
        QTest::newRow("type change is one change") << R"({"data":{"x":"1"}})"
                                                   << R"({"data":{"x":{"y":1}}})"
                                                   << R"(changed .data.x "1" -> {"y":1})";
    }
    void changesUseServerPathsAndListSemantics()
    {
        QFETCH(QString, before);
        QFETCH(QString, after);
        QFETCH(QString, expected);
        const auto changes = diffObjects(parseJson(before.toStdString()).value(),
                                         parseJson(after.toStdString()).value());
        QCOMPARE(dump(changes), expected);
    }

    void noiseFiltersHideTheirSubtrees_data()
    {
        QTest::addColumn<bool>("managedFields");
        QTest::addColumn<bool>("resourceVersion");
        QTest::addColumn<bool>("generation");
        QTest::addColumn<bool>("status");
        QTest::addColumn<int>("changes");
        QTest::newRow("all shown") << false << false << false << false << 5;
        QTest::newRow("defaults") << true << true << false << false << 3;
        QTest::newRow("all hidden") << true << true << true << true << 1;
    }
    void noiseFiltersHideTheirSubtrees()
    {
        QFETCH(bool, managedFields);
        QFETCH(bool, resourceVersion);
        QFETCH(bool, generation);
        QFETCH(bool, status);
        QFETCH(int, changes);
        const Json a =
            parseJson(
                R"({"metadata":{"resourceVersion":"1","generation":1,"managedFields":[{"manager":"a","time":"t1"}]},
            "spec":{"replicas":1},"status":{"replicas":1}})")
                .value();
        const Json b =
            parseJson(
                R"({"metadata":{"resourceVersion":"2","generation":2,"managedFields":[{"manager":"a","time":"t2"}]},
            "spec":{"replicas":2},"status":{"replicas":2}})")
                .value();
        DiffOptions o;
        o.hideManagedFields = managedFields;
        o.hideResourceVersion = resourceVersion;
        o.hideGeneration = generation;
        o.hideStatus = status;
        QCOMPARE(int(diffObjects(a, b, o).size()), changes);
        const Json filtered = applyNoiseFilters(b, o);
        QCOMPARE(filtered.contains("status"), !status);
        QCOMPARE(filtered["metadata"].contains("managedFields"), !managedFields);
    }

    void identicalObjectsHaveNoChanges()
    {
        const Json a = parseJson(R"({"a":[1,{"b":null}],"c":{"d":true}})").value();
        QVERIFY(diffObjects(a, a).empty());
    }

    // The walk recurses once per path element: down to kMaxJsonDepth elements it reports the
    // innermost change with its full path; below that a differing subtree is one change, found
    // without recursion, however deep the values are.
    void diffWalksToTheDepthLimitThenComparesWhole()
    {
        auto chain = [](int depth, int leaf) { // {"a":{"a":...{"v":leaf}}}, `depth` objects deep
            Json v = Json::object();
            v["v"] = leaf;
            for (int i = 1; i < depth; ++i) {
                Json outer = Json::object();
                outer["a"] = std::move(v);
                v = std::move(outer);
            }
            return v;
        };
        const auto atLimit = diffObjects(chain(kMaxJsonDepth, 1), chain(kMaxJsonDepth, 2));
        QCOMPARE(atLimit.size(), std::size_t(1));
        QCOMPARE(atLimit[0].path.size(), std::size_t(kMaxJsonDepth)); // 511 x .a, then .v
        QVERIFY(atLimit[0].newValue == Json(2));
        const auto past = diffObjects(chain(kMaxJsonDepth + 1, 1), chain(kMaxJsonDepth + 1, 2));
        QCOMPARE(past.size(), std::size_t(1));
        QCOMPARE(past[0].kind, FieldChange::Kind::Changed);
        QCOMPARE(past[0].path.size(), std::size_t(kMaxJsonDepth));
        QVERIFY(past[0].newValue.is_object()); // the subtree below the limit, whole
        QVERIFY(diffObjects(chain(5000, 1), chain(5000, 1)).empty());
        QCOMPARE(diffObjects(chain(5000, 1), chain(5000, 2)).size(), std::size_t(1));
    }
};

QTEST_GUILESS_MAIN(TestObjectDiff)
#include "tst_objectdiff.moc"
