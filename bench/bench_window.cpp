// bench_window: the window at the scale of the biggest clusters. The app's own main window and
// ClusterController (offscreen) against a replay server in this process that serves COUNT Pods
// (one Pod recorded from a real apiserver, multiplied; bench/replaypods.h) in LIST pages, then
// watch events. Measures what a user waits for and whether the GUI thread keeps up:
//   - first rows and all rows after open(), with the event loop's longest stall and the most
//     GUI-thread CPU in one gap while the list streams in (a 1 ms heartbeat);
//   - resident memory against the JSON the list holds, and the history recorder's progress;
//   - filter keystrokes and sorts over all rows, as typed in the table's filter;
//   - the detail pane (Summary, YAML, Ownership) and the History tab of one Pod;
//   - 1,000 MODIFIED events/s for 5 s, then a burst of 10,000 DELETED events in one second (a
//     namespace deletion): stalls, the time until the burst is all in the table, and whether
//     the recorder dropped anything (a gap).
//
//   bench_window [--pods 150000] [--pod FILE] [--list-only] [--memory-only]
#include "app/gui/clustercontroller.h"
#include "app/services/heaptuning.h"
#include "models/objecttablemodel.h"
#include "models/objectviewmodel.h"
#include "replaypods.h"
#include "stallmeter.h"
#include "widgets/clusterview.h"
#include "widgets/detailpane.h"
#include "widgets/mainwindow.h"
#include "widgets/objecttablepage.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QFile>
#include <QTableView>
#include <QTemporaryDir>
#include <QTimer>

#include <malloc.h>

#include <condition_variable>
#include <cstdio>
#include <mutex>
#include <optional>

using namespace fieldscope;
using namespace fieldscope::bench;

namespace {

// Holds the first watch request until the bench hands it the events to send.
class WatchGate
{
public:
    TranscriptReply wait()
    {
        std::unique_lock lock(m_mutex);
        m_cv.wait(lock, [this] { return m_reply || m_closed; });
        if (m_reply && !m_served) {
            m_served = true;
            return *m_reply;
        }
        return TranscriptReply::stream({}, TranscriptReply::End::Hang);
    }
    void open(TranscriptReply reply)
    {
        std::lock_guard lock(m_mutex);
        m_reply = std::move(reply);
        m_cv.notify_all();
    }
    void close()
    {
        std::lock_guard lock(m_mutex);
        m_closed = true;
        m_cv.notify_all();
    }

private:
    std::mutex m_mutex;
    std::condition_variable m_cv;
    std::optional<TranscriptReply> m_reply;
    bool m_closed = false, m_served = false;
};

// A watch event line for Pod i at a new resourceVersion (the template's text with its RV replaced).
std::string eventLine(const std::string &type, const std::string &pod, std::size_t i, std::int64_t rv)
{
    const std::string from = R"("resourceVersion":")" + std::to_string(1000 + i) + '"';
    std::string object = pod;
    if (const auto at = object.find(from); at != std::string::npos)
        object.replace(at, from.size(), R"("resourceVersion":")" + std::to_string(rv) + '"');
    return R"({"type":")" + type + R"(","object":)" + object + "}";
}

// 1,000 MODIFIED events/s for 5 s (a piece of 100 lines every 100 ms, the pace of a watcher's
// flushes), then after 3 s a burst of 10,000 DELETED events in ten pieces 100 ms apart.
TranscriptReply eventPlan(const std::vector<std::string> &pods, int burst)
{
    TranscriptReply r = TranscriptReply::stream({}, TranscriptReply::End::Hang);
    std::int64_t rv = 1000 + std::int64_t(pods.size());
    std::size_t next = 0;
    for (int piece = 0; piece < 50; ++piece) {
        TranscriptReply::Piece p;
        p.delayMs = piece ? 100 : 0;
        for (int k = 0; k < 100; ++k) {
            const std::size_t i = (next += 7919) % pods.size();
            p.bytes += eventLine("MODIFIED", pods[i], i, ++rv) + "\n";
        }
        r.pieces.push_back(std::move(p));
    }
    // The burst deletes Pods from the end of the list (none of them was modified above by chance
    // only: a deleted Pod's DELETED event carries its last version either way).
    const std::size_t first = pods.size() - std::size_t(burst);
    for (int piece = 0; piece < 10; ++piece) {
        TranscriptReply::Piece p;
        p.delayMs = piece ? 100 : 3000;
        for (int k = 0; k < burst / 10; ++k) {
            const std::size_t i = first + std::size_t(piece * (burst / 10) + k);
            p.bytes += eventLine("DELETED", pods[i], i, ++rv) + "\n";
        }
        r.pieces.push_back(std::move(p));
    }
    return r;
}

