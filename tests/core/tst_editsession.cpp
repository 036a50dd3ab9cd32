// The object editor's decisions (core/edit/editsession.h) without a window or a cluster: the body each
// write mode sends, what a refusal leads to, the SSA conflict rows (from a recorded 409), the
// failed tests of a JSON Patch, the per-field resolutions and the buffer they lead to, the merge
// of a stale edit onto the current object, rebase, and what a write changed.
#include "core/base/jsonread.h"
#include "core/edit/editsession.h"
#include "core/yaml/yaml.h"
#include "kube/apierror.h"

#include <QFile>
#include <QTest>

#include <algorithm>

using namespace fieldscope;
using namespace fieldscope::core;

namespace {

// A ConfigMap as the server sends it: "fieldscope" applied color and size, "other-tool" applied
// color too (with the same value then), and "kubectl-create" wrote `note` with an Update.
const char *const kConfigMap = R"y(
apiVersion: v1
kind: ConfigMap
metadata:
  name: edit-conflict
  namespace: gui-editor
  uid: 0f1e2d3c-4b5a-6978-8a9b-0c1d2e3f4a5b
  resourceVersion: "100"
  creationTimestamp: "2026-11-25T10:00:00Z"
  managedFields:
  - manager: fieldscope
    operation: Apply
    apiVersion: v1
    time: "2026-11-25T10:00:00Z"
    fieldsType: FieldsV1
    fieldsV1:
      f:data:
        f:color: {}
        f:size: {}
  - manager: other-tool
    operation: Apply
    apiVersion: v1
    time: "2026-11-25T10:01:00Z"
    fieldsType: FieldsV1
    fieldsV1:
      f:data:
        f:color: {}
  - manager: kubectl-create
    operation: Update
    apiVersion: v1
    time: "2026-11-25T09:59:00Z"
    fieldsType: FieldsV1
    fieldsV1:
      f:data:
        .: {}
        f:note: {}
data:
  color: red
  size: small
  note: keep
)y";

Json yaml(const char *text)
{
    auto parsed = yamlToJson(text);
    if (!parsed)
        qFatal("test YAML does not parse: %s", parsed.error().message.c_str());
    return parsed->value;
}

Json configMap()
{
    return yaml(kConfigMap);
}

// The live ConfigMap with data.<key> = value and another resourceVersion: what a later GET returns.
Json changedConfigMap(const char *key, const char *value, const char *resourceVersion)
{
    Json live = configMap();
    live["data"][key] = value;
    live["metadata"]["resourceVersion"] = resourceVersion;
    return live;
}

EditSession openedSession(const Json &live = configMap())
{
    EditSession session;
    auto v = EditSession::readVersion(live, false);
    if (!v)
        qFatal("the test object does not read: %s", v.error().message.c_str());
    session.open(std::move(*v));
    return session;
}

// The buffer as opened with data.<key> set (or removed when value is null).
Json edited(const EditSession &session, const char *key, const char *value)
{
    Json out = session.opened();
    if (value)
        out["data"][key] = value;
    else
        out["data"].erase(key);
    return out;
}

WritePlan plan(const EditSession &session, WriteMode mode, const Json &buffer, bool force = false)
{
    auto p = EditSession::planWrite(session.writeBase(), mode, buffer, force, "fieldscope");
    if (!p) { // an empty plan: the test's comparisons fail and say where
        qWarning("planWrite failed: %s", p.error().message.c_str());
        return {};
    }
    return std::move(*p);
}

std::string text(const Json &j)
{
    return toJsonText(j);
}

struct RecordedAnswer {
    int status = 0;
    std::string body;
};

// The 409 a v1.20.2 apiserver answered to `kubectl apply --server-side` of data.a, recorded in
// tests/data/audit/rr-audit.log (the audit event's responseObject).
RecordedAnswer recorded409()
{
    QFile log(QStringLiteral(FIELDSCOPE_TEST_DATA "/audit/rr-audit.log"));
    if (!log.open(QIODevice::ReadOnly))
        return {};
    while (!log.atEnd()) {
        const QByteArray line = log.readLine();
        if (!line.contains("FieldManagerConflict"))
            continue;
        auto event = parseJson(std::string_view(line.constData(), std::size_t(line.size())));
        if (!event || !event->is_object() || !event->contains("responseObject"))
            continue;
        const Json &status = (*event)["responseObject"];
        return {status.is_object() && status.contains("code") && status["code"].is_number_integer()
                    ? status["code"].get<int>()
                    : 0,
                toJsonText(status)};
    }
    return {};
}
} // namespace

