// The shipped class lessons (docs/lessons.md, "Class lessons") end to end on a real cluster:
// `fieldscope lesson run NAME --simulate-students N` starts a class of N students (a client
// certificate and kubeconfig each), sends each student's writes on their own connection, checks
// the lesson, and stops the class. The outcomes are checked here from the report's JSON as well,
// so that a runner bug cannot make a lesson pass: exactly one 200 and N-1 409 in the race, and
// every conflict naming the student who owns the field. And the same lesson with real students
// (kubectl, each with their kubeconfig) read back from the API server's audit log.
//
// The window runs the same lesson with real students too (app::LessonController on the offscreen
// platform): it shows each step's prompt while it waits, and reports what the students wrote.
//
// Starting a class may restart the API server, so this test starts a cluster of its own
// (scripts/fieldscope-cluster) instead of sharing the test cluster.
#include "../gui/guitesting.h"
#include "app/gui/clustercontroller.h"
#include "app/gui/lessoncontroller.h"
#include "app/services/lessoncatalog.h"
#include "core/base/json.h"
#include "fieldscoperun.h"
#include "widgets/clusterview.h"
#include "widgets/lessonpanel.h"
#include "widgets/mainwindow.h"
#include "widgets/objecttablepage.h"

#include <QDir>
#include <QFile>
#include <QProcess>
#include <QSet>
#include <QSignalSpy>
#include <QTableView>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <map>
#include <set>

using namespace fieldscope;
using fieldscope::testing::FieldscopeRun;

namespace {

QString clusterScript()
{
    return qEnvironmentVariable("FIELDSCOPE_CLUSTER_SCRIPT");
}

int countStatus(const core::Json &step, int status)
{
    int n = 0;
    for (const core::Json &c : step.at("requests"))
        n += c.value("isWrite", false) && c.value("status", 0) == status ? 1 : 0;
    return n;
}

std::set<std::string> studentsWith(const core::Json &step, int status)
{
    std::set<std::string> out;
    for (const core::Json &c : step.at("requests"))
        if (c.value("isWrite", false) && c.value("status", 0) == status)
            out.insert(c.value("student", std::string()));
    return out;
}

std::vector<std::string> ownersOf(const core::Json &step, const std::string &pointer)
{
    std::vector<std::string> out;
    if (step.at("owners").contains(pointer))
        for (const core::Json &o : step.at("owners").at(pointer))
            out.push_back(o.value("manager", std::string()));
    return out;
}

} // namespace

class TestClassLessons : public QObject
{
    Q_OBJECT
    QTemporaryDir m_home;
    QTemporaryDir m_cluster;
    bool m_started = false;

