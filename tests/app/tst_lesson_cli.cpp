// `fieldscope lesson list|check|run` without a cluster (issue 12): names first, the line of each
// mistake, the user's folder replacing a shipped lesson, and clear refusals.
#include <QDir>
#include <QFileInfo>
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

namespace {
struct Run {
    int code = -1;
    QByteArray out, err;
};
Run fieldscope(const QStringList &args, const QString &dataHome)
{
    QProcess p;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("XDG_DATA_HOME"), dataHome);
    p.setProcessEnvironment(env);
    p.start(QStringLiteral(FIELDSCOPE_BUILD_DIR "/app/fieldscope"), args);
    p.waitForFinished(30000);
    return {p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1, p.readAllStandardOutput(), p.readAllStandardError()};
}
bool write(const QString &path, const QByteArray &text)
{
    QDir().mkpath(QFileInfo(path).absolutePath());
    QFile f(path);
    return f.open(QIODevice::WriteOnly) && f.write(text) == text.size();
}
} // namespace

class TestLessonCli : public QObject
{
    Q_OBJECT
    QTemporaryDir m_home;
private Q_SLOTS:
    void listPrintsEveryShippedLessonNameFirstInOrder()
    {
        const Run r = fieldscope({QStringLiteral("lesson"), QStringLiteral("list")}, m_home.path());
        QCOMPARE(r.code, 0);
        const QList<QByteArray> lines = r.out.trimmed().split('\n');
        QCOMPARE(lines.size(), 8);
        const QList<QByteArray> names{"conflicting-creates", "last-write-wins", "optimistic-locking", "ssa-ownership",
                                      "field-manager-conflicts", "conditional-update", "controllers-and-subresources", "watch-atomicity"};
        for (int i = 0; i < names.size(); ++i)
            QCOMPARE(lines[i].split(' ').first(), names[i]);
    }

    void checkNamesTheLineOfAMistakeAndExitsTwo()
    {
        const QString file = m_home.filePath(QStringLiteral("bad.yaml"));
        QVERIFY(write(file, "title: T\nsummary: S\nobject: {apiVersion: v1, kind: ConfigMap, name: x}\nsteps:\n"
                            "- title: A\n  narrative: B\n  requests:\n  - verb: create\n    clients: lots\n"));
        const Run r = fieldscope({QStringLiteral("lesson"), QStringLiteral("check"), file}, m_home.path());
        QCOMPARE(r.code, 2);
        QVERIFY2(r.err.contains("bad.yaml:9: \"clients\" must be a whole number"), r.err.constData());
        const Run ok = fieldscope({QStringLiteral("lesson"), QStringLiteral("check"), QStringLiteral(FIELDSCOPE_SOURCE_DIR "/resources/lessons/01-conflicting-creates.yaml")},
                                  m_home.path());
        QCOMPARE(ok.code, 0);
        QVERIFY(ok.out.contains("ok, lesson \"conflicting-creates\" with 2 steps"));
    }

    void aLessonInTheUserFolderReplacesTheShippedOneAndBrokenOnesAreNamed()
    {
        QTemporaryDir home;
        const QString dir = home.filePath(QStringLiteral("fieldscope/lessons"));
        QVERIFY(write(dir + QStringLiteral("/mine.yaml"), "name: ssa-ownership\ntitle: My own SSA lesson\nsummary: S\n"
                                                          "object: {apiVersion: v1, kind: ConfigMap, name: x}\nsteps:\n- {title: A, narrative: B}\n"));
        QVERIFY(write(dir + QStringLiteral("/broken.yaml"), "title: [\n"));
        const Run r = fieldscope({QStringLiteral("lesson"), QStringLiteral("list")}, home.path());
        QCOMPARE(r.code, 0);
        QVERIFY(r.out.contains("ssa-ownership"));
        QVERIFY(r.out.contains("My own SSA lesson"));
        QCOMPARE(r.out.count("ssa-ownership"), 1);
        QVERIFY2(r.err.contains("broken.yaml"), r.err.constData());
    }

    void runRefusesAnUnknownLessonAndAnotherLessonsNamespace()
    {
        const Run unknown = fieldscope({QStringLiteral("lesson"), QStringLiteral("run"), QStringLiteral("no-such-lesson")}, m_home.path());
        QCOMPARE(unknown.code, 2);
        QVERIFY(unknown.err.contains("no lesson named \"no-such-lesson\""));
        const Run system = fieldscope({QStringLiteral("lesson"), QStringLiteral("run"), QStringLiteral("ssa-ownership"), QStringLiteral("--namespace"),
                                       QStringLiteral("kube-system")}, m_home.path());
        QCOMPARE(system.code, 2);
        QVERIFY(system.err.contains("not kube-system"));
        const Run bare = fieldscope({QStringLiteral("lesson")}, m_home.path());
        QCOMPARE(bare.code, 2);
        QVERIFY(bare.err.contains("fieldscope lesson run NAME"));
    }
};

QTEST_GUILESS_MAIN(TestLessonCli)
#include "tst_lesson_cli.moc"
