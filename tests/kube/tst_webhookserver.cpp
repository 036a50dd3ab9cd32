// kube::WebhookServer against real TLS clients on loopback (QSslSocket, certificates made by the
// openssl command): requests answered with the handler's status on kept-alive connections, and
// every bound a careless or hostile peer meets (a 50 MiB body, chunked or lengthless bodies, huge
// headers, a stalled request, too many connections, bodies held at once, plain HTTP, a missing or
// foreign client certificate, a handler that throws), each answered and counted while the server
// goes on serving.
#include "kube/webhookserver.h"
#include "testpki.h"

#include <QSslConfiguration>
#include <QSslKey>
#include <QSslSocket>
#include <QTcpSocket>
#include <QTest>

#include <algorithm>
#include <csignal>
#include <mutex>

using namespace fieldscope;
using fieldscope::testing::TestPki;

namespace {

struct Response {
    int code = 0; // 0: the connection ended without an answer
    QByteArray headers;
    QByteArray body;
};

class Client
{
public:
    // A TLS session with the server (verified against the test CA); `identity` names a client
    // certificate of `pki` to present.
    bool connect(int port, const TestPki &pki, const QString &identity = {})
    {
        m_socket = std::make_unique<QSslSocket>();
        QSslConfiguration c = m_socket->sslConfiguration();
        c.setCaCertificates(QSslCertificate::fromPath(pki.crt(QStringLiteral("ca"))));
        if (!identity.isEmpty()) {
            c.setLocalCertificate(QSslCertificate::fromPath(pki.crt(identity)).value(0));
            QFile k(pki.key(identity));
            if (!k.open(QIODevice::ReadOnly))
                return false;
            c.setPrivateKey(QSslKey(&k, QSsl::Ec));
        }
        m_socket->setSslConfiguration(c);
        m_socket->connectToHostEncrypted(QStringLiteral("127.0.0.1"), quint16(port));
        return m_socket->waitForEncrypted(10000);
    }
    void send(const QByteArray &bytes)
    {
        m_socket->write(bytes);
        m_socket->flush();
    }
    void post(const QByteArray &body, const QByteArray &extraHeaders = {})
    {
        send("POST /audit HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: "
             + QByteArray::number(body.size()) + "\r\n" + extraHeaders + "\r\n" + body);
    }
    Response read(int timeoutMs = 15000)
    {
        QElapsedTimer t;
        t.start();
        while (t.elapsed() < timeoutMs) {
            const qsizetype end = m_buf.indexOf("\r\n\r\n");
            if (end >= 0) {
                Response r;
                r.headers = m_buf.left(end);
                const QList<QByteArray> first = r.headers.split(' ');
                r.code = first.value(1).toInt();
                qsizetype length = 0;
                for (const QByteArray &line : r.headers.split('\n'))
                    if (line.toLower().startsWith("content-length:"))
                        length = line.mid(15).trimmed().toLongLong();
                if (m_buf.size() >= end + 4 + length) {
                    r.body = m_buf.mid(end + 4, length);
                    m_buf.remove(0, end + 4 + length);
                    return r;
                }
            }
            if (m_socket->state() != QAbstractSocket::ConnectedState && m_socket->bytesAvailable() == 0)
                return {};
            if (m_socket->waitForReadyRead(200) || m_socket->bytesAvailable() > 0)
                m_buf += m_socket->readAll();
        }
        return {};
    }
    // The server closed the connection (within `timeoutMs`).
    bool closedByServer(int timeoutMs = 10000)
    {
        if (m_socket->state() == QAbstractSocket::UnconnectedState)
            return true;
        return m_socket->waitForDisconnected(timeoutMs) || m_socket->state() == QAbstractSocket::UnconnectedState;
    }
    QSslSocket &socket() { return *m_socket; }

private:
    std::unique_ptr<QSslSocket> m_socket;
    QByteArray m_buf;
};

struct Seen {
    std::mutex mutex;
    QList<QByteArray> bodies;
    void add(std::string_view b)
    {
        std::lock_guard lock(mutex);
        bodies << QByteArray(b.data(), qsizetype(b.size()));
    }
    qsizetype count()
    {
        std::lock_guard lock(mutex);
        return bodies.size();
    }
};

} // namespace

class TestWebhookServer : public QObject
{
    Q_OBJECT
    TestPki m_pki;
    Seen m_seen;

