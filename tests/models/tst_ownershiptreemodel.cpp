// OwnershipTreeModel, ManagerLegendModel and manager colours, checked through text dumps with a
// QAbstractItemModelTester attached before anything is fed.
#include "core/yaml/yaml.h"
#include "models/managercolors.h"
#include "models/managerlegendmodel.h"
#include "models/ownershiptreemodel.h"
#include "models/roles.h"

#include <QAbstractItemModelTester>
#include <QFile>
#include <QSignalSpy>
#include <QTest>

#include <random>

using namespace fieldscope;
using namespace fieldscope::models;

namespace {

core::Json loadFixture(const QString &name)
{
    QFile f(QStringLiteral(FIELDSCOPE_TEST_DATA "/ownership/") + name);
    if (!f.open(QIODevice::ReadOnly))
        qFatal("cannot open %s", qPrintable(f.fileName()));
    const QByteArray bytes = f.readAll();
    auto r = core::yamlToJson(std::string_view(bytes.constData(), std::size_t(bytes.size())));
    if (!r)
        qFatal("%s", r.error().describe().c_str());
    return r->value;
}

core::OwnershipTree treeOf(const core::Json &object)
{
    auto t = core::OwnershipTree::build(object);
    if (!t)
        qFatal("%s", t.error().describe().c_str());
    return *t;
}

void dumpRows(const QAbstractItemModel &m, const QModelIndex &parent, int depth, QString &out)
{
    for (int r = 0; r < m.rowCount(parent); ++r) {
        QStringList cells;
        for (int c = 0; c < m.columnCount(parent); ++c)
            cells << m.index(r, c, parent).data().toString();
        out += QString(static_cast<qsizetype>(depth) * 2, QLatin1Char(' ')) + cells.join(QStringLiteral(" | "))
             + QLatin1Char('\n');
        dumpRows(m, m.index(r, 0, parent), depth + 1, out);
    }
}

QString dump(const QAbstractItemModel &m)
{
    QString out;
    dumpRows(m, {}, 0, out);
    return out;
}

QModelIndex findPath(const QAbstractItemModel &m, const QString &path, const QModelIndex &parent = {})
{
    for (int r = 0; r < m.rowCount(parent); ++r) {
        const QModelIndex i = m.index(r, 0, parent);
        if (i.data(FieldPathRole).toString() == path)
            return i;
        if (QModelIndex found = findPath(m, path, i); found.isValid())
            return found;
    }
    return {};
}

} // namespace

class TestOwnershipTreeModel : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void dumpShowsEveryColumn();
    void rolesDescribeTheField();
    void managerFilterShowsOwnedFieldsAndTheirAncestors();
    void legendRowFiltersTheTreeByEntry();
    void updateOfTheSameObjectKeepsRowsAndSelection();
    void anotherObjectResetsTheModel();
    void randomUpdatesMatchAFreshModel();
    void navigationFindsRowsByPointerAndPath();
    void legendListsEveryEntryWithFieldCounts();
    void legendMovesRowsWhenEntriesReorder();
    void managerColoursAreStableDistinctAndReadable_data();
    void managerColoursAreStableDistinctAndReadable();
};

void TestOwnershipTreeModel::dumpShowsEveryColumn()
{
    OwnershipTreeModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setTree(treeOf(loadFixture(QStringLiteral("service.yaml"))));
    QCOMPARE(
        dump(model),
        QStringLiteral("apiVersion | v1 |  |  | \n"
                       "kind | Service |  |  | \n"
                       "metadata | {2 keys} |  |  | \n"
                       "  name | dns |  |  | \n"
                       "  namespace | prod |  |  | \n"
                       "spec | {4 keys} |  |  | \n"
                       "  clusterIP | 10.96.0.10 |  |  | \n"
                       "  selector | {1 key} | kubectl | Apply | 2026-07-20T09:01:00Z\n"
                       "    k8s-app | kube-dns | kubectl | Apply | 2026-07-20T09:01:00Z\n"
                       "  sessionAffinity | None |  |  | \n"
                       "  ports | [2 items] |  |  | \n"
                       "    [port=53,protocol=\"TCP\"] | {4 keys} | kubectl | Apply | 2026-07-20T09:01:00Z\n"
                       "      name | dns-tcp | kubectl | Apply | 2026-07-20T09:01:00Z\n"
                       "      port | 53 | kubectl | Apply | 2026-07-20T09:01:00Z\n"
                       "      protocol | TCP |  |  | \n"
                       "      targetPort | 53 | kubectl | Apply | 2026-07-20T09:01:00Z\n"
                       "    [port=53,protocol=\"UDP\"] | {4 keys} | kubectl-patch | Update | 2026-07-20T09:28:30Z\n"
                       "      name | dns | kubectl-patch | Update | 2026-07-20T09:28:30Z\n"
                       "      port | 53 | kubectl-patch | Update | 2026-07-20T09:28:30Z\n"
                       "      protocol | UDP | kubectl-patch | Update | 2026-07-20T09:28:30Z\n"
                       "      targetPort | 53 | kubectl-patch | Update | 2026-07-20T09:28:30Z\n"));
    QCOMPARE(model.headerData(OwnershipTreeModel::LastChangedColumn, Qt::Horizontal).toString(),
             QStringLiteral("Last changed"));
}

