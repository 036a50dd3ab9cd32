// The shipped class lessons (docs/lessons.md, "Class lessons") end to end on a real cluster:
// `fieldscope lesson run NAME --simulate-students N` starts a class of N students (a client
// certificate and kubeconfig each), sends each student's writes on their own connection, checks
// the lesson, and stops the class. The outcomes are checked here from the report's JSON as well,
// so that a runner bug cannot make a lesson pass: exactly one 200 and N-1 409 in the race, and
// every conflict naming the student who owns the field. And the same lesson with real students
// (kubectl, each with their kubeconfig) read back from the API server's audit log.
//
// Starting a class may restart the API server, so this test starts a cluster of its own
// (scripts/fieldscope-cluster) instead of sharing the test cluster.
#include "core/base/json.h"
#include "fieldscoperun.h"

#include <QDir>
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

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
        // The simulated classes before were purged; `class start` waits for namespaces a purge is
        // still deleting.
        const FieldscopeRun started = fieldscope({QStringLiteral("class"), QStringLiteral("start"),
                                                  QStringLiteral("--cluster-dir"), m_cluster.path(),
                                                  QStringLiteral("--students"), QStringLiteral("ann,bo,cy"),
                                                  QStringLiteral("--out"), out.path()});
        QVERIFY2(started.code == 0, started.err.constData());
        auto stopClass = qScopeGuard([&] {
            fieldscope({QStringLiteral("class"), QStringLiteral("stop"), QStringLiteral("--cluster-dir"),
                        m_cluster.path(), QStringLiteral("--purge")});
        });

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
        // What each student types: the apply the instruction shows, with their own kubeconfig.
        auto everyoneApplies = [&](bool force) {
            std::vector<std::unique_ptr<QProcess>> students;
            for (const QString &name : {QStringLiteral("ann"), QStringLiteral("bo"), QStringLiteral("cy")}) {
                auto p = std::make_unique<QProcess>();
                const QString manifest = QStringLiteral("{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":"
                                                        "{\"name\":\"fight\"},\"data\":{\"color\":\"%1\"}}")
                                             .arg(name);
                QStringList args{QStringLiteral("--kubeconfig"),
                                 out.path() + QLatin1Char('/') + name + QStringLiteral(".kubeconfig"),
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
            for (auto &p : students)
                p->waitForFinished(30'000);
        };
        QVERIFY2(waitForPrompt("Step 2/3 asks the class"), prompts.constData());
        QVERIFY(prompts.contains("waiting up to 180 s for 3 students"));
        everyoneApplies(false);
        QVERIFY2(waitForPrompt("Step 3/3 asks the class"), prompts.constData());
        everyoneApplies(true);
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
};

QTEST_GUILESS_MAIN(TestClassLessons)
#include "tst_class_lessons.moc"
