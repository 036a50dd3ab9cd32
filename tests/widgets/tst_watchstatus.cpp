// The main window's chrome without a cluster: the status bar's per-watch health (wording, the
// countdown and "ago" figures moving with the clock, the busy state, the popup), the SVG icons
// (sharp at 1x and 2x, recoloured by a dark palette), the context switcher showing the open
// context whichever of "list loaded" and "context opened" comes first, the resource kinds'
// tooltips for long names, and the YAML view and the editor's change highlights following a
// palette change both ways.
#include "models/resourcekindsmodel.h"
#include "widgets/clusterview.h"
#include "widgets/contextswitcher.h"
#include "widgets/editorwindow.h"
#include "widgets/icons.h"
#include "widgets/mainwindow.h"
#include "widgets/resourcekindsview.h"
#include "widgets/settingsdialog.h"
#include "widgets/watchstatus.h"
#include "widgets/yamlview.h"

#include <QAbstractItemModelTester>
#include <QApplication>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QDir>
#include <QImage>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QPainter>
#include <QPalette>
#include <QPushButton>
#include <QSettings>
#include <QSignalSpy>
#include <QSpinBox>
#include <QSplitter>
#include <QStandardPaths>
#include <QTest>
#include <QToolButton>
#include <QTreeView>

#include <Qsci/qscilexer.h>
#include <Qsci/qsciscintilla.h>

using namespace fieldscope;
using namespace std::chrono_literals;
using widgets::WatchHealth;
using widgets::WatchStatusWidget;
using State = WatchHealth::State;

namespace {

QString shotPath(const QString &name)
{
    const QString dir = QStringLiteral(FIELDSCOPE_BUILD_DIR "/screenshots");
    QDir().mkpath(dir);
    return dir + QLatin1Char('/') + name;
}

WatchHealth watch(const QString &name, State state, qint64 objects = -1)
{
    WatchHealth w;
    w.name = name;
    w.purpose = QStringLiteral("object table");
    w.state = state;
    w.objects = objects;
    return w;
}

QPalette darkPalette()
{
    QPalette p;
    const QColor window(0x2b, 0x2b, 0x2b), base(0x1e, 0x1e, 0x1e), text(0xe8, 0xe8, 0xe8);
    p.setColor(QPalette::Window, window);
    p.setColor(QPalette::WindowText, text);
    p.setColor(QPalette::Base, base);
    p.setColor(QPalette::AlternateBase, window);
    p.setColor(QPalette::Text, text);
    p.setColor(QPalette::Button, window);
    p.setColor(QPalette::ButtonText, text);
    p.setColor(QPalette::Highlight, QColor(0x3d, 0x6f, 0xb4));
    p.setColor(QPalette::HighlightedText, Qt::white);
    p.setColor(QPalette::Disabled, QPalette::WindowText, QColor(0x80, 0x80, 0x80));
    return p;
}

// Mean lightness of the icon's opaque pixels (0 black .. 255 white); -1 when nothing is drawn.
int inkLightness(const QImage &image)
{
    qint64 sum = 0, n = 0;
    const QImage img = image.convertToFormat(QImage::Format_ARGB32);
    for (int y = 0; y < img.height(); ++y)
        for (int x = 0; x < img.width(); ++x)
            if (const QColor c = img.pixelColor(x, y); c.alpha() > 200) {
                sum += c.lightness();
                ++n;
            }
    return n ? int(sum / n) : -1;
}

} // namespace

