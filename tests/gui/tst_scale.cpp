// The main window with 10,000 objects of one kind (the timings live in
// bench/bench_table). A private real cluster (kube-apiserver + etcd on loopback) holds 10,000
// ConfigMaps; the real window, controller and watch show them. Checked: the table fills
// progressively while the paged list streams, with the server's estimate of the total in the
// status bar and a determinate progress bar; the filter, label selector and sort are exact over
// every row; the selection survives 1,000 modifications that reorder the rows (sorted by
// resourceVersion) and 2,500 deletions in one request. The longest event-loop stall during the
// modifications is printed, not asserted (a busy CI machine is not a product defect).
#include "app/gui/clustercontroller.h"
#include "clusterenv.h"
#include "core/base/json.h"
#include "guitesting.h"
#include "kube/parserpool.h"
#include "kube/writes.h"
#include "models/objecttablemodel.h"
#include "models/objectviewmodel.h"
#include "watchrecorder.h"
#include "widgets/clusterview.h"
#include "widgets/mainwindow.h"
#include "widgets/namespaceselector.h"
#include "widgets/objecttablepage.h"
#include "widgets/watchstatus.h"

#include <QElapsedTimer>
#include <QEventLoop>
#include <QLineEdit>
#include <QProgressBar>
#include <QSettings>
#include <QStandardPaths>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>

#include <algorithm>
#include <ctime>
#include <functional>

using namespace fieldscope;
using models::ObjectTableModel;
using testing::saveShot;

namespace {

constexpr int kObjects = 10'000;
constexpr int kModified = 1'000;
const char *kNamespace = "scale";
const char *kTiers[] = {"web", "api", "db", "cache"};

QString nameOf(int i)
{
    return QStringLiteral("cm-%1").arg(i, 5, 10, QLatin1Char('0'));
}

// Sends COUNT requests made by MAKE with up to 128 in flight over the connection's HTTP/2
// session; returns the number that failed and the resourceVersion of the last answer.
std::pair<int, std::string> sendMany(kube::ApiClient &client, int count,
                                     const std::function<kube::HttpRequest(int)> &make)
{
    QEventLoop loop;
    int started = 0, done = 0, failed = 0;
    std::string lastRv;
    std::function<void()> next = [&] {
        while (started < count && started - done < 128) {
            client.send(make(started++), nullptr, [&](core::Result<kube::HttpResponse> r) {
                ++done;
                if (!r.ok()) {
                    ++failed;
                } else if (auto doc = core::parseJson(r->body); doc && doc->contains("metadata")) {
                    const std::string rv = (*doc)["metadata"].value("resourceVersion", "");
                    if (lastRv.empty() || rv.size() > lastRv.size() || (rv.size() == lastRv.size() && rv > lastRv))
                        lastRv = rv;
                }
                if (done == count)
                    loop.quit();
                else
                    next();
            });
        }
    };
    next();
    if (count > 0)
        loop.exec();
    return {failed, lastRv};
}

double threadCpuMs()
{
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return double(ts.tv_sec) * 1000.0 + double(ts.tv_nsec) / 1e6;
}

QStringList column(const QAbstractItemModel *m, int col)
{
    QStringList out;
    out.reserve(m->rowCount());
    for (int r = 0; r < m->rowCount(); ++r)
        out << m->index(r, col).data().toString();
    return out;
}

} // namespace

