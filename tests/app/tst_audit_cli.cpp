// `fieldscope audit import` and `history --attempts` as scripts run them, on a history database
// holding the recorded sample watch (tests/data/audit, a real kube-apiserver 1.20.2).
#include "auditfixtures.h"

#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

namespace {

struct Run {
    int code = -1;
    QByteArray out, err;
};

Run runCli(const QStringList &args)
{
    QProcess p;
    p.start(QStringLiteral(FIELDSCOPE_BUILD_DIR "/app/fieldscope"), args);
    p.waitForFinished(30000);
    return {p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1, p.readAllStandardOutput(),
            p.readAllStandardError()};
}

QString sample(const char *name)
{
    return QString::fromStdString(auditfixtures::auditDataPath(name));
}

} // namespace

class TestAuditCli : public QObject
{
    Q_OBJECT
    QTemporaryDir m_dir;

    QString recordedDb(const QString &name)
    {
        QString path = m_dir.filePath(name);
        auto store = fieldscope::core::HistoryStore::open(path.toStdString()).value();
        auditfixtures::recordSampleWatch(*store, "rr");
        return path;
    }

private Q_SLOTS:
    void importSaysWhatItJoinedAndHistoryNamesTheUsers()
    {
        const QString db = recordedDb(QStringLiteral("cli.db"));
        const Run imported = runCli({QStringLiteral("audit"), QStringLiteral("import"), sample("rr-audit.log"),
                                     QStringLiteral("--db"), db, QStringLiteral("-o"), QStringLiteral("json")});
        QVERIFY2(imported.code == 0, imported.err.constData());
        const auto report = fieldscope::core::parseJson(imported.out.toStdString()).value();
        QCOMPARE(report["files"].get<int>(), 1);
        QCOMPARE(report["exact"].get<int>(), 9);
        QCOMPARE(report["attempts"].get<int>(), 4); // those in the recorded namespace
        QCOMPARE(report["storedJoins"].get<int>(), 9);

        const Run history = runCli({QStringLiteral("history"), QStringLiteral("configmaps/app"), QStringLiteral("-n"),
                                    QStringLiteral("team"), QStringLiteral("--db"), db, QStringLiteral("-o"),
                                    QStringLiteral("json"), QStringLiteral("--attempts")});
        QVERIFY2(history.code == 0, history.err.constData());
        const auto entries = fieldscope::core::parseJson(history.out.toStdString()).value();
        QCOMPARE(entries.size(), std::size_t(11));
        QCOMPARE(entries[0]["who"]["user"].get<std::string>(), std::string("alice"));
        QCOMPARE(entries[0]["who"]["match"].get<std::string>(), std::string("exact"));
        QCOMPARE(entries[1]["eventType"].get<std::string>(), std::string("REFUSED"));
        QCOMPARE(entries[1]["code"].get<int>(), 409);
        QCOMPARE(entries[1]["who"]["user"].get<std::string>(), std::string("bob"));

        const Run text = runCli({QStringLiteral("history"), QStringLiteral("configmaps/app"), QStringLiteral("--db"),
                                 db});
        QVERIFY2(text.code == 0, text.err.constData());
        QVERIFY2(text.out.contains("by alice (exact)"), text.out.constData());
        QVERIFY2(!text.out.contains("REFUSED"), text.out.constData()); // only with --attempts

        const Run again = runCli({QStringLiteral("audit"), QStringLiteral("import"), sample("rr-audit.log"),
                                  QStringLiteral("--db"), db});
        QVERIFY2(again.code == 0, again.err.constData());
        QVERIFY2(again.err.contains("0 joins and 0 refused writes new"), again.err.constData());
    }

    void mistakesGetAClearMessageAndNoDatabaseIsCreated_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<int>("code");
        QTest::addColumn<QByteArray>("message");
        const QString missingDb = m_dir.filePath(QStringLiteral("missing.db"));
        QTest::newRow("no verb") << QStringList{QStringLiteral("audit")} << 2
                                 << QByteArray("usage: fieldscope audit import");
        QTest::newRow("unknown verb") << QStringList{QStringLiteral("audit"), QStringLiteral("follow")} << 2
                                      << QByteArray("unknown audit command");
        QTest::newRow("no --db") << QStringList{QStringLiteral("audit"), QStringLiteral("import"),
                                                sample("rr-audit.log")}
                                 << 2 << QByteArray("usage: fieldscope audit import");
        QTest::newRow("no such database") << QStringList{QStringLiteral("audit"), QStringLiteral("import"),
                                                         sample("rr-audit.log"), QStringLiteral("--db"), missingDb}
                                          << 2 << QByteArray("record into it first");
        QTest::newRow("no such log") << QStringList{QStringLiteral("audit"), QStringLiteral("import"),
                                                    m_dir.filePath(QStringLiteral("nope.log")), QStringLiteral("--db"),
                                                    QStringLiteral("%DB%")}
                                     << 1 << QByteArray("nope.log");
    }
    void mistakesGetAClearMessageAndNoDatabaseIsCreated()
    {
        QFETCH(QStringList, args);
        QFETCH(int, code);
        QFETCH(QByteArray, message);
        args.replaceInStrings(QStringLiteral("%DB%"), recordedDb(QStringLiteral("errors.db")));
        const Run r = runCli(args);
        QCOMPARE(r.code, code);
        QVERIFY2(r.err.contains(message), r.err.constData());
        QVERIFY(!QFile::exists(m_dir.filePath(QStringLiteral("missing.db"))));
    }
};

QTEST_GUILESS_MAIN(TestAuditCli)
#include "tst_audit_cli.moc"
