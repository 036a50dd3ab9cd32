// `fieldscope lesson list|check|run` without a cluster: names first, the line of each
// mistake, the user's folder replacing a shipped lesson, and clear refusals.
#include "fieldscoperun.h"
#include "transcriptserver.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QTemporaryDir>
#include <QTest>

using namespace fieldscope::testing;

namespace {
// The lessons' data folder is also HOME: a user's lessons live in DATAHOME/fieldscope/lessons.
FieldscopeRun runInDataHome(const QStringList &args, const QString &dataHome)
{
    return runFieldscope(args, dataHome, {dataHome, 30'000});
}
bool write(const QString &path, const QByteArray &text)
{
    QDir().mkpath(QFileInfo(path).absolutePath());
    QFile f(path);
    return f.open(QIODevice::WriteOnly) && f.write(text) == text.size();
}
// A merge patch with a resourceVersion precondition whose patch.metadata is text: the precondition
// has nowhere to go. It used to pass `lesson check` and end `lesson run` with std::terminate
// (exit 134) on the client thread that built the request.
const char *kUnbuildable = R"(title: Unbuildable
summary: A merge patch whose metadata is text.
namespace: fs-lesson-unbuildable
object: {apiVersion: v1, kind: ConfigMap, name: demo}
steps:
- title: Patch with a precondition
  narrative: metadata is text.
  requests:
  - verb: merge-patch
    precondition: resourceVersion
    patch:
      metadata: not-a-mapping
      data: {a: "2"}
)";

// An API server enough for `lesson run` to reach the request of that step: discovery with
// ConfigMaps, the lesson namespace created, the object absent while the lesson resets and
// present (resourceVersion 5) from then on.
// `someoneElses`: the namespace exists already and was made by someone else (no lesson label).
void serveLessonApi(fieldscope::testing::TranscriptServer &server, const std::string &someoneElses = {})
{
    using fieldscope::testing::TranscriptReply;
    const std::string object = "/api/v1/namespaces/fs-lesson-unbuildable/configmaps/demo";
    const std::string collection = "/api/v1/namespaces/fs-lesson-unbuildable/configmaps";
    const std::string notFound =
        R"({"kind":"Status","apiVersion":"v1","status":"Failure","reason":"NotFound","code":404})";
    const std::string demo =
        R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"demo","namespace":"fs-lesson-unbuildable","resourceVersion":"5"}})";
    server.on("/version")
        .exactPath()
        .reply(TranscriptReply::json(200, R"({"major":"1","minor":"30","gitVersion":"v1.30.0"})"))
        .repeatLast();
    server.on("/api")
        .exactPath()
        .reply(TranscriptReply::json(200, R"({"kind":"APIVersions","versions":["v1"]})"))
        .repeatLast();
    server.on("/apis")
        .exactPath()
        .reply(TranscriptReply::json(200, R"({"kind":"APIGroupList","groups":[]})"))
        .repeatLast();
    server.on("/api/v1")
        .exactPath()
        .reply(TranscriptReply::json(200, R"({"kind":"APIResourceList","groupVersion":"v1","resources":[
      {"name":"namespaces","singularName":"namespace","namespaced":false,"kind":"Namespace","verbs":["create","delete","get","list","watch"]},
      {"name":"configmaps","singularName":"configmap","namespaced":true,"kind":"ConfigMap",
       "verbs":["create","delete","get","list","patch","update","watch"]}]})"))
        .repeatLast();
    if (!someoneElses.empty()) {
        server.on("/api/v1/namespaces")
            .exactPath()
            .method("POST")
            .reply(TranscriptReply::json(409,
                                         R"({"kind":"Status","status":"Failure","reason":"AlreadyExists","code":409})"))
            .repeatLast();
        server.on("/api/v1/namespaces/" + someoneElses)
            .exactPath()
            .method("GET")
            .reply(TranscriptReply::json(200, R"({"kind":"Namespace","metadata":{"name":")" + someoneElses
                                                  + R"(","labels":{"team":"payments"}},"status":{"phase":"Active"}})"))
            .repeatLast();
    }
    server.on("/api/v1/namespaces")
        .exactPath()
        .method("POST")
        .reply(TranscriptReply::json(201, R"({"kind":"Namespace","metadata":{"name":"fs-lesson-unbuildable"}})"))
        .repeatLast();
    server.on("/api/v1/namespaces/fs-lesson-unbuildable")
        .exactPath()
        .reply(TranscriptReply::json(200, R"({"kind":"Namespace"})"))
        .repeatLast();
    server.on(object).method("DELETE").reply(TranscriptReply::json(404, notFound)).repeatLast();
    server.on(object)
        .method("GET")
        .reply(TranscriptReply::json(404, notFound))
        .reply(TranscriptReply::json(200, demo))
        .repeatLast();
    server.on(object).method("PATCH").reply(TranscriptReply::json(200, demo)).repeatLast();
    server.on(collection)
        .exactPath()
        .hasQuery("watch")
        .reply(TranscriptReply::stream({}, TranscriptReply::End::Finish))
        .repeatLast();
    server.on(collection)
        .exactPath()
        .reply(TranscriptReply::json(200, R"({"kind":"ConfigMapList","metadata":{"resourceVersion":"5"},"items":[]})"))
        .repeatLast();
}

} // namespace

