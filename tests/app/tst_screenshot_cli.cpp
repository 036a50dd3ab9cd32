// `fieldscope --screenshot`, run as a script runs it: the real binary (offscreen) against a local
// HTTP server. A script always gets a picture, and the exit code says whether it shows the view
// it asked for: 1 when the server never answered within --screenshot-timeout, 1 when the window
// shows an error banner.
#include "fieldscoperun.h"
#include "transcriptserver.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QImage>
#include <QTemporaryDir>
#include <QTest>

using namespace fieldscope::testing;

namespace {

bool isPicture(const QString &file)
{
    const QImage image(file);
    return !image.isNull() && image.width() == 800 && image.height() == 600;
}

const char *kV1 = R"({"kind":"APIResourceList","groupVersion":"v1","resources":[
  {"name":"namespaces","singularName":"namespace","namespaced":false,"kind":"Namespace","verbs":["get","list","watch"],"shortNames":["ns"]}]})";
const char *kNamespaces = R"({"kind":"NamespaceList","apiVersion":"v1","metadata":{"resourceVersion":"10"},
  "items":[{"metadata":{"name":"default","uid":"u1","resourceVersion":"9","creationTimestamp":"2026-01-01T00:00:00Z"}}]})";

} // namespace

class TestScreenshotCli : public QObject
{
    Q_OBJECT
    QTemporaryDir m_dir;

private Q_SLOTS:
    void serverThatNeverAnswersGivesThePictureAndExit1AtTheTimeout()
    {
        TranscriptServer server;
        server.on("/").reply(TranscriptReply::stream({}, TranscriptReply::End::Hang)).repeatLast();
        const QString home = m_dir.filePath(QStringLiteral("silent"));
        const QString shot = home + QStringLiteral("/shot.png");
        const FieldscopeRun r = runFieldscope(
            {QStringLiteral("--kubeconfig"),
             writeTokenKubeconfig(m_dir.path(), server.url(), {QStringLiteral("local")}), QStringLiteral("--context"),
             QStringLiteral("local"), QStringLiteral("--screenshot"), shot, QStringLiteral("--size"),
             QStringLiteral("800x600"), QStringLiteral("--screenshot-timeout"), QStringLiteral("3")},
            home);
        QVERIFY2(!r.crashed, r.err.constData());
        QCOMPARE(r.code, 1);
        QVERIFY2(r.err.contains("--screenshot-timeout"), r.err.constData());
        QVERIFY2(r.elapsedMs < 60000, qPrintable(QString::number(r.elapsedMs)));
        QVERIFY(isPicture(shot));
    }

    void screenshotTimeoutMustBeAPositiveNumberOfSeconds_data()
    {
        QTest::addColumn<QString>("value");
        QTest::newRow("zero") << QStringLiteral("0");
        QTest::newRow("negative") << QStringLiteral("-5");
        QTest::newRow("words") << QStringLiteral("soon");
        QTest::newRow("more than a day") << QStringLiteral("86401");
    }
    void screenshotTimeoutMustBeAPositiveNumberOfSeconds()
    {
        QFETCH(QString, value);
        const FieldscopeRun r = runFieldscope({QStringLiteral("--open"), m_dir.filePath(QStringLiteral("none.jsonl")),
                                               QStringLiteral("--screenshot"),
                                               m_dir.filePath(QStringLiteral("never.png")),
                                               QStringLiteral("--screenshot-timeout"), value},
                                              m_dir.filePath(QStringLiteral("usage")));
        QCOMPARE(r.code, 2);
        QVERIFY2(r.err.contains("--screenshot-timeout"), r.err.constData());
        QVERIFY(!QFileInfo::exists(m_dir.filePath(QStringLiteral("never.png"))));
    }

    // The view loads, but history recording cannot even open its store (the data folder is a
    // file): the picture shows the red banner, and the script learns it from the exit code.
    void errorBannerOnScreenMakesTheScreenshotExit1()
    {
        TranscriptServer server;
        server.on("/version").exactPath().reply(TranscriptReply::json(200, R"({"gitVersion":"v1.30.0"})")).repeatLast();
        server.on("/api")
            .exactPath()
            .reply(TranscriptReply::json(200, R"({"kind":"APIVersions","versions":["v1"]})"))
            .repeatLast();
        server.on("/apis")
            .exactPath()
            .reply(TranscriptReply::json(200, R"({"kind":"APIGroupList","groups":[]})"))
            .repeatLast();
        server.on("/api/v1").exactPath().reply(TranscriptReply::json(200, kV1)).repeatLast();
        // As before 1.27: no streaming lists, so the window lists, then watches.
        server.on("/api/v1/namespaces")
            .hasQuery("sendInitialEvents")
            .reply(TranscriptReply::json(
                422, R"j({"kind":"Status","apiVersion":"v1","status":"Failure","reason":"Invalid","code":422})j"))
            .repeatLast();
        server.on("/api/v1/namespaces")
            .hasQuery("watch")
            .reply(TranscriptReply::stream({}, TranscriptReply::End::Hang))
            .repeatLast();
        server.on("/api/v1/namespaces").reply(TranscriptReply::json(200, kNamespaces)).repeatLast();
        const QString home = m_dir.filePath(QStringLiteral("broken-store"));
        QVERIFY(QDir().mkpath(home));
        const QString notAFolder = home + QStringLiteral("/data-is-a-file");
        QFile f(notAFolder);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.close();
        const QString shot = home + QStringLiteral("/shot.png");
        const FieldscopeRun r = runFieldscope({QStringLiteral("--kubeconfig"),
                                               writeTokenKubeconfig(home, server.url(), {QStringLiteral("local")}),
                                               QStringLiteral("--context"), QStringLiteral("local"),
                                               QStringLiteral("--screenshot"), shot, QStringLiteral("--size"),
                                               QStringLiteral("800x600"), QStringLiteral("--screenshot-timeout"),
                                               QStringLiteral("40")},
                                              home, {notAFolder});
        QVERIFY2(!r.crashed, r.err.constData());
        QCOMPARE(r.code, 1);
        // The end of stderr: what the window said last (QTest cuts long messages).
        QVERIFY2(r.err.contains("the window shows an error") && r.err.contains("History recording is failing"),
                 r.err.right(600).constData());
        QVERIFY(isPicture(shot));
    }
};

QTEST_GUILESS_MAIN(TestScreenshotCli)
#include "tst_screenshot_cli.moc"
