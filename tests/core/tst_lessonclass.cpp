// Class lessons (docs/lessons.md, "Class lessons"): the `students:` step of the lesson format, its
// refusals with their lines, the checks of a class step's expectation on hand-built reports, and
// how the runner reads real students' writes (lessons/studentwrites.h): conflicts from the
// server's message, the race's first write per student, names off the roster ignored.
#include "core/lessons/lesson.h"
#include "core/lessons/lessonreport.h"
#include "core/lessons/lessonrequests.h"
#include "lessons/lessonrunner.h"
#include "lessons/studentwrites.h"
#include "transcriptserver.h"

#include <QTest>

#include <optional>

using namespace fieldscope::core;
using fieldscope::lessons::StudentWrite;

namespace {

const char *kClass = R"(title: A race
summary: Everyone writes.
class: true
object: {apiVersion: v1, kind: ConfigMap, name: race}
steps:
- title: The teacher creates it
  narrative: One object.
  requests:
  - verb: create
    object: {apiVersion: v1, kind: ConfigMap, metadata: {name: race}}
- title: Everyone replaces it
  narrative: One wins.
  students:
    instruction: Everyone, replace it now.
    verb: update
    precondition: resourceVersion
    object:
      apiVersion: v1
      kind: ConfigMap
      metadata: {name: race}
      data: {writer: "{student}"}
    writes: all
    timeoutSeconds: 90
  expect:
    succeeded: 1
    errors: {Conflict: rest}
    values: {/data/writer: "{winner}"}
    conflicts: [{field: .data.writer, manager: "{winner}", every: true}]
)";

std::string edited(const std::string &from, const std::string &to)
{
    std::string s = kClass;
    const auto at = s.find(from);
    if (at == std::string::npos)
        qFatal("test text not found: %s", from.c_str());
    return s.replace(at, from.size(), to);
}

std::string refusal(const std::string &text)
{
    auto r = parseLesson(text, "mine.yaml");
    return r.ok() ? std::string("<accepted>") : r.error().message;
}

LessonCall call(int client, const std::string &student, int status, const std::string &reason = {})
{
    LessonCall c;
    c.client = client;
    c.student = student;
    c.status = status;
    c.reason = reason;
    c.method = "PUT";
    return c;
}

StudentWrite write(const std::string &student, int code, std::chrono::system_clock::time_point at,
                   const std::string &name = "race")
{
    StudentWrite w;
    w.time = at;
    w.student = student;
    w.verb = "update";
    w.resource = "configmaps";
    w.ns = "class";
    w.name = name;
    w.code = code;
    if (code == 409)
        w.message = "Operation cannot be fulfilled on configmaps \"race\": the object has been modified";
    return w;
}

// A class whose one student writes while the step's prompt is still showing.
struct PromptClass : fieldscope::lessons::StudentWriteSource {
    std::vector<StudentWrite> writes;
    std::optional<std::chrono::system_clock::time_point> firstSince;
    std::vector<std::string> students() const override { return {"ann"}; }
    Result<std::vector<StudentWrite>> writesSince(std::chrono::system_clock::time_point since) override
    {
        if (!firstSince)
            firstSince = since;
        std::vector<StudentWrite> out;
        for (const StudentWrite &w : writes)
            if (w.time >= since)
                out.push_back(w);
        return out;
    }
};

const char *kPromptLesson = R"(title: Prompt
summary: A write while the prompt shows.
class: true
object: {apiVersion: v1, kind: ConfigMap, name: race}
steps:
- title: Everyone writes
  narrative: One write.
  students:
    instruction: Replace it now.
    verb: update
    precondition: resourceVersion
    object:
      apiVersion: v1
      kind: ConfigMap
      metadata: {name: race}
      data: {writer: "{student}"}
    writes: all
    timeoutSeconds: 5
  expect:
    succeeded: 1
)";

} // namespace

