// Every shipped lesson runs end to end against the real test cluster, and what its
// narrative claims is what the API server does. The runner checks each step's expectation; this
// test also checks the central claims itself, from the raw answers and watch events, so that a
// runner bug cannot make a lesson pass.
#include "app/services/lessoncatalog.h"
#include "clusterenv.h"
#include "core/base/json.h"
#include "kube/discovery.h"
#include "lessons/lessonrunner.h"

#include <QFile>
#include <QTemporaryDir>

#include <algorithm>
#include <set>

using namespace fieldscope;
using namespace fieldscope::testing;

class TestLessons : public QObject
{
    Q_OBJECT
private:
    kube::Connection m_conn;
    std::unique_ptr<kube::ApiClient> m_client;
    std::shared_ptr<kube::DiscoverySnapshot> m_discovery;
    app::LessonCatalog m_catalog;

    std::unique_ptr<lessons::LessonRunner> runner(const std::string &name)
    {
        const core::Lesson *lesson = m_catalog.find(name);
        if (!lesson)
            qFatal("no shipped lesson %s", name.c_str());
        auto r = std::make_unique<lessons::LessonRunner>(m_conn.transport->config(),
                                                         lessons::LessonRunner::resolverFor(*m_discovery), *lesson);
        r->setPeople(app::lessonPeople(m_conn.config)); // the test cluster's fieldscope-test-alice and -bob
        return r;
    }

    // "VERB USER CODE" of each create and patch of ConfigMap "demo" in `ns`, from the test cluster's
    // audit log (the API server's own record of who sent what).
    static QStringList auditedWrites(const std::string &ns)
    {
        QStringList out;
        QFile log(qEnvironmentVariable("FIELDSCOPE_TEST_CLUSTER_DIR") + QStringLiteral("/logs/audit.log"));
        if (!log.open(QIODevice::ReadOnly))
            return out;
        for (const QByteArray &line : log.readAll().split('\n')) {
            if (!line.contains(ns.c_str()) || !line.contains("\"configmaps\""))
                continue;
            const auto e = core::parseJson(line.toStdString());
            if (!e.ok() || e->value("stage", "") != "ResponseComplete" || !e->contains("objectRef")
                || (*e)["objectRef"].value("namespace", "") != ns || (*e)["objectRef"].value("name", "") != "demo")
                continue;
            const std::string verb = e->value("verb", "");
            if (verb == "create" || verb == "patch")
                out << QStringLiteral("%1 %2 %3")
                           .arg(QString::fromStdString(verb),
                                QString::fromStdString((*e)["user"].value("username", "")))
                           .arg((*e)["responseStatus"].value("code", 0));
        }
        return out;
    }

    // Runs the whole lesson; fails the test at the first step that did not go as it says.
    std::vector<core::LessonStepReport> runAll(lessons::LessonRunner &r)
    {
        std::vector<core::LessonStepReport> reports;
        auto reset = r.reset();
        if (!reset)
            qFatal("reset failed: %s", reset.error().describe().c_str());
        for (std::size_t i = 0; i < r.lesson().steps.size(); ++i) {
            reports.push_back(r.runStep(i));
            std::string why;
            for (const std::string &m : reports.back().mismatches)
                why += "\n  " + m;
            if (!reports.back().passed())
                qWarning("lesson %s step %zu: %s", r.lesson().name.c_str(), i + 1, why.c_str());
        }
        return reports;
    }

    static int countStatus(const core::LessonStepReport &r, int status)
    {
        return int(std::count_if(r.calls.begin(), r.calls.end(),
                                 [&](const core::LessonCall &c) { return c.isWrite && c.status == status; }));
    }

private Q_SLOTS:
    void initTestCase()
    {
        m_conn = connectTo(ctxToken());
        m_client = std::make_unique<kube::ApiClient>(m_conn.transport);
        kube::Discovery discovery(m_client.get());
        QSignalSpy done(&discovery, &kube::Discovery::finished);
        discovery.refresh();
        QVERIFY(done.wait(30000));
        m_discovery = std::make_shared<kube::DiscoverySnapshot>(discovery.snapshot());
        m_catalog = app::loadLessons();
        QVERIFY(m_catalog.errors.empty());
        QVERIFY(m_catalog.lessons.size() >= 8);
    }

