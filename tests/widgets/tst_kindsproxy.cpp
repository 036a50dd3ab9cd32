// The resource kinds tree's proxy (widgets/kindsproxy.h) over ResourceKindsModel: the search
// filter (kinds with their group, a group with all its kinds, case-insensitive), the model's
// order kept (Favourites first, never re-sorted), live counts and favourites under a filter, and
// the group tooltips and icons. Both models run under QAbstractItemModelTester from the start.
#include "models/resourcekindsmodel.h"
#include "widgets/icons.h"
#include "widgets/kindsproxy.h"

#include <QAbstractItemModelTester>
#include <QLocale>
#include <QSignalSpy>
#include <QTest>

#include <memory>

using namespace fieldscope;
using models::ResourceKind;
using models::ResourceKindsModel;
using widgets::KindsProxy;

namespace {

std::vector<ResourceKind> sampleKinds()
{
    return {{QStringLiteral("apps"), QStringLiteral("v1"), QStringLiteral("deployments"), QStringLiteral("Deployment"),
             true},
            {QStringLiteral("apps"), QStringLiteral("v1"), QStringLiteral("statefulsets"),
             QStringLiteral("StatefulSet"), true},
            {{}, QStringLiteral("v1"), QStringLiteral("pods"), QStringLiteral("Pod"), true},
            {{}, QStringLiteral("v1"), QStringLiteral("configmaps"), QStringLiteral("ConfigMap"), true},
            {{}, QStringLiteral("v1"), QStringLiteral("namespaces"), QStringLiteral("Namespace"), false},
            {QStringLiteral("example.com"), QStringLiteral("v1"), QStringLiteral("widgets"), QStringLiteral("Widget"),
             true}};
}

// One line a row: groups flush left, kinds indented, the count after the kind when known.
QString dump(const QAbstractItemModel &m)
{
    QStringList out;
    for (int g = 0; g < m.rowCount(); ++g) {
        const QModelIndex group = m.index(g, ResourceKindsModel::KindColumn);
        out << group.data().toString();
        for (int k = 0; k < m.rowCount(group); ++k) {
            const QString count = m.index(k, ResourceKindsModel::CountColumn, group).data().toString();
            out << QStringLiteral("  ") + m.index(k, ResourceKindsModel::KindColumn, group).data().toString()
                       + (count.isEmpty() ? QString() : QStringLiteral(" ") + count);
        }
    }
    return out.join(u'\n');
}

QModelIndex groupRow(const QAbstractItemModel &m, const QString &title)
{
    for (int g = 0; g < m.rowCount(); ++g)
        if (m.index(g, 0).data().toString() == title)
            return m.index(g, 0);
    return {};
}

QImage rendered(const QIcon &icon)
{
    return icon.pixmap(16, 16).toImage();
}

// The model and the proxy, each watched by a tester attached before the first row arrives.
struct Fixture {
    ResourceKindsModel model;
    KindsProxy proxy;
    std::unique_ptr<QAbstractItemModelTester> modelTester;
    std::unique_ptr<QAbstractItemModelTester> proxyTester;
    Fixture()
    {
        modelTester =
            std::make_unique<QAbstractItemModelTester>(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        proxy.setSourceModel(&model);
        proxyTester =
            std::make_unique<QAbstractItemModelTester>(&proxy, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setKinds(sampleKinds());
    }
};

} // namespace

class TestKindsProxy : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void withoutSearchTextEveryKindIsShownInTheModelsOrder()
    {
        Fixture f;
        QCOMPARE(dump(f.proxy), dump(f.model));
        QCOMPARE(
            dump(f.proxy),
            QStringLiteral(
                "core\n  ConfigMap\n  Namespace\n  Pod\napps\n  Deployment\n  StatefulSet\nexample.com\n  Widget"));
    }

    void searchShowsMatchingKindsUnderTheirGroupIgnoringCase()
    {
        Fixture f;
        f.proxy.setSearchText(QStringLiteral("deploy"));
        QCOMPARE(dump(f.proxy), QStringLiteral("apps\n  Deployment"));
        f.proxy.setSearchText(QStringLiteral("MAP"));
        QCOMPARE(dump(f.proxy), QStringLiteral("core\n  ConfigMap"));
        f.proxy.setSearchText(QStringLiteral("nothing like it"));
        QCOMPARE(f.proxy.rowCount(), 0);
        f.proxy.setSearchText(QString());
        QCOMPARE(dump(f.proxy), dump(f.model));
    }

    // Typing an API group's name lists its kinds, not an empty group row.
    void searchForAGroupNameShowsAllItsKinds()
    {
        Fixture f;
        f.proxy.setSearchText(QStringLiteral("apps"));
        QCOMPARE(dump(f.proxy), QStringLiteral("apps\n  Deployment\n  StatefulSet"));
        f.proxy.setSearchText(QStringLiteral("EXAMPLE"));
        QCOMPARE(dump(f.proxy), QStringLiteral("example.com\n  Widget"));
    }

    // The proxy never sorts: Favourites stay on top and "core" before the named groups, which an
    // alphabetical sort would both undo.
    void filteredRowsKeepTheModelsOrderWithFavouritesFirst()
    {
        Fixture f;
        f.model.setFavourite(QStringLiteral("widgets.example.com"), true);
        f.model.setFavourite(QStringLiteral("pods"), true);
        f.proxy.setSearchText(QStringLiteral("d"));
        QCOMPARE(dump(f.proxy),
                 QStringLiteral("Favourites\n  Pod\n  Widget\ncore\n  Pod\napps\n  Deployment\nexample.com\n  Widget"));
    }

