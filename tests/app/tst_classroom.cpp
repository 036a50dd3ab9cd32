// The class's names, rosters, state file and audit reading (app/services/classroom.h), without a
// cluster: bounds at their limit and just past it, and an audit log a student could shape.
#include "app/services/classroom.h"
#include "core/audit/auditevent.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

using namespace fieldscope;
using namespace fieldscope::app;

namespace {

// One audit log line as kube-apiserver 1.37 writes it (--audit-log-format json).
QByteArray eventLine(const QString &user, const QString &verb, const QString &name, int code, const QDateTime &at,
                     const QString &group = QStringLiteral("fieldscope:class"),
                     const QString &stage = QStringLiteral("ResponseComplete"), const QString &message = {})
{
    const QString time = at.toUTC().toString(QStringLiteral("yyyy-MM-ddTHH:mm:ss.zzz000Z"));
    QString status = QStringLiteral(R"j({"metadata":{},"code":%1)j").arg(code);
    if (!message.isEmpty())
        status += QStringLiteral(R"j(,"status":"Failure","message":"%1")j").arg(message);
    status += QLatin1Char('}');
    const QString response =
        code < 300 && verb != QLatin1String("get")
            ? QStringLiteral(
                  R"j(,"responseObject":{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"%1","namespace":"class","resourceVersion":"7%2"}})j")
                  .arg(name)
                  .arg(code)
            : QString();
    return QStringLiteral(
               R"j({"kind":"Event","apiVersion":"audit.k8s.io/v1","level":"RequestResponse","auditID":"%1",)j"
               R"j("stage":"%2","requestURI":"/api/v1/namespaces/class/configmaps/%3?fieldManager=%4",)j"
               R"j("verb":"%5","user":{"username":"%4","groups":["%6","system:authenticated"]},)j"
               R"j("objectRef":{"resource":"configmaps","namespace":"class","name":"%3","apiVersion":"v1"},)j"
               R"j("responseStatus":%7%8,"requestReceivedTimestamp":"%9","stageTimestamp":"%9"})j")
               .arg(QString::number(qHash(user + verb + name + time)), stage, name, user, verb, group, status, response,
                    time)
               .toUtf8()
         + '\n';
}

// A running class in `clusterDir` that started `secondsAgo` and lasts an hour.
ClassState classIn(const QString &clusterDir, int secondsAgo, const QStringList &students)
{
    ClassState state;
    state.clusterDir = clusterDir;
    state.started = QDateTime::currentDateTimeUtc().addSecs(-secondsAgo);
    state.expires = state.started.addSecs(3600);
    state.running = true;
    for (const QString &name : students)
        state.students.append({name, QStringLiteral("student-") + name, {}});
    return state;
}

} // namespace