// Runs the event loop until `done` or `timeoutMs`, with `meter` beating every millisecond.
bool runUntil(const std::function<bool()> &done, int timeoutMs, StallMeter *meter = nullptr)
{
    QTimer heartbeat;
    heartbeat.setTimerType(Qt::PreciseTimer);
    if (meter) {
        QObject::connect(&heartbeat, &QTimer::timeout, [meter] { meter->heartbeat(); });
        heartbeat.start(1);
    }
    QElapsedTimer t;
    t.start();
    while (!done()) {
        if (t.elapsed() > timeoutMs)
            return false;
        QCoreApplication::processEvents(QEventLoop::AllEvents, 5);
    }
    return true;
}

void printStalls(const char *what, StallMeter &m)
{
    std::printf(
        "  %s: longest event-loop stall %.1f ms (GUI-thread CPU in it %.1f ms), p99 gap %.1f ms, most GUI-thread "
        "CPU in one gap %.1f ms (of %.1f ms, ending %.2f s in)\n",
        what, m.longest, m.longestCpu, m.p99(), m.mostCpu, m.mostCpuWall, m.mostCpuAtMs / 1e3);
}

void paint(QTableView *view)
{
    QCoreApplication::processEvents();
    view->viewport()->repaint();
}

double timeFilter(widgets::ObjectTablePage *page)
{
    const QStringList typed = {QStringLiteral("w"),
                               QStringLiteral("we"),
                               QStringLiteral("web"),
                               QStringLiteral("web-"),
                               QStringLiteral("web-1"),
                               QStringLiteral("web-12"),
                               QStringLiteral("web-123"),
                               QStringLiteral("web-12"),
                               QStringLiteral("app=web"),
                               QStringLiteral("ns-7/web-1"),
                               QString()};
    double worst = 0;
    for (const QString &text : typed) {
        QElapsedTimer t;
        t.start();
        page->viewModel()->setQuickFilter(text);
        paint(page->table());
        worst = std::max(worst, ms(t));
        std::printf("  filter %-14s -> %6d rows in %6.1f ms\n", qPrintable(QLatin1Char('"') + text + QLatin1Char('"')),
                    page->viewModel()->rowCount(), ms(t));
    }
    return worst;
}

double timeSorts(widgets::ObjectTablePage *page, models::ObjectTableModel *model)
{
    using C = models::ObjectTableModel;
    const std::pair<int, Qt::SortOrder> sorts[] = {
        {C::Namespace, Qt::AscendingOrder}, {C::ResourceVersion, Qt::DescendingOrder},
        {C::Age, Qt::AscendingOrder},       {C::LastChangedBy, Qt::AscendingOrder},
        {C::Name, Qt::DescendingOrder},     {C::Name, Qt::AscendingOrder}};
    double worst = 0;
    for (const auto &[col, order] : sorts) {
        QElapsedTimer t;
        t.start();
        page->table()->sortByColumn(col, order);
        paint(page->table());
        worst = std::max(worst, ms(t));
        std::printf("  sort %-16s %s -> %6.1f ms\n", qPrintable(model->headerData(col, Qt::Horizontal).toString()),
                    order == Qt::AscendingOrder ? "asc " : "desc", ms(t));
    }
    return worst;
}

