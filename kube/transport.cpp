#include "kube/transport.h"

#include "core/base/boundary.h"

#include <QLoggingCategory>

#include <curl/curl.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <deque>
#include <map>
#include <random>

Q_LOGGING_CATEGORY(lcTransport, "fieldscope.kube.transport", QtInfoMsg)

namespace fieldscope::kube {

using core::Error;
using core::ErrorCategory;
using Clock = std::chrono::steady_clock;

namespace {

struct CurlGlobal {
    CurlGlobal() { curl_global_init(CURL_GLOBAL_DEFAULT); }
};

// Token bucket (client-side throttling, API brief 7.4).
struct TokenBucket {
    double rate = 0, capacity = 0, tokens = 0;
    Clock::time_point last = Clock::now();
    void configure(double qps, int burst) { rate = qps; capacity = std::max(1, burst); tokens = capacity; }
    // Time until a token is available (zero when one was taken).
    Clock::duration take()
    {
        if (rate <= 0)
            return {};
        const auto now = Clock::now();
        tokens = std::min(capacity, tokens + std::chrono::duration<double>(now - last).count() * rate);
        last = now;
        if (tokens >= 1) {
            tokens -= 1;
            return {};
        }
        return std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>((1 - tokens) / rate));
    }
};

std::string trim(std::string_view s)
{
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t'))
        s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r' || s.back() == '\n'))
        s.remove_suffix(1);
    return std::string(s);
}

bool iequalsPrefix(std::string_view line, std::string_view name)
{
    if (line.size() <= name.size() || line[name.size()] != ':')
        return false;
    for (std::size_t i = 0; i < name.size(); ++i)
        if (std::tolower(static_cast<unsigned char>(line[i])) != std::tolower(static_cast<unsigned char>(name[i])))
            return false;
    return true;
}

Error curlError(CURLcode code, const char *detail)
{
    ErrorCategory cat = ErrorCategory::Network;
    switch (code) {
    case CURLE_SSL_CONNECT_ERROR:
    case CURLE_PEER_FAILED_VERIFICATION:
    case CURLE_SSL_CERTPROBLEM:
    case CURLE_SSL_CIPHER:
    case CURLE_SSL_CACERT_BADFILE:
    case CURLE_SSL_ISSUER_ERROR:
    case CURLE_SSL_CRL_BADFILE:
    case CURLE_SSL_PINNEDPUBKEYNOTMATCH:
    case CURLE_SSL_INVALIDCERTSTATUS:
    case CURLE_SSL_ENGINE_INITFAILED:
    case CURLE_SSL_ENGINE_NOTFOUND:
    case CURLE_SSL_ENGINE_SETFAILED:
        cat = ErrorCategory::Tls;
        break;
    default:
        break;
    }
    std::string msg = curl_easy_strerror(code);
    if (detail && *detail)
        msg += ": " + std::string(detail);
    return Error::make(cat, msg);
}

struct ServerUrl {
    std::string scheme, host, port, prefix;
    std::string authority; // host[:port] as written: the Host header (Go's URL.Host)
    static ServerUrl parse(const std::string &url)
    {
        ServerUrl u;
        std::string rest = url;
        if (auto p = rest.find("://"); p != std::string::npos) {
            u.scheme = rest.substr(0, p);
            rest = rest.substr(p + 3);
        } else {
            u.scheme = "https";
        }
        const auto slash = rest.find('/');
        std::string hostport = rest.substr(0, slash);
        u.authority = hostport;
        u.prefix = slash == std::string::npos ? std::string() : rest.substr(slash);
        while (!u.prefix.empty() && u.prefix.back() == '/')
            u.prefix.pop_back();
        const auto colon = hostport.rfind(':');
        if (colon != std::string::npos && hostport.find(']', colon) == std::string::npos) {
            u.host = hostport.substr(0, colon);
            u.port = hostport.substr(colon + 1);
        } else {
            u.host = hostport;
            u.port = u.scheme == "http" ? "80" : "443";
        }
        return u;
    }
};

} // namespace

std::string decodeWarningHeader(std::string_view value)
{
    // 299 - "text" [date]; the text is a quoted-string with backslash escapes.
    const auto q = value.find('"');
    if (q == std::string_view::npos)
        return trim(value);
    std::string out;
    for (std::size_t i = q + 1; i < value.size(); ++i) {
        if (value[i] == '\\' && i + 1 < value.size()) {
            out += value[++i];
        } else if (value[i] == '"') {
            break;
        } else {
            out += value[i];
        }
    }
    return out;
}

