// The Events tab's model: newest first, bounded to the newest events (older ones counted and said
// in the header), and cheap to feed under a flood.
#include "core/base/json.h"
#include "models/eventtablemodel.h"

#include <QAbstractItemModelTester>
#include <QElapsedTimer>
#include <QTest>

using namespace fieldscope;
using models::EventTableModel;

namespace {

const QDateTime kStart = QDateTime::fromString(QStringLiteral("2026-07-20T09:00:00Z"), Qt::ISODate);

core::ObjectVersion eventVersion(const std::string &uid, qint64 secondsAfterStart, const std::string &reason,
                                 core::WatchEventType type = core::WatchEventType::Added)
{
    const core::Json j = {{"metadata", {{"uid", uid}, {"name", "web." + uid}}},
                          {"reason", reason},
                          {"message", "about " + uid},
                          {"type", "Normal"},
                          {"count", 1},
                          {"lastTimestamp", kStart.addSecs(secondsAfterStart).toString(Qt::ISODate).toStdString()}};
    core::ObjectVersion v;
    v.type = type;
    v.uid = uid;
    v.json = QByteArray::fromStdString(core::toJsonText(j));
    return v;
}

QString reasonAt(const EventTableModel &m, int row)
{
    return m.index(row, EventTableModel::ReasonColumn).data().toString();
}

} // namespace

class TestEventTableModel : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void floodKeepsTheNewestEventsUpToTheCapInOrder()
    {
        EventTableModel m;
        QAbstractItemModelTester tester(&m, QAbstractItemModelTester::FailureReportingMode::QtTest);
        constexpr int kEvents = 50'000;
        QElapsedTimer clock;
        clock.start();
        for (int b = 0; b < kEvents / 1000; ++b) {
            core::WatchBatch batch;
            for (int i = b * 1000; i < (b + 1) * 1000; ++i)
                batch.events.push_back(eventVersion("e" + std::to_string(i), i, "r" + std::to_string(i)));
            m.applyBatch(batch);
        }
        qInfo("50,000 events applied in %lld ms", clock.elapsed());
        QCOMPARE(m.rowCount(), EventTableModel::kMaxEvents);
        QCOMPARE(m.droppedCount(), qint64(kEvents - EventTableModel::kMaxEvents));
        QCOMPARE(reasonAt(m, 0), QStringLiteral("r49999")); // newest first
        QCOMPARE(reasonAt(m, EventTableModel::kMaxEvents - 1), QStringLiteral("r45000"));
        for (int r = 1; r < m.rowCount(); ++r)
            QCOMPARE(QStringView(reasonAt(m, r)).mid(1).toInt(), QStringView(reasonAt(m, r - 1)).mid(1).toInt() - 1);
        QVERIFY(
            m.headerData(EventTableModel::MessageColumn, Qt::Horizontal).toString().contains(QStringLiteral("45000")));
        // An event older than every kept one is counted, not shown.
        m.applyBatch({"", {eventVersion("old", -10, "ancient")}, {}, false, "", 0});
        QCOMPARE(m.rowCount(), EventTableModel::kMaxEvents);
        QCOMPARE(m.droppedCount(), qint64(kEvents - EventTableModel::kMaxEvents + 1));
        m.clear();
        QCOMPARE(m.droppedCount(), qint64(0));
        QCOMPARE(m.headerData(EventTableModel::MessageColumn, Qt::Horizontal).toString(), QStringLiteral("Message"));
    }

    void eventsAreSortedByLastSeenAndMoveWhenTheyChange()
    {
        EventTableModel m(nullptr, 3);
        QAbstractItemModelTester tester(&m, QAbstractItemModelTester::FailureReportingMode::QtTest);
        m.applyBatch({"",
                      {eventVersion("a", 10, "A"), eventVersion("b", 30, "B"), eventVersion("c", 20, "C")},
                      {},
                      false,
                      "",
                      0});
        QCOMPARE(reasonAt(m, 0), QStringLiteral("B"));
        QCOMPARE(reasonAt(m, 1), QStringLiteral("C"));
        QCOMPARE(reasonAt(m, 2), QStringLiteral("A"));
        // "a" seen again (count and last seen change): it moves to the top, no duplicate row.
        m.applyBatch({"", {eventVersion("a", 40, "A2", core::WatchEventType::Modified)}, {}, false, "", 0});
        QCOMPARE(m.rowCount(), 3);
        QCOMPARE(reasonAt(m, 0), QStringLiteral("A2"));
        QCOMPARE(reasonAt(m, 2), QStringLiteral("C"));
        // Expired (deleted): gone.
        m.applyBatch({"", {eventVersion("b", 30, "B", core::WatchEventType::Deleted)}, {}, false, "", 0});
        QCOMPARE(m.rowCount(), 2);
        QCOMPARE(reasonAt(m, 1), QStringLiteral("C"));
        // Over the cap of 3: the oldest ("c" at 20) is dropped and counted.
        m.applyBatch({"", {eventVersion("d", 25, "D"), eventVersion("e", 50, "E")}, {}, false, "", 0});
        QCOMPARE(m.rowCount(), 3);
        QCOMPARE(reasonAt(m, 0), QStringLiteral("E"));
        QCOMPARE(reasonAt(m, 1), QStringLiteral("A2"));
        QCOMPARE(reasonAt(m, 2), QStringLiteral("D"));
        QCOMPARE(m.droppedCount(), qint64(1));
        // Among events seen in the same second, the one received last is shown first.
        m.applyBatch({"", {eventVersion("f", 50, "F")}, {}, false, "", 0});
        QCOMPARE(reasonAt(m, 0), QStringLiteral("F"));
        QCOMPARE(reasonAt(m, 1), QStringLiteral("E"));
    }

    void wrongTypedFieldsReadAsAbsent()
    {
        EventTableModel m;
        QAbstractItemModelTester tester(&m, QAbstractItemModelTester::FailureReportingMode::QtTest);
        core::ObjectVersion v;
        v.uid = "x";
        v.json = R"j({"metadata":[1],"reason":7,"message":{"a":1},"source":"kubelet","count":"3"})j";
        m.applyBatch({"", {v}, {}, false, "", 0});
        QCOMPARE(m.rowCount(), 1);
        QCOMPARE(reasonAt(m, 0), QString());
        QCOMPARE(m.index(0, EventTableModel::CountColumn).data().toLongLong(), 1LL);
    }
};

QTEST_GUILESS_MAIN(TestEventTableModel)
#include "tst_eventtablemodel.moc"
