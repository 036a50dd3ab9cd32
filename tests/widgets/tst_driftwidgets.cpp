// The Drift view without a cluster: Give back is offered only where it can be said honestly (and
// its tooltip says why not), asks first naming the object, the field and both values as plain
// text, and emits only on the person's yes; a row's click asks for its History. The History tab
// selects a version asked for by resourceVersion once its list arrives.
#include "models/driftmodel.h"
#include "models/objecthistorymodel.h"
#include "widgets/driftview.h"
#include "widgets/historypanel.h"

#include <QAbstractButton>
#include <QMessageBox>
#include <QPushButton>
#include <QSignalSpy>
#include <QTableView>
#include <QTest>

using namespace fieldscope;

namespace {

core::DriftFinding finding(const std::string &name, const std::string &appliedBy)
{
    core::DriftFinding f;
    f.object = {"configmaps", "shop", name, "uid-" + name};
    f.path = core::FieldPath({core::PathElement::makeField("data"), core::PathElement::makeField("color")});
    f.appliedBy = appliedBy;
    f.appliedKnown = true;
    f.appliedValue = "blue";
    f.now.manager = "hotfix";
    f.now.operation = core::ManagedOperation::Update;
    f.now.present = true;
    f.now.value = "red";
    f.now.resourceVersion = "42";
    return f;
}

core::DriftReport reportOf(const core::DriftFinding &f)
{
    return {f.object, {f}, {}};
}

models::HistoryRow version(std::int64_t seq, const char *rv)
{
    models::HistoryRow r;
    r.uid = "u1";
    r.objectId = 1;
    r.seq = seq;
    r.resourceVersion = rv;
    return r;
}

QString currentRv(const widgets::HistoryPanel &panel)
{
    return panel.versionsView()->currentIndex().data(models::ObjectHistoryModel::ResourceVersionRole).toString();
}

} // namespace

class TestDriftWidgets : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void giveBackIsOfferedOnlyWhereItCanBeSaidHonestly()
    {
        models::DriftModel model;
        widgets::DriftView view;
        view.setModel(&model);
        core::DriftFinding ok = finding("a-ok", "gitops");
        core::DriftFinding unknown = finding("b-listed", "gitops");
        unknown.appliedKnown = false;
        unknown.appliedValue = nullptr;
        unknown.source = core::DriftSource::ManagedFields;
        core::DriftFinding gone = finding("c-gone", "gitops");
        gone.now.present = false;
        gone.now.value = nullptr;
        core::DriftFinding notApplied = finding("d-extra", "gitops");
        notApplied.appliedPresent = false;
        notApplied.appliedValue = nullptr;
        core::DriftFinding back = finding("e-back", "gitops");
        back.now.value = "blue";
        model.addReports({reportOf(ok), reportOf(unknown), reportOf(gone), reportOf(notApplied), reportOf(back)});
        QPushButton *button = view.giveBackButton();
        QVERIFY(!button->isEnabled()); // nothing selected
        const QStringList why = {QString(), QStringLiteral("was not recorded"), QStringLiteral("not in the object now"),
                                 QStringLiteral("did not set this field"), QStringLiteral("owns it again")};
        for (int r = 0; r < why.size(); ++r) {
            view.table()->setCurrentIndex(view.table()->model()->index(r, 0)); // sorted by object
            QCOMPARE(button->isEnabled(), why[r].isEmpty());
            QVERIFY2(why[r].isEmpty() || button->toolTip().contains(why[r]), qPrintable(button->toolTip()));
        }
    }

    void giveBackAsksNamingEverythingAsPlainTextThenEmits()
    {
        models::DriftModel model;
        widgets::DriftView view;
        view.setModel(&model);
        model.addReports({reportOf(finding("web", "ci & <b>cd</b>"))});
        view.table()->setCurrentIndex(view.table()->model()->index(0, 0));
        QCOMPARE(view.giveBackButton()->text(), QStringLiteral("Give back to ci && <b>cd</b>…")); // no mnemonic
        QSignalSpy confirmed(&view, &widgets::DriftView::giveBackConfirmed);
        for (bool yes : {false, true}) {
            view.requestGiveBack();
            auto *box = view.findChild<QMessageBox *>(QStringLiteral("giveBackBox"));
            QVERIFY(box);
            QCOMPARE(box->textFormat(), Qt::PlainText);
            QVERIFY2(box->text().startsWith(
                         QStringLiteral("Set .data.color of configmaps shop/web back to \"blue\", the value ci & "
                                        "<b>cd</b> applied, only if it is still \"red\" (set by hotfix (Update))")),
                     qPrintable(box->text()));
            QAbstractButton *answer = nullptr;
            for (QAbstractButton *b : box->buttons())
                if ((box->buttonRole(b) == QMessageBox::AcceptRole) == yes)
                    answer = b;
            QVERIFY(answer);
            answer->click();
            QCOMPARE(confirmed.count(), yes ? 1 : 0);
            QTRY_VERIFY(!view.findChild<QMessageBox *>(QStringLiteral("giveBackBox")));
        }
        QVERIFY(confirmed.first().at(0).value<core::DriftFinding>().appliedValue == core::Json("blue"));
    }

    void clickingARowAsksForItsHistory()
    {
        models::DriftModel model;
        widgets::DriftView view;
        view.resize(900, 300);
        view.setModel(&model);
        model.addReports({reportOf(finding("web", "gitops"))});
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        QSignalSpy activated(&view, &widgets::DriftView::findingActivated);
        const QModelIndex cell = view.table()->model()->index(0, models::DriftModel::FieldColumn);
        QTest::mouseClick(view.table()->viewport(), Qt::LeftButton, {}, view.table()->visualRect(cell).center());
        QCOMPARE(activated.count(), 1);
        QCOMPARE(activated.first().at(0).value<core::DriftFinding>().now.resourceVersion, std::string("42"));
    }

    void historySelectsAVersionAskedForOnceItsListArrives()
    {
        models::ObjectHistoryModel model;
        widgets::HistoryPanel panel;
        panel.setModel(&model);
        model.setRows(QStringLiteral("other"), {version(0, "7")});
        model.clear(QStringLiteral("Loading…")); // the object asked about is loading
        panel.selectVersion(QStringLiteral("u1"), QStringLiteral("11"));
        model.setRows(QStringLiteral("demo"), {version(0, "10"), version(1, "11"), version(2, "12")});
        QCOMPARE(currentRv(panel), QStringLiteral("11")); // not the newest
        // Asked for at once when the list is shown; a version the list lacks leaves the newest.
        panel.selectVersion(QStringLiteral("u1"), QStringLiteral("10"));
        QCOMPARE(currentRv(panel), QStringLiteral("10"));
        model.clear();
        panel.selectVersion(QStringLiteral("u1"), QStringLiteral("99"));
        model.setRows(QStringLiteral("demo"), {version(0, "10"), version(1, "11"), version(2, "12")});
        QCOMPARE(currentRv(panel), QStringLiteral("12"));
        // The wish is gone: the next list keeps what the panel does on its own.
        model.clear();
        model.setRows(QStringLiteral("demo"), {version(0, "10"), version(1, "11")});
        QCOMPARE(currentRv(panel), QStringLiteral("11"));
    }
};

QTEST_MAIN(TestDriftWidgets)
#include "tst_driftwidgets.moc"
