#include "core/history/historyexport.h"
#include "core/history/historyfeed.h"
#include "core/history/historyquery.h"
#include "core/history/historywriter.h"
#include "core/history/versioncodec.h"
#include "storefixtures.h"
#include "testpostgres.h"

#include <QDateTime>
#include <QFile>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <map>

using namespace fieldscope::core;

namespace {

Json loadPod()
{
    QFile f(QStringLiteral(FIELDSCOPE_TEST_DATA "/history/pod.json"));
    if (!f.open(QIODevice::ReadOnly))
        qFatal("missing tests/data/history/pod.json");
    return parseJson(f.readAll().toStdString()).value();
}

// The n-th status-only update of the pod: the kubelet flips readiness and restamps its entry.
Json statusUpdate(Json pod, int n)
{
    pod["metadata"]["resourceVersion"] = std::to_string(1000 + n);
    pod["status"]["conditions"][1]["status"] = n % 2 ? "False" : "True";
    pod["status"]["conditions"][1]["lastTransitionTime"] = "2026-07-20T10:" + std::to_string(10 + n % 50) + ":00Z";
    pod["status"]["containerStatuses"][0]["ready"] = n % 2 == 0;
    pod["status"]["containerStatuses"][0]["restartCount"] = n / 2;
    pod["metadata"]["managedFields"][1]["time"] = "2026-07-20T10:" + std::to_string(10 + n % 50) + ":00Z";
    return pod;
}

// Observed "now" by default: the recorder applies the default 30-day retention.
WatchEvent watchEvent(HistoryEventType t, const Json &obj, std::int64_t at = -1)
{
    return {t, toJsonText(obj), at < 0 ? QDateTime::currentMSecsSinceEpoch() : at};
}

const WatchScope kPods = WatchScope::of({"", "v1", "pods"}, "prod");

// ConfigMap `i` named prefix + i (uid uidPrefix + i) at resourceVersion `rv`, padded with
// `padBytes` of one letter: large writes for the read-ahead paths.
std::string paddedConfigMap(const std::string &prefix, const std::string &uidPrefix, int i, long long rv,
                            std::size_t padBytes)
{
    return "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"" + prefix + std::to_string(i)
         + "\",\"namespace\":\"n\",\"uid\":\"" + uidPrefix + std::to_string(i) + "\",\"resourceVersion\":\""
         + std::to_string(rv) + "\"},\"data\":{\"pad\":\"" + std::string(padBytes, char('a' + i % 26)) + "\"}}";
}

} // namespace

class TestHistoryStore : public QObject
{
    Q_OBJECT
    QTemporaryDir m_dir;
    mutable std::map<QString, QString> m_stores;
    // A store location: a file, or (run as tst_historystore_postgres) a fresh database on the test
    // PostgreSQL. Other names are plain files (exports).
    QString db(const char *name) const
    {
        const QString file = QLatin1String(name);
        if (storefixtures::onPostgres() && file.endsWith(QLatin1String(".db"))) {
            QString &url = m_stores[file];
            if (url.isEmpty())
                url = QString::fromStdString(testpostgres::freshDatabase(file));
            return url;
        }
        return m_dir.filePath(file);
    }

    std::unique_ptr<HistoryStore> openStore(const QString &path)
    {
        auto s = HistoryStore::open(path.toStdString());
        if (!s)
            qFatal("%s", s.error().describe().c_str());
        return std::move(*s);
    }

private Q_SLOTS:
    // Text the index does not model is still stored (as a snapshot) and every version decodes to
    // what parseJson makes of the text that was recorded.
    void recorderDecodesTextTheIndexDoesNotModel()
    {
        const QString path = db("unmodelled.db");
        // (Plain literals: moc miscounts braces inside raw strings.)
        const std::string meta =
            "\"metadata\":{\"uid\":\"u-x\",\"name\":\"x\",\"namespace\":\"prod\",\"labels\":{\"team\":\""
            + std::string(200, 'p') + "\"},\"resourceVersion\":";
        std::vector<std::string> texts = {
            "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\"," + meta + "\"1\"},\"data\":{\"a\":\"1\"}}",
            "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\"," + meta + "\"2\"},\"data\":{\"a\":\"1\",\"a\":\"2\"}}",
            "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\"," + meta + "\"3\"},\"data\":{\"a\":\"3\"}}",
            "\xef\xbb\xbf{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\"," + meta + "\"4\"},\"data\":{\"n\":1e-400}}",
            "{ \"apiVersion\" : \"v1\", \"kind\":\"ConfigMap\",\n" + meta + "\"5\"},\"data\":{\"a\":\"\\u00e9\"}}",
            "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\"," + meta + "\"6\"},\"data\":{\"a\":\"é\",\"b\":[1.0]}}",
        };
        {
            HistoryRecorder rec({path.toStdString()});
            for (const auto &t : texts)
                rec.record(kPods, {{HistoryEventType::Modified, t, QDateTime::currentMSecsSinceEpoch()}});
            QVERIFY(rec.flush().ok());
        }
        {
            // After a restart the head is rebuilt from the decoded version and deltas continue.
            HistoryRecorder rec({path.toStdString()});
            texts.push_back("{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\"," + meta
                            + "\"7\"},\"data\":{\"a\":\"é\",\"b\":[2]}}");
            rec.record(kPods, {{HistoryEventType::Modified, texts.back(), QDateTime::currentMSecsSinceEpoch()}});
            QVERIFY(rec.flush().ok());
        }
        auto store = openStore(path);
        const auto objects = store->allObjects().value();
        QCOMPARE(objects.size(), std::size_t(1));
        const auto infos = store->versions(objects[0].id).value();
        const auto decoded = store->loadAllVersions(objects[0].id).value();
        QCOMPARE(decoded.size(), texts.size());
        for (std::size_t i = 0; i < texts.size(); ++i)
            QCOMPARE(QString::fromStdString(toJsonText(decoded[i])),
                     QString::fromStdString(toJsonText(parseJson(texts[i]).value())));
        QVERIFY(infos[1].snapshot);  // duplicate keys: not delta-encoded
        QVERIFY(!infos[5].snapshot); // indexed again after the fallbacks
        QVERIFY(!infos[6].snapshot);
        QVERIFY(store->checkIntegrity().ok());
    }

