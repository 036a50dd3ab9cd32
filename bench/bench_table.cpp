// bench_table: the object table at 100,000 ConfigMaps (BENCH_TABLE_OBJECTS=150000 for the largest
// clusters' Pod count). Plain executable printing
// figures; run with QT_QPA_PLATFORM=offscreen (set here when unset) on an otherwise idle machine.
//
// Feeds synthetic core::WatchBatch objects shaped like real ConfigMaps (labels, managedFields,
// data) through the same path as the app: ObjectTableModel::prepare() on a worker thread,
// applyPrepared() + ObjectViewModel + a shown QTableView set up like the app's
// (widgets::setUpObjectTable: TextCellDelegate, alternating rows) on the GUI thread.
// BENCH_TABLE_STOCK_DELEGATE=1 paints with QStyledItemDelegate instead, for comparison. Measures
//   - time from the first LIST page to its rows painted, and the slowest page while streaming;
//   - quick-filter latency per keystroke (model + view relayout + paint);
//   - sort time per column;
//   - the longest event-loop stall while 1,000 watch events/s arrive (a 1 ms heartbeat timer);
// and, for comparison, QSortFilterProxyModel sorting and filtering the same rows.
#include "models/objecttablemodel.h"
#include "models/objectviewmodel.h"
#include "stallmeter.h"
#include "widgets/objecttablepage.h"

#include <QApplication>
#include <QElapsedTimer>
#include <QHeaderView>
#include <QSortFilterProxyModel>
#include <QStyledItemDelegate>
#include <QTableView>
#include <QTimer>
#include <QtConcurrent/QtConcurrentRun>

#include <algorithm>
#include <cstdio>
#include <random>

using namespace fieldscope;
using namespace fieldscope::bench;

namespace {

// The rows: BENCH_TABLE_OBJECTS, else 100,000.
const int kObjects = [] {
    const int n = qEnvironmentVariableIntValue("BENCH_TABLE_OBJECTS");
    return n > 0 ? n : 100'000;
}();
constexpr int kPage = 500;

std::string pad(int i, int width)
{
    std::string s = std::to_string(i);
    return std::string(std::size_t(std::max(0, width - int(s.size()))), '0') + s;
}

core::ObjectVersion configMap(int i, int rv, core::WatchEventType type = core::WatchEventType::Added)
{
    static const char *tiers[] = {"web", "api", "db", "cache"};
    const std::string name = "cm-" + pad(int(std::int64_t(i) * 7919 % kObjects), 6); // arrival order != name order
    const std::string ns = "team-" + std::to_string(i % 40);
    const std::string tier = tiers[i % 4];
    core::ObjectVersion v;
    v.type = type;
    v.uid = "00000000-0000-4000-8000-" + pad(i, 12);
    v.namespace_ = ns;
    v.name = name;
    v.resourceVersion = std::to_string(rv);
    v.creationTimestamp = "2024-03-01T10:00:00Z";
    v.managerCount = 2;
    v.lastManager = i % 3 ? "kubectl-client-side-apply" : "helm";
    v.lastManagerOperation = "Update";
    const std::string json =
        R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":")" + name + R"(","namespace":")" + ns
        + R"(","uid":")" + v.uid + R"(","resourceVersion":")" + v.resourceVersion
        + R"(","creationTimestamp":"2024-03-01T10:00:00Z","labels":{"app":"shop","tier":")" + tier + R"(","release":"r)"
        + std::to_string(i % 9)
        + R"("},"annotations":{"kubectl.kubernetes.io/last-applied-configuration":"{}"},"managedFields":[{"manager":"kubectl-client-side-apply","operation":"Update","apiVersion":"v1","time":"2024-03-01T10:00:00Z","fieldsType":"FieldsV1","fieldsV1":{"f:data":{".":{},"f:settings.yaml":{}},"f:metadata":{"f:labels":{".":{},"f:app":{},"f:tier":{}}}}}]},"data":{"settings.yaml":"replicas: 3\nlogLevel: info\nfeature:\n  enabled: true\n  threshold: 0.75\n"}})";
    v.json = QByteArray::fromStdString(json);
    return v;
}

