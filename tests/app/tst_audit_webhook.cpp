// The audit webhook's receiving end (app/services/auditwebhook.h): real EventList bodies (the recorded
// kube-apiserver 1.20.2 sample) queued for the join; hostile bodies (not JSON, not an EventList,
// 1,000,000 items, deep nesting, wrong types) answered with why, never fatal; a full queue answered
// 503 so the API server retries; and the kubeconfig it writes for kube-apiserver, used as the
// API server would use it: its URL and CA reach the running receiver over TLS.
#include "app/services/auditwebhook.h"
#include "core/yaml/yaml.h"
#include "testpki.h"

#include <QFile>
#include <QFileDevice>
#include <QSslConfiguration>
#include <QSslKey>
#include <QSslSocket>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>

using namespace fieldscope;
using fieldscope::testing::TestPki;

namespace {

QByteArray sampleLines()
{
    QFile f(QStringLiteral(FIELDSCOPE_TEST_DATA "/audit/rr-audit.log"));
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

// The sample's events as one webhook POST body.
QByteArray sampleEventList(int *count = nullptr)
{
    QByteArray items;
    int n = 0;
    for (const QByteArray &line : sampleLines().split('\n')) {
        if (line.trimmed().isEmpty())
            continue;
        items += (n++ ? "," : "") + line;
    }
    if (count)
        *count = n;
    return R"({"kind":"EventList","apiVersion":"audit.k8s.io/v1","metadata":{},"items":[)" + items + "]}";
}

QByteArray eventList(const QByteArray &items)
{
    return R"({"kind":"EventList","apiVersion":"audit.k8s.io/v1","items":[)" + items + "]}";
}

kube::WebhookAnswer receive(app::AuditWebhookQueue &q, const QByteArray &body)
{
    return q.receive(std::string_view(body.constData(), std::size_t(body.size())));
}

} // namespace

class TestAuditWebhook : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void aRealEventListIsQueuedForTheJoin()
    {
        int lines = 0;
        const QByteArray body = sampleEventList(&lines);
        QVERIFY(lines > 10);
        app::AuditWebhookQueue q;
        const auto a = receive(q, body);
        QCOMPARE(a.code, 200);
        const auto taken = q.take();
        QCOMPARE(int(taken.events.size()), lines);
        QCOMPARE(taken.skipped, 0);
        QVERIFY(std::any_of(taken.events.begin(), taken.events.end(),
                            [](const core::AuditEvent &e) { return e.user.username == "alice"; }));
        QVERIFY(q.take().events.empty());
    }

    // What kube-apiserver 1.20.2 POSTs: items carry no kind or apiVersion (the list does).
    void itemsWithoutTypeMetaAsTheApiServerSendsThemAreRead()
    {
        QByteArray items;
        int n = 0;
        for (QByteArray line : sampleLines().split('\n')) {
            if (line.trimmed().isEmpty())
                continue;
            line.replace(R"("kind":"Event","apiVersion":"audit.k8s.io/v1",)", "");
            QVERIFY(!line.contains(R"("kind":"Event")"));
            items += (n++ ? "," : "") + line;
        }
        app::AuditWebhookQueue q;
        QCOMPARE(receive(q, eventList(items)).code, 200);
        const auto taken = q.take();
        QCOMPARE(int(taken.events.size()), n);
        QCOMPARE(taken.skipped, 0);
        // An item that names another kind is still not an Event.
        QCOMPARE(
            receive(q, eventList(R"({"kind":"Pod","apiVersion":"v1","auditID":"x","stage":"ResponseComplete"})")).code,
            200);
        QCOMPARE(q.take().skipped, 1);
    }

    void bodiesThatAreNotEventListsAreRefusedWithWhy()
    {
        app::AuditWebhookQueue q;
        const struct {
            QByteArray body;
            const char *why;
        } cases[] = {
            {"{\"kind\":", "not JSON"},
            {"[1,2,3]", "not an audit.k8s.io/v1 EventList"},
            {R"({"kind":"Pod","apiVersion":"v1","items":[]})", "not an audit.k8s.io/v1 EventList"},
            {R"({"kind":"EventList","apiVersion":"audit.k8s.io/v1","items":{"a":1}})", "items is not an array"},
        };
        for (const auto &t : cases) {
            const auto a = receive(q, t.body);
            QCOMPARE(a.code, 400);
            QVERIFY2(a.message.find(t.why) != std::string::npos, a.message.c_str());
        }
        QVERIFY(q.take().events.empty());
    }

