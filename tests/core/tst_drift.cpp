// Drift of applied fields, from histories recorded on a real 1.37 server (tests/data/drift/README.md)
// imported into a store with their audit joins, whole, in part, with gaps, or not at all (the live
// object's managedFields alone); and the rules one write at a time on hand-made objects.
#include "core/drift/driftquery.h"
#include "core/history/historyexport.h"

#include <QFile>
#include <QTemporaryDir>
#include <QTest>

using namespace fieldscope::core;

namespace {

QString dataPath(const QString &name)
{
    return QStringLiteral(FIELDSCOPE_TEST_DATA "/drift/") + name;
}

Json readJsonFile(const QString &path)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        qFatal("cannot read %s", qPrintable(path));
    return parseJson(f.readAll().toStdString()).value();
}

// A recorded history: its version lines in order and each version's person.
struct Recording {
    std::vector<Json> versions;
    Json who;
    const Json &live() const { return versions.back()["object"]; }
};

Recording loadRecording(const QString &name)
{
    Recording r;
    QFile f(dataPath(name + QStringLiteral(".jsonl")));
    if (!f.open(QIODevice::ReadOnly))
        qFatal("cannot read %s", qPrintable(f.fileName()));
    for (const QByteArray &line : f.readAll().split('\n'))
        if (auto j = parseJson(line.toStdString()); j && j->value("type", "") == "version")
            r.versions.push_back(*j);
    r.who = readJsonFile(dataPath(name + QStringLiteral(".who.json")));
    return r;
}

long long rvNumber(const Json &version)
{
    return std::stoll(version["resourceVersion"].get<std::string>());
}

// Imports the versions with RVs from..to (0 = no bound) but those in `omit`, where a gap of
// the recorder stands; the first is LISTED when earlier ones were left out (recording began
// then). Each imported version gets its recorded person as an exact audit join.
void importPart(HistoryStore &store, const Recording &rec, const QString &dir, long long from, long long to,
                const QList<long long> &omit)
{
    std::string text = toJsonText(Json{{"format", "fieldscope-history"}, {"formatVersion", 1}}) + "\n";
    std::string lastRv;
    bool gap = false, first = true;
    std::vector<AuditJoin> joins;
    for (Json v : rec.versions) {
        const long long n = rvNumber(v);
        if ((from && n < from) || (to && n > to) || omit.contains(n)) {
            gap = !first;
            continue;
        }
        if (first && n != rvNumber(rec.versions.front()))
            v["eventType"] = "LISTED";
        if (gap)
            text += toJsonText(Json{{"type", "gap"},
                                    {"scope", v["scope"]},
                                    {"fromResourceVersion", lastRv},
                                    {"toResourceVersion", v["resourceVersion"]},
                                    {"reason", "recorder queue overflow"},
                                    {"observedAt", v["observedAt"]}})
                  + "\n";
        text += toJsonText(v) + "\n";
        lastRv = v["resourceVersion"].get<std::string>();
        gap = first = false;
        if (rec.who.contains(lastRv)) {
            AuditJoin j;
            j.uid = v["uid"].get<std::string>();
            j.resourceVersion = lastRv;
            j.match = AuditMatch::Exact;
            j.candidates.push_back(auditWhoFromJson(rec.who[lastRv], lastRv).value());
            joins.push_back(std::move(j));
        }
    }
    const QString file = dir + QStringLiteral("/part.jsonl");
    QFile f(file);
    QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
    f.write(QByteArray::fromStdString(text));
    f.close();
    QVERIFY(importJsonLines(file.toStdString(), store).ok());
    QVERIFY(store.writeAudit(joins, {}).ok());
}

DriftObjectRef refOf(const Json &object, const std::string &resource)
{
    return {resource, object["metadata"].value("namespace", ""), object["metadata"]["name"].get<std::string>(),
            object["metadata"]["uid"].get<std::string>()};
}

// One line per finding, for comparing with the expectation.
QString line(const DriftFinding &f)
{
    auto value = [](bool known, bool present, const Json &v) {
        return !known ? std::string("?") : present ? toJsonText(v) : std::string("absent");
    };
    std::string by = f.now.manager.empty() ? "?" : f.now.manager;
    by += std::string("/") + (f.now.operation ? operationName(*f.now.operation) : "?");
    if (!f.now.subresource.empty())
        by += "/" + f.now.subresource;
    return QString::fromStdString(f.appliedBy + " " + f.path.toString() + " " + driftSourceName(f.source)
                                  + " applied=" + value(f.appliedKnown, f.appliedPresent, f.appliedValue)
                                  + " now=" + value(true, f.now.present, f.now.value) + " by=" + by
                                  + " user=" + (f.now.user.empty() ? "-" : f.now.user)
                                  + " rv=" + (f.now.resourceVersion.empty() ? "-" : f.now.resourceVersion));
}

