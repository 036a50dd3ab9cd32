// Backfilling who made each recorded version from audit log files (core/audit/auditimport.h)
// into the history store, and what `history` then says: the watch and the audit log of one
// scripted sequence recorded from a real kube-apiserver 1.20.2 (tests/data/audit/README.md).
#include "auditfixtures.h"
#include "core/audit/auditimport.h"
#include "core/history/historyquery.h"

#include <QTemporaryDir>
#include <QTest>

#include <sqlite3.h>
#include <zlib.h>

#include <algorithm>
#include <limits>
#include <map>
#include <utility>

using namespace fieldscope::core;
using namespace auditfixtures;

namespace {

// resourceVersion -> "match: user[, user]" over every object the store holds.
std::map<std::string, std::string> storedJoins(HistoryStore &store)
{
    std::map<std::string, std::string> out;
    const auto objects = store.allObjects().value();
    for (const auto &o : objects) {
        const auto joins = store.auditJoins(o.ref.uid).value();
        for (const auto &[rv, j] : joins) {
            std::string s = std::string(auditMatchName(j.match)) + ":";
            for (const auto &w : j.candidates)
                s += " " + acting(w);
            out[rv] = s;
        }
    }
    return out;
}

// historyJson's entries of the rr sample, oldest first: "EVENT RV-or-code user".
std::vector<std::string> listedOrder(const Json &listing)
{
    std::vector<std::string> order;
    for (const auto &e : listing)
        order.push_back(e["eventType"].get<std::string>() + " "
                        + (e["eventType"] == "REFUSED" ? std::to_string(e["code"].get<int>())
                                                       : e["resourceVersion"].get<std::string>())
                        + " " + (e["who"].is_null() ? std::string("-") : e["who"]["user"].get<std::string>()));
    return order;
}

// The rr sample's versions and refused writes in the order they were requested.
const std::vector<std::string> kSampleOrder = {
    "ADDED 227 alice",
    "REFUSED 409 bob",
    "MODIFIED 228 bob",
    "REFUSED 409 alice",
    "REFUSED 409 bob",
    "MODIFIED 229 bob",
    "MODIFIED 230 fieldscope-admin",
    "MODIFIED 231 alice",
    "MODIFIED 233 bob",
    "MODIFIED 234 alice",
    "DELETED 235 bob",
};

AuditImportReport importFiles(HistoryStore &store, const std::vector<std::string> &files)
{
    AuditImporter importer(store);
    for (const auto &f : files)
        if (auto st = importAuditLogFile(f, importer); !st)
            qFatal("%s", st.error().describe().c_str());
    return importer.finish().value();
}

// The sample's events with the response body dropped from every other one, as a Metadata-level
// log interleaved with a RequestResponse one would give them: exact and probable joins of one object.
std::vector<AuditEvent> mixedLevels(std::vector<AuditEvent> events)
{
    for (std::size_t i = 0; i < events.size(); i += 2) {
        AuditEvent &e = events[i];
        e.level = "Metadata";
        e.hasResponseObject = false;
        e.responseKind.clear();
        e.responseResourceVersion.clear();
        e.responseUid.clear();
        e.responseManagers.clear();
    }
    return events;
}

// The live join's clock: just after the sample was recorded (its versions are within the hold).
std::int64_t afterSample(const std::vector<AuditEvent> &events)
{
    std::int64_t now = 0;
    for (const auto &e : events)
        now = std::max(now, e.stageMicros / 1000 + 1000);
    return now;
}

void writeGzip(const std::string &path, const std::string &text, std::size_t keepBytes)
{
    gzFile out = gzopen(path.c_str(), "wb");
    QVERIFY(out);
    QCOMPARE(gzwrite(out, text.data(), unsigned(text.size())), int(text.size()));
    QCOMPARE(gzclose(out), Z_OK);
    if (keepBytes == std::string::npos)
        return;
    QFile f(QString::fromStdString(path));
    QVERIFY(f.resize(qint64(keepBytes)));
}

} // namespace

class TestAuditImport : public QObject
{
    Q_OBJECT
    QTemporaryDir m_dir;