class TestScale : public QObject
{
    Q_OBJECT
    QTemporaryDir m_dir;
    QString m_clusterDir;
    std::unique_ptr<kube::Connection> m_connection;
    std::unique_ptr<kube::ApiClient> m_client;

private Q_SLOTS:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QSettings().clear();
        m_clusterDir = m_dir.filePath(QStringLiteral("cluster"));
        QVERIFY2(testing::runClusterScript({QStringLiteral("start"), m_clusterDir, QStringLiteral("--name"),
                                            QStringLiteral("scale"), QStringLiteral("--max-lifetime"),
                                            QStringLiteral("900")}),
                 "private cluster did not start");
        kube::ConnectionOptions o;
        o.kubeconfigPath = (m_clusterDir + QStringLiteral("/kubeconfig")).toStdString();
        o.context = "scale";
        o.qps = 0; // the writer is not throttled: 10,000 creates take seconds, not minutes at 50/s
        auto c = kube::connect(o);
        QVERIFY2(c.ok(), c.ok() ? "" : c.error().describe().c_str());
        m_connection = std::make_unique<kube::Connection>(std::move(*c));
        m_client = std::make_unique<kube::ApiClient>(m_connection->transport);
        QVERIFY(testing::call(*m_client, testing::request("POST", "/api/v1/namespaces",
                                                          core::toJsonText({{"metadata", {{"name", kNamespace}}}}))));
        QElapsedTimer t;
        t.start();
        const auto [failed, rv] = sendMany(*m_client, kObjects, [](int i) {
            const core::Json cm = {
                {"metadata", {{"name", nameOf(i).toStdString()}, {"labels", {{"tier", kTiers[i % 4]}}}}},
                {"data", {{"index", std::to_string(i)}}}};
            return kube::createRequest(testing::configMaps(), kNamespace, cm);
        });
        QCOMPARE(failed, 0);
        qInfo("created %d ConfigMaps in %.1f s", kObjects, double(t.elapsed()) / 1000.0);
        // The controller manager adds kube-root-ca.crt to every namespace; wait for it, so the
        // namespace's count is known before the window lists it.
        QTRY_VERIFY_WITH_TIMEOUT(testing::call(*m_client,
                                               testing::request("GET", std::string("/api/v1/namespaces/") + kNamespace
                                                                           + "/configmaps/kube-root-ca.crt"))
                                     .ok(),
                                 30'000);
    }

    void cleanupTestCase()
    {
        m_client.reset();
        m_connection.reset();
        testing::runClusterScript({QStringLiteral("stop"), m_clusterDir, QStringLiteral("--purge")});
    }