class TestEditSession : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void readVersionKeepsServerFieldsOutOfTheBufferButInTheLiveObject();
    void readVersionOfANonObjectIsAParseError();
    void shapeProblemNamesANonObjectAndAMissingName_data();
    void shapeProblemNamesANonObjectAndAMissingName();
    void applySendsOwnedAndChangedFieldsNeverTheWholeBuffer();
    void applySaysWhichDeletionsItCannotMakeExceptFieldsGivenUp();
    void applySendsCoOwnedFieldsThoughTheyAreUnchanged();
    void replaceCarriesTheBaseResourceVersionAsPrecondition();
    void mergePatchHoldsOnlyTheChangesSinceTheBase();
    void jsonPatchTestsTheOpenedValueOfEachChangedField();
    void jsonPatchWithoutChangesSendsNothing();
    void aBufferWithoutANameIsNotPlanned();
    void refusalDecidesWhatTheEditorShows_data();
    void refusalDecidesWhatTheEditorShows();
    void conflictRowsOfARecorded409NameTheOwnerAndBothValues();
    void conflictRowsFindListItemsByTheirKeys();
    void conflictRowsWithoutTheLiveObjectLeaveTheLiveValueUnset();
    void failedTestsNameTheMovedFieldWithItsOpenedAndCurrentValue();
    void failedTestsOfAnUnchangedObjectAreNone();
    void perFieldResolutionsMakeOneResendThatForcesOnlyIfAFieldChoseForce();
    void anUndecidedFieldPlansNoResend();
    void resolvedBufferDropsGivenUpFieldsAndTakesLiveValuesForCoOwnedOnes();
    void resolvedBufferRefusesAPathThatIsNotThere();
    void nonOverlappingChangesMergeOntoTheCurrentVersionByThemselves();
    void aFieldBothSidesChangedWaitsForTheUsersChoice();
    void aStaleEditMergesACustomListItemByItemAsItsManagedFieldsKeyIt();
    void writeSummarySaysWhoseFieldTheWriteTakesAndWhatChanged();
    void aWrittenVersionBecomesTheBaseAndResolutionsStartOver();
    void rebaseMovesThePreconditionToTheCurrentVersion();
    void aMergeMakesTheCurrentVersionTheBase();
    void aRestoredDraftIsJudgedAgainstTheVersionItWasMadeOn();
    void onlyASentJsonPatchIsKeptToExplainARefusal();
    void theObjectReadAfterARefusalIsTheCurrentAndTheLiveObject();
};

void TestEditSession::readVersionKeepsServerFieldsOutOfTheBufferButInTheLiveObject()
{
    Json live = configMap();
    live["status"] = Json{{"phase", "Ready"}};
    auto v = EditSession::parseVersion(toJsonText(live), true);
    QVERIFY(v);
    QCOMPARE(v->resourceVersion, std::string("100"));
    QCOMPARE(v->namespace_, std::string("gui-editor"));
    QCOMPARE(v->name, std::string("edit-conflict"));
    QVERIFY(!v->editable["metadata"].contains("managedFields"));
    QVERIFY(!v->editable["metadata"].contains("resourceVersion"));
    QVERIFY(!v->editable.contains("status")); // the type has a status subresource
    QVERIFY(v->live["metadata"].contains("managedFields"));
    QVERIFY(v->yaml.find("color: red") != std::string::npos);
    QVERIFY(v->yaml.find("managedFields") == std::string::npos);
    auto withStatus = EditSession::readVersion(live, false);
    QVERIFY(withStatus && withStatus->editable.contains("status")); // ordinary data otherwise
}

void TestEditSession::readVersionOfANonObjectIsAParseError()
{
    auto v = EditSession::parseVersion("[1, 2]", false);
    QVERIFY(!v);
    QCOMPARE(v.error().category, ErrorCategory::Parse);
    QVERIFY(!EditSession::parseVersion("{\"kind\":", false));
}

