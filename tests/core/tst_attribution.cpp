#include "core/history/attribution.h"

#include <QTest>

using namespace fieldscope::core;

namespace {

Json entry(const std::string &manager, const std::string &op, const std::string &time, const char *fieldsV1,
           const std::string &subresource = {})
{
    Json e{{"manager", manager}, {"operation", op},          {"apiVersion", "v1"},
           {"time", time},       {"fieldsType", "FieldsV1"}, {"fieldsV1", parseJson(fieldsV1).value()}};
    if (!subresource.empty())
        e["subresource"] = subresource;
    return e;
}

Json configMap(const std::string &rv, Json data, Json managedFields, const Json &annotations = Json::object())
{
    Json meta{{"name", "demo"}, {"namespace", "default"}, {"uid", "u1"}, {"resourceVersion", rv}};
    if (!annotations.empty())
        meta["annotations"] = annotations;
    meta["managedFields"] = std::move(managedFields);
    return Json{{"apiVersion", "v1"}, {"kind", "ConfigMap"}, {"metadata", meta}, {"data", std::move(data)}};
}

constexpr const char *kCreateFields = R"({"f:data":{".":{},"f:a":{}}})";
constexpr const char *kCsaFields =
    R"({"f:data":{"f:a":{}},"f:metadata":{"f:annotations":{".":{},"f:kubectl.kubernetes.io/last-applied-configuration":{}}}})";

AttributionContext modified()
{
    return {HistoryEventType::Modified, false, nullptr};
}

} // namespace

