// ObjectStore, the watcher's current state of a scope: what apply() accepts and refuses, and
// that slots freed by deletions are reused without confusing the uid index.
#include "core/objects/objectstore.h"

#include <QTest>

#include <set>

using namespace fieldscope::core;

namespace {
ObjectVersion version(const std::string &uid, const std::string &name, const std::string &rv,
                      WatchEventType type = WatchEventType::Added)
{
    ObjectVersion v;
    v.type = type;
    v.uid = uid;
    v.namespace_ = "default";
    v.name = name;
    v.resourceVersion = rv;
    v.json = QByteArray::fromStdString(R"({"metadata":{"name":")" + name + R"(","namespace":"default","uid":")" + uid
                                       + R"(","resourceVersion":")" + rv + R"("}})");
    return v;
}
} // namespace

class TestObjectStore : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void applyStoresUpdatesAndRefusesDuplicates()
    {
        ObjectStore store;
        QVERIFY(store.apply(version("u1", "a", "1")));
        QVERIFY(!store.apply(version("u1", "a", "1", WatchEventType::Modified))); // same RV: a duplicate
        QVERIFY(store.apply(version("u1", "a-renamed", "2", WatchEventType::Modified)));
        const StoredObject *o = store.find("u1");
        QVERIFY(o);
        QCOMPARE(o->resourceVersion(), std::string_view("2"));
        QCOMPARE(o->name(), std::string_view("a-renamed"));
        QVERIFY(o->json().contains("a-renamed"));
        QCOMPARE(store.size(), std::size_t(1));
        QCOMPARE(store.jsonBytes(), std::size_t(version("u1", "a-renamed", "2").json.size()));
        QVERIFY(!store.apply(version("nobody", "x", "3", WatchEventType::Deleted))); // unknown: not delivered
        QVERIFY(store.apply(version("u1", "a-renamed", "4", WatchEventType::Deleted)));
        QVERIFY(!store.find("u1"));
        QCOMPARE(store.size(), std::size_t(0));
        QCOMPARE(store.jsonBytes(), std::size_t(0));
    }

    // Deleting and creating in turns reuses freed slots; every uid still finds its own object.
    void freedSlotsAreReusedWithoutMixingObjectsUp()
    {
        ObjectStore store;
        for (int i = 0; i < 200; ++i)
            QVERIFY(store.apply(version("u" + std::to_string(i), "n" + std::to_string(i), "1")));
        for (int i = 0; i < 200; i += 2)
            QVERIFY(store.apply(version("u" + std::to_string(i), "n" + std::to_string(i), "2",
                                        WatchEventType::Deleted)));
        for (int i = 200; i < 300; ++i)
            QVERIFY(store.apply(version("u" + std::to_string(i), "n" + std::to_string(i), "3")));
        QCOMPARE(store.size(), std::size_t(200));
        for (int i = 0; i < 300; ++i) {
            const StoredObject *o = store.find("u" + std::to_string(i));
            if (i < 200 && i % 2 == 0) {
                QVERIFY(!o);
                continue;
            }
            QVERIFY(o);
            QCOMPARE(o->uid(), std::string_view("u" + std::to_string(i)));
            QCOMPARE(o->name(), std::string_view("n" + std::to_string(i)));
        }
        std::set<std::string> seen;
        store.forEach([&seen](const StoredObject &o) { seen.insert(std::string(o.uid())); });
        QCOMPARE(seen.size(), std::size_t(200));
        QVERIFY(!seen.count("u0") && seen.count("u1") && seen.count("u299"));
    }

    // An object whose JSON is empty is still an object (a free slot is told apart by null JSON).
    void anObjectWithoutJsonIsStillStored()
    {
        ObjectStore store;
        ObjectVersion v = version("u1", "a", "1");
        v.json = QByteArray();
        QVERIFY(store.apply(v));
        QCOMPARE(store.size(), std::size_t(1));
        QVERIFY(store.find("u1"));
        QCOMPARE(store.find("u1")->name(), std::string_view("a")); // kept as a copy
        int visited = 0;
        store.forEach([&visited](const StoredObject &) { ++visited; });
        QCOMPARE(visited, 1);
        store.clear();
        QCOMPARE(store.size(), std::size_t(0));
        QVERIFY(!store.find("u1"));
    }
};

QTEST_GUILESS_MAIN(TestObjectStore)
#include "tst_objectstore.moc"