void TestEditSession::shapeProblemNamesANonObjectAndAMissingName_data()
{
    QTest::addColumn<QString>("buffer");
    QTest::addColumn<int>("problem");
    QTest::newRow("list") << QStringLiteral("- a\n- b\n") << int(ShapeProblem::NotAnObject);
    QTest::newRow("scalar") << QStringLiteral("hello\n") << int(ShapeProblem::NotAnObject);
    QTest::newRow("no metadata") << QStringLiteral("kind: ConfigMap\n") << int(ShapeProblem::NoName);
    QTest::newRow("empty name") << QStringLiteral("metadata:\n  name: \"\"\n") << int(ShapeProblem::NoName);
    QTest::newRow("name not a string") << QStringLiteral("metadata:\n  name: [a]\n") << int(ShapeProblem::NoName);
    QTest::newRow("named") << QStringLiteral("metadata:\n  name: x\n") << int(ShapeProblem::None);
}

void TestEditSession::shapeProblemNamesANonObjectAndAMissingName()
{
    QFETCH(QString, buffer);
    QFETCH(int, problem);
    auto parsed = yamlToJson(buffer.toStdString());
    QVERIFY(parsed);
    QCOMPARE(int(EditSession::shapeProblem(parsed->value)), problem);
}

void TestEditSession::applySendsOwnedAndChangedFieldsNeverTheWholeBuffer()
{
    const EditSession session = openedSession();
    const WritePlan p = plan(session, WriteMode::Apply, edited(session, "color", "green"), true);
    QCOMPARE(p.mode, WriteMode::Apply);
    QVERIFY(p.force);
    QCOMPARE(text(p.body["data"]), std::string(R"j({"color":"green","size":"small"})j")); // note is kubectl-create's
    QCOMPARE(text(p.body["metadata"]), std::string(R"j({"name":"edit-conflict","namespace":"gui-editor"})j"));
    QVERIFY(p.notRemovable.empty());
    QVERIFY(!plan(session, WriteMode::Apply, edited(session, "color", "green")).force);
}

void TestEditSession::applySaysWhichDeletionsItCannotMakeExceptFieldsGivenUp()
{
    EditSession session = openedSession();
    const Json withoutNote = edited(session, "note", nullptr);
    QCOMPARE(plan(session, WriteMode::Apply, withoutNote).notRemovable, std::vector<std::string>{".data.note"});
    session.noteResolution({{".data.note"}, {}, false}); // removed by "give up": on purpose
    QVERIFY(plan(session, WriteMode::Apply, withoutNote).notRemovable.empty());
    // Deleting an owned field is not a failed deletion: the apply leaves it out and the server drops it.
    const WritePlan withoutSize = plan(session, WriteMode::Apply, edited(session, "size", nullptr));
    QVERIFY(withoutSize.notRemovable.empty());
    QVERIFY(!withoutSize.body["data"].contains("size"));
}

void TestEditSession::applySendsCoOwnedFieldsThoughTheyAreUnchanged()
{
    EditSession session = openedSession();
    QVERIFY(!plan(session, WriteMode::Apply, session.opened()).body["data"].contains("note"));
    session.noteResolution({{}, {".data.note"}, false});
    QCOMPARE(plan(session, WriteMode::Apply, session.opened()).body["data"]["note"].get<std::string>(),
             std::string("keep"));
}

void TestEditSession::replaceCarriesTheBaseResourceVersionAsPrecondition()
{
    const EditSession session = openedSession();
    const WritePlan p = plan(session, WriteMode::Replace, edited(session, "color", "green"));
    QCOMPARE(p.body["metadata"]["resourceVersion"].get<std::string>(), std::string("100"));
    QCOMPARE(text(p.body["data"]),
             std::string(R"j({"color":"green","size":"small","note":"keep"})j")); // the whole object
}

void TestEditSession::mergePatchHoldsOnlyTheChangesSinceTheBase()
{
    const EditSession session = openedSession();
    Json buffer = edited(session, "color", "green");
    buffer["data"].erase("note");
    // A merge patch is an object: its keys' order means nothing to the server.
    const Json body = plan(session, WriteMode::MergePatch, buffer).body;
    QVERIFY2(jsonEqual(body, parseJson(R"j({"data":{"color":"green","note":null}})j").value()), text(body).c_str());
}

void TestEditSession::jsonPatchTestsTheOpenedValueOfEachChangedField()
{
    const EditSession session = openedSession();
    const WritePlan p = plan(session, WriteMode::JsonPatch, edited(session, "color", "green"));
    QVERIFY(!p.sendsNothing());
    QCOMPARE(
        text(p.body),
        std::string(
            R"j([{"op":"test","path":"/data/color","value":"red"},{"op":"replace","path":"/data/color","value":"green"}])j"));
}

