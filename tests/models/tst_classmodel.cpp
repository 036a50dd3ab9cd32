// The Class view's models (models/classmodel.h), fed batches shaped as the window's class feed
// makes them from the audit log, with a QAbstractItemModelTester attached before anything is fed
// and text dumps compared: counts per student in roster order, names off the roster ignored, the
// race newest first with refusals marked, bounded, and hostile strings kept as they came.
#include "models/classmodel.h"

#include <QAbstractItemModelTester>
#include <QSignalSpy>
#include <QTest>

using namespace fieldscope;
using models::ClassActivity;
using models::ClassRaceModel;
using models::ClassStudentsModel;

namespace {

const QDateTime kStart = QDateTime::fromString(QStringLiteral("2026-11-29T10:00:00Z"), Qt::ISODate);

ClassActivity write(const QString &student, int second, int code,
                    const QString &object = QStringLiteral("configmaps/class/demo"), const QString &rv = {},
                    const QString &reason = {})
{
    ClassActivity a;
    a.time = kStart.addSecs(second);
    a.student = student;
    a.verb = QStringLiteral("update");
    a.object = object;
    a.code = code;
    a.resourceVersion = rv;
    a.fieldManager = QStringLiteral("kubectl-edit");
    a.reason = reason;
    a.write = true;
    a.refused = code >= 400;
    return a;
}

ClassActivity read(const QString &student, int second)
{
    ClassActivity a;
    a.time = kStart.addSecs(second);
    a.student = student;
    a.verb = QStringLiteral("get");
    a.object = QStringLiteral("configmaps/class/demo");
    a.code = 200;
    return a;
}

QString dump(const QAbstractItemModel &m)
{
    QStringList lines;
    for (int r = 0; r < m.rowCount(); ++r) {
        QStringList cells;
        for (int c = 0; c < m.columnCount(); ++c)
            cells << m.index(r, c).data().toString();
        lines << cells.join(QStringLiteral(" | "));
    }
    return lines.join(u'\n');
}

} // namespace

