// The settings service (app/services/settings.h): one default per key, hand-edited or foreign
// values read as something safe, setters refuse what the API server or the recorder would, and
// docs/settings.md lists every key with the default the code uses.
#include "app/services/settings.h"

#include <QCoreApplication>
#include <QFile>
#include <QSettings>
#include <QStandardPaths>
#include <QTest>

using fieldscope::app::Settings;

class TestSettings : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName(QStringLiteral("fieldscope-test"));
        QCoreApplication::setApplicationName(QStringLiteral("tst_settings"));
    }
    void init() { QSettings().clear(); }

    void anEmptyFileReadsAsTheDefaults()
    {
        QCOMPARE(Settings::historyVersionsPerObject(), 1000);
        QCOMPARE(Settings::fieldManager(), QStringLiteral("fieldscope"));
        QCOMPARE(Settings::backgroundResources(),
                 QStringLiteral("deployments,statefulsets,daemonsets,configmaps,services"));
        QVERIFY(Settings::sharedHistoryUrl().isEmpty());
        QVERIFY(!Settings::recordsSecretValues(QStringLiteral("sha256:abc")));
    }

    // A versions count that is not a number used to read as 0 (keep every version forever) and
    // one below the minimum as itself (1: each object's history reduced to its last version).
    void aHandEditedVersionsCountReadsAsTheDefaultOrTheNearestAllowed()
    {
        QSettings().setValue(QStringLiteral("history/versionsPerObject"), QStringLiteral("lots"));
        QCOMPARE(Settings::historyVersionsPerObject(), Settings::kDefaultVersionsPerObject);
        QSettings().setValue(QStringLiteral("history/versionsPerObject"), 1);
        QCOMPARE(Settings::historyVersionsPerObject(), Settings::kMinVersionsPerObject);
        QSettings().setValue(QStringLiteral("history/versionsPerObject"), -40);
        QCOMPARE(Settings::historyVersionsPerObject(), Settings::kMinVersionsPerObject);
        QSettings().setValue(QStringLiteral("history/versionsPerObject"), 50'000'000);
        QCOMPARE(Settings::historyVersionsPerObject(), Settings::kMaxVersionsPerObject);
    }

    void settingAVersionsCountOutsideTheRangeKeepsTheOldOne()
    {
        QVERIFY(Settings::setHistoryVersionsPerObject(321).isEmpty());
        QVERIFY(!Settings::setHistoryVersionsPerObject(1).isEmpty());
        QVERIFY(!Settings::setHistoryVersionsPerObject(Settings::kMaxVersionsPerObject + 1).isEmpty());
        QCOMPARE(Settings::historyVersionsPerObject(), 321);
    }

    // The API server refuses a fieldManager over 128 characters or with control characters: a
    // hand-edited one would make every write of the window and of `apply` fail.
    void aFieldManagerTheServerWouldRefuseReadsAsTheDefault()
    {
        QSettings().setValue(QStringLiteral("writes/fieldManager"), QString(129, u'm'));
        QCOMPARE(Settings::fieldManager(), QStringLiteral("fieldscope"));
        QSettings().setValue(QStringLiteral("writes/fieldManager"), QStringLiteral("ops\x1b[31m"));
        QCOMPARE(Settings::fieldManager(), QStringLiteral("fieldscope"));
        QSettings().setValue(QStringLiteral("writes/fieldManager"), QStringLiteral("  team-console "));
        QCOMPARE(Settings::fieldManager(), QStringLiteral("team-console"));
    }

    void settingAFieldManagerTrimsItAndRefusesControlCharacters()
    {
        QVERIFY(Settings::setFieldManager(QStringLiteral(" ops ")).isEmpty());
        QCOMPARE(Settings::fieldManager(), QStringLiteral("ops"));
        QVERIFY(!Settings::setFieldManager(QStringLiteral("a\tb")).isEmpty());
        QVERIFY(!Settings::setFieldManager(QString(129, u'x')).isEmpty());
        QVERIFY(!Settings::setFieldManager(QStringLiteral("   ")).isEmpty());
        // The API server counts bytes of UTF-8 and refuses spaces other than ASCII's.
        QVERIFY(!Settings::setFieldManager(QString(65, QChar(0x00e9))).isEmpty()); // 130 bytes
        QVERIFY(Settings::setFieldManager(QString(64, QChar(0x00e9))).isEmpty());  // 128 bytes
        QVERIFY(!Settings::setFieldManager(QStringLiteral("a") + QChar(0x00a0) + QStringLiteral("b")).isEmpty());
        QVERIFY(!Settings::setFieldManager(QStringLiteral("a") + QChar(0x202e) + QStringLiteral("b")).isEmpty());
        QVERIFY(Settings::setFieldManager(QStringLiteral(" ops ")).isEmpty());
        QCOMPARE(Settings::fieldManager(), QStringLiteral("ops"));
    }

    void backgroundResourcesMustBeResourceNames()
    {
        QVERIFY(Settings::setBackgroundResources(QStringLiteral("configmaps, deployments.apps")).isEmpty());
        QCOMPARE(Settings::backgroundResources(), QStringLiteral("configmaps,deployments.apps"));
        QVERIFY(!Settings::setBackgroundResources(QStringLiteral("configmaps;rm -rf /")).isEmpty());
        QVERIFY(!Settings::setBackgroundResources(QStringLiteral(",")).isEmpty());
        QCOMPARE(Settings::backgroundResources(), QStringLiteral("configmaps,deployments.apps"));
        // Written by hand: the recorder records the defaults, never a word it cannot ask for.
        QVERIFY(Settings::setBackgroundResources(QStringLiteral("cm,ConfigMap")).isEmpty()); // as record takes them
        QSettings().setValue(QStringLiteral("background/resources"), QStringLiteral("Config Maps"));
        QCOMPARE(Settings::backgroundResources(), QString::fromLatin1(Settings::kDefaultBackgroundResources));
    }

    void aSharedUrlWithAPasswordIsNeverKept()
    {
        QVERIFY(Settings::setSharedHistoryUrl(QStringLiteral("postgresql://db.example/history")).isEmpty());
        const QString why = Settings::setSharedHistoryUrl(QStringLiteral("postgresql://u:hunter2@db.example/history"));
        QVERIFY(!why.isEmpty());
        QVERIFY2(!why.contains(QStringLiteral("hunter2")), qPrintable(why));
        QVERIFY(!Settings::setSharedHistoryUrl(QStringLiteral("/tmp/history.db")).isEmpty());
        QCOMPARE(Settings::sharedHistoryUrl(), QStringLiteral("postgresql://db.example/history"));
        QVERIFY(Settings::setSharedHistoryUrl(QString()).isEmpty());
        QVERIFY(Settings::sharedHistoryUrl().isEmpty());
    }

    void secretValuesAreChosenPerClusterIdentity()
    {
        Settings::setRecordsSecretValues(QStringLiteral("sha256:abc"), true);
        QVERIFY(Settings::recordsSecretValues(QStringLiteral("sha256:abc")));
        QVERIFY(!Settings::recordsSecretValues(QStringLiteral("sha256:abd")));
        QVERIFY(!Settings::recordsSecretValues(QString()));
        Settings::setRecordsSecretValues(QStringLiteral("sha256:abc"), false);
        QVERIFY(!Settings::recordsSecretValues(QStringLiteral("sha256:abc")));
    }

    void theDocsListEveryKeyWithTheDefaultTheCodeUses()
    {
        QFile f(QStringLiteral(FIELDSCOPE_SOURCE_DIR "/docs/settings.md"));
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QString doc = QString::fromUtf8(f.readAll());
        for (const auto &k : Settings::keys()) {
            const QString row = QStringLiteral("| `%1` | %2 |")
                                    .arg(QString::fromLatin1(k.key),
                                         *k.defaultValue
                                             ? QStringLiteral("`%1`").arg(QString::fromLatin1(k.defaultValue))
                                             : QStringLiteral("(none)"));
            QVERIFY2(doc.contains(row), qPrintable(row));
        }
        QCOMPARE(QString::number(Settings::kDefaultVersionsPerObject),
                 QString::fromLatin1(Settings::keys().front().defaultValue));
    }
};

QTEST_GUILESS_MAIN(TestSettings)
#include "tst_settings.moc"
