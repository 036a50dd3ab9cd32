// HistoryStore's list lookups (findObjects of many queries, versionsAfter): each answer is the one
// the single-object lookup gives, across the statements' shapes (1, 8 and 64 entries, padded), on
// the SQLite file and (run as tst_historystore_lists_postgres) on the test PostgreSQL.
#include "core/history/historystore.h"
#include "storefixtures.h"

#include <QTemporaryDir>
#include <QTest>

#include <string>

using namespace fieldscope::core;

namespace {

const WatchScope kMaps = WatchScope::of({"", "v1", "configmaps"}, "team");

std::string configMap(const std::string &ns, const std::string &name, const std::string &uid, long long rv)
{
    return "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"" + name + "\",\"namespace\":\"" + ns
         + "\",\"uid\":\"" + uid + "\",\"resourceVersion\":\"" + std::to_string(rv) + "\"},\"data\":{\"v\":\""
         + std::to_string(rv) + "\"}}";
}

ObjectQuery named(const std::string &resource, const std::string &ns, const std::string &name)
{
    ObjectQuery q;
    q.resource = resource;
    q.namespace_ = ns;
    q.name = name;
    return q;
}

// One number of each row (HistoryObject::id, VersionInfo::seq), in order.
template<class Row>
std::vector<std::int64_t> numbers(const std::vector<Row> &rows, std::int64_t Row::*member)
{
    std::vector<std::int64_t> out;
    out.reserve(rows.size());
    for (const Row &r : rows)
        out.push_back(r.*member);
    return out;
}

std::vector<std::int64_t> idsOf(const std::vector<HistoryObject> &objects)
{
    return numbers(objects, &HistoryObject::id);
}

std::vector<std::int64_t> seqsOf(const std::vector<VersionInfo> &versions)
{
    return numbers(versions, &VersionInfo::seq);
}

} // namespace

class TestHistoryStoreLists : public QObject
{
    Q_OBJECT
    QTemporaryDir m_dir;

    std::string location(const char *name) const { return storefixtures::storeLocation(m_dir, name); }

    // 70 ConfigMaps m-0..m-69 in "team" (m-i with i % 5 + 1 versions), the second incarnation of
    // m-3 (deleted, then made again under a new uid), a same-named m-1 in "other" and a
    // Namespace m-1 (no namespace of its own).
    std::unique_ptr<HistoryStore> filledStore(const char *name)
    {
        auto store = HistoryStore::open(location(name));
        if (!store)
            qFatal("%s", store.error().describe().c_str());
        std::vector<WatchEvent> events;
        long long rv = 100;
        for (int round = 0; round < 5; ++round)
            for (int i = 0; i < 70; ++i)
                if (round <= i % 5)
                    events.push_back({round == 0 ? HistoryEventType::Added : HistoryEventType::Modified,
                                      configMap("team", "m-" + std::to_string(i), "u-" + std::to_string(i), ++rv),
                                      1'784'000'000'000 + rv});
        events.push_back({HistoryEventType::Deleted, configMap("team", "m-3", "u-3", ++rv), 1'784'000'000'000 + rv});
        events.push_back({HistoryEventType::Added, configMap("team", "m-3", "u-3-again", ++rv),
                          1'784'000'000'000 + rv});
        events.push_back({HistoryEventType::Added, configMap("other", "m-1", "u-other", ++rv), 1'784'000'000'000 + rv});
        const std::string ns = "{\"apiVersion\":\"v1\",\"kind\":\"Namespace\",\"metadata\":{\"name\":\"m-1\","
                               "\"uid\":\"u-ns\",\"resourceVersion\":\"99\"}}";
        if (auto r = (*store)->write({{kMaps, std::move(events), {}, {}},
                                      {WatchScope::of({"", "v1", "namespaces"}, ""),
                                       {{HistoryEventType::Added, ns, 1'784'000'000'000}},
                                       {},
                                       {}}});
            !r)
            qFatal("%s", r.error().describe().c_str());
        return std::move(*store);
    }

private Q_SLOTS:
    // 1, 8, 9 and 70 queries (each statement shape, a padded one, more than one statement), with
    // names that are absent, named twice, quoted like SQL, of another resource, of an object
    // without a namespace, or of every namespace (looked up alone): every answer is findObjects'
    // own for that query, in its place.
    void manyQueriesAnswerEachAsItsOwnLookupWould()
    {
        auto store = filledStore("lists-objects.db");
        std::vector<ObjectQuery> all;
        for (int i = 69; i >= 0; --i)
            all.push_back(named("configmaps", "team", "m-" + std::to_string(i)));
        all[5] = named("configmaps", "team", "absent");
        all[6] = named("configmaps", "team", "m-' OR '1'='1");
        all[7] = named("secrets", "team", "m-7");
        all[8] = named("ConfigMap", "team", "m-3");
        all[9] = named("configmaps", "team", "m-64"); // the same query twice
        all[10] = named("namespaces", "", "m-1");
        all[11].resource = "configmaps";
        all[11].allNamespaces = true;
        all[11].name = "m-1";
        for (const std::size_t count : {std::size_t(1), std::size_t(8), std::size_t(9), all.size()}) {
            const std::vector<ObjectQuery> queries(all.begin(), all.begin() + std::ptrdiff_t(count));
            auto answers = store->findObjects(queries);
            QVERIFY2(answers.ok(), answers ? "" : answers.error().describe().c_str());
            QCOMPARE(answers->size(), count);
            for (std::size_t i = 0; i < count; ++i) {
                auto alone = store->findObjects(queries[i]);
                QVERIFY(alone.ok());
                QCOMPARE(idsOf((*answers)[i]), idsOf(*alone));
            }
        }
        auto answers = store->findObjects(all);
        QVERIFY(answers.ok());
        QCOMPARE((*answers)[5].size(), std::size_t(0));
        QCOMPARE((*answers)[6].size(), std::size_t(0));
        QCOMPARE((*answers)[7].size(), std::size_t(0));
        QCOMPARE((*answers)[8].size(), std::size_t(2)); // m-3 and its second incarnation
        QCOMPARE((*answers)[8][1].ref.uid, std::string("u-3-again"));
        QCOMPARE((*answers)[9].size(), std::size_t(1));
        QCOMPARE((*answers)[9][0].ref.name, std::string("m-64"));
        QCOMPARE((*answers)[10].size(), std::size_t(1)); // the Namespace m-1
        QCOMPARE((*answers)[10][0].ref.kind, std::string("Namespace"));
        QCOMPARE((*answers)[11].size(), std::size_t(2)); // the ConfigMaps m-1 in "team" and in "other"
        QCOMPARE((*store->findObjects(std::vector<ObjectQuery>{})).size(), std::size_t(0));
    }