struct Transport::Pending {
    RequestId id = 0;
    HttpRequest request;
    DoneFn onDone;
    ChunkFn onChunk;
    int retries = 0;
    bool authRetried = false;
    Clock::time_point due = Clock::now();
};

// Credentials that arrive after startTransfer() asked for them (an exec plugin finished, a consent
// question was answered). Shared with the `later` callbacks, which may outlive the Transport:
// `open` (under `mutex`) says whether `multi` may still be woken.
struct Transport::CredentialInbox {
    std::mutex mutex;
    bool open = true;
    CURLM *multi = nullptr;
    std::vector<std::pair<RequestId, core::Result<Credential>>> arrived;
    void post(RequestId id, core::Result<Credential> c)
    {
        std::lock_guard lock(mutex);
        if (!open)
            return;
        arrived.emplace_back(id, std::move(c));
        curl_multi_wakeup(multi);
    }
};

struct Active {
    std::shared_ptr<Transport::Pending> pending;
    CURL *easy = nullptr;
    curl_slist *headers = nullptr;
    curl_slist *connectTo = nullptr; // must outlive the transfer
    HttpResponse response;
    bool streamingOk = false; // 2xx status on a streaming request: bytes go to onChunk
    bool abortedByConsumer = false;
    bool bodyTooLarge = false; // the decoded body passed request.maxBodyBytes
    bool overBudget = false;   // the transport's bodies together passed maxBufferedBodyBytes
    // The body as it arrives, in pieces (kBodyPieceBytes), joined once when the transfer ends.
    std::vector<std::string> pieces;
    std::size_t bodySize = 0;
    std::size_t *buffered = nullptr; // the transport's total of bodies held (network thread only)
    std::size_t budget = 0;
    Active() = default;
    Active(const Active &) = delete;
    Active &operator=(const Active &) = delete;
    ~Active() { releaseBody(); }
    void releaseBody()
    {
        if (buffered)
            *buffered -= bodySize;
        bodySize = 0;
        std::vector<std::string>().swap(pieces);
    }
    // One string of exactly the body plus kResponseBodyPadding: peak memory is the body plus
    // one piece, never the body twice. The bytes stay counted until the Active is gone (its
    // decoder has run by then).
    void joinBody()
    {
        if (pieces.empty())
            return;
        std::string body;
        body.reserve(bodySize + kResponseBodyPadding);
        for (auto &p : pieces) {
            body.append(p);
            std::string().swap(p);
        }
        pieces.clear();
        response.body = std::move(body);
    }
    bool callbackThrew = false; // an exception was caught at the libcurl callback boundary
    std::string callbackError;
    Clock::time_point lastByte = Clock::now(); // streaming stall detection
    char errorBuffer[CURL_ERROR_SIZE] = {};
};

struct Transport::Impl {
    std::size_t buffered = 0; // bytes of response bodies the active transfers hold; outlives them
    CURLM *multi = nullptr;
    std::map<CURL *, std::unique_ptr<Active>> active;
    std::deque<std::shared_ptr<Pending>> waiting;
    std::map<RequestId, std::shared_ptr<Pending>> awaitingCredential; // asked, not ready yet
    TokenBucket bucket, watchBucket;
    ServerUrl url;
};

Transport::Transport(TransportConfig config)
    : m_config(std::move(config)), m_impl(std::make_unique<Impl>())
{
    static CurlGlobal global;
    m_impl->multi = curl_multi_init();
    curl_multi_setopt(m_impl->multi, CURLMOPT_PIPELINING, CURLPIPE_MULTIPLEX);
    curl_multi_setopt(m_impl->multi, CURLMOPT_MAX_HOST_CONNECTIONS, 6L);
    m_impl->bucket.configure(m_config.qps, m_config.burst);
    m_impl->watchBucket.configure(m_config.watchQps, m_config.watchBurst);
    m_impl->url = ServerUrl::parse(m_config.server);
    m_credentialInbox = std::make_shared<CredentialInbox>();
    m_credentialInbox->multi = m_impl->multi;
    // The thread's last boundary (core/base/boundary.h): an exception that escapes the loop (out of
    // memory between two transfers) is logged and the loop resumes, so the other requests go on;
    // the one it was handling may get no answer.
    m_thread = std::thread([this] {
        while (!core::guarded("the network thread", [this] { run(); }) && !m_stop)
            std::this_thread::sleep_for(std::chrono::milliseconds(100));
    });
}

