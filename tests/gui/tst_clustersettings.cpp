// The window's Settings and the command line read one settings file, and a per-cluster
// choice belongs to a cluster, not to a context name.
// - What the Settings dialog writes (field manager, background resources, the Secret opt-in)
//   is what the real `fieldscope apply` and `record --store` use (CMake gives this test its own
//   XDG folders in the build tree; the binary inherits them).
// - Two kubeconfigs with a context of the same name aimed at two clusters (the test cluster, and
//   a copy of its kubeconfig with another server URL): opting in on one records no Secret value
//   on the other.
// - An opt-in an earlier version kept per context name is asked about once, in the cluster's
//   view, and never taken as consent by the command line.
#include "app/gui/clustercontroller.h"
#include "app/gui/workspace.h"
#include "app/services/historysource.h"
#include "app/services/settings.h"
#include "app/services/versioninfo.h"
#include "clusterenv.h"
#include "core/base/json.h"
#include "core/base/jsonread.h"
#include "guitesting.h"
#include "testpostgres.h"
#include "widgets/clusterview.h"
#include "widgets/mainwindow.h"
#include "widgets/settingsdialog.h"

#include <QCheckBox>
#include <QDialogButtonBox>
#include <QDir>
#include <QFile>
#include <QFrame>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QRadioButton>
#include <QRegularExpression>
#include <QScopeGuard>
#include <QSettings>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include <functional>
#include <memory>

using namespace fieldscope;

namespace {

const char *kNamespace = "cluster-settings";
const QString kContext = QStringLiteral("fieldscope-test");

struct Run {
    int code = -1;
    QByteArray out, err;
};

// The real binary, with this process's environment (its XDG folders, so its settings file).
Run runFieldscope(const QStringList &args, const QString &kubeconfig = testing::testKubeconfig())
{
    QProcess p;
    p.start(testing::fieldscopeBinary(),
            args + QStringList{QStringLiteral("--kubeconfig"), kubeconfig, QStringLiteral("--context"), kContext});
    if (!p.waitForFinished(60000))
        p.kill();
    return {p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1, p.readAllStandardOutput(),
            p.readAllStandardError()};
}

// A window on one kubeconfig's context, composed as the app composes it.
struct Window {
    widgets::MainWindow window;
    app::Workspace workspace{&window};
    app::ClusterController *controller = nullptr;
    explicit Window(const QString &kubeconfig)
    {
        window.resize(1280, 800);
        workspace.setKubeconfig(kubeconfig);
        workspace.loadContexts();
        controller = workspace.open(kContext);
        window.show();
    }
    bool connected() const
    {
        return QTest::qWaitFor([&] { return !controller->clusterIdentity().isEmpty(); }, 20000);
    }
    QWidget *prompt() const
    {
        return controller->view()->findChild<QFrame *>(QStringLiteral("keepSecretValuesPrompt"));
    }
    // Opens Settings, lets `change` set its fields, clicks OK (the dialog's own code writes).
    bool changeSettings(const std::function<void(widgets::SettingsDialog *)> &change)
    {
        window.showSettings();
        auto *d = window.findChild<widgets::SettingsDialog *>();
        if (!d)
            return false;
        change(d);
        auto *ok = d->findChild<QDialogButtonBox *>()->button(QDialogButtonBox::Ok);
        QTest::mouseClick(ok, Qt::LeftButton);
        return true;
    }
};

} // namespace

class TestClusterSettings : public QObject
{
    Q_OBJECT
private:
    QTemporaryDir m_dir;
    QString m_otherKubeconfig;
    std::string m_identity;

    static void forgetSecretChoices()
    {
        QSettings s;
        s.remove(QStringLiteral("secrets"));
        s.sync();
    }

private Q_SLOTS:
    void initTestCase()
    {
        // Our own settings file, the one the binary reads too: the app's names, this test's XDG folders.
        QVERIFY2(qEnvironmentVariable("XDG_CONFIG_HOME").contains(QLatin1String("clustersettings-home")),
                 "run through ctest");
        app::setApplicationIdentity();
        QVERIFY2(QSettings().fileName().startsWith(qEnvironmentVariable("XDG_CONFIG_HOME")
                                                   + QStringLiteral("/fieldscope/")),
                 qPrintable(QSettings().fileName()));
        QFile::remove(QSettings().fileName());
        QDir(app::historyFolder()).removeRecursively();

        // The same kubeconfig aimed at another server: another cluster behind the same context name.
        QFile in(testing::testKubeconfig());
        QVERIFY(in.open(QIODevice::ReadOnly));
        QString text = QString::fromUtf8(in.readAll());
        static const QRegularExpression server(QStringLiteral("server: *'?https://[^\\s']+'?"));
        QVERIFY(text.contains(server));
        text.replace(server, QStringLiteral("server: https://127.0.0.1:9"));
        m_otherKubeconfig = m_dir.filePath(QStringLiteral("other-cluster"));
        QFile out(m_otherKubeconfig);
        QVERIFY(out.open(QIODevice::WriteOnly));
        out.write(text.toUtf8());
        out.close();
        m_identity = app::clusterIdentityOf(testing::connectTo(testing::ctxToken()).config);

        kube::Connection c = testing::connectTo(testing::ctxToken());
        kube::ApiClient client(c.transport);
        (void)testing::call(client, testing::request("POST", "/api/v1/namespaces",
                                                     core::toJsonText({{"metadata", {{"name", kNamespace}}}})));
    }