void TestOwnershipTreeModel::rolesDescribeTheField()
{
    OwnershipTreeModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setTree(treeOf(loadFixture(QStringLiteral("deployment.yaml"))));
    const QModelIndex app = findPath(model, QStringLiteral(".metadata.labels.app"));
    QVERIFY(app.isValid());
    QCOMPARE(app.data(JsonPointerRole).toString(), QStringLiteral("/metadata/labels/app"));
    QCOMPARE(app.data(PresentRole).toBool(), true);
    QCOMPARE(app.data(OwnerLabelsRole).toStringList(),
             QStringList({QStringLiteral("ci-bot(Apply)"), QStringLiteral("kubectl(Apply)")}));
    QCOMPARE(app.data(ManagerColorRole).value<QColor>(), managerColor(u"ci-bot"));
    QCOMPARE(app.data(OwnerColorsRole).toList().size(), 2);
    QCOMPARE(app.data(LastChangedRole).toDateTime(), QDateTime::fromSecsSinceEpoch(1784538843, Qt::UTC));
    QCOMPARE(model.index(app.row(), OwnershipTreeModel::OperationColumn, app.parent()).data().toString(),
             QStringLiteral("Apply, Apply"));

    const QModelIndex tier = findPath(model, QStringLiteral(".metadata.labels.tier"));
    QCOMPARE(tier.data(PresentRole).toBool(), false);
    QVERIFY(tier.data(Qt::FontRole).value<QFont>().italic());
    QCOMPARE(tier.data(JsonPointerRole).toString(), QString());

    const QModelIndex inherited = findPath(model, QStringLiteral(".spec.selector.matchLabels.app"));
    QCOMPARE(inherited.data(InheritedOwnershipRole).toBool(), true);
    const QModelIndex scale = findPath(model, QStringLiteral(".spec.replicas"));
    QCOMPARE(model.index(scale.row(), OwnershipTreeModel::OperationColumn, scale.parent()).data().toString(),
             QStringLiteral("Update/scale"));

    model.setPaletteTone(PaletteTone::Dark);
    QCOMPARE(app.data(ManagerColorRole).value<QColor>(), managerColor(u"ci-bot", PaletteTone::Dark));
}

void TestOwnershipTreeModel::managerFilterShowsOwnedFieldsAndTheirAncestors()
{
    OwnershipTreeModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setTree(treeOf(loadFixture(QStringLiteral("deployment.yaml"))));
    QSignalSpy resets(&model, &QAbstractItemModel::modelReset);
    model.setManagerFilter(QStringLiteral("kube-controller-manager"));
    QCOMPARE(resets.count(), 0);
    QCOMPARE(
        dump(model),
        QStringLiteral(
            "metadata | {9 keys} |  |  | \n"
            "  annotations | {1 key} | kube-controller-manager | Update/status | 2026-07-20T09:25:15Z\n"
            "    deployment.kubernetes.io/revision | 2 | kube-controller-manager | Update/status | 2026-07-20T09:25:15Z\n"
            "spec | {4 keys} |  |  | \n"
            "  replicas | 5 | kube-controller-manager | Update/scale | 2026-07-20T09:20:11Z\n"
            "status | {2 keys} |  |  | \n"
            "  replicas | 5 | kube-controller-manager | Update/status | 2026-07-20T09:25:15Z\n"
            "  conditions | [1 item] | kube-controller-manager | Update/status | 2026-07-20T09:25:15Z\n"
            "    [type=\"Available\"] | {3 keys} | kube-controller-manager | Update/status | 2026-07-20T09:25:15Z\n"
            "      type | Available | kube-controller-manager | Update/status | 2026-07-20T09:25:15Z\n"
            "      status | True | kube-controller-manager | Update/status | 2026-07-20T09:25:15Z\n"
            "      lastTransitionTime | 2026-07-20T09:25:15Z | kube-controller-manager | Update/status | 2026-07-20T09:25:15Z\n"));
    model.setManagerFilter(QString());
    OwnershipTreeModel fresh;
    QAbstractItemModelTester freshTester(&fresh, QAbstractItemModelTester::FailureReportingMode::QtTest);
    fresh.setTree(model.tree());
    QCOMPARE(dump(model), dump(fresh));
}