Transport::~Transport()
{
    m_stop = true;
    curl_multi_wakeup(m_impl->multi);
    m_thread.join();
    {
        std::lock_guard lock(m_credentialInbox->mutex); // late credentials no longer wake `multi`
        m_credentialInbox->open = false;
    }
    for (auto &[easy, a] : m_impl->active) {
        curl_multi_remove_handle(m_impl->multi, easy);
        curl_easy_cleanup(easy);
        curl_slist_free_all(a->headers);
        curl_slist_free_all(a->connectTo);
    }
    curl_multi_cleanup(m_impl->multi);
}

Transport::RequestId Transport::start(HttpRequest request, DoneFn onDone, ChunkFn onChunk)
{
    auto p = std::make_shared<Pending>();
    p->id = m_nextId++;
    p->request = std::move(request);
    p->onDone = std::move(onDone);
    p->onChunk = std::move(onChunk);
    {
        std::lock_guard lock(m_mutex);
        m_incoming.push_back(p);
    }
    curl_multi_wakeup(m_impl->multi);
    return p->id;
}

void Transport::cancel(RequestId id)
{
    {
        std::lock_guard lock(m_mutex);
        m_cancelled.push_back(id);
    }
    curl_multi_wakeup(m_impl->multi);
}

namespace {

size_t onHeaderImpl(char *data, size_t size, size_t n, void *userp)
{
    auto *a = static_cast<Active *>(userp);
    a->lastByte = Clock::now();
    const std::string_view line(data, size * n);
    if (line.rfind("HTTP/", 0) == 0) {
        // A new status line (after 100-continue or a redirect): start over.
        a->response.warnings.clear();
        a->response.retryAfterSeconds = -1;
        a->response.contentType.clear();
    } else if (iequalsPrefix(line, "content-type")) {
        a->response.contentType = trim(line.substr(13));
    } else if (iequalsPrefix(line, "etag")) {
        a->response.etag = trim(line.substr(5));
    } else if (iequalsPrefix(line, "retry-after")) {
        try {
            a->response.retryAfterSeconds = std::stoi(trim(line.substr(12)));
        } catch (...) {
            a->response.retryAfterSeconds = 1;
        }
    } else if (iequalsPrefix(line, "warning")) {
        auto text = decodeWarningHeader(line.substr(8));
        if (std::find(a->response.warnings.begin(), a->response.warnings.end(), text) == a->response.warnings.end())
            a->response.warnings.push_back(std::move(text));
    }
    return size * n;
}

size_t onWriteImpl(char *data, size_t size, size_t n, void *userp)
{
    auto *a = static_cast<Active *>(userp);
    a->lastByte = Clock::now();
    const std::string_view bytes(data, size * n);
    if (a->pending->request.streaming && a->pending->onChunk) {
        if (!a->streamingOk && a->response.status == 0) {
            long code = 0;
            curl_easy_getinfo(a->easy, CURLINFO_RESPONSE_CODE, &code);
            a->response.status = int(code);
            a->streamingOk = code >= 200 && code < 300;
        }
        if (a->streamingOk) {
            if (!a->pending->onChunk(a->response, bytes)) {
                a->abortedByConsumer = true;
                return 0;
            }
            return bytes.size();
        }
    }
    if (a->bodySize + bytes.size() > a->pending->request.maxBodyBytes) {
        // Past the limit (decoded bytes: a gzip bomb stops here too), checked before the bytes
        // are kept. Returning a short count makes libcurl fail the transfer with
        // CURLE_WRITE_ERROR; completeTransfer says why.
        a->bodyTooLarge = true;
        a->releaseBody();
        return 0;
    }
    if (a->buffered && *a->buffered + bytes.size() > a->budget) {
        a->overBudget = true;
        a->releaseBody();
        return 0;
    }
    if (a->pieces.empty() || a->pieces.back().size() + bytes.size() > kBodyPieceBytes) {
        a->pieces.emplace_back();
        // Small answers stay small; a large one fills whole pieces.
        a->pieces.back().reserve(a->pieces.size() == 1 ? std::max<std::size_t>(bytes.size(), 16384) : kBodyPieceBytes);
    }
    a->pieces.back().append(bytes);
    a->bodySize += bytes.size();
    if (a->buffered)
        *a->buffered += bytes.size();
    return bytes.size();
}

// An exception thrown through libcurl's C frames is std::terminate: these wrappers are the last
// boundary for the callbacks (bad_alloc on append, a consumer's decoder throwing).
template<size_t (*Impl)(char *, size_t, size_t, void *)>
size_t guardedCallback(char *data, size_t size, size_t n, void *userp)
{
    try {
        return Impl(data, size, n, userp);
    } catch (const std::exception &e) {
        auto *a = static_cast<Active *>(userp);
        a->callbackThrew = true;
        a->callbackError = e.what();
    } catch (...) {
        auto *a = static_cast<Active *>(userp);
        a->callbackThrew = true;
        a->callbackError = "unknown exception";
    }
    return 0; // a short count aborts the transfer
}

size_t onHeader(char *data, size_t size, size_t n, void *userp)
{
    return guardedCallback<onHeaderImpl>(data, size, n, userp);
}

size_t onWrite(char *data, size_t size, size_t n, void *userp)
{
    return guardedCallback<onWriteImpl>(data, size, n, userp);
}

} // namespace

