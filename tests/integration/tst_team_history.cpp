// A team's history, end to end as a team runs it: two `fieldscope record --db postgresql://…`
// processes (two hosts for availability) record the same namespace of the real test cluster into
// one real PostgreSQL database while kubectl writes; `history` reads every version once, and
// `store copy` brings the team's history into a laptop's file and back out unchanged.
#include "clusterenv.h"
#include "core/base/json.h"
#include "core/history/historystore.h"
#include "testpostgres.h"

#include <QProcess>
#include <QTemporaryDir>
#include <QUuid>

#include <set>

using namespace fieldscope;
using namespace fieldscope::testing;

namespace {

ProcessResult kubectl(const QStringList &args)
{
    QProcess p;
    p.start(qEnvironmentVariable("FIELDSCOPE_KUBECTL"), adminArgs() + args);
    p.waitForFinished(60000);
    return {p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1, p.readAllStandardOutput(),
            p.readAllStandardError()};
}

struct Recorder {
    QProcess process;
    QByteArray err;
    bool start(const QString &ns, const QString &db, const QString &name)
    {
        process.start(fieldscopeBinary(),
                      QStringList{QStringLiteral("record"), QStringLiteral("configmaps"), QStringLiteral("-n"), ns,
                                  QStringLiteral("--db"), db, QStringLiteral("--recorder-name"), name}
                          + adminArgs());
        return QTest::qWaitFor([&] { return (err += process.readAllStandardError()).contains("recording configmaps"); },
                               60000);
    }
    bool stop()
    {
        process.terminate();
        const bool ended = process.waitForFinished(60000);
        err += process.readAllStandardError();
        return ended && process.exitStatus() == QProcess::NormalExit && process.exitCode() == 0;
    }
};

std::vector<std::string> versionsOf(const QString &ns, const QString &db)
{
    const auto h = runFieldscope({QStringLiteral("history"), QStringLiteral("configmaps/app"), QStringLiteral("-n"), ns,
                                  QStringLiteral("--db"), db, QStringLiteral("-o"), QStringLiteral("json")});
    if (h.exitCode != 0)
        qWarning("history failed: %s", h.err.constData());
    std::vector<std::string> rvs;
    if (h.exitCode != 0)
        return rvs;
    const core::Json entries = core::parseJson(h.out.toStdString()).value();
    for (const auto &e : entries)
        rvs.push_back(e.value("resourceVersion", std::string()));
    return rvs;
}

} // namespace