class TestLessonCli : public QObject
{
    Q_OBJECT
    QTemporaryDir m_home;
private Q_SLOTS:
    void listPrintsEveryShippedLessonNameFirstInOrder()
    {
        const FieldscopeRun r = runInDataHome({QStringLiteral("lesson"), QStringLiteral("list")}, m_home.path());
        QCOMPARE(r.code, 0);
        const QList<QByteArray> lines = r.out.trimmed().split('\n');
        QCOMPARE(lines.size(), 13);
        const QList<QByteArray> names{"conflicting-creates",
                                      "last-write-wins",
                                      "optimistic-locking",
                                      "ssa-ownership",
                                      "field-manager-conflicts",
                                      "conditional-update",
                                      "controllers-and-subresources",
                                      "watch-atomicity",
                                      "who-did-it",
                                      "who-owns-status",
                                      "undo-safely",
                                      "class-resourceversion-race",
                                      "class-ssa-field-fight"};
        for (int i = 0; i < names.size(); ++i)
            QCOMPARE(lines[i].split(' ').constFirst(), names[i]);
        // The class lessons say they need students; the others do not.
        QVERIFY(lines[11].endsWith("(3 steps, class: needs students)"));
        QVERIFY(!lines[10].contains("class"));
    }

    void aClassLessonRefusesToRunWithoutAClassAndSaysWhatItNeeds()
    {
        QTemporaryDir noClass; // a cluster directory where no class runs
        const FieldscopeRun r = runInDataHome({QStringLiteral("lesson"), QStringLiteral("run"),
                                               QStringLiteral("class-ssa-field-fight"), QStringLiteral("--cluster-dir"),
                                               noClass.path()},
                                              m_home.path());
        QCOMPARE(r.code, 2);
        QVERIFY2(r.err.contains("this is a class lesson: its steps wait for students' writes, and no class is running"),
                 r.err.constData());
        QVERIFY2(r.err.contains("fieldscope class start") && r.err.contains("--simulate-students N"),
                 r.err.constData());
    }

    // An expired class's students can no longer write: the lesson says so before it waits for them.
    void aClassLessonRefusesAnExpiredClassAndSaysToStartANewOne()
    {
        QTemporaryDir dir;
        QVERIFY(write(dir.filePath(QStringLiteral("class/state.json")),
                      "{\"version\":1,\"running\":true,\"namespace\":\"class\",\"listen\":\"\","
                      "\"started\":\"2026-01-01T00:00:00.000Z\",\"expires\":\"2026-01-01T08:00:00.000Z\","
                      "\"outDir\":\"/nonexistent\",\"students\":[{\"name\":\"ann\",\"namespace\":"
                      "\"student-ann\",\"kubeconfig\":\"/nonexistent/ann.kubeconfig\"}]}"));
        const FieldscopeRun r = runInDataHome({QStringLiteral("lesson"), QStringLiteral("run"),
                                               QStringLiteral("class-ssa-field-fight"), QStringLiteral("--cluster-dir"),
                                               dir.path()},
                                              m_home.path());
        QCOMPARE(r.code, 2);
        QVERIFY2(r.err.contains("expired at 2026-01-01T08:00:00Z") && r.err.contains("fieldscope class stop"),
                 r.err.constData());
    }

