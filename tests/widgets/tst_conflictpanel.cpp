// The editor's SSA conflict panel without a cluster: Force is never chosen for the user, the
// per-field choices become one re-send (force only when a field chose it), and "for every
// field" resolutions name each field once. The EditorWindow turns these into requests.
#include "widgets/conflictpanel.h"
#include "widgets/editorwindow.h"
#include "widgets/qsci.h"

#include <QComboBox>
#include <QPushButton>
#include <QSignalSpy>
#include <QTableWidget>
#include <QTest>

using namespace fieldscope;
using widgets::ConflictPanel;
using widgets::ConflictRow;

namespace {

QList<ConflictRow> threeFields()
{
    return {{QStringLiteral(".data.a"), QStringLiteral("other-tool (Apply)"), QStringLiteral("2"), QStringLiteral("3")},
            {QStringLiteral(".data.b"), QStringLiteral("other-tool (Apply)"), QStringLiteral("2"), QStringLiteral("3")},
            {QStringLiteral(".data.c"), QStringLiteral("kubectl-edit (Update, v1)"), QStringLiteral("2"),
             QStringLiteral("3")}};
}

void choose(QWidget *panel, int row, core::Resolution resolution)
{
    auto *choice = panel->findChild<QComboBox *>(QStringLiteral("resolution%1").arg(row));
    QVERIFY(choice);
    choice->setCurrentIndex(choice->findData(int(resolution)));
}

} // namespace

