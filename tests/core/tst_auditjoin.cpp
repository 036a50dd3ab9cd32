// Joining audit events to recorded versions (core/audit/auditjoin.h), on the events and the watch of
// one scripted sequence recorded from a real kube-apiserver 1.20.2 (tests/data/audit/README.md):
// exact with the RequestResponse policy, probable with the Metadata-only one, refused writes as
// attempts; events late, early, duplicated, reordered; bounds and ageing.
#include "auditfixtures.h"
#include "core/audit/auditjoin.h"

#include <QFile>
#include <QTest>

#include <algorithm>
#include <limits>
#include <map>
#include <random>

using namespace fieldscope::core;
using namespace auditfixtures;

namespace {

std::string readData(const std::string &name)
{
    QFile f(QStringLiteral(FIELDSCOPE_TEST_DATA "/audit/") + QString::fromStdString(name));
    if (!f.open(QIODevice::ReadOnly))
        qFatal("missing test data %s", name.c_str());
    return f.readAll().toStdString();
}

std::vector<AuditEvent> events(const std::string &policy)
{
    return decodeAuditLines(readData(policy + "-audit.log")).events;
}

// The watch as the recorder sees it; a DELETED version is observed `deleteObservedAfterMs` after
// the delete request's stageTimestamp (the raw watch has no local times of its own).
std::vector<AuditVersion> versions(const std::string &policy, std::int64_t deleteObservedAfterMs = 150)
{
    std::int64_t deleteStageMs = 0;
    for (const auto &e : events(policy))
        if (e.verb == "delete")
            deleteStageMs = e.stageMicros / 1000;
    std::vector<AuditVersion> out;
    std::map<std::string, Json> previous;
    const std::string text = readData(policy + "-watch.jsonl");
    std::size_t start = 0;
    while (start < text.size()) {
        const std::size_t nl = text.find('\n', start);
        const Json line = parseJson(text.substr(start, nl - start)).value();
        start = nl == std::string::npos ? text.size() : nl + 1;
        const Json &object = line["object"];
        HistoryEventType type = HistoryEventType::Modified;
        if (!parseHistoryEventType(line["type"].get<std::string>(), &type))
            qFatal("bad watch type");
        const std::string uid = object["metadata"]["uid"].get<std::string>();
        const auto prev = previous.find(uid);
        auto v = auditVersionOf(object, prev == previous.end() ? nullptr : &prev->second, type, "", "configmaps",
                                type == HistoryEventType::Deleted ? deleteStageMs + deleteObservedAfterMs : 0);
        if (!v.ok())
            qFatal("%s", v.error().describe().c_str());
        out.push_back(*v);
        previous[uid] = object;
    }
    return out;
}

struct Collected {
    std::map<std::string, AuditJoin> joins; // by resourceVersion: the latest emission
    std::vector<AuditAttempt> attempts;
    void add(const AuditJoinOutput &out)
    {
        for (const auto &j : out.joins)
            joins[j.resourceVersion] = j;
        attempts.insert(attempts.end(), out.attempts.begin(), out.attempts.end());
    }
};

// resourceVersion -> "match: user[, user]" for every version of the sequence.
std::map<std::string, std::string> summary(const Collected &c)
{
    std::map<std::string, std::string> out;
    for (const auto &[rv, j] : c.joins) {
        std::string s = std::string(auditMatchName(j.match)) + ":";
        for (const auto &w : j.candidates)
            s += " " + acting(w);
        out[rv] = s;
    }
    return out;
}

} // namespace

