// `fieldscope apply` against the real API server: every mode, a conflict explained per
// field, the three resolutions (force, give up, co-own) checked in the resulting managedFields, a
// stale replace, dry run, a 422 with causes, a 403, and a multi-document file.
#include "clusterenv.h"
#include "core/base/json.h"
#include "core/ownership/ownershiptree.h"

#include <QTemporaryDir>

#include <algorithm>

using namespace fieldscope;
using namespace fieldscope::testing;

namespace {
const char *kNs = "apply-cli";
}

class TestApplyCli : public QObject
{
    Q_OBJECT
    QTemporaryDir m_dir;
    std::unique_ptr<kube::ApiClient> m_client;
    kube::Connection m_conn;

    QString file(const QString &name, const std::string &yaml)
    {
        QString path = m_dir.filePath(name);
        QFile f(path);
        if (!f.open(QIODevice::WriteOnly) || f.write(yaml.data(), qint64(yaml.size())) != qint64(yaml.size()))
            qFatal("cannot write %s", qPrintable(path));
        return path;
    }

    ProcessResult apply(const QStringList &args, const std::string &context = ctxToken())
    {
        return runFieldscope(QStringList{QStringLiteral("apply"), QStringLiteral("--kubeconfig"), testKubeconfig(),
                                         QStringLiteral("--context"), QString::fromStdString(context),
                                         QStringLiteral("-n"), QString::fromLatin1(kNs)}
                             + args);
    }

    static core::Json json(const ProcessResult &r)
    {
        auto j = core::parseJson(r.out.toStdString());
        if (!j)
            qFatal("not JSON: %s / %s", r.out.constData(), r.err.constData());
        return *j;
    }

    core::Json live(const std::string &name)
    {
        auto r = call(*m_client, request("GET", std::string("/api/v1/namespaces/") + kNs + "/configmaps/" + name));
        return r.ok() ? *core::parseJson(r->body) : core::Json();
    }

    QStringList owners(const std::string &name, const std::string &pointer)
    {
        auto tree = core::OwnershipTree::build(live(name));
        QStringList out;
        if (!tree)
            return out;
        if (auto id = tree->findByJsonPointer(pointer))
            for (const auto &o : tree->node(*id).owners)
                out << QString::fromStdString(tree->entries()[o.entry].manager);
        out.sort();
        return out;
    }

    static std::string cm(const std::string &name, const std::string &data)
    {
        return "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: " + name + "\ndata: " + data + "\n";
    }

private Q_SLOTS:
    void initTestCase()
    {
        m_conn = connectTo(ctxToken());
        m_client = std::make_unique<kube::ApiClient>(m_conn.transport);
        auto created = call(*m_client,
                            request("POST", "/api/v1/namespaces", std::string(R"({"metadata":{"name":"apply-cli"}})")));
        QVERIFY(created.ok() || created.error().httpStatus == 409);
        // A rerun on the same cluster starts from nothing too.
        for (const char *name : {"owned", "replaced", "patched", "first", "second"}) {
            auto gone = call(*m_client,
                             request("DELETE", std::string("/api/v1/namespaces/") + kNs + "/configmaps/" + name));
            QVERIFY(gone.ok() || gone.error().httpStatus == 404);
        }
    }

    void aConflictNamesEachFieldItsOwnerAndBothValuesAndExitsOne()
    {
        QCOMPARE(apply({QStringLiteral("-f"), file(QStringLiteral("a.yaml"), cm("owned", "{foo: \"1\", bar: x}")),
                        QStringLiteral("--manager"), QStringLiteral("alice")})
                     .exitCode,
                 0);
        const QString bob = file(QStringLiteral("b.yaml"), cm("owned", "{foo: \"2\"}"));
        const ProcessResult r = apply({QStringLiteral("-f"), bob, QStringLiteral("--manager"), QStringLiteral("bob"),
                                       QStringLiteral("-o"), QStringLiteral("json")});
        QCOMPARE(r.exitCode, 1);
        const core::Json j = json(r);
        QCOMPARE(j["result"].get<std::string>(), std::string("conflict"));
        QCOMPARE(j["conflicts"].size(), std::size_t(1));
        const core::Json &c = j["conflicts"][0];
        QCOMPARE(c["path"].get<std::string>(), std::string(".data.foo"));
        QCOMPARE(c["yourValue"].get<std::string>(), std::string("2"));
        QCOMPARE(c["liveValue"].get<std::string>(), std::string("1"));
        QCOMPARE(c["owners"][0]["manager"].get<std::string>(), std::string("alice"));
        QCOMPARE(c["owners"][0]["operation"].get<std::string>(), std::string("Apply"));
        QVERIFY(!c["owners"][0]["time"].get<std::string>().empty());
        QCOMPARE(j["request"]["contentType"].get<std::string>(), std::string("application/apply-patch+yaml"));
        QCOMPARE(QString::fromStdString(live("owned")["data"]["foo"].get<std::string>()),
                 QStringLiteral("1")); // nothing written
        // The text says the three ways out and the flag that takes the field.
        const ProcessResult text = apply({QStringLiteral("-f"), bob, QStringLiteral("--manager"),
                                          QStringLiteral("bob")});
        QVERIFY(text.out.contains(".data.foo: yours \"2\", live \"1\", owned by alice (Apply"));
        QVERIFY(text.out.contains("--force"));
        QVERIFY(text.out.contains("give it up"));
        QVERIFY(text.out.contains("co-own it"));
    }