    std::unique_ptr<HistoryStore> recordedStore(const std::string &policy, const std::string &name)
    {
        auto store = HistoryStore::open(m_dir.filePath(QString::fromStdString(name)).toStdString()).value();
        recordSampleWatch(*store, policy);
        return store;
    }

private Q_SLOTS:
    void everyRecordedVersionIsStoredWithItsUser_data()
    {
        QTest::addColumn<QString>("policy");
        QTest::newRow("RequestResponse: exact") << "rr";
        QTest::newRow("Metadata: probable") << "md";
    }
    void everyRecordedVersionIsStoredWithItsUser()
    {
        QFETCH(QString, policy);
        const std::string p = policy.toStdString();
        auto store = recordedStore(p, p + "-joins.db");
        const AuditImportReport report = importFiles(*store, {auditDataPath(p + "-audit.log")});
        const auto expected = p == "rr" ? kExactRr : kProbableMd;
        QVERIFY2(storedJoins(*store) == expected, dump(storedJoins(*store)).c_str());
        QCOMPARE(report.versions, std::int64_t(9));
        QCOMPARE(report.objects, std::int64_t(2));
        // Refused writes in the recorded scope (ConfigMaps of team): not bob's 403 in "other".
        QCOMPARE(report.attempts, std::int64_t(4));
        QCOMPARE(report.skipped, std::int64_t(0));
        QCOMPARE(report.exact + report.probable + report.ambiguous, std::int64_t(9));
        QCOMPARE(report.exact, p == "rr" ? std::int64_t(9) : std::int64_t(0));
        QCOMPARE(report.ambiguous, p == "rr" ? std::int64_t(0) : std::int64_t(2));
        // kube-root-ca.crt in "other" was written but never recorded: the only unmatched write.
        QCOMPARE(report.unmatched, std::int64_t(1));
        QCOMPARE(report.storedJoins, std::int64_t(9));
        QCOMPARE(report.storedAttempts, std::int64_t(4));
    }

    void refusedWritesAreKeptWithTheObjectTheyAimedAt()
    {
        auto store = recordedStore("rr", "attempts.db");
        importFiles(*store, {auditDataPath("rr-audit.log")});
        const auto app = store->auditAttempts({"", "configmaps", "team", "app"}).value();
        std::vector<std::string> seen;
        seen.reserve(app.size());
        for (const auto &a : app)
            seen.push_back(acting(a.who) + " " + a.who.verb + " " + std::to_string(a.code) + " " + a.reason);
        QCOMPARE(seen, (std::vector<std::string>{"bob create 409 AlreadyExists", "alice update 409 Conflict",
                                                 "bob patch 409 Conflict"}));
        QVERIFY(app[2].message.find("conflict with \"kubectl-create\"") != std::string::npos);
        QCOMPARE(app[2].who.fieldManager, std::string("kubectl"));
        const auto bad = store->auditAttempts({"", "configmaps", "team", "Bad_Name"}).value();
        QCOMPARE(bad.size(), std::size_t(1));
        QCOMPARE(bad[0].code, 422);
        // bob's 403 in "other" is outside what the store records (ConfigMaps of team).
        QVERIFY(store->auditAttempts({"", "configmaps", "other", ""}).value().empty());
        QVERIFY(store->auditAttempts({"apps", "configmaps", "team", "app"}).value().empty()); // another group
    }

    void importingTheSameLogTwiceChangesNothing()
    {
        auto store = recordedStore("md", "twice.db");
        importFiles(*store, {auditDataPath("md-audit.log")});
        const auto before = storedJoins(*store);
        const AuditImportReport again = importFiles(*store, {auditDataPath("md-audit.log")});
        QCOMPARE(again.storedJoins, std::int64_t(0));
        QCOMPARE(again.storedAttempts, std::int64_t(0));
        QCOMPARE(storedJoins(*store), before);
        QCOMPARE(store->auditAttempts({"", "configmaps", "team", "app"}).value().size(), std::size_t(3));
    }

    // A forged event naming "team/<name>" in no namespace comes first: its object shares the
    // text key of the real <name> in "team" ("configmaps/team/<name>"), and once took its entry,
    // so the real object's versions were never read and its writes were left unmatched.
    void aForgedNameWithASlashDoesNotHideTheObjectItSpellsOut()
    {
        const auto decoded = decodeAuditLines(readAuditData("rr-audit.log"));
        std::vector<AuditEvent> forged;
        for (const auto &e : decoded.events) {
            if (e.objectRef.namespace_.empty())
                continue;
            AuditEvent f = e;
            f.auditID = "forged-" + e.auditID;
            f.objectRef.name = e.objectRef.namespace_ + "/" + e.objectRef.name;
            f.objectRef.namespace_.clear();
            f.responseUid = "forged-uid";
            forged.push_back(std::move(f));
        }
        QVERIFY(!forged.empty());
        {
            auto store = recordedStore("rr", "forged-slash-import.db");
            AuditImporter importer(*store);
            QVERIFY(importer.add(forged));
            QVERIFY(importer.add(decoded.events));
            QVERIFY(importer.finish());
            QCOMPARE(storedJoins(*store), kExactRr);
        }
        auto store = recordedStore("rr", "forged-slash-live.db");
        const std::int64_t now = afterSample(decoded.events);
        AuditLiveJoin join(*store);
        AuditDecodeResult first;
        first.events = forged;
        QVERIFY(join.addEvents(std::move(first), now));
        QVERIFY(join.addEvents(decoded, now));
        auto report = join.flush(now, {}, true);
        QVERIFY2(report, report ? "" : report.error().describe().c_str());
        QCOMPARE(report->exact, std::int64_t(9));
        QCOMPARE(storedJoins(*store), kExactRr);
    }