    void recorderStoresEveryVersionWithItsEventAndDecodesItExactly()
    {
        const Json pod = loadPod();
        std::vector<Json> sent{pod};
        {
            HistoryRecorder rec({db("every.db").toStdString()});
            QSignalSpy spy(&rec, &HistoryRecorder::committed);
            rec.record(kPods, {watchEvent(HistoryEventType::Added, pod)});
            std::vector<WatchEvent> batch;
            for (int i = 1; i <= 40; ++i) {
                sent.push_back(statusUpdate(pod, i));
                batch.push_back(watchEvent(HistoryEventType::Modified, sent.back()));
            }
            rec.record(kPods, std::move(batch));
            Json gone = sent.back();
            gone["metadata"]["resourceVersion"] = "2000";
            sent.push_back(gone);
            rec.record(kPods, {watchEvent(HistoryEventType::Deleted, gone)});
            QVERIFY(rec.flush().ok());
            QTRY_VERIFY(!spy.isEmpty());
            QCOMPARE(rec.counters().committedVersions, 42);
        }
        auto store = openStore(db("every.db"));
        auto objects = store->allObjects().value();
        QCOMPARE(objects.size(), std::size_t(1));
        QVERIFY(objects[0].deleted);
        QCOMPARE(objects[0].ref.kind, std::string("Pod"));
        QCOMPARE(objects[0].resource, std::string("pods"));
        auto infos = store->versions(objects[0].id).value();
        QCOMPARE(infos.size(), sent.size());
        QCOMPARE(infos.front().eventType, HistoryEventType::Added);
        QCOMPARE(infos[5].eventType, HistoryEventType::Modified);
        QCOMPARE(infos.back().eventType, HistoryEventType::Deleted);
        QCOMPARE(infos.back().resourceVersion, std::string("2000"));
        auto decoded = store->loadAllVersions(objects[0].id).value();
        for (std::size_t i = 0; i < sent.size(); ++i)
            QCOMPARE(toJsonText(decoded[i]), toJsonText(sent[i]));
        // Random access equals sequential decoding, and snapshots bound the chain.
        QCOMPARE(toJsonText(store->loadVersion(objects[0].id, 37).value()), toJsonText(sent[36]));
        int chain = 0, longest = 0;
        for (const auto &v : infos) {
            chain = v.snapshot ? 0 : chain + 1;
            longest = std::max(longest, chain);
        }
        QVERIFY(longest < VersionCodec::kMaxChain);
        QVERIFY(store->checkIntegrity().ok());
    }

    void statusOnlyPodUpdateCostsAFewHundredBytes()
    {
        auto store = openStore(db("small.db"));
        const Json pod = loadPod();
        QVERIFY(store->write({{kPods, {watchEvent(HistoryEventType::Added, pod)}, {}, {}}}).ok());
        QVERIFY(store->write({{kPods, {watchEvent(HistoryEventType::Modified, statusUpdate(pod, 1))}, {}, {}}}).ok());
        auto infos = store->versions(store->allObjects().value()[0].id).value();
        QCOMPARE(infos.size(), std::size_t(2));
        QVERIFY(!infos[1].snapshot);
        QVERIFY2(infos[1].storedBytes < 300, std::to_string(infos[1].storedBytes).c_str());
        QVERIFY(infos[0].storedBytes < infos[0].rawBytes / 2); // the snapshot is compressed too
    }

    void relistOfAnUnchangedObjectStoresNothing()
    {
        auto store = openStore(db("relist.db"));
        const Json pod = loadPod();
        QVERIFY(store->write({{kPods, {watchEvent(HistoryEventType::Added, pod)}, {}, {}}}).ok());
        auto r = store->write({{kPods, {watchEvent(HistoryEventType::Listed, pod)}, {}, {}}});
        QVERIFY(r.ok());
        QCOMPARE(r->versions.size(), std::size_t(0));
        QCOMPARE(r->skippedDuplicates, 1);
        QCOMPARE(store->stats().value().versions, 1);
    }

