// What a server's answers can make the transport hold: each body within its request's limit,
// all bodies in flight together within the transport's budget, and a complete body handed on in
// one exact-size string with room for the decoder's padding (no copy of a page at the limit).
#include "kube/apiclient.h"
#include "kube/http.h"
#include "transcriptserver.h"

#include <QTest>

#include <optional>

using namespace fieldscope;
using namespace fieldscope::testing;

namespace {

std::shared_ptr<kube::Transport> transportFor(const TranscriptServer &server,
                                              std::size_t budget = kube::kMaxBufferedBodyBytes)
{
    kube::TransportConfig config;
    config.server = server.url();
    config.qps = 0;
    config.maxBufferedBodyBytes = budget;
    return std::make_shared<kube::Transport>(config);
}

// A JSON string of `bytes` bytes sent in two chunks, the second after `pauseMs`: two such
// answers are in flight at the same time.
TranscriptReply slowBody(std::size_t bytes, int pauseMs)
{
    const std::string body = "\"" + std::string(bytes - 2, 'a') + "\"";
    TranscriptReply r;
    r.headers = {{"Content-Type", "application/json"}};
    r.chunked = true;
    r.pieces = {{0, body.substr(0, bytes / 2)}, {pauseMs, body.substr(bytes / 2)}};
    return r;
}

} // namespace

class TestBodyBudget : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    // The transport counts the bytes of every body it holds (received, or with its decoder) and
    // gives them back when the request ends. Over HTTP/2 a LIST and the Table LIST of the same
    // huge answer arrive at once; over the test server's HTTP/1.1 they queue, so this checks the
    // accounting: within the budget again and again (nothing leaks), and past it an error.
    void bodiesStayWithinTheTransportsBudgetWhichIsGivenBack()
    {
        TranscriptServer server;
        server.on("/api/v1/configmaps").reply(slowBody(3000, 10)).repeatLast();
        server.on("/api/v1/secrets").reply(slowBody(6000, 10)).repeatLast();
        kube::ApiClient client(transportFor(server, 5000));
        auto get = [&client](const char *path) {
            std::optional<core::Result<kube::HttpResponse>> r;
            kube::HttpRequest req;
            req.path = path;
            req.maxBodyBytes = 10'000; // each within its own limit
            client.send(std::move(req), nullptr, [&r](core::Result<kube::HttpResponse> x) { r = std::move(x); });
            (void)QTest::qWaitFor([&] { return r.has_value(); }, 10'000);
            return r;
        };
        for (int i = 0; i < 3; ++i) { // 9,000 bytes in all: each request's bytes were given back
            auto r = get("/api/v1/configmaps");
            QVERIFY(r.has_value());
            QVERIFY2(r->ok(), r->ok() ? "" : r->error().describe().c_str());
            QCOMPARE((*r)->body.size(), std::size_t(3000));
        }
        auto over = get("/api/v1/secrets");
        QVERIFY(over.has_value());
        QVERIFY(!over->ok());
        QCOMPARE(over->error().category, core::ErrorCategory::Parse);
        QVERIFY2(over->error().message.find("in flight together") != std::string::npos, over->error().message.c_str());
        QVERIFY2(over->error().message.find("5000 bytes") != std::string::npos, over->error().message.c_str());
        auto after = get("/api/v1/configmaps");
        QVERIFY(after.has_value() && after->ok());
    }

    void bodyAtTheLimitIsOneExactStringWithTheDecodersPadding()
    {
        TranscriptServer server;
        // Several pieces of kBodyPieceBytes: joined once, at the end.
        const std::size_t size = 3 * kube::kBodyPieceBytes + 123;
        server.on("/api/v1/configmaps").reply(slowBody(size, 10));
        kube::ApiClient client(transportFor(server));
        std::optional<core::Result<kube::HttpResponse>> r;
        kube::HttpRequest req;
        req.path = "/api/v1/configmaps";
        req.maxBodyBytes = size;
        client.send(std::move(req), nullptr, [&r](core::Result<kube::HttpResponse> x) { r = std::move(x); });
        QTRY_VERIFY_WITH_TIMEOUT(r.has_value(), 10'000);
        QVERIFY2(r->ok(), r->ok() ? "" : r->error().describe().c_str());
        QCOMPARE((*r)->body.size(), size);
        QVERIFY((*r)->body.capacity() >= size + kube::kResponseBodyPadding); // the decoder reads it in place
        QVERIFY((*r)->body.capacity() < size + kube::kBodyPieceBytes / 2);   // not a doubled buffer
        QCOMPARE((*r)->body.front(), '"');
        QCOMPARE((*r)->body.back(), '"');
    }
};

QTEST_GUILESS_MAIN(TestBodyBudget)
#include "tst_bodybudget.moc"
