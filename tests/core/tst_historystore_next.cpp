// HistoryStore::write(items, next): the caller's next write is read while the database finishes
// this one, and that next write stores exactly what it would have stored unread, on the SQLite
// file and (the _postgres build) on the test PostgreSQL. A next write the caller changed in the
// meantime is read again, never stored as it was.
#include "core/history/historystore.h"

#include <QTemporaryDir>
#include <QTest>

#include <map>
#include <string>
#ifdef FIELDSCOPE_TEST_POSTGRES
#include "testpostgres.h"
#endif

using namespace fieldscope::core;

namespace {

const WatchScope kMaps = WatchScope::of({"", "v1", "configmaps"}, "next");

std::string configMap(int i, long long rv, const std::string &value)
{
    return "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"cm-" + std::to_string(i)
         + "\",\"namespace\":\"next\",\"uid\":\"uid-" + std::to_string(i) + "\",\"resourceVersion\":\""
         + std::to_string(rv) + "\"},\"data\":{\"v\":\"" + value + "\",\"pad\":\"" + std::string(200, 'p') + "\"}}";
}

// `rounds` writes of `objects` ConfigMaps each, one version of each object per write.
std::vector<std::vector<HistoryWriteItem>> rounds(int count, int objects)
{
    std::vector<std::vector<HistoryWriteItem>> out;
    long long rv = 1000;
    for (int r = 0; r < count; ++r) {
        std::vector<WatchEvent> events;
        for (int i = 0; i < objects; ++i)
            events.push_back({r == 0 ? HistoryEventType::Added : HistoryEventType::Modified,
                              configMap(i, ++rv, "round " + std::to_string(r)), 1'784'000'000'000 + rv});
        out.push_back({{kMaps, std::move(events), {}, {}}});
    }
    return out;
}

// Every version of every object, as stored: uid -> (rv -> text).
std::map<std::string, std::map<std::string, std::string>> everything(HistoryStore &store)
{
    std::map<std::string, std::map<std::string, std::string>> out;
    const auto objects = store.allObjects().value();
    for (const auto &o : objects) {
        const auto versions = store.versions(o.id).value();
        for (const auto &v : versions)
            out[o.ref.uid][v.resourceVersion] = toJsonText(store.loadVersion(o.id, v.seq).value());
    }
    return out;
}

// What the events say: uid -> (rv -> text).
std::map<std::string, std::map<std::string, std::string>>
expected(const std::vector<std::vector<HistoryWriteItem>> &all)
{
    std::map<std::string, std::map<std::string, std::string>> out;
    for (const auto &write : all)
        for (const auto &item : write)
            for (const auto &e : item.events) {
                const Json j = parseJson(e.objectJson).value();
                out[j["metadata"]["uid"].get<std::string>()][j["metadata"]["resourceVersion"].get<std::string>()] =
                    toJsonText(j);
            }
    return out;
}

} // namespace

class TestHistoryStoreNext : public QObject
{
    Q_OBJECT
    QTemporaryDir m_dir;

    std::unique_ptr<HistoryStore> openStore(const char *name)
    {
#ifdef FIELDSCOPE_TEST_POSTGRES
        const std::string location = testpostgres::freshDatabase(QString::fromLatin1(name));
#else
        const std::string location = m_dir.filePath(QLatin1String(name)).toStdString();
#endif
        HistoryOpenOptions options;
        options.clusterIdentity = "sha256:next";
        auto store = HistoryStore::open(location, HistoryStore::OpenMode::ReadWrite, options);
        if (!store)
            qFatal("%s", store.error().describe().c_str());
        return std::move(*store);
    }

private Q_SLOTS:
    void eachWriteNamingTheNextHasItReadAndStoredAsWrittenAlone()
    {
        auto store = openStore("next_chain");
        const auto all = rounds(5, 300);
        for (std::size_t w = 0; w < all.size(); ++w) {
            const auto report = store->write(all[w], w + 1 < all.size() ? &all[w + 1] : nullptr);
            QVERIFY2(report.ok(), report ? "" : report.error().describe().c_str());
            QCOMPARE(report->versions.size(), std::size_t(300));
            // The first write was named by none; each after it was read while the one before committed.
            QCOMPARE(report->readBeforehand, w == 0 ? std::int64_t(0) : std::int64_t(300));
        }
        QVERIFY(everything(*store) == expected(all));
    }

    void aNextWriteChangedBeforeItIsWrittenIsReadAgain()
    {
        auto store = openStore("next_changed");
        auto all = rounds(2, 50);
        QVERIFY(store->write(all[0], &all[1]).ok());
        // Against the contract, the caller changes the next write: the same lengths, another value
        // (a different resourceVersion and data); and a second event replaced by a longer one.
        std::string &first = all[1][0].events[0].objectJson;
        const std::string changed = configMap(0, 9001, "round 9");
        QCOMPARE(changed.size(), first.size());
        std::copy(changed.begin(), changed.end(), first.begin()); // in place: the same address
        all[1][0].events[1].objectJson = configMap(1, 9002, "a longer value than before");
        const auto report = store->write(all[1]);
        QVERIFY2(report.ok(), report ? "" : report.error().describe().c_str());
        QCOMPARE(report->readBeforehand, std::int64_t(0));
        QVERIFY(everything(*store) == expected(all));
        QVERIFY(everything(*store).at("uid-0").count("9001"));
    }

    void aNextWriteGivenAnotherVectorIsReadAgain()
    {
        auto store = openStore("next_other");
        const auto all = rounds(2, 20);
        QVERIFY(store->write(all[0], &all[1]).ok());
        const std::vector<HistoryWriteItem> copy = all[1]; // equal items, other texts
        const auto report = store->write(copy);
        QVERIFY2(report.ok(), report ? "" : report.error().describe().c_str());
        QCOMPARE(report->readBeforehand, std::int64_t(0));
        QVERIFY(everything(*store) == expected(all));
    }
};

QTEST_GUILESS_MAIN(TestHistoryStoreNext)
#include "tst_historystore_next.moc"
