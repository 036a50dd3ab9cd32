#include "kube/webhookserver.h"

#include "core/base/json.h"
#include "kube/kubeconfig_p.h"

#include <QHostAddress>
#include <QSslCertificate>
#include <QSslConfiguration>
#include <QSslKey>
#include <QSslSocket>
#include <QTcpServer>
#include <QThread>
#include <QTimer>

#include <algorithm>
#include <deque>

namespace fieldscope::kube {

struct WebhookServer::Shared {
    std::mutex mutex;
    WebhookCounters counters;
    std::deque<std::string> refusals;

    void noteRefusal(std::string why)
    {
        std::lock_guard lock(mutex);
        refusals.push_back(std::move(why));
        if (refusals.size() > 100)
            refusals.pop_front();
    }
    template<typename F>
    void count(F &&f)
    {
        std::lock_guard lock(mutex);
        f(counters);
    }
};

namespace {

const char *reasonPhrase(int code)
{
    switch (code) {
    case 200: return "OK";
    case 400: return "Bad Request";
    case 405: return "Method Not Allowed";
    case 408: return "Request Timeout";
    case 411: return "Length Required";
    case 413: return "Payload Too Large";
    case 415: return "Unsupported Media Type";
    case 429: return "Too Many Requests";
    case 431: return "Request Header Fields Too Large";
    case 500: return "Internal Server Error";
    case 503: return "Service Unavailable";
    default: return code < 300 ? "OK" : code < 500 ? "Bad Request" : "Internal Server Error";
    }
}

// A Kubernetes Status, so an API server's log shows the reason of a refusal as it shows its own.
QByteArray responseBytes(const WebhookAnswer &a, bool close)
{
    core::Json status{{"kind", "Status"},
                      {"apiVersion", "v1"},
                      {"metadata", core::Json::object()},
                      {"status", a.code < 300 ? "Success" : "Failure"},
                      {"code", a.code}};
    if (!a.message.empty())
        status["message"] = a.message;
    const std::string body = status.dump(-1, ' ', false, core::Json::error_handler_t::replace);
    QByteArray out = "HTTP/1.1 " + QByteArray::number(a.code) + ' ' + reasonPhrase(a.code)
                   + "\r\nContent-Type: application/json\r\nContent-Length: "
                   + QByteArray::number(qsizetype(body.size())) + "\r\n";
    if (a.retryAfterSeconds > 0)
        out += "Retry-After: " + QByteArray::number(a.retryAfterSeconds) + "\r\n";
    if (close)
        out += "Connection: close\r\n";
    out += "\r\n";
    out += QByteArray::fromStdString(body);
    return out;
}

core::Result<QSslConfiguration> tlsConfiguration(const WebhookServerOptions &o)
{
    if (!QSslSocket::supportsSsl())
        return core::Error::make(
            core::ErrorCategory::Config,
            "TLS is not available: Qt's OpenSSL backend (the tls plugin of libqt6network6) is missing");
    auto certPem = readWebhookFile(o.certFile, "serving certificate");
    if (!certPem)
        return certPem.error();
    const auto chain = QSslCertificate::fromData(*certPem, QSsl::Pem);
    if (chain.isEmpty())
        return core::Error::make(core::ErrorCategory::Config, "no PEM certificate in " + o.certFile);
    auto keyPem = readWebhookFile(o.keyFile, "private key");
    if (!keyPem)
        return keyPem.error();
    QSslKey key;
    for (auto alg : {QSsl::Rsa, QSsl::Ec}) {
        key = QSslKey(*keyPem, alg, QSsl::Pem, QSsl::PrivateKey);
        if (!key.isNull())
            break;
    }
    if (key.isNull())
        return core::Error::make(core::ErrorCategory::Config, "no unencrypted RSA or EC private key in " + o.keyFile);
    QSslConfiguration c = QSslConfiguration::defaultConfiguration();
    c.setLocalCertificateChain(chain);
    c.setPrivateKey(key);
    c.setProtocol(QSsl::TlsV1_2OrLater);
    if (o.clientCaFile.empty()) {
        c.setPeerVerifyMode(QSslSocket::VerifyNone);
    } else {
        auto caPem = readWebhookFile(o.clientCaFile, "client CA");
        if (!caPem)
            return caPem.error();
        const auto cas = QSslCertificate::fromData(*caPem, QSsl::Pem);
        if (cas.isEmpty())
            return core::Error::make(core::ErrorCategory::Config,
                                     "no PEM certificate in the client CA " + o.clientCaFile);
        c.setCaCertificates(cas);
        c.setPeerVerifyMode(QSslSocket::VerifyPeer);
    }
    return c;
}

core::Result<QHostAddress> listenAddress(const std::string &host)
{
    if (host == "localhost")
        return QHostAddress(QHostAddress::LocalHost);
    if (host == "0.0.0.0")
        return QHostAddress(QHostAddress::AnyIPv4);
    if (host == "::")
        return QHostAddress(QHostAddress::AnyIPv6);
    QHostAddress a;
    if (!a.setAddress(QString::fromStdString(host)))
        return core::Error::make(core::ErrorCategory::Config,
                                 "\"" + host + "\" is not an IP address to listen on (or localhost)");
    return a;
}

} // namespace

core::Result<QByteArray> readWebhookFile(const std::string &path, const std::string &what)
{
    return detail::readFile(path, what);
}

// Lives on the server's thread with its listener and connections.
class WebhookWorker : public QObject
{
public:
    WebhookWorker(WebhookServerOptions options, WebhookHandler handler, std::shared_ptr<WebhookServer::Shared> shared)
        : m_options(std::move(options)), m_handler(std::move(handler)), m_shared(std::move(shared))
    {
    }
    // The server and the connections go first: a connection's destructor returns its reservation.
    ~WebhookWorker() override
    {
        const auto kids = children();
        for (QObject *k : kids)
            delete k;
    }
    core::Result<int> listen();
    const WebhookServerOptions &options() const { return m_options; }
    WebhookServer::Shared &shared() { return *m_shared; }
    WebhookAnswer handle(std::string_view body);
    // Body bytes held across connections: a reservation is refused above the bound.
    bool reserve(std::size_t n)
    {
        if (m_buffered + n > m_options.maxBufferedBytes)
            return false;
        m_buffered += n;
        return true;
    }
    void release(std::size_t n) { m_buffered -= std::min(n, m_buffered); }
    void connectionClosed() { --m_connections; }
    // A TCP connection arrived: it gets a TLS session of its own (or is closed at the limit).
    void incoming(qintptr descriptor);

private:
    WebhookServerOptions m_options;
    WebhookHandler m_handler;
    std::shared_ptr<WebhookServer::Shared> m_shared;
    QTcpServer *m_server = nullptr;
    QSslConfiguration m_tls;
    int m_connections = 0;
    std::size_t m_buffered = 0;
};

namespace {

// One HTTP/1.1 connection: requests parsed as bytes arrive, answered in order.
class WebhookConnection : public QObject
{
public:
    WebhookConnection(QSslSocket *socket, WebhookWorker &worker)
        : QObject(socket), m_socket(socket), m_worker(worker), m_peer(socket->peerAddress().toString().toStdString())
    {
        m_timer.setSingleShot(true);
        m_timer.callOnTimeout(this, [this] { timedOut(); });
        connect(socket, &QSslSocket::readyRead, this, [this] { readSome(); });
        connect(socket, &QSslSocket::disconnected, socket, &QObject::deleteLater);
        connect(socket, &QSslSocket::encrypted, this, [this] {
            if (const QString why = unnamedPeer(); !why.isEmpty()) {
                handshakeFailed(why);
                return;
            }
            m_encrypted = true;
            m_timer.start(m_worker.options().idleTimeoutMs);
        });
        // A peer whose handshake fails (no or a wrong client certificate, plain HTTP) is counted.
        connect(socket, &QSslSocket::errorOccurred, this, [this] { handshakeFailed(m_socket->errorString()); });
        connect(socket, &QSslSocket::disconnected, this, [this] { handshakeFailed(QStringLiteral("the peer left")); });
        m_timer.start(m_worker.options().handshakeTimeoutMs);
    }
    ~WebhookConnection() override
    {
        m_worker.release(m_reserved);
        m_worker.connectionClosed();
    }
    void readSome();

private:
    void handshakeFailed(const QString &why)
    {
        if (m_encrypted || m_handshakeFailed)
            return;
        m_handshakeFailed = true;
        m_worker.shared().count([](WebhookCounters &c) { ++c.tlsRefused; });
        m_worker.shared().noteRefusal("TLS handshake with " + m_peer + " failed: " + why.toStdString());
        m_socket->abort();
        m_socket->deleteLater();
    }
    // Why the client certificate does not name one of the options' clientNames ("" when it does,
    // or when no name is asked for).
    QString unnamedPeer() const
    {
        const auto &wanted = m_worker.options().clientNames;
        if (wanted.empty())
            return {};
        const QSslCertificate cert = m_socket->peerCertificate();
        QStringList names = cert.subjectInfo(QSslCertificate::CommonName);
        names += cert.subjectAlternativeNames().values(QSsl::DnsEntry);
        for (const QString &n : names)
            if (std::find(wanted.begin(), wanted.end(), n.toStdString()) != wanted.end())
                return {};
        // Names chosen by whoever holds the certificate: escaped when the refusal is shown.
        return QStringLiteral("the client certificate names %1, not %2")
            .arg(names.isEmpty() ? QStringLiteral("nobody") : names.join(QStringLiteral(", ")).left(256),
                 QString::fromStdString(wanted.front()));
    }
    bool parseHeaders(qsizetype end);
    void answer(const WebhookAnswer &a, bool close, std::string_view why = {});
    void timedOut();
    void refuse(int code, const std::string &message) { answer({code, message, 0}, true, message); }

