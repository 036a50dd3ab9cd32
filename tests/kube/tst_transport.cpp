// The libcurl transport against replayed answers of newer servers: APF 429 + Retry-After
// retries (k8s.io/client-go/rest/with_retry.go semantics), Warning headers, identity headers and
// the streaming contract the watcher relies on.
#include "kube/apiclient.h"
#include "kube/transport.h"
#include "transcriptserver.h"

#include <QTest>

#include <atomic>
#include <functional>
#include <mutex>
#include <optional>

using namespace fieldscope;
using namespace fieldscope::testing;

namespace {

std::shared_ptr<kube::Transport> transportFor(const TranscriptServer &server)
{
    kube::TransportConfig config;
    config.server = server.url();
    config.qps = 0; // no client-side throttling: timings below are the server's and the retry's
    return std::make_shared<kube::Transport>(config);
}

// Sends one request through an ApiClient and waits (event loop running) for its result.
std::optional<core::Result<kube::HttpResponse>> get(kube::ApiClient &client, kube::HttpRequest request,
                                                    int timeoutMs = 10'000)
{
    std::optional<core::Result<kube::HttpResponse>> result;
    client.send(std::move(request), nullptr, [&result](core::Result<kube::HttpResponse> r) { result = std::move(r); });
    (void)QTest::qWaitFor([&] { return result.has_value(); }, timeoutMs); // callers check has_value()
    return result;
}

kube::HttpRequest getRequest(std::string path)
{
    kube::HttpRequest r;
    r.path = std::move(path);
    return r;
}

} // namespace

class TestTransport : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void getAnswered429WithRetryAfterIsRetriedAfterThatDelay()
    {
        TranscriptServer server;
        server.on("/api/v1/namespaces")
            .exactPath()
            .replyFile(QStringLiteral("transport/apf-429.http"))
            .replyFile(QStringLiteral("transport/namespaces.http"));
        kube::ApiClient client(transportFor(server));
        auto r = get(client, getRequest("/api/v1/namespaces"));
        QVERIFY(r.has_value());
        QVERIFY2(r->ok(), r->ok() ? "" : r->error().describe().c_str());
        QCOMPARE((*r)->status, 200);
        QVERIFY((*r)->body.find("NamespaceList") != std::string::npos);
        const auto reqs = server.requests();
        QCOMPARE(int(reqs.size()), 2);
        QCOMPARE(reqs[1].target, reqs[0].target);
        // Retry-After: 1 means at least one second between the attempts (small clock slack).
        QVERIFY2(reqs[1].atMs - reqs[0].atMs >= 950, qPrintable(QString::number(reqs[1].atMs - reqs[0].atMs)));
    }

    void throttledWithoutRetryAfterIsNotRetried()
    {
        TranscriptServer server;
        server.on("/api/v1/namespaces/test/pods/web-1/eviction")
            .replyFile(QStringLiteral("transport/throttled-429-no-retry-after.http"))
            .replyFile(QStringLiteral("transport/namespaces.http")); // would wrongly succeed a retry
        kube::ApiClient client(transportFor(server));
        kube::HttpRequest req = getRequest("/api/v1/namespaces/test/pods/web-1/eviction");
        req.method = "POST";
        req.contentType = "application/json";
        req.body = R"({"apiVersion":"policy/v1","kind":"Eviction","metadata":{"name":"web-1","namespace":"test"}})";
        auto r = get(client, req);
        QVERIFY(r.has_value());
        QVERIFY(!r->ok());
        QCOMPARE(r->error().httpStatus, 429);
        QCOMPARE(r->error().category, core::ErrorCategory::Throttled);
        QCOMPARE(QString::fromStdString(r->error().reason), QStringLiteral("TooManyRequests"));
        // The failure was delivered, so the transport had already decided: one attempt only.
        QCOMPARE(int(server.requests().size()), 1);
        QCOMPARE(QString::fromStdString(server.requests()[0].body), QString::fromStdString(req.body));
    }