    // Two processes recording the same cluster (two windows, or a window and `fieldscope record`)
    // share one database file. Each connection must see what the other committed before it
    // writes: ids, sequence numbers and delta bases come from the file, not from a stale cache.
    void twoWritersOnOneFileInterleaveWithoutLosingAVersion()
    {
        const QString path = db("shared.db");
        auto a = openStore(path);
        auto b = openStore(path);
        Json pod = loadPod();
        std::vector<Json> written{pod};
        QVERIFY(a->write({{kPods, {watchEvent(HistoryEventType::Added, pod)}, {}, {}}}).ok());
        for (int i = 1; i <= 6; ++i) {
            written.push_back(statusUpdate(pod, i));
            HistoryStore &writer = i % 2 ? *b : *a;
            auto r = writer.write({{kPods, {watchEvent(HistoryEventType::Modified, written.back())}, {}, {}}});
            QVERIFY2(r.ok(), r.ok() ? "" : r.error().describe().c_str());
            QCOMPARE(r->versions.size(), std::size_t(1));
        }
        // A gap from one writer between versions of the other: ids stay unique.
        HistoryGap gap;
        gap.fromRv = "1";
        gap.toRv = "2";
        QVERIFY(b->write({{kPods, {}, gap, {}}}).ok());
        written.push_back(statusUpdate(pod, 7));
        QVERIFY(a->write({{kPods, {watchEvent(HistoryEventType::Modified, written.back())}, {}, {}}}).ok());
        // A relist seen by the writer that did not store the latest version is still a duplicate.
        auto relist = b->write({{kPods, {watchEvent(HistoryEventType::Listed, written.back())}, {}, {}}});
        QVERIFY(relist.ok());
        QCOMPARE(relist->skippedDuplicates, 1);

        auto reader = openStore(path);
        ObjectQuery q;
        q.resource = "pods";
        q.allNamespaces = true;
        const auto objects = reader->findObjects(q).value();
        QCOMPARE(objects.size(), std::size_t(1));
        const auto all = reader->loadAllVersions(objects[0].id);
        QVERIFY2(all.ok(), all.ok() ? "" : all.error().describe().c_str());
        QCOMPARE(all->size(), written.size());
        for (std::size_t i = 0; i < written.size(); ++i)
            QVERIFY2(jsonEqual((*all)[i], written[i]), qPrintable(QString::number(i)));
        QVERIFY(reader->checkIntegrity().ok());
    }

    // Two recorders watching the same objects each deliver every version; the one that is behind
    // must not store again (and out of order) what the other stored already.
    void aVersionTheOtherWriterStoredIsNotStoredAgain()
    {
        const QString path = db("shared-dup.db");
        auto a = openStore(path);
        auto b = openStore(path);
        const Json pod = loadPod();
        const Json v1 = statusUpdate(pod, 1), v2 = statusUpdate(pod, 2);
        QVERIFY(a->write({{kPods,
                           {watchEvent(HistoryEventType::Added, pod), watchEvent(HistoryEventType::Modified, v1),
                            watchEvent(HistoryEventType::Modified, v2)},
                           {},
                           {}}})
                    .ok());
        auto behind = b->write(
            {{kPods, {watchEvent(HistoryEventType::Added, pod), watchEvent(HistoryEventType::Modified, v1)}, {}, {}}});
        QVERIFY(behind.ok());
        QCOMPARE(behind->versions.size(), std::size_t(0));
        QCOMPARE(behind->skippedDuplicates, 2);
        auto reader = openStore(path);
        ObjectQuery q;
        q.resource = "pods";
        q.allNamespaces = true;
        const auto objects = reader->findObjects(q).value();
        QCOMPARE(reader->versions(objects.at(0).id).value().size(), std::size_t(3));
    }

    void recreatedObjectIsANewIncarnationFoundByName()
    {
        auto store = openStore(db("recreate.db"));
        Json pod = loadPod();
        QVERIFY(store
                    ->write({{kPods,
                              {watchEvent(HistoryEventType::Added, pod),
                               watchEvent(HistoryEventType::Deleted, statusUpdate(pod, 1))},
                              {},
                              {}}})
                    .ok());
        pod["metadata"]["uid"] = "second-uid";
        pod["metadata"]["resourceVersion"] = "3000";
        QVERIFY(store->write({{kPods, {watchEvent(HistoryEventType::Added, pod)}, {}, {}}}).ok());
        ObjectQuery q;
        q.resource = "pod";
        q.namespace_ = "prod";
        q.name = "web-7d4b9c8f6-x2x9q";
        auto found = store->findObjects(q).value();
        QCOMPARE(found.size(), std::size_t(2));
        QVERIFY(found[0].deleted);
        QCOMPARE(found[1].ref.uid, std::string("second-uid"));
        q.resource = "deployments";
        QVERIFY(store->findObjects(q).value().empty());
    }

    void gapsAreListedBetweenTheVersionsTheySeparate()
    {
        auto store = openStore(db("gaps.db"));
        const Json pod = loadPod();
        HistoryWriteItem gap{kPods, {}, HistoryGap{{}, "1001", "1500", "relist after 410", 5, 0}, "1500"};
        QVERIFY(store
                    ->write({{kPods, {watchEvent(HistoryEventType::Added, pod)}, {}, {}},
                             gap,
                             {kPods, {watchEvent(HistoryEventType::Listed, statusUpdate(pod, 7))}, {}, {}}})
                    .ok());
        auto rows = store->history(store->allObjects().value()[0].id).value();
        QCOMPARE(rows.size(), std::size_t(3));
        QCOMPARE(rows[0].kind, HistoryEntry::Kind::Version);
        QCOMPARE(rows[1].kind, HistoryEntry::Kind::Gap);
        QCOMPARE(rows[1].gap.fromRv, std::string("1001"));
        QCOMPARE(rows[1].gap.toRv, std::string("1500"));
        QCOMPARE(rows[2].kind, HistoryEntry::Kind::Version);
        QCOMPARE(store->lastResourceVersion(kPods.id).value(), std::string("1500"));
        QCOMPARE(store->lastResourceVersion("other").value(), std::string());
    }

