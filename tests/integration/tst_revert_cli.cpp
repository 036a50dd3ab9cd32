// `fieldscope revert` against the real API server, with versions recorded by `fieldscope record`:
// a revert to an older version, a revert refused because a field it touches changed after the
// version the user looked at, a revert by server-side apply that takes the reverted fields (and
// one apply cannot make), undoing one change only, a dry run, and a Secret whose recorded values
// are hashes.
#include "clusterenv.h"
#include "core/base/json.h"
#include "core/base/jsonread.h"
#include "core/ownership/ownershiptree.h"

#include <QTemporaryDir>

using namespace fieldscope;
using namespace fieldscope::testing;

namespace {
const char *kNs = "revert-cli";

QString s(const char *text)
{
    return QString::fromUtf8(text);
}
} // namespace

class TestRevertCli : public QObject
{
    Q_OBJECT
    QTemporaryDir m_dir;
    QString m_db;
    QProcess m_recorder;
    QByteArray m_recorderErr;
    std::unique_ptr<kube::ApiClient> m_client;
    kube::Connection m_conn;

    static std::string objectPath(const char *resource, const std::string &name)
    {
        return std::string("/api/v1/namespaces/") + kNs + "/" + resource + "/" + name;
    }

    core::Json get(const std::string &name, const char *resource = "configmaps")
    {
        auto r = call(*m_client, request("GET", objectPath(resource, name)));
        return r.ok() ? *core::parseJson(r->body) : core::Json();
    }

    static std::string rvOf(const core::Json &object)
    {
        return core::stringAt(object, "/metadata/resourceVersion").value_or(std::string());
    }

    // A server-side apply of `data` as `manager`; returns the new resourceVersion.
    std::string applyAs(const std::string &manager, const std::string &name, const core::Json &data)
    {
        const core::Json body = {
            {"apiVersion", "v1"}, {"kind", "ConfigMap"}, {"metadata", {{"name", name}}}, {"data", data}};
        auto r = call(*m_client,
                      request("PATCH", objectPath("configmaps", name) + "?fieldManager=" + manager + "&force=true",
                              core::toJsonText(body), "application/apply-patch+yaml"));
        if (!r)
            qFatal("apply failed: %s", r.error().describe().c_str());
        return rvOf(*core::parseJson(r->body));
    }

    // A merge patch as `manager` (an Update: it takes the fields it changes without a conflict).
    std::string patchAs(const std::string &manager, const std::string &name, const core::Json &patch,
                        const char *resource = "configmaps")
    {
        auto r = call(*m_client, request("PATCH", objectPath(resource, name) + "?fieldManager=" + manager,
                                         core::toJsonText(patch), "application/merge-patch+json"));
        if (!r)
            qFatal("patch failed: %s", r.error().describe().c_str());
        return rvOf(*core::parseJson(r->body));
    }

    // Waits until the recorder has stored `rv` of the object (the history lists it).
    bool recorded(const QString &object, const std::string &rv)
    {
        return QTest::qWaitFor(
            [&] {
                const ProcessResult h = runFieldscope({s("history"), object, s("-n"), s(kNs), s("--db"), m_db, s("-o"),
                                                       s("json")});
                return h.exitCode == 0 && h.out.contains(QByteArray("\"resourceVersion\": \"") + rv.c_str() + '"');
            },
            30000);
    }

    ProcessResult revert(const QString &object, const QStringList &args)
    {
        return runFieldscope(QStringList{s("revert"), object, s("-n"), s(kNs), s("--db"), m_db} + args + adminArgs());
    }

    static core::Json json(const ProcessResult &r)
    {
        auto j = core::parseJson(r.out.toStdString());
        if (!j)
            qFatal("not JSON: %s / %s", r.out.constData(), r.err.constData());
        return *j;
    }

