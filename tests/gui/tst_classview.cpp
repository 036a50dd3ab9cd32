// The window's Class menu and Class view (app/gui/classlauncher.h) on the offscreen platform, fed
// through the same path as in a class: a class directory as the class core writes it
// (class/state.json) and an audit log the test appends events to in the API server's own format
// (the lines of a real kube-apiserver's log, as tests/data/audit keeps them), which the window's
// ClassFeed follows on its worker and hands to the models in batches. It checks every student's
// writes and refusals are counted and named, the live race, the banner for an address beyond this
// machine, hostile names and messages as plain text, and that a flood of 30 students writing 10
// times a second leaves the event loop responsive (a stall meter: bench/stallmeter.h) and the
// view right. Writes screenshots under build/<preset>/screenshots/ for a person to look at.
#include "app/gui/classlauncher.h"
#include "bench/stallmeter.h"
#include "guitesting.h"
#include "models/classmodel.h"
#include "widgets/classview.h"
#include "widgets/mainwindow.h"

#include <QAction>
#include <QComboBox>
#include <QDockWidget>
#include <QFile>
#include <QLabel>
#include <QMenu>
#include <QSet>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>

#include <atomic>
#include <thread>

using namespace fieldscope;
using models::ClassRaceModel;
using models::ClassStudentsModel;

