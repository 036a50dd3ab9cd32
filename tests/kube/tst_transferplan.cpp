// What a request becomes before libcurl sees it (kube/transferplan.h): the URL, the connect-to
// entry that keeps tls-server-name to SNI, the proxy scheme and the header lines in order.
#include "kube/transferplan.h"

#include <QTest>

#include <algorithm>

using namespace fieldscope;

namespace {

kube::HttpRequest request(std::string path)
{
    kube::HttpRequest r;
    r.path = std::move(path);
    return r;
}

kube::TransferPlan plan(const std::string &server, const kube::TransportConfig &config, const kube::HttpRequest &r,
                        const kube::Credential &cred = {})
{
    return kube::planTransfer(kube::ServerUrl::parse(server), config, r, cred);
}

} // namespace

class TestTransferPlan : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void serverUrlSplitsSchemeHostPortAndPrefix_data()
    {
        QTest::addColumn<std::string>("url");
        QTest::addColumn<std::string>("scheme");
        QTest::addColumn<std::string>("host");
        QTest::addColumn<std::string>("port");
        QTest::addColumn<std::string>("prefix");
        QTest::addColumn<std::string>("authority");
        auto row = [](const char *name, const std::string &url, const std::string &scheme, const std::string &host,
                      const std::string &port, const std::string &prefix, const std::string &authority) {
            QTest::newRow(name) << url << scheme << host << port << prefix << authority;
        };
        row("https with port", "https://10.0.0.1:6443", "https", "10.0.0.1", "6443", "", "10.0.0.1:6443");
        row("https without port is 443", "https://api.example.com", "https", "api.example.com", "443", "",
            "api.example.com");
        row("http without port is 80", "http://localhost", "http", "localhost", "80", "", "localhost");
        row("no scheme is https", "api:8443", "https", "api", "8443", "", "api:8443");
        row("prefix loses trailing slashes", "https://rancher/k8s/clusters/c-1//", "https", "rancher", "443",
            "/k8s/clusters/c-1", "rancher");
        row("IPv6 without port", "https://[::1]", "https", "[::1]", "443", "", "[::1]");
        row("IPv6 with port", "https://[::1]:6443", "https", "[::1]", "6443", "", "[::1]:6443");
    }
    void serverUrlSplitsSchemeHostPortAndPrefix()
    {
        QFETCH(std::string, url);
        QFETCH(std::string, scheme);
        QFETCH(std::string, host);
        QFETCH(std::string, port);
        QFETCH(std::string, prefix);
        QFETCH(std::string, authority);
        const auto u = kube::ServerUrl::parse(url);
        QCOMPARE(u.scheme, scheme);
        QCOMPARE(u.host, host);
        QCOMPARE(u.port, port);
        QCOMPARE(u.prefix, prefix);
        QCOMPARE(u.authority, authority);
    }

    void urlJoinsServerPrefixAndPathWithAnExplicitPort()
    {
        const auto p = plan("https://rancher/k8s/clusters/c-1/", {}, request("/api/v1/pods?limit=500"));
        QCOMPARE(p.url, std::string("https://rancher:443/k8s/clusters/c-1/api/v1/pods?limit=500"));
        QVERIFY(p.connectTo.empty());
        QVERIFY(p.proxy.empty());
    }

    void tlsServerNameGoesInTheUrlAndTheConnectionToTheRealHost()
    {
        kube::TransportConfig config;
        config.tlsServerName = "api.internal";
        const auto p = plan("https://10.0.0.1:6443", config, request("/version"));
        QCOMPARE(p.url, std::string("https://api.internal:6443/version"));
        QCOMPARE(p.connectTo, std::string("api.internal:6443:10.0.0.1:6443"));
        // The Host header (HTTP/2 :authority) stays the server URL's, as in client-go.
        QVERIFY(std::find(p.headers.begin(), p.headers.end(), "Host: 10.0.0.1:6443") != p.headers.end());
    }

    void tlsServerNameEqualToTheHostOrOnHttpChangesNothing()
    {
        kube::TransportConfig same;
        same.tlsServerName = "api";
        const auto p = plan("https://api:6443", same, request("/version"));
        QCOMPARE(p.url, std::string("https://api:6443/version"));
        QVERIFY(p.connectTo.empty());
        kube::TransportConfig plain;
        plain.tlsServerName = "api.internal";
        const auto q = plan("http://10.0.0.1:8080", plain, request("/version"));
        QCOMPARE(q.url, std::string("http://10.0.0.1:8080/version"));
        QVERIFY(q.connectTo.empty());
        for (const auto &h : q.headers)
            QVERIFY2(h.rfind("Host:", 0) != 0, h.c_str());
    }

    void socks5ProxyResolvesNamesAtTheProxy()
    {
        kube::TransportConfig config;
        config.proxyUrl = "socks5://127.0.0.1:1080";
        QCOMPARE(plan("https://api:6443", config, request("/")).proxy, std::string("socks5h://127.0.0.1:1080"));
        config.proxyUrl = "http://proxy:3128";
        QCOMPARE(plan("https://api:6443", config, request("/")).proxy, std::string("http://proxy:3128"));
    }

    void headersComeInOrderAndEndByTurningOffExpect()
    {
        kube::TransportConfig config;
        config.tlsServerName = "api.internal";
        config.extraHeaders = {{"Impersonate-User", "jane"}};
        kube::HttpRequest r = request("/api/v1/namespaces/default/configmaps");
        r.method = "POST";
        r.accept = "application/json";
        r.contentType = "application/apply-patch+yaml";
        r.headers = {{"X-Test", "1"}};
        kube::Credential cred;
        cred.bearerToken = "t0ken";
        const auto p = plan("https://10.0.0.1:6443", config, r, cred);
        const std::vector<std::string> expected{"Accept: application/json",
                                                "Content-Type: application/apply-patch+yaml",
                                                "Authorization: Bearer t0ken",
                                                "Host: 10.0.0.1:6443",
                                                "Impersonate-User: jane",
                                                "X-Test: 1",
                                                "Expect:"};
        QCOMPARE(p.headers, expected);
    }

    void noTokenAndNoContentTypeSendNeitherHeader()
    {
        const auto p = plan("https://api:6443", {}, request("/version"));
        const std::vector<std::string> expected{"Accept: application/json", "Expect:"};
        QCOMPARE(p.headers, expected);
    }
};

QTEST_GUILESS_MAIN(TestTransferPlan)
#include "tst_transferplan.moc"