    void simulatedStudentsAreOnlyForClassLessonsAndNeedACount()
    {
        const FieldscopeRun other = runInDataHome({QStringLiteral("lesson"), QStringLiteral("run"),
                                                   QStringLiteral("undo-safely"), QStringLiteral("--simulate-students"),
                                                   QStringLiteral("3")},
                                                  m_home.path());
        QCOMPARE(other.code, 2);
        QVERIFY2(other.err.contains("undo-safely is not a class lesson"), other.err.constData());
        const FieldscopeRun zero = runInDataHome({QStringLiteral("lesson"), QStringLiteral("run"),
                                                  QStringLiteral("class-resourceversion-race"),
                                                  QStringLiteral("--simulate-students"), QStringLiteral("0")},
                                                 m_home.path());
        QCOMPARE(zero.code, 2);
        QVERIFY2(zero.err.contains("--simulate-students takes a number of students from 1 to 200"),
                 zero.err.constData());
    }

    void checkNamesTheLineOfAMistakeAndExitsTwo()
    {
        const QString file = m_home.filePath(QStringLiteral("bad.yaml"));
        QVERIFY(write(file, "title: T\nsummary: S\nobject: {apiVersion: v1, kind: ConfigMap, name: x}\nsteps:\n"
                            "- title: A\n  narrative: B\n  requests:\n  - verb: create\n    clients: lots\n"));
        const FieldscopeRun r = runInDataHome({QStringLiteral("lesson"), QStringLiteral("check"), file}, m_home.path());
        QCOMPARE(r.code, 2);
        QVERIFY2(r.err.contains("bad.yaml:9: \"clients\" must be a whole number"), r.err.constData());
        const FieldscopeRun ok = runInDataHome({QStringLiteral("lesson"), QStringLiteral("check"),
                                                QStringLiteral(FIELDSCOPE_SOURCE_DIR
                                                               "/resources/lessons/01-conflicting-creates.yaml")},
                                               m_home.path());
        QCOMPARE(ok.code, 0);
        QVERIFY(ok.out.contains("ok, lesson \"conflicting-creates\" with 2 steps"));
    }

    void aRequestThatCannotBeBuiltIsRefusedByCheckAndRunEndsWithAMessageNotAnAbort()
    {
        const QString file = m_home.filePath(QStringLiteral("unbuildable.yaml"));
        QVERIFY(write(file, kUnbuildable));
        const FieldscopeRun check = runInDataHome({QStringLiteral("lesson"), QStringLiteral("check"), file},
                                                  m_home.path());
        QCOMPARE(check.code, 2);
        QVERIFY2(check.err.contains("unbuildable.yaml:12: \"metadata\" must be a mapping, not a string"),
                 check.err.constData());

        // `lesson run` against a server that would let the step send it: a message and exit 1 or
        // 2, never an abort (a crash is code -1 here, SIGABRT's 134 in a shell).
        fieldscope::testing::TranscriptServer server;
        serveLessonApi(server);
        const QString kubeconfig = writeTokenKubeconfig(m_home.path(), server.url());
        QVERIFY(!kubeconfig.isEmpty());
        const FieldscopeRun run = runInDataHome({QStringLiteral("lesson"), QStringLiteral("run"), file,
                                                 QStringLiteral("--kubeconfig"), kubeconfig, QStringLiteral("--yes")},
                                                m_home.path());
        QVERIFY2(run.code == 1 || run.code == 2, (QByteArray::number(run.code) + " " + run.err).constData());
        QVERIFY2(run.err.contains("unbuildable.yaml:12:"), run.err.constData());
        QCOMPARE(server.count([](const fieldscope::testing::RecordedRequest &r) { return r.method == "PATCH"; }), 0);
    }