    FieldscopeRun fieldscope(const QStringList &args, int timeoutMs = 240'000)
    {
        return testing::runFieldscope(args, m_home.path(), {QString(), timeoutMs});
    }

    // `lesson run NAME --simulate-students N -o json` on this test's cluster: the report.
    core::Json simulated(const QString &lesson, int students)
    {
        const FieldscopeRun r = fieldscope({QStringLiteral("lesson"), QStringLiteral("run"), lesson,
                                            QStringLiteral("--simulate-students"), QString::number(students),
                                            QStringLiteral("--cluster-dir"), m_cluster.path(), QStringLiteral("-o"),
                                            QStringLiteral("json")});
        if (r.code != 0)
            qWarning("lesson run exited %d:\n%s\n%s", r.code, r.err.constData(), r.out.left(4000).constData());
        auto report = core::parseJson(r.out.toStdString());
        if (!report.ok())
            return core::Json();
        return *report;
    }

    // After a simulated run the class is gone: no state, so no class runs on the cluster.
    void verifyClassStopped()
    {
        const FieldscopeRun status = fieldscope({QStringLiteral("class"), QStringLiteral("status"),
                                                 QStringLiteral("--cluster-dir"), m_cluster.path()});
        QVERIFY2(status.code != 0 || !status.out.contains("running"), status.out.constData());
    }

    void checkRace(const core::Json &report, int n)
    {
        QVERIFY(report.is_object());
        QCOMPARE(report.value("passed", false), true);
        QCOMPARE(report.value("students", 0), n);
        QCOMPARE(report.value("simulated", false), true);
        // A rehearsal's own namespace: it never waits for the last rehearsal's purge.
        const std::string ns = report.value("namespace", std::string());
        QVERIFY2(ns.rfind("rehearsal-", 0) == 0 && ns.size() == 16, ns.c_str());
        const core::Json &race = report.at("steps").at(1);
        QCOMPARE(int(race.at("requests").size()), n); // each student's one write
        QCOMPARE(countStatus(race, 200), 1);
        QCOMPARE(countStatus(race, 409), n - 1);
        QCOMPARE(int(studentsWith(race, 409).size()), n - 1); // n-1 different students refused
        const std::string winner = race.value("winnerStudent", std::string());
        QCOMPARE(studentsWith(race, 200), std::set<std::string>{winner});
        QVERIFY(winner.rfind("student", 0) == 0);
        const std::string shown = race.value("resourceVersionShown", std::string());
        QVERIFY(!shown.empty());
        // The retry loop: every student got one write in.
        const core::Json &retry = report.at("steps").at(2);
        QCOMPARE(retry.value("succeeded", 0), n);
        QCOMPARE(int(studentsWith(retry, 200).size()), n);
    }

    void checkFieldFight(const core::Json &report, int n)
    {
        QVERIFY(report.is_object());
        QCOMPARE(report.value("passed", false), true);
        const core::Json &fight = report.at("steps").at(1);
        QCOMPARE(countStatus(fight, 200), 1);
        QCOMPARE(countStatus(fight, 409), n - 1);
        const std::string owner = fight.value("winnerStudent", std::string());
        for (const core::Json &c : fight.at("requests")) {
            if (c.value("status", 0) != 409)
                continue;
            QCOMPARE(int(c.at("conflicts").size()), 1);
            QCOMPARE(c.at("conflicts").at(0).value("field", std::string()), std::string(".data.color"));
            QCOMPARE(c.at("conflicts").at(0).value("manager", std::string()), owner); // the owner, by name
            QVERIFY(c.value("student", std::string()) != owner);
        }
        QCOMPARE(ownersOf(fight, "/data/color"), std::vector<std::string>{owner});
        // Everyone forces: all succeed, and the last one to force owns the field alone.
        const core::Json &force = report.at("steps").at(2);
        QCOMPARE(countStatus(force, 200), n);
        const std::string last = force.value("lastStudent", std::string());
        QVERIFY(!last.empty());
        QCOMPARE(ownersOf(force, "/data/color"), std::vector<std::string>{last});
        QCOMPARE(ownersOf(force, "/data/rules"), std::vector<std::string>{"teacher"});
    }

    // `fieldscope class start` on this test's cluster: students ann, bo and cy, kubeconfigs in
    // `out`. The simulated classes before were purged; a start waits for namespaces a purge is
    // still deleting.
    bool startClassOf(const QString &out)
    {
        const FieldscopeRun started = fieldscope({QStringLiteral("class"), QStringLiteral("start"),
                                                  QStringLiteral("--cluster-dir"), m_cluster.path(),
                                                  QStringLiteral("--students"), QStringLiteral("ann,bo,cy"),
                                                  QStringLiteral("--out"), out});
        if (started.code != 0)
            qWarning("class start exited %d: %s", started.code, started.err.constData());
        return started.code == 0;
    }

    void stopTheClass()
    {
        fieldscope({QStringLiteral("class"), QStringLiteral("stop"), QStringLiteral("--cluster-dir"), m_cluster.path(),
                    QStringLiteral("--purge")});
    }

    // What each student of class-ssa-field-fight types: the apply the instruction shows, with
    // their own kubeconfig (in `out`), all three at once. kubectl's exit codes, in roster order
    // (-1: it did not finish). Blocks this thread meanwhile: the lesson runs on its own.
    static std::vector<int> everyoneApplies(const QString &out, bool force)
    {
        const QString kubectl = qEnvironmentVariable("FIELDSCOPE_KUBECTL");
        std::vector<std::unique_ptr<QProcess>> students;
        for (const QString &name : {QStringLiteral("ann"), QStringLiteral("bo"), QStringLiteral("cy")}) {
            auto p = std::make_unique<QProcess>();
            const QString manifest = QStringLiteral("{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":"
                                                    "{\"name\":\"fight\"},\"data\":{\"color\":\"%1\"}}")
                                         .arg(name);
            QStringList args{QStringLiteral("--kubeconfig"),
                             out + QLatin1Char('/') + name + QStringLiteral(".kubeconfig"),
                             QStringLiteral("apply"),
                             QStringLiteral("--server-side"),
                             QStringLiteral("--field-manager=") + name,
                             QStringLiteral("-f"),
                             QStringLiteral("-")};
            if (force)
                args << QStringLiteral("--force-conflicts");
            p->start(kubectl, args);
            p->write(manifest.toUtf8());
            p->closeWriteChannel();
            students.push_back(std::move(p));
        }
        std::vector<int> codes;
        for (auto &p : students) {
            const bool finished = p->waitForFinished(30'000);
            codes.push_back(finished && p->exitStatus() == QProcess::NormalExit ? p->exitCode() : -1);
            if (codes.back() != 0)
                qInfo("kubectl apply: %s", p->readAllStandardError().constData());
        }
        return codes;
    }

    // One apply went through and the other two were refused (a conflict), or all went through.
    static bool oneWon(const std::vector<int> &codes)
    {
        return std::count(codes.begin(), codes.end(), 0) == 1 && std::count(codes.begin(), codes.end(), -1) == 0;
    }
    static bool allWon(const std::vector<int> &codes)
    {
        return std::count(codes.begin(), codes.end(), 0) == std::ptrdiff_t(codes.size());
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(!clusterScript().isEmpty());
        QProcess start;
        start.setProcessChannelMode(QProcess::ForwardedErrorChannel);
        start.start(clusterScript(),
                    {QStringLiteral("start"), m_cluster.path(), QStringLiteral("--name"),
                     QStringLiteral("class-lessons"), QStringLiteral("--max-lifetime"), QStringLiteral("1800")});
        QVERIFY(start.waitForFinished(180'000));
        QCOMPARE(start.exitCode(), 0);
        m_started = true;
    }

    void cleanupTestCase()
    {
        if (m_started)
            QProcess::execute(clusterScript(), {QStringLiteral("stop"), m_cluster.path(), QStringLiteral("--purge")});
    }

    void theRaceWithThirtySimulatedStudentsHasOneWinnerAndTwentyNineConflicts()
    {
        checkRace(simulated(QStringLiteral("class-resourceversion-race"), 30), 30);
        verifyClassStopped();
    }

    void theRaceWithTwoStudentsToo() { checkRace(simulated(QStringLiteral("class-resourceversion-race"), 2), 2); }

    void theFieldFightWithThirtyStudentsNamesTheOwnerInEveryConflictAndForceMovesIt()
    {
        checkFieldFight(simulated(QStringLiteral("class-ssa-field-fight"), 30), 30);
        verifyClassStopped();
    }

    void theFieldFightWithThreeStudentsToo()
    {
        checkFieldFight(simulated(QStringLiteral("class-ssa-field-fight"), 3), 3);
    }

    // Real students: a class started with `fieldscope class start`, the lesson waiting for their
    // writes, and each student applying with kubectl and their own kubeconfig. The runner reads the
    // writes from the audit log and checks the same claims.
    void realStudentsWritesAreReadFromTheAuditLog()
    {
        const QString kubectl = qEnvironmentVariable("FIELDSCOPE_KUBECTL");
        QVERIFY(QFileInfo::exists(kubectl));
        QTemporaryDir out;
        QVERIFY(startClassOf(out.path()));
        auto stopClass = qScopeGuard([&] { stopTheClass(); });

        QProcess lesson;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("HOME"), m_home.path());
        env.remove(QStringLiteral("KUBECONFIG"));
        lesson.setProcessEnvironment(env);
        lesson.start(QStringLiteral(FIELDSCOPE_BUILD_DIR "/app/fieldscope"),
                     {QStringLiteral("lesson"), QStringLiteral("run"), QStringLiteral("class-ssa-field-fight"),
                      QStringLiteral("--cluster-dir"), m_cluster.path(), QStringLiteral("-o"), QStringLiteral("json")});
        QByteArray prompts;
        auto waitForPrompt = [&](const char *text) {
            for (int i = 0; i < 300 && !prompts.contains(text); ++i) {
                lesson.waitForReadyRead(100);
                prompts += lesson.readAllStandardError();
            }
            return prompts.contains(text);
        };
        QVERIFY2(waitForPrompt("Step 2/3 asks the class"), prompts.constData());
        QVERIFY(prompts.contains("waiting up to 180 s for 3 students"));
        QVERIFY(prompts.contains("ConfigMap fight in namespace class, resourceVersion on the screen: "));
        QVERIFY(oneWon(everyoneApplies(out.path(), false)));
        QVERIFY2(waitForPrompt("Step 3/3 asks the class"), prompts.constData());
        QVERIFY(allWon(everyoneApplies(out.path(), true)));
        QVERIFY(lesson.waitForFinished(120'000));
        const QByteArray json = lesson.readAllStandardOutput();
        QVERIFY2(lesson.exitCode() == 0, (prompts + lesson.readAllStandardError() + json.left(3000)).constData());
        auto report = core::parseJson(json.toStdString());
        QVERIFY(report.ok());
        QCOMPARE(report->value("simulated", true), false);
        QCOMPARE(report->value("namespace", std::string()), std::string("class"));
        const core::Json &fight = report->at("steps").at(1);
        QCOMPARE(countStatus(fight, 200), 1);
        QCOMPARE(countStatus(fight, 409), 2);
        QCOMPARE(studentsWith(fight, 409).size() + studentsWith(fight, 200).size(), std::size_t(3));
        const std::string owner = fight.value("winnerStudent", std::string());
        for (const core::Json &c : fight.at("requests"))
            if (c.value("status", 0) == 409)
                QCOMPARE(c.at("conflicts").at(0).value("manager", std::string()), owner);
        QCOMPARE(countStatus(report->at("steps").at(2), 200), 3);
    }

    // The same lesson from the window's Lessons menu, with a class started on the cluster the
    // window shows: each class step's prompt is in the lesson panel while the step waits, the
    // students' writes are read from the audit log, and the reports name them.
    void theWindowRunsAClassLessonWithRealStudents()
    {
        QTemporaryDir out;
        QVERIFY(startClassOf(out.path()));
        auto stopClass = qScopeGuard([&] { stopTheClass(); });

        widgets::MainWindow window;
        window.resize(1600, 900);
        app::ClusterController controller{window.addCluster(QStringLiteral("class-lessons"))};
        controller.open(m_cluster.path() + QStringLiteral("/kubeconfig"), QStringLiteral("class-lessons"));
        window.show();
        QVERIFY(QTest::qWaitFor([&] { return controller.isLoaded(); }, 60'000));
        const app::LessonCatalog catalog = app::loadLessons();
        const core::Lesson *fightLesson = catalog.find("class-ssa-field-fight");
        QVERIFY(fightLesson);
        app::LessonController lesson(&window, &controller, *fightLesson);
        QSignalSpy shown(&lesson, &app::LessonController::stepShown);
        lesson.runTo(2);
        lesson.start();

        const auto prompted = [&](const char *step) {
            return QTest::qWaitFor([&] { return lesson.panel()->statusText().contains(QLatin1String(step)); }, 120'000);
        };
        QVERIFY2(prompted("Step 2/3 asks the class"), qPrintable(lesson.panel()->statusText()));
        const QString prompt = lesson.panel()->statusText();
        QVERIFY2(prompt.contains(QLatin1String("waiting up to 180 s for 3 students")), qPrintable(prompt));
        QVERIFY2(prompt.contains(QLatin1String("kubectl apply --server-side")), qPrintable(prompt)); // the instruction
        QVERIFY2(prompt.contains(QLatin1String("ConfigMap fight in namespace class, resourceVersion on the screen: ")),
                 qPrintable(prompt));
        QCOMPARE(lesson.ns(), std::string("class")); // the class's namespace, not the lesson's own
        // The table lists the ConfigMaps (step 1's among them) before the picture is taken.
        QTableView *table = controller.view()->tablePage()->table();
        (void)QTest::qWaitFor([&] { return table->model() && table->model()->rowCount() >= 10; }, 20'000);
        QVERIFY(testing::saveShot(&window, QStringLiteral("lesson-class-prompt.png")));
        QVERIFY(oneWon(everyoneApplies(out.path(), false)));
        QVERIFY2(prompted("Step 3/3 asks the class"), qPrintable(lesson.panel()->statusText()));
        QVERIFY(allWon(everyoneApplies(out.path(), true)));
        QVERIFY(QTest::qWaitFor(
            [&] {
                return std::any_of(shown.begin(), shown.end(),
                                   [](const QList<QVariant> &a) { return a.at(0).toInt() == 2; });
            },
            120'000));

        const core::LessonStepReport *fight = lesson.report(1);
        QVERIFY(fight);
        QVERIFY2(fight->passed(), fight->mismatches.empty() ? "" : fight->mismatches.front().c_str());
        int won = 0, refused = 0;
        std::set<std::string> who;
        for (const core::LessonCall &c : fight->calls) {
            won += c.isWrite && c.status == 200;
            refused += c.isWrite && c.status == 409;
            who.insert(c.student);
        }
        QCOMPARE(won, 1);
        QCOMPARE(refused, 2);
        QCOMPARE(who, (std::set<std::string>{"ann", "bo", "cy"}));
        const core::LessonStepReport *force = lesson.report(2);
        QVERIFY(force);
        QVERIFY2(force->passed(), force->mismatches.empty() ? "" : force->mismatches.front().c_str());
        QCOMPARE(force->succeeded, 3);
        // The panel names the students, not client numbers: in the requests and the outcome.
        QVERIFY(force->last);
        const QString last = QString::fromStdString(force->clientName(*force->last));
        QVERIFY2(lesson.panel()->outcomeText().contains(QStringLiteral("the object shows %1's write").arg(last)),
                 qPrintable(lesson.panel()->outcomeText()));
        QSet<QString> named;
        for (int row = 0; row < lesson.panel()->requestTable()->rowCount(); ++row)
            named.insert(lesson.panel()->requestTable()->item(row, 1)->text());
        QCOMPARE(named, (QSet<QString>{QStringLiteral("ann"), QStringLiteral("bo"), QStringLiteral("cy")}));
        QVERIFY(testing::saveShot(&window, QStringLiteral("lesson-class-forced.png")));

        // What the window recorded of the class's namespace is what the lesson saves (the
        // recorder commits a moment after the watch delivers).
        QTemporaryDir saved;
        const QString file = saved.filePath(QStringLiteral("fight.jsonl"));
        QVERIFY(QTest::qWaitFor([&] { return lesson.saveHistory(file).valueOr(0) >= 3; }, 30'000));

        // The class stops: Run Again looks for it again, finds none, says so and goes back to the
        // introduction, still on the class's namespace.
        stopTheClass();
        QSignalSpy failed(&lesson, &app::LessonController::failed);
        lesson.runAgain();
        QVERIFY(failed.wait(60'000));
        QVERIFY2(failed.at(0).at(0).toString().contains(QLatin1String("no class runs on class-lessons")),
                 qPrintable(failed.at(0).at(0).toString()));
        QCOMPARE(lesson.currentStep(), -1);
        QVERIFY(lesson.report(2) == nullptr);
        QCOMPARE(lesson.ns(), std::string("class"));
    }
};

QTEST_MAIN(TestClassLessons)
#include "tst_class_lessons.moc"