    // A relist that found an object unchanged proves nothing was missed for it: no gap in its
    // history. One that delivered a change or a deletion, or a gap no list ended, stays.
    void aGapIsLeftOutWhereItsListFoundTheObjectUnchanged()
    {
        auto store = openStore(db("gap-unchanged.db"));
        const Json pod = loadPod();
        auto other = [&](const char *uid, int n) {
            Json o = statusUpdate(pod, n);
            o["metadata"]["uid"] = uid;
            o["metadata"]["name"] = uid;
            return o;
        };
        HistoryWriteItem relist{kPods, {}, HistoryGap{{}, "1010", "1500", "relist after 410", 5, 0}, "1500"};
        HistoryWriteItem overflow{kPods, {}, HistoryGap{{}, "1600", "1700", "recorder queue overflow", 6, 0}, {}};
        QVERIFY(store
                    ->write({{kPods,
                              {watchEvent(HistoryEventType::Added, other("same", 1)),
                               watchEvent(HistoryEventType::Added, other("changed", 2)),
                               watchEvent(HistoryEventType::Added, other("gone", 3))},
                              {},
                              {}},
                             relist,
                             // the relist: "changed" has a new version, "gone" is deleted as it was, "same" is not
                             // mentioned
                             {kPods,
                              {watchEvent(HistoryEventType::Listed, other("changed", 400)),
                               watchEvent(HistoryEventType::Deleted, other("gone", 3))},
                              {},
                              {}},
                             {kPods,
                              {watchEvent(HistoryEventType::Modified, other("same", 550))},
                              {},
                              {}}, // the watch afterwards
                             overflow,
                             {kPods, {watchEvent(HistoryEventType::Modified, other("same", 800))}, {}, {}}})
                    .ok());
        auto gapsOf = [&](const char *uid) {
            std::vector<std::string> out;
            const auto objects = store->allObjects().value();
            for (const auto &o : objects)
                if (o.ref.uid == uid) {
                    const auto entries = store->history(o.id).value();
                    for (const auto &e : entries)
                        if (e.kind == HistoryEntry::Kind::Gap)
                            out.push_back(e.gap.reason);
                }
            return out;
        };
        QCOMPARE(gapsOf("same"), std::vector<std::string>{"recorder queue overflow"}); // the relist saw it unchanged
        QCOMPARE(gapsOf("changed"), (std::vector<std::string>{"relist after 410", "recorder queue overflow"}));
        // The relist found it gone: deleted somewhere in that gap; nothing can be missing after.
        QCOMPARE(gapsOf("gone"), std::vector<std::string>{"relist after 410"});
    }

    void retentionKeepsTheNewestVersionsDecodable()
    {
        auto store = openStore(db("retain.db"));
        const Json pod = loadPod();
        std::vector<WatchEvent> batch{watchEvent(HistoryEventType::Added, pod)};
        for (int i = 1; i < 60; ++i)
            batch.push_back(watchEvent(HistoryEventType::Modified, statusUpdate(pod, i)));
        QVERIFY(store->write({{kPods, batch, {}, {}}}).ok());
        RetentionPolicy policy;
        policy.maxVersionsPerObject = 10;
        QVERIFY(store->applyRetention(policy, 1'700'000'000'000).ok());
        auto obj = store->allObjects().value()[0];
        QCOMPARE(obj.versionCount, 10);
        QCOMPARE(obj.prunedCount, 50);
        auto rows = store->history(obj.id).value();
        QCOMPARE(rows.front().kind, HistoryEntry::Kind::Pruned);
        QCOMPARE(rows.back().version.resourceVersion, std::string("1059"));
        QVERIFY(store->checkIntegrity().ok());
        // The store accepts further versions after pruning and stays consistent.
        QVERIFY(store->write({{kPods, {watchEvent(HistoryEventType::Modified, statusUpdate(pod, 60))}, {}, {}}}).ok());
        QVERIFY(store->checkIntegrity().ok());
    }

    void retentionByAgeAndSizeNeverDropsTheCurrentState()
    {
        auto store = openStore(db("age.db"));
        Json pod = loadPod();
        QVERIFY(store
                    ->write({{kPods,
                              {watchEvent(HistoryEventType::Added, pod, 1000),
                               watchEvent(HistoryEventType::Modified, statusUpdate(pod, 1), 2000)},
                              {},
                              {}}})
                    .ok());
        Json other = pod;
        other["metadata"]["uid"] = "deleted-long-ago";
        QVERIFY(store
                    ->write({{kPods,
                              {watchEvent(HistoryEventType::Added, other, 1000),
                               watchEvent(HistoryEventType::Deleted, statusUpdate(other, 2), 1500)},
                              {},
                              {}}})
                    .ok());
        RetentionPolicy policy;
        policy.maxAgeMs = 10'000;
        policy.maxTotalBytes = 1; // everything that can go, goes
        QVERIFY(store->applyRetention(policy, 1'000'000).ok());
        auto objects = store->allObjects().value();
        QCOMPARE(objects.size(), std::size_t(1)); // the deleted object is gone entirely
        QCOMPARE(objects[0].versionCount, 1);     // the live one keeps its current state
        QCOMPARE(store->loadVersion(objects[0].id, 2).value()["metadata"]["resourceVersion"].get<std::string>(),
                 std::string("1001"));
        QVERIFY(store->checkIntegrity().ok());
    }

