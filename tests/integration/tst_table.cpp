// The server's Table rendering (`as=Table`) against the real apiserver: the columns the
// server defines for ConfigMaps and Deployments arrive, rows are joined to the watched objects by
// uid, and a change the watch reports refreshes that row's cells.
#include "kube/tablefetcher.h"
#include "watchrecorder.h"

using namespace fieldscope;
using namespace fieldscope::testing;

namespace {

// A Watcher and a TableFetcher on one scope, wired the way the app's ClusterController does.
struct TableSession {
    kube::Watcher watcher;
    kube::TableFetcher fetcher;
    std::set<std::string> watchedUids;
    std::map<std::string, kube::TableRow> cells; // uid -> latest row
    std::vector<kube::TableColumn> columns;

    TableSession(kube::ApiClient &client, const kube::WatchScope &scope, kube::TableFetcherOptions options = {})
        : watcher(&client, scope), fetcher(&client, scope, options)
    {
        QObject::connect(&watcher, &kube::Watcher::batchReady, &watcher, [this](const core::WatchBatch &b) {
            for (const auto &e : b.events) {
                if (e.type == core::WatchEventType::Deleted) {
                    watchedUids.erase(e.uid);
                    fetcher.forget(e.uid);
                } else {
                    watchedUids.insert(e.uid);
                    fetcher.noteVersion(e.uid, e.namespace_, e.name, e.resourceVersion);
                }
            }
        });
        QObject::connect(&fetcher, &kube::TableFetcher::columnsChanged, &fetcher,
                         [this](const auto &c) { columns = c; });
        QObject::connect(&fetcher, &kube::TableFetcher::rowsReady, &fetcher,
                         [this](const std::vector<kube::TableRow> &rows) {
                             for (const auto &r : rows)
                                 cells[r.uid] = r;
                         });
        watcher.start();
        fetcher.start();
    }
    int column(const std::string &name) const
    {
        for (std::size_t i = 0; i < columns.size(); ++i)
            if (columns[i].name == name)
                return int(i);
        return -1;
    }
    QVariant cell(const std::string &uid, const std::string &columnName) const
    {
        auto it = cells.find(uid);
        const int c = column(columnName);
        return it == cells.end() || c < 0 ? QVariant() : it->second.cells.value(c);
    }
};

kube::ResourceInfo deployments()
{
    kube::ResourceInfo r;
    r.group = "apps";
    r.version = "v1";
    r.resource = "deployments";
    r.kind = "Deployment";
    r.namespaced = true;
    r.verbs = {"get", "list", "watch"};
    return r;
}

std::string deploymentBody(const std::string &name)
{
    const core::Json labels = {{"app", name}};
    const core::Json container = {{"name", "web"}, {"image", "nginx:1.25"}};
    return core::toJsonText(
        {{"apiVersion", "apps/v1"},
         {"kind", "Deployment"},
         {"metadata", {{"name", name}}},
         {"spec",
          {{"replicas", 2},
           {"selector", {{"matchLabels", labels}}},
           {"template",
            {{"metadata", {{"labels", labels}}}, {"spec", {{"containers", core::Json::array({container})}}}}}}}});
}

} // namespace

class TestTable : public QObject
{
    Q_OBJECT
    std::unique_ptr<kube::Connection> m_conn;
    std::unique_ptr<kube::ApiClient> m_client;
    std::unique_ptr<ScratchNamespace> m_ns;

private Q_SLOTS:
    void initTestCase()
    {
        m_conn = std::make_unique<kube::Connection>(connectTo(ctxToken()));
        m_client = std::make_unique<kube::ApiClient>(m_conn->transport);
        m_ns = std::make_unique<ScratchNamespace>(*m_client, "fs-table");
    }
    void cleanupTestCase()
    {
        m_ns.reset();
        m_client.reset();
    }