namespace {

// A stall of this long would be a frozen window; anything near it on a quiet machine is a bug.
// (The figures themselves are printed; bench/ is where speed is measured.)
constexpr double kFrozenWindowMs = 2000;

QString rfc3339(const QDateTime &t)
{
    return t.toUTC().toString(QStringLiteral("yyyy-MM-ddTHH:mm:ss.zzz000Z"));
}

QByteArray jsonString(const QString &s)
{
    QByteArray out = "\"";
    for (QChar c : s) {
        if (c == u'"' || c == u'\\')
            out += '\\';
        if (c.unicode() < 0x20) {
            out += QByteArray("\\u00") + QByteArray::number(c.unicode(), 16).rightJustified(2, '0');
            continue;
        }
        out += QString(c).toUtf8();
    }
    return out + '"';
}

struct Write {
    QString student;
    QString ns = QStringLiteral("class");
    QString name = QStringLiteral("race");
    int code = 200;
    int resourceVersion = 0;
    QString message; // a refusal's
    QDateTime at = QDateTime::currentDateTimeUtc();
};

// One audit event line as kube-apiserver writes it for an update (RequestResponse level).
QByteArray auditLine(const Write &w, int n)
{
    const QByteArray user = "{\"username\":" + jsonString(w.student)
                          + ",\"groups\":[\"fieldscope:class\",\"system:authenticated\"]}";
    const QByteArray object = "{\"resource\":\"configmaps\",\"namespace\":" + jsonString(w.ns)
                            + ",\"name\":" + jsonString(w.name) + ",\"apiVersion\":\"v1\"}";
    QByteArray status, response;
    if (w.code >= 400) {
        status = "{\"metadata\":{},\"status\":\"Failure\",\"message\":" + jsonString(w.message)
               + ",\"reason\":\"Conflict\",\"code\":" + QByteArray::number(w.code) + "}";
        response = "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Failure\",\"message\":"
                 + jsonString(w.message) + ",\"reason\":\"Conflict\",\"code\":" + QByteArray::number(w.code) + "}";
    } else {
        status = "{\"metadata\":{},\"code\":" + QByteArray::number(w.code) + "}";
        response = "{\"kind\":\"ConfigMap\",\"apiVersion\":\"v1\",\"metadata\":{\"name\":" + jsonString(w.name)
                 + ",\"namespace\":" + jsonString(w.ns) + ",\"resourceVersion\":\""
                 + QByteArray::number(w.resourceVersion) + "\"},\"data\":{\"winner\":" + jsonString(w.student) + "}}";
    }
    const QByteArray at = rfc3339(w.at).toLatin1();
    return "{\"kind\":\"Event\",\"apiVersion\":\"audit.k8s.io/v1\",\"level\":\"RequestResponse\",\"auditID\":\"id-"
         + QByteArray::number(n) + "\",\"stage\":\"ResponseComplete\",\"requestURI\":\"/api/v1/namespaces/"
         + w.ns.toUtf8() + "/configmaps/" + w.name.toUtf8()
         + "?fieldManager=kubectl-edit\",\"verb\":\"update\",\"user\":" + user
         + ",\"sourceIPs\":[\"127.0.0.1\"],\"userAgent\":\"kubectl/v1.37.2\",\"objectRef\":" + object
         + ",\"responseStatus\":" + status + ",\"responseObject\":" + response + ",\"requestReceivedTimestamp\":\"" + at
         + "\",\"stageTimestamp\":\"" + at + "\"}\n";
}

// A class directory: DIR/class/state.json as the class core writes it, DIR/logs/audit.log, and
// the logs/ and pki/ folders that make DIR a cluster directory.
struct ClassDir {
    QTemporaryDir dir;
    int events = 0;
    ClassDir()
    {
        QDir(dir.path()).mkpath(QStringLiteral("class"));
        QDir(dir.path()).mkpath(QStringLiteral("logs"));
        QDir(dir.path()).mkpath(QStringLiteral("pki"));
        // The log's first line is the API server's own, from before the class.
        Write before{QStringLiteral("system:apiserver")};
        before.at = QDateTime::currentDateTimeUtc().addSecs(-3600);
        append(auditLine(before, events++));
    }
    QString path() const { return dir.path(); }
    void writeState(const QStringList &students, const QString &listen, const QDateTime &started, bool running = true)
    {
        QByteArray list;
        for (const QString &s : students)
            list += QByteArray(list.isEmpty() ? "" : ",") + "{\"name\":" + jsonString(s)
                  + ",\"namespace\":" + jsonString(QStringLiteral("student-") + s) + ",\"kubeconfig\":"
                  + jsonString(path() + QStringLiteral("/out/") + s + QStringLiteral(".kubeconfig")) + "}";
        QFile f(path() + QStringLiteral("/class/state.json"));
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("{\"version\":1,\"running\":" + QByteArray(running ? "true" : "false")
                + ",\"namespace\":\"class\",\"listen\":" + jsonString(listen) + ",\"started\":\""
                + rfc3339(started).toLatin1() + "\",\"expires\":\""
                + rfc3339(started.addSecs(qint64(8) * 3600)).toLatin1()
                + "\",\"outDir\":" + jsonString(path() + QStringLiteral("/out")) + ",\"students\":[" + list + "]}");
    }
    void append(const QByteArray &lines)
    {
        QFile f(path() + QStringLiteral("/logs/audit.log"));
        if (f.open(QIODevice::Append))
            f.write(lines);
    }
};

const QStringList kRoster = {QStringLiteral("amara"),  QStringLiteral("ben"),  QStringLiteral("chen"),
                             QStringLiteral("dmitri"), QStringLiteral("ewa"),  QStringLiteral("farid"),
                             QStringLiteral("grace"),  QStringLiteral("hugo"), QStringLiteral("ines"),
                             QStringLiteral("jonas"),  QStringLiteral("kofi"), QStringLiteral("lea")};

const QString kStale = QStringLiteral("Operation cannot be fulfilled on configmaps \"race\": the object has been "
                                      "modified; please apply your changes to the latest version and try again");

// The resourceVersion race, three rounds: everyone replaces configmaps/class/race from the version
// on the screen; the first of each round wins, the rest are refused 409. Plus a write each in
// their own namespace.
QByteArray raceRounds(ClassDir &c, int rounds)
{
    QByteArray lines;
    int rv = 5000;
    const QDateTime t0 = QDateTime::currentDateTimeUtc();
    for (int round = 0; round < rounds; ++round)
        for (int i = 0; i < kRoster.size(); ++i) {
            const auto who = (i + round * 5) % kRoster.size();
            Write w{kRoster[who]};
            w.at = t0.addMSecs(round * 4000 + i * 37);
            if (i == 0)
                w.resourceVersion = ++rv;
            else {
                w.code = 409;
                w.message = kStale;
            }
            lines += auditLine(w, c.events++);
        }
    for (const QString &s : kRoster) {
        Write own{s, QStringLiteral("student-") + s, QStringLiteral("notes")};
        own.resourceVersion = ++rv;
        own.at = t0.addSecs(15);
        lines += auditLine(own, c.events++);
    }
    return lines;
}

struct Window {
    widgets::MainWindow window;
    app::ClassLauncher launcher{&window, nullptr};
    explicit Window(const QString &dir)
    {
        window.resize(1000, 720);
        launcher.feed()->setInterval(200);
        launcher.setClusterDir(dir);
        window.show();
    }
    int cell(const QString &student, int column)
    {
        return launcher.students()->index(launcher.students()->rowOf(student), column).data().toInt();
    }
};

} // namespace

