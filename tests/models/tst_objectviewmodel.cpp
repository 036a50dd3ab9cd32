// ObjectTableModel + ObjectViewModel + ResourceKindsModel fed with synthetic watch batches, each
// checked by QAbstractItemModelTester and compared as a text dump.
#include "core/objects/objectstore.h"
#include "models/labelselector.h"
#include "models/objecttablemodel.h"
#include "models/objectviewmodel.h"
#include "models/resourcekindsmodel.h"

#include <QAbstractItemModelTester>
#include <QFont>
#include <QItemSelectionModel>
#include <QLocale>
#include <QSignalSpy>
#include <QTest>

#include <algorithm>
#include <tuple>

using namespace fieldscope;
using models::ObjectTableModel;

namespace {

core::ObjectVersion object(const std::string &ns, const std::string &name, const std::string &rv,
                           const std::string &labels = {}, core::WatchEventType type = core::WatchEventType::Added)
{
    core::ObjectVersion v;
    v.type = type;
    v.uid = "uid-" + ns + "-" + name;
    v.namespace_ = ns;
    v.name = name;
    v.resourceVersion = rv;
    v.creationTimestamp = "2024-01-01T00:00:00Z";
    v.managerCount = 1;
    v.lastManager = "kubectl";
    v.lastManagerOperation = "Update";
    v.json = QByteArray::fromStdString(R"({"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":")" + name
                                       + R"(","namespace":")" + ns + R"(","labels":{)" + labels
                                       + R"(}},"data":{"k":"v"}})");
    return v;
}

// The labels of a Job's Pod (an ordinary literal: moc does not read raw strings).
std::string jobLabel(const std::string &job)
{
    return "\"job-name\":\"" + job + "\"";
}

core::WatchBatch batch(std::vector<core::ObjectVersion> events)
{
    core::WatchBatch b;
    b.events = std::move(events);
    return b;
}

// 150 objects whose names sort like their index i (resourceVersion i), arriving in another order
// (the k-th to arrive is arrivalIndex(k)).
std::string name(int i)
{
    return "n" + std::to_string(1000 + i);
}

int arrivalIndex(int k)
{
    return k * 37 % 150;
}

core::WatchBatch manyObjects()
{
    std::vector<core::ObjectVersion> objects;
    objects.reserve(150);
    for (int k = 0; k < 150; ++k)
        objects.push_back(object("a", name(arrivalIndex(k)), std::to_string(arrivalIndex(k))));
    return batch(std::move(objects));
}

QString dump(const QAbstractItemModel &m)
{
    QStringList lines;
    for (int r = 0; r < m.rowCount(); ++r) {
        const QString ns = m.index(r, ObjectTableModel::Namespace).data().toString();
        lines << (ns.isEmpty() ? QString() : ns + u'/') + m.index(r, ObjectTableModel::Name).data().toString() + u' '
                     + m.index(r, ObjectTableModel::ResourceVersion).data().toString();
    }
    return lines.join(u'\n');
}

struct Fixture {
    ObjectTableModel table;
    models::ObjectViewModel view;
    QAbstractItemModelTester tableTester{&table, QAbstractItemModelTester::FailureReportingMode::QtTest};
    QAbstractItemModelTester viewTester{&view, QAbstractItemModelTester::FailureReportingMode::QtTest};
    Fixture()
    {
        table.setNow(QDateTime::fromString(QStringLiteral("2024-01-02T00:00:00Z"), Qt::ISODate));
        view.setSourceModel(&table);
        view.sort(ObjectTableModel::Name, Qt::AscendingOrder);
    }
};

} // namespace