    // `lesson run --namespace X` on a namespace someone else made used to adopt it (409), delete
    // the lesson's objects there and then the whole namespace at the end.
    void aClusterDirAdmitsOnlyItsOwnKubeconfigWithoutYes()
    {
        // --cluster-dir HOME with HOME/.kube/config and context prod: not the cluster directory's
        // kubeconfig, so the lesson is refused without --yes and nothing is written.
        const QString file = m_home.filePath(QStringLiteral("narrative.yaml"));
        QVERIFY(write(file,
                      "name: narrative\ntitle: Only words\nsummary: S\n"
                      "object: {apiVersion: v1, kind: ConfigMap, name: demo}\nsteps:\n- {title: A, narrative: B}\n"));
        QTemporaryDir home;
        QVERIFY(QDir().mkpath(home.filePath(QStringLiteral(".kube"))));
        fieldscope::testing::TranscriptServer server;
        serveLessonApi(server);
        TokenKubeconfig prod;
        prod.context = QStringLiteral("prod");
        const QString kubeconfig = writeTokenKubeconfig(home.filePath(QStringLiteral(".kube")), server.url(), prod);
        QVERIFY(!kubeconfig.isEmpty());
        const FieldscopeRun run = runInDataHome({QStringLiteral("lesson"), QStringLiteral("run"), file,
                                                 QStringLiteral("--cluster-dir"), home.path(),
                                                 QStringLiteral("--kubeconfig"), kubeconfig,
                                                 QStringLiteral("--context"), QStringLiteral("prod")},
                                                m_home.path());
        QCOMPARE(run.code, 2);
        QVERIFY2(run.err.contains("context prod is not the sandbox") && run.err.contains("Re-run with --yes"),
                 run.err.constData());
        QCOMPARE(server.count([](const fieldscope::testing::RecordedRequest &r) { return r.method != "GET"; }), 0);
    }

    void simulatedStudentsRefuseAClusterDirWhereAStoppedClassKeptItsReport()
    {
        QTemporaryDir dir; // a class ran here and was stopped without --purge
        QVERIFY(write(dir.filePath(QStringLiteral("class/state.json")), R"({"running":false})"));
        const FieldscopeRun r = runInDataHome({QStringLiteral("lesson"), QStringLiteral("run"),
                                               QStringLiteral("class-ssa-field-fight"),
                                               QStringLiteral("--simulate-students"), QStringLiteral("2"),
                                               QStringLiteral("--cluster-dir"), dir.path()},
                                              m_home.path());
        QCOMPARE(r.code, 2);
        QVERIFY2(r.err.contains("kept its namespace and report") && r.err.contains("class stop")
                     && r.err.contains("--purge") && r.err.contains("another --cluster-dir"),
                 r.err.constData());
        QFile state(dir.filePath(QStringLiteral("class/state.json")));
        QVERIFY(state.open(QIODevice::ReadOnly));
        QCOMPARE(state.readAll(), QByteArray(R"({"running":false})"));
    }

    void keepWithSimulatedStudentsIsRefusedSinceTheClassIsPurged()
    {
        QTemporaryDir dir;
        const FieldscopeRun r = runInDataHome({QStringLiteral("lesson"), QStringLiteral("run"),
                                               QStringLiteral("class-ssa-field-fight"),
                                               QStringLiteral("--simulate-students"), QStringLiteral("2"),
                                               QStringLiteral("--keep"), QStringLiteral("--cluster-dir"), dir.path()},
                                              m_home.path());
        QCOMPARE(r.code, 2);
        QVERIFY2(r.err.contains("--keep cannot be used with --simulate-students"), r.err.constData());
    }