class TestClassroom : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void studentNamesAreDnsLabelsThatFitTheirNamespace_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<bool>("valid");
        QTest::newRow("plain") << QStringLiteral("ann") << true;
        QTest::newRow("digits and dash") << QStringLiteral("s-01") << true;
        QTest::newRow("at the limit") << QString(kMaxStudentNameLength, QLatin1Char('a')) << true;
        QTest::newRow("past the limit") << QString(kMaxStudentNameLength + 1, QLatin1Char('a')) << false;
        QTest::newRow("empty") << QString() << false;
        QTest::newRow("upper case") << QStringLiteral("Ann") << false;
        QTest::newRow("leading dash") << QStringLiteral("-ann") << false;
        QTest::newRow("trailing dash") << QStringLiteral("ann-") << false;
        QTest::newRow("dot") << QStringLiteral("a.b") << false;
        QTest::newRow("colon") << QStringLiteral("system:masters") << false;
        QTest::newRow("newline") << QStringLiteral("ann\nbob") << false;
        QTest::newRow("non-ascii") << QStringLiteral("jos\u00e9") << false;
        QTest::newRow("reserved admin") << QStringLiteral("admin") << false;
        QTest::newRow("reserved system-") << QStringLiteral("system-x") << false;
        QTest::newRow("reserved kube-") << QStringLiteral("kube-x") << false;
        // The sandbox's own users would read as a student in the audit log, and the reverse.
        QTest::newRow("reserved alice") << QStringLiteral("alice") << false;
        QTest::newRow("reserved bob") << QStringLiteral("bob") << false;
        QTest::newRow("reserved fieldscope-exec") << QStringLiteral("fieldscope-exec") << false;
        QTest::newRow("reserved fieldscope-nobody") << QStringLiteral("fieldscope-nobody") << false;
        QTest::newRow("reserved fieldscope-cert-admin") << QStringLiteral("fieldscope-cert-admin") << false;
        QTest::newRow("reserved fieldscope-anything") << QStringLiteral("fieldscope-x") << false;
        QTest::newRow("reserved systemd") << QStringLiteral("systemd") << false;
        QTest::newRow("allowed alicia") << QStringLiteral("alicia") << true;
        QTest::newRow("allowed fieldscopefan") << QStringLiteral("fieldscopefan") << true;
    }

    void studentNamesAreDnsLabelsThatFitTheirNamespace()
    {
        QFETCH(QString, name);
        QFETCH(bool, valid);
        QCOMPARE(validateStudentName(name).ok(), valid);
    }

    void aRosterIsOneNameALineWithCommentsAndBlanks()
    {
        auto names = parseRoster("# class 3b\n\nann\n  bo  # back row\r\ncy\n");
        QVERIFY(names.ok());
        QCOMPARE(*names, (QStringList{QStringLiteral("ann"), QStringLiteral("bo"), QStringLiteral("cy")}));
    }

    void aBadRosterNamesItsLine()
    {
        auto bad = parseRoster("ann\nbo\nB@d\n");
        QVERIFY(!bad.ok());
        QVERIFY(QString::fromStdString(bad.error().message).startsWith(QStringLiteral("roster line 3:")));
        auto twice = parseRoster("ann\nann\n");
        QVERIFY(!twice.ok());
        QVERIFY(QString::fromStdString(twice.error().message).contains(QStringLiteral("line 2")));
        QVERIFY(!parseRoster("# nobody\n\n").ok());
    }

    void aRosterIsBoundedInBytesAndStudents()
    {
        QByteArray atLimit;
        for (int i = 0; i < kMaxStudents; ++i)
            atLimit += "s" + QByteArray::number(i) + '\n';
        QCOMPARE(parseRoster(atLimit)->size(), kMaxStudents);
        QVERIFY(!parseRoster(atLimit + "one-more\n").ok());
        const QByteArray big = "ann\n" + QByteArray(kMaxRosterBytes - 4, '#');
        QCOMPARE(parseRoster(big)->size(), 1);
        QVERIFY(QString::fromStdString(parseRoster(big + '#').error().message).contains(QStringLiteral("larger")));
    }

    void aMissingOrCorruptStateIsAnError()
    {
        QTemporaryDir dir;
        QVERIFY(!readClassState(dir.path()).ok());
        QVERIFY(QDir(dir.path()).mkpath(QStringLiteral("class")));
        for (const QByteArray &junk :
             {QByteArray("{"), QByteArray("[]"), QByteArray(R"j({"version":2})j"),
              QByteArray(R"j({"version":1,"started":"x","expires":"y","students":[]})j"),
              QByteArray(R"j({"version":1,"started":"2026-01-01T00:00:00Z",)j"
                         R"j("expires":"2026-01-01T08:00:00Z","students":[{"name":"../x"}]})j"),
              // What `stop --purge` deletes must be a namespace name, not a path or a selector.
              QByteArray(R"j({"version":1,"namespace":"../kube-system","started":"2026-01-01T00:00:00Z",)j"
                         R"j("expires":"2026-01-01T08:00:00Z","students":[]})j"),
              QByteArray(R"j({"version":1,"started":"2026-01-01T00:00:00Z","expires":"2026-01-01T08:00:00Z",)j"
                         R"j("students":[{"name":"ann","namespace":"student-ann?x=1"}]})j")}) {
            QFile f(dir.filePath(QStringLiteral("class/state.json")));
            QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
            f.write(junk);
            f.close();
            auto state = readClassState(dir.path());
            QVERIFY2(!state.ok(), junk.constData());
            QCOMPARE(state.error().category, core::ErrorCategory::Parse);
        }
        // A rehearsal's namespaces (ClassStartOptions::namespacePrefix) read back as written.
        QFile f(dir.filePath(QStringLiteral("class/state.json")));
        QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
        f.write(
            R"j({"version":1,"namespace":"rehearsal-0a1b2c","started":"2026-01-01T00:00:00Z",)j"
            R"j("expires":"2026-01-01T08:00:00Z","students":[{"name":"s01","namespace":"rehearsal-0a1b2c-s01"}]})j");
        f.close();
        auto state = readClassState(dir.path());
        QVERIFY2(state.ok(), state.ok() ? "" : state.error().describe().c_str());
        QCOMPARE(state->classNamespace, QStringLiteral("rehearsal-0a1b2c"));
        QCOMPARE(state->students.at(0).ownNamespace, QStringLiteral("rehearsal-0a1b2c-s01"));
    }

    // Only the class's final events since it started, each named; junk, other people, a line past
    // the decoder's limit and events from before the class cost nothing else.
    void theAuditLogYieldsEveryStudentRequestAndNothingElse()
    {
        QTemporaryDir dir;
        QVERIFY(QDir(dir.path()).mkpath(QStringLiteral("logs")));
        const ClassState state = classIn(dir.path(), 60, {QStringLiteral("ann"), QStringLiteral("bo")});
        const QDateTime t = state.started.addSecs(10);
        QByteArray rotated = eventLine(QStringLiteral("ann"), QStringLiteral("get"), QStringLiteral("race"), 200, t);
        rotated += eventLine(QStringLiteral("ann"), QStringLiteral("update"), QStringLiteral("race"), 200,
                             t.addSecs(1));
        QByteArray live = "not json at all fieldscope:class\n";
        live += QByteArray(core::kMaxAuditEventBytes + 10, 'x') + "fieldscope:class\n";
        live += eventLine(QStringLiteral("bo"), QStringLiteral("update"), QStringLiteral("race"), 409, t.addSecs(2),
                          QStringLiteral("fieldscope:class"), QStringLiteral("ResponseComplete"),
                          QStringLiteral("<b>the object has been modified</b>"));
        live += eventLine(QStringLiteral("bo"), QStringLiteral("update"), QStringLiteral("race"), 200, t.addSecs(3),
                          QStringLiteral("fieldscope:class"), QStringLiteral("ResponseStarted"));
        live += eventLine(QStringLiteral("alice"), QStringLiteral("update"), QStringLiteral("race"), 200, t.addSecs(4),
                          QStringLiteral("dev"));
        live += eventLine(QStringLiteral("ann"), QStringLiteral("update"), QStringLiteral("old"), 200,
                          state.started.addSecs(-30));
        live += eventLine(QStringLiteral("zed"), QStringLiteral("create"), QStringLiteral("z"), 201, t.addSecs(5));
        QFile r(dir.filePath(QStringLiteral("logs/audit-2026-01-01T00-00-00.000.log")));
        QVERIFY(r.open(QIODevice::WriteOnly));
        r.write(rotated);
        r.close();
        QFile l(dir.filePath(QStringLiteral("logs/audit.log")));
        QVERIFY(l.open(QIODevice::WriteOnly));
        l.write(live);
        l.close();

        auto requests = readClassRequests(state);
        QVERIFY(requests.ok());
        QCOMPARE(requests->size(), 4); // ann get, ann update, bo's refused update, zed (not on the roster)
        const ClassRequest &won = requests->at(1);
        QCOMPARE(won.student, QStringLiteral("ann"));
        QVERIFY(won.isWrite() && !won.refused());
        QCOMPARE(won.resourceVersion, QStringLiteral("7200"));
        QCOMPARE(won.fieldManager, QStringLiteral("ann"));
        const ClassRequest &lost = requests->at(2);
        QCOMPARE(lost.student, QStringLiteral("bo"));
        QCOMPARE(lost.code, 409);
        QVERIFY(lost.refused());
        QCOMPARE(lost.reason, QStringLiteral("<b>the object has been modified</b>"));
        QVERIFY(lost.resourceVersion.isEmpty());

        const QList<StudentActivity> activity = summarizeClass(state, *requests);
        QCOMPARE(activity.size(), 2);
        QCOMPARE(activity[0].name, QStringLiteral("ann"));
        QCOMPARE(activity[0].requests, 2);
        QCOMPARE(activity[0].writes, 1);
        QCOMPARE(activity[0].refused, 0);
        QCOMPARE(activity[0].lastObject, QStringLiteral("configmaps/class/race"));
        QCOMPARE(activity[1].refused, 1);
        QCOMPARE(activity[1].lastWrite, lost.time);

        // The line past the limit named the class: counted, not silently lost. The oldest event
        // is the rotated file's first.
        ClassLogCoverage coverage;
        QVERIFY(readClassRequests(state, 1000000, &coverage).ok());
        QCOMPARE(coverage.overlongClassLines, 1);
        QCOMPARE(coverage.oldestEvent, t);

        // The bound keeps the newest.
        auto newest = readClassRequests(state, 2);
        QVERIFY(newest.ok());
        QCOMPARE(newest->size(), 2);
        QCOMPARE(newest->at(0).student, QStringLiteral("bo"));
        QCOMPARE(newest->at(1).student, QStringLiteral("zed"));
    }

    // A student hiding a write in an event too large to read is counted (the group's name found
    // even across the reader's chunks), others' huge lines are not; a log whose first event is
    // after the class started says its beginning was rotated away.
    void overlongClassEventsAndARotatedAwayStartAreReported()
    {
        QTemporaryDir dir;
        QVERIFY(QDir(dir.path()).mkpath(QStringLiteral("logs")));
        ClassState state = classIn(dir.path(), 600, {QStringLiteral("ann")});
        const QDateTime first = state.started.addSecs(300);
        QByteArray log = eventLine(QStringLiteral("alice"), QStringLiteral("update"), QStringLiteral("x"), 200, first,
                                   QStringLiteral("dev"));
        // "fieldscope:class" straddles the 1 MiB boundary at which the reader takes the file.
        const qsizetype boundary = qsizetype(1) << 20;
        log += QByteArray(boundary - log.size() - 5, 'x') + "fieldscope:class" + QByteArray(4000, 'y') + '\n';
        log += QByteArray(core::kMaxAuditEventBytes + 10, 'z') + '\n'; // someone else's
        log += eventLine(QStringLiteral("ann"), QStringLiteral("update"), QStringLiteral("race"), 200,
                         first.addSecs(1));
        QFile l(dir.filePath(QStringLiteral("logs/audit.log")));
        QVERIFY(l.open(QIODevice::WriteOnly));
        l.write(log);
        l.close();

        ClassLogCoverage coverage;
        auto requests = readClassRequests(state, 1000000, &coverage);
        QVERIFY(requests.ok());
        QCOMPARE(requests->size(), 1);
        QCOMPARE(coverage.overlongClassLines, 1);
        QCOMPARE(coverage.oldestEvent, first);
        QVERIFY(coverage.startRotatedAway(state));
        // The same log read for a class that started after its first event: nothing is missing.
        state.started = first.addSecs(1);
        QVERIFY(readClassRequests(state, 1000000, &coverage).ok());
        QVERIFY(!coverage.startRotatedAway(state));
    }
};

QTEST_GUILESS_MAIN(TestClassroom)
#include "tst_classroom.moc"