QStringList lines(const DriftReport &report)
{
    QStringList out;
    for (const auto &f : report.findings)
        out << line(f);
    return out;
}

Json entry(const std::string &manager, const std::string &op, const std::string &time, const char *fieldsV1,
           const std::string &subresource = {})
{
    Json e{{"manager", manager}, {"operation", op},          {"apiVersion", "v1"},
           {"time", time},       {"fieldsType", "FieldsV1"}, {"fieldsV1", parseJson(fieldsV1).value()}};
    if (!subresource.empty())
        e["subresource"] = subresource;
    return e;
}

Json object(const std::string &kind, const std::string &rv, Json body, Json managedFields)
{
    Json o{{"apiVersion", "v1"},
           {"kind", kind},
           {"metadata",
            {{"name", "x"},
             {"namespace", "team"},
             {"uid", "u1"},
             {"resourceVersion", rv},
             {"managedFields", std::move(managedFields)}}}};
    for (auto it = body.begin(); it != body.end(); ++it)
        o[it.key()] = it.value();
    return o;
}

const DriftObjectRef kRef{"configmaps", "team", "x", "u1"};

DriftVersion version(const std::string &rv, HistoryEventType type = HistoryEventType::Modified)
{
    return DriftVersion{rv, 1000, type, false, nullptr};
}

// `data.a` and `data.b` applied by gitops, then written by `writer` (an entry owning data.a
// instead); gitops keeps `gitopsAfter` (null: nothing, so the server drops its entry).
DriftReport appliedThenTakenBy(const Json &writer, Json body = Json{{"data", {{"a", "2"}, {"b", "1"}}}},
                               const char *gitopsAfter = R"({"f:data":{"f:b":{}}})")
{
    DriftTracker t;
    const Json applied = object("ConfigMap", "1", {{"data", {{"a", "1"}, {"b", "1"}}}},
                                Json::array({entry("gitops", "Apply", "2026-01-01T00:00:00Z",
                                                   R"({"f:data":{"f:a":{},"f:b":{}}})")}));
    t.addVersion(applied, version("1", HistoryEventType::Added));
    Json entries = Json::array();
    if (gitopsAfter)
        entries.push_back(entry("gitops", "Apply", "2026-01-01T00:00:00Z", gitopsAfter));
    entries.push_back(writer);
    const Json taken = object("ConfigMap", "2", std::move(body), std::move(entries));
    t.addVersion(taken, version("2"));
    return t.finish(taken, kRef).value();
}

} // namespace

