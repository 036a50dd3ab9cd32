// The main window's first size: about 80% of the screen, centred, not a fixed small
// size; once closed, the next window comes back where the last one was.
#include "widgets/mainwindow.h"

#include <QApplication>
#include <QScreen>
#include <QSettings>
#include <QStandardPaths>
#include <QTest>

using namespace fieldscope::widgets;

class TestWindowGeometry : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true); // QSettings stay out of the user's
        QApplication::setOrganizationName(QStringLiteral("fieldscope-tests"));
        QApplication::setApplicationName(QStringLiteral("tst_windowgeometry"));
        QSettings().clear();
    }

    void firstWindowFillsMostOfTheScreen()
    {
        const QRect avail = QGuiApplication::primaryScreen()->availableGeometry();
        MainWindow window;
        const QRect g = window.geometry();
        QCOMPARE(g.width(), int(avail.width() * 0.8));
        QCOMPARE(g.height(), int(avail.height() * 0.8));
        QVERIFY2(avail.contains(g), "inside the screen");
        QVERIFY(qAbs(g.center().x() - avail.center().x()) <= 1);
    }

    void laterWindowsRestoreTheLastGeometry()
    {
        const QRect chosen(20, 30, 700, 520); // above the window's minimum size, unlike the 80% default
        {
            MainWindow window;
            window.setGeometry(chosen);
            window.show();
            QVERIFY(QTest::qWaitForWindowExposed(&window));
            window.close(); // saves the geometry
        }
        MainWindow again;
        QCOMPARE(again.geometry().size(), chosen.size());
    }
};

QTEST_MAIN(TestWindowGeometry)
#include "tst_windowgeometry.moc"