class TestWatchStatus : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true); // QSettings stay out of the user's
        QApplication::setOrganizationName(QStringLiteral("fieldscope-tests"));
        QApplication::setApplicationName(QStringLiteral("tst_watchstatus"));
        QSettings().clear();
    }
    void cleanup() { QApplication::setPalette(QPalette()); }

    void summaryNamesStateObjectsAndLastEvent_data()
    {
        QTest::addColumn<int>("state");
        QTest::addColumn<qint64>("objects");
        QTest::addColumn<int>("lastEventSecondsAgo"); // -1: none yet
        QTest::addColumn<QString>("expected");
        QTest::newRow("listing counts what arrived")
            << int(State::Listing) << qint64(120) << -1 << "configmaps: listing… 120 objects";
        QTest::newRow("live with a recent event")
            << int(State::Live) << qint64(301) << 3 << "configmaps: live · 301 objects · last event 3 s ago";
        QTest::newRow("live, one object, minutes")
            << int(State::Live) << qint64(1) << 125 << "configmaps: live · 1 object · last event 2 min ago";
        QTest::newRow("live, hours") << int(State::Live) << qint64(0) << 3 * 3600 + 60 * 5
                                     << "configmaps: live · 0 objects · last event 3 h 5 min ago";
        QTest::newRow("resyncing") << int(State::Resyncing) << qint64(7) << 0
                                   << "configmaps: resyncing… · 7 objects · last event just now";
        QTest::newRow("idle, nothing known") << int(State::Idle) << qint64(-1) << -1 << "configmaps: idle";
    }
    void summaryNamesStateObjectsAndLastEvent()
    {
        QFETCH(int, state);
        QFETCH(qint64, objects);
        QFETCH(int, lastEventSecondsAgo);
        QFETCH(QString, expected);
        const auto now = WatchHealth::Clock::now();
        WatchHealth w = watch(QStringLiteral("configmaps"), State(state), objects);
        if (lastEventSecondsAgo >= 0)
            w.lastEvent = now - std::chrono::seconds(lastEventSecondsAgo) - 200ms;
        QCOMPARE(WatchStatusWidget::summary(w, now), expected);
    }

    void listingShowsTheServersEstimateOfTheTotal()
    {
        const auto now = WatchHealth::Clock::now();
        WatchHealth w = watch(QStringLiteral("configmaps"), State::Listing, 2500);
        w.expected = 100'000;
        const QLocale loc; // the figures are grouped as the user's locale groups them
        QCOMPARE(WatchStatusWidget::summary(w, now), QStringLiteral("configmaps: listing… %1 of ~%2 objects")
                                                         .arg(loc.toString(2500), loc.toString(100'000)));
        WatchStatusWidget widget;
        widget.setStatus({}, {w});
        QCOMPARE(widget.listingProgress(), (std::pair<qint64, qint64>(2500, 100'000)));
        w.state = State::Live; // a finished list shows no progress
        widget.setStatus({}, {w});
        QCOMPARE(widget.listingProgress(), (std::pair<qint64, qint64>(0, 0)));
        w.state = State::Listing;
        w.expected = -1; // the server gave no estimate: no total is invented
        QCOMPARE(WatchStatusWidget::summary(w, now),
                 QStringLiteral("configmaps: listing… %1 objects").arg(loc.toString(2500)));
        widget.setStatus({}, {w});
        QCOMPARE(widget.listingProgress(), (std::pair<qint64, qint64>(0, 0)));
    }

    void backingOffCountsDownToTheRetryRoundingUp()
    {
        const auto now = WatchHealth::Clock::now();
        WatchHealth w = watch(QStringLiteral("pods"), State::BackingOff);
        QCOMPARE(WatchStatusWidget::stateText(w, now), QStringLiteral("backing off"));
        w.retryAt = now + 4200ms;
        QCOMPARE(WatchStatusWidget::stateText(w, now), QStringLiteral("backing off, retry in 5 s"));
        QCOMPARE(WatchStatusWidget::stateText(w, now + 4100ms), QStringLiteral("backing off, retry in 1 s"));
        QCOMPARE(WatchStatusWidget::stateText(w, now + 5s), QStringLiteral("backing off, retrying"));
    }

    void failedShowsWhyShortenedAndInFullInTheDetails()
    {
        WatchHealth w = watch(QStringLiteral("namespaces"), State::Failed);
        w.detail = QStringLiteral("forbidden (HTTP 403 Forbidden): ") + QString(200, u'x');
        const auto now = WatchHealth::Clock::now();
        const QString line = WatchStatusWidget::stateText(w, now);
        QVERIFY(line.startsWith(QLatin1String("failed: forbidden (HTTP 403")));
        QVERIFY(line.size() < 100);
        QVERIFY(WatchStatusWidget::detailsHtml({w}, now).contains(w.detail));
    }

    void theServersWarningsAreShownInTheDetailsAsText()
    {
        WatchHealth w = watch(QStringLiteral("gadgets"), State::Live);
        // Warning headers are the server's words: shown as written, never as markup.
        w.warnings = {QStringLiteral("example.com/v1beta1 Gadget is deprecated"),
                      QStringLiteral("<b>policy</b> says: data.note & co")};
        const QString html = WatchStatusWidget::detailsHtml({w}, WatchHealth::Clock::now());
        QVERIFY2(html.contains(QLatin1String("The server warns: example.com/v1beta1 Gadget is deprecated")),
                 qPrintable(html));
        QVERIFY2(html.contains(QLatin1String("The server warns: &lt;b&gt;policy&lt;/b&gt; says: data.note &amp; co")),
                 qPrintable(html));
        QVERIFY(!html.contains(QLatin1String("<b>policy")));
    }

    void widgetShowsTheFirstWatchAndCountsTheOthersByWorstState()
    {
        WatchStatusWidget status;
        status.resize(900, 24);
        const auto now = WatchHealth::Clock::now();
        WatchHealth table = watch(QStringLiteral("configmaps in all namespaces"), State::Live, 301);
        table.lastEvent = now - 3s;
        table.resourceVersion = QStringLiteral("5120");
        WatchHealth ns = watch(QStringLiteral("namespaces"), State::Live, 5);
        ns.purpose = QStringLiteral("namespace selector");
        WatchHealth events = watch(QStringLiteral("events of web"), State::BackingOff, 0);
        events.purpose = QStringLiteral("Events tab");
        events.retryAt = now + 9s;
        events.detail = QStringLiteral("connection refused");
        status.setStatus({}, {table, ns, events});
        QCOMPARE(status.text(),
                 QStringLiteral("configmaps in all namespaces: live · 301 objects · last event 3 s ago"));
        auto *others = status.findChild<QToolButton *>(QStringLiteral("otherWatches"));
        QVERIFY(others->isVisibleTo(&status));
        QCOMPARE(others->text(), QStringLiteral("2 more watches"));
        QVERIFY(!status.isBusy());
        // The details name every watch, its purpose and state.
        const QString details = status.detailsText();
        for (const char *s : {"namespace selector", "events of web", "backing off, retry in", "connection refused",
                              "resourceVersion 5120"})
            QVERIFY2(details.contains(QLatin1String(s)), s);
        QWidget *popup = status.showDetails();
        QVERIFY(popup->isVisible());
        QVERIFY(popup->grab().save(shotPath(QStringLiteral("watch-details-popup.png"))));
        popup->close();
        // A listing watch makes the status busy (the main window shows its progress bar).
        status.setStatus({}, {watch(QStringLiteral("pods"), State::Listing, 10), ns});
        QVERIFY(status.isBusy());
        QCOMPARE(others->text(), QStringLiteral("1 more watch"));
    }

    void lastEventAgeMovesWithTheClockWithoutNewData()
    {
        WatchStatusWidget status;
        WatchHealth w = watch(QStringLiteral("configmaps"), State::Live, 1);
        w.lastEvent = WatchHealth::Clock::now() - 2s - 100ms;
        status.setStatus({}, {w});
        QVERIFY(status.text().endsWith(QLatin1String("last event 2 s ago")));
        QTRY_VERIFY_WITH_TIMEOUT(status.text().endsWith(QLatin1String("last event 3 s ago")), 2500);
    }

    void connectionMessageComesFirstAndStandsAloneWithoutWatches()
    {
        WatchStatusWidget status;
        status.setStatus(QStringLiteral("Connecting…"), {});
        QCOMPARE(status.text(), QStringLiteral("Connecting…"));
        status.setStatus(QStringLiteral("Connection failed"), {watch(QStringLiteral("namespaces"), State::Live, 2)});
        QCOMPARE(status.text(), QStringLiteral("Connection failed  ·  namespaces: live · 2 objects"));
    }

    void everyIconRendersSharpAtOneAndTwoTimes()
    {
        for (widgets::Icon i : widgets::allIcons()) {
            const QIcon ic = widgets::icon(i);
            QVERIFY2(!ic.isNull(), qPrintable(widgets::iconPath(i)));
            const QPixmap one = ic.pixmap(QSize(16, 16), 1.0);
            const QPixmap two = ic.pixmap(QSize(16, 16), 2.0);
            QCOMPARE(one.size(), QSize(16, 16));
            QCOMPARE(two.size(), QSize(32, 32)); // rendered at device pixels, not scaled up
            QCOMPARE(two.devicePixelRatio(), 2.0);
            QVERIFY2(inkLightness(two.toImage()) >= 0 || i == widgets::Icon::StateIdle,
                     qPrintable(widgets::iconPath(i)));
        }
        // A sheet of every icon at 1x and 2x on light and dark backgrounds, for a person to judge.
        QImage sheet(40 * int(widgets::allIcons().size()) + 8, 4 * 40, QImage::Format_ARGB32);
        QPainter p(&sheet);
        for (int row = 0; row < 4; ++row) {
            const bool dark = row >= 2;
            QApplication::setPalette(dark ? darkPalette() : QPalette());
            p.fillRect(QRect(0, row * 40, sheet.width(), 40), dark ? QColor(0x1e, 0x1e, 0x1e) : QColor(Qt::white));
            const qreal dpr = row % 2 ? 2.0 : 1.0;
            int x = 8;
            for (widgets::Icon i : widgets::allIcons()) {
                QPixmap pm = widgets::icon(i).pixmap(QSize(16, 16), dpr);
                p.drawPixmap(QRect(x, row * 40 + 4, int(16 * dpr), int(16 * dpr)), pm);
                x += 40;
            }
        }
        p.end();
        QApplication::setPalette(QPalette());
        QVERIFY(sheet.save(shotPath(QStringLiteral("icons-sheet.png"))));
    }

    void monochromeIconsTakeTheirColourFromThePalette()
    {
        const QIcon kind = widgets::icon(widgets::Icon::Kind);
        const int light = inkLightness(kind.pixmap(QSize(16, 16), 2.0).toImage());
        QApplication::setPalette(darkPalette());
        const int dark = inkLightness(kind.pixmap(QSize(16, 16), 2.0).toImage());
        QVERIFY2(light < 100 && dark > 150,
                 qPrintable(QStringLiteral("light palette ink %1, dark palette ink %2").arg(light).arg(dark)));
        // Selected rows use the highlighted text colour.
        QCOMPARE(inkLightness(kind.pixmap(QSize(16, 16), QIcon::Selected).toImage()) > 200, true);
    }

    void switcherShowsTheOpenContextWhetherTheListComesBeforeOrAfter()
    {
        const QList<widgets::ContextEntry> list = {{QStringLiteral("alpha"), QStringLiteral("https://a"), {}, false},
                                                   {QStringLiteral("prod"), QStringLiteral("https://p"), {}, true},
                                                   {QStringLiteral("beta"), QStringLiteral("https://b"), {}, false}};
        widgets::ContextSwitcher opensFirst;
        opensFirst.setCurrentContext(QStringLiteral("beta")); // the tab opens before the list is read
        QCOMPARE(opensFirst.currentContext(), QStringLiteral("beta"));
        QVERIFY(opensFirst.combo()->currentText().startsWith(QLatin1String("beta")));
        opensFirst.setContexts(list);
        QCOMPARE(opensFirst.contextNames(),
                 QStringList({QStringLiteral("prod"), QStringLiteral("alpha"), QStringLiteral("beta")}));
        QCOMPARE(opensFirst.combo()->count(), 3);
        QCOMPARE(opensFirst.currentContext(), QStringLiteral("beta"));

        widgets::ContextSwitcher listFirst;
        listFirst.setContexts(list);
        listFirst.setCurrentContext({}); // opened as "the kubeconfig's current context"
        QCOMPARE(listFirst.currentContext(), QStringLiteral("prod"));
        listFirst.setState(QStringLiteral("prod"), QStringLiteral("connected · v1.20.2"));
        QVERIFY(listFirst.combo()->currentText().contains(QStringLiteral("connected · v1.20.2")));
        QVERIFY(!listFirst.combo()->itemIcon(0).isNull());
        // A context opened from elsewhere (not in this list) is still shown, not a blank box.
        listFirst.setCurrentContext(QStringLiteral("sandbox"));
        QCOMPARE(listFirst.currentContext(), QStringLiteral("sandbox"));
        QCOMPARE(listFirst.contextNames().size(), 3);
    }

    void longApiGroupsAndKindsHaveTheirFullNameAsTooltip()
    {
        models::ResourceKindsModel model;
        QAbstractItemModelTester modelTester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        widgets::ResourceKindsView view;
        QAbstractItemModelTester proxyTester(view.tree()->model(),
                                             QAbstractItemModelTester::FailureReportingMode::QtTest);
        view.resize(240, 300);
        view.setModel(&model);
        model.setKinds({{QStringLiteral("admissionregistration.k8s.io"), QStringLiteral("v1"),
                         QStringLiteral("mutatingwebhookconfigurations"),
                         QStringLiteral("MutatingWebhookConfiguration"), false},
                        {{}, QStringLiteral("v1"), QStringLiteral("namespaces"), QStringLiteral("Namespace"), false}});
        QTreeView *tree = view.tree();
        QCOMPARE(tree->textElideMode(), Qt::ElideMiddle);
        QModelIndex group;
        for (int r = 0; r < tree->model()->rowCount(); ++r)
            if (tree->model()->index(r, 0).data().toString() == QLatin1String("admissionregistration.k8s.io"))
                group = tree->model()->index(r, 0);
        QVERIFY(group.isValid());
        QCOMPARE(group.data(Qt::ToolTipRole).toString(), QStringLiteral("admissionregistration.k8s.io: 1 kind"));
        const QModelIndex kind = tree->model()->index(0, 0, group);
        QVERIFY(kind.data(Qt::ToolTipRole)
                    .toString()
                    .startsWith(QLatin1String(
                        "MutatingWebhookConfiguration\nmutatingwebhookconfigurations.admissionregistration.k8s.io")));
        QVERIFY(!kind.data(Qt::DecorationRole).value<QIcon>().isNull());
        QVERIFY(!group.data(Qt::DecorationRole).value<QIcon>().isNull());
    }

    void windowGeometryAndSplittersPersistAcrossRuns()
    {
        QList<int> sizes;
        {
            widgets::MainWindow window;
            widgets::ClusterView *view = window.addCluster(QStringLiteral("one"));
            window.resize(1100, 700);
            window.show();
            auto *split = view->findChild<QSplitter *>(QStringLiteral("clusterSplitter"));
            split->setSizes({400, 700});
            sizes = split->sizes();
            window.close();
        }
        widgets::MainWindow again;
        widgets::ClusterView *view = again.addCluster(QStringLiteral("one"));
        again.show();
        QCOMPARE(again.size(), QSize(1100, 700));
        QCOMPARE(view->findChild<QSplitter *>(QStringLiteral("clusterSplitter"))->sizes(), sizes);
    }

    void settingsDialogShowsItsValuesAndOffersWhatOkAccepted()
    {
        widgets::SettingsDialog d(nullptr,
                                  {QStringLiteral("one"), QStringLiteral("sha256:abc"), QStringLiteral("https://x")});
        widgets::SettingsValues given;
        given.versionsPerObject = 50;
        given.fieldManager = QStringLiteral("ops");
        given.backgroundResources = QStringLiteral("configmaps");
        d.setValues(given);
        QCOMPARE(d.findChild<QSpinBox *>(QStringLiteral("historyRetention"))->value(), 50);
        QCOMPARE(d.findChild<QLineEdit *>(QStringLiteral("fieldManagerEdit"))->text(), QStringLiteral("ops"));
        d.findChild<QSpinBox *>(QStringLiteral("historyRetention"))->setValue(321);
        d.findChild<QLineEdit *>(QStringLiteral("fieldManagerEdit"))->setText(QStringLiteral("  team-console "));
        QSignalSpy accepted(&d, &widgets::SettingsDialog::settingsAccepted);
        d.findChild<QDialogButtonBox *>()->button(QDialogButtonBox::Ok)->click();
        QCOMPARE(accepted.size(), 1);
        const auto v = accepted.at(0).at(0).value<widgets::SettingsValues>();
        QCOMPARE(v.versionsPerObject, 321);
        QCOMPARE(v.fieldManager, QStringLiteral("team-console"));
        QCOMPARE(v.backgroundResources, QStringLiteral("configmaps"));
        QVERIFY(v.sharedHistoryUrl.isEmpty());
    }

    void settingsDialogStaysOpenWhileTheCheckRefuses()
    {
        widgets::SettingsDialog d;
        d.setValuesCheck([](const widgets::SettingsValues &v) {
            return v.fieldManager.contains(u'\t') ? QStringLiteral("no tabs") : QString();
        });
        d.findChild<QLineEdit *>(QStringLiteral("fieldManagerEdit"))->setText(QStringLiteral("a\tb"));
        QSignalSpy accepted(&d, &widgets::SettingsDialog::settingsAccepted);
        d.show();
        d.findChild<QDialogButtonBox *>()->button(QDialogButtonBox::Ok)->click();
        QCOMPARE(accepted.size(), 0);
        QVERIFY(d.isVisible());
        QCOMPARE(d.findChild<QLabel *>(QStringLiteral("settingsProblem"))->text(), QStringLiteral("no tabs"));
    }

    void yamlViewFollowsThePaletteToDarkAndBack()
    {
        widgets::YamlView yaml;
        yaml.setText(QStringLiteral("metadata:\n  name: web\n"));
        QsciLexer *lexer = yaml.lexer();
        const QColor lightIdentifier = lexer->color(2); // QsciLexerYAML::Identifier
        QApplication::setPalette(darkPalette());
        QTRY_COMPARE(lexer->paper(0), darkPalette().color(QPalette::Base));
        QVERIFY(lexer->color(2).lightness() > 150);
        QApplication::setPalette(QPalette());
        QTRY_COMPARE(lexer->paper(0), QPalette().color(QPalette::Base));
        QCOMPARE(lexer->color(2), lightIdentifier);
    }

    // The editor's "your changes" / "their changes" lines are light tints on a light palette; on a
    // dark one the light YAML text needs dark tints to stay readable.
    void editorChangeHighlightsFollowThePalette()
    {
        widgets::EditorWindow editor(QStringLiteral("ConfigMap demo/settings"));
        const QString opened = QStringLiteral("data:\n  color: blue\n  size: small\n");
        editor.load(opened, QStringLiteral("10"), QStringLiteral("fieldscope"));
        editor.showStale(QStringLiteral("modified"), opened, QStringLiteral("data:\n  color: green\n  size: small\n"),
                         QStringLiteral("data:\n  color: blue\n  size: large\n"), QStringLiteral("11"));
        editor.show();
        QVERIFY(QTest::qWaitForWindowExposed(&editor));
        const auto markedLine = [&](const char *pane, int line) {
            auto *view = editor.findChild<QsciScintilla *>(QString::fromLatin1(pane));
            const QImage img = view->viewport()->grab().toImage();
            const int y = int(view->SendScintilla(QsciScintilla::SCI_POINTYFROMPOSITION, 0,
                                                  view->SendScintilla(QsciScintilla::SCI_POSITIONFROMLINE, line)))
                        + 2;
            return QColor(img.pixel(img.width() - 4, y)); // right end: background only, no text
        };
        QVERIFY2(markedLine("writtenPane", 1).lightness() > 160, qPrintable(markedLine("writtenPane", 1).name()));
        QVERIFY2(markedLine("currentPane", 2).lightness() > 160, qPrintable(markedLine("currentPane", 2).name()));
        QApplication::setPalette(darkPalette());
        QTRY_VERIFY2(markedLine("writtenPane", 1).lightness() < 100, qPrintable(markedLine("writtenPane", 1).name()));
        QVERIFY2(markedLine("currentPane", 2).lightness() < 100, qPrintable(markedLine("currentPane", 2).name()));
        QVERIFY(markedLine("writtenPane", 1) != markedLine("currentPane", 2)); // still two different tints
        QApplication::setPalette(QPalette());
        QTRY_VERIFY(markedLine("writtenPane", 1).lightness() > 160);
    }
};

QTEST_MAIN(TestWatchStatus)
#include "tst_watchstatus.moc"