void TestEditSession::jsonPatchWithoutChangesSendsNothing()
{
    const EditSession session = openedSession();
    QVERIFY(plan(session, WriteMode::JsonPatch, session.opened()).sendsNothing());
    QVERIFY(!plan(session, WriteMode::MergePatch, session.opened())
                 .sendsNothing()); // an empty merge patch is still a request
}

void TestEditSession::aBufferWithoutANameIsNotPlanned()
{
    const EditSession session = openedSession();
    Json buffer = session.opened();
    buffer["metadata"].erase("name");
    auto p = EditSession::planWrite(session.writeBase(), WriteMode::Replace, buffer, false, "fieldscope");
    QVERIFY(!p);
    QCOMPARE(p.error().category, ErrorCategory::Invalid);
}

void TestEditSession::refusalDecidesWhatTheEditorShows_data()
{
    QTest::addColumn<int>("category");
    QTest::addColumn<bool>("fieldConflict");
    QTest::addColumn<int>("mode");
    QTest::addColumn<int>("refusal");
    QTest::newRow("SSA conflict") << int(ErrorCategory::Conflict) << true << int(WriteMode::Apply)
                                  << int(Refusal::FieldConflicts);
    QTest::newRow("stale replace") << int(ErrorCategory::StaleWrite) << false << int(WriteMode::Replace)
                                   << int(Refusal::StaleWrite);
    QTest::newRow("422 to a JSON Patch") << int(ErrorCategory::Invalid) << false << int(WriteMode::JsonPatch)
                                         << int(Refusal::FailedTests);
    QTest::newRow("422 to an apply") << int(ErrorCategory::Invalid) << false << int(WriteMode::Apply)
                                     << int(Refusal::Invalid);
    QTest::newRow("422 to a merge patch")
        << int(ErrorCategory::Invalid) << false << int(WriteMode::MergePatch) << int(Refusal::Invalid);
    QTest::newRow("403") << int(ErrorCategory::Forbidden) << false << int(WriteMode::Apply) << int(Refusal::Forbidden);
    QTest::newRow("404") << int(ErrorCategory::NotFound) << false << int(WriteMode::Replace) << int(Refusal::Other);
    QTest::newRow("409 AlreadyExists") << int(ErrorCategory::Conflict) << false << int(WriteMode::Apply)
                                       << int(Refusal::Other);
}

void TestEditSession::refusalDecidesWhatTheEditorShows()
{
    QFETCH(int, category);
    QFETCH(bool, fieldConflict);
    QFETCH(int, mode);
    QFETCH(int, refusal);
    Error e = Error::make(ErrorCategory(category), "refused");
    if (fieldConflict)
        e.conflicts.push_back({".data.color", "other-tool", "", ""});
    QCOMPARE(int(EditSession::refusalOf(e, WriteMode(mode))), refusal);
}

void TestEditSession::conflictRowsOfARecorded409NameTheOwnerAndBothValues()
{
    const auto recorded = recorded409();
    QCOMPARE(recorded.status, 409);
    kube::HttpResponse response;
    response.status = recorded.status;
    response.contentType = "application/json";
    response.body = recorded.body;
    const Error e = kube::errorFromResponse(response, "PATCH /api/v1/namespaces/team/configmaps/app");
    QCOMPARE(int(EditSession::refusalOf(e, WriteMode::Apply)), int(Refusal::FieldConflicts));
    const Json sent =
        yaml("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: app\n  namespace: team\ndata:\n  a: \"2\"\n");
    const Json live = yaml(
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: app\n  namespace: team\ndata:\n  a: \"1\"\n  b: \"1\"\n");
    const auto rows = EditSession::conflictRows(e, sent, live);
    QCOMPARE(rows.size(), std::size_t(1));
    QCOMPARE(rows[0].conflict.path, std::string(".data.a"));
    QCOMPARE(rows[0].conflict.manager, std::string("kubectl-create"));
    QCOMPARE(rows[0].conflict.apiVersion, std::string("v1")); // an Update manager: the 409 says "using v1"
    QVERIFY(rows[0].live && rows[0].mine);
    QCOMPARE(rows[0].live->get<std::string>(), std::string("1"));
    QCOMPARE(rows[0].mine->get<std::string>(), std::string("2"));
}

