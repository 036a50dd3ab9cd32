// The window quits in order on SIGTERM, SIGINT and SIGHUP: exit code 0, the recorded
// history committed and readable, the sandbox stopped unless --keep-sandbox. The real binary runs
// against the real test cluster; a stand-in for scripts/fieldscope-cluster hands it the test
// cluster as "the sandbox" and logs the start and stop it is asked for.
#include "clusterenv.h"
#include "core/history/historystore.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QScopeGuard>
#include <QTemporaryDir>
#include <QTest>

#include <csignal>
#include <cstdio>

using namespace fieldscope;

namespace {

QString readAll(const QString &path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? QString::fromUtf8(f.readAll()) : QString();
}

bool historyHasConfigMap(const QString &dataHome, const QString &name)
{
    const QStringList dbs =
        QDir(dataHome + QStringLiteral("/fieldscope/history")).entryList({QStringLiteral("*.db")}, QDir::Files);
    for (const QString &db : dbs) {
        auto store = core::HistoryStore::open((dataHome + QStringLiteral("/fieldscope/history/") + db).toStdString(),
                                              core::HistoryStore::OpenMode::ReadOnly);
        if (!store)
            continue;
        auto objects = (*store)->allObjects();
        if (!objects)
            continue;
        for (const auto &o : *objects)
            if (o.resource == "configmaps" && o.ref.name == name.toStdString())
                return true;
    }
    return false;
}

} // namespace