    kube::WebhookServerOptions options(bool clientCa = false) const
    {
        kube::WebhookServerOptions o;
        o.certFile = m_pki.crt(QStringLiteral("server")).toStdString();
        o.keyFile = m_pki.key(QStringLiteral("server")).toStdString();
        if (clientCa)
            o.clientCaFile = m_pki.crt(QStringLiteral("ca")).toStdString();
        return o;
    }
    std::unique_ptr<kube::WebhookServer> start(const kube::WebhookServerOptions &o)
    {
        auto s = kube::WebhookServer::start(o, [this](std::string_view body) {
            m_seen.add(body);
            if (body == "throw")
                throw std::runtime_error("the handler failed");
            return kube::WebhookAnswer{body == "refuse" ? 400 : 200, body == "refuse" ? "refused by the handler" : "",
                                       0};
        });
        if (!s)
            qWarning("%s", s.error().describe().c_str());
        return s ? std::move(*s) : nullptr;
    }

private Q_SLOTS:
    void initTestCase()
    {
        std::signal(SIGPIPE, SIG_IGN);
        QVERIFY2(m_pki.makeCa(QStringLiteral("ca")), qPrintable(m_pki.lastError()));
        QVERIFY2(m_pki.makeServer(QStringLiteral("server"), QStringLiteral("ca")), qPrintable(m_pki.lastError()));
        QVERIFY2(m_pki.makeClient(QStringLiteral("apiserver"), QStringLiteral("ca")), qPrintable(m_pki.lastError()));
        // Signed by the same CA, for another name (a sandbox's CA signs students' and nodes' too).
        QVERIFY2(m_pki.makeClient(QStringLiteral("mallory"), QStringLiteral("ca")), qPrintable(m_pki.lastError()));
        QVERIFY2(m_pki.makeSigned(QStringLiteral("apiserver-by-san"), QStringLiteral("ca"),
                                  "subjectAltName=DNS:apiserver\nextendedKeyUsage=clientAuth"),
                 qPrintable(m_pki.lastError()));
        QVERIFY2(m_pki.makeCa(QStringLiteral("stranger-ca")), qPrintable(m_pki.lastError()));
        QVERIFY2(m_pki.makeClient(QStringLiteral("stranger"), QStringLiteral("stranger-ca")),
                 qPrintable(m_pki.lastError()));
    }
    void init() { m_seen.bodies.clear(); }

    void postsOnOneKeptAliveConnectionGetTheHandlersAnswers()
    {
        auto server = start(options());
        QVERIFY(server);
        QVERIFY(server->port() > 0);
        Client c;
        QVERIFY(c.connect(server->port(), m_pki));
        c.post(R"({"kind":"EventList"})");
        const Response first = c.read();
        QCOMPARE(first.code, 200);
        QVERIFY2(first.body.contains(R"("status":"Success")"), first.body.constData());
        c.post("refuse");
        const Response second = c.read();
        QCOMPARE(second.code, 400);
        QVERIFY2(second.body.contains("refused by the handler"), second.body.constData());
        QCOMPARE(m_seen.bodies, (QList<QByteArray>{R"({"kind":"EventList"})", "refuse"}));
        const auto n = server->counters();
        QCOMPARE(n.connections, 1);
        QCOMPARE(n.requests, 2);
        QCOMPARE(n.accepted, 1);
        QCOMPARE(n.refused, 1);
    }

    void aFiftyMebibytePostIsRefusedFromItsLengthAndTheServerGoesOn()
    {
        auto server = start(options());
        QVERIFY(server);
        Client c;
        QVERIFY(c.connect(server->port(), m_pki));
        c.post(QByteArray(50 << 20, 'x'));
        const Response r = c.read(60000);
        QCOMPARE(r.code, 413);
        QVERIFY2(r.body.contains("over the limit of 16 MiB"), r.body.constData());
        QVERIFY(c.closedByServer());
        QCOMPARE(m_seen.count(), 0);
        QVERIFY2(server->takeRefusals().front().find("413") == 0, "the refusal is reported");
        Client next;
        QVERIFY(next.connect(server->port(), m_pki));
        next.post("{}");
        QCOMPARE(next.read().code, 200);
    }