    void aNamespaceSomeoneElseMadeIsNeitherAdoptedNorDeleted()
    {
        const QString file = m_home.filePath(QStringLiteral("narrative.yaml"));
        QVERIFY(write(file,
                      "name: narrative\ntitle: Only words\nsummary: S\n"
                      "object: {apiVersion: v1, kind: ConfigMap, name: demo}\nsteps:\n- {title: A, narrative: B}\n"));
        fieldscope::testing::TranscriptServer server;
        serveLessonApi(server, "payments");
        const QString kubeconfig = writeTokenKubeconfig(m_home.path(), server.url());
        const FieldscopeRun run = runInDataHome({QStringLiteral("lesson"), QStringLiteral("run"), file,
                                                 QStringLiteral("--namespace"), QStringLiteral("payments"),
                                                 QStringLiteral("--kubeconfig"), kubeconfig, QStringLiteral("--yes")},
                                                m_home.path());
        QVERIFY2(run.code == 1 || run.code == 2, (QByteArray::number(run.code) + " " + run.err).constData());
        QVERIFY2(run.err.contains("was not made by a lesson"), run.err.constData());
        QCOMPARE(server.count([](const fieldscope::testing::RecordedRequest &r) { return r.method == "DELETE"; }), 0);
    }

    void aNamespaceMustBeADnsLabel()
    {
        for (const QString &bad :
             {QStringLiteral("Payments"), QStringLiteral("a/b"), QStringLiteral("-x"), QString(64, u'a')}) {
            const FieldscopeRun run = runInDataHome({QStringLiteral("lesson"), QStringLiteral("run"),
                                                     QStringLiteral("conflicting-creates"),
                                                     QStringLiteral("--namespace"), bad, QStringLiteral("--kubeconfig"),
                                                     QStringLiteral("/nonexistent")},
                                                    m_home.path());
            QCOMPARE(run.code, 2);
            QVERIFY2(run.err.contains("DNS label"), run.err.constData());
        }
    }

    void aLessonInTheUserFolderReplacesTheShippedOneAndBrokenOnesAreNamed()
    {
        QTemporaryDir home;
        const QString dir = home.filePath(QStringLiteral("fieldscope/lessons"));
        QVERIFY(write(dir + QStringLiteral("/mine.yaml"),
                      "name: ssa-ownership\ntitle: My own SSA lesson\nsummary: S\n"
                      "object: {apiVersion: v1, kind: ConfigMap, name: x}\nsteps:\n- {title: A, narrative: B}\n"));
        QVERIFY(write(dir + QStringLiteral("/broken.yaml"), "title: [\n"));
        const FieldscopeRun r = runInDataHome({QStringLiteral("lesson"), QStringLiteral("list")}, home.path());
        QCOMPARE(r.code, 0);
        QVERIFY(r.out.contains("ssa-ownership"));
        QVERIFY(r.out.contains("My own SSA lesson"));
        QCOMPARE(r.out.count("ssa-ownership"), 1);
        QVERIFY2(r.err.contains("broken.yaml"), r.err.constData());
    }

    void runRefusesAnUnknownLessonAndAnotherLessonsNamespace()
    {
        const FieldscopeRun unknown = runInDataHome({QStringLiteral("lesson"), QStringLiteral("run"),
                                                     QStringLiteral("no-such-lesson")},
                                                    m_home.path());
        QCOMPARE(unknown.code, 2);
        QVERIFY(unknown.err.contains("no lesson named \"no-such-lesson\""));
        const FieldscopeRun system = runInDataHome({QStringLiteral("lesson"), QStringLiteral("run"),
                                                    QStringLiteral("ssa-ownership"), QStringLiteral("--namespace"),
                                                    QStringLiteral("kube-system")},
                                                   m_home.path());
        QCOMPARE(system.code, 2);
        QVERIFY(system.err.contains("not kube-system"));
        const FieldscopeRun bare = runInDataHome({QStringLiteral("lesson")}, m_home.path());
        QCOMPARE(bare.code, 2);
        QVERIFY(bare.err.contains("fieldscope lesson run NAME"));
    }
};

QTEST_GUILESS_MAIN(TestLessonCli)
#include "tst_lesson_cli.moc"