    void aMillionItemEventListIsRefusedWhole()
    {
        QByteArray items;
        items.reserve(3'000'000);
        for (int i = 0; i < 1'000'000; ++i)
            items += i ? ",{}" : "{}";
        app::AuditWebhookQueue q;
        const auto a = receive(q, eventList(items));
        QCOMPARE(a.code, 400);
        QVERIFY2(a.message.find("more than 10000 items") != std::string::npos, a.message.c_str());
        QVERIFY(q.take().events.empty());
    }

    void deepNestingAndWrongTypesAreSkippedAndTheRestKept()
    {
        const QByteArray good = sampleLines().split('\n').front();
        const QByteArray deep = QByteArray(100'000, '[') + QByteArray(100'000, ']');
        const QByteArray wrongTypes =
            R"({"kind":"Event","apiVersion":"audit.k8s.io/v1","auditID":5,"stage":["x"],"user":"root"})";
        app::AuditWebhookQueue q;
        const auto a = receive(q, eventList(deep + "," + wrongTypes + "," + good + ",\"text\""));
        QCOMPARE(a.code, 200);
        const auto taken = q.take();
        QCOMPARE(taken.events.size(), std::size_t(1));
        QCOMPARE(taken.skipped, 3);
        QCOMPARE(taken.problems.size(), std::size_t(3));
        QVERIFY2(taken.problems[0].find("webhook: ") == 0, taken.problems[0].c_str());
    }

    void aFullQueueAsksTheApiServerToRetry()
    {
        int lines = 0;
        const QByteArray body = sampleEventList(&lines);
        app::AuditWebhookQueue q;
        int accepted = 0;
        kube::WebhookAnswer a;
        while ((a = receive(q, body)).code == 200)
            ++accepted;
        QCOMPARE(a.code, 503);
        QCOMPARE(a.retryAfterSeconds, 1);
        QVERIFY2(a.message.find("the recorder is behind") != std::string::npos, a.message.c_str());
        QCOMPARE(accepted, int(app::AuditWebhookQueue::kMaxQueuedEvents) / lines);
        QCOMPARE(q.take().events.size(), std::size_t(accepted * lines));
        QCOMPARE(receive(q, body).code, 200); // taken: room again
    }

    // An event may carry most of a megabyte of user agent: 100,000 of them were 90 GB of queue.
    // The queue is bounded by what its events hold too.
    void aQueueOfLargeEventsIsBoundedByMemory()
    {
        const QByteArray line = sampleLines().split('\n').first();
        const QByteArray big = QByteArray(line).replace("\"userAgent\":\"",
                                                        "\"userAgent\":\"" + QByteArray(900 << 10, 'x'));
        QVERIFY(big.size() > line.size());
        app::AuditWebhookQueue q(4u << 20);
        QCOMPARE(receive(q, eventList(big + "," + big + "," + big)).code, 200);
        const kube::WebhookAnswer full = receive(q, eventList(big + "," + big));
        QCOMPARE(full.code, 503);
        QVERIFY2(full.message.find("MiB wait") != std::string::npos, full.message.c_str());
        QCOMPARE(q.take().events.size(), std::size_t(3));
        QCOMPARE(receive(q, eventList(big + "," + big)).code, 200); // taken: room again
    }

    void addressesParseAsHostAndPort()
    {
        kube::WebhookServerOptions o;
        QVERIFY(app::parseWebhookAddress("127.0.0.1:8443", o));
        QCOMPARE(o.host, std::string("127.0.0.1"));
        QCOMPARE(o.port, 8443);
        QVERIFY(app::parseWebhookAddress("[::1]:9000", o));
        QCOMPARE(o.host, std::string("::1"));
        QCOMPARE(o.port, 9000);
        for (const char *bad : {"8443", ":8443", "host:", "host:99999", "host:80a"}) {
            const auto st = app::parseWebhookAddress(bad, o);
            QVERIFY2(!st, bad);
            QVERIFY2(st.error().describe().find("--audit-webhook") != std::string::npos, st.error().describe().c_str());
        }
    }

    void theWrittenKubeconfigReachesTheReceiverOverTls()
    {
        TestPki pki;
        QVERIFY2(pki.makeCa(QStringLiteral("ca")), qPrintable(pki.lastError()));
        QVERIFY2(pki.makeServer(QStringLiteral("server"), QStringLiteral("ca")), qPrintable(pki.lastError()));
        QVERIFY2(pki.makeClient(QStringLiteral("apiserver"), QStringLiteral("ca")), qPrintable(pki.lastError()));
        // The serving file holds the certificate, its chain up to the CA, and also its key: only
        // certificates may reach the kubeconfig's CA.
        QFile both(pki.file(QStringLiteral("server-and-key.pem")));
        QVERIFY(both.open(QIODevice::WriteOnly));
        for (const QString &f :
             {pki.crt(QStringLiteral("server")), pki.crt(QStringLiteral("ca")), pki.key(QStringLiteral("server"))}) {
            QFile part(f);
            QVERIFY(part.open(QIODevice::ReadOnly));
            both.write(part.readAll());
        }
        both.close();
        QTemporaryDir out;
        app::AuditWebhookOptions o;
        o.server.host = "0.0.0.0";
        o.server.certFile = both.fileName().toStdString();
        o.server.keyFile = pki.key(QStringLiteral("server")).toStdString();
        o.server.clientCaFile = pki.crt(QStringLiteral("ca")).toStdString();
        o.kubeconfigPath = out.filePath(QStringLiteral("webhook.kubeconfig")).toStdString();
        o.clientCertFile = pki.crt(QStringLiteral("apiserver")).toStdString();
        o.clientKeyFile = pki.key(QStringLiteral("apiserver")).toStdString();
        auto receiver = app::AuditWebhookReceiver::start(o);
        QVERIFY2(receiver, receiver ? "" : receiver.error().describe().c_str());

        QFile written(QString::fromStdString(o.kubeconfigPath));
        QVERIFY(written.open(QIODevice::ReadOnly));
        QCOMPARE(written.permissions() & (QFileDevice::ReadGroup | QFileDevice::ReadOther), QFileDevice::Permissions());
        const QByteArray text = written.readAll();
        QVERIFY2(!text.contains("PRIVATE KEY"), "no key in clear text"); // keys only as base64 data
        auto parsed = core::yamlToJson(text.toStdString());
        QVERIFY(parsed);
        const core::Json &k = parsed->value;
        const std::string server = k["clusters"][0]["cluster"]["server"].get<std::string>();
        QCOMPARE(server, "https://127.0.0.1:" + std::to_string((*receiver)->port()) + "/audit");
        const QByteArray ca = QByteArray::fromBase64(
            QByteArray::fromStdString(k["clusters"][0]["cluster"]["certificate-authority-data"].get<std::string>()));
        QVERIFY2(!ca.contains("PRIVATE KEY"), ca.constData());
        const QByteArray clientCert = QByteArray::fromBase64(
            QByteArray::fromStdString(k["users"][0]["user"]["client-certificate-data"].get<std::string>()));
        const QByteArray clientKey = QByteArray::fromBase64(
            QByteArray::fromStdString(k["users"][0]["user"]["client-key-data"].get<std::string>()));

        // Connect as the API server would: trust only the kubeconfig's CA, present its client cert.
        QSslSocket s;
        QSslConfiguration c = s.sslConfiguration();
        c.setCaCertificates(QSslCertificate::fromData(ca));
        c.setLocalCertificate(QSslCertificate::fromData(clientCert).value(0));
        c.setPrivateKey(QSslKey(clientKey, QSsl::Ec));
        s.setSslConfiguration(c);
        s.connectToHostEncrypted(QStringLiteral("127.0.0.1"), quint16((*receiver)->port()));
        QVERIFY2(s.waitForEncrypted(10000), qPrintable(s.errorString()));
        const QByteArray body = sampleEventList();
        s.write("POST /audit HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: " + QByteArray::number(body.size())
                + "\r\n\r\n" + body);
        QByteArray answer;
        QVERIFY(QTest::qWaitFor(
            [&] {
                s.waitForReadyRead(100);
                answer += s.readAll();
                return answer.contains("\r\n\r\n");
            },
            10000));
        QVERIFY2(answer.startsWith("HTTP/1.1 200"), answer.constData());
        QVERIFY(!(*receiver)->queue().take().events.empty());
    }
};

QTEST_GUILESS_MAIN(TestAuditWebhook)
#include "tst_audit_webhook.moc"