core::WatchBatch page(int first, int count)
{
    core::WatchBatch b;
    for (int i = first; i < first + count; ++i) {
        auto v = configMap(i, 1000 + i);
        v.fromList = true;
        b.events.push_back(std::move(v));
    }
    b.initialListComplete = first + count >= kObjects;
    return b;
}

// Applies any pending layout and paints the table now, as the next frame would.
void paint(QTableView &view)
{
    QCoreApplication::processEvents();
    view.viewport()->repaint();
}

struct Setup {
    models::ObjectTableModel table;
    models::ObjectViewModel view;
    QTableView widget;
    Setup()
    {
        view.setSourceModel(&table);
        widgets::setUpObjectTable(&widget); // the app's table: delegate, alternating rows, no grid
        widget.setModel(&view);
        if (qEnvironmentVariableIsSet("BENCH_TABLE_STOCK_DELEGATE")) // the figure before TextCellDelegate
            widget.setItemDelegate(new QStyledItemDelegate(&widget));
        widget.resize(1200, 800);
        widget.sortByColumn(models::ObjectTableModel::Name, Qt::AscendingOrder);
        widget.show();
    }
};

void streamList(Setup &s)
{
    QElapsedTimer t;
    t.start();
    auto prepared = QtConcurrent::run([] { return models::ObjectTableModel::prepare(page(0, kPage)); }).result();
    const double prep = ms(t);
    s.table.applyPrepared(std::move(prepared));
    paint(s.widget);
    std::printf("first page (%d objects) -> rows painted: %.1f ms (worker decode %.1f ms, GUI apply+paint %.1f ms)\n",
                kPage, ms(t), prep, ms(t) - prep);
    double slowest = 0, total = 0;
    QElapsedTimer all;
    all.start();
    for (int first = kPage; first < kObjects; first += kPage) {
        auto p = QtConcurrent::run([first] { return models::ObjectTableModel::prepare(page(first, kPage)); }).result();
        QElapsedTimer g;
        g.start();
        s.table.applyPrepared(std::move(p));
        paint(s.widget);
        slowest = std::max(slowest, ms(g));
        total += ms(g);
    }
    std::printf(
        "streaming %d objects in pages of %d: GUI thread per page max %.1f ms, total GUI %.0f ms, wall %.0f ms\n",
        kObjects, kPage, slowest, total, ms(all));
}

void filterLatency(Setup &s)
{
    const QStringList typed = {QStringLiteral("c"),
                               QStringLiteral("cm"),
                               QStringLiteral("cm-"),
                               QStringLiteral("cm-0"),
                               QStringLiteral("cm-04"),
                               QStringLiteral("cm-042"),
                               QStringLiteral("cm-04"),
                               QStringLiteral("cm-0"),
                               QStringLiteral("tier=web"),
                               QStringLiteral("tier=web release in (r1,r2)"),
                               QStringLiteral("team-3/cm-01"),
                               QString()};
    double worst = 0;
    for (const QString &text : typed) {
        QElapsedTimer t;
        t.start();
        s.view.setQuickFilter(text);
        const double model = ms(t);
        paint(s.widget);
        worst = std::max(worst, ms(t));
        std::printf("  filter %-30s -> %6d rows in %5.1f ms (model %.1f ms, view relayout + paint %.1f ms)\n",
                    qPrintable(QLatin1Char('"') + text + QLatin1Char('"')), s.view.rowCount(), ms(t), model,
                    ms(t) - model);
    }
    std::printf("filter keystroke latency, worst: %.1f ms\n", worst);
}