    void everyShippedLessonGoesAsItsNarrativeSays_data()
    {
        QTest::addColumn<QString>("name");
        // Class lessons wait for students: tst_class_lessons runs them with simulated students on a
        // cluster of its own (starting a class may restart the API server this test shares).
        for (const core::Lesson &l : m_catalog.lessons)
            if (!l.isClass)
                QTest::newRow(l.name.c_str()) << QString::fromStdString(l.name);
    }
    // Without a class, a class lesson's student step says what it needs instead of waiting.
    void aClassLessonRunWithoutStudentsSaysWhatItNeeds()
    {
        auto r = runner("class-resourceversion-race");
        QVERIFY(r->lesson().isClass);
        QVERIFY(r->reset().ok());
        QVERIFY(r->runStep(0).passed()); // the teacher's own step runs
        const core::LessonStepReport s = r->runStep(1);
        QVERIFY(!s.passed());
        QVERIFY(s.calls.empty());
        QVERIFY2(s.mismatches.front().find("waits for students' writes and there is no class") != std::string::npos,
                 s.mismatches.front().c_str());
        QVERIFY(r->removeNamespace().ok());
    }

    void everyShippedLessonGoesAsItsNarrativeSays()
    {
        QFETCH(QString, name);
        auto r = runner(name.toStdString());
        const auto reports = runAll(*r);
        for (const core::LessonStepReport &s : reports) {
            const std::string why = s.passed() ? std::string()
                                               : name.toStdString() + " step " + std::to_string(s.index + 1) + ": "
                                                     + s.mismatches.front();
            QVERIFY2(s.passed(), why.c_str());
        }
        QVERIFY(r->removeNamespace().ok());
    }

    // Lesson 9 sends as two people: the API server's own audit log says alice created, bob patched
    // and alice was refused, each on the lesson's object.
    void whoDidItWritesAsAliceAndBobOnTheirOwnConnections()
    {
        auto r = runner("who-did-it");
        // Earlier runs of the lesson wrote to the same namespace: only what this run adds counts.
        const qsizetype before = auditedWrites(r->ns()).size();
        const auto reports = runAll(*r);
        QCOMPARE(countStatus(reports.at(2), 409), 1);
        QStringList seen;
        QVERIFY(QTest::qWaitFor([&] { return (seen = auditedWrites(r->ns())).size() >= before + 3; }, 10000));
        QCOMPARE(seen.mid(before), (QStringList{QStringLiteral("create alice 201"), QStringLiteral("patch bob 200"),
                                                QStringLiteral("patch alice 409")}));
        QVERIFY(r->removeNamespace().ok());
    }

    void conflictingCreatesHaveOneWinnerAndTheLosersChangeNothing()
    {
        auto r = runner("conflicting-creates");
        const auto reports = runAll(*r);
        const core::LessonStepReport &race = reports.at(0);
        QCOMPARE(countStatus(race, 201), 1);
        QCOMPARE(countStatus(race, 409), 4);
        QVERIFY(race.winner.has_value());
        // The object is the winner's, and only one version of it was ever announced.
        QCOMPARE(race.object["metadata"]["labels"]["writer"].get<std::string>(), std::to_string(*race.winner));
        QCOMPARE(race.object["metadata"]["labels"].size(), std::size_t(2)); // labelN and writer
        QCOMPARE(race.events.size(), std::size_t(1));
        QCOMPARE(race.events[0].type, std::string("ADDED"));
        QVERIFY(r->removeNamespace().ok());
    }

    void optimisticLockingLetsExactlyOneStaleWriteThroughAndTheRetryLoopConverges()
    {
        auto r = runner("optimistic-locking");
        const auto reports = runAll(*r);
        const core::LessonStepReport &locked = reports.at(1);
        QCOMPARE(countStatus(locked, 200), 1);
        QCOMPARE(countStatus(locked, 409), 4);
        for (const core::LessonCall &c : locked.calls)
            if (c.status == 409)
                QVERIFY2(c.message.find("the object has been modified") != std::string::npos, c.message.c_str());
        const core::LessonStepReport &loop = reports.at(2);
        QCOMPARE(countStatus(loop, 200), 5);
        for (int i = 1; i <= 5; ++i)
            QCOMPARE(loop.object["metadata"]["labels"]["client-" + std::to_string(i)].get<std::string>(),
                     std::string("done"));
        QVERIFY(r->removeNamespace().ok());
    }

