// The History tab's Who filter: only the rows of people whose name contains the text stay visible
// (versions and refused writes alike), rows nobody joined hide while it is set, and it keeps
// applying as new versions arrive on top.
#include "models/objecthistorymodel.h"
#include "widgets/historypanel.h"

#include <QLineEdit>
#include <QTableView>
#include <QTest>

using namespace fieldscope;

namespace {

models::HistoryRow row(std::int64_t seq, const char *rv, const QString &who, bool refused = false)
{
    models::HistoryRow r;
    r.kind = refused ? core::HistoryEntry::Kind::Gap : core::HistoryEntry::Kind::Version;
    r.refused = refused;
    r.uid = "u1";
    r.objectId = 1;
    r.seq = seq;
    r.resourceVersion = rv;
    r.who = who;
    r.whoExact = true;
    return r;
}

QStringList visibleWho(const widgets::HistoryPanel &panel, const models::ObjectHistoryModel &m)
{
    QStringList out;
    for (int r = 0; r < m.rowCount(); ++r)
        if (!panel.versionsView()->isRowHidden(r))
            out << m.rowAt(r)->who;
    return out;
}

} // namespace

class TestHistoryPanel : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void whoFilterKeepsOnePersonsRowsAndFollowsNewVersions()
    {
        models::ObjectHistoryModel model;
        widgets::HistoryPanel panel;
        panel.setModel(&model);
        std::vector<models::HistoryRow> rows = {row(1, "10", QStringLiteral("alice")),
                                                row(0, "", QStringLiteral("bob"), true),
                                                row(2, "12", QStringLiteral("bob")), row(3, "13", QString())};
        model.setRows(QStringLiteral("demo"), rows);
        auto *filter = panel.findChild<QLineEdit *>(QStringLiteral("whoFilter"));
        QVERIFY(filter);
        QCOMPARE(visibleWho(panel, model).size(), 4); // no filter: every row

        filter->setText(QStringLiteral("BOB")); // case does not matter
        QCOMPARE(visibleWho(panel, model), (QStringList{QStringLiteral("bob"), QStringLiteral("bob")}));

        rows.push_back(row(4, "14", QStringLiteral("alice")));
        rows.push_back(row(5, "15", QStringLiteral("bob")));
        model.setRows(QStringLiteral("demo"), rows); // grows on top, no reset
        QCOMPARE(visibleWho(panel, model),
                 (QStringList{QStringLiteral("bob"), QStringLiteral("bob"), QStringLiteral("bob")}));

        filter->clear();
        QCOMPARE(visibleWho(panel, model).size(), 6);
    }
};

QTEST_MAIN(TestHistoryPanel)
#include "tst_historypanel.moc"
