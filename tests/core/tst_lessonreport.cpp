// core/lessons/lessonreport.h: how a lesson step's outcome is tallied and checked against what the
// lesson claims, with hand-built reports (the runner fills the same report from a real server).
#include "core/lessons/lessonreport.h"
#include "core/ownership/ownershiptree.h"

#include <QTest>

using namespace fieldscope::core;

namespace {

LessonCall write(int client, int status, std::string reason = {}, std::string rv = {})
{
    LessonCall c;
    c.client = client;
    c.status = status;
    c.reason = std::move(reason);
    c.resourceVersion = std::move(rv);
    return c;
}

Json configMap(const std::string &rv, const std::string &client)
{
    return Json{{"apiVersion", "v1"},
                {"kind", "ConfigMap"},
                {"metadata", {{"name", "demo"}, {"resourceVersion", rv}, {"labels", {{"client", client}}}}}};
}

Json withManagedLabel(Json object, const std::string &manager)
{
    object["metadata"]["managedFields"] =
        Json::array({{{"manager", manager},
                      {"operation", "Update"},
                      {"apiVersion", "v1"},
                      {"time", "2026-11-25T10:00:00Z"},
                      {"fieldsType", "FieldsV1"},
                      {"fieldsV1", {{"f:metadata", {{"f:labels", {{"f:client", Json::object()}}}}}}}}});
    return object;
}

// Expected messages live outside the test class: moc 6.4 skips a class body with escaped quotes.
const char *const kWrongWinnerValue = "/metadata/labels/client should be \"3\", is \"2\"";
const char *const kLabelNotGone = "/metadata/labels/client should be gone, is \"1\"";
const char *const kMissingConflict = "expected a conflict on .metadata.labels.client with \"client-1\"";
const char *const kHalfApplied =
    "event at resourceVersion 7 shows a half-applied write: /data/a = \"2\" but /data/b = \"1\"";

bool mentions(const LessonStepReport &r, const std::string &text)
{
    for (const std::string &m : r.mismatches)
        if (m.find(text) != std::string::npos)
            return true;
    return false;
}

} // namespace