class TestTeamHistory : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void twoRecordersIntoOneDatabaseStoreEveryVersionOnceAndACopyKeepsThem()
    {
        const QString ns = QStringLiteral("fs-team-") + QUuid::createUuid().toString(QUuid::Id128).left(8);
        QCOMPARE(kubectl({QStringLiteral("create"), QStringLiteral("namespace"), ns}).exitCode, 0);
        const QString url = QString::fromStdString(testpostgres::freshDatabase(QStringLiteral("team-history")));
        Recorder a, b;
        QVERIFY2(a.start(ns, url, QStringLiteral("host-a")), a.err.constData());
        QVERIFY2(b.start(ns, url, QStringLiteral("host-b")), b.err.constData());
        QCOMPARE(kubectl({QStringLiteral("-n"), ns, QStringLiteral("create"), QStringLiteral("configmap"),
                          QStringLiteral("app"), QStringLiteral("--from-literal=n=0")})
                     .exitCode,
                 0);
        for (int n = 1; n <= 5; ++n)
            QCOMPARE(kubectl({QStringLiteral("-n"), ns, QStringLiteral("annotate"), QStringLiteral("--overwrite"),
                              QStringLiteral("configmap/app"), QStringLiteral("step=%1").arg(n)})
                         .exitCode,
                     0);
        QTest::qWait(1500); // both watches deliver the last write
        QVERIFY2(a.stop(), a.err.constData());
        QVERIFY2(b.stop(), b.err.constData());

        const auto team = versionsOf(ns, url);
        QCOMPARE(team.size(), std::size_t(6));
        QCOMPARE(std::set<std::string>(team.begin(), team.end()).size(), team.size()); // none twice

        QTemporaryDir dir;
        const QString laptop = dir.filePath(QStringLiteral("laptop.db"));
        const auto copied = runFieldscope({QStringLiteral("store"), QStringLiteral("copy"), url, laptop,
                                           QStringLiteral("-o"), QStringLiteral("json")});
        QVERIFY2(copied.exitCode == 0, copied.err.constData());
        const auto report = core::parseJson(copied.out.toStdString()).value();
        // Every ConfigMap of the namespace: app's six versions and the CA bundle the controller
        // manager puts into each namespace.
        const int copiedVersions = report.value("versions", 0);
        QVERIFY2(copiedVersions >= 6, copied.out.constData());
        QCOMPARE(report.value("skippedDuplicates", -1), 0);
        QCOMPARE(versionsOf(ns, laptop), team);
        // And back into a fresh team database, as a laptop's history joins the team's.
        const QString again = QString::fromStdString(testpostgres::freshDatabase(QStringLiteral("team-history-2")));
        const auto back = runFieldscope({QStringLiteral("store"), QStringLiteral("copy"), laptop, again});
        QVERIFY2(back.exitCode == 0, back.err.constData());
        QVERIFY2(back.err.contains(QByteArray::number(copiedVersions) + " versions stored"), back.err.constData());
        QCOMPARE(versionsOf(ns, again), team);
        kubectl({QStringLiteral("delete"), QStringLiteral("namespace"), ns, QStringLiteral("--wait=false")});
    }

    // A store only the user can mend (here another cluster's) used to leave `record` retrying
    // forever, and the service restarting it; now it ends with 2 (RestartPreventExitStatus=2).
    void recordEndsWithTwoOnAStoreItMayNeverWrite()
    {
        QTemporaryDir dir;
        const QString file = dir.filePath(QStringLiteral("another-cluster.db"));
        {
            core::HistoryOpenOptions o;
            o.clusterIdentity = "sha256:" + std::string(64, 'e');
            o.clusterLabel = "https://elsewhere:6443";
            QVERIFY(core::HistoryStore::open(file.toStdString(), core::HistoryStore::OpenMode::ReadWrite, o));
        }
        QProcess p;
        p.start(fieldscopeBinary(), QStringList{QStringLiteral("record"), QStringLiteral("configmaps"),
                                                QStringLiteral("-n"), QStringLiteral("default"), QStringLiteral("--db"),
                                                file, QStringLiteral("--for"), QStringLiteral("50s")}
                                        + adminArgs());
        QVERIFY(p.waitForFinished(40000)); // well before --for ends it
        const QByteArray err = p.readAllStandardError();
        QCOMPARE(p.exitCode(), 2);
        QVERIFY2(err.contains("another cluster"), err.constData());
    }

    // A --db URL with a password is refused (passwords live in ~/.pgpass, PGPASSWORD or a
    // service file), and the lines that name the store never print the password: `record` used
    // to print the raw URL.
    void aPasswordInADbUrlIsNeverPrinted()
    {
        const std::string plain = testpostgres::tcpUrlOf("fieldscope", "nowhere");
        const QString url = QString::fromStdString(plain).replace(QStringLiteral("fieldscope@"),
                                                                  QStringLiteral("fieldscope:hunter2@"));
        QProcess p;
        p.start(fieldscopeBinary(),
                QStringList{QStringLiteral("record"), QStringLiteral("configmaps"), QStringLiteral("-n"),
                            QStringLiteral("default"), QStringLiteral("--db"), url,
                            QStringLiteral("--include-secret-values"), QStringLiteral("--for"), QStringLiteral("5s")}
                    + adminArgs());
        QVERIFY(p.waitForFinished(60000));
        const QByteArray err = p.readAllStandardError() + p.readAllStandardOutput();
        QVERIFY2(p.exitCode() != 0, err.constData());
        QVERIFY2(!err.contains("hunter2"), err.constData());
        QVERIFY2(err.contains("password"), err.constData());
    }
};

QTEST_GUILESS_MAIN(TestTeamHistory)
#include "tst_team_history.moc"
