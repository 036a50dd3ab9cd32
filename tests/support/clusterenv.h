#pragma once
// Access to the real test cluster started by the ctest fixture (tests/cluster/CMakeLists.txt).
#include "kube/apiclient.h"
#include "kube/connection.h"

#include <QProcess>
#include <QSignalSpy>
#include <QTest>

#include <memory>
#include <optional>

namespace fieldscope::testing {

inline QString testKubeconfig()
{
    return qEnvironmentVariable("FIELDSCOPE_TEST_KUBECONFIG");
}
inline QString clusterDir()
{
    return qEnvironmentVariable("FIELDSCOPE_TEST_CLUSTER_DIR");
}
inline QString clusterScript()
{
    return qEnvironmentVariable("FIELDSCOPE_CLUSTER_SCRIPT");
}
// The release the fixture runs ("v1.37.2"), from scripts/kube-modules (tests/cluster/CMakeLists.txt).
inline QString testKubeVersion()
{
    return qEnvironmentVariable("FIELDSCOPE_TEST_KUBE_VERSION");
}
inline QString fieldscopeBinary()
{
    return QStringLiteral(FIELDSCOPE_BUILD_DIR "/app/fieldscope");
}

// Context names written by fieldscope-cluster --name fieldscope-test.
inline std::string ctxToken()
{
    return "fieldscope-test";
}
// What kubectl and fieldscope need to act as the cluster's admin (the token context).
inline QStringList adminArgs()
{
    return {QStringLiteral("--kubeconfig"), testKubeconfig(), QStringLiteral("--context"),
            QString::fromStdString(ctxToken())};
}
inline std::string ctxCert()
{
    return "fieldscope-test-cert";
}
inline std::string ctxExec()
{
    return "fieldscope-test-exec";
}
inline std::string ctxNobody()
{
    return "fieldscope-test-nobody";
}

inline kube::Connection connectTo(const std::string &context)
{
    kube::ConnectionOptions o;
    o.kubeconfigPath = testKubeconfig().toStdString();
    o.context = context;
    o.credentials.askConsent = kube::allowAllExecPlugins();
    auto c = kube::connect(o);
    if (!c)
        qFatal("cannot connect to the test cluster (%s): %s", context.c_str(), c.error().describe().c_str());
    return std::move(*c);
}

// Runs one request through an ApiClient and waits (tests only).
inline core::Result<kube::HttpResponse> call(kube::ApiClient &client, kube::HttpRequest req, int timeoutMs = 30000)
{
    std::optional<core::Result<kube::HttpResponse>> out;
    client.send(std::move(req), nullptr, [&](core::Result<kube::HttpResponse> r) { out = std::move(r); });
    if (!QTest::qWaitFor([&] { return out.has_value(); }, timeoutMs))
        return core::Error::make(core::ErrorCategory::Network,
                                 "test timed out waiting for " + std::to_string(timeoutMs) + " ms");
    return std::move(*out);
}

inline kube::HttpRequest request(std::string method, std::string path, std::string body = {},
                                 std::string contentType = "application/json")
{
    kube::HttpRequest r;
    r.method = std::move(method);
    r.path = std::move(path);
    r.body = std::move(body);
    if (!r.body.empty())
        r.contentType = std::move(contentType);
    return r;
}

// Runs scripts/fieldscope-cluster with ARGS (tests that need a private cluster: start DIR
// --name N, restart-apiserver DIR, stop DIR --purge); true when it succeeded.
inline bool runClusterScript(const QStringList &args)
{
    QProcess p;
    p.start(clusterScript(), args);
    return p.waitForFinished(240000) && p.exitStatus() == QProcess::NormalExit && p.exitCode() == 0;
}

// Runs the fieldscope binary; returns exit code, stdout, stderr.
struct ProcessResult {
    int exitCode = -1;
    QByteArray out, err;
};
inline ProcessResult runFieldscope(const QStringList &args, int timeoutMs = 60000)
{
    QProcess p;
    p.start(fieldscopeBinary(), args);
    ProcessResult r;
    if (!p.waitForFinished(timeoutMs)) {
        p.kill();
        p.waitForFinished();
    }
    r.exitCode = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
    r.out = p.readAllStandardOutput();
    r.err = p.readAllStandardError();
    return r;
}

} // namespace fieldscope::testing
