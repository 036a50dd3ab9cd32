// SlotIndex, the table's uid -> slot index that stores slot numbers only: checked against
// std::unordered_map over long random runs of inserts and erases (small tables, so probe runs
// wrap around the end and deletions shift members of other runs).
#include "core/objects/slotindex.h"

#include <QTest>

#include <random>
#include <string>
#include <unordered_map>
#include <vector>

using fieldscope::core::SlotIndex;

namespace {
struct KeyOfSlot {
    const std::vector<std::string> *keys;
    std::string_view operator()(int slot) const { return (*keys)[std::size_t(slot)]; }
};
} // namespace

class TestSlotIndex : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void emptyIndexFindsNothing()
    {
        std::vector<std::string> keys;
        SlotIndex<KeyOfSlot> index{KeyOfSlot{&keys}};
        QCOMPARE(index.find("a"), -1);
        QVERIFY(!index.erase("a"));
        QCOMPARE(index.size(), std::size_t(0));
    }

    void randomInsertsAndErasesAgreeWithAHashMap_data()
    {
        QTest::addColumn<int>("keySpace");
        QTest::addColumn<unsigned>("seed");
        QTest::newRow("12 keys") << 12 << 1u;
        QTest::newRow("100 keys") << 100 << 2u;
        QTest::newRow("5000 keys") << 5000 << 3u;
    }
    void randomInsertsAndErasesAgreeWithAHashMap()
    {
        QFETCH(int, keySpace);
        QFETCH(unsigned, seed);
        // Slots are positions in `keys`; a slot is reused with a new key after its erase, as the
        // table's rows are.
        std::vector<std::string> keys;
        std::vector<int> freeSlots;
        SlotIndex<KeyOfSlot> index{KeyOfSlot{&keys}};
        std::unordered_map<std::string, int> reference;
        std::mt19937 rng(seed);
        for (int step = 0; step < 40 * keySpace; ++step) {
            const std::string key = "uid-" + std::to_string(rng() % unsigned(keySpace));
            const auto it = reference.find(key);
            QCOMPARE(index.find(key), it == reference.end() ? -1 : it->second);
            if (it == reference.end()) {
                int slot;
                if (!freeSlots.empty()) {
                    slot = freeSlots.back();
                    freeSlots.pop_back();
                    keys[std::size_t(slot)] = key;
                } else {
                    slot = int(keys.size());
                    keys.push_back(key);
                }
                index.insert(slot);
                reference.emplace(key, slot);
            } else if (rng() % 3 != 0) { // erase more often than not: the index shrinks too
                QVERIFY(index.erase(key));
                freeSlots.push_back(it->second);
                keys[std::size_t(it->second)] = "(free)";
                reference.erase(it);
            }
            QCOMPARE(index.size(), reference.size());
        }
        for (const auto &[key, slot] : reference)
            QCOMPARE(index.find(key), slot);
        QVERIFY(index.buckets() * 3 >= index.size() * 4); // never more than 3/4 full
    }

    void reservedRoomIsNotRehashedWhileFilling()
    {
        std::vector<std::string> keys;
        SlotIndex<KeyOfSlot> index{KeyOfSlot{&keys}};
        index.reserve(1000);
        const std::size_t buckets = index.buckets();
        QVERIFY(buckets >= 1000);
        for (int i = 0; i < 1000; ++i) {
            keys.push_back("k" + std::to_string(i));
            index.insert(i);
        }
        QCOMPARE(index.buckets(), buckets);
        QCOMPARE(index.find("k999"), 999);
        index.clear();
        QCOMPARE(index.buckets(), std::size_t(0));
        QCOMPARE(index.find("k1"), -1);
    }
};

QTEST_GUILESS_MAIN(TestSlotIndex)
#include "tst_slotindex.moc"