    // Each object's versions after a seq, in order and as versions(id) lists them: from the
    // start, from the middle, past the last, of an id no object has, the same object twice.
    void versionsAfterListsEachObjectsLaterVersionsAsVersionsDoes()
    {
        auto store = filledStore("lists-versions.db");
        auto objects = store->allObjects();
        QVERIFY(objects.ok());
        QCOMPARE(objects->size(), std::size_t(73));
        std::vector<std::pair<std::int64_t, std::int64_t>> after;
        for (const auto &o : *objects)
            after.emplace_back(o.id, std::int64_t(after.size() % 4));
        after.emplace_back(987654321, 0);
        after.emplace_back((*objects)[4].id, 1);
        for (const std::size_t count : {std::size_t(1), std::size_t(8), std::size_t(9), after.size()}) {
            const std::vector<std::pair<std::int64_t, std::int64_t>> asked(after.begin(),
                                                                           after.begin() + std::ptrdiff_t(count));
            auto lists = store->versionsAfter(asked);
            QVERIFY2(lists.ok(), lists ? "" : lists.error().describe().c_str());
            QCOMPARE(lists->size(), count);
            for (std::size_t i = 0; i < count; ++i) {
                auto alone = store->versions(asked[i].first);
                QVERIFY(alone.ok());
                std::vector<std::int64_t> expected;
                for (const auto &v : *alone)
                    if (v.seq > asked[i].second)
                        expected.push_back(v.seq);
                QCOMPARE(seqsOf((*lists)[i]), expected);
                for (const VersionInfo &got : (*lists)[i]) {
                    const auto same = std::find_if(alone->begin(), alone->end(),
                                                   [&](const VersionInfo &v) { return v.seq == got.seq; });
                    QCOMPARE(got.objectId, same->objectId);
                    QCOMPARE(got.resourceVersion, same->resourceVersion);
                    QCOMPARE(got.eventType, same->eventType);
                    QCOMPARE(got.observedAtMs, same->observedAtMs);
                    QCOMPARE(got.ord, same->ord);
                    QCOMPARE(got.uid, same->uid);
                    QCOMPARE(got.storedBytes, same->storedBytes);
                }
            }
        }
        auto lists = store->versionsAfter(after);
        QVERIFY(lists.ok());
        std::size_t listed = 0;
        for (const auto &l : *lists)
            listed += l.size();
        QVERIFY(listed > 100);                                       // not a comparison of empty lists
        QCOMPARE((*lists)[after.size() - 2].size(), std::size_t(0)); // no such object
        QCOMPARE(store->versionsAfter({}).value().size(), std::size_t(0));
    }
};

QTEST_GUILESS_MAIN(TestHistoryStoreLists)
#include "tst_historystore_lists.moc"