class TestAuditJoin : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void writersOfAVersionComeFromItsManagedFields()
    {
        const auto v = versions("rr");
        auto writers = [](const AuditVersion &version) {
            std::vector<std::string> out;
            for (const auto &m : version.managers)
                if (m.writer)
                    out.push_back(m.manager);
            return out;
        };
        QCOMPARE(v[1].resourceVersion, std::string("227")); // first seen: every entry
        QCOMPARE(writers(v[1]), std::vector<std::string>{"kubectl-create"});
        QCOMPARE(writers(v[2]), std::vector<std::string>{"kubectl-label"}); // a new entry
        QCOMPARE(writers(v[3]), std::vector<std::string>{"kubectl"});       // the apply
        // 234: bob's annotate in the same second as alice's: no entry moved, so the newest ones.
        QCOMPARE(v[7].resourceVersion, std::string("234"));
        QCOMPARE(writers(v[7]), std::vector<std::string>{"kubectl-annotate"});
    }

    void everyVersionJoinsToItsUser_data()
    {
        QTest::addColumn<QString>("policy");
        QTest::addColumn<QString>("order");
        for (const char *policy : {"rr", "md"})
            for (const char *order :
                 {"events first", "versions first", "interleaved", "reversed batches of 3", "shuffled with duplicates"})
                QTest::newRow((std::string(policy) + ": " + order).c_str()) << policy << order;
    }
    void everyVersionJoinsToItsUser()
    {
        QFETCH(QString, policy);
        QFETCH(QString, order);
        const auto ev = events(policy.toStdString());
        const auto vs = versions(policy.toStdString());
        AuditJoiner joiner;
        Collected c;
        std::int64_t now = 1000;
        if (order == QLatin1String("events first")) {
            c.add(joiner.addEvents(ev, now));
            c.add(joiner.addVersions(vs, now));
        } else if (order == QLatin1String("versions first")) {
            c.add(joiner.addVersions(vs, now));
            c.add(joiner.addEvents(ev, now));
        } else if (order == QLatin1String("interleaved")) {
            for (std::size_t i = 0; i < std::max(ev.size(), vs.size()); ++i) {
                if (i < vs.size())
                    c.add(joiner.addVersions({vs[i]}, now));
                if (i < ev.size())
                    c.add(joiner.addEvents({ev[i]}, now));
            }
        } else if (order == QLatin1String("reversed batches of 3")) {
            std::vector<AuditEvent> rev(ev.rbegin(), ev.rend());
            for (std::size_t i = 0; i < rev.size(); i += 3)
                c.add(joiner.addEvents({rev.begin() + std::ptrdiff_t(i),
                                        rev.begin() + std::ptrdiff_t(std::min(rev.size(), i + 3))},
                                       now += 1000));
            c.add(joiner.addVersions({vs.rbegin(), vs.rend()}, now));
        } else {
            std::vector<AuditEvent> twice = ev;
            twice.insert(twice.end(), ev.begin(), ev.end());
            std::mt19937 rng(22);
            std::shuffle(twice.begin(), twice.end(), rng);
            c.add(joiner.addVersions({vs.begin(), vs.begin() + 4}, now));
            c.add(joiner.addEvents(twice, now));
            c.add(joiner.addVersions({vs.begin() + 4, vs.end()}, now));
            QCOMPARE(joiner.stats().duplicates, std::int64_t(ev.size()));
        }
        const auto expected = policy == QLatin1String("rr") ? kExactRr : kProbableMd;
        QVERIFY2(summary(c) == expected, dump(summary(c)).c_str());
        QCOMPARE(c.attempts.size(), std::size_t(5));
        if (policy
            == QLatin1String("rr")) // every exact event found its version but kube-root-ca.crt in "other" (not watched)
            QCOMPARE(joiner.heldEvents(), std::size_t(1));
    }

    void refusedWritesBecomeAttempts_data()
    {
        QTest::addColumn<QString>("policy");
        QTest::newRow("RequestResponse") << "rr";
        QTest::newRow("Metadata") << "md";
    }
    void refusedWritesBecomeAttempts()
    {
        QFETCH(QString, policy);
        AuditJoiner joiner;
        const auto out = joiner.addEvents(events(policy.toStdString()), 0);
        std::vector<std::string> seen;
        for (const auto &a : out.attempts)
            seen.push_back(acting(a.who) + " " + a.who.verb + " " + std::to_string(a.code) + " " + a.reason + " "
                           + a.object.toString());
        const std::vector<std::string> expected = {
            "bob create 409 AlreadyExists configmaps/team/app", "alice update 409 Conflict configmaps/team/app",
            "bob patch 409 Conflict configmaps/team/app",       "alice create 422 Invalid configmaps/team/Bad_Name",
            "bob create 403 Forbidden configmaps/other/", // the server never read the name
        };
        QCOMPARE(seen, expected);
        QCOMPARE(joiner.stats().attempts, std::int64_t(5));
        const bool bodies = policy == QLatin1String("rr");
        QCOMPARE(out.attempts[2].message.find("conflict with \"kubectl-create\"") != std::string::npos, bodies);
        QCOMPARE(out.attempts[1].message.find("the object has been modified") != std::string::npos, bodies);
        QCOMPARE(out.attempts[2].who.fieldManager, std::string("kubectl"));
        QVERIFY(out.attempts[2].who.requestURI.find("force=false") != std::string::npos);
    }

    void aLateEventTurnsAProbableJoinIntoSeveralCandidates()
    {
        auto ev = events("md");
        const auto bobAnnotate = std::find_if(ev.begin(), ev.end(), [](const AuditEvent &e) {
            return e.user.username == "bob" && e.fieldManager() == "kubectl-annotate";
        });
        QVERIFY(bobAnnotate != ev.end());
        const AuditEvent late = *bobAnnotate;
        ev.erase(bobAnnotate);
        AuditJoiner joiner;
        Collected c;
        c.add(joiner.addEvents(ev, 0));
        c.add(joiner.addVersions(versions("md"), 0));
        QCOMPARE(summary(c).at("234"), std::string("probable: alice"));
        const auto again = joiner.addEvents({late}, 20000);
        QCOMPARE(again.joins.size(), std::size_t(2)); // 233 and 234 emitted again
        c.add(again);
        QVERIFY2(summary(c) == kProbableMd, dump(summary(c)).c_str());
        // The same event again (a webhook retry) changes nothing and emits nothing.
        QCOMPARE(joiner.addEvents({late}, 21000).joins.size(), std::size_t(0));
    }

    void candidatesAreCappedAndEmissionsBounded()
    {
        const auto ev = events("md");
        const AuditEvent label = *std::find_if(ev.begin(), ev.end(),
                                               [](const AuditEvent &e) { return e.fieldManager() == "kubectl-label"; });
        AuditJoiner joiner;
        std::size_t emitted = 0;
        AuditJoin last;
        emitted += joiner.addVersions({versions("md")[2]}, 0).joins.size(); // 228, bob's label
        for (int i = 0; i < 1000; ++i) { // a hot object: many requests fit the same version
            AuditEvent e = label;
            e.auditID = "copy-" + std::to_string(i);
            for (const auto &j : joiner.addEvents({e}, 0).joins) {
                ++emitted;
                last = j;
            }
        }
        QCOMPARE(emitted, std::size_t(9)); // probable, 2..8 candidates, then "more"
        QCOMPARE(last.match, AuditMatch::Ambiguous);
        QCOMPARE(last.candidates.size(), std::size_t(8));
        QVERIFY(last.moreCandidates);
    }

    // managedFields' time is taken by the server handling the request, between the request's
    // arrival and its answer, on the same clock as the audit event: a request one second off
    // (the same manager, a second later or earlier) did not make this version.
    void aRequestInAnotherSecondDidNotMakeTheVersion()
    {
        const auto ev = events("md");
        const AuditEvent label = *std::find_if(ev.begin(), ev.end(),
                                               [](const AuditEvent &e) { return e.fieldManager() == "kubectl-label"; });
        AuditJoiner joiner;
        Collected c;
        c.add(joiner.addVersions({versions("md")[2]}, 0)); // 228, bob's label
        for (const std::int64_t shift : {-1'000'000, 1'000'000}) {
            AuditEvent other = label;
            other.auditID = "shifted-" + std::to_string(shift);
            other.user.username = "carol";
            other.requestReceivedMicros += shift;
            other.stageMicros += shift;
            c.add(joiner.addEvents({other}, 0));
        }
        QVERIFY(c.joins.empty());
        c.add(joiner.addEvents({label}, 0));
        QCOMPARE(summary(c).at("228"), std::string("probable: bob"));
    }

    void noCandidateMeansNoJoin()
    {
        // The delete observed a minute after the request: outside the window, never a guess.
        AuditJoiner joiner;
        Collected c;
        c.add(joiner.addEvents(events("md"), 0));
        c.add(joiner.addVersions(versions("md", 60000), 0));
        QVERIFY(!c.joins.count("235"));
        // A version whose managers never match any event: nothing.
        AuditVersion v = versions("md")[2];
        v.resourceVersion = "999";
        for (auto &m : v.managers)
            m.manager = "someone-else";
        QCOMPARE(joiner.addVersions({v}, 0).joins.size(), std::size_t(0));
    }

    // Two events claim one version: a later no-op by someone else, or a forged event whose sender
    // chose an earlier time. The earliest stageTimestamp used to win, so a forger picked the
    // author of any version; now every claim is reported, in arrival order, and the store makes
    // the version contested (tst_auditimport).
    void everyClaimOfAResourceVersionIsReportedNoneWinsByItsTime()
    {
        const auto ev = events("rr");
        const AuditEvent create = *std::find_if(ev.begin(), ev.end(),
                                                [](const AuditEvent &e) { return e.responseResourceVersion == "227"; });
        AuditEvent forged = create;
        forged.auditID = "forged";
        forged.user.username = "mallory";
        forged.stageMicros -= 60'000'000; // "earlier" than the real request
        AuditJoiner joiner;
        joiner.addEvents({create, forged}, 0); // a replayed batch can hold both
        const auto out = joiner.addVersions({versions("rr")[1]}, 0);
        QCOMPARE(out.joins.size(), std::size_t(2));
        QCOMPARE(out.joins[0].candidates[0].user.username, std::string("alice"));
        QCOMPARE(out.joins[1].candidates[0].user.username, std::string("mallory"));
        QCOMPARE(out.joins[1].match, AuditMatch::Exact);
        // A claim arriving after the version joined is reported too, not left to age out.
        AuditEvent late = create;
        late.auditID = "late";
        late.user.username = "eve";
        const auto again = joiner.addEvents({late}, 1);
        QCOMPARE(again.joins.size(), std::size_t(1));
        QCOMPARE(again.joins[0].resourceVersion, std::string("227"));
        QCOMPARE(again.joins[0].candidates[0].user.username, std::string("eve"));
        // Kept for storing: one exact join holding every claim.
        std::map<std::pair<std::string, std::string>, AuditJoin> kept;
        for (const auto &j : out.joins)
            keepJoinEmission(kept, j);
        for (const auto &j : again.joins)
            keepJoinEmission(kept, j);
        QCOMPARE(kept.size(), std::size_t(1));
        QCOMPARE(kept.begin()->second.candidates.size(), std::size_t(3));
    }

    // An exact join used to match on group, resource and resourceVersion only: an event about
    // another object (another namespace or name) carrying that number claimed the version.
    void anExactClaimMustBeAboutTheSameObject_data()
    {
        QTest::addColumn<QString>("what");
        QTest::newRow("another namespace") << QStringLiteral("namespace");
        QTest::newRow("another name") << QStringLiteral("name");
        QTest::newRow("no name, no uid") << QStringLiteral("anonymous");
    }
    void anExactClaimMustBeAboutTheSameObject()
    {
        QFETCH(QString, what);
        const auto ev = events("rr");
        AuditEvent claim = *std::find_if(ev.begin(), ev.end(),
                                         [](const AuditEvent &e) { return e.responseResourceVersion == "227"; });
        claim.auditID = "elsewhere";
        if (what == QLatin1String("namespace"))
            claim.objectRef.namespace_ = "other";
        else if (what == QLatin1String("name"))
            claim.objectRef.name = "not-app";
        else {
            claim.objectRef.name.clear();
            claim.responseUid.clear();
        }
        for (const bool eventFirst : {true, false}) {
            AuditJoiner joiner;
            Collected c;
            if (eventFirst)
                c.add(joiner.addEvents({claim}, 0));
            c.add(joiner.addVersions({versions("rr")[1]}, 0));
            if (!eventFirst)
                c.add(joiner.addEvents({claim}, 0));
            QVERIFY2(!c.joins.count("227") || c.joins.at("227").match != AuditMatch::Exact, qPrintable(what));
        }
    }

    // A claim about another object is left waiting when a version of the same resourceVersion
    // arrives for someone else's object, claimed by the claims that agree (addClaimedVersions,
    // as the live join offers versions): it still joins its own object's version.
    void aClaimOfAnotherObjectKeepsWaitingForItsOwnVersion()
    {
        const auto ev = events("rr");
        const AuditEvent real = *std::find_if(ev.begin(), ev.end(),
                                              [](const AuditEvent &e) { return e.responseResourceVersion == "227"; });
        AuditEvent other = real;
        other.auditID = "other-namespace";
        other.objectRef.namespace_ = "other";
        other.responseUid = "uid-in-other";
        AuditJoiner joiner;
        QVERIFY(joiner.addEvents({other, real}, 0).joins.empty());
        const AuditVersion teams = versions("rr")[1];
        std::vector<std::size_t> unclaimed;
        auto first = joiner.addClaimedVersions({teams}, unclaimed);
        QCOMPARE(first.joins.size(), std::size_t(1));
        QCOMPARE(first.joins[0].candidates[0].auditID, real.auditID);
        QCOMPARE(joiner.heldEvents(), std::size_t(1));
        AuditVersion others = teams;
        others.object.namespace_ = "other";
        others.uid = "uid-in-other";
        auto second = joiner.addClaimedVersions({others}, unclaimed);
        QCOMPARE(second.joins.size(), std::size_t(1));
        QCOMPARE(second.joins[0].uid, std::string("uid-in-other"));
        QCOMPARE(second.joins[0].candidates[0].auditID, std::string("other-namespace"));
        QCOMPARE(joiner.heldEvents(), std::size_t(0));
        QVERIFY(unclaimed.empty());
    }

    // A delete claims the DELETED version by its uid only when it names the same object: a
    // forged delete carrying the victim's uid under another name neither joins the version nor
    // pushes the real delete's claim out, whichever arrives first.
    void aForgedDeleteWithTheVictimsUidNeitherClaimsNorHidesTheRealDelete()
    {
        const auto ev = events("rr");
        const auto realIt = std::find_if(ev.begin(), ev.end(),
                                         [](const AuditEvent &e) { return e.verb == "delete" && e.isFinal(); });
        QVERIFY(realIt != ev.end());
        const AuditEvent &real = *realIt;
        QVERIFY(!real.responseUid.empty());
        AuditEvent forged = real;
        forged.auditID = "forged-delete";
        forged.objectRef.name = "not-app";
        forged.user.username = "mallory";
        const auto vs = versions("rr");
        const auto deletedIt = std::find_if(vs.begin(), vs.end(), [](const AuditVersion &v) {
            return v.eventType == HistoryEventType::Deleted;
        });
        QVERIFY(deletedIt != vs.end());
        const AuditVersion &deleted = *deletedIt;
        for (const bool eventsFirst : {true, false}) {
            AuditJoiner joiner;
            Collected c;
            if (eventsFirst) {
                c.add(joiner.addEvents({real, forged}, 0)); // the forged one last: it once replaced the real
                c.add(joiner.addVersions({deleted}, 0));
            } else {
                c.add(joiner.addVersions({deleted}, 0));
                c.add(joiner.addEvents({forged, real}, 0)); // the forged one first: it once took the version
            }
            QVERIFY2(c.joins.count(deleted.resourceVersion), eventsFirst ? "events first" : "version first");
            const AuditJoin &j = c.joins.at(deleted.resourceVersion);
            QCOMPARE(j.match, AuditMatch::Exact);
            QCOMPARE(j.candidates.size(), std::size_t(1));
            QCOMPARE(j.candidates[0].auditID, real.auditID);
        }
    }

    void exactNeedsTheUidToAgree()
    {
        auto vs = versions("rr");
        vs[1].uid = "another-incarnation";
        AuditJoiner joiner;
        Collected c;
        c.add(joiner.addEvents(events("rr"), 0));
        c.add(joiner.addVersions(vs, 0));
        QVERIFY(!c.joins.count("227"));
        QCOMPARE(c.joins.at("228").match, AuditMatch::Exact);
    }

    void onlyFinalStagesOfStoredWritesJoin()
    {
        const auto ev = events("rr");
        auto create = *std::find_if(ev.begin(), ev.end(),
                                    [](const AuditEvent &e) { return e.responseResourceVersion == "227"; });
        AuditEvent received = create;
        received.stage = "RequestReceived";
        AuditEvent dryRun = create;
        dryRun.auditID = "dry";
        dryRun.requestURI += "&dryRun=All";
        AuditEvent read = create;
        read.auditID = "read";
        read.verb = "get";
        AuditJoiner joiner;
        QCOMPARE(joiner.addEvents({received, dryRun, read}, 0).joins.size(), std::size_t(0));
        QCOMPARE(joiner.addVersions({versions("rr")[1]}, 0).joins.size(), std::size_t(0));
        QCOMPARE(joiner.stats().notFinal, std::int64_t(1));
        QCOMPARE(joiner.stats().ignored, std::int64_t(2));
        const auto out = joiner.addEvents({create}, 0);
        QCOMPARE(out.joins.size(), std::size_t(1));
        QCOMPARE(out.joins[0].match, AuditMatch::Exact);
    }

    // Held events and the unmatched ones kept for queries were bounded by count only; an event may
    // hold most of a megabyte of user agent, URI and groups.
    void heldAndUnmatchedEventsAreBoundedByMemoryToo()
    {
        AuditJoinLimits limits;
        limits.maxHeldEventBytes = 4u << 20;
        limits.maxUnmatchedBytes = 2u << 20;
        AuditJoiner joiner(limits);
        const auto ev = events("md");
        std::vector<AuditEvent> big;
        for (int i = 0; i < 20; ++i) {
            AuditEvent e = *std::find_if(ev.begin(), ev.end(), [](const AuditEvent &x) { return x.verb == "patch"; });
            e.auditID = "big-" + std::to_string(i);
            e.userAgent = std::string(900u << 10, 'x');
            big.push_back(std::move(e));
        }
        joiner.addEvents(big, 0);
        QVERIFY2(joiner.heldEvents() <= 4, std::to_string(joiner.heldEvents()).c_str());
        QVERIFY(joiner.stats().unmatched >= 16);
        QVERIFY2(joiner.unmatched().size() <= 2, std::to_string(joiner.unmatched().size()).c_str());
    }

    void eventsWithoutTheirVersionAgeIntoUnmatched()
    {
        AuditJoinLimits limits;
        limits.holdMs = 60000;
        AuditJoiner joiner(limits);
        const auto ev = events("md");
        joiner.addEvents(ev, 0);
        const std::size_t held = joiner.heldEvents();
        QCOMPARE(held, std::size_t(10)); // 15 lines, 5 of them attempts
        QCOMPARE(joiner.expire(60000).unmatched.size(), std::size_t(0));
        const auto out = joiner.expire(60001);
        QCOMPARE(out.unmatched.size(), held);
        QCOMPARE(joiner.unmatched().size(), held);
        QCOMPARE(joiner.heldEvents(), std::size_t(0));
        QCOMPARE(joiner.unmatched().front().who.user.username, std::string("system:kube-controller-manager"));
        QCOMPARE(joiner.unmatched().back().who.verb, std::string("delete"));
        // A version arriving now finds nobody.
        QCOMPARE(joiner.addVersions(versions("md"), 60002).joins.size(), std::size_t(0));
    }

    void joinedEventsLeaveTheHoldWithoutBecomingUnmatched()
    {
        AuditJoinLimits limits;
        limits.holdMs = 1000;
        AuditJoiner joiner(limits);
        joiner.addVersions(versions("md"), 0);
        joiner.addEvents(events("md"), 0);
        const auto out = joiner.expire(5000);
        // Only the controller manager's create in "other", a namespace the watch did not cover.
        QCOMPARE(out.unmatched.size(), std::size_t(1));
        QCOMPARE(out.unmatched[0].object.toString(), std::string("configmaps/other/kube-root-ca.crt"));
        QCOMPARE(out.unmatched[0].who.user.username, std::string("system:kube-controller-manager"));
        QCOMPARE(joiner.heldEvents(), std::size_t(0));
        QCOMPARE(joiner.heldVersions(), std::size_t(0));
    }

    void holdAndUnmatchedAreBounded()
    {
        AuditJoinLimits limits;
        limits.maxHeldEvents = 3;
        limits.maxHeldVersions = 2;
        limits.maxUnmatched = 4;
        AuditJoiner joiner(limits);
        const auto out = joiner.addEvents(events("md"), 0); // 10 events, held at most 3
        QCOMPARE(joiner.heldEvents(), std::size_t(3));
        QCOMPARE(out.unmatched.size(), std::size_t(7));
        QCOMPARE(joiner.unmatched().size(), std::size_t(4));
        QCOMPARE(joiner.stats().unmatched, std::int64_t(7));
        joiner.addVersions(versions("md"), 0);
        QVERIFY(joiner.heldVersions() <= 2);
        QVERIFY(joiner.stats().versionsDropped > 0);
    }

    void deduplicationMemoryIsBounded()
    {
        AuditJoinLimits limits;
        limits.maxRememberedIds = 2;
        AuditJoiner joiner(limits);
        const auto ev = events("rr");
        joiner.addEvents({ev[0], ev[1], ev[2]}, 0);
        joiner.addEvents({ev[2]}, 0); // remembered
        QCOMPARE(joiner.stats().duplicates, std::int64_t(1));
        joiner.addEvents({ev[0]}, 0); // forgotten: counted again, harmless for an exact join
        QCOMPARE(joiner.stats().duplicates, std::int64_t(1));
    }

    void hostileEventsDoNotJoin()
    {
        // Decoded junk with the right types but nonsense values: no crash, no join.
        AuditEvent e;
        e.auditID = "x";
        e.stage = "ResponseComplete";
        e.verb = "patch";
        e.hasObjectRef = true;
        e.objectRef = {"configmaps", "team", "app", "", "v1", "", "", ""};
        e.responseCode = 200;
        e.requestReceivedMicros = -5;
        e.stageMicros = std::numeric_limits<std::int64_t>::max();
        AuditEvent f = e;
        f.auditID = "y";
        f.stageMicros = std::numeric_limits<std::int64_t>::min();
        AuditJoiner joiner;
        Collected c;
        c.add(joiner.addEvents({e, f}, 0));
        c.add(joiner.addEvents(events("md"), 0));
        c.add(joiner.addVersions(versions("md"), 0));
        QVERIFY2(summary(c) == kProbableMd, dump(summary(c)).c_str()); // the real ones only
    }
};

QTEST_GUILESS_MAIN(TestAuditJoin)
#include "tst_auditjoin.moc"