    void fieldManagerConflictNamesTheOwnerAndCoOwningKeepsBoth()
    {
        auto r = runner("field-manager-conflicts");
        const auto reports = runAll(*r);
        const core::LessonStepReport &conflict = reports.at(1);
        QCOMPARE(countStatus(conflict, 409), 1);
        const auto &c = conflict.calls.at(0).conflicts;
        QCOMPARE(c.size(), std::size_t(1));
        QCOMPARE(c[0].path, std::string(".metadata.labels.label1"));
        QCOMPARE(c[0].manager, std::string("alice"));
        const auto &owners = reports.at(5).owners.at("/metadata/labels/label1");
        QCOMPARE(owners.size(), std::size_t(2));
        QVERIFY(r->removeNamespace().ok());
    }

    void concurrentMultiFieldWritesArriveWholeInTheWatch()
    {
        auto r = runner("watch-atomicity");
        const auto reports = runAll(*r);
        const core::LessonStepReport &race = reports.at(1);
        QCOMPARE(countStatus(race, 200), 20);
        QCOMPARE(race.events.size(), std::size_t(20));
        std::set<std::string> seen;
        for (const core::LessonEvent &e : race.events) {
            const core::Json &data = e.object["data"];
            QVERIFY2(data["a"] == data["b"] && data["b"] == data["c"], core::toJsonText(data).c_str());
            seen.insert(data["a"].get<std::string>());
        }
        QCOMPARE(seen.size(), std::size_t(20)); // every write is its own event
        QVERIFY(r->removeNamespace().ok());
    }

    // The command line: `lesson run` prints JSON scripts can read, and exits 1 when the cluster
    // does not do what a lesson claims.
    void lessonRunPrintsJsonAndFailsWhenAnOutcomeDiffers()
    {
        const QStringList base{QStringLiteral("lesson"),       QStringLiteral("run"),
                               QStringLiteral("--kubeconfig"), testKubeconfig(),
                               QStringLiteral("--context"),    QString::fromStdString(ctxToken())};
        auto refused = runFieldscope(base + QStringList{QStringLiteral("ssa-ownership")});
        QCOMPARE(refused.exitCode, 2); // not the sandbox and no --yes: nothing is touched
        QVERIFY(refused.err.contains("is not the sandbox"));

        auto ok = runFieldscope(base
                                + QStringList{QStringLiteral("ssa-ownership"), QStringLiteral("--yes"),
                                              QStringLiteral("-o"), QStringLiteral("json")});
        QCOMPARE(ok.exitCode, 0);
        auto doc = core::parseJson(ok.out.toStdString());
        QVERIFY(doc.ok());
        QCOMPARE((*doc)["passed"].get<bool>(), true);
        QCOMPARE((*doc)["steps"].size(), std::size_t(3));
        QCOMPARE((*doc)["steps"][1]["owners"]["/metadata/labels/newlabel"][0]["manager"].get<std::string>(),
                 std::string("teacher"));
        QCOMPARE((*doc)["steps"][0]["requests"][0]["method"].get<std::string>(), std::string("PATCH"));

        QTemporaryDir dir;
        QFile wrong(dir.filePath(QStringLiteral("wrong.yaml")));
        QVERIFY(wrong.open(QIODevice::WriteOnly));
        wrong.write(
            "title: A wrong claim\nsummary: Two creates of one name cannot both succeed.\n"
            "object: {apiVersion: v1, kind: ConfigMap, name: twice}\nsteps:\n"
            "- title: Two creates\n  narrative: Both succeed (they do not).\n  requests:\n"
            "  - verb: create\n    clients: 2\n    object: {apiVersion: v1, kind: ConfigMap, metadata: {name: twice}}\n"
            "  expect: {succeeded: 2}\n");
        wrong.close();
        auto differs = runFieldscope(base
                                     + QStringList{QStringLiteral("--yes"), QStringLiteral("--lessons"), dir.path(),
                                                   QStringLiteral("wrong")});
        QCOMPARE(differs.exitCode, 1);
        QVERIFY2(differs.out.contains("NOT AS THE LESSON SAYS: expected 2 writes to succeed, 1 did"),
                 differs.out.constData());
    }
};

QTEST_GUILESS_MAIN(TestLessons)
#include "tst_lessons.moc"