    void anExactJoinIsNeverReplacedByAProbableOne()
    {
        auto store = recordedStore("rr", "final.db");
        importFiles(*store, {auditDataPath("rr-audit.log")});
        const std::string uid = store->findObjects(appQuery()).value().front().ref.uid;
        AuditJoin probable = store->auditJoins(uid).value().at("227");
        probable.match = AuditMatch::Probable;
        probable.candidates.front().user.username = "mallory";
        QCOMPARE(store->writeAudit({probable}, {}).value().joins, std::int64_t(0));
        const AuditJoin kept = store->auditJoins(uid).value().at("227");
        QCOMPARE(kept.match, AuditMatch::Exact);
        QCOMPARE(kept.candidates.front().user.username, std::string("alice"));
    }

    // An exact claim is stored without reading the row first when there is none; a probable row
    // that is there is still replaced by it, and the count says so.
    void anExactClaimReplacesAStoredProbableJoin()
    {
        auto store = recordedStore("rr", "probable-then-exact.db");
        importFiles(*store, {auditDataPath("rr-audit.log")});
        const std::string uid = store->findObjects(appQuery()).value().front().ref.uid;
        const AuditJoin alices = store->auditJoins(uid).value().at("227");
        AuditJoin bobs = alices;
        bobs.resourceVersion = "9999"; // a version nothing joined yet
        bobs.match = AuditMatch::Probable;
        bobs.candidates.front().user.username = "bob";
        QCOMPARE(store->writeAudit({bobs}, {}).value().joins, std::int64_t(1));
        AuditJoin exact = alices;
        exact.resourceVersion = "9999";
        QCOMPARE(store->writeAudit({exact}, {}).value().joins, std::int64_t(1));
        const AuditJoin stored = store->auditJoins(uid).value().at("9999");
        QCOMPARE(stored.match, AuditMatch::Exact);
        QCOMPARE(stored.candidates.size(), std::size_t(1));
        QCOMPARE(stored.candidates.front().user.username, std::string("alice"));
        QCOMPARE(store->writeAudit({exact}, {}).value().joins, std::int64_t(0)); // the same claim again
    }

    // A flush stores its exact claims many a statement: what is stored, and the count of what
    // changed, are what storing them one at a time gives, with claims of versions that hold a row
    // (the same person again, someone else: contested), the same version twice in one batch, and
    // a probable join between them.
    void claimsStoredTogetherAreStoredAsOneAtATime()
    {
        auto together = recordedStore("rr", "claims-together.db");
        auto oneByOne = recordedStore("rr", "claims-one-by-one.db");
        importFiles(*together, {auditDataPath("rr-audit.log")});
        importFiles(*oneByOne, {auditDataPath("rr-audit.log")});
        const std::string uid = together->findObjects(appQuery()).value().front().ref.uid;
        const AuditJoin alices = together->auditJoins(uid).value().at("227");
        std::vector<AuditJoin> joins;
        for (int i = 0; i < 90; ++i) {
            AuditJoin j = alices;
            j.resourceVersion = std::to_string(1000 + i);
            j.candidates.front().auditID = "claim-" + std::to_string(i);
            joins.push_back(std::move(j));
        }
        joins[3].resourceVersion = "227"; // alice's no-op write: nothing changes
        joins[5].resourceVersion = "228"; // mallory claims bob's version: contested
        joins[5].candidates.front().user.username = "mallory";
        joins[40].resourceVersion = joins[10].resourceVersion; // the same version twice: contested
        joins[40].candidates.front().user.username = "mallory";
        joins[70].match = AuditMatch::Probable; // between two runs of claims
        joins[71].resourceVersion = joins[70].resourceVersion;
        std::int64_t changed = 0;
        for (const AuditJoin &j : joins)
            changed += oneByOne->writeAudit({j}, {}).value().joins;
        QCOMPARE(together->writeAudit(joins, {}).value().joins, changed);
        QVERIFY2(storedJoins(*together) == storedJoins(*oneByOne),
                 (dump(storedJoins(*together)) + "--- one by one:\n" + dump(storedJoins(*oneByOne))).c_str());
        QCOMPARE(together->auditJoins(uid).value().at("228").match, AuditMatch::Contested);
        QCOMPARE(together->auditJoins(uid).value().at(joins[10].resourceVersion).match, AuditMatch::Contested);
        QCOMPARE(together->auditJoins(uid).value().at("227").match, AuditMatch::Exact);
        QCOMPARE(together->auditJoins(uid).value().at(joins[70].resourceVersion).match, AuditMatch::Exact);
    }