    // Counts arrive and favourites change while a search is active: the proxy follows through
    // inserts, removes and dataChanged, and the tester checks each of them.
    void countsAndFavouritesFollowTheModelUnderASearch()
    {
        Fixture f;
        f.proxy.setSearchText(QStringLiteral("pod"));
        QCOMPARE(dump(f.proxy), QStringLiteral("core\n  Pod"));
        QSignalSpy resets(&f.proxy, &QAbstractItemModel::modelReset);
        f.model.setCount(QStringLiteral("pods"), 12345);
        f.model.setCount(QStringLiteral("configmaps"), 3); // filtered out: stays out
        const QString many = QLocale().toString(12345);
        QCOMPARE(dump(f.proxy), QStringLiteral("core\n  Pod %1").arg(many));
        f.model.setFavourite(QStringLiteral("pods"), true);
        QCOMPARE(dump(f.proxy), QStringLiteral("Favourites\n  Pod %1\ncore\n  Pod %1").arg(many));
        f.model.setFavourite(QStringLiteral("pods"), false);
        QCOMPARE(dump(f.proxy), QStringLiteral("core\n  Pod %1").arg(many));
        QCOMPARE(resets.size(), 0);
    }

    void aNewDiscoveryResultIsFilteredByTheCurrentSearch()
    {
        Fixture f;
        f.proxy.setSearchText(QStringLiteral("set"));
        QCOMPARE(dump(f.proxy), QStringLiteral("apps\n  StatefulSet"));
        auto kinds = sampleKinds();
        kinds.push_back({QStringLiteral("apps"), QStringLiteral("v1"), QStringLiteral("replicasets"),
                         QStringLiteral("ReplicaSet"), true});
        kinds.push_back({QStringLiteral("apps"), QStringLiteral("v1"), QStringLiteral("daemonsets"),
                         QStringLiteral("DaemonSet"), true});
        f.model.setKinds(std::move(kinds));
        QCOMPARE(dump(f.proxy), QStringLiteral("apps\n  DaemonSet\n  ReplicaSet\n  StatefulSet"));
    }

    void groupTooltipsCountTheirKindsAndKindTooltipsStartWithTheName()
    {
        Fixture f;
        QCOMPARE(groupRow(f.proxy, QStringLiteral("apps")).data(Qt::ToolTipRole).toString(),
                 QStringLiteral("apps: 2 kinds"));
        QCOMPARE(groupRow(f.proxy, QStringLiteral("example.com")).data(Qt::ToolTipRole).toString(),
                 QStringLiteral("example.com: 1 kind"));
        // The filtered proxy still counts the group's kinds in the model.
        f.proxy.setSearchText(QStringLiteral("deploy"));
        QCOMPARE(groupRow(f.proxy, QStringLiteral("apps")).data(Qt::ToolTipRole).toString(),
                 QStringLiteral("apps: 2 kinds"));
        const QModelIndex deployment = f.proxy.index(0, 0, groupRow(f.proxy, QStringLiteral("apps")));
        QCOMPARE(deployment.data(Qt::ToolTipRole).toString(), QStringLiteral("Deployment\ndeployments.apps (apps/v1)"));
        // The count column keeps the model's own data.
        QVERIFY(!f.proxy.index(0, ResourceKindsModel::CountColumn, groupRow(f.proxy, QStringLiteral("apps")))
                     .data(Qt::ToolTipRole)
                     .toString()
                     .startsWith(QStringLiteral("Deployment\n")));
    }

    void iconsTellGroupsFavouritesNamespacesAndKindsApart()
    {
        Fixture f;
        f.model.setFavourite(QStringLiteral("pods"), true);
        const QModelIndex favourites = groupRow(f.proxy, QStringLiteral("Favourites"));
        const QModelIndex coreGroup = groupRow(f.proxy, QStringLiteral("core"));
        QVERIFY(favourites.isValid() && coreGroup.isValid());
        QCOMPARE(rendered(favourites.data(Qt::DecorationRole).value<QIcon>()),
                 rendered(widgets::icon(widgets::Icon::Favourite)));
        QCOMPARE(rendered(coreGroup.data(Qt::DecorationRole).value<QIcon>()),
                 rendered(widgets::icon(widgets::Icon::ApiGroup)));
        auto kindIcon = [&](const QString &name) {
            for (int k = 0; k < f.proxy.rowCount(coreGroup); ++k)
                if (f.proxy.index(k, 0, coreGroup).data().toString() == name)
                    return rendered(f.proxy.index(k, 0, coreGroup).data(Qt::DecorationRole).value<QIcon>());
            return QImage();
        };
        QCOMPARE(kindIcon(QStringLiteral("Pod")), rendered(widgets::icon(widgets::Icon::Favourite)));
        QCOMPARE(kindIcon(QStringLiteral("Namespace")), rendered(widgets::icon(widgets::Icon::Namespace)));
        QCOMPARE(kindIcon(QStringLiteral("ConfigMap")), rendered(widgets::icon(widgets::Icon::Kind)));
        QVERIFY(rendered(widgets::icon(widgets::Icon::Kind)) != rendered(widgets::icon(widgets::Icon::Favourite)));
        QVERIFY(!f.proxy.index(0, ResourceKindsModel::CountColumn, coreGroup).data(Qt::DecorationRole).isValid());
    }
};

QTEST_MAIN(TestKindsProxy)
#include "tst_kindsproxy.moc"