void TestOwnershipTreeModel::legendRowFiltersTheTreeByEntry()
{
    const auto tree = treeOf(loadFixture(QStringLiteral("deployment.yaml")));
    ManagerLegendModel legend;
    QAbstractItemModelTester legendTester(&legend, QAbstractItemModelTester::FailureReportingMode::QtTest);
    legend.setTree(tree);
    OwnershipTreeModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setTree(tree);
    // The scale entry only, not the status entry of the same manager.
    const int row = 2;
    QCOMPARE(legend.index(row, ManagerLegendModel::SubresourceColumn).data().toString(), QStringLiteral("scale"));
    model.setEntryFilter(legend.index(row, 0).data(EntryIndexRole).toInt());
    QCOMPARE(dump(model),
             QStringLiteral("spec | {4 keys} |  |  | \n"
                            "  replicas | 5 | kube-controller-manager | Update/scale | 2026-07-20T09:20:11Z\n"));
    QCOMPARE(model.entryFilter(), 2);
}

void TestOwnershipTreeModel::updateOfTheSameObjectKeepsRowsAndSelection()
{
    core::Json obj = loadFixture(QStringLiteral("deployment.yaml"));
    OwnershipTreeModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setTree(treeOf(obj));
    const QPersistentModelIndex image =
        findPath(model, QStringLiteral(".spec.template.spec.containers[name=\"nginx\"].image"));
    const QPersistentModelIndex restart = findPath(model, QStringLiteral(".spec.template.spec.restartPolicy"));
    QVERIFY(image.isValid() && restart.isValid());

    // kubectl edit changes the image; a label is added; status.replicas goes away.
    obj["spec"]["template"]["spec"]["containers"][0]["image"] = "nginx:1.28";
    obj["metadata"]["managedFields"][3]["time"] = "2026-07-20T09:40:00Z";
    obj["metadata"]["labels"]["team"] = "web";
    obj["status"].erase("replicas");
    QSignalSpy resets(&model, &QAbstractItemModel::modelReset);
    QSignalSpy inserted(&model, &QAbstractItemModel::rowsInserted);
    QSignalSpy removed(&model, &QAbstractItemModel::rowsRemoved);
    QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
    model.setTree(treeOf(obj));
    QCOMPARE(resets.count(), 0);
    QCOMPARE(inserted.count(), 1);
    QCOMPARE(inserted.front().at(0).value<QModelIndex>().data(FieldPathRole).toString(),
             QStringLiteral(".metadata.labels"));
    QVERIFY(changed.count() >= 2); // image value and time; metadata/labels previews
    QVERIFY(image.isValid() && restart.isValid());
    QCOMPARE(image.data(FieldPathRole).toString(),
             QStringLiteral(".spec.template.spec.containers[name=\"nginx\"].image"));
    QCOMPARE(model.index(image.row(), OwnershipTreeModel::ValueColumn, image.parent()).data().toString(),
             QStringLiteral("nginx:1.28"));
    QCOMPARE(restart.data(FieldPathRole).toString(), QStringLiteral(".spec.template.spec.restartPolicy"));
    // status.replicas was owned, so it stays as an absent row rather than disappearing.
    QCOMPARE(removed.count(), 0);
    QCOMPARE(findPath(model, QStringLiteral(".status.replicas")).data(PresentRole).toBool(), false);

    OwnershipTreeModel fresh;
    QAbstractItemModelTester freshTester(&fresh, QAbstractItemModelTester::FailureReportingMode::QtTest);
    fresh.setTree(model.tree());
    QCOMPARE(dump(model), dump(fresh));
}

