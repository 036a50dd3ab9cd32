// The main window's chrome against a real apiserver: the status bar's health of every watch the
// cluster view runs (the shown resource, namespaces, the selected object's events) with the
// last event time, the busy indicator while connecting, watches the server forbids shown as
// failed, the context switcher showing the open context whichever of "contexts read" and
// "context opened" comes first, and the whole window in a dark palette. Writes screenshots.
#include "app/gui/clustercontroller.h"
#include "app/gui/workspace.h"
#include "app/services/settingsconsentstore.h"
#include "clusterenv.h"
#include "core/base/json.h"
#include "guitesting.h"
#include "widgets/clusterview.h"
#include "widgets/contextswitcher.h"
#include "widgets/detailpane.h"
#include "widgets/mainwindow.h"
#include "widgets/namespaceselector.h"
#include "widgets/objecttablepage.h"
#include "widgets/watchstatus.h"
#include "widgets/yamlview.h"

#include <QApplication>
#include <QComboBox>
#include <QDateTime>
#include <QDir>
#include <QFileInfo>
#include <QFrame>
#include <QLabel>
#include <QPushButton>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTableView>
#include <QTest>
#include <QTimer>

#include <Qsci/qscilexer.h>

#include <memory>

using namespace fieldscope;
using State = widgets::WatchHealth::State;

namespace {

const char *kNamespace = "gui-chrome";

using testing::saveShot;

struct Session {
    widgets::MainWindow window;
    widgets::ClusterView *view = window.addCluster(QStringLiteral("test"));
    app::ClusterController controller{view};
    Session(const QString &resource, const QString &context)
    {
        window.resize(1280, 800);
        controller.showResource(resource);
        controller.open(testing::testKubeconfig(), context);
        window.show();
    }
    bool allLive(int count) const
    {
        const auto &w = view->watches();
        return w.size() == count
            && std::all_of(w.begin(), w.end(), [](const widgets::WatchHealth &h) { return h.state == State::Live; });
    }
};

QPalette darkPalette()
{
    QPalette p;
    const QColor window(0x2d, 0x2d, 0x30), base(0x1e, 0x1e, 0x1e), text(0xe6, 0xe6, 0xe6);
    for (auto role : {QPalette::Window, QPalette::Button, QPalette::AlternateBase})
        p.setColor(role, window);
    p.setColor(QPalette::Base, base);
    for (auto role : {QPalette::WindowText, QPalette::Text, QPalette::ButtonText})
        p.setColor(role, text);
    p.setColor(QPalette::Highlight, QColor(0x3d, 0x6f, 0xb4));
    p.setColor(QPalette::HighlightedText, Qt::white);
    p.setColor(QPalette::PlaceholderText, QColor(0x9a, 0x9a, 0x9a));
    for (auto role : {QPalette::WindowText, QPalette::Text, QPalette::ButtonText})
        p.setColor(QPalette::Disabled, role, QColor(0x80, 0x80, 0x80));
    return p;
}

void createConfigMap(const std::string &name)
{
    const kube::Connection connection = testing::connectTo(testing::ctxToken());
    kube::ApiClient client(connection.transport);
    auto r = testing::call(
        client, testing::request("POST", std::string("/api/v1/namespaces/") + kNamespace + "/configmaps",
                                 core::toJsonText({{"metadata", {{"name", name}}}, {"data", {{"k", "v"}}}})));
    QVERIFY2(r || r.error().httpStatus == 409, r ? "" : r.error().describe().c_str());
}

} // namespace

