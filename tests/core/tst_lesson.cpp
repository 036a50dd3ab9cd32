// core::parseLesson: a lesson file is written by a teacher; every mistake in it is
// refused with the file, the line to fix and the reason.
#include "core/base/jsonread.h"
#include "core/lessons/lesson.h"
#include "core/lessons/lessonrequests.h"
#include "core/yaml/yaml.h"

#include <QDir>
#include <QFile>
#include <QTest>

#include <algorithm>

using namespace fieldscope::core;

namespace {

const char *kGood = R"(title: Conflicting creates
summary: Five clients create the same object.
object: {apiVersion: v1, kind: ConfigMap, name: demo}
steps:
- title: Five creates at once
  narrative: One wins.
  view: table
  highlight: /metadata/labels/client
  requests:
  - verb: create
    clients: 5
    manager: client-{i}
    object:
      apiVersion: v1
      kind: ConfigMap
      metadata: {name: demo, labels: {client: "{i}"}}
  expect:
    succeeded: 1
    errors: {AlreadyExists: 4}
    values: {/metadata/labels/client: "{winner}"}
)";

// Replaces the first occurrence of `from` in the good lesson.
std::string edited(const std::string &from, const std::string &to)
{
    std::string s = kGood;
    const auto at = s.find(from);
    if (at == std::string::npos)
        qFatal("test text not found: %s", from.c_str());
    return s.replace(at, from.size(), to);
}

struct Refusal {
    std::string s;
    bool contains(const char *x) const { return s.find(x) != std::string::npos; }
    bool startsWith(const char *x) const { return s.rfind(x, 0) == 0; }
};

// The message of the error parseLesson gives for `text` ("<accepted>" when it parses).
Refusal refusal(const std::string &text)
{
    auto r = parseLesson(text, "mine.yaml");
    if (r.ok())
        return {"<accepted>"};
    return {r.error().message};
}

} // namespace