    QStringList owners(const std::string &name, const std::string &pointer)
    {
        auto tree = core::OwnershipTree::build(get(name));
        QStringList out;
        if (tree)
            if (auto id = tree->findByJsonPointer(pointer))
                for (const auto &o : tree->node(*id).owners)
                    out << QString::fromStdString(tree->entries()[o.entry].manager);
        out.sort();
        return out;
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        m_db = m_dir.filePath(s("history.db"));
        m_conn = connectTo(ctxToken());
        m_client = std::make_unique<kube::ApiClient>(m_conn.transport);
        auto created = call(*m_client, request("POST", "/api/v1/namespaces",
                                               std::string(R"({"metadata":{"name":"revert-cli"}})")));
        QVERIFY(created.ok() || created.error().httpStatus == 409);
        // A rerun on the same cluster starts from nothing too.
        for (const char *name : {"colors", "stale", "owned", "removal", "change", "dry"}) {
            auto gone = call(*m_client, request("DELETE", objectPath("configmaps", name)));
            QVERIFY(gone.ok() || gone.error().httpStatus == 404);
        }
        for (const char *name : {"pw", "tagged"}) {
            auto gone = call(*m_client, request("DELETE", objectPath("secrets", name)));
            QVERIFY(gone.ok() || gone.error().httpStatus == 404);
        }
        // One recorder for the whole test, as the window records while it is open.
        m_recorder.start(fieldscopeBinary(),
                         QStringList{s("record"), s("configmaps,secrets"), s("-n"), s(kNs), s("--db"), m_db}
                             + adminArgs());
        QVERIFY(QTest::qWaitFor(
            [&] {
                m_recorderErr += m_recorder.readAllStandardError();
                return m_recorderErr.count("from resourceVersion") == 2 || m_recorder.state() == QProcess::NotRunning;
            },
            60000));
        QVERIFY2(m_recorder.state() == QProcess::Running, m_recorderErr.constData());
    }

    void cleanupTestCase()
    {
        m_recorder.terminate(); // SIGTERM: the recorder flushes and exits 0
        QVERIFY(m_recorder.waitForFinished(30000));
    }