class TestLessonReport : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void tallyCountsSuccessesAndRefusalsByReasonAndNamesTheOnlyWinner()
    {
        LessonStepReport r;
        r.calls = {write(1, 409, "AlreadyExists"), write(2, 201), write(3, 409, "AlreadyExists"), write(4, 0)};
        LessonCall read = write(5, 200);
        read.isWrite = false; // a read-modify-write client's read is not a write
        r.calls.push_back(read);
        QVERIFY(tallyWrites(r, std::nullopt));
        QCOMPARE(r.succeeded, 1);
        QCOMPARE(r.errors.at("AlreadyExists"), 2);
        QCOMPARE(r.errors.at("NoAnswer"), 1);
        QCOMPARE(r.winner, std::optional<int>(2));
    }

    void tallyNamesNoWinnerWhenSeveralClientsSucceed()
    {
        LessonStepReport r;
        r.calls = {write(1, 200), write(2, 200)};
        QVERIFY(tallyWrites(r, 7));
        QCOMPARE(r.succeeded, 2);
        QVERIFY(!r.winner);
    }

    void aStepWithoutWritesRefersToThePreviousWinnerAndLastWriter()
    {
        LessonStepReport r;
        QVERIFY(!tallyWrites(r, 3));
        QCOMPARE(r.winner, std::optional<int>(3));
        r.object = configMap("12", "3");
        QCOMPARE(lastWriter(r, false, 4), std::optional<int>(4));
    }

    void lastWriterIsTheClientWhoseAnswerCarriesTheObjectsVersion()
    {
        LessonStepReport r;
        r.calls = {write(1, 200, {}, "10"), write(2, 200, {}, "11"), write(3, 409, "Conflict")};
        r.object = configMap("10", "1");
        QCOMPARE(lastWriter(r, true, 2), std::optional<int>(1));
        r.object = configMap("99", "x"); // written by someone else since
        QVERIFY(!lastWriter(r, true, 2));
    }

    void expectedCountsAndRefusalsAreReportedWhenTheyDiffer()
    {
        LessonExpectation x;
        x.succeeded = 1;
        x.errors = {{"AlreadyExists", 4}};
        LessonStepReport r;
        r.succeeded = 2;
        r.errors = {{"AlreadyExists", 3}};
        checkExpectation(x, r, false);
        QVERIFY(mentions(r, "expected 1 writes to succeed, 2 did"));
        QVERIFY(mentions(r, "expected refusals AlreadyExists x4, got AlreadyExists x3"));
    }

    void winnerInAnExpectedValueIsTheWinningClientsNumber()
    {
        LessonExpectation x;
        x.values = {{"/metadata/labels/client", Json("{winner}")}};
        LessonStepReport r;
        r.winner = 3;
        r.object = configMap("5", "3");
        checkExpectation(x, r, false);
        QVERIFY2(r.passed(), r.mismatches.empty() ? "" : r.mismatches.front().c_str());
        r.object = configMap("5", "2");
        checkExpectation(x, r, false);
        QVERIFY(mentions(r, kWrongWinnerValue));
    }

    void winnerWithoutASingleWinnerIsAMismatchNotAGuess()
    {
        LessonExpectation x;
        x.values = {{"/metadata/labels/client", Json("{winner}")}};
        LessonStepReport r;
        r.object = configMap("5", "1");
        checkExpectation(x, r, false);
        QVERIFY(mentions(r, "no single client succeeded, so there is no {winner}"));
    }

    void absentFieldsAndPointersIntoStringsAreChecked()
    {
        LessonExpectation x;
        x.absent = {"/metadata/labels/client", "/metadata/name/not-an-object"};
        LessonStepReport r;
        r.object = configMap("5", "1");
        checkExpectation(x, r, false);
        QCOMPARE(r.mismatches.size(), std::size_t(1));
        QVERIFY(mentions(r, kLabelNotGone));
    }

    void ownersAreComparedAsSetsAgainstTheManagedFields()
    {
        const Json object = withManagedLabel(configMap("5", "1"), "client-1");
        auto tree = OwnershipTree::build(object);
        QVERIFY(tree.ok());
        LessonStepReport r;
        r.winner = 1;
        r.object = object;
        r.owners["/metadata/labels/client"] = ownersAt(*tree, "/metadata/labels/client");
        QCOMPARE(r.owners["/metadata/labels/client"].size(), std::size_t(1));
        QCOMPARE(r.owners["/metadata/labels/client"].front().operation, std::string("Update"));
        LessonExpectation x;
        x.owners = {{"/metadata/labels/client", {"client-{winner}"}}};
        checkExpectation(x, r, false);
        QVERIFY(r.passed());
        x.owners = {{"/metadata/labels/client", {"client-1", "kubectl"}}};
        checkExpectation(x, r, false);
        QVERIFY(mentions(r, "should be owned by client-1, kubectl, is owned by client-1"));
    }

    void ownersNamedWithASubresourceMustHaveWrittenThroughIt()
    {
        Json object = withManagedLabel(configMap("5", "1"), "scaler");
        object["metadata"]["managedFields"][0]["subresource"] = "scale";
        auto tree = OwnershipTree::build(object);
        QVERIFY(tree.ok());
        LessonStepReport base;
        base.winner = 1;
        base.object = object;
        base.owners["/metadata/labels/client"] = ownersAt(*tree, "/metadata/labels/client");
        QCOMPARE(base.owners["/metadata/labels/client"].front().subresource, std::string("scale"));
        const auto checked = [&base](std::optional<std::vector<std::string>> subresources) {
            LessonExpectation x;
            x.owners = {{"/metadata/labels/client", {"scaler"}, std::move(subresources)}};
            LessonStepReport r = base;
            checkExpectation(x, r, false);
            return r;
        };
        QVERIFY(checked(std::vector<std::string>{"scale"}).passed());
        QVERIFY(checked(std::nullopt).passed()); // names alone: whatever it wrote through
        QVERIFY(mentions(checked(std::vector<std::string>{"status"}),
                         "should be owned by scaler via /status, is owned by scaler via /scale"));
        QVERIFY(mentions(checked(std::vector<std::string>{""}),
                         "should be owned by scaler, is owned by scaler via /scale"));
    }

    void anExpectedConflictMustBeNamedBySomeAnswer()
    {
        LessonExpectation x;
        x.conflicts = {{".metadata.labels.client", "client-1"}};
        LessonStepReport r;
        LessonCall refused = write(2, 409, "Conflict");
        refused.conflicts = {FieldConflict{".metadata.labels.client", "client-1", "", ""}};
        r.calls = {refused};
        checkExpectation(x, r, false);
        QVERIFY(r.passed());
        r.calls.front().conflicts.front().manager = "kubectl";
        checkExpectation(x, r, false);
        QVERIFY(mentions(r, kMissingConflict));
    }

    void eventsAreCheckedOnlyOnceTheWatchCaughtUp()
    {
        LessonExpectation x;
        x.events = 2;
        x.consistent = {"/data/a", "/data/b"};
        LessonStepReport r;
        Json half = configMap("7", "1");
        half["data"] = {{"a", "2"}, {"b", "1"}};
        r.events = {LessonEvent{"MODIFIED", "7", half}};
        checkExpectation(x, r, false);
        QVERIFY(r.passed());
        checkExpectation(x, r, true);
        QVERIFY(mentions(r, "expected 2 watch events, saw 1"));
        QVERIFY(mentions(r, kHalfApplied));
    }
};

QTEST_GUILESS_MAIN(TestLessonReport)
#include "tst_lessonreport.moc"