void TestOwnershipTreeModel::anotherObjectResetsTheModel()
{
    OwnershipTreeModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setTree(treeOf(loadFixture(QStringLiteral("deployment.yaml"))));
    QSignalSpy resets(&model, &QAbstractItemModel::modelReset);
    model.setTree(treeOf(loadFixture(QStringLiteral("service.yaml"))));
    QCOMPARE(resets.count(), 1);
    QCOMPARE(model.index(1, 1).data().toString(), QStringLiteral("Service"));
}

void TestOwnershipTreeModel::randomUpdatesMatchAFreshModel()
{
    // A watch stream in miniature: each step mutates the object and sometimes the filter; after
    // every step the incrementally updated model must equal one built from scratch.
    core::Json obj = loadFixture(QStringLiteral("deployment.yaml"));
    OwnershipTreeModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setTree(treeOf(obj));
    std::mt19937 rng(4711);
    const QStringList filters = {QString(), QStringLiteral("kubectl"), QStringLiteral("kube-controller-manager"),
                                 QStringLiteral("nobody")};
    QSignalSpy resets(&model, &QAbstractItemModel::modelReset);
    for (int step = 0; step < 60; ++step) {
        auto &containers = obj["spec"]["template"]["spec"]["containers"];
        switch (rng() % 6) {
        case 0: obj["metadata"]["labels"]["l" + std::to_string(rng() % 4)] = "v"; break;
        case 1: obj["metadata"]["labels"].erase("l" + std::to_string(rng() % 4)); break;
        case 2: containers.push_back({{"name", "c" + std::to_string(step)}, {"image", "busybox"}}); break;
        case 3:
            if (containers.size() > 1)
                containers.erase(containers.begin() + std::ptrdiff_t(1 + rng() % (containers.size() - 1)));
            break;
        case 4:
            if (containers.size() > 2)
                std::swap(containers[1], containers[2]);
            break;
        case 5: model.setManagerFilter(filters[int(rng() % 4)]); break;
        }
        obj["spec"]["replicas"] = int(rng() % 3);
        model.setTree(treeOf(obj));
        OwnershipTreeModel fresh;
        QAbstractItemModelTester freshTester(&fresh, QAbstractItemModelTester::FailureReportingMode::QtTest);
        fresh.setTree(model.tree());
        fresh.setManagerFilter(model.managerFilter());
        QCOMPARE(dump(model), dump(fresh));
    }
    QCOMPARE(resets.count(), 0);
}

void TestOwnershipTreeModel::navigationFindsRowsByPointerAndPath()
{
    OwnershipTreeModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setTree(treeOf(loadFixture(QStringLiteral("deployment.yaml"))));
    const QModelIndex byPointer =
        model.indexForJsonPointer(QStringLiteral("/spec/template/spec/containers/0/ports/0/name"), 2);
    QCOMPARE(byPointer.data().toString(), QStringLiteral("kubectl-edit"));
    QCOMPARE(byPointer.column(), 2);
    const auto node = model.nodeForIndex(byPointer);
    QVERIFY(node);
    QCOMPARE(model.indexForPath(model.tree().path(*node)), byPointer.siblingAtColumn(0));
    model.setManagerFilter(QStringLiteral("kubectl"));
    QVERIFY(!model.indexForJsonPointer(QStringLiteral("/spec/template/spec/containers/0/ports/0/name")).isValid());
    QVERIFY(!model.indexForJsonPointer(QStringLiteral("/nope")).isValid());
}