class TestClassModel : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void studentsAreCountedInRosterOrderAndStrangersIgnored()
    {
        ClassStudentsModel m;
        QAbstractItemModelTester tester(&m, QAbstractItemModelTester::FailureReportingMode::QtTest);
        m.setRoster({QStringLiteral("carol"), QStringLiteral("alice"), QStringLiteral("bob")});
        QSignalSpy changed(&m, &QAbstractItemModel::dataChanged);
        QSignalSpy reset(&m, &QAbstractItemModel::modelReset);
        m.addRequests({read(QStringLiteral("alice"), 1),
                       write(QStringLiteral("alice"), 2, 200, QStringLiteral("configmaps/class/demo"),
                             QStringLiteral("7")),
                       write(QStringLiteral("bob"), 3, 409, QStringLiteral("configmaps/class/demo"), {},
                             QStringLiteral("the object has been modified")),
                       write(QStringLiteral("mallory"), 4, 200)});
        QCOMPARE(changed.size(), 1); // one batch, one delta
        QCOMPARE(reset.size(), 0);
        const QString at2 = kStart.addSecs(2).toLocalTime().toString(QStringLiteral("HH:mm:ss"));
        const QString at3 = kStart.addSecs(3).toLocalTime().toString(QStringLiteral("HH:mm:ss"));
        QCOMPARE(dump(m), QStringLiteral("carol | 0 | 0 | 0 |  | \n"
                                         "alice | 2 | 1 | 0 | configmaps/class/demo | %1\n"
                                         "bob | 1 | 1 | 1 | configmaps/class/demo | %2")
                              .arg(at2, at3));
        QCOMPARE(m.totalRequests(), 3);
        QCOMPARE(m.totalRefused(), 1);
    }

    void aNewRosterKeepsTheCountsOfStudentsStillOnIt()
    {
        ClassStudentsModel m;
        QAbstractItemModelTester tester(&m, QAbstractItemModelTester::FailureReportingMode::QtTest);
        m.setRoster({QStringLiteral("alice"), QStringLiteral("bob")});
        m.addRequests({read(QStringLiteral("alice"), 1), read(QStringLiteral("bob"), 2)});
        m.setRoster({QStringLiteral("bob"), QStringLiteral("dave")});
        QCOMPARE(m.rowCount(), 2);
        QCOMPARE(m.index(m.rowOf(QStringLiteral("bob")), ClassStudentsModel::RequestsColumn).data().toInt(), 1);
        QCOMPARE(m.index(m.rowOf(QStringLiteral("dave")), ClassStudentsModel::RequestsColumn).data().toInt(), 0);
        QCOMPARE(m.rowOf(QStringLiteral("alice")), -1);
    }

    void raceListsTheObjectsWritesInOrderWithRefusalsMarked()
    {
        ClassRaceModel m;
        QAbstractItemModelTester tester(&m, QAbstractItemModelTester::FailureReportingMode::QtTest);
        m.setObject(QStringLiteral("configmaps/class/demo"));
        m.addRequests({write(QStringLiteral("alice"), 1, 200, QStringLiteral("configmaps/class/demo"),
                             QStringLiteral("41")),
                       read(QStringLiteral("bob"), 1),
                       write(QStringLiteral("bob"), 2, 409, QStringLiteral("configmaps/class/demo"), {},
                             QStringLiteral("Operation cannot be fulfilled: the object has been modified")),
                       write(QStringLiteral("carol"), 2, 200, QStringLiteral("configmaps/class/other"))});
        QCOMPARE(m.rowCount(), 2);
        QCOMPARE(m.index(1, ClassRaceModel::StudentColumn).data().toString(), QStringLiteral("bob"));
        QCOMPARE(m.index(1, ClassRaceModel::OutcomeColumn).data().toString(), QStringLiteral("refused 409"));
        QVERIFY(m.index(1, 0).data(ClassRaceModel::RefusedRole).toBool());
        QCOMPARE(m.index(0, ClassRaceModel::StudentColumn).data().toString(), QStringLiteral("alice"));
        QCOMPARE(m.index(0, ClassRaceModel::OutcomeColumn).data().toString(), QStringLiteral("200 update"));
        QCOMPARE(m.index(0, ClassRaceModel::ResourceVersionColumn).data().toString(), QStringLiteral("41"));
        QCOMPARE(m.versions(), 1);
        QCOMPARE(m.refusals(), 1);
        m.setObject(QStringLiteral("configmaps/class/other"));
        QCOMPARE(m.rowCount(), 0);
    }

    void raceKeepsTheNewestRowsOnly()
    {
        ClassRaceModel m;
        QAbstractItemModelTester tester(&m, QAbstractItemModelTester::FailureReportingMode::QtTest);
        m.setObject(QStringLiteral("configmaps/class/demo"));
        for (int batch = 0; batch < 3; ++batch) {
            QList<ClassActivity> writes;
            for (int i = 0; i < 300; ++i)
                writes << write(QStringLiteral("s%1").arg(batch * 300 + i), batch * 300 + i, 200);
            m.addRequests(writes);
        }
        QCOMPARE(m.rowCount(), ClassRaceModel::kMaxRows);
        QCOMPARE(m.index(ClassRaceModel::kMaxRows - 1, ClassRaceModel::StudentColumn).data().toString(),
                 QStringLiteral("s899"));
        QCOMPARE(m.index(0, ClassRaceModel::StudentColumn).data().toString(), QStringLiteral("s400"));
        QCOMPARE(m.versions(), 900);
    }

    // Names and messages are a student's: the model hands them over exactly (the views show them
    // as plain text), and tooltips of rich-looking text are escaped.
    void hostileStringsArriveUnchanged()
    {
        const QString html = QStringLiteral("<img src=\"/dev/zero\"><b>boom</b>");
        const QString lookalike = QStringLiteral("аlice"); // Cyrillic а
        ClassStudentsModel students;
        students.setRoster({lookalike, QStringLiteral("alice")});
        students.addRequests({write(lookalike, 1, 200, html)});
        QCOMPARE(students.index(0, ClassStudentsModel::NameColumn).data().toString(), lookalike);
        QCOMPARE(students.index(0, ClassStudentsModel::WritesColumn).data().toInt(), 1);
        QCOMPARE(students.index(1, ClassStudentsModel::WritesColumn).data().toInt(), 0); // the real alice
        QCOMPARE(students.index(0, ClassStudentsModel::LastObjectColumn).data().toString(), html);
        QVERIFY(
            !students.index(0, ClassStudentsModel::LastObjectColumn).data(Qt::ToolTipRole).toString().contains(html));
        ClassRaceModel race;
        race.setObject(QStringLiteral("configmaps/class/demo"));
        race.addRequests({write(QStringLiteral("bob"), 1, 422, QStringLiteral("configmaps/class/demo"), {},
                                html + QString(5000, u'x'))});
        QVERIFY(race.index(0, ClassRaceModel::MessageColumn).data().toString().startsWith(html));
        QVERIFY(race.index(0, ClassRaceModel::MessageColumn).data().toString().size() <= 300);
    }
};

QTEST_MAIN(TestClassModel)
#include "tst_classmodel.moc"