    void forceTakesTheFieldAndTheManagedFieldsSaySo()
    {
        const QString bob = file(QStringLiteral("force.yaml"), cm("owned", "{foo: \"2\"}"));
        const ProcessResult dry = apply({QStringLiteral("-f"), bob, QStringLiteral("--manager"), QStringLiteral("bob"),
                                         QStringLiteral("--force"), QStringLiteral("--dry-run"), QStringLiteral("-o"),
                                         QStringLiteral("json")});
        QCOMPARE(dry.exitCode, 0);
        QCOMPARE(json(dry)["takenFields"][0]["path"].get<std::string>(), std::string(".data.foo"));
        QCOMPARE(json(dry)["takenFields"][0]["from"][0]["manager"].get<std::string>(), std::string("alice"));
        QCOMPARE(owners("owned", "/data/foo"), QStringList{QStringLiteral("alice")}); // a dry run stores nothing
        const ProcessResult r = apply({QStringLiteral("-f"), bob, QStringLiteral("--manager"), QStringLiteral("bob"),
                                       QStringLiteral("--force")});
        QCOMPARE(r.exitCode, 0);
        QCOMPARE(owners("owned", "/data/foo"), QStringList{QStringLiteral("bob")});
        QCOMPARE(owners("owned", "/data/bar"), QStringList{QStringLiteral("alice")});
    }

    void givingUpAndCoOwningBothSucceed()
    {
        // Give up: carol leaves foo out and applies a key of her own; foo keeps bob.
        QCOMPARE(apply({QStringLiteral("-f"), file(QStringLiteral("c1.yaml"), cm("owned", "{carol: \"yes\"}")),
                        QStringLiteral("--manager"), QStringLiteral("carol")})
                     .exitCode,
                 0);
        QCOMPARE(owners("owned", "/data/foo"), QStringList{QStringLiteral("bob")});
        // Co-own: carol sends foo with its live value.
        QCOMPARE(apply({QStringLiteral("-f"),
                        file(QStringLiteral("c2.yaml"), cm("owned", "{carol: \"yes\", foo: \"2\"}")),
                        QStringLiteral("--manager"), QStringLiteral("carol")})
                     .exitCode,
                 0);
        QCOMPARE(owners("owned", "/data/foo"), (QStringList{QStringLiteral("bob"), QStringLiteral("carol")}));
    }

    void anApplyThatDropsOwnedFieldsListsThem()
    {
        const ProcessResult r = apply({QStringLiteral("-f"), file(QStringLiteral("a2.yaml"), cm("owned", "{}")),
                                       QStringLiteral("--manager"), QStringLiteral("alice"), QStringLiteral("-o"),
                                       QStringLiteral("json")});
        QCOMPARE(r.exitCode, 0);
        QCOMPARE(json(r)["removedFields"][0].get<std::string>(), std::string(".data.bar"));
        QVERIFY(!live("owned")["data"].contains("bar"));
    }

    void replaceNeedsAResourceVersionAndRefusesAStaleOne()
    {
        QCOMPARE(apply({QStringLiteral("-f"), file(QStringLiteral("r0.yaml"), cm("replaced", "{v: \"1\"}"))}).exitCode,
                 0);
        const ProcessResult noRv = apply({QStringLiteral("-f"),
                                          file(QStringLiteral("r1.yaml"), cm("replaced", "{v: \"2\"}")),
                                          QStringLiteral("--mode"), QStringLiteral("replace")});
        QCOMPARE(noRv.exitCode, 2);
        QVERIFY(noRv.out.contains("replace needs metadata.resourceVersion"));
        core::Json read = live("replaced");
        read["data"]["v"] = "2";
        const QString saved = file(QStringLiteral("r2.json"), core::toJsonText(read));
        QCOMPARE(apply({QStringLiteral("-f"), saved, QStringLiteral("--mode"), QStringLiteral("replace")}).exitCode, 0);
        const ProcessResult stale = apply({QStringLiteral("-f"), saved, QStringLiteral("--mode"),
                                           QStringLiteral("replace"), QStringLiteral("-o"), QStringLiteral("json")});
        QCOMPARE(stale.exitCode, 1);
        QCOMPARE(json(stale)["result"].get<std::string>(), std::string("stale"));
    }