void TestOwnershipTreeModel::legendListsEveryEntryWithFieldCounts()
{
    ManagerLegendModel legend;
    QAbstractItemModelTester tester(&legend, QAbstractItemModelTester::FailureReportingMode::QtTest);
    legend.setTree(treeOf(loadFixture(QStringLiteral("deployment.yaml"))));
    // The second column, Last written by, is empty: no audit events joined (ObjectHistoryModel's job).
    QCOMPARE(dump(legend), QStringLiteral("ci-bot |  | Apply |  | 2026-07-20T09:10:00Z | 1\n"
                                          "kubectl |  | Apply |  | 2026-07-20T09:14:03Z | 10\n"
                                          "kube-controller-manager |  | Update | scale | 2026-07-20T09:20:11Z | 1\n"
                                          "kubectl-edit |  | Update |  | 2026-07-20T09:25:00Z | 2\n"
                                          "kube-controller-manager |  | Update | status | 2026-07-20T09:25:15Z | 8\n"));
    QCOMPARE(legend.index(1, 0).data(ManagerColorRole).value<QColor>(), managerColor(u"kubectl"));
    QCOMPARE(legend.index(1, 0).data(Qt::DecorationRole).value<QColor>(), managerColor(u"kubectl"));
    QCOMPARE(legend.index(4, 0).data(FieldCountRole).toInt(), 8);
    QCOMPARE(legend.rowOfEntry(3), 3);
}

void TestOwnershipTreeModel::legendMovesRowsWhenEntriesReorder()
{
    core::Json obj = loadFixture(QStringLiteral("deployment.yaml"));
    ManagerLegendModel legend;
    QAbstractItemModelTester tester(&legend, QAbstractItemModelTester::FailureReportingMode::QtTest);
    legend.setTree(treeOf(obj));
    const QPersistentModelIndex selected = legend.index(2, 0); // kube-controller-manager /scale
    // The HPA writes again: the server moves its entry to the end (ordered by time); ci-bot is gone.
    auto &mf = obj["metadata"]["managedFields"];
    core::Json scale = mf[2];
    scale["time"] = "2026-07-20T09:45:00Z";
    mf.erase(mf.begin() + 2);
    mf.erase(mf.begin());
    mf.push_back(scale);
    QSignalSpy resets(&legend, &QAbstractItemModel::modelReset);
    QSignalSpy moved(&legend, &QAbstractItemModel::rowsMoved);
    legend.setTree(treeOf(obj));
    QCOMPARE(resets.count(), 0);
    QVERIFY(moved.count() >= 1);
    QVERIFY(selected.isValid());
    QCOMPARE(selected.row(), 3);
    QCOMPARE(legend.index(3, ManagerLegendModel::TimeColumn).data().toString(), QStringLiteral("2026-07-20T09:45:00Z"));
    QCOMPARE(dump(legend), QStringLiteral("kubectl |  | Apply |  | 2026-07-20T09:14:03Z | 10\n"
                                          "kubectl-edit |  | Update |  | 2026-07-20T09:25:00Z | 2\n"
                                          "kube-controller-manager |  | Update | status | 2026-07-20T09:25:15Z | 8\n"
                                          "kube-controller-manager |  | Update | scale | 2026-07-20T09:45:00Z | 1\n"));
    QCOMPARE(selected.data(EntryIndexRole).toInt(), 3);
}

void TestOwnershipTreeModel::managerColoursAreStableDistinctAndReadable_data()
{
    QTest::addColumn<QString>("manager");
    for (const char *m :
         {"kubectl", "kubectl-edit", "kubectl-client-side-apply", "kube-controller-manager", "kube-scheduler", "helm",
          "argocd-controller", "fieldscope", "before-first-apply", "ancient-changes", "a", "Ω-manager"})
        QTest::newRow(m) << QString::fromUtf8(m);
}

void TestOwnershipTreeModel::managerColoursAreStableDistinctAndReadable()
{
    QFETCH(QString, manager);
    const QColor light = managerColor(manager, PaletteTone::Light);
    const QColor dark = managerColor(manager, PaletteTone::Dark);
    QCOMPARE(managerColor(manager), light); // deterministic, Light by default
    QVERIFY2(contrastRatio(light, Qt::white) >= 4.5, qPrintable(light.name()));
    QVERIFY2(contrastRatio(dark, QColor(0x20, 0x20, 0x20)) >= 4.5, qPrintable(dark.name()));
    // Both tones share the manager's hue (up to RGB rounding).
    for (const QColor &c : {light, dark}) {
        const int d = std::abs(c.hslHue() - managerHue(manager));
        QVERIFY2(std::min(d, 360 - d) <= 2, qPrintable(c.name()));
    }
    QVERIFY(light.hslSaturation() > 100); // a colour, not a grey
}

QTEST_MAIN(TestOwnershipTreeModel)
#include "tst_ownershiptreemodel.moc"