    void apfPlainTextRejectionKeepsTheServersWordsWhenRetriesRunOut()
    {
        TranscriptServer server;
        server.on("/api/v1/namespaces").replyFile(QStringLiteral("transport/apf-429.http")).repeatLast();
        auto config = kube::TransportConfig{};
        config.server = server.url();
        config.qps = 0;
        config.maxRetries = 1;
        kube::ApiClient client(std::make_shared<kube::Transport>(config));
        auto r = get(client, getRequest("/api/v1/namespaces"));
        QVERIFY(r.has_value());
        QVERIFY(!r->ok());
        QCOMPARE(r->error().category, core::ErrorCategory::Throttled);
        QCOMPARE(r->error().retryAfterSeconds, 1);
        QCOMPARE(QString::fromStdString(r->error().message),
                 QStringLiteral("Too many requests, please try again later."));
        QCOMPARE(int(server.requests().size()), 2);
    }

    void warningHeadersAreDecodedAndDeduplicated()
    {
        TranscriptServer server;
        server.on("/apis/policy/v1beta1/poddisruptionbudgets").replyFile(QStringLiteral("transport/warnings.http"));
        kube::ApiClient client(transportFor(server));
        auto r = get(client, getRequest("/apis/policy/v1beta1/poddisruptionbudgets"));
        QVERIFY(r.has_value() && r->ok());
        const auto &w = (*r)->warnings;
        QCOMPARE(int(w.size()), 3);
        QCOMPARE(
            QString::fromStdString(w[0]),
            QStringLiteral(
                "policy/v1beta1 PodDisruptionBudget is deprecated in v1.21+, unavailable in v1.25+; use policy/v1 PodDisruptionBudget"));
        QCOMPARE(QString::fromStdString(w[1]), QStringLiteral("unknown field \"spec.replica\""));
        QCOMPARE(QString::fromStdString(w[2]), QStringLiteral("metadata.annotations[\"a\\b\"]: deprecated"));
    }

    void requestsIdentifyAsFieldscopeWithItsVersion()
    {
        TranscriptServer server;
        server.on("/api/v1/namespaces").replyFile(QStringLiteral("transport/namespaces.http"));
        kube::ApiClient client(transportFor(server));
        auto r = get(client, getRequest("/api/v1/namespaces"));
        QVERIFY(r.has_value() && r->ok());
        const auto ua = server.requests().at(0).header("User-Agent");
        QVERIFY(ua.has_value());
        QCOMPARE(QString::fromStdString(*ua), QStringLiteral("fieldscope/" FIELDSCOPE_VERSION));
        QCOMPARE(QString::fromStdString(server.requests().at(0).header("Accept").value_or("")),
                 QStringLiteral("application/json"));
    }