class TestLesson : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void aGoodLessonReadsEveryField()
    {
        auto r = parseLesson(kGood, "/some/dir/conflicting-creates.yaml");
        QVERIFY2(r.ok(), r.ok() ? "" : r.error().message.c_str());
        QCOMPARE(r->name, std::string("conflicting-creates")); // the file's base name
        QCOMPARE(r->ns, std::string("fs-lesson-conflicting-creates"));
        QCOMPARE(r->steps.size(), std::size_t(1));
        const LessonStep &s = r->steps[0];
        QCOMPARE(s.view, LessonView::Table);
        QCOMPARE(s.highlight, std::string("/metadata/labels/client"));
        QCOMPARE(s.focus, (LessonTarget{"v1", "ConfigMap", "demo"}));
        QCOMPARE(s.requests.size(), std::size_t(1));
        QCOMPARE(s.requests[0].clients, 5);
        QCOMPARE(s.requests[0].verb, LessonVerb::Create);
        QCOMPARE(s.requests[0].target, (LessonTarget{"v1", "ConfigMap", "demo"}));
        QCOMPARE(*s.expect.succeeded, 1);
        QCOMPARE(s.expect.errors.at("AlreadyExists"), 4);
        QCOMPARE(s.expect.values.at(0).second.get<std::string>(), std::string("{winner}"));
    }

    void clientNumbersExpandInManagersAndManifests()
    {
        auto r = parseLesson(kGood, "x.yaml");
        QVERIFY(r.ok());
        const LessonRequest &q = r->steps[0].requests[0];
        QCOMPARE(expandClient(q.manager, 3), std::string("client-3"));
        QCOMPARE(expandClient(q.object, 4)["metadata"]["labels"]["client"].get<std::string>(), std::string("4"));
        QCOMPARE(expandClient(std::string("{i}{i}x"), 12), std::string("1212x"));
    }

    void aYamlSyntaxErrorNamesTheFileAndLine()
    {
        const Refusal m = refusal(edited("view: table", "view: [table"));
        QVERIFY2(m.startsWith("mine.yaml (line "), m.s.c_str());
    }

    void aMisspelledKeyIsRefusedOnItsLine()
    {
        const Refusal m = refusal(edited("  view: table", "  veiw: table"));
        QVERIFY2(m.startsWith("mine.yaml:7: unknown key \"veiw\""), m.s.c_str());
        QVERIFY2(m.contains("narrative"), m.s.c_str()); // lists what is expected
    }

    void aMissingRequiredKeyNamesWhereItBelongs()
    {
        QCOMPARE(refusal(edited("  narrative: One wins.\n", "")).s,
                 std::string("mine.yaml:5: \"narrative\" is missing"));
        QVERIFY(refusal(edited("title: Conflicting creates\n", "")).contains("\"title\" is missing"));
    }

    void aWrongTypeIsRefused()
    {
        QCOMPARE(refusal(edited("clients: 5", "clients: five")).s,
                 std::string("mine.yaml:11: \"clients\" must be a whole number from 1 to 50"));
        QCOMPARE(refusal(edited("clients: 5", "clients: 500")).s,
                 std::string("mine.yaml:11: \"clients\" must be a whole number from 1 to 50"));
        {
            const Refusal m = refusal(edited("- title: Five creates at once", "- title: [a]"));
            QVERIFY2(m.contains("must be text, not an array"), m.s.c_str());
        }
    }

    void ownersMayNameTheSubresourceEachManagerWroteThrough()
    {
        auto r = parseLesson(edited("    values: {/metadata/labels/client: \"{winner}\"}\n",
                                    "    values: {/metadata/labels/client: \"{winner}\"}\n"
                                    "    owners:\n"
                                    "      /metadata/labels/client: [{manager: scaler, subresource: scale}, kubectl]\n"
                                    "      /metadata/name: [kubectl]\n"),
                             "x.yaml");
        QVERIFY2(r.ok(), r.ok() ? "" : r.error().message.c_str());
        const auto &owners = r->steps[0].expect.owners;
        QCOMPARE(owners.size(), std::size_t(2));
        const auto byPointer = [&owners](const std::string &p) {
            return *std::find_if(owners.begin(), owners.end(), [&p](const auto &o) { return o.pointer == p; });
        };
        const LessonOwnerExpectation client = byPointer("/metadata/labels/client");
        QCOMPARE(client.managers, (std::vector<std::string>{"scaler", "kubectl"}));
        QVERIFY(client.subresources.has_value()); // named for one: compared for every owner
        QCOMPARE(*client.subresources, (std::vector<std::string>{"scale", ""}));
        QVERIFY(!byPointer("/metadata/name").subresources.has_value()); // names alone: any subresource
    }

    void anOwnerWithAnUnknownSubresourceOrKeyIsRefusedOnItsLine_data()
    {
        QTest::addColumn<QString>("owner");
        QTest::addColumn<QString>("message");
        QTest::newRow("subresource") << "{manager: scaler, subresource: scales}"
                                     << "mine.yaml:22: \"subresource\" must be status or scale";
        QTest::newRow("misspelled key") << "{manager: scaler, subresorce: scale}"
                                        << "mine.yaml:22: unknown key \"subresorce\"";
        QTest::newRow("no manager") << "{subresource: scale}"
                                    << "mine.yaml:22: \"manager\" is missing";
        QTest::newRow("a number") << "7"
                                  << "mine.yaml:22: an owner is a field manager name or {manager, subresource}";
    }
    void anOwnerWithAnUnknownSubresourceOrKeyIsRefusedOnItsLine()
    {
        QFETCH(QString, owner);
        QFETCH(QString, message);
        const Refusal m = refusal(edited("    values: {/metadata/labels/client: \"{winner}\"}\n",
                                         "    values: {/metadata/labels/client: \"{winner}\"}\n"
                                         "    owners:\n"
                                         "      /metadata/labels/client: ["
                                             + owner.toStdString() + "]\n"));
        QVERIFY2(m.startsWith(message.toStdString().c_str()), m.s.c_str());
    }

    void anUnknownVerbOrViewIsRefused()
    {
        QVERIFY(refusal(edited("verb: create", "verb: put")).startsWith("mine.yaml:10: unknown verb \"put\""));
        QVERIFY(refusal(edited("view: table", "view: graph")).startsWith("mine.yaml:7: unknown view \"graph\""));
    }

    void aManifestWithoutANameOrWithANamespaceIsRefused()
    {
        QVERIFY(refusal(edited("metadata: {name: demo, ", "metadata: {")).contains("\"name\" is missing"));
        QVERIFY(refusal(edited("metadata: {name: demo, ", "metadata: {namespace: x, name: demo, "))
                    .contains("leave metadata.namespace out"));
        QVERIFY(
            refusal(edited("{name: demo, labels", "{name: \"demo-{i}\", labels")).contains("cannot be in its name"));
    }

    void expectingMoreAnswersThanRequestsIsRefused()
    {
        QVERIFY(
            refusal(edited("AlreadyExists: 4", "AlreadyExists: 5")).contains("sends 5 requests but expects 6 answers"));
    }

    void aPreconditionOnAStepThatHasNotRunIsRefused()
    {
        const Refusal m = refusal(edited("    clients: 5\n",
                                         "    clients: 5\n    precondition: {resourceVersionAfterStep: 1}\n"));
        QVERIFY2(m.contains("create takes no resourceVersion precondition") || m.contains("has not run yet"),
                 m.s.c_str());
        std::string patch = kGood;
        patch += R"(- title: Patch
  narrative: x
  requests:
  - verb: merge-patch
    patch: {data: {a: "1"}}
    precondition: {resourceVersionAfterStep: 2}
)";
        QVERIFY(refusal(patch).contains("step 2 has not run yet when step 2"));
    }

    void optionsThatDoNotFitTheVerbAreRefused()
    {
        QVERIFY(refusal(edited("    clients: 5\n", "    clients: 5\n    force: true\n"))
                    .contains("\"force\" only means something for apply"));
        QVERIFY(refusal(edited("    clients: 5\n", "    clients: 5\n    retry: true\n")).contains("works with update"));
        QVERIFY(refusal(edited("verb: create", "verb: json-patch")).contains("\"target\" and sends \"patch\""));
    }

    void aBadJsonPatchOperationIsRefused()
    {
        std::string s = kGood;
        s += R"(- title: Patch
  narrative: x
  requests:
  - verb: json-patch
    patch:
    - {op: test, path: /data/foo}
)";
        {
            const Refusal m = refusal(s);
            QVERIFY2(m.s == "mine.yaml:26: \"test\" needs a \"value\"", m.s.c_str());
        }
        s.replace(s.find("{op: test, path: /data/foo}"), 27, "{op: swap, path: /data/foo}");
        QVERIFY(refusal(s).contains("unknown JSON Patch operation \"swap\""));
        s.replace(s.find("{op: swap, path: /data/foo}"), 27, "{op: remove, path: data/foo}");
        QVERIFY(refusal(s).contains("is not a JSON Pointer"));
    }

    void aNamespaceTheLessonWouldDamageIsRefused()
    {
        QVERIFY(refusal(std::string("namespace: kube-system\n") + kGood).contains("use one of its own"));
        QVERIFY(refusal(std::string("namespace: default\n") + kGood).contains("use one of its own"));
        QVERIFY(refusal(std::string("namespace: Not_Valid\n") + kGood).contains("not a valid namespace name"));
        QVERIFY(refusal(std::string("name: Lesson One\n") + kGood).contains("must be lower-case letters"));
    }

    void aFileThatIsNotALessonIsRefused()
    {
        QVERIFY(refusal("- a\n- b\n").contains("a lesson file is a mapping"));
        QVERIFY(refusal("").contains("empty"));
        QVERIFY(refusal(std::string(kMaxLessonFileBytes + 1, '#')).contains("at most 1 MiB"));
        QVERIFY(refusal(edited("steps:\n", "steps: []\nx:\n")).contains("unknown key \"x\""));
    }

    void yamlLineMapGivesKeysAndListItems()
    {
        YamlLineMap lines;
        auto r = yamlToJsonWithLines("a:\n  b: 1\n  c:\n  - x\n  - {d: 2}\n", lines);
        QVERIFY(r.ok());
        QCOMPARE(lines.at("/a"), 1);
        QCOMPARE(lines.at("/a/b"), 2);
        QCOMPARE(lines.at("/a/c/0"), 4);
        QCOMPARE(lines.at("/a/c/1/d"), 5);
    }

    // A merge patch with a precondition carries the resourceVersion in patch.metadata: one that
    // is not a mapping cannot be built, so `lesson check` refuses it on its line (it used to pass
    // the check and end `lesson run` with std::terminate).
    void aPreconditionWhosePatchMetadataIsNotAMappingIsRefusedOnItsLine_data()
    {
        QTest::addColumn<QString>("precondition");
        QTest::addColumn<QString>("metadata");
        QTest::addColumn<QString>("type");
        const QString read = QStringLiteral("resourceVersion");
        QTest::newRow("resourceVersion, text") << read << QStringLiteral("not-a-mapping") << QStringLiteral("a string");
        QTest::newRow("resourceVersion, list") << read << QStringLiteral("[a, b]") << QStringLiteral("an array");
        QTest::newRow("resourceVersion, null") << read << QStringLiteral("null") << QStringLiteral("null");
        QTest::newRow("after step 1, number")
            << QStringLiteral("{resourceVersionAfterStep: 1}") << QStringLiteral("5") << QStringLiteral("a number");
    }
    void aPreconditionWhosePatchMetadataIsNotAMappingIsRefusedOnItsLine()
    {
        QFETCH(QString, precondition);
        QFETCH(QString, metadata);
        QFETCH(QString, type);
        const std::string s = std::string(kGood)
                            + "- title: Patch\n  narrative: x\n  requests:\n  - verb: merge-patch\n    precondition: "
                            + precondition.toStdString() + "\n    patch:\n      metadata: " + metadata.toStdString()
                            + "\n      data: {a: \"2\"}\n";
        const Refusal m = refusal(s);
        const std::string want = "mine.yaml:27: \"metadata\" must be a mapping, not " + type.toStdString();
        QVERIFY2(m.startsWith(want.c_str()), m.s.c_str());
    }

    void aPatchMetadataThatIsNotAMappingIsTheServersBusinessWithoutAPrecondition()
    {
        const std::string s =
            std::string(kGood)
            + "- title: Patch\n  narrative: x\n  requests:\n  - verb: merge-patch\n    patch: {metadata: text, data: {a: \"2\"}}\n";
        QCOMPARE(refusal(s).s, std::string("<accepted>"));
    }

    void requestsAreBuiltForEachClientAndWrite()
    {
        auto lesson = parseLesson(kGood, "mine.yaml");
        QVERIFY(lesson.ok());
        const LessonRequestPaths paths{"/api/v1/namespaces/ns/configmaps", "/api/v1/namespaces/ns/configmaps/demo"};
        auto create = buildLessonWrite(lesson->steps[0].requests[0], paths, 3, 1, Json(), "");
        QVERIFY(create.ok());
        QCOMPARE(create->method, std::string("POST"));
        QCOMPARE(create->path,
                 std::string("/api/v1/namespaces/ns/configmaps?fieldManager=client-3&fieldValidation=Strict"));
        QCOMPARE(create->contentType, std::string("application/json"));
        QCOMPARE(stringAt(parseJson(create->body).value(), "/metadata/labels/client"), std::optional<std::string>("3"));

        LessonRequest patch;
        patch.verb = LessonVerb::MergePatch;
        patch.manager = "teacher {i}/{n}";
        patch.patch = Json{{"data", {{"a", "{n}"}}}};
        auto merge = buildLessonWrite(patch, paths, 2, 4, Json(), "812");
        QVERIFY(merge.ok());
        QCOMPARE(merge->method, std::string("PATCH"));
        QCOMPARE(merge->path, paths.object + "?fieldManager=teacher%202%2F4&fieldValidation=Strict");
        QCOMPARE(merge->contentType, std::string("application/merge-patch+json"));
        QVERIFY(jsonEqual(parseJson(merge->body).value(),
                          (Json{{"data", {{"a", "4"}}}, {"metadata", {{"resourceVersion", "812"}}}})));

        patch.verb = LessonVerb::JsonPatch;
        patch.patch = Json::array({{{"op", "add"}, {"path", "/data/b"}, {"value", "{i}"}}});
        auto json = buildLessonWrite(patch, paths, 5, 1, Json(), "9");
        QVERIFY(json.ok());
        QCOMPARE(json->contentType, std::string("application/json-patch+json"));
        QVERIFY(jsonEqual(parseJson(json->body).value(),
                          Json::array({{{"op", "replace"}, {"path", "/metadata/resourceVersion"}, {"value", "9"}},
                                       {{"op", "add"}, {"path", "/data/b"}, {"value", "5"}}})));

        LessonRequest update;
        update.verb = LessonVerb::Update;
        update.manager = "m";
        update.object = Json{
            {"apiVersion", "v1"}, {"kind", "ConfigMap"}, {"metadata", {{"name", "demo"}}}, {"data", {{"a", "{i}"}}}};
        // The read object is the server's: whatever its shape, the manifest merges into it.
        const Json read{{"metadata", "weird"}, {"data", {{"keep", "x"}}}};
        auto put = buildLessonWrite(update, paths, 1, 1, read, "77");
        QVERIFY(put.ok());
        QCOMPARE(put->method, std::string("PUT"));
        QVERIFY(jsonEqual(parseJson(put->body).value(),
                          (Json{{"metadata", {{"name", "demo"}, {"resourceVersion", "77"}}},
                                {"data", {{"keep", "x"}, {"a", "1"}}},
                                {"apiVersion", "v1"},
                                {"kind", "ConfigMap"}})));

        LessonRequest apply;
        apply.verb = LessonVerb::Apply;
        apply.manager = "m";
        apply.force = true;
        apply.object = Json{{"metadata", {{"name", "demo"}, {"managedFields", Json::array()}}}};
        auto ssa = buildLessonWrite(apply, paths, 1, 1, Json(), "");
        QVERIFY(ssa.ok());
        QCOMPARE(ssa->contentType, std::string("application/apply-patch+yaml"));
        QVERIFY(ssa->path.ends_with("&force=true"));
        QVERIFY(jsonEqual(parseJson(ssa->body).value(), (Json{{"metadata", {{"name", "demo"}}}})));
    }

    // Every request of every shipped lesson builds for every client and write, as the runner
    // sends it (with the read object and resourceVersion it would have).
    void everyShippedLessonBuildsEveryRequest()
    {
        const QDir dir(QStringLiteral(FIELDSCOPE_SOURCE_DIR "/resources/lessons"));
        const QStringList files = dir.entryList({QStringLiteral("*.yaml")}, QDir::Files, QDir::Name);
        QVERIFY(files.size() >= 8);
        const Json read{{"apiVersion", "v1"}, {"metadata", {{"name", "x"}, {"resourceVersion", "5"}}}};
        int built = 0;
        for (const QString &f : files) {
            QFile file(dir.filePath(f));
            QVERIFY(file.open(QIODevice::ReadOnly));
            const QByteArray text = file.readAll();
            auto lesson = parseLesson(std::string_view(text.constData(), std::size_t(text.size())), f.toStdString());
            QVERIFY2(lesson.ok(), lesson.ok() ? "" : lesson.error().message.c_str());
            for (const LessonStep &step : lesson->steps) {
                for (const LessonRequest &q : step.requests) {
                    const bool withVersion = q.precondition != LessonPrecondition::None || q.retry;
                    for (int client = 1; client <= q.clients; ++client) {
                        for (int write = 1; write <= q.repeat; ++write) {
                            auto r = buildLessonWrite(q, {"/c", "/c/o"}, client, write,
                                                      q.verb == LessonVerb::Update ? read : Json(),
                                                      withVersion ? "5" : "");
                            QVERIFY2(r.ok(), (f.toStdString() + ": " + (r.ok() ? "" : r.error().message)).c_str());
                            QVERIFY(r->path.find("fieldManager=") != std::string::npos);
                            auto body = parseJson(r->body);
                            QVERIFY(body.ok());
                            if (withVersion && q.verb != LessonVerb::JsonPatch)
                                QCOMPARE(stringAt(*body, "/metadata/resourceVersion"), std::optional<std::string>("5"));
                            ++built;
                        }
                    }
                }
            }
        }
        QVERIFY(built > 20);
    }

    // Every lesson the product ships must load (the integration test runs them).
    void everyShippedLessonParses()
    {
        const QDir dir(QStringLiteral(FIELDSCOPE_SOURCE_DIR "/resources/lessons"));
        const QStringList files = dir.entryList({QStringLiteral("*.yaml")}, QDir::Files, QDir::Name);
        QVERIFY(files.size() >= 8);
        for (const QString &f : files) {
            QFile file(dir.filePath(f));
            QVERIFY(file.open(QIODevice::ReadOnly));
            const QByteArray text = file.readAll();
            auto r = parseLesson(std::string_view(text.constData(), std::size_t(text.size())), f.toStdString());
            QVERIFY2(r.ok(), r.ok() ? "" : r.error().message.c_str());
            QVERIFY(!r->steps.empty());
        }
    }
};

QTEST_GUILESS_MAIN(TestLesson)
#include "tst_lesson.moc"
