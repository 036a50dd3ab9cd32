// Exec-plugin consent is remembered by fingerprint across instances (runs), lists what the user
// decided about (never arguments or env values), and forgets one decision or all.
#include "app/services/settingsconsentstore.h"

#include <QCoreApplication>
#include <QSettings>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

using fieldscope::app::SettingsConsentStore;
using fieldscope::kube::ConsentRecord;

namespace {
ConsentRecord record(char digit, bool allowed, const std::string &file, int minutesAgo)
{
    ConsentRecord r;
    r.fingerprint = std::string(63, '0') + digit;
    r.allowed = allowed;
    r.kubeconfigFile = file;
    r.contextName = "prod";
    r.userName = "sso";
    r.server = "https://api.prod.example:6443";
    r.program = "/usr/bin/kubelogin";
    r.when = QDateTime::currentDateTimeUtc().addSecs(qint64{-60} * minutesAgo);
    return r;
}
} // namespace

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

    void decisionSurvivesANewInstanceAndIsPerFingerprint()
    {
        {
            SettingsConsentStore a;
            QVERIFY(!a.decision(record('1', true, "/home/u/.kube/config", 0).fingerprint).has_value());
            a.remember(record('1', true, "/home/u/.kube/config", 0));
            a.remember(record('2', false, "/home/u/.kube/other", 0));
        }
        SettingsConsentStore b; // a later run
        QCOMPARE(b.decision(record('1', true, {}, 0).fingerprint), std::optional<bool>(true));
        QCOMPARE(b.decision(record('2', true, {}, 0).fingerprint), std::optional<bool>(false));
        QVERIFY(!b.decision(record('3', true, {}, 0).fingerprint).has_value());
        QVERIFY(!b.decision("not-a-fingerprint").has_value());
    }

    void decisionsListWhatWasDecidedNewestFirst()
    {
        QTemporaryDir dir;
        SettingsConsentStore s(dir.filePath(QStringLiteral("settings.ini")));
        s.remember(record('a', true, "/home/u/.kube/config", 30));
        s.remember(record('b', false, "/tmp/colleague.yaml", 5));
        const auto list = SettingsConsentStore(dir.filePath(QStringLiteral("settings.ini"))).decisions();
        QCOMPARE(int(list.size()), 2);
        QCOMPARE(QString::fromStdString(list[0].kubeconfigFile), QStringLiteral("/tmp/colleague.yaml"));
        QVERIFY(!list[0].allowed);
        QCOMPARE(QString::fromStdString(list[1].kubeconfigFile), QStringLiteral("/home/u/.kube/config"));
        QVERIFY(list[1].allowed);
        QCOMPARE(QString::fromStdString(list[1].contextName), QStringLiteral("prod"));
        QCOMPARE(QString::fromStdString(list[1].userName), QStringLiteral("sso"));
        QCOMPARE(QString::fromStdString(list[1].server), QStringLiteral("https://api.prod.example:6443"));
        QCOMPARE(QString::fromStdString(list[1].program), QStringLiteral("/usr/bin/kubelogin"));
        QVERIFY(qAbs(list[1].when.secsTo(QDateTime::currentDateTimeUtc()) - 1800) < 5);
    }

    void forgetRemovesOneDecisionAndForgetAllEveryOne()
    {
        QTemporaryDir dir;
        const QString file = dir.filePath(QStringLiteral("settings.ini"));
        SettingsConsentStore s(file);
        s.remember(record('a', true, "/a", 0));
        s.remember(record('b', false, "/b", 0));
        s.remember(record('c', true, "/c", 0));
        {
            QSettings legacy(file, QSettings::IniFormat); // an earlier version's decision
            legacy.setValue(QStringLiteral("execConsent/0123"), true);
        }
        QVERIFY(s.forget(record('b', false, {}, 0).fingerprint));
        QVERIFY(!s.forget(record('b', false, {}, 0).fingerprint)); // already gone
        QVERIFY(!s.decision(record('b', false, {}, 0).fingerprint).has_value());
        QCOMPARE(int(s.decisions().size()), 2);
        QCOMPARE(s.forgetAll(), 2);
        QVERIFY(s.decisions().empty());
        QVERIFY(!s.decision(record('a', false, {}, 0).fingerprint).has_value());
        QVERIFY(!QSettings(file, QSettings::IniFormat).contains(QStringLiteral("execConsent/0123")));
    }

    // The subcommands set no organisation name: they must still use the window's file.
    void withoutAnOrganisationTheStoreUsesTheWindowsSettings()
    {
        const QString org = QCoreApplication::organizationName();
        QCoreApplication::setOrganizationName(QStringLiteral("fieldscope"));
        QSettings().clear();
        QCoreApplication::setOrganizationName(QString());
        SettingsConsentStore().remember(record('9', true, "/k", 0));
        QCoreApplication::setOrganizationName(QStringLiteral("fieldscope"));
        QCOMPARE(SettingsConsentStore().decision(record('9', true, {}, 0).fingerprint), std::optional<bool>(true));
        QSettings().clear();
        QCoreApplication::setOrganizationName(org);
    }
};

QTEST_GUILESS_MAIN(TestConsentStore)
#include "tst_consentstore.moc"