    void streamingBytesArriveAcrossChunksAndTheEndIsReported()
    {
        TranscriptServer server;
        server.on("/api/v1/namespaces/test/configmaps")
            .query("watch", "1")
            .replyFile(QStringLiteral("watch/watch-bookmark-then-end.http"));
        auto transport = transportFor(server);
        kube::HttpRequest req = getRequest("/api/v1/namespaces/test/configmaps?watch=1&resourceVersion=4711");
        req.streaming = true;
        std::mutex mutex;
        std::string bytes;
        std::atomic<int> done{0};
        std::atomic<int> status{0};
        transport->start(
            req,
            [&](core::Result<kube::HttpResponse> r) {
                status = r.ok() ? r->status : -1;
                ++done;
            },
            [&](const kube::HttpResponse &, std::string_view chunk) {
                std::lock_guard lock(mutex);
                bytes.append(chunk);
                return true;
            });
        QTRY_COMPARE_WITH_TIMEOUT(done.load(), 1, 10'000);
        QCOMPARE(status.load(), 200);
        std::lock_guard lock(mutex);
        QVERIFY(bytes.find(R"("type":"MODIFIED")") != std::string::npos);
        QVERIFY(bytes.ends_with("\"resourceVersion\":\"4800\",\"creationTimestamp\":null}}}\n"));
    }

    // The transport's contract: onDone runs exactly once unless the request is cancelled. A
    // consumer that stops a stream (corrupt frame) must still hear that the stream ended.
    void consumerAbortedStreamStillReportsItsEndOnce()
    {
        TranscriptServer server;
        server.on("/api/v1/namespaces/test/configmaps")
            .query("watch", "1")
            .replyFile(QStringLiteral("watch/watch-stall.http")); // one event, then open forever
        auto transport = transportFor(server);
        kube::HttpRequest req = getRequest("/api/v1/namespaces/test/configmaps?watch=1&resourceVersion=4711");
        req.streaming = true;
        std::atomic<int> done{0};
        std::atomic<bool> cancelledCategory{false};
        transport->start(
            req,
            [&](core::Result<kube::HttpResponse> r) {
                cancelledCategory = !r.ok() && r.error().category == core::ErrorCategory::Cancelled;
                ++done;
            },
            [](const kube::HttpResponse &, std::string_view) { return false; });
        QTRY_COMPARE_WITH_TIMEOUT(done.load(), 1, 10'000);
        QVERIFY(cancelledCategory.load());
    }

    // A credential that is not ready (an exec plugin runs, its consent question is open) keeps
    // only its request waiting: the network thread goes on serving the others, and the waiting
    // request is sent with the credential once it arrives.
    void aRequestWhoseCredentialIsPendingWaitsWhileOthersGoOn()
    {
        TranscriptServer server;
        server.on("/api/v1/namespaces").exactPath().replyFile(QStringLiteral("transport/namespaces.http")).repeatLast();
        std::mutex m;
        std::optional<std::function<void(core::Result<kube::Credential>)>> pendingLater;
        std::atomic<int> asked{0};
        kube::TransportConfig config;
        config.server = server.url();
        config.qps = 0;
        config.credential = [&](std::function<void(core::Result<kube::Credential>)> later)
            -> std::optional<core::Result<kube::Credential>> {
            if (++asked == 1) { // the first request: its credential is still being made
                std::lock_guard lock(m);
                pendingLater = std::move(later);
                return std::nullopt;
            }
            kube::Credential c;
            c.bearerToken = "ready-token";
            return core::Result<kube::Credential>(c);
        };
        auto transport = std::make_shared<kube::Transport>(config);
        kube::ApiClient client(transport);
        std::optional<core::Result<kube::HttpResponse>> waiting;
        client.send(getRequest("/api/v1/namespaces?waiting"), nullptr,
                    [&](core::Result<kube::HttpResponse> r) { waiting = std::move(r); });
        QTRY_VERIFY(asked.load() == 1);
        auto other = get(client, getRequest("/api/v1/namespaces?other"));
        QVERIFY(other.has_value() && other->ok());
        QVERIFY(!waiting.has_value());
        QCOMPARE(int(server.requests().size()), 1); // only the other one reached the server

        kube::Credential late;
        late.bearerToken = "late-token";
        {
            std::lock_guard lock(m);
            (*pendingLater)(late); // from whichever thread the plugin or the answer finished on
        }
        QTRY_VERIFY(waiting.has_value());
        QVERIFY(waiting->ok());
        const auto reqs = server.requests();
        QCOMPARE(int(reqs.size()), 2);
        QCOMPARE(QString::fromStdString(*reqs[1].header("Authorization")), QStringLiteral("Bearer late-token"));
        QCOMPARE(QString::fromStdString(*reqs[0].header("Authorization")), QStringLiteral("Bearer ready-token"));
    }

    void aLateCredentialAfterTheTransportIsGoneIsDropped()
    {
        TranscriptServer server;
        std::function<void(core::Result<kube::Credential>)> keep;
        {
            kube::TransportConfig config;
            config.server = server.url();
            config.credential = [&](std::function<void(core::Result<kube::Credential>)> later)
                -> std::optional<core::Result<kube::Credential>> {
                keep = std::move(later);
                return std::nullopt;
            };
            kube::Transport t(config);
            t.start(getRequest("/api"),
                    [](const core::Result<kube::HttpResponse> &) { QFAIL("no callback after the transport is gone"); });
            QTRY_VERIFY(keep != nullptr);
        }
        keep(kube::Credential{}); // e.g. a consent answered after the tab closed: no crash, no request
        QVERIFY(server.requests().empty());
    }
};

QTEST_GUILESS_MAIN(TestTransport)
#include "tst_transport.moc"
