// Every auth kind of the test kubeconfig against the real kube-apiserver, and the errors a user
// sees when credentials are wrong (401) or lack rights (403).
#include "clusterenv.h"
#include "core/base/json.h"

#include <QTemporaryDir>

#include <mutex>

using namespace fieldscope;
using namespace fieldscope::testing;

class TestAuth : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void listsNamespacesWithEachAuthKind_data()
    {
        QTest::addColumn<QString>("context");
        QTest::newRow("static token") << QString::fromStdString(ctxToken());
        QTest::newRow("client certificate") << QString::fromStdString(ctxCert());
        QTest::newRow("exec credential plugin") << QString::fromStdString(ctxExec());
    }
    void listsNamespacesWithEachAuthKind()
    {
        QFETCH(QString, context);
        auto conn = connectTo(context.toStdString());
        kube::ApiClient client(conn.transport);
        auto r = call(client, request("GET", "/api/v1/namespaces"));
        QVERIFY2(r.ok(), r.ok() ? "" : r.error().describe().c_str());
        auto doc = core::parseJson(r->body);
        QVERIFY(doc.ok());
        QStringList names;
        for (const auto &item : (*doc)["items"])
            names << QString::fromStdString(item["metadata"]["name"].get<std::string>());
        QVERIFY2(names.contains(QLatin1String("kube-system")) && names.contains(QLatin1String("default")),
                 qPrintable(names.join(u',')));
        QCOMPARE(r->httpVersion, 2);
    }

    void forbiddenUserGetsForbiddenError()
    {
        auto conn = connectTo(ctxNobody());
        kube::ApiClient client(conn.transport);
        auto r = call(client, request("GET", "/api/v1/namespaces"));
        QVERIFY(!r.ok());
        QCOMPARE(r.error().category, core::ErrorCategory::Forbidden);
        QCOMPARE(r.error().httpStatus, 403);
        QCOMPARE(QString::fromStdString(r.error().reason), QStringLiteral("Forbidden"));
        QVERIFY(QString::fromStdString(r.error().message).contains(QLatin1String("fieldscope-nobody")));
    }

    void wrongTokenGetsAuthErrorWithoutLeakingTheToken()
    {
        // A copy of the test kubeconfig whose token is wrong.
        QFile f(testKubeconfig());
        QVERIFY(f.open(QIODevice::ReadOnly));
        auto kc = kube::Kubeconfig::fromYaml(f.readAll().toStdString(), testKubeconfig().toStdString());
        QVERIFY(kc.ok());
        auto resolved = kc->resolve(ctxToken());
        QVERIFY(resolved.ok());
        const std::string badToken = "0123456789abcdef-not-a-valid-token";
        resolved->auth.token = badToken;
        auto conn = kube::connectResolved(*resolved, {});
        kube::ApiClient client(conn.transport);
        auto r = call(client, request("GET", "/api/v1/namespaces"));
        QVERIFY(!r.ok());
        QCOMPARE(r.error().category, core::ErrorCategory::Auth);
        QCOMPARE(r.error().httpStatus, 401);
        QVERIFY(r.error().describe().find(badToken) == std::string::npos);
    }

    void aBadTokenReadsUnauthorizedOnEveryRequestSharingTheConnection()
    {
        // The server ends an unauthenticated client's HTTP/2 connection right after answering it
        // (kube-apiserver's UnauthenticatedHTTP2DOSMitigation, on since 1.29): requests in flight
        // on that connection, as discovery sends them, must still read 401, not a network error.
        QFile f(testKubeconfig());
        QVERIFY(f.open(QIODevice::ReadOnly));
        auto kc = kube::Kubeconfig::fromYaml(f.readAll().toStdString(), testKubeconfig().toStdString());
        QVERIFY(kc.ok());
        auto resolved = kc->resolve(ctxToken());
        QVERIFY(resolved.ok());
        resolved->auth.token = "not-a-valid-token-for-http2";
        for (int round = 0; round < 5; ++round) {
            auto conn = kube::connectResolved(*resolved, {});
            std::mutex mutex;
            QStringList answers;
            constexpr int kRequests = 12;
            for (int i = 0; i < kRequests; ++i) {
                kube::HttpRequest req;
                req.path = i % 2 ? "/api" : "/apis";
                conn.transport->start(req, [&mutex, &answers](core::Result<kube::HttpResponse> r) {
                    const std::lock_guard lock(mutex);
                    answers << (r.ok() ? QString::number(r->status) : QString::fromStdString(r.error().describe()));
                });
            }
            const auto all = [&] {
                const std::lock_guard lock(mutex);
                return answers.size() == kRequests;
            };
            QTRY_VERIFY_WITH_TIMEOUT(all(), 20000);
            const std::lock_guard lock(mutex);
            QVERIFY2(answers.count(QStringLiteral("401")) == kRequests, qPrintable(answers.join(QStringLiteral("; "))));
        }
    }

    void unauthorizedAndForbiddenReadDifferentlyOnTheCommandLine()
    {
        const auto forbidden = runFieldscope({QStringLiteral("list"), QStringLiteral("namespaces"),
                                              QStringLiteral("--kubeconfig"), testKubeconfig(),
                                              QStringLiteral("--context"), QString::fromStdString(ctxNobody())});
        QCOMPARE(forbidden.exitCode, 1);
        QVERIFY2(forbidden.err.contains("forbidden (HTTP 403 Forbidden)"), forbidden.err.constData());

        QTemporaryDir dir;
        QFile in(testKubeconfig());
        QVERIFY(in.open(QIODevice::ReadOnly));
        QByteArray text = in.readAll();
        // Replace the admin token line with a wrong one.
        const qsizetype at = text.indexOf("token: ");
        QVERIFY(at > 0);
        const qsizetype eol = text.indexOf('\n', at);
        text.replace(at, eol - at, "token: wrong-token-for-401");
        QFile out(dir.filePath(QStringLiteral("kubeconfig")));
        QVERIFY(out.open(QIODevice::WriteOnly));
        out.write(text);
        out.close();
        const auto unauthorized = runFieldscope({QStringLiteral("list"), QStringLiteral("namespaces"),
                                                 QStringLiteral("--kubeconfig"), out.fileName(),
                                                 QStringLiteral("--context"), QString::fromStdString(ctxToken())});
        QCOMPARE(unauthorized.exitCode, 1);
        QVERIFY2(unauthorized.err.contains("auth (HTTP 401 Unauthorized)"), unauthorized.err.constData());
        QVERIFY(!unauthorized.err.contains("wrong-token-for-401"));
    }

    void commandLineListsASetOfNamespaces()
    {
        const auto r = runFieldscope({QStringLiteral("list"), QStringLiteral("serviceaccounts"), QStringLiteral("-n"),
                                      QStringLiteral("default,kube-public"), QStringLiteral("--kubeconfig"),
                                      testKubeconfig(), QStringLiteral("--context"),
                                      QString::fromStdString(ctxToken())});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const QList<QByteArray> lines = r.out.trimmed().split('\n');
        QVERIFY2(lines.contains("default/default") && lines.contains("kube-public/default"), r.out.constData());
        QVERIFY(!r.out.contains("kube-system/"));
    }

    void commandLineListsNamespacesWithEachContext_data() { listsNamespacesWithEachAuthKind_data(); }
    void commandLineListsNamespacesWithEachContext()
    {
        QFETCH(QString, context);
        const auto r = runFieldscope({QStringLiteral("list"), QStringLiteral("ns"), QStringLiteral("--kubeconfig"),
                                      testKubeconfig(), QStringLiteral("--context"), context,
                                      QStringLiteral("--allow-exec-plugins")});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const QList<QByteArray> lines = r.out.trimmed().split('\n');
        QVERIFY(lines.contains("default"));
        QVERIFY(lines.contains("kube-system"));
    }
};

QTEST_GUILESS_MAIN(TestAuth)
#include "tst_auth.moc"