    // A later exact claim used to overwrite the stored one: whoever could post one event named the
    // author of any version. Someone else's claim now makes the version contested, both kept,
    // whatever times they carry; the same event again, or the same person's no-op, changes nothing.
    void aSecondExactClaimBySomeoneElseMakesTheVersionContested()
    {
        auto store = recordedStore("rr", "contested.db");
        importFiles(*store, {auditDataPath("rr-audit.log")});
        const std::string uid = store->findObjects(appQuery()).value().front().ref.uid;
        const AuditJoin alices = store->auditJoins(uid).value().at("227");
        QCOMPARE(store->writeAudit({alices}, {}).value().joins, std::int64_t(0)); // the same claim again
        AuditJoin again = alices; // alice's own no-op write, answered with the same version
        again.candidates.front().auditID = "alice-no-op";
        QCOMPARE(store->writeAudit({again}, {}).value().joins, std::int64_t(0));
        QCOMPARE(store->auditJoins(uid).value().at("227").match, AuditMatch::Exact);

        // The forger copies the real event's ID and times (the sender chooses them): only the
        // user differs. It is a claim of its own, not the same event again.
        AuditJoin forged = alices;
        forged.candidates.front().user.username = "mallory";
        QCOMPARE(store->writeAudit({forged}, {}).value().joins, std::int64_t(1));
        const AuditJoin contested = store->auditJoins(uid).value().at("227");
        QCOMPARE(contested.match, AuditMatch::Contested);
        QCOMPARE(contested.candidates.size(), std::size_t(2));
        QCOMPARE(contested.candidates[0].user.username, std::string("alice"));
        QCOMPARE(contested.candidates[1].user.username, std::string("mallory"));
        // Once contested, no claim and no probable join settles it.
        QCOMPARE(store->writeAudit({alices}, {}).value().joins, std::int64_t(0));
        AuditJoin probable = alices;
        probable.match = AuditMatch::Probable;
        QCOMPARE(store->writeAudit({probable}, {}).value().joins, std::int64_t(0));
        QCOMPARE(store->auditJoins(uid).value().at("227").match, AuditMatch::Contested);

        const Json j = historyJson(*store, appQuery()).value();
        const Json *v227 = nullptr;
        for (const auto &e : j)
            if (e["resourceVersion"] == "227")
                v227 = &e;
        QVERIFY(v227);
        QCOMPARE((*v227)["who"]["match"].get<std::string>(), std::string("contested"));
        QCOMPARE((*v227)["whoCandidates"].size(), std::size_t(2));
        const std::string text = historyText(*store, appQuery()).value();
        QVERIFY2(text.find("by alice or mallory (contested)") != std::string::npos, text.c_str());
        QVERIFY((*v227)["who"].value("user", Json()).is_null()); // nobody is named
        // Nobody is named as the last writer of a contested version's fields.
        const auto writers = managerWriters(*store, appQuery(), uid).value();
        for (const auto &[entry, name] : writers)
            QVERIFY2(name.find("mallory") == std::string::npos, name.c_str());
    }

    void retentionTakesWhoWithTheVersionsAndRefusalsWithTheAgeLimit()
    {
        auto store = recordedStore("rr", "retention.db");
        importFiles(*store, {auditDataPath("rr-audit.log")});
        RetentionPolicy keepTwo;
        keepTwo.maxVersionsPerObject = 2;
        keepTwo.maxAgeMs = 0;
        keepTwo.maxTotalBytes = 0;
        QVERIFY(store->applyRetention(keepTwo, 0).ok());
        // app keeps 234 and 235, kube-root-ca.crt its only version 214.
        QCOMPARE(storedJoins(*store),
                 (std::map<std::string, std::string>{{"214", "exact: system:kube-controller-manager"},
                                                     {"234", "exact: alice"},
                                                     {"235", "exact: bob"}}));
        QCOMPARE(store->auditAttempts({"", "configmaps", "team", "app"}).value().size(), std::size_t(3));
        RetentionPolicy byAge = keepTwo;
        byAge.maxAgeMs = 1;
        // A "now" just after bob's refused create and before alice's refused update.
        const std::int64_t now = parseRfc3339Micros("2026-11-25T14:05:09.000000Z").value() / 1000 + 1;
        QVERIFY(store->applyRetention(byAge, now).ok());
        QCOMPARE(store->auditAttempts({"", "configmaps", "team", "app"}).value().size(), std::size_t(2));
    }

    void aGzipRotatedLogImportsLikeThePlainOne()
    {
        auto store = recordedStore("rr", "gzip.db");
        const std::string gz = m_dir.filePath(QStringLiteral("audit.log.1.gz")).toStdString();
        writeGzip(gz, readAuditData("rr-audit.log"), std::string::npos);
        const AuditImportReport report = importFiles(*store, {gz});
        QCOMPARE(report.exact, std::int64_t(9));
        QVERIFY2(storedJoins(*store) == kExactRr, dump(storedJoins(*store)).c_str());
    }

    void aGzipCutShortIsAnErrorNamingTheFile()
    {
        auto store = recordedStore("rr", "cut.db");
        const std::string gz = m_dir.filePath(QStringLiteral("cut.log.gz")).toStdString();
        writeGzip(gz, readAuditData("rr-audit.log"), 300);
        AuditImporter importer(*store);
        const Status st = importAuditLogFile(gz, importer);
        QVERIFY(!st);
        QVERIFY2(st.error().describe().find("cut.log.gz") != std::string::npos, st.error().describe().c_str());
        AuditImporter missing(*store);
        QVERIFY(!importAuditLogFile(m_dir.filePath(QStringLiteral("nope.log")).toStdString(), missing));
    }

