// Exec-plugin consent is remembered per kubeconfig file and command, across instances (runs).
#include "app/settingsconsentstore.h"

#include <QCoreApplication>
#include <QSettings>
#include <QStandardPaths>
#include <QTest>

using fieldscope::app::SettingsConsentStore;

class TestConsentStore : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName(QStringLiteral("fieldscope-test"));
        QCoreApplication::setApplicationName(QStringLiteral("tst_consentstore"));
        QSettings().clear(); // test-mode settings survive between runs: start from nothing
    }
    void decisionSurvivesANewInstanceAndIsPerFileAndCommand()
    {
        {
            SettingsConsentStore a;
            QVERIFY(!a.decision("/home/u/.kube/config", "kubelogin get-token").has_value());
            a.remember("/home/u/.kube/config", "kubelogin get-token", true);
            a.remember("/home/u/.kube/other", "kubelogin get-token", false);
        }
        SettingsConsentStore b; // a later run
        QCOMPARE(b.decision("/home/u/.kube/config", "kubelogin get-token"), std::optional<bool>(true));
        QCOMPARE(b.decision("/home/u/.kube/other", "kubelogin get-token"), std::optional<bool>(false));
        QVERIFY(!b.decision("/home/u/.kube/config", "evil-plugin").has_value());
    }
};

QTEST_GUILESS_MAIN(TestConsentStore)
#include "tst_consentstore.moc"
