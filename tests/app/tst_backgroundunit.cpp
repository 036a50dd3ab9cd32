// The systemd user unit runs the documented command for the right, escaped instance.
#include "app/services/backgroundrecording.h"

#include <QFile>
#include <QProcess>
#include <QRegularExpression>
#include <QStandardPaths>
#include <QTest>

using fieldscope::app::systemdInstanceName;

class TestBackgroundUnit : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void contextNamesAreEscapedAsSystemdEscapeDoes()
    {
        QCOMPARE(systemdInstanceName(QStringLiteral("prod")), QStringLiteral("prod"));
        QCOMPARE(systemdInstanceName(QStringLiteral("team/prod")), QStringLiteral("team-prod"));
        QCOMPARE(systemdInstanceName(QStringLiteral("kind-dev")), QStringLiteral("kind\\x2ddev"));
        QCOMPARE(systemdInstanceName(QStringLiteral("arn:aws:eks:eu-1:12:cluster/x")),
                 QStringLiteral("arn:aws:eks:eu\\x2d1:12:cluster-x"));
        QCOMPARE(systemdInstanceName(QStringLiteral(".hidden a")), QStringLiteral("\\x2ehidden\\x20a"));
        QCOMPARE(systemdInstanceName(QStringLiteral("é")), QStringLiteral("\\xc3\\xa9"));
        // Where systemd-escape exists, it is the reference.
        const QString tool = QStandardPaths::findExecutable(QStringLiteral("systemd-escape"));
        if (tool.isEmpty())
            return;
        for (const QString &c : {QStringLiteral("team/prod"), QStringLiteral("kind-dev"), QStringLiteral(".hidden a"),
                                 QStringLiteral("é")}) {
            QProcess p;
            p.start(tool, {c});
            QVERIFY(p.waitForFinished());
            QCOMPARE(systemdInstanceName(c), QString::fromUtf8(p.readAllStandardOutput()).trimmed());
        }
    }

    void theUnitRunsRecordStoreForItsInstance()
    {
        QFile unit(QStringLiteral(FIELDSCOPE_SOURCE_DIR "/packaging/fieldscope-record@.service"));
        QVERIFY(unit.open(QIODevice::ReadOnly));
        const QByteArray text = unit.readAll();
        QVERIFY(text.contains("\nExecStart=/usr/bin/fieldscope record --store --context %I\n"));
        QVERIFY(text.contains("\nRestartPreventExitStatus=2\n")); // a kubeconfig error does not loop
        QVERIFY(text.contains("\nWantedBy=default.target\n"));
        QProcess help;
        help.start(QStringLiteral(FIELDSCOPE_BUILD_DIR "/app/fieldscope"),
                   {QStringLiteral("record"), QStringLiteral("--help")});
        QVERIFY(help.waitForFinished(30000));
        QVERIFY(help.readAllStandardOutput().contains("--store"));
    }

    // The team's system service: every flag it passes exists, the database and kubeconfig come
    // from the instance's files, and the secrets only as systemd credentials.
    void theTeamRecorderUnitRunsRecordIntoTheSharedStoreWithFlagsRecordKnows()
    {
        QFile unit(QStringLiteral(FIELDSCOPE_SOURCE_DIR "/packaging/fieldscope-recorder@.service"));
        QVERIFY(unit.open(QIODevice::ReadOnly));
        const QByteArray text = unit.readAll();
        QVERIFY(text.contains("\nEnvironmentFile=/etc/fieldscope/recorder/%i.conf\n"));
        QVERIFY(text.contains("\nLoadCredential=kubeconfig:/etc/fieldscope/recorder/%i.kubeconfig\n"));
        QVERIFY(text.contains("\nEnvironment=PGPASSFILE=%d/pgpass\n"));
        QVERIFY(text.contains("\nDynamicUser=yes\n"));
        QVERIFY(text.contains("\nWantedBy=multi-user.target\n"));
        const qsizetype start = text.indexOf("\nExecStart=/usr/bin/fieldscope record ");
        QVERIFY(start >= 0);
        const QByteArray exec = text.mid(start + 1, text.indexOf('\n', start + 1) - start - 1);
        QProcess help;
        help.start(QStringLiteral(FIELDSCOPE_BUILD_DIR "/app/fieldscope"),
                   {QStringLiteral("record"), QStringLiteral("--help")});
        QVERIFY(help.waitForFinished(30000));
        const QByteArray known = help.readAllStandardOutput();
        for (const QByteArray &word : exec.split(' '))
            if (word.startsWith("--"))
                QVERIFY2(known.contains(word), word.constData());
        for (const char *flag : {"--db", "--kubeconfig", "--recorder-name"})
            QVERIFY2(exec.contains(flag), flag);
        // The configuration example sets exactly what the unit reads, and no password.
        QFile example(QStringLiteral(FIELDSCOPE_SOURCE_DIR "/packaging/recorder.conf.example"));
        QVERIFY(example.open(QIODevice::ReadOnly));
        const QByteArray conf = example.readAll();
        QVERIFY(conf.contains("\nFIELDSCOPE_DB=postgresql://"));
        QVERIFY(conf.contains("\nFIELDSCOPE_RESOURCES="));
        // A user, no password, in the URL (the password goes into INSTANCE.pgpass).
        static const QRegularExpression userAtHost(QStringLiteral("\\nFIELDSCOPE_DB=postgresql://[a-z_]+@[a-z.]+/"));
        QVERIFY(userAtHost.match(QString::fromUtf8(conf)).hasMatch());
    }
};

QTEST_GUILESS_MAIN(TestBackgroundUnit)
#include "tst_backgroundunit.moc"