class TestClassView : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void classMenuIsOffWithAReasonOutsideAClusterDirectory()
    {
        widgets::MainWindow window;
        app::ClassLauncher launcher(&window, nullptr);
        QTemporaryDir notACluster;
        QCOMPARE(app::ClassLauncher::clusterDirOf(notACluster.filePath(QStringLiteral("kubeconfig"))), QString());
        for (QAction *a : launcher.menu()->actions()) {
            if (a->isSeparator())
                continue;
            QVERIFY2(!a->isEnabled(), qPrintable(a->text()));
            QVERIFY2(a->toolTip().contains(QLatin1String("sandbox")), qPrintable(a->toolTip()));
        }
        ClassDir c;
        QCOMPARE(app::ClassLauncher::clusterDirOf(c.path() + QStringLiteral("/kubeconfig")),
                 QDir(c.path()).absolutePath());
    }

    // Twelve students race on one ConfigMap for three rounds: every write is counted for its
    // student, every refusal named, the race lists the versions and the refusals newest first,
    // and the banner shows the address students reach the API server at.
    void classViewNamesEveryStudentsWritesAndRefusals()
    {
        ClassDir c;
        c.writeState(kRoster, QStringLiteral("192.168.1.20:6443"), QDateTime::currentDateTimeUtc().addSecs(-60));
        Window w(c.path());
        QTRY_VERIFY_WITH_TIMEOUT(w.launcher.feed()->isRunning(), 10000);
        QVERIFY(w.launcher.dock()->isVisible());
        QVERIFY(w.launcher.view()->banner()->text().contains(QLatin1String("192.168.1.20:6443")));
        QVERIFY(!(w.launcher.dock()->features() & QDockWidget::DockWidgetClosable)); // in sight while it lasts
        c.append(raceRounds(c, 3));
        QTRY_COMPARE_WITH_TIMEOUT(w.launcher.students()->totalRequests(), 3 * 12 + 12, 10000);
        QCOMPARE(w.launcher.students()->rowCount(), 12);
        QCOMPARE(w.launcher.students()->totalRefused(), 3 * 11);
        for (const QString &s : kRoster)
            QCOMPARE(w.cell(s, ClassStudentsModel::WritesColumn), 4);
        // The winners of the rounds: amara, farid, kofi.
        QCOMPARE(w.cell(QStringLiteral("amara"), ClassStudentsModel::RefusedColumn), 2);
        QCOMPARE(w.cell(QStringLiteral("farid"), ClassStudentsModel::RefusedColumn), 2);
        QCOMPARE(w.cell(QStringLiteral("ben"), ClassStudentsModel::RefusedColumn), 3);
        // The race follows the object written last (a student's own namespace); pick the class's.
        QComboBox *box = w.launcher.view()->raceObjectBox();
        const int raceItem = box->findData(QStringLiteral("configmaps/class/race"));
        QVERIFY(raceItem > 0);
        box->setCurrentIndex(raceItem);
        Q_EMIT box->activated(raceItem);
        ClassRaceModel *race = w.launcher.race();
        QCOMPARE(race->object(), QStringLiteral("configmaps/class/race"));
        // A new pick starts empty; the next round arrives live.
        c.append(raceRounds(c, 1));
        QTRY_COMPARE_WITH_TIMEOUT(race->rowCount(), 12, 10000);
        QCOMPARE(race->versions(), 1);
        QCOMPARE(race->refusals(), 11);
        // The round reads top down: the winner, then the refused.
        QCOMPARE(race->index(0, ClassRaceModel::StudentColumn).data().toString(), QStringLiteral("amara"));
        QCOMPARE(race->index(0, ClassRaceModel::OutcomeColumn).data().toString(), QStringLiteral("200 update"));
        QVERIFY(!race->index(0, 0).data(ClassRaceModel::RefusedRole).toBool());
        QVERIFY(race->index(11, 0).data(ClassRaceModel::RefusedRole).toBool());
        QCOMPARE(race->index(11, ClassRaceModel::OutcomeColumn).data().toString(), QStringLiteral("refused 409"));
        // The Class view as the docs show it: the dock given the window's height, 1000 px wide.
        w.window.resizeDocks({w.launcher.dock()}, {640}, Qt::Vertical);
        QTest::qWait(300);
        QVERIFY(testing::saveShot(&w.window, QStringLiteral("class-window.png")));
        QVERIFY(testing::saveShot(w.launcher.dock(), QStringLiteral("class-view.png")));
        // Presenter mode: large type, the race given the room.
        w.launcher.setPresenter(true);
        QVERIFY(w.launcher.view()->isPresenter());
        QTest::qWait(300);
        QVERIFY(testing::saveShot(w.launcher.dock(), QStringLiteral("class-race-presenter.png")));
        // The class stops (from the command line, say): the banner says so and the dock may close.
        c.writeState(kRoster, QStringLiteral("192.168.1.20:6443"), QDateTime::currentDateTimeUtc().addSecs(-60), false);
        QTRY_VERIFY_WITH_TIMEOUT(!w.launcher.feed()->isRunning(), 10000);
        QVERIFY(!w.launcher.view()->banner()->text().contains(QLatin1String("192.168.1.20")));
        QVERIFY(w.launcher.dock()->features() & QDockWidget::DockWidgetClosable);
    }

    // A window opened mid-class counts what students sent since the class started, and nothing
    // from before it (a write of a name on the roster an hour earlier is no part of the class).
    void aWindowOpenedMidClassCountsTheClassSoFar()
    {
        ClassDir c;
        const QDateTime started = QDateTime::currentDateTimeUtc().addSecs(-600);
        Write before{QStringLiteral("amara")};
        before.at = started.addSecs(-3000);
        c.append(auditLine(before, c.events++));
        c.writeState(kRoster, {}, started);
        c.append(raceRounds(c, 2));
        Window w(c.path());
        QTRY_COMPARE_WITH_TIMEOUT(w.launcher.students()->totalRequests(), 2 * 12 + 12, 10000);
        QCOMPARE(w.cell(QStringLiteral("amara"), ClassStudentsModel::WritesColumn), 3);
        QCOMPARE(w.launcher.students()->totalRefused(), 2 * 11);
    }

    // A class stopped and the next one started: its counts, race and written objects start from
    // zero, not from the last class's.
    void theNextClassStartsFromZero()
    {
        ClassDir c;
        const QDateTime first = QDateTime::currentDateTimeUtc().addSecs(-600);
        c.writeState(kRoster, {}, first);
        c.append(raceRounds(c, 2));
        Window w(c.path());
        QTRY_COMPARE_WITH_TIMEOUT(w.launcher.students()->totalRequests(), 2 * 12 + 12, 10000);
        c.writeState(kRoster, {}, first, false);
        QTRY_VERIFY_WITH_TIMEOUT(!w.launcher.feed()->isRunning(), 10000);
        // After every write of the first class (raceRounds stamps them up to 15 s ahead).
        const QDateTime second = QDateTime::currentDateTimeUtc().addSecs(20);
        c.writeState(kRoster, {}, second);
        QTRY_VERIFY_WITH_TIMEOUT(w.launcher.feed()->isRunning(), 10000);
        QTRY_COMPARE_WITH_TIMEOUT(w.launcher.students()->totalRequests(), 0, 10000);
        QCOMPARE(w.launcher.students()->totalRefused(), 0);
        QCOMPARE(w.launcher.race()->rowCount(), 0);
        QVERIFY(w.launcher.writtenObjects().isEmpty());
        Write next{QStringLiteral("amara"), QStringLiteral("class"), QStringLiteral("fresh")};
        next.resourceVersion = 7;
        next.at = second.addSecs(1);
        c.append(auditLine(next, c.events++));
        QTRY_COMPARE_WITH_TIMEOUT(w.launcher.students()->totalRequests(), 1, 10000);
        QCOMPARE(w.launcher.writtenObjects(), QStringList{QStringLiteral("configmaps/class/fresh")});
    }

    // A student writing many objects at once: the race's object list keeps the newest, each once,
    // at most its bound, whatever the batch holds.
    void manyDistinctObjectsInOneBatchKeepTheNewestOnce()
    {
        ClassDir c;
        c.writeState(kRoster, {}, QDateTime::currentDateTimeUtc().addSecs(-60));
        Window w(c.path());
        QTRY_VERIFY_WITH_TIMEOUT(w.launcher.feed()->isRunning(), 10000);
        QByteArray lines;
        for (int i = 0; i < 3000; ++i) {
            Write wr{kRoster.at(i % kRoster.size()), QStringLiteral("class"), QStringLiteral("cm%1").arg(i % 1500)};
            wr.resourceVersion = i + 1;
            lines += auditLine(wr, c.events++);
        }
        c.append(lines);
        QTRY_COMPARE_WITH_TIMEOUT(w.launcher.students()->totalRequests(), 3000, 20000);
        const QStringList objects = w.launcher.writtenObjects();
        QCOMPARE(objects.size(), 200); // the launcher's bound on the race's object list
        QCOMPARE(objects.first(), QStringLiteral("configmaps/class/cm1499"));
        QCOMPARE(QSet<QString>(objects.begin(), objects.end()).size(), objects.size());
    }

    // What students send is theirs: a long name, a look-alike of a student's name (a user of the
    // class group who is not on the roster: counted for no one, but shown in the race as the
    // characters it is), HTML in a refusal's message; every view draws them as plain text.
    void hostileNamesAndMessagesAreShownAsPlainText()
    {
        ClassDir c;
        const QString longName = QString(55, u'x');             // the longest name the class core accepts
        const QString lookalike = QStringLiteral("\u0430mara"); // Cyrillic a
        const QString html = QStringLiteral("<img src=\"/dev/zero\"><b>boom</b>");
        c.writeState({QStringLiteral("amara"), longName}, {}, QDateTime::currentDateTimeUtc().addSecs(-60));
        Window w(c.path());
        QTRY_VERIFY_WITH_TIMEOUT(w.launcher.feed()->isRunning(), 10000);
        QCOMPARE(w.launcher.view()->banner()->textFormat(), Qt::PlainText);
        Write refused{lookalike};
        refused.code = 409;
        refused.message = html + QString(3000, u'y');
        Write won{longName};
        won.resourceVersion = 7;
        const QByteArray first = auditLine(won, c.events++);
        c.append(first + auditLine(refused, c.events++));
        ClassRaceModel *race = w.launcher.race();
        QTRY_COMPARE_WITH_TIMEOUT(race->rowCount(), 2, 10000);
        QCOMPARE(w.launcher.students()->totalRequests(), 1); // the look-alike is no student
        QCOMPARE(w.cell(QStringLiteral("amara"), ClassStudentsModel::WritesColumn), 0);
        QCOMPARE(w.cell(longName, ClassStudentsModel::WritesColumn), 1);
        QCOMPARE(race->index(1, ClassRaceModel::StudentColumn).data().toString(), lookalike);
        QVERIFY(race->index(1, ClassRaceModel::MessageColumn).data().toString().startsWith(html));
        // The views draw server strings through the plain-text delegate.
        for (QTableView *t : {w.launcher.view()->studentsTable(), w.launcher.view()->raceTable()})
            QVERIFY(t->itemDelegate()->inherits("fieldscope::widgets::PlainTextDelegate"));
        QVERIFY(testing::saveShot(&w.window, QStringLiteral("class-view-hostile.png")));
    }

    // 30 students writing 10 times a second for 5 seconds (1,500 writes, a third refused), appended
    // to the audit log by another thread as the API server would: the event loop keeps beating
    // (the longest gap is printed, and must stay far from a frozen window) and every write is
    // counted for its student.
    void aFloodOf30StudentsWritingTenTimesASecondLeavesTheWindowResponsive()
    {
        ClassDir c;
        QStringList roster;
        for (int i = 1; i <= 30; ++i)
            roster << QStringLiteral("student%1").arg(i, 2, 10, QLatin1Char('0'));
        c.writeState(roster, {}, QDateTime::currentDateTimeUtc().addSecs(-60));
        Window w(c.path());
        QTRY_VERIFY_WITH_TIMEOUT(w.launcher.feed()->isRunning(), 10000);
        constexpr int kSeconds = 5, kPerSecond = 10;
        std::atomic<bool> done = false;
        std::thread writer([&] {
            int rv = 1;
            for (int tick = 0; tick < kSeconds * kPerSecond; ++tick) {
                QByteArray lines;
                for (int s = 0; s < roster.size(); ++s) {
                    Write wr{roster[s]};
                    if (s % 3 == 2) {
                        wr.code = 409;
                        wr.message = kStale;
                    } else {
                        wr.resourceVersion = ++rv;
                    }
                    lines += auditLine(wr, tick * 100 + s);
                }
                c.append(lines);
                std::this_thread::sleep_for(std::chrono::milliseconds(1000 / kPerSecond));
            }
            done = true;
        });
        bench::StallMeter meter;
        QTimer beat;
        beat.setInterval(1);
        QObject::connect(&beat, &QTimer::timeout, [&] { meter.heartbeat(); });
        meter.start();
        beat.start();
        const qint64 expected = qint64(kSeconds) * kPerSecond * roster.size();
        const bool counted = QTest::qWaitFor([&] { return done && w.launcher.students()->totalRequests() == expected; },
                                             (kSeconds + 30) * 1000);
        beat.stop();
        writer.join();
        qInfo("flood: %lld requests; event loop: longest gap %.1f ms (%.1f ms CPU), p99 %.1f ms over %zu beats",
              static_cast<long long>(w.launcher.students()->totalRequests()), meter.longest, meter.longestCpu,
              meter.p99(), meter.gaps.size());
        QVERIFY2(counted, qPrintable(QString::number(w.launcher.students()->totalRequests())));
        QVERIFY2(meter.longest < kFrozenWindowMs, qPrintable(QString::number(meter.longest)));
        for (const QString &s : roster)
            QCOMPARE(w.cell(s, ClassStudentsModel::WritesColumn), kSeconds * kPerSecond);
        QCOMPARE(w.launcher.students()->totalRefused(), qint64(10) * kSeconds * kPerSecond);
        ClassRaceModel *race = w.launcher.race();
        QCOMPARE(race->object(), QStringLiteral("configmaps/class/race"));
        QCOMPARE(race->rowCount(), ClassRaceModel::kMaxRows);
        QCOMPARE(race->versions() + race->refusals(), int(expected));
    }
};

QTEST_MAIN(TestClassView)
#include "tst_classview.moc"