class TestObjectViewModel : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    // A list that announces its size: the uid index grows to it first, then 150 rows arriving in
    // batches never make it rehash (each rehash walks every row: 12-18 ms at 42,043 / 85,229 buckets
    // on the GUI thread), and the rows are exact.
    void indexMakesRoomForAnnouncedRowsOnce()
    {
        Fixture f;
        f.table.expectRows(150);
        const std::size_t buckets = f.table.indexBuckets();
        QVERIFY2(buckets >= 150, qPrintable(QString::number(buckets)));
        f.table.expectRows(100); // a smaller estimate later changes nothing
        QCOMPARE(f.table.indexBuckets(), buckets);
        core::WatchBatch all = manyObjects();
        for (std::size_t from = 0; from < all.events.size(); from += 25) {
            std::vector<core::ObjectVersion> part(all.events.begin() + std::ptrdiff_t(from),
                                                  all.events.begin() + std::ptrdiff_t(from + 25));
            f.table.applyBatch(batch(std::move(part)));
            QCOMPARE(f.table.indexBuckets(), buckets);
        }
        QCOMPARE(f.table.rowCount(), 150);
        QCOMPARE(f.view.index(0, ObjectTableModel::Name).data().toString(), QString::fromStdString(name(0)));
        QCOMPARE(f.view.index(149, ObjectTableModel::Name).data().toString(), QString::fromStdString(name(149)));
    }

    // Replicas carry the same labels and mostly one last manager: the model keeps one copy of
    // each for all of them (150,000 Pods: ~35 MB less), while each row still answers its own.
    void rowsWithEqualLabelsAndManagersShareOneCopy()
    {
        Fixture f;
        auto a = object("shop", "web-1", "1", R"("app":"web","tier":"front")");
        auto b = object("shop", "web-2", "2", R"("tier":"front","app":"web")"); // the same set, other order
        auto c = object("shop", "db-1", "3", R"("app":"db")");
        auto d = object("shop", "bare", "4");
        c.lastManager = "kube-controller-manager";
        f.table.applyBatch(batch({a, b, c, d}));
        const auto &r1 = f.table.row(f.table.rowOf(a.uid));
        const auto &r2 = f.table.row(f.table.rowOf(b.uid));
        const auto &r3 = f.table.row(f.table.rowOf(c.uid));
        const auto &r4 = f.table.row(f.table.rowOf(d.uid));
        QVERIFY(r1.labelSet && r1.labelSet == r2.labelSet);
        QVERIFY(r3.labelSet && r3.labelSet != r1.labelSet);
        QVERIFY(!r4.labelSet);
        QVERIFY(r4.labels().empty());
        QCOMPARE(r1.labels(), (models::Labels{{"app", "web"}, {"tier", "front"}}));
        QCOMPARE(r3.labels(), (models::Labels{{"app", "db"}}));
        QVERIFY(r1.lastManager.constData() == r2.lastManager.constData()); // one string, shared
        QCOMPARE(r1.lastManager, QStringLiteral("kubectl (Update)"));
        QCOMPARE(r3.lastManager, QStringLiteral("kube-controller-manager (Update)"));
        // An update that changes one replica's labels leaves the other's alone.
        auto b2 = object("shop", "web-2", "5", R"("app":"web","tier":"back")");
        f.table.applyBatch(batch({b2}));
        QCOMPARE(f.table.row(f.table.rowOf(b.uid)).labels(), (models::Labels{{"app", "web"}, {"tier", "back"}}));
        QCOMPARE(f.table.row(f.table.rowOf(a.uid)).labels(), (models::Labels{{"app", "web"}, {"tier", "front"}}));
        // The label filter reads the shared sets.
        f.view.setQuickFilter(QStringLiteral("tier=front"));
        QCOMPARE(f.view.rowCount(), 1);
        QCOMPARE(f.view.index(0, ObjectTableModel::Name).data().toString(), QStringLiteral("web-1"));
    }

    // Label sets no row uses any more are let go once the shared ones reach their bound (Job Pods
    // and rollouts bring new sets all the time), instead of being kept for good.
    void sharedLabelSetsOfDeletedRowsAreLetGo()
    {
        Fixture f;
        const auto keeper = object("jobs", "keeper", "1", jobLabel("keep"));
        f.table.applyBatch(batch({keeper}));
        const int count = 65535; // with the keeper's: ObjectTableModel::kMaxInterned sets
        std::vector<core::ObjectVersion> all;
        all.reserve(count);
        for (int i = 0; i < count; ++i)
            all.push_back(object("jobs", "pod-" + std::to_string(i), "1", jobLabel("j" + std::to_string(i))));
        f.table.applyBatch(batch(all));
        QCOMPARE(f.table.sharedLabelSets(), std::size_t(count + 1));
        for (auto &v : all)
            v.type = core::WatchEventType::Deleted;
        f.table.applyBatch(batch(all));
        QCOMPARE(f.table.rowCount(), 1);
        // The next rows find the bound reached: the dead sets go, the keeper's stays shared.
        f.table.applyBatch(batch({object("jobs", "next", "2", jobLabel("next")),
                                  object("jobs", "keeper-2", "3", jobLabel("keep"))}));
        QCOMPARE(f.table.sharedLabelSets(), std::size_t(2));
        const auto &kept = f.table.row(f.table.rowOf(keeper.uid));
        const auto &second = f.table.row(f.table.rowOf("uid-jobs-keeper-2"));
        QVERIFY(kept.labelSet && kept.labelSet == second.labelSet);
        QCOMPARE(f.table.row(f.table.rowOf("uid-jobs-next")).labels(), (models::Labels{{"job-name", "next"}}));
    }

    // Every row deleted, then the model cleared (the user picks another kind): the free slots go
    // too, so the next rows start from nothing.
    void clearingAfterEveryRowWasDeletedStartsOver()
    {
        Fixture f;
        std::vector<core::ObjectVersion> three = {object("a", "x", "1"), object("a", "y", "2"), object("a", "z", "3")};
        f.table.applyBatch(batch(three));
        for (auto &v : three)
            v.type = core::WatchEventType::Deleted;
        f.table.applyBatch(batch(three));
        QCOMPARE(f.table.rowCount(), 0);
        QCOMPARE(f.table.slotCount(), 3); // freed, kept for reuse
        f.table.clear();
        QCOMPARE(f.table.slotCount(), 0);
        f.table.applyBatch(batch({object("b", "w", "4"), object("b", "v", "5")}));
        QCOMPARE(f.table.rowCount(), 2);
        QCOMPARE(f.table.rowOf("uid-b-v"), 1);
        QCOMPARE(f.table.rowOfSlot(1), 1);
        QCOMPARE(f.table.index(1, ObjectTableModel::Name).data().toString(), QStringLiteral("v"));
    }

    // The estimate comes from the server: an absurd one reserves a bounded index.
    void anAbsurdRowEstimateReservesABoundedIndex()
    {
        Fixture f;
        f.table.expectRows(std::size_t(1) << 40);
        // (Buckets are 4-byte slot numbers, a power of two at most 3/4 full: 16 MB at the cap.)
        QVERIFY2(f.table.indexBuckets() <= 4 * core::ObjectStore::kMaxReserve,
                 qPrintable(QString::number(f.table.indexBuckets())));
        f.table.applyBatch(manyObjects());
        QCOMPARE(f.table.rowCount(), 150);
    }

    void viewStaysSortedWhileBatchesArriveInFewAndManyPlaces()
    {
        Fixture f;
        f.table.applyBatch(batch({object("a", "m", "1"), object("a", "c", "2")}));
        f.table.applyBatch(batch({object("a", "x", "3"), object("a", "a", "4")}));
        QCOMPARE(dump(f.view), QStringLiteral("a/a 4\na/c 2\na/m 1\na/x 3"));
        // 40 names landing in many places: the append + layout change path.
        std::vector<core::ObjectVersion> many;
        many.reserve(40);
        for (int i = 0; i < 40; ++i)
            many.push_back(object("b", "n" + std::to_string(100 + (i * 37) % 40), std::to_string(10 + i)));
        f.table.applyBatch(batch(std::move(many)));
        QCOMPARE(f.view.rowCount(), 44);
        QStringList names;
        for (int r = 0; r < f.view.rowCount(); ++r)
            names << f.view.index(r, ObjectTableModel::Name).data().toString();
        QStringList sorted = names;
        sorted.sort();
        QCOMPARE(names, sorted);
    }

    void deletionsAndDescendingSortKeepTheViewConsistent()
    {
        Fixture f;
        f.table.applyBatch(batch({object("a", "a", "1"), object("a", "b", "2"), object("a", "c", "3"),
                                  object("a", "d", "4")}));
        f.view.sort(ObjectTableModel::Name, Qt::DescendingOrder);
        QCOMPARE(dump(f.view), QStringLiteral("a/d 4\na/c 3\na/b 2\na/a 1"));
        f.table.applyBatch(batch({object("a", "b", "5", {}, core::WatchEventType::Deleted),
                                  object("a", "d", "6", {}, core::WatchEventType::Deleted), object("a", "e", "7")}));
        QCOMPARE(dump(f.view), QStringLiteral("a/e 7\na/c 3\na/a 1"));
        QCOMPARE(f.table.rowOf("uid-a-c"), 1);
    }

    void sortByResourceVersionMovesModifiedRows()
    {
        Fixture f;
        f.table.applyBatch(batch({object("a", "a", "10"), object("a", "b", "11"), object("a", "c", "12")}));
        f.view.sort(ObjectTableModel::ResourceVersion, Qt::AscendingOrder);
        QCOMPARE(dump(f.view), QStringLiteral("a/a 10\na/b 11\na/c 12"));
        f.table.applyBatch(batch({object("a", "a", "13", {}, core::WatchEventType::Modified)}));
        QCOMPARE(dump(f.view), QStringLiteral("a/b 11\na/c 12\na/a 13"));
        // Two rows move at once.
        f.table.applyBatch(batch({object("a", "c", "14", {}, core::WatchEventType::Modified),
                                  object("a", "b", "15", {}, core::WatchEventType::Modified)}));
        QCOMPARE(dump(f.view), QStringLiteral("a/a 13\na/c 14\na/b 15"));
    }

    void quickFilterMatchesNameTextAndLabelSelectorTerms()
    {
        Fixture f;
        f.table.applyBatch(batch({object("prod", "web-1", "1", R"("app":"web","tier":"front")"),
                                  object("prod", "db-1", "2", R"("app":"db","tier":"back")"),
                                  object("dev", "web-2", "3", R"("app":"web")"), object("dev", "misc", "4")}));
        f.view.setQuickFilter(QStringLiteral("web"));
        QCOMPARE(dump(f.view), QStringLiteral("prod/web-1 1\ndev/web-2 3"));
        f.view.setQuickFilter(QStringLiteral("app=web,tier!=front"));
        QCOMPARE(dump(f.view), QStringLiteral("dev/web-2 3"));
        f.view.setQuickFilter(QStringLiteral("1 app in (web, db)"));
        QCOMPARE(dump(f.view), QStringLiteral("prod/db-1 2\nprod/web-1 1"));
        f.view.setQuickFilter(QStringLiteral("-l !app"));
        QCOMPARE(dump(f.view), QStringLiteral("dev/misc 4"));
        f.view.setQuickFilter(QStringLiteral("dev/"));
        QCOMPARE(dump(f.view), QStringLiteral("dev/misc 4\ndev/web-2 3"));
        f.view.setQuickFilter(QStringLiteral("app=="));
        QCOMPARE(f.view.quickFilterError(), QString()); // "app==" is app equal to ""
        f.view.setQuickFilter(QStringLiteral("-l a b=c"));
        QVERIFY(!f.view.quickFilterError().isEmpty());
        QCOMPARE(f.view.rowCount(), 4); // a selector that does not parse filters nothing
        // A label change moves a row in or out of a selector filter.
        f.view.setQuickFilter(QStringLiteral("app=web"));
        QCOMPARE(f.view.rowCount(), 2);
        f.table.applyBatch(batch({object("prod", "db-1", "5", R"("app":"web")", core::WatchEventType::Modified),
                                  object("dev", "web-2", "6", R"("app":"api")", core::WatchEventType::Modified)}));
        QCOMPARE(dump(f.view), QStringLiteral("prod/db-1 5\nprod/web-1 1"));
    }

    void namespaceSelectionShowsOneOrSeveralNamespaces()
    {
        Fixture f;
        f.table.applyBatch(batch({object("a", "x", "1"), object("b", "y", "2"), object("c", "z", "3")}));
        f.view.setNamespaces({QStringLiteral("b")});
        QCOMPARE(dump(f.view), QStringLiteral("b/y 2"));
        f.view.setNamespaces({QStringLiteral("a"), QStringLiteral("c")});
        QCOMPARE(dump(f.view), QStringLiteral("a/x 1\nc/z 3"));
        f.table.applyBatch(batch({object("b", "w", "4"), object("c", "a", "5")}));
        QCOMPARE(dump(f.view), QStringLiteral("c/a 5\na/x 1\nc/z 3"));
        f.view.setNamespaces({});
        QCOMPARE(f.view.rowCount(), 5);
    }

    void selectionFollowsTheObjectThroughInsertsDeletesAndReorders()
    {
        Fixture f;
        QItemSelectionModel sel(&f.view);
        f.table.applyBatch(batch({object("a", "k", "1"), object("a", "m", "2"), object("a", "p", "3")}));
        sel.setCurrentIndex(f.view.index(1, 0), QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
        QCOMPARE(sel.currentIndex().data(ObjectTableModel::UidRole).toString(), QStringLiteral("uid-a-m"));
        std::vector<core::ObjectVersion> before;
        before.reserve(30 + 1);      // and the deletion after the loop
        for (int i = 0; i < 30; ++i) // lands in many places: the layout-change path
            before.push_back(object("a", "b" + std::to_string(i * 7 % 30), std::to_string(100 + i)));
        before.push_back(object("a", "k", "200", {}, core::WatchEventType::Deleted));
        f.table.applyBatch(batch(std::move(before)));
        QCOMPARE(sel.currentIndex().data(ObjectTableModel::UidRole).toString(), QStringLiteral("uid-a-m"));
        QCOMPARE(sel.selectedRows().size(), 1);
        QCOMPARE(sel.selectedRows().constFirst().data(ObjectTableModel::UidRole).toString(), QStringLiteral("uid-a-m"));
        f.view.sort(ObjectTableModel::ResourceVersion, Qt::DescendingOrder);
        f.table.applyBatch(batch({object("a", "m", "300", {}, core::WatchEventType::Modified)}));
        QCOMPARE(sel.currentIndex().row(), 0);
        QCOMPARE(sel.currentIndex().data(ObjectTableModel::UidRole).toString(), QStringLiteral("uid-a-m"));
        f.view.setQuickFilter(QStringLiteral("m"));
        QCOMPARE(sel.currentIndex().data(ObjectTableModel::UidRole).toString(), QStringLiteral("uid-a-m"));
    }

    void scatteredDeletionsLeaveInOneRemovalAndRowsKeepArrivalOrder()
    {
        Fixture f;
        f.table.applyBatch(manyObjects());
        QSignalSpy tableRemoved(&f.table, &QAbstractItemModel::rowsRemoved);
        QSignalSpy viewRemoved(&f.view, &QAbstractItemModel::rowsRemoved);
        // Five objects shown below row 100, scattered in the view and in arrival order (the
        // model tester holds persistent indexes on the first 100 view rows only).
        const std::vector<int> gone = {101, 107, 120, 133, 149};
        std::vector<core::ObjectVersion> deletes;
        deletes.reserve(gone.size());
        for (int i : gone)
            deletes.push_back(object("a", name(i), "900", {}, core::WatchEventType::Deleted));
        f.table.applyBatch(batch(std::move(deletes)));
        QCOMPARE(tableRemoved.size(), 1);
        QCOMPARE(viewRemoved.size(), 1);
        QCOMPARE(f.view.rowCount(), 145);
        QStringList expected;
        for (int i = 0; i < 150; ++i)
            if (std::find(gone.begin(), gone.end(), i) == gone.end())
                expected << QStringLiteral("a/%1 %2").arg(QString::fromStdString(name(i))).arg(i);
        QCOMPARE(dump(f.view), expected.join(u'\n'));
        // The table itself still lists the survivors in arrival order.
        QStringList arrival;
        for (int k = 0; k < 150; ++k)
            if (const int i = arrivalIndex(k); std::find(gone.begin(), gone.end(), i) == gone.end())
                arrival << QStringLiteral("a/%1 %2").arg(QString::fromStdString(name(i))).arg(i);
        QCOMPARE(dump(f.table), arrival.join(u'\n'));
        for (int r = 0; r < f.view.rowCount(); ++r)
            QCOMPARE(f.view.rowOfUid(f.view.index(r, 0).data(ObjectTableModel::UidRole).toString().toStdString()), r);
    }

    void deletedCurrentRowHandsCurrentToItsNeighbourWhileOthersLeaveInBulk()
    {
        Fixture f;
        QItemSelectionModel sel(&f.view);
        f.table.applyBatch(manyObjects());
        sel.setCurrentIndex(f.view.index(120, 0), QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
        const QPersistentModelIndex follower = f.view.index(140, 0); // e.g. the scroll anchor
        QSignalSpy current(&sel, &QItemSelectionModel::currentRowChanged);
        std::vector<core::ObjectVersion> changes;
        for (int i : {5, 60, 110, 120, 131, 145})
            changes.push_back(object("a", name(i), "900", {}, core::WatchEventType::Deleted));
        changes.push_back(object("a", name(200), "901")); // reuses a freed slot, lands last
        f.table.applyBatch(batch(std::move(changes)));
        // As for any removal, the current index moves to the row above the deleted one.
        QCOMPARE(current.size(), 1);
        QCOMPARE(sel.currentIndex().data().toString(), QString::fromStdString(name(119)));
        QCOMPARE(follower.data().toString(), QString::fromStdString(name(140)));
        QCOMPARE(follower.row(), 140 - 5); // five deleted rows were above it
        QCOMPARE(f.view.rowCount(), 145);
        QCOMPARE(f.view.index(144, 0).data().toString(), QString::fromStdString(name(200)));
    }

    void serverTableColumnsJoinByUidEvenWhenTheyArriveFirst()
    {
        Fixture f;
        f.table.setServerColumns({{QStringLiteral("Data"), QStringLiteral("integer"), {}, {}, 0}});
        f.table.applyServerRows({{"uid-a-y", {QVariant(qlonglong(7))}}});
        f.table.applyBatch(batch({object("a", "x", "1"), object("a", "y", "2")}));
        f.table.applyServerRows({{"uid-a-x", {QVariant(qlonglong(3))}}});
        QCOMPARE(f.view.columnCount(), ObjectTableModel::ColumnCount + 1);
        QCOMPARE(f.view.headerData(ObjectTableModel::ColumnCount, Qt::Horizontal).toString(), QStringLiteral("Data"));
        f.view.sort(ObjectTableModel::ColumnCount, Qt::DescendingOrder);
        QCOMPARE(dump(f.view), QStringLiteral("a/y 2\na/x 1"));
        QCOMPARE(f.view.index(0, ObjectTableModel::ColumnCount).data().toLongLong(), 7);
    }

    // Cells for a uid the watch never delivers are dropped when the fetcher says so.
    void unjoinedServerCellsAreDroppedOnRequest()
    {
        Fixture f;
        f.table.setServerColumns({{QStringLiteral("Data"), QStringLiteral("integer"), {}, {}, 0}});
        f.table.applyServerRows({{"uid-a-ghost", {QVariant(qlonglong(7))}}, {"uid-a-y", {QVariant(qlonglong(8))}}});
        QCOMPARE(f.table.unjoinedCellCount(), std::size_t(2));
        f.table.applyBatch(batch({object("a", "y", "2")}));
        QCOMPARE(f.table.unjoinedCellCount(), std::size_t(1)); // y joined its row
        f.table.dropUnjoinedCells();
        QCOMPARE(f.table.unjoinedCellCount(), std::size_t(0));
        f.table.applyBatch(batch({object("a", "ghost", "3")}));
        const int ghost = f.table.rowOf("uid-a-ghost");
        QVERIFY(ghost >= 0);
        QVERIFY(!f.table.index(ghost, ObjectTableModel::ColumnCount).data().isValid()); // no cells kept for it
    }

    void serverCellsSortNumbersAsNumbersAndTextWithNumbersNaturally()
    {
        Fixture f;
        f.table.setServerColumns({{QStringLiteral("Data"), QStringLiteral("string"), {}, {}, 0},
                                  {QStringLiteral("Ready"), QStringLiteral("string"), {}, {}, 0}});
        f.table.applyBatch(batch({object("a", "x", "1"), object("a", "y", "2"), object("a", "z", "3")}));
        // As 1.20 renders them: Data typed "string" with integer cells, Ready as "n/m" text.
        f.table.applyServerRows({{"uid-a-x", {QVariant(qlonglong(10)), QStringLiteral("10/10")}},
                                 {"uid-a-y", {QVariant(qlonglong(9)), QStringLiteral("2/2")}},
                                 {"uid-a-z", {QVariant(qlonglong(100)), QStringLiteral("1/1")}}});
        f.view.sort(ObjectTableModel::ColumnCount, Qt::AscendingOrder);
        QCOMPARE(dump(f.view), QStringLiteral("a/y 2\na/x 1\na/z 3"));
        f.view.sort(ObjectTableModel::ColumnCount + 1, Qt::AscendingOrder);
        QCOMPARE(dump(f.view), QStringLiteral("a/z 3\na/y 2\na/x 1"));
    }

    // Above 1,000 rows a sort by a column with repeated values ranks each distinct value once, and
    // above 20,000 the halves sort on two threads and merge; the order must be the same one: by
    // value (2 and 2.0 are equal, empty cells last, text naturally), then namespace and name, in
    // both directions; and by name alone for the unranked path.
    void largeSortsByRepeatedValuesKeepTheComparatorsOrder()
    {
        Fixture f;
        f.table.setServerColumns({{QStringLiteral("Restarts"), QStringLiteral("string"), {}, {}, 0}});
        const QVariant cells[] = {QVariant(qlonglong(3)), QVariant(qlonglong(1)),         QVariant(2.0),
                                  QVariant(qlonglong(2)), QVariant(QStringLiteral("10")), QVariant()};
        const int cellRank[] = {2, 0, 1, 1, 3, 4};
        const char *managers[] = {"kubectl", "helm", "argocd", "kubectl"};
        const int managerRank[] = {2, 1, 0, 2};
        struct Expected {
            int cell, manager;
            std::string ns, name;
        };
        std::vector<Expected> rows;
        std::vector<core::ObjectVersion> objects;
        std::vector<models::ServerRow> serverRows;
        constexpr int kRows = 24'000;
        for (int k = 0; k < kRows; ++k) {
            const int i = k * 7919 % kRows; // arrival order is neither name nor value order
            auto v = object("ns" + std::to_string(i % 5), "o" + std::to_string(10000 + i), std::to_string(k + 1));
            v.lastManager = managers[i % 4];
            serverRows.push_back({v.uid, {cells[i % 6]}, v.resourceVersion});
            rows.push_back({cellRank[i % 6], managerRank[i % 4], v.namespace_, v.name});
            objects.push_back(std::move(v));
        }
        f.table.applyBatch(batch(std::move(objects)));
        f.table.applyServerRows(std::move(serverRows));
        const auto expect = [&](auto key, bool descending) {
            std::vector<Expected> e = rows;
            std::sort(e.begin(), e.end(), [&](const Expected &a, const Expected &b) {
                const auto ka = std::tie(key(a), a.ns, a.name), kb = std::tie(key(b), b.ns, b.name);
                return descending ? kb < ka : ka < kb;
            });
            QStringList out;
            for (const auto &x : e)
                out << QString::fromStdString(x.ns + '/' + x.name);
            return out;
        };
        const auto shown = [&] {
            QStringList out;
            for (int r = 0; r < f.view.rowCount(); ++r)
                out << f.view.index(r, ObjectTableModel::Namespace).data().toString() + u'/'
                           + f.view.index(r, ObjectTableModel::Name).data().toString();
            return out;
        };
        const auto byCell = [](const Expected &x) -> const int & { return x.cell; };
        const auto byManager = [](const Expected &x) -> const int & { return x.manager; };
        f.view.sort(ObjectTableModel::ColumnCount, Qt::AscendingOrder);
        QCOMPARE(shown(), expect(byCell, false));
        f.view.sort(ObjectTableModel::ColumnCount, Qt::DescendingOrder);
        QCOMPARE(shown(), expect(byCell, true));
        f.view.sort(ObjectTableModel::LastChangedBy, Qt::AscendingOrder);
        QCOMPARE(shown(), expect(byManager, false));
        QCOMPARE(f.view.index(0, ObjectTableModel::LastChangedBy).data().toString(), QStringLiteral("argocd (Update)"));
        f.view.sort(ObjectTableModel::LastChangedBy, Qt::DescendingOrder);
        QCOMPARE(shown(), expect(byManager, true));
        f.view.sort(ObjectTableModel::Name, Qt::DescendingOrder);
        QStringList names;
        for (int r = 0; r < f.view.rowCount(); ++r)
            names << f.view.index(r, ObjectTableModel::Name).data().toString();
        QCOMPARE(names.size(), kRows);
        QVERIFY(std::is_sorted(names.rbegin(), names.rend()));
        QVERIFY(names.first() != names.last());
    }

    void serverCellsOfAnOlderVersionAreMarkedStaleUntilRefreshed()
    {
        Fixture f;
        f.table.setServerColumns({{QStringLiteral("Data"), QStringLiteral("integer"), {}, {}, 0}});
        f.table.applyBatch(batch({object("a", "x", "5")}));
        f.table.applyServerRows({{"uid-a-x", {QVariant(qlonglong(1))}, "5"}});
        const auto cell = [&] { return f.table.index(0, ObjectTableModel::ColumnCount); };
        QCOMPARE(cell().data(ObjectTableModel::ServerCellsStaleRole).toBool(), false);
        QVERIFY(!cell().data(Qt::FontRole).isValid());

        f.table.applyBatch(batch({object("a", "x", "6", {}, core::WatchEventType::Modified)}));
        QCOMPARE(cell().data(ObjectTableModel::ServerCellsStaleRole).toBool(), true);
        QVERIFY(cell().data(Qt::FontRole).value<QFont>().italic());
        QVERIFY(cell().data(Qt::ToolTipRole).toString().contains(QLatin1String("resourceVersion 5")));
        QCOMPARE(cell().data().toLongLong(), 1); // the old cell is still shown, marked

        f.table.applyServerRows({{"uid-a-x", {QVariant(qlonglong(2))}, "6"}});
        QCOMPARE(cell().data(ObjectTableModel::ServerCellsStaleRole).toBool(), false);
        QCOMPARE(cell().data().toLongLong(), 2);
    }

    void pendingServerCellsOfADeletedObjectAreDropped()
    {
        Fixture f;
        f.table.setServerColumns({{QStringLiteral("Data"), QStringLiteral("integer"), {}, {}, 0}});
        f.table.applyServerRows({{"uid-a-x", {QVariant(qlonglong(4))}, "5"}});
        f.table.applyBatch(batch({object("a", "x", "5", {}, core::WatchEventType::Deleted)}));
        // Recreated under the same uid (only possible in a test): the dropped cells must not come back.
        f.table.applyBatch(batch({object("a", "x", "7")}));
        QVERIFY(!f.table.index(0, ObjectTableModel::ColumnCount).data().isValid());
    }

    void labelSelectorParses_data()
    {
        QTest::addColumn<QString>("selector");
        QTest::addColumn<QString>("labels");
        QTest::addColumn<bool>("valid");
        QTest::addColumn<bool>("matches");
        QTest::newRow("equals") << "app=web"
                                << "app=web" << true << true;
        QTest::newRow("double equals") << "app==web"
                                       << "app=db" << true << false;
        QTest::newRow("not equals matches missing key") << "app!=web"
                                                        << "tier=x" << true << true;
        QTest::newRow("in") << "env in (prod, staging)"
                            << "env=staging" << true << true;
        QTest::newRow("notin") << "env notin (prod)"
                               << "env=prod" << true << false;
        QTest::newRow("exists") << "team"
                                << "team=a" << true << true;
        QTest::newRow("not exists") << "!team"
                                    << "team=a" << true << false;
        QTest::newRow("several") << "app=web,!legacy,env in (a,b)"
                                 << "app=web,env=b" << true << true;
        QTest::newRow("bad key") << "a b=c"
                                 << "" << false << false;
        QTest::newRow("bad set") << "env in prod)"
                                 << "" << false << false;
    }
    void labelSelectorParses()
    {
        QFETCH(QString, selector);
        QFETCH(QString, labels);
        QFETCH(bool, valid);
        QFETCH(bool, matches);
        models::LabelSelector s;
        QCOMPARE(models::parseLabelSelector(selector, &s), valid);
        models::Labels l;
        for (const QString &kv : labels.split(u',', Qt::SkipEmptyParts))
            l.emplace_back(kv.section(u'=', 0, 0).toStdString(), kv.section(u'=', 1).toStdString());
        std::sort(l.begin(), l.end());
        if (valid)
            QCOMPARE(s.matches(l), matches);
    }

    void labelsAreReadFromMetadataOnly()
    {
        const QByteArray json =
            R"({"kind":"Pod","metadata":{"name":"p","labels":{"b":"2","a":"1"},"annotations":{"x":"y"}},"spec":{"labels":{"no":"no"}}})";
        const models::Labels l = models::labelsOf(json);
        QCOMPARE(l.size(), std::size_t(2));
        QCOMPARE(l[0].first, std::string("a"));
        QCOMPARE(l[1].second, std::string("2"));
        QVERIFY(models::labelsOf("{not json").empty());
    }

    void resourceKindsGroupByApiGroupWithFavouritesPinned()
    {
        models::ResourceKindsModel m;
        QAbstractItemModelTester tester(&m, QAbstractItemModelTester::FailureReportingMode::QtTest);
        m.setKinds({{QStringLiteral("apps"), QStringLiteral("v1"), QStringLiteral("deployments"),
                     QStringLiteral("Deployment"), true},
                    {{}, QStringLiteral("v1"), QStringLiteral("pods"), QStringLiteral("Pod"), true},
                    {{}, QStringLiteral("v1"), QStringLiteral("configmaps"), QStringLiteral("ConfigMap"), true},
                    {QStringLiteral("example.com"), QStringLiteral("v1"), QStringLiteral("widgets"),
                     QStringLiteral("Widget"), true}});
        m.setCount(QStringLiteral("pods"), 12);
        m.setCount(QStringLiteral("configmaps"), 12345);
        auto treeDump = [&m] {
            QStringList out;
            for (int g = 0; g < m.rowCount(); ++g) {
                const QModelIndex gi = m.index(g, 0);
                out << gi.data().toString();
                for (int k = 0; k < m.rowCount(gi); ++k)
                    out << QStringLiteral("  ") + m.index(k, 0, gi).data().toString() + u' '
                               + m.index(k, 1, gi).data().toString();
            }
            return out.join(u'\n');
        };
        // Counts read as the locale groups them (item views would print 12345); unknown ones stay blank.
        const QString many = QLocale().toString(12345);
        QCOMPARE(
            treeDump(),
            QStringLiteral("core\n  ConfigMap %1\n  Pod 12\napps\n  Deployment \nexample.com\n  Widget ").arg(many));
        QCOMPARE(m.index(0, 1, m.index(0, 0)).data(models::ResourceKindsModel::CountRole).toLongLong(), 12345);
        m.setFavourite(QStringLiteral("widgets.example.com"), true);
        m.setFavourite(QStringLiteral("pods"), true);
        QCOMPARE(
            treeDump(),
            QStringLiteral(
                "Favourites\n  Pod 12\n  Widget \ncore\n  ConfigMap %1\n  Pod 12\napps\n  Deployment \nexample.com\n  Widget ")
                .arg(many));
        m.setFavourite(QStringLiteral("pods"), false);
        m.setFavourite(QStringLiteral("widgets.example.com"), false);
        QCOMPARE(m.rowCount(), 3);
        QCOMPARE(m.indexOf(QStringLiteral("deployments.apps")).data().toString(), QStringLiteral("Deployment"));
    }
};

QTEST_GUILESS_MAIN(TestObjectViewModel)
#include "tst_objectviewmodel.moc"