void sortTimes(Setup &s)
{
    using C = models::ObjectTableModel;
    const std::pair<int, Qt::SortOrder> sorts[] = {
        {C::Namespace, Qt::AscendingOrder},     {C::ResourceVersion, Qt::DescendingOrder},
        {C::LastChangedBy, Qt::AscendingOrder}, {C::Age, Qt::AscendingOrder},
        {C::Name, Qt::DescendingOrder},         {C::Name, Qt::AscendingOrder}};
    double worst = 0;
    for (const auto &[col, order] : sorts) {
        QElapsedTimer t;
        t.start();
        s.widget.sortByColumn(col, order);
        const double model = ms(t);
        paint(s.widget);
        worst = std::max(worst, ms(t));
        std::printf("  sort %-18s %s -> %5.1f ms (model %.1f ms)\n",
                    qPrintable(s.table.headerData(col, Qt::Horizontal).toString()),
                    order == Qt::AscendingOrder ? "asc " : "desc", ms(t), model);
    }
    std::printf("sort %d rows, worst: %.1f ms\n", kObjects, worst);
}

// The watch stream of the load phases. It carries on from one phase to the next: restarted, a
// phase would replay the previous one, its "added" objects landing as modifications and its
// deletions hitting objects already gone.
struct Feed {
    std::mt19937 rng{42};
    int nextNew = kObjects, rv = 5'000'000;
    std::vector<int> live;
    Feed() : live(static_cast<std::size_t>(kObjects))
    {
        for (int i = 0; i < kObjects; ++i)
            live[std::size_t(i)] = i;
    }
};

// 1,000 events/s for `seconds`: every 100 ms (the watcher's flush interval) a batch of 100
// events, 70% modified, 15% added, 15% deleted, decoded on a worker, applied here. A 1 ms
// heartbeat timer measures the longest gap the event loop had.
double stallUnderLoad(Setup &s, Feed &feed, int seconds, const char *label)
{
    std::mt19937 &rng = feed.rng;
    int &nextNew = feed.nextNew, &rv = feed.rv;
    std::vector<int> &live = feed.live;
    StallMeter meter;
    double longestApply = 0, applyCpu = 0, paintCpu = 0;
    std::pair<double, double> worstCpu{0, 0}; // GUI-thread CPU of the costliest turn: apply, paint
    int batches = 0, frames = 0;
    QTimer heartbeat;
    heartbeat.setTimerType(Qt::PreciseTimer);
    QObject::connect(&heartbeat, &QTimer::timeout, [&] { meter.heartbeat(); });
    std::vector<QFuture<models::PreparedBatch>> inflight;
    QTimer feeder;
    QObject::connect(&feeder, &QTimer::timeout, [&] {
        core::WatchBatch b;
        for (int k = 0; k < 100; ++k) {
            const int roll = int(rng() % 100);
            if (roll < 15) {
                b.events.push_back(configMap(nextNew++, ++rv));
                live.push_back(nextNew - 1);
            } else {
                const std::size_t at = rng() % live.size();
                const int i = live[at];
                if (roll < 30) {
                    b.events.push_back(configMap(i, ++rv, core::WatchEventType::Deleted));
                    live[at] = live.back();
                    live.pop_back();
                } else {
                    b.events.push_back(configMap(i, ++rv, core::WatchEventType::Modified));
                }
            }
        }
        inflight.push_back(QtConcurrent::run([b = std::move(b)] { return models::ObjectTableModel::prepare(b); }));
    });
    // What TableFeed::drainPrepared does when a decode finishes: apply finished batches
    // within an 8 ms budget per event-loop turn; then the frame that shows them (forced here, so
    // the paint lands in the same gap: the worst case).
    QTimer applier;
    QObject::connect(&applier, &QTimer::timeout, [&] {
        if (inflight.empty() || !inflight.front().isFinished())
            return;
        QElapsedTimer a;
        a.start();
        const double cpu0 = threadCpuMs();
        while (!inflight.empty() && inflight.front().isFinished() && a.elapsed() < 8) {
            s.table.applyPrepared(inflight.front().takeResult());
            inflight.erase(inflight.begin());
            ++batches;
        }
        const double cpu1 = threadCpuMs();
        s.widget.viewport()->repaint();
        const double cpu2 = threadCpuMs();
        longestApply = std::max(longestApply, ms(a));
        if (cpu2 - cpu0 > worstCpu.first + worstCpu.second)
            worstCpu = {cpu1 - cpu0, cpu2 - cpu1};
        applyCpu += cpu1 - cpu0;
        paintCpu += cpu2 - cpu1;
        ++frames;
    });
    heartbeat.start(1);
    feeder.start(100);
    applier.start(5);
    meter.start();
    QElapsedTimer run;
    run.start();
    while (run.elapsed() < qint64{seconds} * 1000)
        QCoreApplication::processEvents(QEventLoop::AllEvents, 50);
    heartbeat.stop();
    feeder.stop();
    applier.stop();
    std::printf(
        "1,000 events/s for %d s, %s: longest event-loop stall %.1f ms (GUI-thread CPU in it %.1f ms), p99 gap %.1f ms, "
        "most GUI-thread CPU in one gap %.1f ms (of %.1f ms), longest applying turn (apply+paint) %.1f ms (%d rows)\n",
        seconds, label, meter.longest, meter.longestCpu, meter.p99(), meter.mostCpu, meter.mostCpuWall, longestApply,
        s.table.rowCount());
    std::printf(
        "  GUI-thread CPU per applying turn: apply %.1f ms + paint %.1f ms on average, costliest %.1f + %.1f ms (%d batches "
        "in %d turns)\n",
        applyCpu / std::max(1, frames), paintCpu / std::max(1, frames), worstCpu.first, worstCpu.second, batches,
        frames);
    return meter.longest;
}

