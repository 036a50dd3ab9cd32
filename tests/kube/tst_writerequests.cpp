// The write request builders (kube/writes.h) without a server: verb, path with query, content type
// and body of each, the apply body without managedFields, and a malformed metadata.name that
// must not throw (the edit buffer is the user's text).
#include "kube/writes.h"

#include <QTest>

using namespace fieldscope;
using namespace fieldscope::kube;
using core::Json;

namespace {

ResourceInfo deployments()
{
    ResourceInfo r;
    r.group = "apps";
    r.version = "v1";
    r.resource = "deployments";
    r.kind = "Deployment";
    r.namespaced = true;
    return r;
}

Json deployment(Json name = "web")
{
    return Json{{"apiVersion", "apps/v1"},
                {"kind", "Deployment"},
                {"metadata",
                 {{"name", std::move(name)},
                  {"namespace", "prod"},
                  {"resourceVersion", "7"},
                  {"managedFields", Json::array({{{"manager", "kubectl"}}})}}},
                {"spec", {{"replicas", 2}}}};
}

Json bodyOf(const HttpRequest &req)
{
    return core::parseJson(req.body).value();
}

QString q(const std::string &s)
{
    return QString::fromStdString(s);
}

} // namespace

class TestWriteRequests : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void createPostsTheObjectToTheCollection()
    {
        WriteOptions o;
        o.dryRun = true;
        const HttpRequest req = createRequest(deployments(), "prod", deployment(), o);
        QCOMPARE(q(req.method), QStringLiteral("POST"));
        QCOMPARE(
            q(req.path),
            QStringLiteral(
                "/apis/apps/v1/namespaces/prod/deployments?fieldManager=fieldscope&fieldValidation=Strict&dryRun=All"));
        QCOMPARE(q(req.contentType), QStringLiteral("application/json"));
        QVERIFY(bodyOf(req) == deployment());
    }

    void replacePutsTheObjectAtItsNameAndSubresource()
    {
        WriteOptions o;
        o.subresource = "scale";
        o.fieldValidation.clear();
        o.force = true; // only apply sends force
        const HttpRequest req = replaceRequest(deployments(), "prod", deployment(), o);
        QCOMPARE(q(req.method), QStringLiteral("PUT"));
        QCOMPARE(q(req.path),
                 QStringLiteral("/apis/apps/v1/namespaces/prod/deployments/web/scale?fieldManager=fieldscope"));
        QCOMPARE(q(req.contentType), QStringLiteral("application/json"));
        QVERIFY(bodyOf(req) == deployment());
    }

    void patchSendsThePatchWithItsContentType_data()
    {
        QTest::addColumn<int>("type");
        QTest::addColumn<QString>("contentType");
        QTest::newRow("json") << int(PatchType::Json) << QStringLiteral("application/json-patch+json");
        QTest::newRow("merge") << int(PatchType::Merge) << QStringLiteral("application/merge-patch+json");
        QTest::newRow("strategic") << int(PatchType::StrategicMerge)
                                   << QStringLiteral("application/strategic-merge-patch+json");
    }
    void patchSendsThePatchWithItsContentType()
    {
        QFETCH(int, type);
        QFETCH(QString, contentType);
        const Json patch = compareAndSwapPatch("/spec/replicas", 2, 3);
        const HttpRequest req = patchRequest(deployments(), "prod", "web", PatchType(type), patch);
        QCOMPARE(q(req.method), QStringLiteral("PATCH"));
        QCOMPARE(q(req.path),
                 QStringLiteral(
                     "/apis/apps/v1/namespaces/prod/deployments/web?fieldManager=fieldscope&fieldValidation=Strict"));
        QCOMPARE(q(req.contentType), contentType);
        QVERIFY(bodyOf(req) == patch);
    }

    // A path through a keyed list and a set resolves to index pointers; the patch first tests that
    // each item at those indexes is still the one named (key fields, set member), then the value.
    void compareAndSwapPinsEveryListItemOnThePath()
    {
        const Json object = Json::parse(R"({"spec":{"containers":[
            {"name":"side","image":"x","args":["a"]},
            {"name":"app","image":"x","args":["--v","--q"]}]}})");
        using core::PathElement;
        const core::FieldPath image({PathElement::makeField("spec"), PathElement::makeField("containers"),
                                     PathElement::makeKey(Json{{"name", "app"}}), PathElement::makeField("image")});
        std::string pointer;
        std::vector<core::PointerPin> pins;
        QVERIFY(image.resolve(object, &pointer, nullptr, &pins));
        QCOMPARE(q(pointer), QStringLiteral("/spec/containers/1/image"));
        QVERIFY(compareAndSwapPatch(pointer, "x", "y", pins) == Json::parse(R"([
            {"op":"test","path":"/spec/containers/1/name","value":"app"},
            {"op":"test","path":"/spec/containers/1/image","value":"x"},
            {"op":"replace","path":"/spec/containers/1/image","value":"y"}])"));

        const core::FieldPath arg({PathElement::makeField("spec"), PathElement::makeField("containers"),
                                   PathElement::makeKey(Json{{"name", "app"}}), PathElement::makeField("args"),
                                   PathElement::makeValue("--q")});
        QVERIFY(arg.resolve(object, &pointer, nullptr, &pins));
        QCOMPARE(q(pointer), QStringLiteral("/spec/containers/1/args/1"));
        QCOMPARE(pins.size(), std::size_t(2));
        QCOMPARE(q(pins[1].pointer), QStringLiteral("/spec/containers/1/args/1"));
        QVERIFY(pins[1].value == "--q");
        // A path that does not resolve leaves no pins behind.
        const core::FieldPath gone({PathElement::makeField("spec"), PathElement::makeField("containers"),
                                    PathElement::makeKey(Json{{"name", "gone"}})});
        QVERIFY(!gone.resolve(object, &pointer, nullptr, &pins));
        QVERIFY(pins.empty());
    }

    void applySendsForceAndNoManagedFields()
    {
        WriteOptions o;
        o.fieldManager = "team a";
        o.force = true;
        const HttpRequest req = applyRequest(deployments(), "prod", deployment(), o);
        QCOMPARE(q(req.method), QStringLiteral("PATCH"));
        QCOMPARE(
            q(req.path),
            QStringLiteral(
                "/apis/apps/v1/namespaces/prod/deployments/web?fieldManager=team%20a&fieldValidation=Strict&force=true"));
        QCOMPARE(q(req.contentType), QStringLiteral("application/apply-patch+yaml"));
        Json expected = deployment();
        expected["metadata"].erase("managedFields");
        QVERIFY(bodyOf(req) == expected);
    }

    // A user's edit with `name: 5` or `metadata: []` reaches the server (which says what is
    // wrong) instead of throwing a type_error out of the builder.
    void aNameThatIsNotAStringIsSentWithoutOne()
    {
        const HttpRequest byNumber = replaceRequest(deployments(), "prod", deployment(5));
        QCOMPARE(q(byNumber.path),
                 QStringLiteral(
                     "/apis/apps/v1/namespaces/prod/deployments/?fieldManager=fieldscope&fieldValidation=Strict"));
        Json noMetadata = deployment();
        noMetadata["metadata"] = Json::array();
        const HttpRequest applied = applyRequest(deployments(), "prod", noMetadata);
        QCOMPARE(q(applied.path),
                 QStringLiteral(
                     "/apis/apps/v1/namespaces/prod/deployments/?fieldManager=fieldscope&fieldValidation=Strict"));
        QVERIFY(bodyOf(applied) == noMetadata);
    }
};

QTEST_GUILESS_MAIN(TestWriteRequests)
#include "tst_writerequests.moc"