void TestEditSession::conflictRowsFindListItemsByTheirKeys()
{
    QFile liveFile(QStringLiteral(FIELDSCOPE_TEST_DATA "/ownership/deployment.yaml"));
    QFile sentFile(QStringLiteral(FIELDSCOPE_TEST_DATA "/ownership/deployment-teamb.yaml"));
    QVERIFY(liveFile.open(QIODevice::ReadOnly) && sentFile.open(QIODevice::ReadOnly));
    auto live = yamlToJson(liveFile.readAll().toStdString());
    auto sent = yamlToJson(sentFile.readAll().toStdString());
    QVERIFY(live && sent);
    // The conflicts tests/data/ownership/deployment-teamb.conflicts.json predicts, as a 409 names them.
    Error e = Error::make(ErrorCategory::Conflict, "Apply failed with 2 conflicts");
    e.conflicts = {{".spec.replicas", "kube-controller-manager", "scale", "apps/v1"},
                   {".spec.template.spec.containers[name=\"nginx\"].image", "kubectl-edit", "", "apps/v1"}};
    const auto rows = EditSession::conflictRows(e, sent->value, live->value);
    QCOMPARE(rows.size(), std::size_t(2));
    QCOMPARE(rows[0].conflict.subresource, std::string("scale"));
    QCOMPARE(text(*rows[0].live), std::string("5"));
    QCOMPARE(text(*rows[0].mine), std::string("2"));
    QCOMPARE(rows[1].conflict.manager, std::string("kubectl-edit"));
    QCOMPARE(rows[1].live->get<std::string>(), std::string("nginx:1.27"));
    QCOMPARE(rows[1].mine->get<std::string>(), std::string("nginx:1.28"));
}

void TestEditSession::conflictRowsWithoutTheLiveObjectLeaveTheLiveValueUnset()
{
    Error e = Error::make(ErrorCategory::Conflict, "Apply failed with 1 conflict");
    e.conflicts = {{".data.color", "other-tool", "", ""}};
    const auto rows = EditSession::conflictRows(e, yaml("data:\n  color: green\n"), Json());
    QCOMPARE(rows.size(), std::size_t(1));
    QVERIFY(!rows[0].live);
    QCOMPARE(rows[0].mine->get<std::string>(), std::string("green"));
}

void TestEditSession::failedTestsNameTheMovedFieldWithItsOpenedAndCurrentValue()
{
    EditSession session = openedSession();
    Json buffer = edited(session, "color", "green");
    buffer["data"]["size"] = "large";
    const WritePlan p = plan(session, WriteMode::JsonPatch, buffer);
    session.notePlanned(p, true);
    Json now = changedConfigMap("color", "blue", "101"); // someone wrote color
    now["data"]["note"] = "changed";                     // and a field the patch does not touch
    const auto failed = EditSession::failedTests(session.lastJsonPatch(), now, false);
    QCOMPARE(failed.size(), std::size_t(1));
    QCOMPARE(failed[0].pointer, std::string("/data/color"));
    QCOMPARE(failed[0].opened->get<std::string>(), std::string("red"));
    QCOMPARE(failed[0].now->get<std::string>(), std::string("blue"));
    now["data"].erase("size"); // a tested field that is gone
    const auto gone = EditSession::failedTests(session.lastJsonPatch(), now, false);
    QCOMPARE(gone.size(), std::size_t(2));
    QCOMPARE(gone[1].pointer, std::string("/data/size"));
    QVERIFY(!gone[1].now);
}

void TestEditSession::failedTestsOfAnUnchangedObjectAreNone()
{
    const EditSession session = openedSession();
    const WritePlan p = plan(session, WriteMode::JsonPatch, edited(session, "color", "green"));
    QVERIFY(EditSession::failedTests(p.body, configMap(), false).empty()); // the 422 had another reason
}

void TestEditSession::perFieldResolutionsMakeOneResendThatForcesOnlyIfAFieldChoseForce()
{
    auto mixed = EditSession::planResolution({{".data.a", Resolution::GiveUp},
                                              {".data.b", Resolution::CoOwn},
                                              {".data.c", Resolution::Force}});
    QVERIFY(mixed);
    QCOMPARE(mixed->giveUp, std::vector<std::string>{".data.a"});
    QCOMPARE(mixed->coOwn, std::vector<std::string>{".data.b"});
    QVERIFY(mixed->force);
    // "Give the fields up" for every row: one path per field even when the 409 names it twice, no force.
    auto all = EditSession::planResolution({{".data.a", Resolution::GiveUp},
                                            {".data.a", Resolution::GiveUp},
                                            {".data.b", Resolution::GiveUp}});
    QVERIFY(all);
    QCOMPARE(all->giveUp, (std::vector<std::string>{".data.a", ".data.b"}));
    QVERIFY(all->coOwn.empty());
    QVERIFY(!all->force);
}