    void chunkedLengthlessAndNonPostRequestsAreRefused()
    {
        auto server = start(options());
        QVERIFY(server);
        const struct {
            QByteArray request;
            int code;
        } cases[] = {
            {"POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n", 411},
            {"POST / HTTP/1.1\r\nHost: x\r\n\r\n{}", 411},
            {"GET / HTTP/1.1\r\nHost: x\r\n\r\n", 405},
            {"POST / HTTP/1.1\r\nContent-Length: 2\r\nContent-Encoding: gzip\r\n\r\n{}", 415},
            {"POST / HTTP/1.1\r\nContent-Length: -5\r\n\r\n", 400},
            {"this is not HTTP\r\n\r\n", 400},
            {"POST / HTTP/1.1\r\nX-Filler: " + QByteArray(20 << 10, 'a') + "\r\n\r\n", 431},
        };
        for (const auto &t : cases) {
            Client c;
            QVERIFY(c.connect(server->port(), m_pki));
            c.send(t.request);
            QCOMPARE(c.read().code, t.code);
            QVERIFY(c.closedByServer());
        }
        QCOMPARE(m_seen.count(), 0);
        QCOMPARE(server->counters().refused, qint64(std::size(cases)));
    }

    void aStalledRequestGets408()
    {
        auto o = options();
        o.requestDeadlineMs = 300;
        auto server = start(o);
        QVERIFY(server);
        Client c;
        QVERIFY(c.connect(server->port(), m_pki));
        c.send("POST / HTTP/1.1\r\nContent-Length: 100\r\n\r\n{\"kind\":");
        QCOMPARE(c.read().code, 408);
        QVERIFY(c.closedByServer());
        QCOMPARE(m_seen.count(), 0);
    }

    void bodiesHeldAtOnceAreBoundedAcrossConnections()
    {
        auto o = options();
        o.maxBufferedBytes = 1000;
        auto server = start(o);
        QVERIFY(server);
        Client slow, other;
        QVERIFY(slow.connect(server->port(), m_pki));
        QVERIFY(other.connect(server->port(), m_pki));
        const QByteArray body(800, 'x');
        slow.send("POST / HTTP/1.1\r\nContent-Length: 800\r\n\r\n" + body.left(100));
        QTest::qWait(300); // the server has read the first request's headers
        other.post(body);
        const Response busy = other.read();
        QCOMPARE(busy.code, 503);
        QVERIFY2(busy.headers.contains("Retry-After: 1"), busy.headers.constData());
        slow.send(body.mid(100));
        QCOMPARE(slow.read().code, 200);
        QCOMPARE(m_seen.bodies, QList<QByteArray>{body});
    }

    void connectionsBeyondTheLimitAreClosed()
    {
        auto o = options();
        o.maxConnections = 2;
        auto server = start(o);
        QVERIFY(server);
        Client a, b, c;
        QVERIFY(a.connect(server->port(), m_pki));
        QVERIFY(b.connect(server->port(), m_pki));
        c.connect(server->port(), m_pki); // may complete the handshake before the server closes it
        QVERIFY(c.closedByServer());
        const auto refusals = server->takeRefusals();
        QVERIFY(std::any_of(refusals.begin(), refusals.end(),
                            [](const std::string &r) { return r.find("2 are open already") != std::string::npos; }));
        a.post("{}");
        QCOMPARE(a.read().code, 200);
    }

    void withAClientCaOnlyThatCasClientsAreServed()
    {
        auto server = start(options(true));
        QVERIFY(server);
        for (const QString &who : {QString(), QStringLiteral("stranger")}) {
            Client c;
            c.connect(server->port(), m_pki, who); // TLS 1.3: the client may think it is done
            if (c.socket().state() == QAbstractSocket::ConnectedState)
                c.post("{}");
            QCOMPARE(c.read(5000).code, 0);
        }
        QVERIFY(QTest::qWaitFor([&] { return server->counters().tlsRefused == 2; }, 5000));
        QCOMPARE(m_seen.count(), 0);
        Client apiserver;
        QVERIFY(apiserver.connect(server->port(), m_pki, QStringLiteral("apiserver")));
        apiserver.post("{}");
        QCOMPARE(apiserver.read().code, 200);
        QCOMPARE(m_seen.count(), 1);
    }