    // The field manager and the background resources set in the Settings dialog are what
    // `fieldscope apply` writes as and what `record --store` records.
    void settingsFromTheWindowReachTheCommandLine()
    {
        {
            Window w(testing::testKubeconfig());
            QVERIFY(w.connected());
            QVERIFY(w.changeSettings([](widgets::SettingsDialog *d) {
                d->findChild<QLineEdit *>(QStringLiteral("fieldManagerEdit"))
                    ->setText(QStringLiteral("manager-from-settings"));
                d->findChild<QLineEdit *>(QStringLiteral("backgroundResources"))
                    ->setText(QStringLiteral("configmaps,secrets"));
            }));
        }
        QSettings().sync();
        const QString manifest = m_dir.filePath(QStringLiteral("cm.yaml"));
        QFile f(manifest);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(QByteArray("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: from-cli\n  namespace: ") + kNamespace
                + "\ndata:\n  a: \"1\"\n");
        f.close();
        const Run apply = runFieldscope({QStringLiteral("apply"), QStringLiteral("--dry-run"), QStringLiteral("-o"),
                                         QStringLiteral("json"), QStringLiteral("-f"), manifest});
        QVERIFY2(apply.code == 0, apply.err.constData());
        const auto json = core::parseJson(apply.out.toStdString());
        QVERIFY2(json && json->is_object(), apply.out.constData()); // one object: its outcome
        const std::string path = core::stringAt(*json, "/request/path").value_or(std::string());
        QVERIFY2(path.find("fieldManager=manager-from-settings") != std::string::npos, path.c_str());

        const Run record = runFieldscope({QStringLiteral("record"), QStringLiteral("--store"), QStringLiteral("--for"),
                                          QStringLiteral("1s")});
        QVERIFY2(record.code == 0, record.err.constData());
        QVERIFY2(record.err.contains("recording configmaps,secrets of fieldscope-test"), record.err.constData());
    }

    // Opting in for the test cluster (through Settings) records its Secret values, in the
    // window and in `record --store`; the other cluster, reached through a context of the same
    // name, is not opted in.
    void aSecretOptInBelongsToOneClusterNotToAContextName()
    {
        forgetSecretChoices();
        {
            Window w(testing::testKubeconfig());
            QVERIFY(w.connected());
            QCOMPARE(w.controller->clusterIdentity().toStdString(), m_identity);
            QVERIFY(!w.controller->recordsSecretValues());
            QVERIFY(w.changeSettings([](widgets::SettingsDialog *d) {
                auto *box = d->findChild<QCheckBox *>(QStringLiteral("recordSecretValues"));
                QVERIFY(box);
                box->setChecked(true);
            }));
            QTRY_VERIFY(w.controller->recordsSecretValues());
        }
        {
            Window other(m_otherKubeconfig);
            QVERIFY(other.connected());
            QVERIFY(other.controller->clusterIdentity().toStdString() != m_identity);
            QCOMPARE(other.controller->contextName(), kContext);
            QVERIFY(!other.controller->recordsSecretValues());
            QVERIFY(!other.prompt());
        }
        QSettings().sync();
        const Run record = runFieldscope({QStringLiteral("record"), QStringLiteral("--store"),
                                          QStringLiteral("configmaps"), QStringLiteral("--for"), QStringLiteral("1s")});
        QVERIFY2(record.code == 0, record.err.constData());
        QVERIFY2(record.err.contains("Secret values are recorded into"), record.err.constData());
    }