void compareQSortFilterProxy(Setup &s)
{
    QSortFilterProxyModel proxy;
    proxy.setSortRole(models::ObjectTableModel::SortRole);
    proxy.setFilterCaseSensitivity(Qt::CaseInsensitive);
    proxy.setFilterKeyColumn(models::ObjectTableModel::Name);
    proxy.setSourceModel(&s.table);
    QElapsedTimer t;
    t.start();
    proxy.sort(models::ObjectTableModel::Name);
    std::printf("QSortFilterProxyModel, same rows: sort by name %.0f ms", ms(t));
    t.restart();
    proxy.sort(models::ObjectTableModel::ResourceVersion, Qt::DescendingOrder);
    std::printf(", by resourceVersion %.0f ms", ms(t));
    t.restart();
    proxy.setFilterFixedString(QStringLiteral("cm-04"));
    std::printf(", filter \"cm-04\" %.0f ms", ms(t));
    t.restart();
    proxy.setFilterFixedString(QStringLiteral("cm-0"));
    std::printf(", widen to \"cm-0\" %.0f ms (no view attached)\n", ms(t));
}

} // namespace

int main(int argc, char **argv)
{
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    std::printf("bench_table: %d ConfigMaps, one QTableView of 1200x800 (%s build)\n", kObjects,
#ifdef NDEBUG
                "optimised"
#else
                "debug"
#endif
    );
    Setup s;
    streamList(s);
    filterLatency(s);
    sortTimes(s);
    s.widget.sortByColumn(models::ObjectTableModel::Name, Qt::AscendingOrder);
    paint(s.widget);
    Feed feed;
    stallUnderLoad(s, feed, 5, "sorted by name");
    s.widget.sortByColumn(models::ObjectTableModel::ResourceVersion, Qt::DescendingOrder);
    paint(s.widget);
    stallUnderLoad(s, feed, 5, "sorted by resourceVersion (rows move)");
    s.view.setQuickFilter(QStringLiteral("tier=web"));
    paint(s.widget);
    stallUnderLoad(s, feed, 3, "label filter tier=web");
    s.view.setQuickFilter({});
    compareQSortFilterProxy(s);
    return 0;
}
