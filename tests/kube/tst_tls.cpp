// TLS and proxies as client-go does them (README.md, Security), against real TLS on loopback:
// certificates made by the openssl command in the test, an OpenSSL server that records the SNI
// and request head it got, and a SOCKS5 server that records the address it was asked for.
// - a kubeconfig CA is the only trust anchor (not added to the system store);
// - tls-server-name is the name sent in SNI and verified, the Host header stays the server URL's;
// - socks5:// proxies resolve names (client-go's SOCKS5 dialer sends the name).
#include "kube/transport.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <cstring>
#include <future>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

using namespace fieldscope;

namespace {

// A listening loopback socket and an accept loop on its own thread that stops on destruction.
class LoopbackServer
{
public:
    LoopbackServer()
    {
        m_fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        int one = 1;
        ::setsockopt(m_fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
        sockaddr_in a{};
        a.sin_family = AF_INET;
        a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        if (::bind(m_fd, reinterpret_cast<sockaddr *>(&a), sizeof a) != 0 || ::listen(m_fd, 16) != 0)
            qFatal("cannot listen on loopback");
        socklen_t len = sizeof a;
        ::getsockname(m_fd, reinterpret_cast<sockaddr *>(&a), &len);
        m_port = ntohs(a.sin_port);
    }
    virtual ~LoopbackServer() { Q_ASSERT(!m_thread.joinable()); }
    std::uint16_t port() const { return m_port; }

protected:
    void startLoop()
    {
        m_thread = std::thread([this] {
            while (!m_stop) {
                pollfd p{m_fd, POLLIN, 0};
                if (::poll(&p, 1, 50) <= 0)
                    continue;
                const int c = ::accept4(m_fd, nullptr, nullptr, SOCK_CLOEXEC);
                if (c < 0)
                    continue;
                timeval tv{5, 0};
                ::setsockopt(c, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
                serve(c);
                ::close(c);
            }
        });
    }
    void stopLoop()
    {
        m_stop = true;
        if (m_thread.joinable())
            m_thread.join();
        ::close(m_fd);
    }
    virtual void serve(int fd) = 0;

private:
    int m_fd = -1;
    std::uint16_t m_port = 0;
    std::atomic<bool> m_stop{false};
    std::thread m_thread;
};

// HTTPS/1.1 (no ALPN, so libcurl speaks HTTP/1.1): answers every request with 200 "{}".
class TlsServer final : public LoopbackServer
{
public:
    struct Seen {
        std::string sni;
        std::string head; // the request head as received
    };

    TlsServer(const QString &certFile, const QString &keyFile)
    {
        m_ctx = SSL_CTX_new(TLS_server_method());
        if (SSL_CTX_use_certificate_chain_file(m_ctx, QFile::encodeName(certFile).constData()) != 1
            || SSL_CTX_use_PrivateKey_file(m_ctx, QFile::encodeName(keyFile).constData(), SSL_FILETYPE_PEM) != 1)
            qFatal("cannot load the test server's certificate");
        startLoop();
    }
    ~TlsServer() override
    {
        stopLoop();
        SSL_CTX_free(m_ctx);
    }
    std::vector<Seen> seen() const
    {
        std::lock_guard lock(m_mutex);
        return m_seen;
    }

private:
    void serve(int fd) override
    {
        SSL *ssl = SSL_new(m_ctx);
        SSL_set_fd(ssl, fd);
        if (SSL_accept(ssl) == 1) {
            Seen s;
            if (const char *name = SSL_get_servername(ssl, TLSEXT_NAMETYPE_host_name))
                s.sni = name;
            char buf[4096];
            while (s.head.find("\r\n\r\n") == std::string::npos) {
                const int n = SSL_read(ssl, buf, sizeof buf);
                if (n <= 0)
                    break;
                s.head.append(buf, std::size_t(n));
            }
            static const std::string reply =
                "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}";
            SSL_write(ssl, reply.data(), int(reply.size()));
            SSL_shutdown(ssl);
            // A client that refused the certificate after the handshake sends no request.
            std::lock_guard lock(m_mutex);
            if (!s.head.empty())
                m_seen.push_back(std::move(s));
        }
        SSL_free(ssl);
        ERR_clear_error();
    }

    SSL_CTX *m_ctx = nullptr;
    mutable std::mutex m_mutex;
    std::vector<Seen> m_seen;
};

// SOCKS5 without authentication (RFC 1928) that connects every CONNECT to 127.0.0.1:target and
// records the address it was asked for: "name:<host>" for a domain name, "ip:<a.b.c.d>".
class Socks5Server final : public LoopbackServer
{
public:
    explicit Socks5Server(std::uint16_t target) : m_target(target) { startLoop(); }
    ~Socks5Server() override { stopLoop(); }
    std::vector<std::string> asked() const
    {
        std::lock_guard lock(m_mutex);
        return m_asked;
    }

private:
    static bool readN(int fd, unsigned char *out, std::size_t n)
    {
        for (std::size_t got = 0; got < n;) {
            const ssize_t r = ::read(fd, out + got, n - got);
            if (r <= 0)
                return false;
            got += std::size_t(r);
        }
        return true;
    }
    void serve(int fd) override
    {
        unsigned char h[262];
        if (!readN(fd, h, 2) || h[0] != 5 || !readN(fd, h + 2, h[1]))
            return;
        const unsigned char noAuth[2] = {5, 0};
        if (::write(fd, noAuth, 2) != 2 || !readN(fd, h, 4) || h[1] != 1)
            return;
        std::string asked;
        if (h[3] == 3) {
            unsigned char len = 0;
            if (!readN(fd, &len, 1) || !readN(fd, h, len))
                return;
            asked = "name:" + std::string(reinterpret_cast<char *>(h), len);
        } else if (h[3] == 1) {
            if (!readN(fd, h, 4))
                return;
            asked = "ip:" + std::to_string(h[0]) + "." + std::to_string(h[1]) + "." + std::to_string(h[2]) + "."
                  + std::to_string(h[3]);
        } else {
            return;
        }
        unsigned char port[2];
        if (!readN(fd, port, 2))
            return;
        {
            std::lock_guard lock(m_mutex);
            m_asked.push_back(asked);
        }
        const int up = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        sockaddr_in a{};
        a.sin_family = AF_INET;
        a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        a.sin_port = htons(m_target);
        if (::connect(up, reinterpret_cast<sockaddr *>(&a), sizeof a) != 0) {
            ::close(up);
            return;
        }
        const unsigned char ok[10] = {5, 0, 0, 1, 0, 0, 0, 0, 0, 0};
        if (::write(fd, ok, sizeof ok) == sizeof ok) {
            pollfd p[2] = {{fd, POLLIN, 0}, {up, POLLIN, 0}};
            char buf[16384];
            while (::poll(p, 2, 5000) > 0) {
                bool closed = false;
                for (int i = 0; i < 2 && !closed; ++i) {
                    if (!(p[i].revents & (POLLIN | POLLHUP)))
                        continue;
                    const ssize_t n = ::read(p[i].fd, buf, sizeof buf);
                    closed = n <= 0 || ::write(p[1 - i].fd, buf, std::size_t(n)) != n;
                }
                if (closed)
                    break;
            }
        }
        ::close(up);
    }

    std::uint16_t m_target;
    mutable std::mutex m_mutex;
    std::vector<std::string> m_asked;
};

QByteArray readAll(const QString &path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

// One GET through a real kube::Transport, waited for (onDone runs on the network thread).
core::Result<kube::HttpResponse> get(kube::TransportConfig config)
{
    config.qps = 0;
    config.connectTimeoutMs = 5000;
    kube::Transport t(std::move(config));
    auto done = std::make_shared<std::promise<core::Result<kube::HttpResponse>>>();
    auto result = done->get_future();
    kube::HttpRequest r;
    r.path = "/version";
    r.timeoutMs = 10'000;
    t.start(r, [done](core::Result<kube::HttpResponse> res) { done->set_value(std::move(res)); });
    if (result.wait_for(std::chrono::seconds(20)) != std::future_status::ready)
        return core::Error::make(core::ErrorCategory::Network, "test: no answer within 20 s");
    return result.get();
}

QString describe(const core::Result<kube::HttpResponse> &r)
{
    return r.ok() ? QStringLiteral("HTTP %1").arg(r->status) : QString::fromStdString(r.error().describe());
}

} // namespace

class TestTls : public QObject
{
    Q_OBJECT
private:
    QTemporaryDir m_dir;

    QString file(const QString &name) const { return m_dir.filePath(name); }

    void openssl(const QStringList &args)
    {
        QProcess p;
        p.setWorkingDirectory(m_dir.path());
        p.start(QStringLiteral("openssl"), args);
        QVERIFY(p.waitForFinished(30000));
        QVERIFY2(p.exitCode() == 0, p.readAllStandardError().constData());
    }
    void makeCa(const QString &name)
    {
        openssl({QStringLiteral("req"), QStringLiteral("-x509"), QStringLiteral("-newkey"), QStringLiteral("ec"),
                 QStringLiteral("-pkeyopt"), QStringLiteral("ec_paramgen_curve:P-256"), QStringLiteral("-nodes"),
                 QStringLiteral("-keyout"), name + QStringLiteral(".key"), QStringLiteral("-out"),
                 name + QStringLiteral(".crt"), QStringLiteral("-days"), QStringLiteral("2"), QStringLiteral("-subj"),
                 QStringLiteral("/CN=fieldscope test ") + name, QStringLiteral("-addext"),
                 QStringLiteral("basicConstraints=critical,CA:TRUE"), QStringLiteral("-addext"),
                 QStringLiteral("keyUsage=critical,keyCertSign,cRLSign")});
    }
    // A server certificate for SAN, signed by CA.
    void makeServer(const QString &name, const QString &ca, const QString &san)
    {
        openssl({QStringLiteral("req"), QStringLiteral("-newkey"), QStringLiteral("ec"), QStringLiteral("-pkeyopt"),
                 QStringLiteral("ec_paramgen_curve:P-256"), QStringLiteral("-nodes"), QStringLiteral("-keyout"),
                 name + QStringLiteral(".key"), QStringLiteral("-out"), name + QStringLiteral(".csr"),
                 QStringLiteral("-subj"), QStringLiteral("/CN=") + name});
        QFile ext(file(name + QStringLiteral(".ext")));
        QVERIFY(ext.open(QIODevice::WriteOnly));
        ext.write("subjectAltName=" + san.toUtf8() + "\nextendedKeyUsage=serverAuth\n");
        ext.close();
        openssl({QStringLiteral("x509"), QStringLiteral("-req"), QStringLiteral("-in"), name + QStringLiteral(".csr"),
                 QStringLiteral("-CA"), ca + QStringLiteral(".crt"), QStringLiteral("-CAkey"),
                 ca + QStringLiteral(".key"), QStringLiteral("-CAcreateserial"), QStringLiteral("-out"),
                 name + QStringLiteral(".crt"), QStringLiteral("-days"), QStringLiteral("2"),
                 QStringLiteral("-extfile"), name + QStringLiteral(".ext")});
    }
    TlsServer *server(const QString &name)
    {
        return new TlsServer(file(name + QStringLiteral(".crt")), file(name + QStringLiteral(".key")));
    }

private Q_SLOTS:
    void initTestCase()
    {
        // The servers write to sockets a client may have dropped (a refused certificate).
        std::signal(SIGPIPE, SIG_IGN);
        // Proxies from the environment would route loopback elsewhere.
        for (const char *v :
             {"http_proxy", "https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY", "no_proxy", "NO_PROXY"})
            qunsetenv(v);
        makeCa(QStringLiteral("ca-a"));
        makeCa(QStringLiteral("ca-b"));
        makeServer(QStringLiteral("loopback-by-a"), QStringLiteral("ca-a"), QStringLiteral("IP:127.0.0.1"));
        makeServer(QStringLiteral("loopback-by-b"), QStringLiteral("ca-b"), QStringLiteral("IP:127.0.0.1"));
        makeServer(QStringLiteral("internal-by-a"), QStringLiteral("ca-a"), QStringLiteral("DNS:api.internal"));
        makeServer(QStringLiteral("hidden-by-a"), QStringLiteral("ca-a"),
                   QStringLiteral("DNS:kube.fieldscope.invalid"));
    }

    void kubeconfigCaIsTheOnlyTrustAnchor()
    {
        std::unique_ptr<TlsServer> s(server(QStringLiteral("loopback-by-a")));
        kube::TransportConfig c;
        c.server = "https://127.0.0.1:" + std::to_string(s->port());
        c.caPem = readAll(file(QStringLiteral("ca-a.crt")));
        auto ok = get(c);
        QVERIFY2(ok.ok() && ok->status == 200, qPrintable(describe(ok)));

        c.caPem = readAll(file(QStringLiteral("ca-b.crt"))); // the kubeconfig names another CA
        auto refused = get(c);
        QVERIFY2(!refused.ok(), qPrintable(describe(refused)));
        QCOMPARE(refused.error().category, core::ErrorCategory::Tls);
        QVERIFY2(describe(refused).contains(QLatin1String("not signed by the kubeconfig's certificate-authority")),
                 qPrintable(describe(refused)));
    }

    // libcurl's OpenSSL backend loads its default CA folder (/etc/ssl/certs) next to a CA blob.
    // To see that it no longer does, CA B becomes a "system" CA for the duration of the test (a
    // hashed link in that folder, removed at the end; needs write access, as root in CI).
    void systemCasAreNotAddedToAKubeconfigCa()
    {
        const QString certs = QStringLiteral("/etc/ssl/certs");
        if (!QFileInfo(certs).isDir() || !QFileInfo(certs).isWritable())
            QSKIP("needs write access to /etc/ssl/certs to make a test CA a system CA");
        QProcess hash;
        hash.start(QStringLiteral("openssl"),
                   {QStringLiteral("x509"), QStringLiteral("-hash"), QStringLiteral("-noout"), QStringLiteral("-in"),
                    file(QStringLiteral("ca-b.crt"))});
        QVERIFY(hash.waitForFinished(10000));
        const QString h = QString::fromLatin1(hash.readAllStandardOutput().trimmed());
        QString link;
        for (int i = 0; link.isEmpty() || QFileInfo::exists(link) || QFileInfo(link).isSymLink(); ++i)
            link = QStringLiteral("%1/%2.%3").arg(certs, h).arg(i);
        QVERIFY(QFile::link(file(QStringLiteral("ca-b.crt")), link));
        struct Unlink {
            QString path;
            ~Unlink() { QFile::remove(path); }
        } unlinkAtEnd{link};

        std::unique_ptr<TlsServer> s(server(QStringLiteral("loopback-by-b")));
        kube::TransportConfig c;
        c.server = "https://127.0.0.1:" + std::to_string(s->port());
        auto system = get(c); // no CA in the kubeconfig: the system store, which now has B
        QVERIFY2(system.ok() && system->status == 200, qPrintable(describe(system)));

        c.caPem = readAll(file(QStringLiteral("ca-a.crt")));
        auto refused = get(c);
        QVERIFY2(!refused.ok(), qPrintable(describe(refused)));
        QCOMPARE(refused.error().category, core::ErrorCategory::Tls);
    }

    void tlsServerNameIsVerifiedAndSentInSniWhileHostStaysTheServerUrl()
    {
        std::unique_ptr<TlsServer> s(server(QStringLiteral("internal-by-a")));
        kube::TransportConfig c;
        c.server = "https://127.0.0.1:" + std::to_string(s->port());
        c.caPem = readAll(file(QStringLiteral("ca-a.crt")));
        auto mismatch = get(c); // the certificate names api.internal, not 127.0.0.1
        QVERIFY2(!mismatch.ok(), qPrintable(describe(mismatch)));
        QCOMPARE(mismatch.error().category, core::ErrorCategory::Tls);

        c.tlsServerName = "api.internal";
        auto ok = get(c);
        QVERIFY2(ok.ok() && ok->status == 200, qPrintable(describe(ok)));
        const auto seen = s->seen();
        QCOMPARE(int(seen.size()), 1);
        QCOMPARE(QString::fromStdString(seen[0].sni), QStringLiteral("api.internal"));
        const QString head = QString::fromStdString(seen[0].head);
        QVERIFY2(head.contains(QStringLiteral("\r\nHost: 127.0.0.1:%1\r\n").arg(s->port())), qPrintable(head));
        QVERIFY2(!head.contains(QLatin1String("api.internal")), qPrintable(head));
    }

    void socks5ProxyResolvesNamesThroughTheProxy()
    {
        std::unique_ptr<TlsServer> s(server(QStringLiteral("hidden-by-a")));
        Socks5Server socks(s->port());
        kube::TransportConfig c;
        // A name only the proxy knows (.invalid never resolves here).
        c.server = "https://kube.fieldscope.invalid:" + std::to_string(s->port());
        c.caPem = readAll(file(QStringLiteral("ca-a.crt")));
        c.proxyUrl = "socks5://127.0.0.1:" + std::to_string(socks.port());
        auto ok = get(c);
        QVERIFY2(ok.ok() && ok->status == 200, qPrintable(describe(ok)));
        QCOMPARE(int(socks.asked().size()), 1);
        QCOMPARE(QString::fromStdString(socks.asked().front()), QStringLiteral("name:kube.fieldscope.invalid"));
        QCOMPARE(QString::fromStdString(s->seen().front().sni), QStringLiteral("kube.fieldscope.invalid"));
    }
};

QTEST_GUILESS_MAIN(TestTls)
#include "tst_tls.moc"
