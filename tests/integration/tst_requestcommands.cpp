// "Copy as curl" / "Copy as kubectl": the texts run in bash against the real server and
// do the same write, and no secret is part of them. (No raw string literals: Qt 6.4's moc
// mis-reads them.)
#include "clusterenv.h"
#include "kube/requestcommands.h"
#include "kube/resource.h"
#include "kube/writes.h"

using namespace fieldscope;
using namespace fieldscope::testing;

class TestRequestCommands : public QObject
{
    Q_OBJECT
    kube::Connection m_conn;
    std::unique_ptr<kube::ApiClient> m_client;
    kube::ResourceInfo m_cm{"", "v1", "configmaps", "configmap", "ConfigMap", true};

    ProcessResult bash(const std::string &script)
    {
        QProcess p;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QString::fromLatin1(kube::kTokenVariable), QString::fromStdString(m_conn.config.auth.token));
        env.insert(QStringLiteral("KUBECONFIG"), testKubeconfig());
        env.insert(QStringLiteral("PATH"), QFileInfo(qEnvironmentVariable("FIELDSCOPE_KUBECTL")).absolutePath() + u':'
                                               + env.value(QStringLiteral("PATH")));
        p.setProcessEnvironment(env);
        p.start(QStringLiteral("bash"), {QStringLiteral("-euo"), QStringLiteral("pipefail"), QStringLiteral("-c"),
                                         QString::fromStdString(script)});
        ProcessResult r;
        if (!p.waitForFinished(60000))
            return r;
        r.exitCode = p.exitCode();
        r.out = p.readAllStandardOutput();
        r.err = p.readAllStandardError();
        return r;
    }

    std::string data(const std::string &name, const std::string &key)
    {
        auto r = call(*m_client, kube::getRequest(m_cm, "copy-as", name));
        return r.ok() ? (*core::parseJson(r->body))["data"].value(key, std::string()) : std::string();
    }

private Q_SLOTS:
    void initTestCase()
    {
        m_conn = connectTo(ctxToken());
        m_client = std::make_unique<kube::ApiClient>(m_conn.transport);
        auto ns = call(*m_client,
                       request("POST", "/api/v1/namespaces", std::string("{\"metadata\":{\"name\":\"copy-as\"}}")));
        QVERIFY(ns.ok() || ns.error().httpStatus == 409);
        (void)call(*m_client, request("DELETE", "/api/v1/namespaces/copy-as/configmaps/copied"));
        QVERIFY(!m_conn.config.auth.token.empty());
    }

    void curlTextDoesTheWriteAndHoldsNoToken()
    {
        kube::WriteOptions o;
        o.fieldManager = "copied-curl";
        const core::Json object = {{"apiVersion", "v1"},
                                   {"kind", "ConfigMap"},
                                   {"metadata", {{"name", "copied"}}},
                                   {"data", {{"k", "v'1 $HOME"}}}};
        const std::string text = kube::curlCommand(kube::applyRequest(m_cm, "copy-as", object, o), m_conn.config);
        QVERIFY2(text.find(m_conn.config.auth.token) == std::string::npos, "the token must not be in the text");
        QVERIFY(text.find("$KUBE_TOKEN") != std::string::npos);
        QVERIFY(text.find("--insecure") == std::string::npos);
        const ProcessResult r = bash(text);
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QCOMPARE(data("copied", "k"), std::string("v'1 $HOME")); // quoting kept the value exact
    }

    void kubectlTextDoesTheSameWrites()
    {
        kube::KubectlWrite w;
        w.resource = "configmaps";
        w.ns = "copy-as";
        w.name = "copied";
        w.fieldManager = "copied-kubectl";
        w.verb = kube::KubectlWrite::Verb::MergePatch;
        w.body = "{\"data\":{\"k\":\"merged\"}}";
        ProcessResult r = bash(kube::kubectlCommand(w, m_conn.config));
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QCOMPARE(data("copied", "k"), std::string("merged"));
        w.verb = kube::KubectlWrite::Verb::JsonPatch;
        w.body =
            "[{\"op\":\"test\",\"path\":\"/data/k\",\"value\":\"merged\"},{\"op\":\"replace\",\"path\":\"/data/k\",\"value\":\"patched\"}]";
        r = bash(kube::kubectlCommand(w, m_conn.config));
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QCOMPARE(data("copied", "k"), std::string("patched"));
        w.verb = kube::KubectlWrite::Verb::Apply;
        w.body =
            "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"copied\"},\"data\":{\"k\":\"applied\"}}";
        w.force = true;
        r = bash(kube::kubectlCommand(w, m_conn.config));
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QCOMPARE(data("copied", "k"), std::string("applied"));
    }
};

QTEST_GUILESS_MAIN(TestRequestCommands)
#include "tst_requestcommands.moc"