// Selects a Pod: the time until the detail pane (Summary, YAML, Ownership tree) is shown and
// until its History tab has the recorded versions.
std::pair<double, double> timeDetail(app::ClusterController &c, widgets::ClusterView *view, int index, int namespaces)
{
    bool ready = false, history = false;
    // Declared after the flags: the connections die with it, before the flags go out of scope.
    // clazy's lambda-in-connect does not see a local context object, hence:
    // clazy:excludeall=lambda-in-connect
    QObject guard;
    QObject::connect(view->detailPane(), &widgets::DetailPane::ready, &guard, [&] { ready = true; });
    QObject::connect(c.historySource(), &app::HistorySource::loaded, &guard, [&] { history = true; });
    QElapsedTimer t;
    t.start();
    const bool found = view->tablePage()->selectName(QStringLiteral("ns-%1").arg(index % namespaces),
                                                     QStringLiteral("web-%1").arg(index));
    double readyMs = -1, historyMs = -1;
    if (found) {
        runUntil([&] { return ready || history; }, 10'000);
        if (runUntil([&] { return ready; }, 10'000))
            readyMs = ms(t);
        if (runUntil([&] { return history; }, 10'000))
            historyMs = ms(t);
    }
    return {readyMs, historyMs};
}

} // namespace

int main(int argc, char **argv)
{
    qputenv("QT_QPA_PLATFORM", "offscreen");
    QTemporaryDir home;
    // The window keeps its settings, history and caches in the bench's own folder.
    qputenv("XDG_CACHE_HOME", home.filePath(QStringLiteral("cache")).toUtf8());
    qputenv("XDG_CONFIG_HOME", home.filePath(QStringLiteral("config")).toUtf8());
    qputenv("XDG_DATA_HOME", home.filePath(QStringLiteral("data")).toUtf8());
    app::keepHeapCompact(); // as the app's runGui does
    QApplication app(argc, argv);
    QCommandLineParser p;
    p.addOption({QStringLiteral("pods"), QStringLiteral("how many"), QStringLiteral("N"), QStringLiteral("150000")});
    p.addOption({QStringLiteral("pod"), QStringLiteral("a Pod as the apiserver returned it"), QStringLiteral("FILE"),
                 QStringLiteral(FIELDSCOPE_TEST_DATA "/history/pod.json")});
    p.addOption({QStringLiteral("list-only"), QStringLiteral("stop after the list (for profiling it)")});
    p.addOption({QStringLiteral("memory-only"), QStringLiteral("stop after the list's memory is measured")});
    p.addHelpOption();
    p.process(app);
    constexpr int kNamespaces = 100, kBurst = 10'000;
    const int count = std::max(kBurst + 1, p.value(QStringLiteral("pods")).toInt());
    QFile f(p.value(QStringLiteral("pod")));
    if (!f.open(QIODevice::ReadOnly)) {
        std::fprintf(stderr, "bench_window: cannot read --pod\n");
        return 2;
    }
    auto templ = core::parseJson(f.readAll().toStdString());
    if (!templ || !templ->is_object() || !templ->contains("metadata")) {
        std::fprintf(stderr, "bench_window: --pod is not a Pod\n");
        return 2;
    }
    const auto pods = std::make_shared<const std::vector<std::string>>(makePods(*templ, count, kNamespaces));
    std::size_t jsonBytes = 0;
    for (const auto &pod : *pods)
        jsonBytes += pod.size();
    WatchGate gate;
    TranscriptServer server;
    addPodDiscoveryRules(server);
    server.on("/api/v1/pods").hasQuery("watch").replyWith([&gate](const RecordedRequest &) { return gate.wait(); });
    addPodListRule(server, pods);
    const QString kubeconfig = home.filePath(QStringLiteral("kubeconfig"));
    {
        QFile k(kubeconfig);
        if (!k.open(QIODevice::WriteOnly))
            return 1;
        k.write(QStringLiteral("apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster:\n    server: %1\n"
                               "users:\n- name: u\n  user:\n    token: bench\ncontexts:\n- name: bench\n  context:\n"
                               "    cluster: c\n    user: u\ncurrent-context: bench\n")
                    .arg(QString::fromStdString(server.url()))
                    .toUtf8());
    }
    std::printf("bench_window: %d Pods of %.1f KB (%.1f MB of JSON) in %d namespaces, served on loopback\n", count,
                double(jsonBytes) / count / 1e3, double(jsonBytes) / 1e6, kNamespaces);

    const long rss0 = rssKb();
    const long rssFile0 = statusKb("RssFile:");
    const double heap0 = double(mallinfo2().uordblks);
    const ResidentKinds kinds0 = residentKinds();
    {
        widgets::MainWindow window;
        widgets::ClusterView *view = window.addCluster(QStringLiteral("bench"));
        app::ClusterController controller(view);
        window.resize(1280, 800);
        window.show();
        runUntil([] { return false; }, 300); // painted once: the window's own fixed cost is resident
        const long rssShown = rssKb();
        auto *model = controller.model();
        StallMeter listing;
        listing.start();
        QElapsedTimer t;
        t.start();
        controller.showResource(QStringLiteral("pods"));
        controller.open(kubeconfig, QStringLiteral("bench"));
        double firstRows = -1;
        const bool listed = runUntil(
            [&] {
                if (firstRows < 0 && model->rowCount() > 0)
                    firstRows = ms(t);
                return model->rowCount() == count;
            },
            300'000, &listing);
        const double allRows = ms(t);
        if (!listed) {
            std::fprintf(stderr, "bench_window: the table has %d of %d rows after 300 s\n", model->rowCount(), count);
            gate.close();
            return 1;
        }
        std::printf("\nlist: first rows %.0f ms after open, all %d rows %.2f s after open\n", firstRows, count,
                    allRows / 1e3);
        printStalls("while the list streamed in", listing);
        if (p.isSet(QStringLiteral("list-only"))) {
            gate.close();
            return 0;
        }
        const auto *recorder = controller.recorder();
        QElapsedTimer recorded;
        recorded.start();
        runUntil([&] { return !recorder || recorder->counters().queuedBytes == 0; }, 300'000);
        // The window gives freed heap back once the table and the recorder have absorbed the list.
        const bool returned = runUntil([&] { return controller.memoryReturns() > 0; }, 10'000);
        const long rssListed = rssKb();
        if (recorder) {
            const auto c = recorder->counters();
            std::printf("  history: %lld versions recorded %.2f s after the table had them all, %lld dropped (a gap)\n",
                        (long long)c.committedVersions, ms(recorded) / 1e3, (long long)c.droppedEvents);
        }
        std::printf("  resident memory: +%.0f MB for %.0f MB of JSON (%.2fx)\n", kbToMb(rssListed - rss0),
                    double(jsonBytes) / 1e6, kbToMb(rssListed - rss0) * 1e6 / double(jsonBytes));
        std::printf("  from the window shown, before it connected: +%.0f MB (%.2fx); an empty window took %.0f MB\n",
                    kbToMb(rssListed - rssShown), kbToMb(rssListed - rssShown) * 1e6 / double(jsonBytes),
                    kbToMb(rssShown - rss0));
        std::printf("  (of which the heap in use +%.0f MB, mapped code and data files +%.0f MB)\n",
                    (double(mallinfo2().uordblks) - heap0) / 1e6, kbToMb(statusKb("RssFile:") - rssFile0));
        const ResidentKinds kinds = residentKinds();
        std::printf("  (by mapping: main heap %+.0f MB, thread arenas %+.0f MB, thread stacks %+.0f MB, other "
                    "anonymous %+.0f MB, files %+.0f MB)\n",
                    kbToMb(kinds.heap - kinds0.heap), kbToMb(kinds.arenas - kinds0.arenas),
                    kbToMb(kinds.stacks - kinds0.stacks), kbToMb(kinds.otherAnon - kinds0.otherAnon),
                    kbToMb(kinds.files - kinds0.files));
        const struct mallinfo2 heap = mallinfo2(); // the whole process: the replay server's data too
        std::printf("  (measured %s the window returned freed heap; malloc's free chunks: %.0f MB, their whole "
                    "pages returned)\n",
                    returned ? "after" : "without", double(heap.fordblks) / 1e6);
        if (p.isSet(QStringLiteral("memory-only"))) {
            gate.close();
            return 0;
        }

        std::printf("\nfilter keystrokes over %d rows:\n", count);
        const double filterWorst = timeFilter(view->tablePage());
        std::printf("sorts of %d rows:\n", count);
        const double sortWorst = timeSorts(view->tablePage(), model);

        view->detailPane()->setCurrentTab(widgets::DetailPane::OwnershipTab);
        const auto ownership = timeDetail(controller, view, 4242, kNamespaces);
        view->detailPane()->setCurrentTab(widgets::DetailPane::HistoryTab);
        const auto history = timeDetail(controller, view, 4343, kNamespaces);
        std::printf("\ndetail of one Pod: Ownership tab shown %.1f ms after selecting it; History tab's versions %.1f "
                    "ms after selecting another\n",
                    ownership.first, history.second);

        // Events: the rows move under the name sort; stalls are measured while they arrive.
        view->tablePage()->table()->sortByColumn(models::ObjectTableModel::Name, Qt::AscendingOrder);
        view->detailPane()->setCurrentTab(widgets::DetailPane::SummaryTab);
        const auto before = recorder ? recorder->counters() : core::HistoryRecorder::Counters{};
        gate.open(eventPlan(*pods, kBurst));
        StallMeter steady;
        steady.start();
        runUntil([] { return false; }, 5'500, &steady);
        std::printf("\n1,000 MODIFIED events/s for 5 s:\n");
        printStalls("while they arrived", steady);
        StallMeter burst;
        burst.start();
        QElapsedTimer b;
        b.start();
        double burstFirst = -1;
        const bool burstDone = runUntil(
            [&] {
                if (burstFirst < 0 && model->rowCount() < count)
                    burstFirst = ms(b);
                return model->rowCount() == count - kBurst;
            },
            60'000, &burst);
        const double burstAll = burstDone ? (ms(b) - burstFirst) / 1e3 : -1.0;
        std::printf("a burst of %d DELETED events in 1 s:\n", kBurst);
        printStalls("while it arrived", burst);
        if (burstDone)
            std::printf("  all %d deletions in the table %.2f s after the first one showed\n", kBurst, burstAll);
        else
            std::printf("  FAILED: the table has %d rows, expected %d\n", model->rowCount(), count - kBurst);
        runUntil([&] { return !recorder || recorder->counters().queuedBytes == 0; }, 300'000);
        if (recorder) {
            const auto after = recorder->counters();
            std::printf("  history: %lld versions recorded during the events (15,000 sent), %lld dropped\n",
                        (long long)(after.committedVersions - before.committedVersions),
                        (long long)(after.droppedEvents - before.droppedEvents));
        }
        std::printf("\ntargets: first rows < 1 s (%.2f s), GUI-thread CPU per gap while listing <= 16 ms (%.1f ms), "
                    "memory <= 1.2x the JSON (%.2fx), filter < 50 ms (%.1f ms), sort < 700 ms (%.0f ms), Ownership "
                    "and History < 100 ms (%.1f, %.1f ms), no stall > 16 ms at 1,000 events/s (%.1f ms CPU), burst "
                    "visible within 2 s (%.2f s)\n",
                    firstRows / 1e3, listing.mostCpu, kbToMb(rssListed - rss0) * 1e6 / double(jsonBytes), filterWorst,
                    sortWorst, ownership.first, history.second, steady.mostCpu, burstAll);
        gate.close();
    }
    return 0;
}