    void revertingToAnOlderVersionPutsItsValuesBackWithATestedJsonPatch()
    {
        const std::string rv1 = applyAs("alice", "colors", {{"color", "red"}, {"size", "big"}});
        const std::string rv2 = patchAs("bob", "colors", {{"data", {{"color", "blue"}, {"extra", "x"}}}});
        QVERIFY(recorded(s("configmaps/colors"), rv2));
        const ProcessResult r = revert(s("configmaps/colors"),
                                       {s("--to"), QString::fromStdString(rv1), s("-o"), s("json")});
        QVERIFY2(r.exitCode == 0, (r.out + r.err).constData());
        const core::Json j = json(r);
        QCOMPARE(j["result"].get<std::string>(), std::string("written"));
        QCOMPARE(j["changes"].size(), std::size_t(2));
        QVERIFY(core::jsonEqual(get("colors")["data"], core::Json({{"color", "red"}, {"size", "big"}})));
        QCOMPARE(j["resourceVersion"].get<std::string>(), rvOf(get("colors")));
        // Each live value is tested before it is replaced or removed.
        QCOMPARE(j["request"]["contentType"].get<std::string>(), std::string("application/json-patch+json"));
        const core::Json patch = *core::parseJson(j["request"]["body"].get<std::string>());
        const core::Json expected = *core::parseJson(R"([
            {"op":"test","path":"/data/color","value":"blue"},{"op":"replace","path":"/data/color","value":"red"},
            {"op":"test","path":"/data/extra","value":"x"},{"op":"remove","path":"/data/extra"}])");
        QVERIFY2(core::jsonEqual(patch, expected), core::toJsonText(patch).c_str());
        QVERIFY(core::toJsonText(j["skipped"]).find(".metadata.managedFields") != std::string::npos);
    }

    void aRevertIsRefusedWhenAFieldItTouchesChangedAfterTheVersionLookedAt()
    {
        const std::string rv1 = applyAs("alice", "stale", {{"color", "red"}});
        const std::string seen = patchAs("bob", "stale", {{"data", {{"color", "blue"}}}});
        const std::string later = patchAs("carol", "stale", {{"data", {{"color", "green"}}}});
        QVERIFY(recorded(s("configmaps/stale"), later));
        const ProcessResult r = revert(s("configmaps/stale"), {s("--to"), QString::fromStdString(rv1), s("--expect"),
                                                               QString::fromStdString(seen), s("-o"), s("json")});
        QVERIFY2(r.exitCode == 1, (r.out + r.err).constData());
        const core::Json j = json(r);
        QCOMPARE(j["result"].get<std::string>(), std::string("refused"));
        QVERIFY(j["request"].is_null());
        QCOMPARE(j["stale"].size(), std::size_t(1));
        const core::Json &f = j["stale"][0];
        QCOMPARE(f["path"].get<std::string>(), std::string(".data.color"));
        QCOMPARE(f["expected"].get<std::string>(), std::string("blue"));
        QCOMPARE(f["now"].get<std::string>(), std::string("green"));
        QCOMPARE(f["owners"][0]["manager"].get<std::string>(), std::string("carol"));
        QCOMPARE(f["changedIn"][0]["resourceVersion"].get<std::string>(), later);
        QCOMPARE(f["changedIn"][0]["managers"][0].get<std::string>(), std::string("carol"));
        QCOMPARE(rvOf(get("stale")), later); // nothing written
        const ProcessResult text = revert(s("configmaps/stale"), {s("--to"), QString::fromStdString(rv1), s("--expect"),
                                                                  QString::fromStdString(seen)});
        QVERIFY2(text.out.contains("refused: 1 field the revert touches changed since resourceVersion"),
                 text.out.constData());
        QVERIFY2(text.out.contains(".data.color: \"blue\" then, \"green\" now; owned by carol"), text.out.constData());
    }

    void aChangeToAFieldTheRevertDoesNotTouchDoesNotRefuseIt()
    {
        // Undo carol's change (color back to blue) as seen at her version; dave adds a key meanwhile.
        const core::Json before = get("stale");
        const std::string carol = rvOf(before);
        patchAs("dave", "stale", {{"data", {{"note", "hi"}}}});
        const ProcessResult r = revert(s("configmaps/stale"), {s("--to"), QString::fromStdString(carol), s("--change"),
                                                               s("--expect"), QString::fromStdString(carol)});
        QVERIFY2(r.exitCode == 0, (r.out + r.err).constData());
        QVERIFY(core::jsonEqual(get("stale")["data"], core::Json({{"color", "blue"}, {"note", "hi"}})));
    }

    void aRevertByApplyTakesOwnershipOfTheRevertedFields()
    {
        const std::string rv1 = applyAs("alice", "owned", {{"color", "red"}, {"size", "big"}});
        const std::string rv2 = patchAs("bob", "owned", {{"data", {{"color", "blue"}}}});
        QVERIFY(recorded(s("configmaps/owned"), rv2));
        QCOMPARE(owners("owned", "/data/color"), QStringList{s("bob")});
        // The preview names what the apply takes from whom before anything is sent.
        const ProcessResult dry = revert(s("configmaps/owned"), {s("--to"), QString::fromStdString(rv1), s("--mode"),
                                                                 s("apply"), s("--dry-run"), s("-o"), s("json")});
        QVERIFY2(dry.exitCode == 0, (dry.out + dry.err).constData());
        const core::Json preview = json(dry);
        QCOMPARE(preview["result"].get<std::string>(), std::string("dry-run"));
        QCOMPARE(preview["taken"][0]["path"].get<std::string>(), std::string(".data.color"));
        QCOMPARE(preview["taken"][0]["from"][0]["manager"].get<std::string>(), std::string("bob"));
        QCOMPARE(preview["request"]["contentType"].get<std::string>(), std::string("application/apply-patch+yaml"));
        QVERIFY(preview["request"]["path"].get<std::string>().find("force=true") != std::string::npos);
        QCOMPARE(rvOf(get("owned")), rv2);

        const ProcessResult r = revert(s("configmaps/owned"),
                                       {s("--to"), QString::fromStdString(rv1), s("--mode"), s("apply")});
        QVERIFY2(r.exitCode == 0, (r.out + r.err).constData());
        QCOMPARE(get("owned")["data"]["color"].get<std::string>(), std::string("red"));
        QCOMPARE(owners("owned", "/data/color"), QStringList{s("fieldscope")});
        QCOMPARE(owners("owned", "/data/size"), QStringList{s("alice")});
        QVERIFY2(r.out.contains("fieldscope takes .data.color from bob"), r.out.constData());
    }

    // Server-side apply removes only what its manager applied before; leaving a field out or
    // setting it to null keeps it (1.37 stores null as an empty value). So a revert that must
    // remove a field someone else added is refused in apply mode, and nothing is written.
    void aRevertByApplyThatMustRemoveAnotherManagersFieldIsRefused()
    {
        const std::string rv1 = applyAs("alice", "removal", {{"color", "red"}});
        const std::string rv2 = patchAs("bob", "removal", {{"data", {{"extra", "x"}}}});
        QVERIFY(recorded(s("configmaps/removal"), rv2));
        auto nulled = call(*m_client, request("PATCH",
                                              objectPath("configmaps", "removal")
                                                  + "?fieldManager=fieldscope&force=true&dryRun=All",
                                              std::string(R"({"apiVersion":"v1","kind":"ConfigMap",
                                                  "metadata":{"name":"removal"},"data":{"extra":null}})"),
                                              "application/apply-patch+yaml"));
        QVERIFY(nulled.ok());
        QVERIFY((*core::parseJson(nulled->body))["data"].contains("extra"));

        const ProcessResult r = revert(s("configmaps/removal"), {s("--to"), QString::fromStdString(rv1), s("--mode"),
                                                                 s("apply"), s("-o"), s("json")});
        QCOMPARE(r.exitCode, 1);
        const core::Json j = json(r);
        QCOMPARE(j["result"].get<std::string>(), std::string("refused"));
        QVERIFY2(core::jsonEqual(j["notRemovable"], core::Json::array({".data.extra"})),
                 core::toJsonText(j["notRemovable"]).c_str());
        QCOMPARE(rvOf(get("removal")), rv2);
        // The same revert as a JSON Patch removes it.
        QCOMPARE(revert(s("configmaps/removal"), {s("--to"), QString::fromStdString(rv1)}).exitCode, 0);
        QVERIFY(!get("removal")["data"].contains("extra"));
    }

    void undoingAChangeRevertsOnlyTheFieldsThatChangeTouched()
    {
        applyAs("alice", "change", {{"a", "1"}, {"b", "1"}});
        const std::string bob = patchAs("bob", "change", {{"data", {{"a", "2"}}}});
        const std::string carol = patchAs("carol", "change", {{"data", {{"b", "2"}}}});
        QVERIFY(recorded(s("configmaps/change"), carol));
        const ProcessResult r = revert(s("configmaps/change"), {s("--to"), QString::fromStdString(bob), s("--change")});
        QVERIFY2(r.exitCode == 0, (r.out + r.err).constData());
        QVERIFY(core::jsonEqual(get("change")["data"], core::Json({{"a", "1"}, {"b", "2"}})));
    }

    void aDryRunPrintsTheExactRequestAndWritesNothing()
    {
        const std::string rv1 = applyAs("alice", "dry", {{"v", "1"}});
        const std::string rv2 = patchAs("bob", "dry", {{"data", {{"v", "2"}}}});
        QVERIFY(recorded(s("configmaps/dry"), rv2));
        const ProcessResult r = revert(s("configmaps/dry"), {s("--to"), QString::fromStdString(rv1), s("--dry-run")});
        QVERIFY2(r.exitCode == 0, (r.out + r.err).constData());
        QVERIFY2(r.out.contains("PATCH /api/v1/namespaces/revert-cli/configmaps/dry?fieldManager=fieldscope"),
                 r.out.constData());
        QVERIFY(r.out.contains("Content-Type: application/json-patch+json"));
        QVERIFY(r.out.contains(
            R"([{"op":"test","path":"/data/v","value":"2"},{"op":"replace","path":"/data/v","value":"1"}])"));
        QCOMPARE(rvOf(get("dry")), rv2);
    }

    // Without the per-cluster opt-in the history keeps a Secret's values as hashes: they cannot go
    // back, and no value, live or recorded, is printed.
    void aSecretRecordedAsHashesIsRefusedWithoutPrintingAValue()
    {
        auto created = call(*m_client, request("POST", std::string("/api/v1/namespaces/") + kNs + "/secrets",
                                               std::string(R"({"apiVersion":"v1","kind":"Secret",
                                                   "metadata":{"name":"pw"},"stringData":{"password":"hunter2"}})")));
        QVERIFY(created.ok());
        const std::string rv1 = rvOf(*core::parseJson(created->body));
        const std::string rv2 = patchAs("bob", "pw", {{"stringData", {{"password", "swordfish"}}}}, "secrets");
        QVERIFY(recorded(s("secrets/pw"), rv2));
        for (const char *format : {"text", "json"}) {
            const ProcessResult r = revert(s("secrets/pw"), {s("--to"), QString::fromStdString(rv1), s("--dry-run"),
                                                             s("-o"), s(format)});
            QCOMPARE(r.exitCode, 1);
            QVERIFY2(r.out.contains("only as hashes"), r.out.constData());
            for (const char *value : {"hunter2", "swordfish", "aHVudGVyMg", "c3dvcmRmaXNo"})
                QVERIFY2(!r.out.contains(value) && !r.err.contains(value), value);
        }
        QCOMPARE(rvOf(get("pw", "secrets")), rv2);
    }

    // A revert of a Secret that needs none of its values (a label went back) goes through: the
    // hashes are never written, the values stay as they are, and none is printed.
    void aSecretRevertThatLeavesItsValuesAloneProceedsWithoutPrintingThem()
    {
        auto created = call(*m_client, request("POST", std::string("/api/v1/namespaces/") + kNs + "/secrets",
                                               std::string(R"({"apiVersion":"v1","kind":"Secret",
                                                   "metadata":{"name":"tagged","labels":{"tier":"gold"}},
                                                   "stringData":{"password":"hunter2"}})")));
        QVERIFY(created.ok());
        const std::string rv1 = rvOf(*core::parseJson(created->body));
        const std::string rv2 = patchAs("bob", "tagged", {{"metadata", {{"labels", {{"tier", "lead"}}}}}}, "secrets");
        QVERIFY(recorded(s("secrets/tagged"), rv2));
        const ProcessResult r = revert(s("secrets/tagged"),
                                       {s("--to"), QString::fromStdString(rv1), s("-o"), s("json")});
        QVERIFY2(r.exitCode == 0, (r.out + r.err).constData());
        for (const char *value : {"hunter2", "aHVudGVyMg"})
            QVERIFY2(!r.out.contains(value) && !r.err.contains(value), value);
        const core::Json live = get("tagged", "secrets");
        QCOMPARE(QString::fromStdString(live["metadata"]["labels"]["tier"].get<std::string>()), s("gold"));
        QCOMPARE(QString::fromStdString(live["data"]["password"].get<std::string>()), s("aHVudGVyMg=="));
    }

    void usageErrorsExitTwoAndNameTheProblem()
    {
        QCOMPARE(revert(s("configmaps/colors"), {}).exitCode, 2); // no --to
        QCOMPARE(revert(s("configmaps/colors"), {s("--to"), s("1"), s("--mode"), s("merge")}).exitCode, 2);
        QCOMPARE(revert(s("configmaps"), {s("--to"), s("1")}).exitCode, 2); // no NAME
        const ProcessResult unknown = revert(s("configmaps/colors"), {s("--to"), s("999999999")});
        QCOMPARE(unknown.exitCode, 2);
        QVERIFY2(unknown.err.contains("no version 999999999"), unknown.err.constData());
    }
};

QTEST_GUILESS_MAIN(TestRevertCli)
#include "tst_revert_cli.moc"