    // Settings -> History -> Shared: a URL with a password is refused where it is typed, Test
    // connection says what the database is, and after OK the open tab records there and the
    // command line's defaults (`record --store`, `history` without --db) use it too.
    void aSharedStoreChosenInSettingsIsWhereTheWindowAndTheCommandLineKeepHistory()
    {
        const std::string url = testpostgres::freshDatabase(QStringLiteral("settings-shared"));
        auto restore = qScopeGuard([] {
            app::Settings::setSharedHistoryUrl({});
            QSettings().sync();
        });
        {
            Window w(testing::testKubeconfig());
            QVERIFY(w.connected());
            QVERIFY(!app::isSharedHistoryLocation(w.controller->historyDatabase()));
            w.window.showSettings();
            auto *d = w.window.findChild<widgets::SettingsDialog *>();
            QVERIFY(d);
            d->findChild<QRadioButton *>(QStringLiteral("historyShared"))->setChecked(true);
            auto *edit = d->findChild<QLineEdit *>(QStringLiteral("sharedHistoryUrl"));
            auto *test = d->findChild<QPushButton *>(QStringLiteral("testSharedHistory"));
            auto *status = d->findChild<QLabel *>(QStringLiteral("sharedHistoryStatus"));
            edit->setText(QStringLiteral("postgresql://team:horse-battery@db.example/fieldscope"));
            QTest::mouseClick(test, Qt::LeftButton);
            QVERIFY2(status->text().contains(QLatin1String("~/.pgpass")), qPrintable(status->text()));
            QVERIFY(!status->text().contains(QLatin1String("horse-battery")));
            edit->setText(QString::fromStdString(url));
            QTest::mouseClick(test, Qt::LeftButton);
            QTRY_VERIFY2_WITH_TIMEOUT(status->text().startsWith(QLatin1String("Connected: PostgreSQL")),
                                      qPrintable(status->text()), 20000);
            QVERIFY2(status->text().contains(QLatin1String("Nothing of this cluster is recorded there yet")),
                     qPrintable(status->text()));
            QVERIFY2(status->text().contains(QLatin1String("This role may record into it.")),
                     qPrintable(status->text()));
            QVERIFY(testing::saveShot(d, QStringLiteral("settings-shared-history.png")));
            QTest::mouseClick(d->findChild<QDialogButtonBox *>()->button(QDialogButtonBox::Ok), Qt::LeftButton);
            QCOMPARE(app::Settings::sharedHistoryUrl(), QString::fromStdString(url));
            QCOMPARE(w.controller->historyDatabase(), QString::fromStdString(url + "#" + m_identity));
        }
        QSettings().sync();
        kube::Connection c = testing::connectTo(testing::ctxToken());
        kube::ApiClient client(c.transport);
        (void)testing::call(client,
                            testing::request("POST", std::string("/api/v1/namespaces/") + kNamespace + "/configmaps",
                                             core::toJsonText({{"metadata", {{"name", "shared-store"}}},
                                                               {"data", {{"a", "1"}}}})));
        const Run record = runFieldscope({QStringLiteral("record"), QStringLiteral("--store"), QStringLiteral("--for"),
                                          QStringLiteral("2s")});
        QVERIFY2(record.code == 0, record.err.constData());
        QVERIFY2(record.err.contains("into postgresql:///t_settings_shared"), record.err.constData());
        const Run history = runFieldscope({QStringLiteral("history"), QStringLiteral("configmaps/shared-store"),
                                           QStringLiteral("-n"), QString::fromLatin1(kNamespace), QStringLiteral("-o"),
                                           QStringLiteral("json")});
        QVERIFY2(history.code == 0, history.err.constData());
        const auto versions = core::parseJson(history.out.toStdString());
        QVERIFY2(versions && versions->is_array() && versions->size() == 1, history.out.constData());
    }

    // An opt-in an earlier version kept for the context name: `record --store` says so and records
    // only hashes; the window asks in the cluster's view (naming context and server), once.
    void anOptInKeptPerContextNameIsAskedAboutOnce()
    {
        forgetSecretChoices();
        QSettings().setValue(QStringLiteral("secrets/recordValues/fieldscope-test"),
                             true); // as earlier versions wrote it
        QSettings().sync();
        const Run record = runFieldscope({QStringLiteral("record"), QStringLiteral("--store"),
                                          QStringLiteral("configmaps"), QStringLiteral("--for"), QStringLiteral("1s")});
        QVERIFY2(record.code == 0, record.err.constData());
        QVERIFY2(!record.err.contains("Secret values are recorded into"), record.err.constData());
        QVERIFY2(record.err.contains("confirm it for this cluster in the window's Settings"), record.err.constData());
        QCOMPARE(record.err.count("note:"), 1);

        {
            Window w(testing::testKubeconfig());
            QVERIFY(w.connected());
            QTRY_VERIFY(w.prompt() && w.prompt()->isVisible());
            QVERIFY(!w.controller->recordsSecretValues()); // not before the answer
            const QString question = w.prompt()->findChild<QLabel *>(QStringLiteral("keepSecretValuesText"))->text();
            QVERIFY2(question.contains(kContext)
                         && question.contains(QString::fromStdString(w.controller->connection()->config.server)),
                     qPrintable(question));
            (void)testing::saveShot(&w.window, QStringLiteral("keep-secret-values-question.png"));
            QTest::mouseClick(w.prompt()->findChild<QPushButton *>(QStringLiteral("keepSecretValuesYes")),
                              Qt::LeftButton);
            QTRY_VERIFY(w.controller->recordsSecretValues());
            QTRY_VERIFY(!w.prompt());
        }
        QVERIFY(!QSettings().contains(QStringLiteral("secrets/recordValues/fieldscope-test")));
        {
            Window again(testing::testKubeconfig());
            QVERIFY(again.connected());
            QVERIFY(again.controller->recordsSecretValues());
            QTest::qWait(500); // the question would have been put up on connecting
            QVERIFY(!again.prompt());
        }
        {
            Window other(m_otherKubeconfig);
            QVERIFY(other.connected());
            QVERIFY(!other.controller->recordsSecretValues());
            QTest::qWait(500);
            QVERIFY(!other.prompt());
        }
        forgetSecretChoices();
    }
};

QTEST_MAIN(TestClusterSettings)
#include "tst_clustersettings.moc"