class TestAttribution : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    // The classic experiment (create, client-side apply, server-side apply), step by step, as the server records it.
    void classicExperimentIsAttributedToTheRightManagers()
    {
        const Json lastApplied{{"kubectl.kubernetes.io/last-applied-configuration", "{...}"}};
        const Json v1 = configMap(
            "1", {{"a", "1"}}, Json::array({entry("kubectl-create", "Update", "2026-07-20T09:00:00Z", kCreateFields)}));
        auto created = attributeTransition(nullptr, v1, {HistoryEventType::Added, false, nullptr});
        QCOMPARE(created.managerNames(), std::vector<std::string>{"kubectl-create"});
        QVERIFY(!created.ambiguous);

        // kubectl apply (client-side): a new Update entry; it changed data.a and added the annotation.
        const Json v2 =
            configMap("2", {{"a", "2"}},
                      Json::array({entry("kubectl-create", "Update", "2026-07-20T09:00:00Z", R"({"f:data":{".":{}}})"),
                                   entry("kubectl-client-side-apply", "Update", "2026-07-20T09:01:00Z", kCsaFields)}),
                      lastApplied);
        auto csa = attributeTransition(&v1, v2, modified());
        QCOMPARE(csa.managerNames(), std::vector<std::string>{"kubectl-client-side-apply"});
        QVERIFY(!csa.ambiguous);
        QCOMPARE(csa.writers[0].paths.size(), std::size_t(2));
        QCOMPARE(csa.losers.size(), std::size_t(1)); // kubectl-create lost data.a
        QCOMPARE(csa.losers[0].manager, std::string("kubectl-create"));

        // A second client-side apply changing a field it already owns: same set, time moved.
        Json v3 = v2;
        v3["metadata"]["resourceVersion"] = "3";
        v3["data"]["a"] = "3";
        v3["metadata"]["managedFields"][1]["time"] = "2026-07-20T09:02:00Z";
        auto csa2 = attributeTransition(&v2, v3, modified());
        QCOMPARE(csa2.managerNames(), std::vector<std::string>{"kubectl-client-side-apply"});
        QVERIFY(!csa2.ambiguous);

        // kubectl apply --server-side (manager "kubectl") adds data.b.
        Json v4 = v3;
        v4["metadata"]["resourceVersion"] = "4";
        v4["data"]["b"] = "1";
        v4["metadata"]["managedFields"].insert(v4["metadata"]["managedFields"].begin(),
                                               entry("kubectl", "Apply", "2026-07-20T09:03:00Z",
                                                     R"({"f:data":{"f:b":{}}})"));
        auto ssa = attributeTransition(&v3, v4, modified());
        QCOMPARE(ssa.managerNames(), std::vector<std::string>{"kubectl"});
        QCOMPARE(ssa.writers[0].paths[0].toString(), std::string(".data.b"));

        // A second SSA manager co-owns data.b (same value) and adds data.c.
        Json v5 = v4;
        v5["metadata"]["resourceVersion"] = "5";
        v5["data"]["c"] = "1";
        v5["metadata"]["managedFields"].insert(v5["metadata"]["managedFields"].begin() + 1,
                                               entry("team-b", "Apply", "2026-07-20T09:04:00Z",
                                                     R"({"f:data":{"f:b":{},"f:c":{}}})"));
        auto second = attributeTransition(&v4, v5, modified());
        QCOMPARE(second.managerNames(), std::vector<std::string>{"team-b"});
        QVERIFY(!second.ambiguous);

        // team-b force-applies data.b=2, taking it from kubectl (whose time stays put).
        Json v6 = v5;
        v6["metadata"]["resourceVersion"] = "6";
        v6["data"]["b"] = "2";
        v6["metadata"]["managedFields"][0]["fieldsV1"] = Json::object();
        v6["metadata"]["managedFields"][1]["time"] = "2026-07-20T09:05:00Z";
        auto forced = attributeTransition(&v5, v6, modified());
        QCOMPARE(forced.managerNames(), std::vector<std::string>{"team-b"});
        QCOMPARE(forced.losers.size(), std::size_t(1));
        QCOMPARE(forced.losers[0].manager, std::string("kubectl"));
        QVERIFY(!forced.ambiguous);

        // Delete: the tombstone differs only in RV; nobody can be named.
        Json v7 = v6;
        v7["metadata"]["resourceVersion"] = "7";
        auto deleted = attributeTransition(&v6, v7, {HistoryEventType::Deleted, false, nullptr});
        QVERIFY(deleted.writers.empty());
        QVERIFY(deleted.ambiguous);
        QVERIFY(QString::fromStdString(deleted.reason).startsWith(QLatin1String("deleted")));
    }

    void ambiguousEvidenceIsReportedNotGuessed_data()
    {
        QTest::addColumn<QString>("case_");
        QTest::addColumn<QString>("reasonStart");
        QTest::newRow("two managers in the same second") << "same-second"
                                                         << "a(Update) and b(Update) were stamped in the same second";
        QTest::newRow("no entry changed") << "no-entry"
                                          << "no managedFields entry changed";
        QTest::newRow("time moved but owns nothing changed") << "owns-nothing"
                                                             << "a(Update)'s time moved but it owns none";
        QTest::newRow("versions missing") << "missing"
                                          << "versions before this one were not observed";
        QTest::newRow("no entry changed, owner stamped earlier than another") << "no-entry-older-owner"
                                                                              << "no managedFields entry changed";
    }
    void ambiguousEvidenceIsReportedNotGuessed()
    {
        QFETCH(QString, case_);
        QFETCH(QString, reasonStart);
        const Json before =
            configMap("1", {{"x", "1"}, {"y", "1"}},
                      Json::array({entry("a", "Update", "2026-07-20T09:00:00Z", R"({"f:data":{"f:x":{}}})"),
                                   entry("b", "Update", "2026-07-20T09:00:00Z", R"({"f:data":{"f:y":{}}})")}));
        Json after = before;
        after["metadata"]["resourceVersion"] = "2";
        AttributionContext ctx = modified();
        if (case_ == QLatin1String("same-second")) {
            after["data"] = Json{{"x", "2"}, {"y", "2"}};
            after["metadata"]["managedFields"][0]["time"] = "2026-07-20T09:00:07Z";
            after["metadata"]["managedFields"][1]["time"] = "2026-07-20T09:00:07Z";
        } else if (case_ == QLatin1String("no-entry")) {
            after["data"]["x"] = "2";
        } else if (case_ == QLatin1String("no-entry-older-owner")) {
            // b wrote later than a's stamp; a controller-style status rewrite of a's field within
            // a's second leaves every entry as it was.
            after["metadata"]["managedFields"][1]["time"] = "2026-07-20T09:00:30Z";
            Json mid = after;
            after["data"]["x"] = "2";
            const auto r = attributeTransition(&mid, after, ctx);
            QVERIFY(r.ambiguous);
            QVERIFY2(QString::fromStdString(r.reason).contains(reasonStart), r.reason.c_str());
            QCOMPARE(r.managerNames(), std::vector<std::string>{"a"}); // a candidate, never b who owns nothing changed
            return;
        } else if (case_ == QLatin1String("owns-nothing")) {
            after["data"]["y"] = "2";
            after["metadata"]["managedFields"][0]["time"] = "2026-07-20T09:00:07Z";
        } else {
            after["data"]["x"] = "2";
            after["metadata"]["managedFields"][0]["time"] = "2026-07-20T09:00:07Z";
            ctx.versionsMissing = true;
        }
        const auto r = attributeTransition(&before, after, ctx);
        QVERIFY(r.ambiguous);
        QVERIFY2(QString::fromStdString(r.reason).contains(reasonStart), r.reason.c_str());
        if (case_ == QLatin1String("no-entry")) // best available hint: the owner of the changed field
            QCOMPARE(r.managerNames(), std::vector<std::string>{"a"});
    }

    // Attribution diffs only what differs between the versions; the changes must be exactly those
    // of a full diffObjects with the same noise filters (order included).
    void attributedChangesAreThoseOfAFullDiff_data()
    {
        QTest::addColumn<QString>("before");
        QTest::addColumn<QString>("after");
        const char *pod = R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","uid":"u","resourceVersion":"1",
            "generation":1,"labels":{"a":"1","b":"2"},"managedFields":[]},"spec":{"containers":[{"name":"c",
            "image":"x:1","ports":[{"containerPort":80,"protocol":"TCP"}]}],"nodeName":"n1"},
            "status":{"conditions":[{"type":"Ready","status":"True"}],"podIP":"10.0.0.1"}})";
        QTest::newRow("unchanged") << pod << pod;
        QTest::newRow("map list item changed")
            << pod << QString::fromLatin1(pod).replace(QLatin1String("x:1"), QLatin1String("x:2"));
        QTest::newRow("label removed, noise changed")
            << pod
            << QString::fromLatin1(pod)
                   .replace(QLatin1String(R"("a":"1",)"), QString())
                   .replace(QLatin1String(R"("resourceVersion":"1")"), QLatin1String(R"("resourceVersion":"2")"))
                   .replace(QLatin1String(R"("generation":1)"), QLatin1String(R"("generation":2)"));
        QTest::newRow("keys reordered, number respelled")
            << pod
            << QString::fromLatin1(pod)
                   .replace(QLatin1String(R"("a":"1","b":"2")"), QLatin1String(R"("b":"2","a":"1")"))
                   .replace(QLatin1String("80"), QLatin1String("80.0"));
        QTest::newRow("member added and subtree replaced")
            << pod
            << QString::fromLatin1(pod)
                   .replace(QLatin1String(R"("nodeName":"n1")"), QLatin1String(R"("nodeName":"n2","hostNetwork":true)"))
                   .replace(QLatin1String(R"("podIP":"10.0.0.1")"), QLatin1String(R"("podIP":["x"])"));
        QTest::newRow("kind only in the old version")
            << pod << QString::fromLatin1(pod).replace(QLatin1String(R"("kind":"Pod",)"), QString());
        QTest::newRow("metadata no longer an object")
            << pod << QString::fromLatin1(R"({"kind":"Pod","metadata":"x","spec":{"nodeName":"n1"}})");
    }
    void attributedChangesAreThoseOfAFullDiff()
    {
        QFETCH(QString, before);
        QFETCH(QString, after);
        const Json a = parseJson(before.toStdString()).value();
        const Json b = parseJson(after.toStdString()).value();
        DiffOptions opts;
        opts.hideManagedFields = opts.hideResourceVersion = opts.hideGeneration = true;
        const auto expected = diffObjects(a, b, opts);
        const auto got = attributeTransition(&a, b, modified()).changes;
        QCOMPARE(got.size(), expected.size());
        for (std::size_t i = 0; i < got.size(); ++i) {
            QCOMPARE(got[i].path.toString(), expected[i].path.toString());
            QCOMPARE(int(got[i].kind), int(expected[i].kind));
            QCOMPARE(toJsonText(got[i].oldValue), toJsonText(expected[i].oldValue));
            QCOMPARE(toJsonText(got[i].newValue), toJsonText(expected[i].newValue));
        }
    }

    void firstObservedVersionWithSeveralEntriesIsAmbiguous()
    {
        const Json v = configMap("9", {{"x", "1"}},
                                 Json::array({entry("a", "Update", "2026-07-20T09:00:00Z", R"({"f:data":{"f:x":{}}})"),
                                              entry("b", "Update", "2026-07-20T09:05:00Z",
                                                    R"({"f:data":{"f:y":{}}})")}));
        const auto r = attributeTransition(nullptr, v, {HistoryEventType::Listed, false, nullptr});
        QVERIFY(r.ambiguous);
        QCOMPARE(r.managerNames(), std::vector<std::string>{"b"});
    }

    void fieldTimelineShowsValuesAndOwnersAcrossVersions()
    {
        auto deploy = [](const std::string &rv, int replicas, Json mf) {
            return Json{{"kind", "Deployment"},
                        {"metadata", {{"name", "web"}, {"uid", "d1"}, {"resourceVersion", rv}, {"managedFields", mf}}},
                        {"spec", {{"replicas", replicas}}}};
        };
        const char *replicas = R"({"f:spec":{"f:replicas":{}}})";
        std::vector<Json> objects{
            deploy("1", 1, Json::array({entry("helm", "Update", "2026-07-20T09:00:00Z", replicas)})),
            deploy("2", 3,
                   Json::array({entry("helm", "Update", "2026-07-20T09:00:00Z", "{}"),
                                entry("kube-controller-manager", "Update", "2026-07-20T09:01:00Z", replicas,
                                      "scale")})),
            deploy("3", 3,
                   Json::array({entry("helm", "Update", "2026-07-20T09:00:00Z", "{}"),
                                entry("kube-controller-manager", "Update", "2026-07-20T09:01:00Z", replicas,
                                      "scale")}))};
        std::vector<VersionInfo> infos(3);
        for (int i = 0; i < 3; ++i) {
            infos[std::size_t(i)].seq = i + 1;
            infos[std::size_t(i)].resourceVersion = std::to_string(i + 1);
        }
        const FieldPath path({PathElement::makeField("spec"), PathElement::makeField("replicas")});
        const auto t = fieldTimeline(infos, objects, path);
        QCOMPARE(t.size(), std::size_t(3));
        QVERIFY(t[0].value == Json(1));
        QCOMPARE(t[0].owners.at(0).label(), std::string("helm(Update)"));
        QVERIFY(t[1].changed);
        QVERIFY(t[1].ownersChanged);
        QCOMPARE(t[1].owners.size(), std::size_t(1));
        QCOMPARE(t[1].owners[0].label(), std::string("kube-controller-manager(Update/scale)"));
        QVERIFY(!t[2].changed);
        QVERIFY(!t[2].ownersChanged);
    }

    // After five PUTs by other managers the first writer keeps an empty "f:labels": {}. That is a
    // claim on the labels map, not on its members: the timeline agrees with the Ownership tree.
    void anEmptyContainerClaimDoesNotOwnTheMembersOthersList()
    {
        const Json v = configMap("7", {{"x", "1"}},
                                 Json::array({entry("client-4", "Update", "2026-07-20T09:00:00Z",
                                                    R"({"f:data":{"f:x":{}}})"),
                                              entry("teacher", "Update", "2026-07-20T08:00:00Z", R"({"f:data":{}})")}));
        std::vector<VersionInfo> infos(1);
        infos[0].seq = 1;
        const FieldPath path({PathElement::makeField("data"), PathElement::makeField("x")});
        const auto t = fieldTimeline(infos, {v}, path);
        QCOMPARE(t.at(0).owners.size(), std::size_t(1));
        QCOMPARE(t[0].owners[0].label(), std::string("client-4(Update)"));
        // Nobody lists anything below it: then the leaf claim is an atomic subtree, owned whole.
        const Json atomic = configMap(
            "8", {{"x", "1"}}, Json::array({entry("teacher", "Update", "2026-07-20T08:00:00Z", R"({"f:data":{}})")}));
        QCOMPARE(fieldTimeline(infos, {atomic}, path).at(0).owners.size(), std::size_t(1));
    }
};

QTEST_GUILESS_MAIN(TestAttribution)
#include "tst_attribution.moc"