    QSslSocket *m_socket;
    WebhookWorker &m_worker;
    std::string m_peer;
    QByteArray m_buf;
    QTimer m_timer;
    bool m_inBody = false;
    bool m_closing = false;
    bool m_closeAfter = false;
    qsizetype m_headerEnd = 0;
    std::size_t m_bodyLength = 0;
    std::size_t m_reserved = 0;
    std::size_t m_drained = 0;
    bool m_encrypted = false;
    bool m_handshakeFailed = false;
    static constexpr int kDrainMs = 2000;
    static constexpr std::size_t kMaxDrainBytes = 64u << 20;
};

void WebhookConnection::timedOut()
{
    if (!m_encrypted) {
        handshakeFailed(QStringLiteral("no handshake within %1 s").arg(m_worker.options().handshakeTimeoutMs / 1000));
        return;
    }
    if (m_closing) {
        m_socket->disconnectFromHost();
        return;
    }
    if (m_buf.isEmpty() && !m_inBody) { // idle keep-alive: just close
        m_closing = true;
        m_socket->disconnectFromHost();
        return;
    }
    refuse(408,
           "the request did not arrive within " + std::to_string(m_worker.options().requestDeadlineMs / 1000) + " s");
}

void WebhookConnection::answer(const WebhookAnswer &a, bool close, std::string_view why)
{
    m_worker.shared().count([&](WebhookCounters &c) {
        ++c.requests;
        if (a.code < 300) {
            ++c.accepted;
            c.bodyBytes += std::int64_t(m_bodyLength);
        } else {
            ++c.refused;
        }
    });
    if (a.code >= 300)
        m_worker.shared().noteRefusal(std::to_string(a.code) + " to " + m_peer + ": "
                                      + std::string(why.empty() ? std::string_view(a.message) : why));
    m_socket->write(responseBytes(a, close));
    if (close) {
        // Closing with unread bytes makes the kernel send a reset, which can destroy the answer
        // before the peer reads it: what the peer still sends is read and dropped for a moment
        // (bounded in time and bytes), then the connection closes.
        m_closing = true;
        m_buf.clear();
        m_timer.start(kDrainMs);
    }
}

// Reads the request line and headers ending at `end`; false when the request was refused.
bool WebhookConnection::parseHeaders(qsizetype end)
{
    const QList<QByteArray> lines = m_buf.left(end).split('\n');
    const QList<QByteArray> first = lines.value(0).trimmed().split(' ');
    if (first.size() != 3 || !first[2].startsWith("HTTP/1.")) {
        refuse(400, "not an HTTP/1.1 request");
        return false;
    }
    bool haveLength = false, expectContinue = false;
    std::size_t length = 0;
    m_closeAfter = first[2] == "HTTP/1.0";
    for (qsizetype i = 1; i < lines.size(); ++i) {
        const QByteArray &line = lines[i];
        const qsizetype colon = line.indexOf(':');
        if (colon <= 0)
            continue;
        const QByteArray name = line.left(colon).trimmed().toLower();
        const QByteArray value = line.mid(colon + 1).trimmed();
        if (name == "content-length") {
            bool ok = false;
            const qulonglong n = value.toULongLong(&ok);
            if (!ok || (haveLength && n != length)) {
                refuse(400, "a malformed Content-Length");
                return false;
            }
            haveLength = true;
            length = std::size_t(n);
        } else if (name == "transfer-encoding") {
            refuse(411, "chunked bodies are not accepted: send Content-Length");
            return false;
        } else if (name == "content-encoding" && value.toLower() != "identity") {
            refuse(415, "Content-Encoding " + value.left(40).toStdString() + " is not accepted");
            return false;
        } else if (name == "connection") {
            const QByteArray v = value.toLower();
            m_closeAfter = v.contains("close") || (m_closeAfter && !v.contains("keep-alive"));
        } else if (name == "expect" && value.toLower() == "100-continue") {
            expectContinue = true;
        }
    }
    if (first[0] != "POST") {
        refuse(405, "only POST is accepted (the audit webhook sends an EventList)");
        return false;
    }
    if (!haveLength) {
        refuse(411, "a POST needs a Content-Length");
        return false;
    }
    const std::size_t max = m_worker.options().maxBodyBytes;
    if (length > max) {
        refuse(413, "a body of " + std::to_string(length) + " bytes is over the limit of " + std::to_string(max >> 20)
                        + " MiB");
        return false;
    }
    if (!m_worker.reserve(length)) {
        answer({503, "the receiver holds too many bodies at once: retry", 1}, true, "too many bodies held at once");
        return false;
    }
    m_reserved = length;
    m_bodyLength = length;
    if (expectContinue)
        m_socket->write("HTTP/1.1 100 Continue\r\n\r\n");
    return true;
}

void WebhookConnection::readSome()
{
    if (m_closing) {
        m_drained += std::size_t(m_socket->readAll().size());
        if (m_drained > kMaxDrainBytes)
            m_socket->disconnectFromHost();
        return;
    }
    if (m_buf.isEmpty() && !m_inBody)
        m_timer.start(m_worker.options().requestDeadlineMs); // a request starts: it has a deadline
    // Never hold more than the request needs: the rest stays in the socket until it is parsed.
    const qint64 want = m_inBody ? qint64(m_headerEnd + qsizetype(m_bodyLength)) - m_buf.size()
                                 : qint64(m_worker.options().maxHeaderBytes) + 4 - m_buf.size();
    m_buf += m_socket->read(std::max<qint64>(want, 0));
    while (!m_closing) {
        if (!m_inBody) {
            const qsizetype end = m_buf.indexOf("\r\n\r\n");
            if (end < 0) {
                if (std::size_t(m_buf.size()) > m_worker.options().maxHeaderBytes)
                    refuse(431, "headers over " + std::to_string(m_worker.options().maxHeaderBytes >> 10) + " KiB");
                return;
            }
            if (!parseHeaders(end))
                return;
            m_headerEnd = end + 4;
            m_inBody = true;
        }
        const qsizetype total = m_headerEnd + qsizetype(m_bodyLength);
        if (m_buf.size() < total) {
            const qint64 more = total - m_buf.size();
            if (m_socket->bytesAvailable() > 0)
                m_buf += m_socket->read(more);
            if (m_buf.size() < total)
                return;
        }
        const WebhookAnswer a = m_worker.handle(std::string_view(m_buf.constData() + m_headerEnd,
                                                                 std::size_t(m_bodyLength)));
        answer(a, m_closeAfter);
        m_worker.release(m_reserved);
        m_reserved = 0;
        m_inBody = false;
        if (m_closing)
            return;
        m_buf.remove(0, total);
        m_bodyLength = 0;
        if (m_buf.isEmpty() && m_socket->bytesAvailable() == 0) {
            m_timer.start(m_worker.options().idleTimeoutMs);
            return;
        }
        m_timer.start(m_worker.options().requestDeadlineMs);
        m_buf += m_socket->read(qint64(m_worker.options().maxHeaderBytes) + 4 - m_buf.size());
    }
}

} // namespace

WebhookAnswer WebhookWorker::handle(std::string_view body)
{
    try {
        return m_handler(body);
    } catch (const std::bad_alloc &) {
        return {503, "out of memory while reading the body: retry", 1};
    } catch (const std::exception &e) {
        return {500, std::string("cannot read the body: ") + e.what(), 0};
    } catch (...) {
        return {500, "cannot read the body", 0};
    }
}

namespace {

// Hands each accepted descriptor to the worker, which makes it a TLS socket of its own.
class TlsListener : public QTcpServer
{
public:
    TlsListener(WebhookWorker *worker) : QTcpServer(worker), m_worker(worker) {}

protected:
    void incomingConnection(qintptr descriptor) override { m_worker->incoming(descriptor); }

private:
    WebhookWorker *m_worker;
};

} // namespace

core::Result<int> WebhookWorker::listen()
{
    auto config = tlsConfiguration(m_options);
    if (!config)
        return config.error();
    auto address = listenAddress(m_options.host);
    if (!address)
        return address.error();
    m_tls = *config;
    m_server = new TlsListener(this);
    if (!m_server->listen(*address, quint16(m_options.port)))
        return core::Error::make(core::ErrorCategory::Network, "cannot listen on " + m_options.host + ":"
                                                                   + std::to_string(m_options.port) + ": "
                                                                   + m_server->errorString().toStdString());
    return int(m_server->serverPort());
}

void WebhookWorker::incoming(qintptr descriptor)
{
    auto *socket = new QSslSocket(this);
    if (!socket->setSocketDescriptor(descriptor)) {
        delete socket;
        return;
    }
    m_shared->count([](WebhookCounters &c) { ++c.connections; });
    if (m_connections >= m_options.maxConnections) {
        m_shared->noteRefusal("closed a connection from " + socket->peerAddress().toString().toStdString() + ": "
                              + std::to_string(m_options.maxConnections) + " are open already");
        socket->abort();
        socket->deleteLater();
        return;
    }
    ++m_connections;
    socket->setSslConfiguration(m_tls);
    // What the peer sends beyond this waits in the kernel until a request is parsed.
    socket->setReadBufferSize(1 << 20);
    new WebhookConnection(socket, *this);
    socket->startServerEncryption();
}

struct WebhookServer::Impl {
    QThread thread;
    WebhookWorker *worker = nullptr;
};

core::Result<std::unique_ptr<WebhookServer>> WebhookServer::start(const WebhookServerOptions &options,
                                                                  WebhookHandler handler)
{
    std::unique_ptr<WebhookServer> s(new WebhookServer);
    s->m_shared = std::make_shared<Shared>();
    s->d = std::make_unique<Impl>();
    s->d->thread.setObjectName(QStringLiteral("audit webhook"));
    s->d->worker = new WebhookWorker(options, std::move(handler), s->m_shared);
    s->d->worker->moveToThread(&s->d->thread);
    s->d->thread.start();
    core::Result<int> port = core::Error::make(core::ErrorCategory::Config, "not started");
    QMetaObject::invokeMethod(
        s->d->worker, [&] { port = s->d->worker->listen(); }, Qt::BlockingQueuedConnection);
    if (!port)
        return port.error(); // the destructor stops the thread
    s->m_port = *port;
    return s;
}

WebhookServer::~WebhookServer()
{
    if (!d)
        return;
    // The worker, its server and its sockets are deleted on their own thread.
    QMetaObject::invokeMethod(
        d->worker, [w = d->worker] { delete w; }, Qt::BlockingQueuedConnection);
    d->thread.quit();
    d->thread.wait();
}

WebhookCounters WebhookServer::counters() const
{
    std::lock_guard lock(m_shared->mutex);
    return m_shared->counters;
}

std::vector<std::string> WebhookServer::takeRefusals()
{
    std::lock_guard lock(m_shared->mutex);
    std::vector<std::string> out(m_shared->refusals.begin(), m_shared->refusals.end());
    m_shared->refusals.clear();
    return out;
}

} // namespace fieldscope::kube