class TestDrift : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void recordedHistoriesGiveTheDocumentedDrift_data()
    {
        QTest::addColumn<QString>("recording");
        QTest::addColumn<bool>("withStore");
        QTest::addColumn<long long>("from");
        QTest::addColumn<long long>("to");
        QTest::addColumn<QList<long long>>("omit");
        QTest::addColumn<QString>("manager");
        QTest::addColumn<QStringList>("expected");
        const QString deployment = QStringLiteral("deployment"), configmap = QStringLiteral("configmap");
        const QString replicas =
            QStringLiteral("kubectl .spec.replicas history applied=2 now=4 by=kubectl/Update/scale user=bob rv=490");
        const QString removed =
            QStringLiteral(R"(gitops .data.b history applied="2" now=absent by=kubectl-patch/? user=bob rv=515)");
        const QString setBack =
            QStringLiteral(R"(gitops .data.c history applied="3" now="3" by=kubectl-patch/Update user=alice rv=517)");
        const QString candidateC =
            QStringLiteral(R"(gitops .data.c managedFields applied=? now="3" by=kubectl-patch/Update user=- rv=-)");
        QTest::newRow("deployment: patched image and scaled replicas, with who; status and a new label are not drift")
            << deployment << true << 0LL << 0LL << QList<long long>{} << QString()
            << QStringList{replicas,
                           QStringLiteral(
                               R"(kubectl .spec.template.spec.containers[name="nginx"].image history )"
                               R"(applied="nginx:1.27" now="nginx:1.28" by=kubectl-patch/Update user=alice rv=480)")};
        QTest::newRow("deployment without history: what managedFields say, the label included")
            << deployment << false << 0LL << 0LL << QList<long long>{} << QString()
            << QStringList{
                   QStringLiteral(
                       R"(kubectl .metadata.labels.extra managedFields applied=? now="x" by=kubectl-label/Update user=- rv=-)"),
                   QStringLiteral(
                       "kubectl .spec.replicas managedFields applied=? now=4 by=kubectl/Update/scale user=- rv=-"),
                   QStringLiteral(
                       R"(kubectl .spec.template.spec.containers[name="nginx"].image managedFields applied=? )"
                       R"(now="nginx:1.28" by=kubectl-patch/Update user=- rv=-)")};
        QTest::newRow("deployment with a gap over the patch: the change is known, not its version or person")
            << deployment << true << 0LL << 0LL << QList<long long>{480, 483} << QString()
            << QStringList{
                   replicas,
                   QStringLiteral(R"(kubectl .spec.template.spec.containers[name="nginx"].image history )"
                                  R"(applied="nginx:1.27" now="nginx:1.28" by=kubectl-patch/Update user=- rv=-)")};
        QTest::newRow("configmap: a removal and a field set back to its applied value by someone else")
            << configmap << true << 0LL << 0LL << QList<long long>{} << QString() << QStringList{removed, setBack};
        QTest::newRow("configmap recorded from the forced apply on (listed): the same")
            << configmap << true << 513LL << 0LL << QList<long long>{} << QString() << QStringList{removed, setBack};
        QTest::newRow("configmap without history: the removal cannot be seen")
            << configmap << false << 0LL << 0LL << QList<long long>{} << QString() << QStringList{candidateC};
        QTest::newRow("configmap recorded up to the first patch: the unrecorded re-apply starts over")
            << configmap << true << 0LL << 512LL << QList<long long>{} << QString() << QStringList{candidateC};
        QTest::newRow("configmap, --manager helm: nothing of gitops")
            << configmap << true << 0LL << 0LL << QList<long long>{} << QStringLiteral("helm") << QStringList{};
    }

    void recordedHistoriesGiveTheDocumentedDrift()
    {
        QFETCH(QString, recording);
        QFETCH(bool, withStore);
        QFETCH(long long, from);
        QFETCH(long long, to);
        QFETCH(QList<long long>, omit);
        QFETCH(QString, manager);
        QFETCH(QStringList, expected);
        const Recording rec = loadRecording(recording);
        QTemporaryDir dir;
        auto store = HistoryStore::open(dir.filePath(QStringLiteral("h.db")).toStdString());
        QVERIFY(store.ok());
        if (withStore)
            importPart(**store, rec, dir.path(), from, to, omit);
        const std::string resource = recording == QLatin1String("deployment") ? "deployments.apps" : "configmaps";
        DriftOptions options;
        options.manager = manager.toStdString();
        auto report = analyseDrift(store->get(), rec.live(), refOf(rec.live(), resource), options);
        QVERIFY2(report.ok(), report.ok() ? "" : report.error().describe().c_str());
        QCOMPARE(lines(*report), expected);
        for (const auto &f : report->findings)
            QCOMPARE(f.object, refOf(rec.live(), resource));
    }

    // The controller manager writes the Deployment's status and its revision annotation through
    // the status subresource all along; none of it is drift, while a field taken by an ordinary
    // Update is.
    void controllerStatusWritesAreNeverDrift()
    {
        const Recording rec = loadRecording(QStringLiteral("deployment"));
        QTemporaryDir dir;
        auto store = HistoryStore::open(dir.filePath(QStringLiteral("h.db")).toStdString());
        QVERIFY(store.ok());
        importPart(**store, rec, dir.path(), 0, 0, {});
        for (HistoryStore *s : {store->get(), static_cast<HistoryStore *>(nullptr)}) {
            auto report = analyseDrift(s, rec.live(), refOf(rec.live(), "deployments.apps"));
            QVERIFY(report.ok());
            QVERIFY(!report->findings.empty());
            for (const auto &f : report->findings) {
                QVERIFY2(f.path.toString().rfind(".status", 0) != 0, qPrintable(line(f)));
                QVERIFY2(f.path.toString().find("revision") == std::string::npos, qPrintable(line(f)));
                QVERIFY2(f.now.subresource != "status", qPrintable(line(f)));
            }
        }
        const DriftReport byStatus = appliedThenTakenBy(entry("kube-controller-manager", "Update",
                                                              "2026-01-01T00:01:00Z", R"({"f:data":{"f:a":{}}})",
                                                              "status"));
        QVERIFY2(byStatus.findings.empty(), qPrintable(lines(byStatus).join(QLatin1Char('\n'))));
        const DriftReport byEdit = appliedThenTakenBy(entry("kubectl-edit", "Update", "2026-01-01T00:01:00Z",
                                                            R"({"f:data":{"f:a":{}}})"));
        QCOMPARE(lines(byEdit),
                 QStringList{QStringLiteral(
                     R"(gitops .data.a history applied="1" now="2" by=kubectl-edit/Update user=- rv=2)")});
    }

    // Another applier that forces every field away leaves no entry of the first one: still drift.
    void anApplierWhoseEveryFieldWasTakenStillReportsThem()
    {
        const DriftReport r = appliedThenTakenBy(entry("helm", "Apply", "2026-01-01T00:01:00Z",
                                                       R"({"f:data":{"f:a":{},"f:b":{}}})"),
                                                 Json{{"data", {{"a", "2"}, {"b", "1"}}}}, nullptr);
        QCOMPARE(lines(r),
                 (QStringList{
                     QStringLiteral(R"(gitops .data.a history applied="1" now="2" by=helm/Apply user=- rv=2)"),
                     QStringLiteral(R"(gitops .data.b history applied="1" now="1" by=helm/Apply user=- rv=2)")}));
        QCOMPARE(r.findings.front().appliedAt, std::string("2026-01-01T00:00:00Z"));
    }

    // A managedFields reset that leaves the applied value, owned by nobody, is no drift.
    void unchangedValuesOwnedByNobodyElseAreNotDrift()
    {
        DriftTracker t;
        const Json applied = object("ConfigMap", "1", {{"data", {{"a", "1"}}}},
                                    Json::array({entry("gitops", "Apply", "2026-01-01T00:00:00Z",
                                                       R"({"f:data":{"f:a":{}}})")}));
        t.addVersion(applied, version("1", HistoryEventType::Added));
        const Json reset = object("ConfigMap", "2", {{"data", {{"a", "1"}}}}, Json::array());
        t.addVersion(reset, version("2"));
        QVERIFY(t.finish(reset, kRef)->findings.empty());
    }

    // Without history: an Update written after the apply beside the applier's fields is listed; what
    // an untracked object held before its first apply (`before-first-apply`, stamped at that apply)
    // and what an Update wrote before the apply are not.
    void managedFieldsAloneListOnlyUpdatesAfterTheApply()
    {
        const Json live = object(
            "ConfigMap", "9", {{"data", {{"a", "1"}, {"old", "1"}, {"older", "1"}, {"late", "1"}}}},
            Json::array({entry("gitops", "Apply", "2026-01-01T00:01:00Z", R"({"f:data":{"f:a":{}}})"),
                         entry("before-first-apply", "Update", "2026-01-01T00:01:00Z", R"({"f:data":{"f:old":{}}})"),
                         entry("kubectl-create", "Update", "2026-01-01T00:00:00Z", R"({"f:data":{"f:older":{}}})"),
                         entry("kubectl-edit", "Update", "2026-01-01T00:02:00Z", R"({"f:data":{"f:late":{}}})")}));
        auto report = driftFromManagedFields(live, kRef);
        QVERIFY(report.ok());
        QCOMPARE(lines(*report),
                 QStringList{QStringLiteral(
                     R"(gitops .data.late managedFields applied=? now="1" by=kubectl-edit/Update user=- rv=-)")});
    }

    // A Secret's values: recorded as hashes, live as themselves; neither reaches a finding.
    void secretValuesNeverReachAFinding()
    {
        DriftTracker t;
        const Json applied = object("Secret", "1", {{"data", {{"token", "hidden:hmac-sha256:00"}}}},
                                    Json::array({entry("gitops", "Apply", "2026-01-01T00:00:00Z",
                                                       R"({"f:data":{"f:token":{}}})")}));
        t.addVersion(applied, version("1", HistoryEventType::Added));
        const Json live = object("Secret", "2", {{"data", {{"token", "c2VjcmV0LXZhbHVl"}}}},
                                 Json::array({entry("kubectl-edit", "Update", "2026-01-01T00:01:00Z",
                                                    R"({"f:data":{"f:token":{}}})")}));
        auto report = t.finish(live, kRef);
        QVERIFY(report.ok());
        QCOMPARE(lines(*report),
                 QStringList{QStringLiteral(R"j(gitops .data.token history applied="(hidden)" now="(hidden)" )j"
                                            R"j(by=kubectl-edit/Update user=- rv=-)j")});
        const std::string printed = toJsonText(driftJson(report->findings)) + driftText(report->findings);
        QVERIFY(printed.find("c2VjcmV0") == std::string::npos);
        QVERIFY(printed.find("hmac") == std::string::npos);
    }

    // Rows and objects someone else chose: a version that cannot be read costs that version (the
    // next is judged as after a gap), a live object that cannot be read is a Parse error.
    void unreadableInputIsAnErrorOrANoteNeverACrash()
    {
        DriftTracker t;
        const Json applied = object("ConfigMap", "1", {{"data", {{"a", "1"}}}},
                                    Json::array({entry("gitops", "Apply", "2026-01-01T00:00:00Z",
                                                       R"({"f:data":{"f:a":{}}})")}));
        t.addVersion(applied, version("1", HistoryEventType::Added));
        Json broken = applied;
        broken["metadata"]["managedFields"] = "not a list";
        t.addVersion(broken, version("2"));
        t.addVersion(Json::array({1, 2}), version("3"));
        const Json taken = object("ConfigMap", "4", {{"data", {{"a", "2"}}}},
                                  Json::array({entry("kubectl-edit", "Update", "2026-01-01T00:01:00Z",
                                                     R"({"f:data":{"f:a":{}}})")}));
        t.addVersion(taken, version("4"));
        auto report = t.finish(taken, kRef);
        QVERIFY(report.ok());
        QCOMPARE(report->notes.size(), std::size_t(2));
        QVERIFY(report->notes.front().find("version 2") != std::string::npos);
        QCOMPARE(lines(*report),
                 QStringList{QStringLiteral(
                     R"(gitops .data.a history applied="1" now="2" by=kubectl-edit/Update user=- rv=-)")});

        const Json badFields = object("ConfigMap", "1", Json(),
                                      Json::array({entry("a", "Apply", "t", R"({"f:data":7})")}));
        for (const Json &live : {Json::array(), Json("x"), broken, badFields}) {
            auto r = driftFromManagedFields(live, kRef);
            QVERIFY(!r.ok());
            QCOMPARE(r.error().category, ErrorCategory::Parse);
        }
    }

    void jsonHasExactlyTheDocumentedFields()
    {
        const DriftReport r = appliedThenTakenBy(entry("kubectl-edit", "Update", "2026-01-01T00:01:00Z",
                                                       R"({"f:data":{"f:a":{}}})"));
        const Json j = driftJson(r.findings);
        QCOMPARE(j.size(), std::size_t(1));
        auto keys = [](const Json &o) {
            QStringList out;
            for (auto it = o.begin(); it != o.end(); ++it)
                out << QString::fromStdString(it.key());
            out.sort();
            return out;
        };
        QCOMPARE(keys(j[0]), (QStringList{QStringLiteral("appliedAt"), QStringLiteral("appliedBy"),
                                          QStringLiteral("appliedValue"), QStringLiteral("now"),
                                          QStringLiteral("object"), QStringLiteral("path"), QStringLiteral("source")}));
        QCOMPARE(keys(j[0]["object"]), (QStringList{QStringLiteral("name"), QStringLiteral("namespace"),
                                                    QStringLiteral("resource"), QStringLiteral("uid")}));
        QCOMPARE(keys(j[0]["now"]),
                 (QStringList{QStringLiteral("manager"), QStringLiteral("operation"), QStringLiteral("resourceVersion"),
                              QStringLiteral("time"), QStringLiteral("user"), QStringLiteral("value")}));
        QCOMPARE(j[0]["source"].get<std::string>(), std::string("history"));
        QCOMPARE(j[0]["appliedValue"].get<std::string>(), std::string("1"));
        QCOMPARE(j[0]["now"]["operation"].get<std::string>(), std::string("Update"));
        QCOMPARE(j[0]["now"]["resourceVersion"].get<std::string>(), std::string("2"));
        QVERIFY(j[0]["now"]["user"].is_null());
    }

    // A value and a manager name someone else chose: cut to a cell, control characters escaped.
    void tableCellsAreBoundedAndVisible()
    {
        const std::string huge(1 << 20, 'v');
        const DriftReport r = appliedThenTakenBy(entry("evil\x1b[2Jmanager", "Update", "2026-01-01T00:01:00Z",
                                                       R"({"f:data":{"f:a":{}}})"),
                                                 Json{{"data", {{"a", huge}, {"b", "1"}}}});
        QCOMPARE(r.findings.size(), std::size_t(1));
        const std::string text = driftText(r.findings);
        QVERIFY(text.size() < 2000);
        QVERIFY(text.find('\x1b') == std::string::npos);
        QVERIFY(text.find("evil\\u001b") != std::string::npos);
        QVERIFY(text.find("APPLIED BY") != std::string::npos);
    }
};

QTEST_GUILESS_MAIN(TestDrift)
#include "tst_drift.moc"