class TestConflictPanel : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void sendWithChoicesStaysOffUntilEveryFieldHasOne()
    {
        ConflictPanel panel(nullptr);
        panel.show();
        panel.setRows(threeFields());
        auto *send = panel.findChild<QPushButton *>(QStringLiteral("sendChoicesButton"));
        QVERIFY(send && !send->isEnabled());
        for (int row = 0; row < 3; ++row)
            QCOMPARE(panel.findChild<QComboBox *>(QStringLiteral("resolution%1").arg(row))->currentData().toInt(),
                     int(core::Resolution::Undecided));
        choose(&panel, 0, core::Resolution::GiveUp);
        choose(&panel, 1, core::Resolution::GiveUp);
        QVERIFY(!send->isEnabled());
        choose(&panel, 2, core::Resolution::Force);
        QVERIFY(send->isEnabled());
        choose(&panel, 2, core::Resolution::Undecided);
        QVERIFY(!send->isEnabled());
    }

    void perFieldChoicesBecomeOneResendThatForcesOnlyIfAFieldChoseForce()
    {
        ConflictPanel panel(nullptr);
        panel.show();
        panel.setRows(threeFields());
        QSignalSpy made(&panel, &ConflictPanel::rowChoicesMade);
        choose(&panel, 0, core::Resolution::GiveUp);
        choose(&panel, 1, core::Resolution::CoOwn);
        choose(&panel, 2, core::Resolution::Force);
        QTest::mouseClick(panel.findChild<QPushButton *>(QStringLiteral("sendChoicesButton")), Qt::LeftButton);
        QCOMPARE(made.size(), 1);
        QCOMPARE(made.at(0).at(0).toStringList(), QStringList{QStringLiteral(".data.a")});
        QCOMPARE(made.at(0).at(1).toStringList(), QStringList{QStringLiteral(".data.b")});
        QCOMPARE(made.at(0).at(2).toBool(), true);
        choose(&panel, 2, core::Resolution::CoOwn);
        QTest::mouseClick(panel.findChild<QPushButton *>(QStringLiteral("sendChoicesButton")), Qt::LeftButton);
        QCOMPARE(made.size(), 2);
        QCOMPARE(made.at(1).at(1).toStringList(), (QStringList{QStringLiteral(".data.b"), QStringLiteral(".data.c")}));
        QCOMPARE(made.at(1).at(2).toBool(), false);
    }

    void everyFieldResolutionsNameEachFieldOnce()
    {
        ConflictPanel panel(nullptr);
        panel.show();
        QList<ConflictRow> rows = threeFields();
        rows << rows[0]; // a field two managers own is named twice by the 409
        panel.setRows(rows);
        QCOMPARE(panel.rows().size(), qsizetype(4));
        QSignalSpy giveUp(&panel, &ConflictPanel::giveUpRequested);
        QSignalSpy coOwn(&panel, &ConflictPanel::coOwnRequested);
        QSignalSpy force(&panel, &ConflictPanel::forceRequested);
        const QStringList each{QStringLiteral(".data.a"), QStringLiteral(".data.b"), QStringLiteral(".data.c")};
        QTest::mouseClick(panel.findChild<QPushButton *>(QStringLiteral("giveUpButton")), Qt::LeftButton);
        QTest::mouseClick(panel.findChild<QPushButton *>(QStringLiteral("coOwnButton")), Qt::LeftButton);
        QTest::mouseClick(panel.findChild<QPushButton *>(QStringLiteral("forceButton")), Qt::LeftButton);
        QCOMPARE(giveUp.size(), 1);
        QCOMPARE(giveUp.at(0).at(0).toStringList(), each);
        QCOMPARE(coOwn.at(0).at(0).toStringList(), each);
        QCOMPARE(force.size(), 1);
    }

    // The window re-sends its last request with the buffer as it is now: Force with force, the
    // per-field choices with force only when chosen, Give up without.
    void theWindowResendsTheLastRequestAsEachResolutionSays()
    {
        widgets::EditorWindow window(QStringLiteral("ConfigMap demo/rows"));
        window.show();
        window.load(QStringLiteral("metadata:\n  name: rows\n"), QStringLiteral("7"), QStringLiteral("fieldscope"));
        QSignalSpy writes(&window, &widgets::EditorWindow::writeRequested);
        QSignalSpy rowsSpy(&window, &widgets::EditorWindow::resolveRowsRequested);
        QSignalSpy giveUp(&window, &widgets::EditorWindow::giveUpRequested);
        QTest::mouseClick(window.findChild<QPushButton *>(QStringLiteral("writeButton")), Qt::LeftButton);
        QCOMPARE(writes.size(), 1);
        QCOMPARE(writes.at(0).at(0).value<widgets::WriteRequest>().force, false);
        window.showConflicts(QStringLiteral("Apply failed with 3 conflicts"), threeFields());
        QCOMPARE(window.state(), widgets::EditorWindow::State::Conflict);
        QCOMPARE(window.conflicts().size(), qsizetype(3));
        window.buffer()->setText(QStringLiteral("metadata:\n  name: rows\ndata:\n  a: \"3\"\n"));
        QTest::mouseClick(window.findChild<QPushButton *>(QStringLiteral("forceButton")), Qt::LeftButton);
        QCOMPARE(writes.size(), 2);
        const auto forced = writes.at(1).at(0).value<widgets::WriteRequest>();
        QVERIFY(forced.force);
        QVERIFY(forced.text.contains(QLatin1String("a: \"3\"")));
        QTest::mouseClick(window.findChild<QPushButton *>(QStringLiteral("giveUpButton")), Qt::LeftButton);
        QCOMPARE(giveUp.size(), 1);
        QCOMPARE(giveUp.at(0).at(1).value<widgets::WriteRequest>().force, false);
        for (int row = 0; row < 3; ++row)
            choose(&window, row, row == 2 ? core::Resolution::Force : core::Resolution::GiveUp);
        QTest::mouseClick(window.findChild<QPushButton *>(QStringLiteral("sendChoicesButton")), Qt::LeftButton);
        QCOMPARE(rowsSpy.size(), 1);
        QCOMPARE(rowsSpy.at(0).at(0).toStringList(),
                 (QStringList{QStringLiteral(".data.a"), QStringLiteral(".data.b")}));
        QVERIFY(rowsSpy.at(0).at(2).value<widgets::WriteRequest>().force);
    }
};

QTEST_MAIN(TestConflictPanel)
#include "tst_conflictpanel.moc"