class TestShutdown : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        // The test cluster's token context, renamed to the sandbox's context name.
        const QString kubectl = qEnvironmentVariable("FIELDSCOPE_KUBECTL");
        QProcess view;
        view.start(kubectl, {QStringLiteral("config"), QStringLiteral("view"), QStringLiteral("--raw"),
                             QStringLiteral("--minify"), QStringLiteral("--flatten"), QStringLiteral("--kubeconfig"),
                             testing::testKubeconfig(), QStringLiteral("--context"),
                             QString::fromStdString(testing::ctxToken())});
        QVERIFY(view.waitForFinished(30000) && view.exitCode() == 0);
        const QString kubeconfig = m_dir.filePath(QStringLiteral("sandbox-kubeconfig"));
        QFile out(kubeconfig);
        QVERIFY(out.open(QIODevice::WriteOnly));
        out.write(view.readAllStandardOutput());
        out.close();
        QProcess rename;
        rename.start(kubectl, {QStringLiteral("config"), QStringLiteral("rename-context"),
                               QString::fromStdString(testing::ctxToken()), QStringLiteral("sandbox"),
                               QStringLiteral("--kubeconfig"), kubeconfig});
        QVERIFY(rename.waitForFinished(30000) && rename.exitCode() == 0);

        QFile stub(m_dir.filePath(QStringLiteral("cluster-stub.sh")));
        QVERIFY(stub.open(QIODevice::WriteOnly));
        stub.write(
            "#!/bin/sh\necho \"$1\" >> \"$STUB_LOG\"\n[ \"$1\" = start ] && echo \"$STUB_KUBECONFIG\"\nexit 0\n");
        stub.close();
        QVERIFY(stub.setPermissions(QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner));

        auto c = testing::connectTo(testing::ctxToken());
        kube::ApiClient client(c.transport);
        (void)testing::call(client,
                            testing::request("POST", "/api/v1/namespaces", R"({"metadata":{"name":"shutdown-test"}})"));
        (void)testing::call(client,
                            testing::request("DELETE",
                                             "/api/v1/namespaces/shutdown-test/configmaps/before-quit")); // a rerun
        auto cm = testing::call(client, testing::request("POST", "/api/v1/namespaces/shutdown-test/configmaps",
                                                         R"({"metadata":{"name":"before-quit"},"data":{"k":"v"}})"));
        QVERIFY(cm.ok());
    }

    void terminationSignalQuitsInOrder_data()
    {
        QTest::addColumn<int>("signal");
        QTest::addColumn<bool>("keepSandbox");
        QTest::newRow("SIGTERM stops the sandbox") << int(SIGTERM) << false;
        QTest::newRow("SIGHUP stops the sandbox") << int(SIGHUP) << false;
        QTest::newRow("SIGINT with --keep-sandbox leaves it running") << int(SIGINT) << true;
    }
    void terminationSignalQuitsInOrder()
    {
        QFETCH(int, signal);
        QFETCH(bool, keepSandbox);
        QTemporaryDir home;
        const QString log = home.filePath(QStringLiteral("stub.log"));
        const QString data = home.filePath(QStringLiteral("data"));
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen"));
        env.insert(QStringLiteral("XDG_DATA_HOME"), data);
        env.insert(QStringLiteral("XDG_CONFIG_HOME"), home.filePath(QStringLiteral("config")));
        env.insert(QStringLiteral("FIELDSCOPE_CLUSTER_SCRIPT"), m_dir.filePath(QStringLiteral("cluster-stub.sh")));
        env.insert(QStringLiteral("STUB_LOG"), log);
        env.insert(QStringLiteral("STUB_KUBECONFIG"), m_dir.filePath(QStringLiteral("sandbox-kubeconfig")));
        QProcess app;
        app.setProcessEnvironment(env);
        QStringList args{QStringLiteral("--select"), QStringLiteral("configmaps/shutdown-test/before-quit")};
        if (keepSandbox)
            args << QStringLiteral("--keep-sandbox");
        app.start(testing::fieldscopeBinary(), args);
        QVERIFY(app.waitForStarted());
        const auto stopApp = qScopeGuard([&app] {
            if (app.state() != QProcess::NotRunning) {
                app.kill();
                app.waitForFinished(5000);
            }
        });

        // Recording has begun once the shown list's objects are in the history.
        QTRY_VERIFY_WITH_TIMEOUT(historyHasConfigMap(data, QStringLiteral("before-quit")), 60000);
        QCOMPARE(readAll(log), QStringLiteral("start\n"));

        ::kill(pid_t(app.processId()), signal);
        QVERIFY(app.waitForFinished(30000));
        // On a crash the window prints its stack (app/main.cpp): the failure shows it.
        const QByteArray err = app.readAllStandardError();
        if (app.exitStatus() != QProcess::NormalExit) // the whole stack: a test message is cut short
            std::fprintf(stderr, "the window's stderr:\n%s\n", err.constData());
        QVERIFY2(app.exitStatus() == QProcess::NormalExit, err.right(8000).constData()); // handled, not killed
        QVERIFY2(app.exitCode() == 0, err.right(8000).constData());
        QVERIFY2(err.contains("keeping drafts"), "the quit says what it does");
        // The database is whole and readable after the quit (last batch committed, -wal folded).
        QVERIFY(historyHasConfigMap(data, QStringLiteral("before-quit")));
        if (keepSandbox) {
            QTest::qWait(1000);
            QCOMPARE(readAll(log), QStringLiteral("start\n"));
        } else {
            QTRY_COMPARE_WITH_TIMEOUT(readAll(log), QStringLiteral("start\nstop\n"), 10000); // stopped detached
        }
    }

    // A crash says where: the stack on stderr, and still the crash (exit status, core dump) it was.
    void aFatalSignalPrintsTheStackAndStillCrashes()
    {
        QTemporaryDir home;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen"));
        env.insert(QStringLiteral("XDG_DATA_HOME"), home.filePath(QStringLiteral("data")));
        env.insert(QStringLiteral("XDG_CONFIG_HOME"), home.filePath(QStringLiteral("config")));
        QProcess app;
        app.setProcessEnvironment(env);
        app.start(testing::fieldscopeBinary(),
                  {QStringLiteral("--kubeconfig"), testing::testKubeconfig(), QStringLiteral("--context"),
                   QString::fromStdString(testing::ctxToken())});
        QVERIFY(app.waitForStarted());
        const auto stopApp = qScopeGuard([&app] {
            if (app.state() != QProcess::NotRunning) {
                app.kill();
                app.waitForFinished(5000);
            }
        });
        // The window made its private folders: main() installed the handler before that.
        QTRY_VERIFY_WITH_TIMEOUT(QFileInfo::exists(home.filePath(QStringLiteral("data/fieldscope"))), 30000);
        ::kill(pid_t(app.processId()), SIGSEGV);
        QVERIFY(app.waitForFinished(30000));
        QCOMPARE(app.exitStatus(), QProcess::CrashExit);
        const QByteArray err = app.readAllStandardError();
        QVERIFY2(err.contains("fieldscope: crashed in thread \"") && err.contains("\" by SIGSEGV; the stack:"),
                 err.right(4000).constData());
        QVERIFY2(err.contains("fieldscope("), err.right(4000).constData()); // frames name the binary
    }

private:
    QTemporaryDir m_dir;
};

QTEST_GUILESS_MAIN(TestShutdown)
#include "tst_shutdown.moc"