class TestChrome : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QSettings().remove(QStringLiteral("columns")); // each kind's column layout from an earlier run
        const kube::Connection connection = testing::connectTo(testing::ctxToken());
        kube::ApiClient client(connection.transport);
        (void)testing::call(client, testing::request("POST", "/api/v1/namespaces",
                                                     core::toJsonText({{"metadata", {{"name", kNamespace}}}})));
        createConfigMap("first");
    }
    void cleanup() { QApplication::setPalette(QPalette()); }

    // An exec credential plugin is an arbitrary program: the question shows inside the cluster's
    // view with everything the plugin gets, nothing connects until it is answered, and closing the
    // tab while it is open answers "not now" (nothing remembered).
    void execPluginConsentIsAskedInsideTheClusterView_data()
    {
        QTest::addColumn<QString>("answer");
        QTest::newRow("allowed: connects") << QStringLiteral("allow");
        QTest::newRow("denied: the connection fails and says so") << QStringLiteral("deny");
        QTest::newRow("tab closed: nothing is remembered") << QStringLiteral("close");
    }
    void execPluginConsentIsAskedInsideTheClusterView()
    {
        QFETCH(QString, answer);
        app::SettingsConsentStore().forgetAll(); // ask afresh
        // The question does not wait (the request's credential stays pending meanwhile); the
        // "user" answers from a timer once it shows.
        QString text;
        bool loadedWhileAsking = true;
        std::unique_ptr<Session> s;
        QTimer user;
        QObject::connect(&user, &QTimer::timeout, &user, [&] {
            auto *prompt = s ? s->view->findChild<QFrame *>(QStringLiteral("execConsentPrompt")) : nullptr;
            if (!prompt || !prompt->isVisible())
                return;
            user.stop();
            text = prompt->findChild<QLabel *>(QStringLiteral("execConsentText"))->text();
            loadedWhileAsking = s->controller.isLoaded();
            if (answer == QLatin1String("allow"))
                (void)saveShot(&s->window, QStringLiteral("exec-consent-prompt.png"));
            if (answer == QLatin1String("close"))
                QTimer::singleShot(0, this, [&] { s.reset(); });
            else
                QTest::mouseClick(prompt->findChild<QPushButton *>(answer == QLatin1String("allow")
                                                                       ? QStringLiteral("execConsentAllow")
                                                                       : QStringLiteral("execConsentDeny")),
                                  Qt::LeftButton);
        });
        user.start(50);
        s = std::make_unique<Session>(QStringLiteral("namespaces"), QString::fromStdString(testing::ctxExec()));
        QTRY_VERIFY_WITH_TIMEOUT(!text.isEmpty(), 20000);
        QVERIFY2(text.contains(QFileInfo(testing::testKubeconfig()).fileName()), qPrintable(text));
        QVERIFY2(text.contains(QLatin1String("exec-credential.sh")), qPrintable(text)); // the exact program
        QVERIFY2(text.contains(QLatin1String("server:")), qPrintable(text));            // where the token goes
        QVERIFY2(text.contains(QLatin1String("provideClusterInfo:")), qPrintable(text));
        QVERIFY(!loadedWhileAsking); // nothing connects before the answer
        if (answer == QLatin1String("allow")) {
            QTRY_VERIFY_WITH_TIMEOUT(s->controller.isLoaded(), 30000);
            QCOMPARE(int(app::SettingsConsentStore().decisions().size()), 1);
        } else if (answer == QLatin1String("deny")) {
            QTRY_COMPARE_WITH_TIMEOUT(s->view->connectionState(), QStringLiteral("failed"), 30000);
            QVERIFY(!s->controller.isLoaded());
            QCOMPARE(int(app::SettingsConsentStore().decisions().size()), 1);
            QVERIFY(!app::SettingsConsentStore().decisions().front().allowed);
        } else {
            QTRY_VERIFY(!s);
            QVERIFY(app::SettingsConsentStore().decisions().empty()); // not a Deny
            return;
        }
        QTRY_VERIFY(!s->view->findChild<QFrame *>(QStringLiteral("execConsentPrompt")));
    }

    void statusBarShowsEveryWatchWithItsLastEvent()
    {
        Session s(QStringLiteral("configmaps"), QStringLiteral("fieldscope-test"));
        QVERIFY(s.window.isBusyIndicatorShown()); // connecting
        QTRY_VERIFY_WITH_TIMEOUT(s.controller.isLoaded(), 30000);
        s.view->tablePage()->namespaceSelector()->setSelected({QString::fromLatin1(kNamespace)});
        QVERIFY(s.view->tablePage()->selectName(QString::fromLatin1(kNamespace), QStringLiteral("first")));
        // The table's watch, the namespaces and the selected object's events, all live.
        QTRY_VERIFY_WITH_TIMEOUT(s.allLive(3), 20000);
        QTRY_VERIFY(!s.window.isBusyIndicatorShown());
        widgets::WatchStatusWidget *status = s.window.watchStatus();
        QVERIFY2(status->text().startsWith(QStringLiteral("configmaps in all namespaces: live · ")),
                 qPrintable(status->text()));
        QCOMPARE(s.view->watches().at(1).name, QStringLiteral("namespaces"));
        QCOMPARE(s.view->watches().at(2).name, QStringLiteral("events of first"));
        // A change on the server is an event: its time appears. (How it then ages is
        // tst_watchstatus's, on a controlled clock: this watch covers every namespace of the shared
        // cluster, where the other tests' writes keep it at "just now".)
        // A new name each run: re-creating an existing one is a 409 and no event.
        createConfigMap("second-" + std::to_string(QDateTime::currentMSecsSinceEpoch()));
        QTRY_VERIFY_WITH_TIMEOUT(status->text().contains(QLatin1String("last event just now")), 10000);
        QVERIFY(status->detailsText().contains(QLatin1String("namespace selector")));
        QVERIFY(saveShot(&s.window, QStringLiteral("statusbar-live.png")));
        QWidget *popup = status->showDetails();
        QVERIFY(saveShot(popup, QStringLiteral("statusbar-watches.png")));
        popup->close();
        // Clearing the selection ends the events watch; the status bar drops it.
        s.view->tablePage()->table()->setCurrentIndex({});
        QTRY_COMPARE(s.view->watches().size(), 2);
    }

    void watchesTheServerForbidsShowAsFailed()
    {
        Session s(QStringLiteral("namespaces"), QStringLiteral("fieldscope-test-nobody"));
        QTRY_VERIFY_WITH_TIMEOUT(!s.view->watches().isEmpty() && s.view->watches().first().state == State::Failed,
                                 30000);
        QVERIFY2(s.window.watchStatus()->text().contains(QLatin1String("failed: forbidden")),
                 qPrintable(s.window.watchStatus()->text()));
        QVERIFY(saveShot(&s.window, QStringLiteral("statusbar-forbidden.png")));
    }

    void switcherShowsTheOpenContextWhicheverFinishesFirst()
    {
        const QString cert = QStringLiteral("fieldscope-test-cert");
        { // opened before the contexts are read
            widgets::MainWindow window;
            app::Workspace workspace(&window);
            workspace.setKubeconfig(testing::testKubeconfig());
            app::ClusterController *c = workspace.open(cert);
            QSignalSpy loaded(&workspace, &app::Workspace::contextsLoaded);
            workspace.loadContexts();
            window.show();
            QCOMPARE(window.contextSwitcher()->currentContext(), cert);
            QVERIFY(loaded.wait(10000));
            QCOMPARE(window.contextSwitcher()->currentContext(), cert);
            QCOMPARE(window.contextSwitcher()->contextNames().size(), 6); // token, cert, exec, nobody, alice, bob
            QTRY_VERIFY_WITH_TIMEOUT(c->isLoaded(), 30000);
            QCOMPARE(window.contextSwitcher()->currentContext(), cert);
            QVERIFY(window.contextSwitcher()->combo()->currentText().contains(QStringLiteral("connected · ")
                                                                              + testing::testKubeVersion()));
            QVERIFY(saveShot(&window, QStringLiteral("switcher-open-context.png")));
        }
        { // the contexts are read first, then a context that is not the kubeconfig's current opens
            widgets::MainWindow window;
            app::Workspace workspace(&window);
            workspace.setKubeconfig(testing::testKubeconfig());
            QSignalSpy loaded(&workspace, &app::Workspace::contextsLoaded);
            workspace.loadContexts();
            QVERIFY(loaded.wait(10000));
            app::ClusterController *c = workspace.open(cert);
            QCOMPARE(window.contextSwitcher()->currentContext(), cert);
            QTRY_VERIFY_WITH_TIMEOUT(c->isLoaded(), 30000);
            QCOMPARE(window.contextSwitcher()->currentContext(), cert);
        }
    }

    void windowFollowsADarkPalette()
    {
        Session s(QStringLiteral("configmaps"), QStringLiteral("fieldscope-test"));
        QTRY_VERIFY_WITH_TIMEOUT(s.controller.isLoaded(), 30000);
        s.view->tablePage()->namespaceSelector()->setSelected({QString::fromLatin1(kNamespace)});
        QVERIFY(s.view->tablePage()->selectName(QString::fromLatin1(kNamespace), QStringLiteral("first")));
        s.view->detailPane()->setCurrentTab(widgets::DetailPane::YamlTab);
        QTRY_VERIFY_WITH_TIMEOUT(s.view->detailPane()->isReady(), 10000);
        QApplication::setPalette(darkPalette());
        auto *yaml = s.window.findChild<widgets::YamlView *>(QStringLiteral("yamlView"));
        QTRY_COMPARE(yaml->lexer()->paper(0), darkPalette().color(QPalette::Base));
        QCOMPARE(s.window.palette().color(QPalette::Window), darkPalette().color(QPalette::Window));
        QTRY_VERIFY_WITH_TIMEOUT(s.allLive(3), 20000);
        QVERIFY(saveShot(&s.window, QStringLiteral("mainwindow-dark.png")));
        QApplication::setPalette(QPalette());
        QTRY_COMPARE(yaml->lexer()->paper(0), QPalette().color(QPalette::Base));
    }
};

QTEST_MAIN(TestChrome)
#include "tst_chrome.moc"