void Transport::run()
{
    Impl &d = *m_impl;
    auto finish = [&](Pending &p, core::Result<HttpResponse> r) {
        if (!p.onDone)
            return;
        // Last boundary of the network thread: a consumer's decode that throws must not end the
        // process (an exception leaving this thread's function is std::terminate).
        try {
            p.onDone(std::move(r));
        } catch (const std::exception &e) {
            qCWarning(lcTransport, "a handler of %s %s threw: %s", p.request.method.c_str(), p.request.path.c_str(), e.what());
        } catch (...) {
            qCWarning(lcTransport, "a handler of %s %s threw", p.request.method.c_str(), p.request.path.c_str());
        }
    };

    // `ready`: a credential that arrived late for this request; otherwise it is asked for now, and
    // a request whose credential is not ready waits in awaitingCredential (never blocking here).
    auto startTransfer = [&](const std::shared_ptr<Pending> &p, std::optional<core::Result<Credential>> ready = std::nullopt) {
        if (!ready) {
            if (m_config.credential)
                ready = m_config.credential([inbox = m_credentialInbox, id = p->id](core::Result<Credential> c) { inbox->post(id, std::move(c)); });
            else
                ready = core::Result<Credential>(Credential{});
            if (!ready) {
                d.awaitingCredential.emplace(p->id, p);
                return;
            }
        }
        auto cred = std::move(*ready);
        if (!cred) {
            finish(*p, cred.error());
            return;
        }
        auto a = std::make_unique<Active>();
        a->buffered = &d.buffered;
        a->budget = m_config.maxBufferedBodyBytes;
        a->pending = p;
        CURL *e = curl_easy_init();
        a->easy = e;
        const HttpRequest &r = p->request;
        // tls-server-name (client-go: tls.Config.ServerName only) is the name sent in SNI and
        // checked against the certificate; the connection still goes to the server URL's host and
        // the Host header (HTTP/2 :authority) stays that host. libcurl has no option for SNI alone,
        // so the URL names tls-server-name (which libcurl uses for SNI and verification),
        // CURLOPT_CONNECT_TO sends the connection to the real host and port (also through a
        // proxy's CONNECT or SOCKS request), and a Host header restores the URL's authority.
        const bool sniOverride = !m_config.tlsServerName.empty() && m_config.tlsServerName != d.url.host && d.url.scheme == "https";
        const std::string host = sniOverride ? m_config.tlsServerName : d.url.host;
        const std::string url = d.url.scheme + "://" + host + ":" + d.url.port + d.url.prefix + r.path;
        curl_easy_setopt(e, CURLOPT_URL, url.c_str());
        if (sniOverride) {
            const std::string ct = host + ":" + d.url.port + ":" + d.url.host + ":" + d.url.port;
            a->connectTo = curl_slist_append(nullptr, ct.c_str());
            curl_easy_setopt(e, CURLOPT_CONNECT_TO, a->connectTo);
        }
        curl_easy_setopt(e, CURLOPT_CUSTOMREQUEST, r.method.c_str());
        if (r.method == "GET")
            curl_easy_setopt(e, CURLOPT_HTTPGET, 1L);
        if (!r.body.empty() || r.method == "POST" || r.method == "PUT" || r.method == "PATCH") {
            curl_easy_setopt(e, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(r.body.size()));
            curl_easy_setopt(e, CURLOPT_COPYPOSTFIELDS, r.body.c_str());
            curl_easy_setopt(e, CURLOPT_CUSTOMREQUEST, r.method.c_str());
        }
        curl_easy_setopt(e, CURLOPT_HTTP_VERSION, CURL_HTTP_VERSION_2TLS);
        curl_easy_setopt(e, CURLOPT_PIPEWAIT, 1L);
        curl_easy_setopt(e, CURLOPT_TCP_KEEPALIVE, 1L);
        curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
        curl_easy_setopt(e, CURLOPT_CONNECTTIMEOUT_MS, long(m_config.connectTimeoutMs));
        if (r.streaming) {
            // No whole-request limit on watches: the server's timeoutSeconds ends them, and a
            // stall (half-open connection) is caught by the idle check in the loop below. Not
            // CURLOPT_LOW_SPEED_*: libcurl averages speed over ~5 s, so one event before the
            // silence delayed detection by that much (2 s stall limit -> 8 s).
        } else {
            curl_easy_setopt(e, CURLOPT_TIMEOUT_MS, long(r.timeoutMs));
        }
        if (!m_config.disableCompression)
            curl_easy_setopt(e, CURLOPT_ACCEPT_ENCODING, "");
        curl_easy_setopt(e, CURLOPT_USERAGENT, m_config.userAgent.c_str());
        if (!m_config.proxyUrl.empty()) {
            // Go's SOCKS5 dialer sends the host name to the proxy, which resolves it (the cluster's
            // name may only exist behind the proxy): libcurl's socks5h, not socks5 (local DNS).
            const std::string proxy = m_config.proxyUrl.rfind("socks5://", 0) == 0 ? "socks5h://" + m_config.proxyUrl.substr(9) : m_config.proxyUrl;
            curl_easy_setopt(e, CURLOPT_PROXY, proxy.c_str());
        }
        if (m_config.insecureSkipTlsVerify) {
            curl_easy_setopt(e, CURLOPT_SSL_VERIFYPEER, 0L);
            curl_easy_setopt(e, CURLOPT_SSL_VERIFYHOST, 0L);
        } else if (!m_config.caPem.isEmpty()) {
            // Only the kubeconfig's CA is trusted, as in client-go (its RootCAs replace the system
            // pool). libcurl's OpenSSL backend ignores CAINFO when a CAINFO_BLOB is set, but still
            // loads the build's default CAPATH (/etc/ssl/certs on Debian) next to the blob: clear
            // both, or every public CA could vouch for the cluster.
            curl_blob ca{const_cast<char *>(m_config.caPem.constData()), size_t(m_config.caPem.size()), CURL_BLOB_COPY};
            curl_easy_setopt(e, CURLOPT_CAINFO_BLOB, &ca);
            curl_easy_setopt(e, CURLOPT_CAINFO, static_cast<char *>(nullptr));
            curl_easy_setopt(e, CURLOPT_CAPATH, static_cast<char *>(nullptr));
        }
        if (!cred->clientCertPem.isEmpty()) {
            curl_blob cert{const_cast<char *>(cred->clientCertPem.constData()), size_t(cred->clientCertPem.size()), CURL_BLOB_COPY};
            curl_blob key{const_cast<char *>(cred->clientKeyPem.constData()), size_t(cred->clientKeyPem.size()), CURL_BLOB_COPY};
            curl_easy_setopt(e, CURLOPT_SSLCERT_BLOB, &cert);
            curl_easy_setopt(e, CURLOPT_SSLCERTTYPE, "PEM");
            curl_easy_setopt(e, CURLOPT_SSLKEY_BLOB, &key);
            curl_easy_setopt(e, CURLOPT_SSLKEYTYPE, "PEM");
        }
        curl_slist *h = nullptr;
        h = curl_slist_append(h, ("Accept: " + r.accept).c_str());
        if (!r.contentType.empty())
            h = curl_slist_append(h, ("Content-Type: " + r.contentType).c_str());
        if (!cred->bearerToken.empty())
            h = curl_slist_append(h, ("Authorization: Bearer " + cred->bearerToken).c_str());
        if (!cred->basicUser.empty()) {
            curl_easy_setopt(e, CURLOPT_USERNAME, cred->basicUser.c_str());
            curl_easy_setopt(e, CURLOPT_PASSWORD, cred->basicPassword.c_str());
        }
        if (sniOverride)
            h = curl_slist_append(h, ("Host: " + d.url.authority).c_str());
        for (const auto &[k, v] : m_config.extraHeaders)
            h = curl_slist_append(h, (k + ": " + v).c_str());
        for (const auto &[k, v] : r.headers)
            h = curl_slist_append(h, (k + ": " + v).c_str());
        h = curl_slist_append(h, "Expect:");
        a->headers = h;
        curl_easy_setopt(e, CURLOPT_HTTPHEADER, h);
        curl_easy_setopt(e, CURLOPT_HEADERFUNCTION, onHeader);
        curl_easy_setopt(e, CURLOPT_HEADERDATA, a.get());
        curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, onWrite);
        curl_easy_setopt(e, CURLOPT_WRITEDATA, a.get());
        curl_easy_setopt(e, CURLOPT_ERRORBUFFER, a->errorBuffer);
        curl_easy_setopt(e, CURLOPT_PRIVATE, a.get());
        curl_multi_add_handle(d.multi, e);
        ++m_requestsStarted;
        d.active.emplace(e, std::move(a));
    };

    auto completeTransfer = [&](CURL *e, CURLcode code) {
        auto it = d.active.find(e);
        if (it == d.active.end())
            return;
        std::unique_ptr<Active> a = std::move(it->second);
        d.active.erase(it);
        curl_multi_remove_handle(d.multi, e);
        long code2 = 0, conns = 0, ver = 0;
        curl_easy_getinfo(e, CURLINFO_RESPONSE_CODE, &code2);
        curl_easy_getinfo(e, CURLINFO_NUM_CONNECTS, &conns);
        curl_easy_getinfo(e, CURLINFO_HTTP_VERSION, &ver);
        m_connectionsOpened += conns;
        a->response.status = int(code2);
        a->response.newConnections = conns;
        a->response.httpVersion = ver == CURL_HTTP_VERSION_2_0 ? 2 : 11;
        const std::string detail = a->errorBuffer;
        curl_easy_cleanup(e);
        curl_slist_free_all(a->headers);
        curl_slist_free_all(a->connectTo);
        Pending &p = *a->pending;
        if (a->abortedByConsumer) {
            // The consumer stopped the stream (e.g. a corrupt frame). It still needs the end: the
            // watcher resumes from onDone, and start() promises exactly one onDone per request.
            finish(p, Error::make(ErrorCategory::Cancelled, "stream stopped by its consumer"));
            return;
        }
        if (a->bodyTooLarge) {
            finish(p, Error::make(ErrorCategory::Parse, p.request.method + " " + p.request.path
                                                            + ": the response body is larger than the limit of "
                                                            + std::to_string(p.request.maxBodyBytes) + " bytes"));
            return;
        }
        if (a->overBudget) {
            finish(p, Error::make(ErrorCategory::Parse, p.request.method + " " + p.request.path
                                                            + ": the responses in flight together are larger than the limit of "
                                                            + std::to_string(m_config.maxBufferedBodyBytes) + " bytes"));
            return;
        }
        if (a->callbackThrew) {
            finish(p, Error::make(ErrorCategory::Parse, p.request.method + " " + p.request.path
                                                            + ": the response could not be read: " + a->callbackError));
            return;
        }
        try {
            a->joinBody();
        } catch (const std::bad_alloc &) {
            a->releaseBody();
            finish(p, Error::make(ErrorCategory::Parse, p.request.method + " " + p.request.path + ": no memory for the response body"));
            return;
        }
        if (code != CURLE_OK) {
            Error err = curlError(code, detail.c_str());
            const bool untrusted = detail.find("issuer") != std::string::npos || detail.find("self-signed") != std::string::npos ||
                                   detail.find("self signed") != std::string::npos;
            if (code == CURLE_PEER_FAILED_VERIFICATION && !m_config.caPem.isEmpty() && untrusted)
                err.message += " (the server's certificate is not signed by the kubeconfig's certificate-authority, the only CA trusted "
                               "for this cluster)";
            finish(p, std::move(err));
            return;
        }
        const int status = a->response.status;
        if (status == 401 && !p.authRetried && m_config.invalidateCredential && m_config.invalidateCredential()) {
            // Refresh the credential once and retry once (exec plugins, rotated tokens).
            p.authRetried = true;
            p.due = Clock::now();
            d.waiting.push_front(a->pending);
            return;
        }
        const bool retryable = status == 429 || (status >= 500 && p.request.method == "GET");
        if (retryable && a->response.retryAfterSeconds >= 0 && p.retries < m_config.maxRetries) {
            ++p.retries;
            const int wait = std::clamp(a->response.retryAfterSeconds, 1, 60);
            qCInfo(lcTransport, "HTTP %d with Retry-After %d s: retrying %s (attempt %d)", status, wait,
                   p.request.path.c_str(), p.retries);
            p.due = Clock::now() + std::chrono::seconds(wait);
            d.waiting.push_back(a->pending);
            return;
        }
        finish(p, std::move(a->response));
    };

    while (!m_stop) {
        std::vector<std::shared_ptr<Pending>> incoming;
        std::vector<RequestId> cancelled;
        {
            std::lock_guard lock(m_mutex);
            incoming.swap(m_incoming);
            cancelled.swap(m_cancelled);
        }
        for (auto &p : incoming)
            d.waiting.push_back(std::move(p));
        for (RequestId id : cancelled) {
            std::erase_if(d.waiting, [id](const auto &p) { return p->id == id; });
            d.awaitingCredential.erase(id);
            for (auto it = d.active.begin(); it != d.active.end(); ++it) {
                if (it->second->pending->id == id) {
                    curl_multi_remove_handle(d.multi, it->first);
                    curl_easy_cleanup(it->first);
                    curl_slist_free_all(it->second->headers);
                    curl_slist_free_all(it->second->connectTo);
                    d.active.erase(it);
                    break;
                }
            }
        }

        std::vector<std::pair<RequestId, core::Result<Credential>>> arrived;
        {
            std::lock_guard lock(m_credentialInbox->mutex);
            arrived.swap(m_credentialInbox->arrived);
        }
        for (auto &[id, c] : arrived) {
            auto it = d.awaitingCredential.find(id);
            if (it == d.awaitingCredential.end())
                continue; // cancelled meanwhile
            auto p = std::move(it->second);
            d.awaitingCredential.erase(it);
            startTransfer(p, std::move(c));
        }

        // Start what is due and allowed by the rate limiter, in order.
        auto now = Clock::now();
        Clock::duration nextWake = std::chrono::milliseconds(1000);
        for (auto it = d.waiting.begin(); it != d.waiting.end();) {
            auto &p = *it;
            if (p->due > now) {
                nextWake = std::min(nextWake, p->due - now);
                ++it;
                continue;
            }
            auto &bucket = p->request.isWatchStart ? d.watchBucket : d.bucket;
            const auto wait = bucket.take();
            if (wait.count() > 0) {
                if (wait > std::chrono::seconds(1))
                    qCInfo(lcTransport, "Waited for %.1fs due to client-side throttling, not priority and fairness",
                           std::chrono::duration<double>(wait).count());
                p->due = now + wait;
                nextWake = std::min(nextWake, wait);
                ++it;
                continue;
            }
            auto pending = p;
            it = d.waiting.erase(it);
            startTransfer(pending);
        }

        int running = 0;
        curl_multi_perform(d.multi, &running);
        int left = 0;
        while (CURLMsg *msg = curl_multi_info_read(d.multi, &left)) {
            if (msg->msg == CURLMSG_DONE)
                completeTransfer(msg->easy_handle, msg->data.result);
        }
        // Streams with no byte (not even a chunk header) for stallSeconds are half-open: end
        // them as a timeout so the owner resumes. The poll below wakes at least once a second.
        now = Clock::now();
        std::vector<CURL *> stalled;
        for (const auto &[easy, a] : d.active) {
            const int limit = a->pending->request.stallSeconds;
            if (a->pending->request.streaming && limit > 0 && now - a->lastByte > std::chrono::seconds(limit)) {
                std::snprintf(a->errorBuffer, sizeof a->errorBuffer, "no data for %d s (stalled stream)", limit);
                stalled.push_back(easy);
            }
        }
        for (CURL *easy : stalled)
            completeTransfer(easy, CURLE_OPERATION_TIMEDOUT);
        if (!d.waiting.empty() && nextWake <= Clock::duration::zero())
            continue;
        const int waitMs = int(std::clamp<long long>(std::chrono::duration_cast<std::chrono::milliseconds>(nextWake).count(), 1, 1000));
        curl_multi_poll(d.multi, nullptr, 0, waitMs, nullptr);
    }
}

} // namespace fieldscope::kube