void TestEditSession::anUndecidedFieldPlansNoResend()
{
    QVERIFY(!EditSession::planResolution({{".data.a", Resolution::Force}, {".data.b", Resolution::Undecided}}));
    auto none = EditSession::planResolution({});
    QVERIFY(none && !none->force && none->giveUp.empty());
}

void TestEditSession::resolvedBufferDropsGivenUpFieldsAndTakesLiveValuesForCoOwnedOnes()
{
    const Json live = yaml(
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: edit-rows\ndata:\n  a: \"2\"\n  b: \"2\"\n  c: \"2\"\n");
    const std::string buffer =
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: edit-rows\ndata:\n  a: \"3\"\n  b: \"3\"\n  c: \"3\"\n";
    auto out = EditSession::resolvedBuffer(buffer, live, {{".data.a"}, {".data.b"}, true});
    QVERIFY(out);
    auto parsed = yamlToJson(*out);
    QVERIFY(parsed);
    QCOMPARE(text(parsed->value["data"]),
             std::string(R"j({"b":"2","c":"3"})j")); // a given up, b co-owned, c kept for force
    QCOMPARE(parsed->value["metadata"]["name"].get<std::string>(), std::string("edit-rows"));
}

void TestEditSession::resolvedBufferRefusesAPathThatIsNotThere()
{
    const Json live = yaml("metadata:\n  name: x\ndata:\n  a: \"1\"\n");
    auto out = EditSession::resolvedBuffer("metadata:\n  name: x\ndata:\n  a: \"2\"\n", live,
                                           {{".data.gone"}, {}, false});
    QVERIFY(!out);
    QCOMPARE(out.error().category, ErrorCategory::Invalid);
    QVERIFY2(out.error().message.find(".data.gone") != std::string::npos, out.error().message.c_str());
    QVERIFY(!EditSession::resolvedBuffer("data: [\n", live, {}));
}

void TestEditSession::nonOverlappingChangesMergeOntoTheCurrentVersionByThemselves()
{
    const EditSession session = openedSession();
    const std::string buffer = jsonToYaml(edited(session, "color", "green"));
    const Json now = changedConfigMap("size", "large", "105");
    auto merged = EditSession::mergeOntoCurrent(session.opened(), buffer, now, false);
    QVERIFY(merged);
    QVERIFY(merged->merge.conflicts.empty());
    QCOMPARE(merged->merge.mineApplied, 1);
    QCOMPARE(merged->now.resourceVersion, std::string("105"));
    auto result = yamlToJson(merged->mergedYaml);
    QVERIFY(result);
    QCOMPARE(text(result->value["data"]), std::string(R"j({"color":"green","size":"large","note":"keep"})j"));
}

void TestEditSession::aFieldBothSidesChangedWaitsForTheUsersChoice()
{
    // tst_editor's edit-merge3: a and c changed here, b and c there.
    const Json base = yaml(
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: m\n  resourceVersion: \"7\"\ndata:\n  a: \"1\"\n  b: \"1\"\n  c: \"1\"\n");
    auto opened = EditSession::readVersion(base, false);
    QVERIFY(opened);
    Json now = base;
    now["data"]["b"] = "9";
    now["data"]["c"] = "7";
    now["metadata"]["resourceVersion"] = "8";
    const std::string buffer =
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: m\ndata:\n  a: \"2\"\n  b: \"1\"\n  c: \"5\"\n";
    auto merged = EditSession::mergeOntoCurrent(opened->editable, buffer, now, false);
    QVERIFY(merged);
    QVERIFY(merged->mergedYaml.empty()); // nothing goes into the buffer before the choice
    QCOMPARE(merged->merge.conflicts.size(), std::size_t(1));
    const MergeConflict &c = merged->merge.conflicts[0];
    QCOMPARE(c.pointer, std::string("/data/c"));
    QCOMPARE(c.base->get<std::string>(), std::string("1"));
    QCOMPARE(c.mine->get<std::string>(), std::string("5"));
    QCOMPARE(c.theirs->get<std::string>(), std::string("7"));
    auto data = [](const std::string &y) {
        auto p = yamlToJson(y);
        return p ? text(p->value["data"]) : std::string();
    };
    QCOMPARE(data(EditSession::resolvedMergeYaml(merged->merge, {"/data/c"})),
             std::string(R"j({"a":"2","b":"9","c":"5"})j"));
    QCOMPARE(data(EditSession::resolvedMergeYaml(merged->merge, {})), std::string(R"j({"a":"2","b":"9","c":"7"})j"));
}

