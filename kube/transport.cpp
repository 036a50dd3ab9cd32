#include "kube/transport.h"

#include "core/base/boundary.h"
#include "kube/transferplan.h"

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

// Token bucket for client-side throttling, as client-go's flowcontrol.NewTokenBucketRateLimiter
// (staging/src/k8s.io/client-go/util/flowcontrol/throttle.go).
struct TokenBucket {
    double rate = 0, capacity = 0, tokens = 0;
    Clock::time_point last = Clock::now();
    void configure(double qps, int burst)
    {
        rate = qps;
        capacity = std::max(1, burst);
        tokens = capacity;
    }
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
    case CURLE_SSL_ENGINE_SETFAILED: cat = ErrorCategory::Tls; break;
    default: break;
    }
    std::string msg = curl_easy_strerror(code);
    if (detail && *detail)
        msg += ": " + std::string(detail);
    return Error::make(cat, msg);
}

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
    bool connectionRetried = false; // asked again after a connection closed under it (GOAWAY)
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
        // One piece with room for the padding and little to spare (an expected size that held)
        // is handed on as it is; a far smaller answer (an error instead of the page) is copied
        // out, so the reserve does not travel with it.
        if (pieces.size() == 1 && pieces[0].capacity() >= bodySize + kResponseBodyPadding
            && pieces[0].capacity() - bodySize <= std::max(kBodyPieceBytes, bodySize / 4)) {
            response.body = std::move(pieces[0]);
            pieces.clear();
            return;
        }
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

// The network thread's state and the steps of its loop (run()). Only the network thread touches
// it; the steps reach the owner's hand-off queues under t.m_mutex and the credential inbox under
// its own mutex.
struct Transport::Impl {
    explicit Impl(Transport &owner) : t(owner) {}
    Transport &t;
    std::size_t buffered = 0; // bytes of response bodies the active transfers hold; outlives them
    CURLM *multi = nullptr;
    std::map<CURL *, std::unique_ptr<Active>> active;
    std::deque<std::shared_ptr<Pending>> waiting;
    std::map<RequestId, std::shared_ptr<Pending>> awaitingCredential; // asked, not ready yet
    TokenBucket bucket, watchBucket, discoveryBucket;
    ServerUrl url;

    // The loop's steps, in the order run() calls them.
    void takeHandOffs();
    void dropRequest(RequestId id);
    void startArrivedCredentials();
    Clock::duration startDueRequests();
    void startTransfer(const std::shared_ptr<Pending> &p, std::optional<core::Result<Credential>> ready = std::nullopt);
    void completeFinishedTransfers();
    void endStalledStreams();
    // A transfer's end: its answer, its error or its retry.
    void completeTransfer(CURL *e, CURLcode code);
    std::optional<Error> failureOf(Active &a, CURLcode code, const std::string &detail) const;
    bool scheduleRetry(Active &a);
};