    void jsonPatchGuardsEveryChangeWithATestAndMergeHasNoPrecondition()
    {
        QCOMPARE(apply({QStringLiteral("-f"), file(QStringLiteral("p0.yaml"), cm("patched", "{a: \"1\", b: \"1\"}"))})
                     .exitCode,
                 0);
        const ProcessResult r = apply({QStringLiteral("-f"),
                                       file(QStringLiteral("p1.yaml"), cm("patched", "{a: \"2\", b: \"1\"}")),
                                       QStringLiteral("--mode"), QStringLiteral("jsonpatch"), QStringLiteral("-o"),
                                       QStringLiteral("json")});
        QCOMPARE(r.exitCode, 0);
        const core::Json patch = *core::parseJson(json(r)["request"]["body"].get<std::string>());
        QCOMPARE(patch.size(), std::size_t(2));
        QCOMPARE(patch[0]["op"].get<std::string>(), std::string("test"));
        QCOMPARE(patch[0]["value"].get<std::string>(), std::string("1"));
        QCOMPARE(patch[1]["op"].get<std::string>(), std::string("replace"));
        const ProcessResult m = apply({QStringLiteral("-f"),
                                       file(QStringLiteral("p2.yaml"), cm("patched", "{b: \"3\"}")),
                                       QStringLiteral("--mode"), QStringLiteral("merge"), QStringLiteral("-o"),
                                       QStringLiteral("json")});
        QCOMPARE(m.exitCode, 0);
        QCOMPARE(json(m)["request"]["contentType"].get<std::string>(), std::string("application/merge-patch+json"));
        QCOMPARE(live("patched")["data"]["a"].get<std::string>(), std::string("2"));
        QCOMPARE(live("patched")["data"]["b"].get<std::string>(), std::string("3"));
        const ProcessResult missing = apply({QStringLiteral("-f"),
                                             file(QStringLiteral("p3.yaml"), cm("nothere", "{b: \"3\"}")),
                                             QStringLiteral("--mode"), QStringLiteral("merge")});
        QCOMPARE(missing.exitCode, 1);
        QVERIFY(missing.out.contains("does not exist"));
    }

    void invalidAndForbiddenWritesAreReportedWithTheirCauses()
    {
        const ProcessResult bad = apply({QStringLiteral("-f"),
                                         file(QStringLiteral("bad.yaml"), cm("Not_Valid", "{a: \"1\"}")),
                                         QStringLiteral("-o"), QStringLiteral("json")});
        QCOMPARE(bad.exitCode, 1);
        QCOMPARE(json(bad)["result"].get<std::string>(), std::string("invalid"));
        const ProcessResult badText = apply({QStringLiteral("-f"),
                                             file(QStringLiteral("bad.yaml"), cm("Not_Valid", "{a: \"1\"}"))});
        QVERIFY2(badText.out.contains("metadata.name"), badText.out.constData());
        const ProcessResult denied = apply({QStringLiteral("-f"),
                                            file(QStringLiteral("n.yaml"), cm("owned", "{x: \"1\"}")),
                                            QStringLiteral("-o"), QStringLiteral("json")},
                                           ctxNobody());
        QCOMPARE(denied.exitCode, 1);
        QCOMPARE(json(denied)["result"].get<std::string>(), std::string("forbidden"));
    }

    void aMultiDocumentFileIsWrittenObjectByObject()
    {
        const QString both = file(QStringLiteral("both.yaml"),
                                  cm("first", "{n: \"1\"}") + "---\n" + cm("second", "{n: \"2\"}"));
        const ProcessResult r = apply({QStringLiteral("-f"), both, QStringLiteral("--manager"), QStringLiteral("multi"),
                                       QStringLiteral("-o"), QStringLiteral("json")});
        QCOMPARE(r.exitCode, 0);
        const core::Json j = json(r);
        QVERIFY(j.is_array());
        QCOMPARE(j.size(), std::size_t(2));
        QCOMPARE(j[1]["object"]["name"].get<std::string>(), std::string("second"));
        QCOMPARE(live("second")["data"]["n"].get<std::string>(), std::string("2"));
    }
};

QTEST_GUILESS_MAIN(TestApplyCli)
#include "tst_apply_cli.moc"