// A custom resource's list is keyed only as far as the current object's managedFields show it
// (k:{"host":...} entries): the edit and the other writer changed different routes, so nothing
// conflicts; without the hints the list would be one value, both changed: one conflict. Then a
// field both changed in one route is one conflict there, named in the server's syntax.
void TestEditSession::aStaleEditMergesACustomListItemByItemAsItsManagedFieldsKeyIt()
{
    const char *opened = "apiVersion: x.dev/v1\nkind: Router\nmetadata:\n  name: r\n  resourceVersion: \"7\"\n"
                         "spec:\n  routes:\n  - {host: a, weight: 1}\n  - {host: b, weight: 1}\n";
    auto base = EditSession::readVersion(yaml(opened), false);
    QVERIFY(base);
    Json now = yaml(opened);
    now["metadata"]["resourceVersion"] = "8";
    now["spec"]["routes"][1]["weight"] = 3;
    now["metadata"]["managedFields"] = yaml(R"y(
- manager: other
  operation: Apply
  apiVersion: x.dev/v1
  fieldsType: FieldsV1
  fieldsV1:
    f:spec:
      f:routes:
        'k:{"host":"a"}': {'.': {}, 'f:host': {}, 'f:weight': {}}
        'k:{"host":"b"}': {'.': {}, 'f:host': {}, 'f:weight': {}}
)y");
    const std::string mine = "apiVersion: x.dev/v1\nkind: Router\nmetadata:\n  name: r\n"
                             "spec:\n  routes:\n  - {host: a, weight: 2}\n  - {host: b, weight: 1}\n";
    auto merged = EditSession::mergeOntoCurrent(base->editable, mine, now, false);
    QVERIFY(merged);
    QVERIFY(merged->merge.conflicts.empty());
    auto result = yamlToJson(merged->mergedYaml);
    QVERIFY(result);
    QCOMPARE(toJsonText(result->value["spec"]["routes"]),
             std::string(R"j([{"host":"a","weight":2},{"host":"b","weight":3}])j"));

    now["spec"]["routes"][0]["weight"] = 5;
    merged = EditSession::mergeOntoCurrent(base->editable, mine, now, false);
    QVERIFY(merged);
    QCOMPARE(merged->merge.conflicts.size(), std::size_t(1));
    QCOMPARE(merged->merge.conflicts[0].path, std::string(R"j(.spec.routes[host="a"].weight)j"));
    QCOMPARE(merged->merge.conflicts[0].pointer, std::string("/spec/routes/0/weight"));
}

void TestEditSession::writeSummarySaysWhoseFieldTheWriteTakesAndWhatChanged()
{
    // Before: other-tool alone owns color (it forced it). After a forced apply: fieldscope does.
    Json before = configMap();
    before["metadata"]["managedFields"][0]["fieldsV1"]["f:data"].erase("f:color");
    Json after = changedConfigMap("color", "green", "102");
    after["metadata"]["managedFields"][1]["fieldsV1"]["f:data"].erase("f:color");
    const WriteSummary s = EditSession::summarizeWrite(before, after, "fieldscope");
    const bool takes = std::any_of(s.ownership.begin(), s.ownership.end(), [](const std::string &line) {
        return line.find("fieldscope takes .data.color from other-tool (Apply)") != std::string::npos;
    });
    QVERIFY2(takes, s.ownership.empty() ? "(no ownership lines)" : s.ownership[0].c_str());
    QCOMPARE(s.changes, std::vector<std::string>{"changed .data.color: red -> green"}); // resourceVersion is noise
    const WriteSummary none = EditSession::summarizeWrite(Json(), after, "fieldscope");
    QVERIFY(none.ownership.empty() && none.changes.empty()); // nothing known before: nothing claimed
}