class TestLessonClass : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void aClassLessonReadsItsStudentStep()
    {
        auto r = parseLesson(kClass, "race.yaml");
        QVERIFY2(r.ok(), r.ok() ? "" : r.error().message.c_str());
        QVERIFY(r->isClass);
        QVERIFY(!r->steps[0].students);
        QVERIFY(r->steps[1].students);
        const LessonStudentTask &t = *r->steps[1].students;
        QCOMPARE(t.instruction, std::string("Everyone, replace it now."));
        QCOMPARE(t.request.verb, LessonVerb::Update);
        QCOMPARE(t.request.precondition, LessonPrecondition::Read);
        QCOMPARE(t.request.manager, std::string("{student}")); // each student is their own field manager
        QCOMPARE(t.writes, 0);                                 // all
        QCOMPARE(t.until, LessonStudentsUntil::Wrote);
        QCOMPARE(t.timeoutSeconds, 90);
        QCOMPARE(*r->steps[1].expect.succeeded, 1);
        QCOMPARE(r->steps[1].expect.errors.at("Conflict"), kLessonCountRest);
        QVERIFY(r->steps[1].expect.conflicts.at(0).every);
        QCOMPARE(r->objects().size(), std::size_t(1));
    }

    void eachStudentSendsTheRequestWithTheirNameInIt()
    {
        auto r = parseLesson(kClass, "race.yaml");
        QVERIFY(r.ok());
        const LessonRequest q = studentRequest(*r->steps[1].students, "alice2");
        QCOMPARE(q.manager, std::string("alice2"));
        QCOMPARE(q.object["data"]["writer"].get<std::string>(), std::string("alice2"));
        auto built = buildLessonWrite(q, {"/c", "/c/race"}, 1, 1, Json(), "42");
        QVERIFY(built.ok());
        QCOMPARE(built->method, std::string("PUT"));
        QVERIFY(built->path.find("fieldManager=alice2") != std::string::npos);
        QVERIFY(built->body.find("\"resourceVersion\":\"42\"") != std::string::npos);
        QCOMPARE(expandStudent(std::string("{student}-{student}{x}"), "bo"), std::string("bo-bo{x}"));
    }

    void aBadStudentStepIsRefusedOnItsLine_data()
    {
        QTest::addColumn<QString>("from");
        QTest::addColumn<QString>("to");
        QTest::addColumn<QString>("expected");
        QTest::newRow("writes 0") << "writes: all"
                                  << "writes: 0"
                                  << "mine.yaml:22: \"writes\" is all (every student) or how many students to wait "
                                     "for, 1 to 500";
        QTest::newRow("writes text") << "writes: all"
                                     << "writes: some"
                                     << "mine.yaml:22: \"writes\" is all (every student) or how many students to "
                                        "wait for, 1 to 500";
        QTest::newRow("timeout 0") << "timeoutSeconds: 90"
                                   << "timeoutSeconds: 0"
                                   << "mine.yaml:23: \"timeoutSeconds\" must be a whole number from 1 to 3600";
        QTest::newRow("until") << "writes: all"
                               << "until: forever"
                               << "mine.yaml:22: \"until\" must be wrote (each student sent a write) or succeeded "
                                  "(each student's write went through, for a retry loop), not \"forever\"";
        QTest::newRow("clients") << "writes: all"
                                 << "clients: 5"
                                 << "mine.yaml:22: unknown key \"clients\" (expected one of: instruction, verb, "
                                    "object, patch, target, manager, force, precondition, retry, writes, until, "
                                    "timeoutSeconds)";
        QTest::newRow("no instruction") << "    instruction: Everyone, replace it now.\n"
                                        << ""
                                        << "mine.yaml:13: \"instruction\" is missing";
        QTest::newRow("empty instruction") << "instruction: Everyone, replace it now."
                                           << "instruction: \" \""
                                           << "mine.yaml:14: \"instruction\" is what the students read on the "
                                              "screen: it cannot be empty";
        QTest::newRow("earlier step's version")
            << "precondition: resourceVersion"
            << "precondition: {resourceVersionAfterStep: 1}"
            << "mine.yaml:16: students write with the resourceVersion on the screen (resourceVersion) or none; "
               "they cannot see an earlier step's";
        QTest::newRow("force on update") << "writes: all"
                                         << "force: true"
                                         << "mine.yaml:22: \"force\" only means something for apply";
        QTest::newRow("two rests") << "errors: {Conflict: rest}"
                                   << "errors: {Conflict: rest, Invalid: rest}"
                                   << "mine.yaml:26: only one refusal can count the rest of the writes";
        QTest::newRow("succeeded rest")
            << "succeeded: 1"
            << "succeeded: rest"
            << "mine.yaml:25: \"succeeded\" must be a whole number, all (the students' writes are counted when "
               "they arrive)";
        QTest::newRow("not a class") << "class: true\n"
                                     << ""
                                     << "mine.yaml:12: a step that waits for students is in a class lesson: add "
                                        "\"class: true\" at the top";
    }
    void aBadStudentStepIsRefusedOnItsLine()
    {
        QFETCH(QString, from);
        QFETCH(QString, to);
        QFETCH(QString, expected);
        QCOMPARE(QString::fromStdString(refusal(edited(from.toStdString(), to.toStdString()))), expected);
    }

    void aStepCannotBothSendRequestsAndWaitForStudents()
    {
        const std::string text = edited("  students:\n", "  requests:\n  - verb: update\n    object: {apiVersion: v1, "
                                                         "kind: ConfigMap, metadata: {name: race}}\n  students:\n");
        QCOMPARE(refusal(text), std::string("mine.yaml:16: a step either sends its own requests or waits for the "
                                            "students' writes, not both: make two steps"));
    }

    void aClassLessonWithoutStudentStepsIsRefusedAtItsClassLine()
    {
        std::string text = kClass;
        text = text.substr(0, text.find("- title: Everyone replaces it"));
        QCOMPARE(refusal(text), std::string("mine.yaml:3: a class lesson has at least one step with \"students\" "
                                            "(what everyone is asked to do)"));
    }

    void allAndRestAreOnlyForClassSteps()
    {
        const std::string text = edited("- title: The teacher creates it\n  narrative: One object.\n",
                                        "- title: The teacher creates it\n  narrative: One object.\n  expect: "
                                        "{succeeded: all}\n");
        QCOMPARE(refusal(text), std::string("mine.yaml:8: \"succeeded\" must be a whole number from 0 to 1"));
    }

    void theRaceChecksOneWinnerAndTheRestRefusedByName()
    {
        auto lesson = parseLesson(kClass, "race.yaml");
        QVERIFY(lesson.ok());
        LessonStepReport r;
        r.students = {"ann", "bo", "cy"};
        r.awaited = 3;
        r.calls = {call(2, "bo", 200), call(1, "ann", 409, "Conflict"), call(3, "cy", 409, "Conflict")};
        for (LessonCall &c : r.calls)
            if (c.status == 409)
                c.conflicts = {{".data.writer", "bo", "", ""}};
        tallyWrites(r, std::nullopt);
        r.object = Json{{"data", {{"writer", "bo"}}}};
        checkExpectation(lesson->steps[1].expect, r, true);
        QVERIFY2(r.passed(), r.mismatches.empty() ? "" : r.mismatches.front().c_str());
        QCOMPARE(r.clientName(*r.winner), std::string("bo"));

        // Two winners: "rest" is what the other counts leave, so the refusals are one short.
        LessonStepReport two = r;
        two.calls[1] = call(1, "ann", 200);
        two.succeeded = 0;
        two.errors.clear();
        two.winner.reset();
        two.mismatches.clear();
        tallyWrites(two, std::nullopt);
        checkExpectation(lesson->steps[1].expect, two, true);
        QCOMPARE(two.mismatches.at(0), std::string("expected 1 writes to succeed, 2 did"));
        QVERIFY(std::any_of(two.mismatches.begin(), two.mismatches.end(),
                            [](const std::string &m) { return m.find("no single client succeeded") != m.npos; }));
    }

    void everyConflictMustNameTheOwner()
    {
        LessonExpectation x;
        x.conflicts.push_back({".data.color", "{winner}", true});
        LessonStepReport r;
        r.students = {"ann", "bo", "cy"};
        r.awaited = 3;
        r.calls = {call(1, "ann", 201), call(2, "bo", 409, "Conflict"), call(3, "cy", 409, "Conflict")};
        r.calls[1].conflicts = {{".data.color", "ann", "", ""}};
        r.calls[2].message = "the object has been modified";
        tallyWrites(r, std::nullopt);
        checkExpectation(x, r, true);
        QCOMPARE(r.mismatches.size(), std::size_t(1));
        QCOMPARE(r.mismatches[0], std::string("expected every refused write to conflict on .data.color with "
                                              "\"ann\", cy's was refused with: the object has been modified"));
    }

    void allCountsTheAwaitedStudentsAndStudentPointersAreCheckedForEach()
    {
        LessonExpectation x;
        x.succeeded = kLessonCountAll;
        x.values.emplace_back("/data/{student}", "was-here");
        LessonStepReport r;
        r.students = {"ann", "bo"};
        r.awaited = 2;
        r.calls = {call(1, "ann", 200), call(2, "bo", 409, "Conflict"), call(2, "bo", 200)};
        tallyWrites(r, std::nullopt);
        r.object = Json{{"data", {{"ann", "was-here"}}}};
        checkExpectation(x, r, true);
        QCOMPARE(r.mismatches, std::vector<std::string>{"/data/bo should be \"was-here\", is absent"});
    }

    void theLastStudentIsTheOneWhoseVersionTheObjectShows()
    {
        LessonStepReport r;
        r.students = {"ann", "bo"};
        r.calls = {call(2, "bo", 200), call(1, "ann", 200)};
        r.calls[0].resourceVersion = "9";
        r.calls[1].resourceVersion = "8";
        r.object = Json{{"metadata", {{"resourceVersion", "9"}}}};
        QCOMPARE(lastWriter(r, true, std::nullopt), std::optional<int>(2));
        // From an audit log without versions: the last write answered 2xx.
        r.calls[0].resourceVersion.clear();
        r.calls[1].resourceVersion.clear();
        QCOMPARE(lastWriter(r, true, std::nullopt), std::optional<int>(1));
    }

    void applyConflictsAreReadFromTheServersMessage()
    {
        using fieldscope::lessons::conflictsFromMessage;
        auto one = conflictsFromMessage("Apply failed with 1 conflict: conflict with \"student7\": .data.color");
        QCOMPARE(one.size(), std::size_t(1));
        QCOMPARE(one[0].manager, std::string("student7"));
        QCOMPARE(one[0].path, std::string(".data.color"));
        auto update =
            conflictsFromMessage("Apply failed with 1 conflict: conflict with \"kubectl-edit\" using v1: .data.color");
        QCOMPARE(update.at(0).manager, std::string("kubectl-edit"));
        QCOMPARE(update.at(0).apiVersion, std::string("v1"));
        QCOMPARE(update.at(0).path, std::string(".data.color"));
        auto many = conflictsFromMessage("Apply failed with 3 conflicts: conflicts with \"ann\":\n- .data.a\n- "
                                         ".data.b\nconflicts with \"bo\" with subresource \"status\":\n- .status.x");
        QCOMPARE(many.size(), std::size_t(3));
        QCOMPARE(many[1].path, std::string(".data.b"));
        QCOMPARE(many[2].manager, std::string("bo"));
        QCOMPARE(many[2].subresource, std::string("status"));
        QVERIFY(conflictsFromMessage("the object has been modified").empty());
        QVERIFY(conflictsFromMessage("Apply failed with 1 conflict").empty());
    }

    void aRefusalsReasonComesFromItsCodeAndMessage()
    {
        using fieldscope::lessons::reasonFor;
        QCOMPARE(reasonFor(409, "configmaps \"race\" already exists"), std::string("AlreadyExists"));
        QCOMPARE(reasonFor(409, "the object has been modified"), std::string("Conflict"));
        QCOMPARE(reasonFor(422, ""), std::string("Invalid"));
        QCOMPARE(reasonFor(403, ""), std::string("Forbidden"));
        QCOMPARE(reasonFor(201, ""), std::string());
    }

    void aRaceCountsEachStudentsFirstWriteToTheObjectSinceTheStep()
    {
        using namespace std::chrono;
        const auto t0 = system_clock::now();
        const std::vector<StudentWrite> writes{
            write("ann", 200, t0 - seconds(5)),              // before the step asked
            write("bo", 409, t0 + milliseconds(30)),         // bo's first
            write("ann", 200, t0 + milliseconds(10)),        // ann's first
            write("bo", 200, t0 + milliseconds(900)),        // bo again, after his 409
            write("mallory", 200, t0 + milliseconds(40)),    // not on the roster
            write("cy", 200, t0 + milliseconds(50), "other") // another object
        };
        const std::vector<std::string> roster{"ann", "bo", "cy"};
        const fieldscope::lessons::StudentObject race{"configmaps", "class", "race"};
        auto first = fieldscope::lessons::studentCalls(writes, roster, race, false, t0);
        QCOMPARE(first.size(), std::size_t(2));
        QCOMPARE(first[0].student, std::string("ann"));
        QCOMPARE(first[0].client, 1);
        QCOMPARE(first[0].method, std::string("PUT"));
        QCOMPARE(first[1].student, std::string("bo"));
        QCOMPARE(first[1].reason, std::string("Conflict"));
        QCOMPARE(first[1].answeredMs, 30);
        QCOMPARE(fieldscope::lessons::studentsDone(first, LessonStudentsUntil::Wrote), 2);
        QCOMPARE(fieldscope::lessons::studentsDone(first, LessonStudentsUntil::Succeeded), 1);
        auto every = fieldscope::lessons::studentCalls(writes, roster, race, true, t0);
        QCOMPARE(every.size(), std::size_t(3));
        QCOMPARE(fieldscope::lessons::studentsDone(every, LessonStudentsUntil::Succeeded), 2);
    }

    void aHugeMessageFromTheLogIsBounded()
    {
        StudentWrite w = write("ann", 409, std::chrono::system_clock::now());
        w.message = std::string(100000, 'x');
        auto calls = fieldscope::lessons::studentCalls({w}, {"ann"}, {"configmaps", "class", "race"}, false,
                                                       w.time - std::chrono::seconds(1));
        QCOMPARE(calls.size(), std::size_t(1));
        QVERIFY(calls[0].message.size() < 1100);
    }
    void aWriteSentWhileThePromptShowsCountsForTheStep()
    {
        using fieldscope::testing::TranscriptReply;
        fieldscope::testing::TranscriptServer server;
        const std::string object = "/api/v1/namespaces/class/configmaps/race";
        server.on(object)
            .exactPath()
            .method("GET")
            .reply(TranscriptReply::json(
                200,
                R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"race","namespace":"class","resourceVersion":"5"}})"))
            .repeatLast();
        server.on("/api/v1/namespaces/class/configmaps")
            .exactPath()
            .reply(TranscriptReply::stream({}, TranscriptReply::End::Finish))
            .repeatLast();
        fieldscope::kube::TransportConfig config;
        config.server = server.url();
        config.qps = 0;
        fieldscope::kube::ResourceInfo configMaps;
        configMaps.version = "v1";
        configMaps.resource = "configmaps";
        configMaps.kind = "ConfigMap";
        configMaps.namespaced = true;
        auto lesson = parseLesson(kPromptLesson, "prompt.yaml");
        QVERIFY2(lesson, lesson ? "" : lesson.error().message.c_str());
        fieldscope::lessons::LessonRunner runner(
            config, [&](const std::string &, const std::string &) { return &configMaps; }, *lesson);
        runner.setClassNamespace("class");
        auto source = std::make_shared<PromptClass>();
        runner.setStudentWrites(source);
        std::chrono::system_clock::time_point prompted;
        runner.setStudentPrompt([&](const fieldscope::lessons::StudentPrompt &) {
            prompted = std::chrono::system_clock::now();
            source->writes.push_back(write("ann", 200, prompted)); // ann is quick
        });
        const LessonStepReport r = runner.runStep(0);
        QVERIFY(source->firstSince);
        QVERIFY(*source->firstSince <= prompted);
        QCOMPARE(r.calls.size(), std::size_t(1));
        QCOMPARE(r.calls[0].student, std::string("ann"));
        QCOMPARE(r.succeeded, 1);
    }
};

QTEST_GUILESS_MAIN(TestLessonClass)
#include "tst_lessonclass.moc"