    void configMapColumnsArriveAndRowsJoinTheWatchedObjectsByUid()
    {
        const core::Json one = m_ns->create("one", "1");
        const core::Json two = m_ns->create("two", "2");
        QVERIFY(call(*m_client, kube::patchRequest(configMaps(), m_ns->name(), "two", kube::PatchType::Merge,
                                                   {{"data", {{"w", "x"}}}}))
                    .ok());
        TableSession s(*m_client, kube::WatchScope{configMaps(), m_ns->name(), {}, {}});
        QTRY_COMPARE_WITH_TIMEOUT(s.fetcher.state(), kube::TableFetcher::State::Live, 30'000);

        QVERIFY(s.column("Name") >= 0);
        QCOMPARE(s.columns[std::size_t(s.column("Name"))].format, std::string("name"));
        QVERIFY2(s.column("Data") >= 0, "the server renders a Data column for ConfigMaps");
        QVERIFY(s.column("Age") >= 0);
        const std::string uidOne = one["metadata"]["uid"].get<std::string>();
        const std::string uidTwo = two["metadata"]["uid"].get<std::string>();
        // Every watched object gets cells under its uid, including kube-root-ca.crt that the
        // controller manager may add after the Table was listed (then fetched by GET).
        QTRY_VERIFY_WITH_TIMEOUT(s.watchedUids.count(uidOne) && s.watchedUids.count(uidTwo), 30'000);
        QTRY_VERIFY_WITH_TIMEOUT(std::all_of(s.watchedUids.begin(), s.watchedUids.end(),
                                             [&](const auto &u) { return s.cells.count(u) > 0; }),
                                 15'000);
        QCOMPARE(s.cell(uidOne, "Data").toLongLong(), 1);
        QCOMPARE(s.cell(uidTwo, "Data").toLongLong(), 2);
        QCOMPARE(s.cell(uidOne, "Name").toString(), QStringLiteral("one"));
    }

    void patchedConfigMapGetsItsDataCellRefreshed()
    {
        const core::Json cm = m_ns->create("grows", "1");
        const std::string uid = cm["metadata"]["uid"].get<std::string>();
        TableSession s(*m_client, kube::WatchScope{configMaps(), m_ns->name(), {}, {}});
        QTRY_VERIFY_WITH_TIMEOUT(s.cells.count(uid), 30'000);
        QTRY_COMPARE_WITH_TIMEOUT(s.fetcher.state(), kube::TableFetcher::State::Live, 30'000);
        QCOMPARE(s.cell(uid, "Data").toLongLong(), 1);
        const int listsBefore = s.fetcher.listsStarted();

        auto patched = call(*m_client, kube::patchRequest(configMaps(), m_ns->name(), "grows", kube::PatchType::Merge,
                                                          {{"data", {{"b", "2"}, {"c", "3"}}}}));
        QVERIFY(patched.ok());
        const std::string rv = (*core::parseJson(patched->body))["metadata"]["resourceVersion"].get<std::string>();
        QTRY_COMPARE_WITH_TIMEOUT(s.cell(uid, "Data").toLongLong(), 3, 15'000);
        QCOMPARE(s.cells[uid].resourceVersion, rv);
        QVERIFY(s.fetcher.getsStarted() >= 1); // by a GET of that object, not a relist
        QCOMPARE(s.fetcher.listsStarted(), listsBefore);
        QTRY_COMPARE(s.fetcher.staleCount(), std::size_t(0));
    }

    void deploymentColumnsIncludeReadyUpToDateAvailableAndWideOnes()
    {
        auto d = call(*m_client, request("POST", deployments().collectionPath(m_ns->name()), deploymentBody("web")));
        QVERIFY2(d.ok(), d.ok() ? "" : d.error().describe().c_str());
        const std::string uid = (*core::parseJson(d->body))["metadata"]["uid"].get<std::string>();
        TableSession s(*m_client, kube::WatchScope{deployments(), m_ns->name(), {}, {}});
        QTRY_VERIFY_WITH_TIMEOUT(s.cells.count(uid), 30'000);
        for (const char *name : {"Ready", "Up-to-date", "Available"}) {
            const int c = s.column(name);
            QVERIFY2(c >= 0, name);
            QCOMPARE(s.columns[std::size_t(c)].priority, 0);
        }
        const int images = s.column("Images");
        QVERIFY(images >= 0);
        QVERIFY(s.columns[std::size_t(images)].priority > 0); // a "wide" column
        QCOMPARE(s.cell(uid, "Images").toString(), QStringLiteral("nginx:1.25"));
        QVERIFY(s.cell(uid, "Ready").toString().endsWith(QLatin1String("/2")));
    }
};

QTEST_GUILESS_MAIN(TestTable)
#include "tst_table.moc"
