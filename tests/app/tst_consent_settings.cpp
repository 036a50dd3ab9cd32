// The window's Settings shows the exec-plugin decisions of the shared store (the one `fieldscope
// consent` uses) and Forget removes the selected one from it. No cluster.
#include "app/gui/workspace.h"
#include "app/services/settingsconsentstore.h"
#include "widgets/consentdecisionsview.h"
#include "widgets/mainwindow.h"
#include "widgets/settingsdialog.h"

#include <QApplication>
#include <QPushButton>
#include <QSettings>
#include <QStandardPaths>
#include <QTableWidget>
#include <QTest>

using namespace fieldscope;

class TestConsentSettings : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName(QStringLiteral("fieldscope-test"));
        QCoreApplication::setApplicationName(QStringLiteral("tst_consent_settings"));
        QSettings().clear();
    }

    void settingsListsTheStoresDecisionsAndForgetRemovesOne()
    {
        app::SettingsConsentStore store;
        kube::ConsentRecord r;
        r.allowed = true;
        r.kubeconfigFile = "/home/u/.kube/config";
        r.contextName = "prod";
        r.userName = "sso";
        r.server = "https://api.prod.example:6443";
        r.program = "/usr/bin/kubelogin";
        r.when = QDateTime::currentDateTimeUtc();
        r.fingerprint = std::string(64, 'a');
        store.remember(r);
        r.fingerprint = std::string(64, 'b');
        r.contextName = "stage";
        r.allowed = false;
        store.remember(r);

        widgets::MainWindow window;
        app::Workspace workspace(&window);
        window.show();
        window.showSettings();
        auto *dialog = window.findChild<widgets::SettingsDialog *>();
        QVERIFY(dialog);
        QTableWidget *table = dialog->consentDecisions()->table();
        QCOMPARE(table->rowCount(), 2);
        int stage = table->item(0, 2)->text() == QLatin1String("stage") ? 0 : 1;
        QCOMPARE(table->item(stage, 0)->text(), QStringLiteral("denied"));
        QCOMPARE(table->item(stage, 1)->text(), QStringLiteral("/home/u/.kube/config"));
        QCOMPARE(table->item(stage, 3)->text(), QStringLiteral("/usr/bin/kubelogin"));
        QCOMPARE(table->item(stage, 4)->text(), QStringLiteral("https://api.prod.example:6443"));

        table->selectRow(stage);
        QTest::mouseClick(dialog->consentDecisions()->forgetButton(), Qt::LeftButton);
        QCOMPARE(table->rowCount(), 1);
        QCOMPARE(table->item(0, 2)->text(), QStringLiteral("prod"));
        const auto left = store.decisions();
        QCOMPARE(int(left.size()), 1);
        QCOMPARE(QString::fromStdString(left.front().contextName), QStringLiteral("prod"));
        QVERIFY(!store.decision(std::string(64, 'b')).has_value()); // asked again next time
    }
};

QTEST_MAIN(TestConsentSettings)
#include "tst_consent_settings.moc"