Transport::Transport(TransportConfig config) : m_config(std::move(config)), m_impl(std::make_unique<Impl>(*this))
{
    static CurlGlobal global;
    m_impl->multi = curl_multi_init();
    curl_multi_setopt(m_impl->multi, CURLMOPT_PIPELINING, CURLPIPE_MULTIPLEX);
    curl_multi_setopt(m_impl->multi, CURLMOPT_MAX_HOST_CONNECTIONS, 6L);
    m_impl->bucket.configure(m_config.qps, m_config.burst);
    m_impl->watchBucket.configure(m_config.watchQps, m_config.watchBurst);
    m_impl->discoveryBucket.configure(m_config.discoveryQps, m_config.discoveryBurst);
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
        // CURLE_WRITE_ERROR; Impl::failureOf() says why.
        a->bodyTooLarge = true;
        a->releaseBody();
        return 0;
    }
    if (a->buffered && *a->buffered + bytes.size() > a->budget) {
        a->overBudget = true;
        a->releaseBody();
        return 0;
    }
    // The first piece holds the expected body whole when the request said how large it would be.
    const std::size_t expected = std::min(a->pending->request.expectedBodyBytes, a->pending->request.maxBodyBytes);
    const std::size_t pieceBytes = a->pieces.size() == 1 ? std::max(kBodyPieceBytes, expected) : kBodyPieceBytes;
    if (a->pieces.empty() || a->pieces.back().size() + bytes.size() > pieceBytes) {
        a->pieces.emplace_back();
        // Small answers stay small; a large one fills whole pieces.
        a->pieces.back().reserve(a->pieces.size() > 1 ? kBodyPieceBytes
                                 : expected           ? expected + kResponseBodyPadding
                                                      : std::max<std::size_t>(bytes.size(), 16384));
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

namespace {

// Hands a request its one result. Last boundary of the network thread: a consumer's decode that
// throws must not end the process (an exception leaving this thread's function is std::terminate).
void finish(Transport::Pending &p, core::Result<HttpResponse> r)
{
    if (!p.onDone)
        return;
    try {
        p.onDone(std::move(r));
    } catch (const std::exception &e) {
        qCWarning(lcTransport, "a handler of %s %s threw: %s", p.request.method.c_str(), p.request.path.c_str(),
                  e.what());
    } catch (...) {
        qCWarning(lcTransport, "a handler of %s %s threw", p.request.method.c_str(), p.request.path.c_str());
    }
}

// URL, method, body, protocol, time limits, compression, user agent and proxy.
void setRequestOptions(CURL *e, Active &a, const HttpRequest &r, const TransferPlan &plan,
                       const TransportConfig &config)
{
    curl_easy_setopt(e, CURLOPT_URL, plan.url.c_str());
    if (!plan.connectTo.empty()) {
        a.connectTo = curl_slist_append(nullptr, plan.connectTo.c_str());
        curl_easy_setopt(e, CURLOPT_CONNECT_TO, a.connectTo);
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
    curl_easy_setopt(e, CURLOPT_CONNECTTIMEOUT_MS, long(config.connectTimeoutMs));
    if (r.streaming) {
        // No whole-request limit on watches: the server's timeoutSeconds ends them, and a
        // stall (half-open connection) is caught by endStalledStreams(). Not
        // CURLOPT_LOW_SPEED_*: libcurl averages speed over ~5 s, so one event before the
        // silence delayed detection by that much (2 s stall limit -> 8 s).
    } else {
        curl_easy_setopt(e, CURLOPT_TIMEOUT_MS, long(r.timeoutMs));
    }
    // Not for streams: kube-apiserver 1.37 gzips streaming lists when asked, and libcurl 7.88
    // (Debian 12) fails such streams multiplexed on one HTTP/2 connection with
    // CURLE_WRITE_ERROR inside its decoder (tst_modern_server, several streaming lists). Watch
    // events are small; paged LISTs, the large answers, stay compressed.
    if (!config.disableCompression && !r.streaming)
        curl_easy_setopt(e, CURLOPT_ACCEPT_ENCODING, "");
    curl_easy_setopt(e, CURLOPT_USERAGENT, config.userAgent.c_str());
    if (!plan.proxy.empty())
        curl_easy_setopt(e, CURLOPT_PROXY, plan.proxy.c_str());
}

// Which server certificates are trusted, and the client certificate if the credential has one.
void setTlsOptions(CURL *e, const TransportConfig &config, const Credential &cred)
{
    if (config.insecureSkipTlsVerify) {
        curl_easy_setopt(e, CURLOPT_SSL_VERIFYPEER, 0L);
        curl_easy_setopt(e, CURLOPT_SSL_VERIFYHOST, 0L);
    } else if (!config.caPem.isEmpty()) {
        // Only the kubeconfig's CA is trusted, as in client-go (its RootCAs replace the system
        // pool). libcurl's OpenSSL backend ignores CAINFO when a CAINFO_BLOB is set, but still
        // loads the build's default CAPATH (/etc/ssl/certs on Debian) next to the blob: clear
        // both, or every public CA could vouch for the cluster.
        curl_blob ca{const_cast<char *>(config.caPem.constData()), size_t(config.caPem.size()), CURL_BLOB_COPY};
        curl_easy_setopt(e, CURLOPT_CAINFO_BLOB, &ca);
        curl_easy_setopt(e, CURLOPT_CAINFO, static_cast<char *>(nullptr));
        curl_easy_setopt(e, CURLOPT_CAPATH, static_cast<char *>(nullptr));
    }
    if (!cred.clientCertPem.isEmpty()) {
        curl_blob cert{const_cast<char *>(cred.clientCertPem.constData()), size_t(cred.clientCertPem.size()),
                       CURL_BLOB_COPY};
        curl_blob key{const_cast<char *>(cred.clientKeyPem.constData()), size_t(cred.clientKeyPem.size()),
                      CURL_BLOB_COPY};
        curl_easy_setopt(e, CURLOPT_SSLCERT_BLOB, &cert);
        curl_easy_setopt(e, CURLOPT_SSLCERTTYPE, "PEM");
        curl_easy_setopt(e, CURLOPT_SSLKEY_BLOB, &key);
        curl_easy_setopt(e, CURLOPT_SSLKEYTYPE, "PEM");
    }
}

// The header lines, basic auth, and the callbacks that fill `a` as the answer arrives.
void setHeadersAndCallbacks(CURL *e, Active &a, const TransferPlan &plan, const Credential &cred)
{
    curl_slist *h = nullptr;
    for (const auto &line : plan.headers)
        h = curl_slist_append(h, line.c_str());
    if (!cred.basicUser.empty()) {
        curl_easy_setopt(e, CURLOPT_USERNAME, cred.basicUser.c_str());
        curl_easy_setopt(e, CURLOPT_PASSWORD, cred.basicPassword.c_str());
    }
    a.headers = h;
    curl_easy_setopt(e, CURLOPT_HTTPHEADER, h);
    curl_easy_setopt(e, CURLOPT_HEADERFUNCTION, onHeader);
    curl_easy_setopt(e, CURLOPT_HEADERDATA, &a);
    curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, onWrite);
    curl_easy_setopt(e, CURLOPT_WRITEDATA, &a);
    curl_easy_setopt(e, CURLOPT_ERRORBUFFER, a.errorBuffer);
    curl_easy_setopt(e, CURLOPT_PRIVATE, &a);
}

} // namespace

void Transport::run()
{
    Impl &d = *m_impl;
    while (!m_stop) {
        d.takeHandOffs();
        d.startArrivedCredentials();
        const Clock::duration nextWake = d.startDueRequests();
        int running = 0;
        curl_multi_perform(d.multi, &running);
        d.completeFinishedTransfers();
        d.endStalledStreams();
        if (!d.waiting.empty() && nextWake <= Clock::duration::zero())
            continue;
        const int waitMs = int(
            std::clamp<long long>(std::chrono::duration_cast<std::chrono::milliseconds>(nextWake).count(), 1, 1000));
        curl_multi_poll(d.multi, nullptr, 0, waitMs, nullptr);
    }
}

// New requests join the queue; cancelled ones leave it, wherever they are.
void Transport::Impl::takeHandOffs()
{
    std::vector<std::shared_ptr<Pending>> incoming;
    std::vector<RequestId> cancelled;
    {
        std::lock_guard lock(t.m_mutex);
        incoming.swap(t.m_incoming);
        cancelled.swap(t.m_cancelled);
    }
    for (auto &p : incoming)
        waiting.push_back(std::move(p));
    for (RequestId id : cancelled)
        dropRequest(id);
}

void Transport::Impl::dropRequest(RequestId id)
{
    std::erase_if(waiting, [id](const auto &p) { return p->id == id; });
    awaitingCredential.erase(id);
    for (auto it = active.begin(); it != active.end(); ++it) {
        if (it->second->pending->id == id) {
            curl_multi_remove_handle(multi, it->first);
            curl_easy_cleanup(it->first);
            curl_slist_free_all(it->second->headers);
            curl_slist_free_all(it->second->connectTo);
            active.erase(it);
            break;
        }
    }
}

void Transport::Impl::startArrivedCredentials()
{
    std::vector<std::pair<RequestId, core::Result<Credential>>> arrived;
    {
        std::lock_guard lock(t.m_credentialInbox->mutex);
        arrived.swap(t.m_credentialInbox->arrived);
    }
    for (auto &[id, c] : arrived) {
        auto it = awaitingCredential.find(id);
        if (it == awaitingCredential.end())
            continue; // cancelled meanwhile
        auto p = std::move(it->second);
        awaitingCredential.erase(it);
        startTransfer(p, std::move(c));
    }
}

// Starts what is due and allowed by the rate limiter, in order; returns how long the loop may
// sleep before the next waiting request is due (at most a second).
Clock::duration Transport::Impl::startDueRequests()
{
    const auto now = Clock::now();
    Clock::duration nextWake = std::chrono::milliseconds(1000);
    for (auto it = waiting.begin(); it != waiting.end();) {
        auto &p = *it;
        if (p->due > now) {
            nextWake = std::min(nextWake, p->due - now);
            ++it;
            continue;
        }
        auto &limiter = p->request.isWatchStart ? watchBucket : p->request.isDiscovery ? discoveryBucket : bucket;
        const auto wait = limiter.take();
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
        it = waiting.erase(it);
        startTransfer(pending);
    }
    return nextWake;
}

// `ready`: a credential that arrived late for this request; otherwise it is asked for now, and
// a request whose credential is not ready waits in awaitingCredential (never blocking here).
void Transport::Impl::startTransfer(const std::shared_ptr<Pending> &p, std::optional<core::Result<Credential>> ready)
{
    if (!ready) {
        if (t.m_config.credential)
            ready = t.m_config.credential([inbox = t.m_credentialInbox, id = p->id](core::Result<Credential> c) {
                inbox->post(id, std::move(c));
            });
        else
            ready = core::Result<Credential>(Credential{});
        if (!ready) {
            awaitingCredential.emplace(p->id, p);
            return;
        }
    }
    auto cred = std::move(*ready);
    if (!cred) {
        finish(*p, cred.error());
        return;
    }
    auto a = std::make_unique<Active>();
    a->buffered = &buffered;
    a->budget = t.m_config.maxBufferedBodyBytes;
    a->pending = p;
    CURL *e = curl_easy_init();
    a->easy = e;
    const TransferPlan plan = planTransfer(url, t.m_config, p->request, *cred);
    setRequestOptions(e, *a, p->request, plan, t.m_config);
    if (p->connectionRetried) { // a connection of its own, shared with nothing that may end it
        curl_easy_setopt(e, CURLOPT_FRESH_CONNECT, 1L);
        curl_easy_setopt(e, CURLOPT_FORBID_REUSE, 1L);
    }
    setTlsOptions(e, t.m_config, *cred);
    setHeadersAndCallbacks(e, *a, plan, *cred);
    curl_multi_add_handle(multi, e);
    ++t.m_requestsStarted;
    active.emplace(e, std::move(a));
}

void Transport::Impl::completeFinishedTransfers()
{
    int left = 0;
    while (CURLMsg *msg = curl_multi_info_read(multi, &left)) {
        if (msg->msg == CURLMSG_DONE)
            completeTransfer(msg->easy_handle, msg->data.result);
    }
}

// Streams with no byte (not even a chunk header) for stallSeconds are half-open: end them as a
// timeout so the owner resumes. The poll in run() wakes at least once a second.
void Transport::Impl::endStalledStreams()
{
    const auto now = Clock::now();
    std::vector<CURL *> stalled;
    for (const auto &[easy, a] : active) {
        const int limit = a->pending->request.stallSeconds;
        if (a->pending->request.streaming && limit > 0 && now - a->lastByte > std::chrono::seconds(limit)) {
            std::snprintf(a->errorBuffer, sizeof a->errorBuffer, "no data for %d s (stalled stream)", limit);
            stalled.push_back(easy);
        }
    }
    for (CURL *easy : stalled)
        completeTransfer(easy, CURLE_OPERATION_TIMEDOUT);
}

void Transport::Impl::completeTransfer(CURL *e, CURLcode code)
{
    auto it = active.find(e);
    if (it == active.end())
        return;
    std::unique_ptr<Active> a = std::move(it->second);
    active.erase(it);
    curl_multi_remove_handle(multi, e);
    long code2 = 0, conns = 0, ver = 0;
    curl_easy_getinfo(e, CURLINFO_RESPONSE_CODE, &code2);
    curl_easy_getinfo(e, CURLINFO_NUM_CONNECTS, &conns);
    curl_easy_getinfo(e, CURLINFO_HTTP_VERSION, &ver);
    t.m_connectionsOpened += conns;
    a->response.status = int(code2);
    a->response.newConnections = conns;
    a->response.httpVersion = ver == CURL_HTTP_VERSION_2_0 ? 2 : 11;
    const std::string detail = a->errorBuffer;
    curl_easy_cleanup(e);
    curl_slist_free_all(a->headers);
    curl_slist_free_all(a->connectTo);
    Pending &p = *a->pending;
    // kube-apiserver ends an unauthenticated client's HTTP/2 connection right after answering
    // (UnauthenticatedHTTP2DOSMitigation, on since 1.29), and libcurl 7.88 may then report a
    // framing or receive error for the streams on it: for one whose answer it had read (a 401),
    // and for one the server never took up (GOAWAY: not processed). The first is the server's
    // answer; the second is asked again, once and on a connection of its own, if it is a read.
    if (code == CURLE_HTTP2 || code == CURLE_HTTP2_STREAM || code == CURLE_RECV_ERROR || code == CURLE_SEND_ERROR) {
        if (a->response.status >= 400 && !p.request.streaming && code != CURLE_RECV_ERROR) {
            code = CURLE_OK;
        } else if (a->response.status == 0 && !p.request.streaming && !p.connectionRetried
                   && (p.request.method == "GET" || p.request.method == "HEAD")) {
            p.connectionRetried = true;
            qCInfo(lcTransport, "%s: the connection closed before an answer (%s): asking again", p.request.path.c_str(),
                   detail.c_str());
            p.due = Clock::now();
            waiting.push_front(a->pending);
            return;
        }
    }
    if (auto failure = failureOf(*a, code, detail)) {
        finish(p, std::move(*failure));
        return;
    }
    if (scheduleRetry(*a))
        return;
    finish(p, std::move(a->response));
}

// Why the transfer has no answer to hand over, or nullopt once its body is joined and whole.
std::optional<Error> Transport::Impl::failureOf(Active &a, CURLcode code, const std::string &detail) const
{
    const HttpRequest &r = a.pending->request;
    if (a.abortedByConsumer) {
        // The consumer stopped the stream (e.g. a corrupt frame). It still needs the end: the
        // watcher resumes from onDone, and start() promises exactly one onDone per request.
        return Error::make(ErrorCategory::Cancelled, "stream stopped by its consumer");
    }
    if (a.bodyTooLarge)
        return Error::make(ErrorCategory::Parse, r.method + " " + r.path
                                                     + ": the response body is larger than the limit of "
                                                     + std::to_string(r.maxBodyBytes) + " bytes");
    if (a.overBudget)
        return Error::make(ErrorCategory::Parse,
                           r.method + " " + r.path + ": the responses in flight together are larger than the limit of "
                               + std::to_string(t.m_config.maxBufferedBodyBytes) + " bytes");
    if (a.callbackThrew)
        return Error::make(ErrorCategory::Parse,
                           r.method + " " + r.path + ": the response could not be read: " + a.callbackError);
    try {
        a.joinBody();
    } catch (const std::bad_alloc &) {
        a.releaseBody();
        return Error::make(ErrorCategory::Parse, r.method + " " + r.path + ": no memory for the response body");
    }
    if (code != CURLE_OK) {
        Error err = curlError(code, detail.c_str());
        const bool untrusted = detail.find("issuer") != std::string::npos
                            || detail.find("self-signed") != std::string::npos
                            || detail.find("self signed") != std::string::npos;
        if (code == CURLE_PEER_FAILED_VERIFICATION && !t.m_config.caPem.isEmpty() && untrusted)
            err.message +=
                " (the server's certificate is not signed by the kubeconfig's certificate-authority, the only CA trusted "
                "for this cluster)";
        return err;
    }
    return std::nullopt;
}

// Puts the request back in the queue when one more try can help; returns whether it did.
bool Transport::Impl::scheduleRetry(Active &a)
{
    Pending &p = *a.pending;
    const int status = a.response.status;
    if (status == 401 && !p.authRetried && t.m_config.invalidateCredential && t.m_config.invalidateCredential()) {
        // Refresh the credential once and retry once (exec plugins, rotated tokens).
        p.authRetried = true;
        p.due = Clock::now();
        waiting.push_front(a.pending);
        return true;
    }
    // client-go's rule (staging/src/k8s.io/client-go/rest/with_retry.go): 429, or 5xx on a
    // read, and only with a Retry-After header.
    const bool retryable = status == 429 || (status >= 500 && p.request.method == "GET");
    if (retryable && a.response.retryAfterSeconds >= 0 && p.retries < t.m_config.maxRetries) {
        ++p.retries;
        const int wait = std::clamp(a.response.retryAfterSeconds, 1, 60);
        qCInfo(lcTransport, "HTTP %d with Retry-After %d s: retrying %s (attempt %d)", status, wait,
               p.request.path.c_str(), p.retries);
        p.due = Clock::now() + std::chrono::seconds(wait);
        waiting.push_back(a.pending);
        return true;
    }
    return false;
}

} // namespace fieldscope::kube