void TestEditSession::aWrittenVersionBecomesTheBaseAndResolutionsStartOver()
{
    EditSession session = openedSession();
    session.noteResolution({{".data.note"}, {".data.color"}, false});
    QCOMPARE(session.givenUp(), std::vector<std::string>{".data.note"});
    QCOMPARE(session.writeBase().coOwned, std::vector<std::string>{".data.color"});
    auto answer = EditSession::readVersion(changedConfigMap("color", "green", "102"), false);
    QVERIFY(answer);
    session.noteWritten(std::move(*answer));
    QCOMPARE(session.openedResourceVersion(), std::string("102"));
    QCOMPARE(session.opened()["data"]["color"].get<std::string>(), std::string("green"));
    QVERIFY(session.givenUp().empty() && session.coOwned().empty());
    QCOMPARE(plan(session, WriteMode::Replace, session.opened()).body["metadata"]["resourceVersion"].get<std::string>(),
             std::string("102"));
}

void TestEditSession::rebaseMovesThePreconditionToTheCurrentVersion()
{
    EditSession session = openedSession();
    const Json buffer = edited(session, "color", "green");
    const Json now = changedConfigMap("size", "large", "110");
    session.noteCurrent(now);
    auto v = EditSession::readVersion(now, false);
    QVERIFY(v);
    session.rebaseOnto(std::move(*v));
    const WritePlan replace = plan(session, WriteMode::Replace, buffer);
    QCOMPARE(replace.body["metadata"]["resourceVersion"].get<std::string>(), std::string("110"));
    // Patches now carry the buffer's differences from the current version: size goes back.
    QCOMPARE(text(plan(session, WriteMode::MergePatch, buffer).body),
             std::string(R"j({"data":{"color":"green","size":"small"}})j"));
}

void TestEditSession::aMergeMakesTheCurrentVersionTheBase()
{
    EditSession session = openedSession();
    const Json now = changedConfigMap("size", "large", "120");
    session.noteCurrent(now);
    auto merged = EditSession::mergeOntoCurrent(session.opened(), jsonToYaml(edited(session, "color", "green")),
                                                session.current(), false);
    QVERIFY(merged);
    session.takeMerge(std::move(*merged));
    QCOMPARE(session.openedResourceVersion(), std::string("120"));
    QCOMPARE(session.opened()["data"]["size"].get<std::string>(), std::string("large"));
    QCOMPARE(session.merge().mineApplied, 1);
    QVERIFY(session.merge().conflicts.empty());
}

void TestEditSession::aRestoredDraftIsJudgedAgainstTheVersionItWasMadeOn()
{
    EditSession session = openedSession(changedConfigMap("size", "large", "130"));
    auto draftBase = EditSession::readVersion(configMap(), false);
    QVERIFY(draftBase);
    session.restoreBase(draftBase->editable, "100");
    Json buffer = draftBase->editable;
    buffer["data"]["color"] = "green";
    QCOMPARE(text(plan(session, WriteMode::MergePatch, buffer).body), std::string(R"j({"data":{"color":"green"}})j"));
    QCOMPARE(plan(session, WriteMode::Replace, buffer).body["metadata"]["resourceVersion"].get<std::string>(),
             std::string("100"));
}

void TestEditSession::onlyASentJsonPatchIsKeptToExplainARefusal()
{
    EditSession session = openedSession();
    const WritePlan p = plan(session, WriteMode::JsonPatch, edited(session, "color", "green"));
    session.notePlanned(p, false); // a preview
    QVERIFY(session.lastJsonPatch().is_null());
    session.notePlanned(p, true);
    QCOMPARE(text(session.lastJsonPatch()), text(p.body));
    const WritePlan apply = plan(session, WriteMode::Apply, edited(session, "note", nullptr));
    session.notePlanned(apply, false);
    QCOMPARE(session.notRemovable(), std::vector<std::string>{".data.note"}); // what the preview and the answer say
    QCOMPARE(text(session.lastJsonPatch()), text(p.body));
}

void TestEditSession::theObjectReadAfterARefusalIsTheCurrentAndTheLiveObject()
{
    EditSession session = openedSession();
    QVERIFY(session.current().is_null());
    const Json now = changedConfigMap("color", "blue", "140");
    session.noteCurrent(now);
    QCOMPARE(text(session.current()), text(now));
    QCOMPARE(text(session.live()), text(now));                     // the next apply's ownership comes from it
    QCOMPARE(session.openedResourceVersion(), std::string("100")); // the base stays until a rebase
}

QTEST_GUILESS_MAIN(TestEditSession)
#include "tst_editsession.moc"