    // A CA signs more than the API server's certificate: with clientNames, a certificate that CA
    // signed for another name gets no session (it used to be served: anyone with a student's or
    // a node's certificate could post events naming anyone).
    void withClientNamesOnlyTheNamedCertificateIsServed()
    {
        kube::WebhookServerOptions o = options(true);
        o.clientNames = {"apiserver"};
        auto server = start(o);
        QVERIFY(server);
        Client mallory;
        mallory.connect(server->port(), m_pki, QStringLiteral("mallory"));
        if (mallory.socket().state() == QAbstractSocket::ConnectedState)
            mallory.post("{}");
        QCOMPARE(mallory.read(5000).code, 0);
        QVERIFY(QTest::qWaitFor([&] { return server->counters().tlsRefused == 1; }, 5000));
        QCOMPARE(m_seen.count(), 0);
        const std::vector<std::string> why = server->takeRefusals();
        QVERIFY(!why.empty());
        QVERIFY2(why.back().find("names mallory, not apiserver") != std::string::npos, why.back().c_str());
        for (const QString &who : {QStringLiteral("apiserver"), QStringLiteral("apiserver-by-san")}) {
            Client apiserver;
            QVERIFY(apiserver.connect(server->port(), m_pki, who));
            apiserver.post("{}");
            QCOMPARE(apiserver.read().code, 200);
        }
        QCOMPARE(m_seen.count(), 2);
    }

    void plainHttpOnTheTlsPortIsDroppedAndTheServerGoesOn()
    {
        auto server = start(options());
        QVERIFY(server);
        QTcpSocket plain;
        plain.connectToHost(QStringLiteral("127.0.0.1"), quint16(server->port()));
        QVERIFY(plain.waitForConnected(5000));
        plain.write("POST / HTTP/1.1\r\nContent-Length: 2\r\n\r\n{}");
        QVERIFY(plain.waitForDisconnected(15000) || plain.state() == QAbstractSocket::UnconnectedState);
        QCOMPARE(m_seen.count(), 0);
        QVERIFY(QTest::qWaitFor([&] { return server->counters().tlsRefused == 1; }, 5000));
        Client c;
        QVERIFY(c.connect(server->port(), m_pki));
        c.post("{}");
        QCOMPARE(c.read().code, 200);
    }

    void aThrowingHandlerIsAnsweredWith500()
    {
        auto server = start(options());
        QVERIFY(server);
        Client c;
        QVERIFY(c.connect(server->port(), m_pki));
        c.post("throw");
        const Response r = c.read();
        QCOMPARE(r.code, 500);
        QVERIFY2(r.body.contains("the handler failed"), r.body.constData());
        c.post("{}");
        QCOMPARE(c.read().code, 200);
    }

    void startRefusalsNameTheFileOrAddress()
    {
        auto o = options();
        o.certFile = "/nonexistent/server.crt";
        auto missing = kube::WebhookServer::start(o, [](std::string_view) { return kube::WebhookAnswer{}; });
        QVERIFY(!missing);
        QVERIFY2(missing.error().describe().find("/nonexistent/server.crt") != std::string::npos,
                 missing.error().describe().c_str());

        o = options();
        o.certFile = "/dev/zero"; // endless: refused as not a regular file, never read into memory
        auto endless = kube::WebhookServer::start(o, [](std::string_view) { return kube::WebhookAnswer{}; });
        QVERIFY(!endless);
        QVERIFY2(endless.error().describe().find("/dev/zero") != std::string::npos, endless.error().describe().c_str());

        o = options();
        o.keyFile = o.certFile; // a certificate where the key should be
        auto noKey = kube::WebhookServer::start(o, [](std::string_view) { return kube::WebhookAnswer{}; });
        QVERIFY(!noKey);
        QVERIFY2(noKey.error().describe().find("private key") != std::string::npos, noKey.error().describe().c_str());

        o = options();
        o.host = "not-an-address";
        auto badHost = kube::WebhookServer::start(o, [](std::string_view) { return kube::WebhookAnswer{}; });
        QVERIFY(!badHost);
        QVERIFY2(badHost.error().describe().find("not-an-address") != std::string::npos,
                 badHost.error().describe().c_str());

        auto first = start(options());
        QVERIFY(first);
        o = options();
        o.port = first->port();
        auto taken = kube::WebhookServer::start(o, [](std::string_view) { return kube::WebhookAnswer{}; });
        QVERIFY(!taken);
        QVERIFY2(taken.error().describe().find("cannot listen on 127.0.0.1:" + std::to_string(first->port()))
                     != std::string::npos,
                 taken.error().describe().c_str());
    }
};

QTEST_GUILESS_MAIN(TestWebhookServer)
#include "tst_webhookserver.moc"