    void junkLinesAreCountedAndNamedWithTheirLine()
    {
        auto store = recordedStore("rr", "junk.db");
        const std::string path = m_dir.filePath(QStringLiteral("junk.log")).toStdString();
        {
            QFile f(QString::fromStdString(path));
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write("not json\n{\"kind\":\"Event\",\"apiVersion\":\"audit.k8s.io/v1\",\"auditID\":7}\n[[[[\n");
            f.write(QByteArray::fromStdString(readAuditData("rr-audit.log")));
        }
        const AuditImportReport report = importFiles(*store, {path});
        QCOMPARE(report.skipped, std::int64_t(3));
        QCOMPARE(report.problems.size(), std::size_t(3));
        QVERIFY2(report.problems[0].rfind(path + ": ", 0) == 0
                     && report.problems[0].find("line 1") != std::string::npos,
                 report.problems[0].c_str());
        QVERIFY2(report.problems[2].find("line 3") != std::string::npos, report.problems[2].c_str());
        QCOMPARE(report.exact, std::int64_t(9)); // the good lines still count
    }

    void historyJsonNamesTheUserOfEachVersionAndListsRefusedWritesInTimeOrder()
    {
        auto store = recordedStore("rr", "json.db");
        importFiles(*store, {auditDataPath("rr-audit.log")});
        HistoryListingOptions withAttempts;
        withAttempts.attempts = true;
        const Json j = historyJson(*store, appQuery(), withAttempts).value();
        QCOMPARE(listedOrder(j), kSampleOrder);
        const Json &impersonated = j[6]["who"];
        for (const char *field :
             {"user", "groups", "impersonatedUser", "userAgent", "sourceIPs", "verb", "requestURI", "auditID", "match"})
            QVERIFY2(impersonated.contains(field), field);
        QCOMPARE(impersonated["impersonatedUser"].get<std::string>(),
                 std::string("system:serviceaccount:team:deployer"));
        QCOMPARE(impersonated["match"].get<std::string>(), std::string("exact"));
        QCOMPARE(impersonated["verb"].get<std::string>(), std::string("patch"));
        const Json &refused = j[1];
        for (const char *field : {"time", "code", "reason", "message", "who"})
            QVERIFY2(refused.contains(field), field);
        QCOMPARE(refused["reason"].get<std::string>(), std::string("AlreadyExists"));
        // Without --attempts the versions alone, each still with its who.
        const Json plain = historyJson(*store, appQuery()).value();
        QCOMPARE(plain.size(), std::size_t(8));
        QCOMPARE(plain[0]["who"]["user"].get<std::string>(), std::string("alice"));
    }

