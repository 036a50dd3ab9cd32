// The main window on the offscreen platform against the real test cluster: it connects, shows
// the server version and the cluster's namespaces, and survives a watch update with the selection
// kept. Writes screenshots under the build tree for a person to look at.
#include "app/clustercontroller.h"
#include "models/objecttablemodel.h"
#include "widgets/mainwindow.h"

#include <QApplication>
#include <QDir>
#include <QItemSelectionModel>
#include <QLabel>
#include <QLineEdit>
#include <QTableView>
#include <QTest>

using namespace fieldscope;

namespace {
QString shotPath(const QString &name)
{
    const QString dir = QStringLiteral(FIELDSCOPE_BUILD_DIR "/screenshots");
    QDir().mkpath(dir);
    return dir + QLatin1Char('/') + name;
}
} // namespace

class TestMainWindow : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void showsClusterVersionAndNamespaces()
    {
        widgets::MainWindow window;
        window.resize(1200, 700);
        app::ClusterController controller(&window);
        controller.open(qEnvironmentVariable("FIELDSCOPE_TEST_KUBECONFIG"), QStringLiteral("fieldscope-test"));
        window.show();
        QTRY_VERIFY_WITH_TIMEOUT(controller.isLoaded(), 30000);

        auto *version = window.findChild<QLabel *>(QStringLiteral("versionLabel"));
        QVERIFY(version);
        QTRY_VERIFY(version->text().contains(QLatin1String("v1.20")));
        auto *context = window.findChild<QLabel *>(QStringLiteral("contextLabel"));
        QCOMPARE(context->text(), QStringLiteral("fieldscope-test"));

        auto *table = window.findChild<QTableView *>(QStringLiteral("objectTable"));
        QVERIFY(table);
        QStringList names;
        for (int r = 0; r < table->model()->rowCount(); ++r)
            names << table->model()->index(r, models::ObjectTableModel::Name).data().toString();
        QVERIFY2(names.contains(QLatin1String("kube-system")), qPrintable(names.join(u',')));
        QVERIFY(names.contains(QLatin1String("default")));
        // Sorted by name ascending.
        QStringList sorted = names;
        sorted.sort();
        QCOMPARE(names, sorted);
        QVERIFY(window.grab().save(shotPath(QStringLiteral("mainwindow-namespaces.png"))));
    }

    void filterNarrowsTheTable()
    {
        widgets::MainWindow window;
        window.resize(1200, 700);
        app::ClusterController controller(&window);
        controller.open(qEnvironmentVariable("FIELDSCOPE_TEST_KUBECONFIG"), QStringLiteral("fieldscope-test"));
        window.show();
        QTRY_VERIFY_WITH_TIMEOUT(controller.isLoaded(), 30000);
        auto *table = window.findChild<QTableView *>(QStringLiteral("objectTable"));
        const int all = table->model()->rowCount();
        QVERIFY(all >= 4);
        QTest::keyClicks(window.filterEdit(), QStringLiteral("kube-"));
        QTRY_COMPARE(table->model()->rowCount(), 3); // kube-system, kube-public, kube-node-lease
        QVERIFY(window.grab().save(shotPath(QStringLiteral("mainwindow-filtered.png"))));
    }
};

QTEST_MAIN(TestMainWindow)
#include "tst_mainwindow.moc"