    void tenThousandObjectsStreamInAndStayExactThroughFilterSortAndUpdates()
    {
        widgets::MainWindow window;
        widgets::ClusterView *view = window.addCluster(QStringLiteral("scale"));
        app::ClusterController controller(view);
        window.resize(1280, 800);
        auto *page = view->tablePage();
        QTableView *table = page->table();

        // Rows arrive page by page while the list streams, and the status bar says how far it is.
        QList<int> rowsAfterEachInsert;
        qint64 listingEstimate = -1;
        int barMaximumWhileListing = 0;
        auto *bar = window.findChild<QProgressBar *>(QStringLiteral("busyIndicator"));
        // Declared after everything the two lambdas capture: their connections end before those do.
        // clazy's lambda-in-connect does not see a local context object, hence:
        // clazy:excludeall=lambda-in-connect
        QObject guard;
        connect(page->viewModel(), &QAbstractItemModel::rowsInserted, &guard, [&] {
            if (!controller.isLoaded())
                rowsAfterEachInsert << page->viewModel()->rowCount();
        });
        connect(view, &widgets::ClusterView::statusChanged, &guard, [&] {
            const auto &w = view->watches();
            if (!w.isEmpty() && w.first().state == widgets::WatchHealth::State::Listing && w.first().expected > 0) {
                listingEstimate = std::max(listingEstimate, w.first().expected);
                barMaximumWhileListing = std::max(barMaximumWhileListing, bar->isHidden() ? 0 : bar->maximum());
            }
        });
        controller.showResource(QStringLiteral("configmaps"));
        controller.open(m_clusterDir + QStringLiteral("/kubeconfig"), QStringLiteral("scale"));
        window.show();
        QTRY_VERIFY_WITH_TIMEOUT(controller.isLoaded(), 120'000);
        QStringList steps;
        for (int n : std::as_const(rowsAfterEachInsert))
            steps << QString::number(n);
        QVERIFY2(rowsAfterEachInsert.size() >= 2 && rowsAfterEachInsert.first() <= 500,
                 qPrintable(QStringLiteral("rows after each insert while listing: ") + steps.join(u',')));
        QVERIFY2(listingEstimate >= kObjects, qPrintable(QString::number(listingEstimate)));
        QVERIFY(barMaximumWhileListing > 0); // determinate while the total is known
        QVERIFY(table->model()->rowCount() >= kObjects);

        // One namespace: exactly the 10,000; text and label filters are exact over all of them.
        QTRY_VERIFY(page->namespaceSelector()->available().contains(QLatin1String(kNamespace)));
        page->namespaceSelector()->setSelected({QString::fromLatin1(kNamespace)});
        QCOMPARE(table->model()->rowCount(), kObjects + 1); // and kube-root-ca.crt
        QTest::keyClicks(page->filterEdit(), QStringLiteral("cm-0042"));
        QCOMPARE(column(table->model(), ObjectTableModel::Name),
                 (QStringList{nameOf(420), nameOf(421), nameOf(422), nameOf(423), nameOf(424), nameOf(425), nameOf(426),
                              nameOf(427), nameOf(428), nameOf(429)}));
        page->filterEdit()->clear();
        QTest::keyClicks(page->filterEdit(), QStringLiteral("tier=db"));
        QCOMPARE(table->model()->rowCount(), kObjects / 4);
        page->filterEdit()->clear();
        QCOMPARE(table->model()->rowCount(), kObjects + 1);

        // Sorting is exact in both directions over every row.
        table->sortByColumn(ObjectTableModel::Name, Qt::DescendingOrder);
        QStringList names = column(table->model(), ObjectTableModel::Name);
        QCOMPARE(names.first(), QStringLiteral("kube-root-ca.crt"));
        QCOMPARE(names.value(1), nameOf(kObjects - 1));
        QVERIFY(std::is_sorted(names.rbegin(), names.rend()));
        table->sortByColumn(ObjectTableModel::Name, Qt::AscendingOrder);
        names = column(table->model(), ObjectTableModel::Name);
        QCOMPARE(names.first(), nameOf(0));
        QCOMPARE(names.last(), QStringLiteral("kube-root-ca.crt"));
        QVERIFY(std::is_sorted(names.begin(), names.end()));

        // Newest first, one object selected in the middle, then 1,000 other objects change: each
        // moves to the top. The selection stays on its object and the order stays exact.
        table->sortByColumn(ObjectTableModel::ResourceVersion, Qt::DescendingOrder);
        QVERIFY(page->selectName(QString::fromLatin1(kNamespace), nameOf(5000)));
        const QString selectedUid = page->currentUid();
        // Each gap between two 1 ms heartbeats: wall time, and how much of it this (the GUI) thread
        // ran; the rest is the apiserver, etcd and the test's own writer taking the two cores.
        QElapsedTimer heartbeat;
        qint64 longestStall = 0;
        double cpuInLongest = 0, mostCpuInAGap = 0, cpuAtBeat = threadCpuMs();
        QTimer beat;
        connect(&beat, &QTimer::timeout, this, [&] {
            const qint64 gap = heartbeat.restart();
            const double cpu = threadCpuMs() - cpuAtBeat;
            cpuAtBeat += cpu;
            mostCpuInAGap = std::max(mostCpuInAGap, cpu);
            if (gap > longestStall) {
                longestStall = gap;
                cpuInLongest = cpu;
            }
        });
        heartbeat.start();
        beat.start(1);
        static_assert(kModified <= 5000); // cm-00000 ... cm-00999: the selected cm-05000 is not among them
        const auto [failed, lastRv] = sendMany(*m_client, kModified, [](int i) {
            return kube::patchRequest(testing::configMaps(), kNamespace, nameOf(i).toStdString(),
                                      kube::PatchType::Merge, core::Json{{"data", {{"changed", "yes"}}}});
        });
        QCOMPARE(failed, 0);
        // The newest write is on top once every modification arrived (a bookmark may move the
        // watch's own resourceVersion past it, so that is not what is waited for).
        QTRY_COMPARE_WITH_TIMEOUT(table->model()->index(0, ObjectTableModel::ResourceVersion).data().toString(),
                                  QString::fromStdString(lastRv), 30'000);
        beat.stop();
        qInfo(
            "while %d objects changed: longest event-loop stall %lld ms (GUI thread ran %.1f ms of it); most GUI-thread "
            "CPU in one gap %.1f ms. Not asserted: see bench_table",
            kModified, longestStall, cpuInLongest, mostCpuInAGap);
        QCOMPARE(page->currentUid(), selectedUid);
        QCOMPARE(table->currentIndex().data().toString(), nameOf(5000));
        QCOMPARE(table->selectionModel()->selectedRows().size(), 1);
        QList<qint64> rvs;
        for (int r = 0; r < table->model()->rowCount(); ++r)
            rvs << table->model()->index(r, ObjectTableModel::ResourceVersion).data().toLongLong();
        QVERIFY(std::is_sorted(rvs.rbegin(), rvs.rend()));
        int changedOnTop = 0;
        for (int r = 0; r < kModified; ++r)
            changedOnTop += table->model()
                                ->index(r, 0)
                                .data(ObjectTableModel::ObjectJsonRole)
                                .toByteArray()
                                .contains("\"changed\"");
        QCOMPARE(changedOnTop, kModified);
        QVERIFY(saveShot(&window, QStringLiteral("scale-configmaps.png")));

        // 2,500 deletions in one request (tier=db); the selected object (tier web) stays selected.
        QVERIFY(testing::call(*m_client, testing::request("DELETE", std::string("/api/v1/namespaces/") + kNamespace
                                                                        + "/configmaps?labelSelector=tier%3Ddb")));
        QTRY_COMPARE_WITH_TIMEOUT(table->model()->rowCount(), kObjects + 1 - kObjects / 4, 30'000);
        QCOMPARE(page->currentUid(), selectedUid);
        QCOMPARE(table->selectionModel()->selectedRows().size(), 1);
    }

    // glibc keeps the heap a burst's transient copies used; the window hands it back once the
    // table and the recorder have absorbed the data, once per burst, never while work waits.
    void freedHeapIsReturnedOnceAListOrBurstIsAbsorbed()
    {
        widgets::MainWindow window;
        widgets::ClusterView *view = window.addCluster(QStringLiteral("scale"));
        app::ClusterController controller(view);
        controller.setReturnMemoryAfterBytes(1 << 20); // the namespace's ConfigMaps are a few MB
        qint64 queuedWhenReturned = -1;
        std::size_t parserBytesWhenReturned = SIZE_MAX;
        // Read when the return starts: by the time it is done, more of a burst may have arrived.
        connect(&controller, &app::ClusterController::memoryReturnStarted, &controller,
                [&controller, &queuedWhenReturned] {
                    queuedWhenReturned = controller.recorder() ? controller.recorder()->counters().queuedBytes : 0;
                });
        connect(&controller, &app::ClusterController::memoryReturned, &controller,
                [&parserBytesWhenReturned] { parserBytesWhenReturned = kube::parserPoolStats().idleCapacity; });
        controller.showResource(QStringLiteral("configmaps"));
        controller.open(m_clusterDir + QStringLiteral("/kubeconfig"), QStringLiteral("scale"));
        QCOMPARE(controller.memoryReturns(), 0);
        QTRY_VERIFY_WITH_TIMEOUT(controller.isLoaded(), 120'000);
        QTRY_COMPARE_WITH_TIMEOUT(controller.memoryReturns(), 1, 30'000);
        QCOMPARE(queuedWhenReturned, 0); // the recorder had written everything it was given
        // The parsers sized to the list's pages (hundreds of KB) were freed; a watch event decoded
        // since may have left one sized to its line.
        QVERIFY2(parserBytesWhenReturned < std::size_t(64) * 1024,
                 qPrintable(QString::number(parserBytesWhenReturned)));
        // Nothing new arrives: no second return (the check runs once a second).
        QTest::qWait(2500);
        QCOMPARE(controller.memoryReturns(), 1);

        // A burst of changes larger than the threshold: one more return after it.
        const std::string big(1024, 'x');
        const auto [failed, lastRv] = sendMany(*m_client, 2000, [&big](int i) {
            return kube::patchRequest(testing::configMaps(), kNamespace, nameOf(4 * i + 1).toStdString(),
                                      kube::PatchType::Merge, core::Json{{"data", {{"burst", big}}}});
        });
        QCOMPARE(failed, 0);
        // (At least one: the burst may arrive in parts a second apart, each over the threshold.)
        QTRY_VERIFY_WITH_TIMEOUT(controller.memoryReturns() >= 2, 60'000);
        QCOMPARE(queuedWhenReturned, 0);
    }
};

QTEST_MAIN(TestScale)
#include "tst_scale.moc"