    // A loaded recorder sees every version a minute after it was written, after all the refused
    // writes: each refused write still sits between the versions by the time of its request.
    void refusedWritesArePlacedByRequestTimeWhenTheWatchDeliversLate()
    {
        auto store = HistoryStore::open(m_dir.filePath(QStringLiteral("late.db")).toStdString()).value();
        recordSampleWatch(*store, "rr", 60'000);
        importFiles(*store, {auditDataPath("rr-audit.log")});
        HistoryListingOptions withAttempts;
        withAttempts.attempts = true;
        const Json j = historyJson(*store, appQuery(), withAttempts).value();
        QCOMPARE(listedOrder(j), kSampleOrder); // as when the watch delivers at once
        // The text listing places them the same way: bob's refused create right after alice's create.
        const std::string text = historyText(*store, appQuery(), withAttempts).value();
        const auto added = text.find(" ADDED ");
        const auto refused = text.find("!! REFUSED 409 AlreadyExists");
        const auto modified = text.find(" MODIFIED ");
        QVERIFY2(added < refused && refused < modified && modified != std::string::npos, text.c_str());
    }

    // Whatever time an audit event claims, a version is never placed after the recorder saw it.
    void anAuditEventCannotMoveAVersionAfterTheRecorderSawIt()
    {
        AuditJoin join;
        join.match = AuditMatch::Exact;
        join.candidates.resize(1);
        join.candidates[0].requestReceivedTimestamp = "2099-01-01T00:00:00.000000Z";
        QCOMPARE(versionWrittenMicros(1'000, &join), std::int64_t(1'001'000));
        join.candidates[0].requestReceivedTimestamp = "1970-01-01T00:00:00.500000Z";
        QCOMPARE(versionWrittenMicros(1'000, &join), std::int64_t(500'000));
        join.match = AuditMatch::Ambiguous; // several people fit: none of their times is the version's
        join.candidates.resize(2, join.candidates[0]);
        QCOMPARE(versionWrittenMicros(1'000, &join), std::int64_t(1'001'000));
        QCOMPARE(versionWrittenMicros(std::numeric_limits<std::int64_t>::max(), nullptr) > 0, true);
        QCOMPARE(versionWrittenMicros(std::numeric_limits<std::int64_t>::min(), nullptr) < 0, true);
    }

    void severalCandidatesAreListedAsSuchNeverAsOneUser()
    {
        auto store = recordedStore("md", "ambiguous.db");
        importFiles(*store, {auditDataPath("md-audit.log")});
        const Json j = historyJson(*store, appQuery()).value();
        const Json *v233 = nullptr;
        for (const auto &e : j)
            if (e["resourceVersion"] == "233")
                v233 = &e;
        QVERIFY(v233);
        QVERIFY((*v233)["who"].is_null());
        QCOMPARE((*v233)["whoCandidates"].size(), std::size_t(2));
        QCOMPARE((*v233)["whoMore"].get<bool>(), false);
        QCOMPARE(j[0]["who"]["match"].get<std::string>(), std::string("probable"));
        const std::string text = historyText(*store, appQuery()).value();
        QVERIFY2(text.find("by alice or bob (ambiguous)") != std::string::npos, text.c_str());
    }

    void historyTextEscapesControlCharactersFromTheLog()
    {
        auto store = recordedStore("rr", "escape.db");
        std::string log = readAuditData("rr-audit.log");
        for (std::size_t at = 0; (at = log.find("\"username\":\"alice\"", at)) != std::string::npos; ++at)
            log.replace(at, 18, "\"username\":\"al\\u001b[2Jice\"");
        const std::string path = m_dir.filePath(QStringLiteral("escape.log")).toStdString();
        {
            QFile f(QString::fromStdString(path));
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write(QByteArray::fromStdString(log));
        }
        importFiles(*store, {path});
        HistoryListingOptions withAttempts;
        withAttempts.attempts = true;
        const std::string text = historyText(*store, appQuery(), withAttempts).value();
        QVERIFY2(text.find('\x1b') == std::string::npos, text.c_str());
        QVERIFY2(text.find("by al\\u001b[2Jice (exact)") != std::string::npos, text.c_str());
        QVERIFY2(text.find("!! REFUSED 409 Conflict") != std::string::npos, text.c_str());
    }

    void aFileWithoutAuditTablesReadsAsNothingJoined()
    {
        const std::string path = m_dir.filePath(QStringLiteral("old.db")).toStdString();
        {
            auto store = recordedStore("rr", "old.db");
        }
        sqlite3 *db = nullptr;
        QCOMPARE(sqlite3_open(path.c_str(), &db), SQLITE_OK);
        QCOMPARE(sqlite3_exec(db, "DROP TABLE audit_joins; DROP TABLE audit_attempts;", nullptr, nullptr, nullptr),
                 SQLITE_OK);
        sqlite3_close(db);
        auto store = HistoryStore::open(path, HistoryStore::OpenMode::ReadOnly).value();
        HistoryListingOptions withAttempts;
        withAttempts.attempts = true;
        const Json j = historyJson(*store, appQuery(), withAttempts).value();
        QCOMPARE(j.size(), std::size_t(8));
        QVERIFY(j[0]["who"].is_null());
    }

    // The live join (events as they come, flushed as it goes) stores what an import of the same
    // events stores, whether a version is taken by an exact claim from its row alone or read for a
    // probable join, including a probable one right after exact ones (its predecessor then read
    // only for it).
    void liveJoinStoresWhatAnImportStores_data()
    {
        QTest::addColumn<QString>("policy");
        QTest::addColumn<bool>("mixed");
        QTest::addColumn<int>("perStep"); // events per addEvents and flush
        for (const int perStep : {1, 3, 1000}) {
            const std::string n = " " + std::to_string(perStep) + " per step";
            QTest::newRow(("RequestResponse" + n).c_str()) << "rr" << false << perStep;
            QTest::newRow(("Metadata" + n).c_str()) << "md" << false << perStep;
            QTest::newRow(("both levels" + n).c_str()) << "rr" << true << perStep;
        }
    }
    void liveJoinStoresWhatAnImportStores()
    {
        QFETCH(QString, policy);
        QFETCH(bool, mixed);
        QFETCH(int, perStep);
        const std::string p = policy.toStdString();
        std::vector<AuditEvent> events = decodeAuditLines(readAuditData(p + "-audit.log")).events;
        if (mixed)
            events = mixedLevels(std::move(events));
        const std::string tag = p + (mixed ? "-mixed-" : "-") + std::to_string(perStep);
        auto imported = recordedStore(p, "import" + tag + ".db");
        AuditImporter importer(*imported);
        QVERIFY(importer.add(events));
        QVERIFY(importer.finish());
        auto live = recordedStore(p, "live" + tag + ".db");
        AuditLiveJoin join(*live);
        const std::int64_t now = afterSample(events);
        for (std::size_t i = 0; i < events.size(); i += std::size_t(perStep)) {
            AuditDecodeResult step;
            step.events.assign(events.begin() + std::ptrdiff_t(i),
                               events.begin() + std::ptrdiff_t(std::min(events.size(), i + std::size_t(perStep))));
            QVERIFY(join.addEvents(step, now));
            QVERIFY(join.flush(now));
        }
        auto last = join.flush(now, {}, true);
        QVERIFY2(last, last ? "" : last.error().describe().c_str());
        QVERIFY2(storedJoins(*live) == storedJoins(*imported),
                 (dump(storedJoins(*live)) + "--- import:\n" + dump(storedJoins(*imported))).c_str());
        if (!mixed)
            QCOMPARE(storedJoins(*live), p == "rr" ? kExactRr : kProbableMd);
    }

    // A flush reads again only the objects whose events still wait for their versions: a version
    // of an object whose events all joined is read when an event names the object, and joins then.
    void aVersionNoHeldEventWaitsForIsReadWithTheEventThatNamesIt()
    {
        auto store = recordedStore("rr", "read-when-named.db");
        const auto decoded = decodeAuditLines(readAuditData("rr-audit.log"));
        const std::int64_t now = afterSample(decoded.events);
        AuditLiveJoin join(*store);
        QVERIFY(join.addEvents(decoded, now));
        auto first = join.flush(now);
        QVERIFY2(first, first ? "" : first.error().describe().c_str());
        QCOMPARE(first->exact, std::int64_t(9));
        // A later write of team/kube-root-ca.crt, recorded while no event of it waits.
        ObjectQuery q = appQuery();
        q.name = "kube-root-ca.crt";
        const HistoryObject ca = store->findObjects(q).value().front();
        Json object = store->loadVersion(ca.id, store->lastVersion(ca.id).value()->seq).value();
        object["metadata"]["resourceVersion"] = "300";
        const WatchScope scope = WatchScope::of({"", "v1", "configmaps"}, "team");
        QVERIFY(store->write({{scope, {{HistoryEventType::Modified, toJsonText(object), now + 500}}, {}, {}}}));
        auto quiet = join.flush(now + 1000);
        QVERIFY2(quiet, quiet ? "" : quiet.error().describe().c_str());
        QCOMPARE(quiet->versions, std::int64_t(0));
        // Its event arrives: the version is read and joined exactly.
        const auto created = std::find_if(decoded.events.begin(), decoded.events.end(), [](const AuditEvent &e) {
            return e.objectRef.name == "kube-root-ca.crt" && e.objectRef.namespace_ == "team"
                && e.responseResourceVersion == "214" && e.isFinal();
        });
        QVERIFY(created != decoded.events.end());
        AuditDecodeResult next;
        next.events.push_back(*created);
        next.events.back().auditID = "later-write";
        next.events.back().verb = "update";
        next.events.back().responseResourceVersion = "300";
        QVERIFY(join.addEvents(std::move(next), now + 2000));
        auto joined = join.flush(now + 2000);
        QVERIFY2(joined, joined ? "" : joined.error().describe().c_str());
        QCOMPARE(joined->versions, std::int64_t(1));
        QCOMPARE(joined->exact, std::int64_t(1));
        const auto joins = store->auditJoins(ca.ref.uid).value();
        QVERIFY(joins.count("300"));
        QCOMPARE(joins.at("300").candidates.front().auditID, std::string("later-write"));
    }

    // An exact claim names the version by its row (uid and resourceVersion): its body is not read,
    // so a version whose stored body cannot be decoded is still joined to who made it.
    void anExactClaimJoinsAVersionWithoutReadingItsBody()
    {
        const std::string path = m_dir.filePath(QStringLiteral("unreadable-bodies.db")).toStdString();
        recordSampleWatch(*HistoryStore::open(path).value(), "rr");
        sqlite3 *c = nullptr;
        QCOMPARE(sqlite3_open(path.c_str(), &c), SQLITE_OK);
        QCOMPARE(sqlite3_exec(c, "UPDATE versions SET data = x'5200'", nullptr, nullptr, nullptr), SQLITE_OK);
        sqlite3_close(c);
        auto store = HistoryStore::open(path).value();
        QVERIFY(!store->loadVersion(store->findObjects(appQuery()).value().front().id, 1));
        const auto decoded = decodeAuditLines(readAuditData("rr-audit.log"));
        AuditLiveJoin join(*store);
        QVERIFY(join.addEvents(decoded, afterSample(decoded.events)));
        auto report = join.flush(afterSample(decoded.events), {}, true);
        QVERIFY2(report, report ? "" : report.error().describe().c_str());
        QCOMPARE(report->exact, std::int64_t(9));
        QVERIFY2(report->problems.empty(), report->problems.empty() ? "" : report->problems.front().c_str());
        QCOMPARE(storedJoins(*store), kExactRr);
    }

    // One call naming more objects than a lookup statement holds (64) and than the join tracks
    // (kMaxTrackedObjects): 150 ConfigMaps with two stored versions each, named first, then 20,000
    // objects with none. Every stored version joins exactly to its writer, and the join keeps
    // no more than its bound of objects.
    void manyObjectsNamedInOneCallAreEachJoinedExactly()
    {
        auto store = HistoryStore::open(m_dir.filePath(QStringLiteral("many-objects.db")).toStdString()).value();
        const std::int64_t base = 1'790'000'000'000;
        const auto configMap = [](int i, int rv) {
            return "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"m-" + std::to_string(i)
                 + "\",\"namespace\":\"team\",\"uid\":\"u-" + std::to_string(i) + "\",\"resourceVersion\":\""
                 + std::to_string(rv) + "\"}}";
        };
        std::vector<WatchEvent> versions;
        for (int round = 0; round < 2; ++round)
            for (int i = 0; i < 150; ++i)
                versions.push_back({round == 0 ? HistoryEventType::Added : HistoryEventType::Modified,
                                    configMap(i, 1000 * (round + 1) + i), base + round});
        QVERIFY(store->write({{WatchScope::of({"", "v1", "configmaps"}, "team"), std::move(versions), {}, {}}}));
        const auto write = [&](const std::string &name, const std::string &uid, int rv, const std::string &user) {
            AuditEvent e;
            e.auditID = "a-" + name + "-" + std::to_string(rv);
            e.stage = "ResponseComplete";
            e.level = "RequestResponse";
            e.verb = rv < 2000 ? "create" : "update";
            e.requestURI = "/api/v1/namespaces/team/configmaps";
            e.hasObjectRef = true;
            e.objectRef.resource = "configmaps";
            e.objectRef.namespace_ = "team";
            e.objectRef.name = name;
            e.objectRef.apiVersion = "v1";
            e.user.username = user;
            e.responseCode = 200;
            e.hasResponseObject = true;
            e.responseKind = "ConfigMap";
            e.responseUid = uid;
            e.responseResourceVersion = std::to_string(rv);
            e.requestReceivedMicros = e.stageMicros = (base - 5) * 1000;
            return e;
        };
        AuditDecodeResult events;
        for (int round = 0; round < 2; ++round)
            for (int i = 0; i < 150; ++i)
                events.events.push_back(write("m-" + std::to_string(i), "u-" + std::to_string(i),
                                              1000 * (round + 1) + i, "user-" + std::to_string(i)));
        for (int j = 0; j < 20'000; ++j)
            events.events.push_back(write("absent-" + std::to_string(j), "x-" + std::to_string(j), 5000 + j, "nobody"));
        AuditLiveJoin join(*store);
        QVERIFY(join.addEvents(std::move(events), base + 1000));
        QVERIFY(join.trackedObjects() <= AuditLiveJoin::kMaxTrackedObjects);
        auto report = join.flush(base + 1000, {}, true);
        QVERIFY2(report, report ? "" : report.error().describe().c_str());
        QCOMPARE(report->exact, std::int64_t(300));
        QCOMPARE(report->unmatched, std::int64_t(20'000));
        const auto joined = storedJoins(*store);
        QCOMPARE(joined.size(), std::size_t(300));
        for (int i = 0; i < 150; ++i)
            for (const int rv : {1000 + i, 2000 + i})
                QCOMPARE(joined.at(std::to_string(rv)), "exact: user-" + std::to_string(i));
    }

    // A flush whose transaction the store refuses keeps its joins: the events that made them have
    // left the joiner, so the next flush stores them or nobody does.
    void joinsTheStoreRefusedAreStoredByTheNextFlush()
    {
        const std::string path = m_dir.filePath(QStringLiteral("refused-flush.db")).toStdString();
        recordSampleWatch(*HistoryStore::open(path).value(), "rr");
        auto store = HistoryStore::open(path).value();
        const auto decoded = decodeAuditLines(readAuditData("rr-audit.log"));
        const std::int64_t now = afterSample(decoded.events);
        AuditLiveJoin join(*store);
        QVERIFY(join.addEvents(decoded, now));
        sqlite3 *c = nullptr;
        QCOMPARE(sqlite3_open(path.c_str(), &c), SQLITE_OK);
        QCOMPARE(sqlite3_exec(c, "ALTER TABLE audit_joins RENAME TO audit_joins_away", nullptr, nullptr, nullptr),
                 SQLITE_OK);
        QVERIFY(!join.flush(now));
        QCOMPARE(sqlite3_exec(c, "ALTER TABLE audit_joins_away RENAME TO audit_joins", nullptr, nullptr, nullptr),
                 SQLITE_OK);
        sqlite3_close(c);
        auto report = join.flush(now, {}, true);
        QVERIFY2(report, report ? "" : report.error().describe().c_str());
        QCOMPARE(report->storedJoins, std::int64_t(9));
        QCOMPARE(storedJoins(*store), kExactRr);
    }
};

QTEST_GUILESS_MAIN(TestAuditImport)
#include "tst_auditimport.moc"