    // A head kept cold (its stored blobs, once evicted from the cache) is forgotten like a cached
    // one when another writer stores a version of its object: the next version is stored, and
    // decodes to its own text, not onto the other writer's field.
    void aColdHeadIsForgottenWhenAnotherWriterStoresItsObject()
    {
        const QString path = db("cold-moved.db");
        auto a = openStore(path);
        auto b = openStore(path);
        std::vector<WatchEvent> first; // ~30 MB of heads: the first ones are evicted, kept cold
        first.reserve(150);
        for (int i = 0; i < 150; ++i)
            first.push_back({HistoryEventType::Added, paddedConfigMap("cold-", "c-", i, 100 + i, 200'000), 1});
        QVERIFY(a->write({{kPods, first, {}, {}}}).ok());
        std::string byB = paddedConfigMap("cold-", "c-", 0, 5000, 200'000);
        byB = byB.substr(0, byB.size() - 2) + ",\"onlyInB\":\"yes\"}}";
        QCOMPARE(b->write({{kPods, {{HistoryEventType::Modified, byB, 2}}, {}, {}}})->versions.size(), std::size_t(1));
        const std::string byA = paddedConfigMap("cold-", "c-", 0, 6000, 200'000);
        auto report = a->write({{kPods, {{HistoryEventType::Modified, byA, 3}}, {}, {}}});
        QVERIFY2(report.ok(), report ? "" : report.error().describe().c_str());
        QCOMPARE(report->versions.size(), std::size_t(1));
        QVERIFY(report->bulkFallback.empty());
        const auto objects = a->allObjects().value();
        const auto it = std::find_if(objects.begin(), objects.end(), [](const auto &o) { return o.ref.uid == "c-0"; });
        QVERIFY(it != objects.end());
        const auto versions = a->versions(it->id).value();
        QCOMPARE(versions.size(), std::size_t(3));
        QCOMPARE(versions.back().resourceVersion, std::string("6000"));
        QCOMPARE(toJsonText(a->loadVersion(it->id, versions.back().seq).value()), toJsonText(parseJson(byA).value()));
    }

    // A write this large is read on two threads before its transaction: the versions, and the
    // gaps marking the objects it cannot keep, still come in event order.
    void aLargeWriteReadOnTwoThreadsKeepsEventOrderAndMarksItsRejects()
    {
        auto store = openStore(db("shared-read.db"));
        std::vector<WatchEvent> events;
        for (int i = 0; i < 200; ++i) {
            std::string text = paddedConfigMap("cm-", "u-", i, 100 + i, 2000);
            if (i == 50 || i == 150)
                text = "{\"not json\": "; // rejected: a gap in its place
            events.push_back({HistoryEventType::Modified, text, 1'700'000'000'000 + i});
        }
        auto report = store->write({{kPods, events, {}, {}}});
        QVERIFY2(report.ok(), report ? "" : report.error().describe().c_str());
        QCOMPARE(report->rejected, 2);
        QCOMPARE(report->versions.size(), std::size_t(198));
        QCOMPARE(report->gaps.size(), std::size_t(2));
        for (std::size_t k = 1; k < report->versions.size(); ++k) // in event order
            QVERIFY(std::stoll(report->versions[k].resourceVersion)
                    > std::stoll(report->versions[k - 1].resourceVersion));
        // Each gap sits between the versions of the events around it.
        std::map<std::string, std::int64_t> ordOf;
        const auto objects = store->allObjects().value();
        for (const auto &o : objects)
            ordOf[o.ref.uid] = store->versions(o.id).value().front().ord;
        QVERIFY(ordOf["u-49"] < report->gaps[0].ord && report->gaps[0].ord < ordOf["u-51"]);
        QVERIFY(ordOf["u-149"] < report->gaps[1].ord && report->gaps[1].ord < ordOf["u-151"]);
    }

    // A write larger than the read-ahead bound (32 MiB) is read partly before its transaction,
    // the rest inside it: every event keeps its own body, and the rejects their place, on both
    // sides of the boundary.
    void aWriteLargerThanTheReadAheadKeepsEachEventsOwnBody()
    {
        auto store = openStore(db("past-read-ahead.db"));
        std::vector<WatchEvent> events;
        for (int i = 0; i < 40; ++i) {
            std::string text = paddedConfigMap("big-", "b-", i, 500 + i, 1'000'000);
            if (i == 5 || i == 36)
                text = "[not json"; // one before the boundary (~32 events in), one after
            events.push_back({HistoryEventType::Added, text, 1'700'000'000'000 + i});
        }
        auto report = store->write({{kPods, events, {}, {}}});
        QVERIFY2(report.ok(), report ? "" : report.error().describe().c_str());
        QCOMPARE(report->rejected, 2);
        QCOMPARE(report->gaps.size(), std::size_t(2));
        const auto objects = store->allObjects().value();
        QCOMPARE(objects.size(), std::size_t(38));
        std::map<std::string, std::int64_t> ordOf;
        for (const auto &o : objects) {
            const auto v = store->versions(o.id).value().front();
            ordOf[o.ref.uid] = v.ord;
            const int i = std::stoi(o.ref.uid.substr(2));
            QCOMPARE(v.resourceVersion, std::to_string(500 + i));
            const Json stored = store->loadVersion(o.id, v.seq).value();
            QCOMPARE(stored["data"]["pad"].get<std::string>().front(), char('a' + i % 26));
        }
        QVERIFY(ordOf["b-4"] < report->gaps[0].ord && report->gaps[0].ord < ordOf["b-6"]);
        QVERIFY(ordOf["b-35"] < report->gaps[1].ord && report->gaps[1].ord < ordOf["b-37"]);
    }

    void durabilityIsWhatTheDatabaseSays()
    {
        if (storefixtures::onPostgres()) {
            const std::string said = openStore(db("durability.db"))->durability().value();
            QVERIFY2(said.find("fsync=") != std::string::npos && said.find("synchronous_commit=") != std::string::npos,
                     said.c_str());
            return;
        }
        QCOMPARE(openStore(db("durability.db"))->durability().value(), std::string("synchronous=NORMAL"));
        HistoryOpenOptions durable;
        durable.durableCommits = true;
        auto s = HistoryStore::open(db("durability.db").toStdString(), HistoryStore::OpenMode::ReadWrite, durable);
        QVERIFY(s.ok());
        QCOMPARE((*s)->durability().value(), std::string("synchronous=FULL"));
        // The setting is the connection's: another writer of the same file keeps its own.
        QCOMPARE(openStore(db("durability.db"))->durability().value(), std::string("synchronous=NORMAL"));
    }

    void queueOverflowDropsEventsAndRecordsAGap()
    {
        const Json pod = loadPod();
        HistoryRecorder::Options opts{db("overflow.db").toStdString()};
        opts.maxQueuedBytes = 1; // smaller than any event: every batch overflows
        HistoryRecorder rec(opts);
        QVERIFY(rec.flush().ok());
        rec.record(kPods, {watchEvent(HistoryEventType::Added, pod)});
        for (int i = 1; i < 20; ++i)
            rec.record(kPods, {watchEvent(HistoryEventType::Modified, statusUpdate(pod, i))});
        QVERIFY(rec.flush().ok());
        auto store = openStore(db("overflow.db"));
        const auto c = rec.counters();
        QVERIFY(c.droppedEvents > 0);
        auto gaps = store->gaps(kPods.id).value();
        QVERIFY(!gaps.empty());
        QCOMPARE(gaps.front().reason, std::string("recorder queue overflow"));
        QCOMPARE(store->stats().value().versions + c.droppedEvents, 20);
    }

    void exportThenImportReproducesVersionsAndGaps()
    {
        auto store = openStore(db("export.db"));
        const Json pod = loadPod();
        HistoryWriteItem gap{kPods, {}, HistoryGap{{}, "1002", "1100", "app restart", 1'700'000'000'123, 0}, {}};
        QVERIFY(store
                    ->write({{kPods,
                              {watchEvent(HistoryEventType::Added, pod),
                               watchEvent(HistoryEventType::Modified, statusUpdate(pod, 2))},
                              {},
                              {}},
                             gap,
                             {kPods,
                              {watchEvent(HistoryEventType::Listed, statusUpdate(pod, 3), 1'700'000'000'456)},
                              {},
                              {}}})
                    .ok());
        const std::string file = db("export.jsonl").toStdString();
        ObjectQuery everything;
        everything.allNamespaces = true;
        QCOMPARE(exportJsonLines(*store, everything, file).value(), 3);

        auto read = readJsonLines(file).value();
        QCOMPARE(read.header["formatVersion"].get<int>(), kHistoryFormatVersion);
        QCOMPARE(read.versions.size(), std::size_t(3));
        QCOMPARE(read.gapPositions, std::vector<std::size_t>{2});
        QCOMPARE(read.versions[2].observedAtMs, 1'700'000'000'456);

        auto imported = openStore(db("imported.db"));
        auto report = importJsonLines(file, *imported).value();
        QCOMPARE(report.versions, std::int64_t(3));
        auto obj = imported->allObjects().value()[0];
        auto rows = imported->history(obj.id).value();
        QCOMPARE(rows.size(), std::size_t(4));
        QCOMPARE(rows[2].kind, HistoryEntry::Kind::Gap);
        QCOMPARE(rows[2].gap.reason, std::string("app restart"));
        QCOMPARE(toJsonText(imported->loadVersion(obj.id, 3).value()), toJsonText(statusUpdate(pod, 3)));
    }

    void readingAFileFromANewerFormatIsRefused()
    {
        const QString path = db("newer.jsonl");
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(R"({"format":"fieldscope-history","formatVersion":99})"
                "\n");
        f.close();
        auto r = readJsonLines(path.toStdString());
        QVERIFY(!r.ok());
        QCOMPARE(r.error().where, std::string("line 1, /formatVersion"));
    }

    void cliJsonHasExactlyTheDocumentedFieldsPerVersion()
    {
        auto store = openStore(db("cli.db"));
        const Json pod = loadPod();
        QVERIFY(store
                    ->write({{kPods,
                              {watchEvent(HistoryEventType::Added, pod, 1'700'000'000'000),
                               watchEvent(HistoryEventType::Modified, statusUpdate(pod, 1), 1'700'000'000'000)},
                              {},
                              {}}})
                    .ok());
        ObjectQuery q;
        q.resource = "pods";
        q.namespace_ = "prod";
        q.name = "web-7d4b9c8f6-x2x9q";
        auto json = historyJson(*store, q).value();
        QCOMPARE(json.size(), std::size_t(2));
        std::vector<std::string> keys;
        for (auto it = json[1].begin(); it != json[1].end(); ++it)
            keys.push_back(it.key());
        QCOMPARE(keys, (std::vector<std::string>{"resourceVersion", "eventType", "observedAt", "managers",
                                                 "changedPaths", "who"}));
        QVERIFY(json[1]["who"].is_null()); // no audit event was imported
        QCOMPARE(json[1]["eventType"].get<std::string>(), std::string("MODIFIED"));
        QCOMPARE(json[1]["observedAt"].get<std::string>(), std::string("2023-11-14T22:13:20.000Z"));
        QVERIFY(json[1]["managers"] == Json::array({"kubelet"}));
        QVERIFY(!json[1]["changedPaths"].empty());
        QCOMPARE(json[1]["changedPaths"][0].get<std::string>(),
                 std::string(R"(.status.conditions[type="Ready"].status)"));
        q.name = "nope";
        QCOMPARE(historyJson(*store, q).error().category, ErrorCategory::NotFound);
    }

    // attributedHistory() decodes each version's managedFields once and reuses unchanged tries;
    // every row must still be what attributing that transition on its own gives.
    void attributedHistoryEqualsAttributingEachTransition()
    {
        auto store = openStore(db("attributed.db"));
        const Json pod = loadPod();
        std::vector<Json> versions = {pod, statusUpdate(pod, 1), statusUpdate(pod, 2)};
        Json labelled = statusUpdate(pod, 3); // kubectl adds a label: a new entry
        labelled["metadata"]["labels"]["tier"] = "web";
        labelled["metadata"]["managedFields"].push_back(Json{
            {"manager", "kubectl-label"},
            {"operation", "Update"},
            {"apiVersion", "v1"},
            {"time", "2026-07-20T11:00:00Z"},
            {"fieldsType", "FieldsV1"},
            {"fieldsV1", {{"f:metadata", {{"f:labels", {{"f:tier", Json::object()}}}}}}}});
        versions.push_back(labelled);
        Json grown = labelled; // the same manager takes one more field: its trie grows
        grown["metadata"]["resourceVersion"] = "2000";
        grown["metadata"]["labels"]["zone"] = "a";
        grown["metadata"]["managedFields"][2]["fieldsV1"]["f:metadata"]["f:labels"]["f:zone"] = Json::object();
        grown["metadata"]["managedFields"][2]["time"] = "2026-07-20T11:00:05Z";
        versions.push_back(grown);
        Json restamped = grown; // and then only restamps its entry
        restamped["metadata"]["resourceVersion"] = "2001";
        restamped["metadata"]["labels"]["zone"] = "b";
        restamped["metadata"]["managedFields"][2]["time"] = "2026-07-20T11:00:09Z";
        versions.push_back(restamped);
        std::vector<WatchEvent> events;
        events.reserve(versions.size());
        for (const auto &v : versions)
            events.push_back(watchEvent(HistoryEventType::Modified, v, 1'700'000'000'000));
        QVERIFY(store->write({{kPods, events, {}, {}}}).ok());
        ObjectQuery q;
        q.allNamespaces = true;
        q.name = "web-7d4b9c8f6-x2x9q";
        const auto rows = attributedHistory(*store, q).value();
        QCOMPARE(rows.size(), versions.size());
        for (std::size_t i = 0; i < rows.size(); ++i) {
            const auto expected = attributeTransition(i ? &versions[i - 1] : nullptr, versions[i],
                                                      {HistoryEventType::Modified, false, nullptr});
            const auto &got = rows[i].attribution;
            QCOMPARE(got.managerNames(), expected.managerNames());
            QCOMPARE(got.reason, expected.reason);
            QCOMPARE(got.ambiguous, expected.ambiguous);
            QCOMPARE(got.changes.size(), expected.changes.size());
            QCOMPARE(got.losers.size(), expected.losers.size());
            for (std::size_t w = 0; w < got.writers.size(); ++w) {
                QCOMPARE(got.writers[w].who, expected.writers[w].who);
                QCOMPARE(got.writers[w].fieldsGrew, expected.writers[w].fieldsGrew);
                QCOMPARE(got.writers[w].fieldsShrank, expected.writers[w].fieldsShrank);
                QCOMPARE(got.writers[w].paths.size(), expected.writers[w].paths.size());
            }
        }
        QCOMPARE(rows[3].attribution.managerNames(), (std::vector<std::string>{"kubelet", "kubectl-label"}));
        QCOMPARE(rows[4].attribution.managerNames(), std::vector<std::string>{"kubectl-label"});
        QVERIFY(rows[4].attribution.writers[0].fieldsGrew);
        QVERIFY(!rows[5].attribution.writers[0].fieldsGrew && rows[5].attribution.writers[0].timeMoved);
    }

    // The feed both `fieldscope record` and the GUI use: a run whose first list starts past the
    // store's last resourceVersion stores the stretch nobody recorded as a gap; a run that resumes
    // exactly where the previous one stopped stores none; a relist gap the watcher reports is
    // stored as given.
    void feedRecordsTheStretchNobodyRecordedAsAGap()
    {
        const std::string path = db("feed.db").toStdString();
        const Json pod = loadPod();
        auto version = [](const Json &obj, bool listed, WatchEventType type = WatchEventType::Added) {
            ObjectVersion v;
            v.type = type;
            v.fromList = listed;
            v.json = QByteArray::fromStdString(toJsonText(obj));
            return v;
        };
        auto listBatch = [&](const Json &obj, const std::string &listRv) {
            WatchBatch b;
            b.events = {version(obj, true)};
            b.initialListComplete = true;
            b.resourceVersion = listRv;
            b.observedAtMs = QDateTime::currentMSecsSinceEpoch();
            return b;
        };
        auto run = [&](const std::function<void(HistoryFeed &)> &body) {
            HistoryRecorder::Options o;
            o.path = path;
            HistoryRecorder recorder(o);
            HistoryFeed feed(recorder, kPods);
            body(feed);
            QVERIFY(recorder.flush().ok());
        };
        run([&](HistoryFeed &f) { QCOMPARE(f.feed(listBatch(statusUpdate(pod, 1), "1001")), std::size_t(1)); });
        run([&](HistoryFeed &f) { f.feed(listBatch(statusUpdate(pod, 1), "1001")); }); // nothing happened meanwhile
        run([&](HistoryFeed &f) {
            WatchBatch firstPage = listBatch(statusUpdate(pod, 9), "");
            firstPage.initialListComplete = false; // a progressive list: pages first, its RV last
            f.feed(firstPage);
            QVERIFY(!f.initialListDone());
            WatchBatch end;
            end.initialListComplete = true;
            end.resourceVersion = "1009";
            f.feed(end);
            QVERIFY(f.initialListDone());
            WatchBatch modified;
            modified.events = {version(statusUpdate(pod, 10), false, WatchEventType::Modified)};
            f.feed(modified);
            WatchBatch relist = listBatch(statusUpdate(pod, 500), "1500");
            relist.initialListComplete = false;
            relist.gaps = {{"1010", "1500", "relist after 410"}};
            f.feed(relist);
        });
        auto store = HistoryStore::open(path, HistoryStore::OpenMode::ReadOnly).value();
        const auto gaps = store->allGaps().value();
        QCOMPARE(gaps.size(), std::size_t(2));
        // The restart gap sorts before the version its list delivered: what was missed came first.
        const auto entries = store->history(store->allObjects().value()[0].id).value();
        QCOMPARE(entries[1].kind, HistoryEntry::Kind::Gap);
        QCOMPARE(entries[2].version.resourceVersion, std::string("1009"));
        QCOMPARE(gaps[0].fromRv, std::string("1001"));
        QCOMPARE(gaps[0].toRv, std::string("1009"));
        QCOMPARE(gaps[0].reason, std::string(HistoryFeed::kNotRecordingReason));
        QCOMPARE(gaps[1].fromRv, std::string("1010"));
        QCOMPARE(gaps[1].toRv, std::string("1500"));
        QCOMPARE(store->lastResourceVersion(kPods.id).value(), std::string("1500"));
        const auto versions = store->versions(store->allObjects().value()[0].id).value();
        std::vector<std::string> rvs;
        rvs.reserve(versions.size());
        for (const auto &v : versions)
            rvs.push_back(v.resourceVersion);
        QCOMPARE(rvs, (std::vector<std::string>{"1001", "1009", "1010", "1500"})); // the repeated 1001 is stored once
    }

    void restartGapLeftOpenByACrashSaysItsEndIsUnknown()
    {
        const std::string path = db("open-gap.db").toStdString();
        const Json pod = loadPod();
        auto store = openStore(QString::fromStdString(path));
        QVERIFY(store->write({{kPods, {watchEvent(HistoryEventType::Listed, pod)}, {}, "1000", {}}}).ok());
        // A run's list starts, then the process dies before the list completes.
        QVERIFY(store
                    ->write({{kPods,
                              {watchEvent(HistoryEventType::Listed, statusUpdate(pod, 5))},
                              {},
                              {},
                              HistoryFeed::kNotRecordingReason}})
                    .ok());
        auto gaps = store->allGaps().value();
        QCOMPARE(gaps.size(), std::size_t(1));
        QCOMPARE(gaps[0].fromRv, std::string("1000"));
        QCOMPARE(gaps[0].toRv, std::string()); // not invented
        // The next run reuses the open gap and closes it when its list completes.
        QVERIFY(store->write({{kPods, {}, {}, {}, HistoryFeed::kNotRecordingReason}}).ok());
        QVERIFY(store->write({{kPods, {}, {}, "1007", HistoryFeed::kNotRecordingReason}}).ok());
        gaps = store->allGaps().value();
        QCOMPARE(gaps.size(), std::size_t(1));
        QCOMPARE(gaps[0].toRv, std::string("1007"));
    }

    void loadedHistoryPairsEveryVersionWithItsObject()
    {
        auto store = openStore(db("loaded.db"));
        const Json pod = loadPod();
        HistoryWriteItem gap{kPods, {}, HistoryGap{{}, "1001", "1500", "relist after 410", 5, 0}, "1500", {}};
        QVERIFY(store
                    ->write({{kPods, {watchEvent(HistoryEventType::Added, pod)}, {}, {}, {}},
                             gap,
                             {kPods, {watchEvent(HistoryEventType::Listed, statusUpdate(pod, 7))}, {}, {}, {}}})
                    .ok());
        ObjectQuery q;
        q.allNamespaces = true;
        q.name = "web-7d4b9c8f6-x2x9q";
        const auto h = loadHistory(*store, q).value();
        QCOMPARE(h.entries.size(), std::size_t(3));
        QCOMPARE(h.objects.size(), h.entries.size());
        QVERIFY(jsonEqual(h.objects[0], pod));
        QCOMPARE(h.entries[1].entry.kind, HistoryEntry::Kind::Gap);
        QVERIFY(h.objects[1].is_null());
        QVERIFY(jsonEqual(h.objects[2], statusUpdate(pod, 7)));
        QVERIFY(h.entries[2].attribution.reason.find("not observed") != std::string::npos
                || !h.entries[2].attribution.changes.empty());
    }
};

QTEST_GUILESS_MAIN(TestHistoryStore)
#include "tst_historystore.moc"
