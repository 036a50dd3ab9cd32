// The systemd user unit runs the documented command for the right, escaped instance.
#include "app/backgroundrecording.h"

#include <QFile>
#include <QProcess>
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
};

QTEST_GUILESS_MAIN(TestBackgroundUnit)
#include "tst_backgroundunit.moc"
