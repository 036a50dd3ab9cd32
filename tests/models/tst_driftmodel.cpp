// DriftModel (the window's Drift view) and the Ownership tab's drift badge (OwnershipTreeModel),
// fed reports shaped as core/drift makes them for the ConfigMap recorded in tests/data/drift
// (configmap.jsonl: gitops applied a, b and c; bob removed b, alice set c back after an edit),
// with a QAbstractItemModelTester attached before anything is fed and text dumps compared.
#include "core/base/json.h"
#include "models/driftmodel.h"
#include "models/ownershiptreemodel.h"
#include "models/roles.h"

#include <QAbstractItemModelTester>
#include <QDateTime>
#include <QFile>
#include <QSignalSpy>
#include <QTest>
#include <QTextDocument>

using namespace fieldscope;
using models::DriftModel;

namespace {

core::FieldPath dataKey(const std::string &key)
{
    return core::FieldPath({core::PathElement::makeField("data"), core::PathElement::makeField(key)});
}

core::DriftObjectRef settingsObject()
{
    return {"configmaps", "drift-cm-cac9e8", "settings", "b6c90a38-488a-4268-8ec6-cbd72ced84a7"};
}

core::DriftFinding finding(const core::DriftObjectRef &object, const std::string &key, const core::Json &applied,
                           const core::Json &now, const std::string &manager, const std::string &user,
                           const std::string &rv, const std::string &time)
{
    core::DriftFinding f;
    f.object = object;
    f.path = dataKey(key);
    f.appliedBy = "gitops";
    f.appliedKnown = true;
    f.appliedValue = applied;
    f.appliedAt = "2026-11-29T15:57:59Z";
    f.now.manager = manager;
    if (!manager.empty())
        f.now.operation = core::ManagedOperation::Update;
    f.now.present = !now.is_null();
    f.now.value = now;
    f.now.user = user;
    f.now.resourceVersion = rv;
    f.now.time = time;
    return f;
}

// What core/drift reports for the recorded ConfigMap: b removed by bob's JSON Patch (which no
// managedFields entry names), c set back to its applied value by alice as kubectl-patch.
core::DriftReport settingsReport()
{
    core::DriftReport r;
    r.object = settingsObject();
    r.findings.push_back(finding(r.object, "b", "2", nullptr, "", "bob", "515", "2026-11-29T15:58:01Z"));
    r.findings.push_back(finding(r.object, "c", "3", "3", "kubectl-patch", "alice", "517", "2026-11-29T15:58:03Z"));
    return r;
}

core::DriftReport reportOf(const std::string &name, const std::vector<std::string> &keys)
{
    core::DriftReport r;
    r.object = {"configmaps", "drift-cm-cac9e8", name, "uid-" + name};
    for (const auto &k : keys)
        r.findings.push_back(finding(r.object, k, "applied-" + k, "now-" + k, "hotfix", "", "", ""));
    return r;
}

QString localTime(const char *rfc3339)
{
    return QDateTime::fromString(QString::fromLatin1(rfc3339), Qt::ISODate)
        .toLocalTime()
        .toString(QStringLiteral("yyyy-MM-dd HH:mm:ss"));
}

QString dump(const QAbstractItemModel &m)
{
    QString out;
    for (int r = 0; r < m.rowCount(); ++r) {
        QStringList cells;
        for (int c = 0; c < m.columnCount(); ++c)
            cells << m.index(r, c).data().toString();
        out += cells.join(QStringLiteral(" | ")) + u'\n';
    }
    return out;
}

core::Json recordedLiveConfigMap()
{
    QFile f(QStringLiteral(FIELDSCOPE_TEST_DATA "/drift/configmap.jsonl"));
    if (!f.open(QIODevice::ReadOnly))
        qFatal("cannot open %s", qPrintable(f.fileName()));
    core::Json last;
    for (const QByteArray &line : f.readAll().split('\n'))
        if (auto j = core::parseJson(line.toStdString()); j && j->is_object() && j->contains("object"))
            last = (*j)["object"];
    return last;
}

QModelIndex findPath(const QAbstractItemModel &m, const QString &path, const QModelIndex &parent = {})
{
    for (int r = 0; r < m.rowCount(parent); ++r) {
        const QModelIndex i = m.index(r, 0, parent);
        if (i.data(models::FieldPathRole).toString() == path)
            return i;
        if (QModelIndex found = findPath(m, path, i); found.isValid())
            return found;
    }
    return {};
}

} // namespace

class TestDriftModel : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void reportsFedInBatchesShowEveryColumn();
    void aRefreshReplacesRowsInPlaceAndDropsObjectsNoLongerReported();
    void valuesArePreviewedShortWithTheWholeValueInTheTooltip();
    void clusterTextIsShownWithVisibleEscapes();
    void toolTipsShowHtmlLookingClusterTextAsTyped();
    void unknownAppliedValuesAndNotesAreSaid();
    void ownershipTreeMarksDriftedFieldsOfItsObjectOnly();
};

void TestDriftModel::reportsFedInBatchesShowEveryColumn()
{
    DriftModel m;
    QAbstractItemModelTester tester(&m, QAbstractItemModelTester::FailureReportingMode::QtTest);
    m.setShownNamespace(QStringLiteral("drift-cm-cac9e8"));
    m.beginRun();
    m.addReports({reportOf("clean", {})});
    m.addReports({settingsReport(), reportOf("other", {"x"})});
    m.endRun();
    QCOMPARE(dump(m), QStringLiteral("settings | .data.b | gitops | 2 | (absent) | unknown | bob | %1 | history\n"
                                     "settings | .data.c | gitops | 3 | 3 | kubectl-patch (Update) | alice | %2 | "
                                     "history\n"
                                     "other | .data.x | gitops | applied-x | now-x | hotfix (Update) |  |  | history\n")
                          .arg(localTime("2026-11-29T15:58:01Z"), localTime("2026-11-29T15:58:03Z")));
    QCOMPARE(m.objectCount(), 3);
    QCOMPARE(m.driftedObjectCount(), 2);
    QCOMPARE(m.headerData(DriftModel::AppliedByColumn, Qt::Horizontal).toString(), QStringLiteral("Applied by"));
    QCOMPARE(m.index(1, 0).data(DriftModel::ResourceVersionRole).toString(), QStringLiteral("517"));
    QCOMPARE(m.index(1, 0).data(DriftModel::UidRole).toString(),
             QStringLiteral("b6c90a38-488a-4268-8ec6-cbd72ced84a7"));
    QCOMPARE(m.index(1, 0).data(models::FieldPathRole).toString(), QStringLiteral(".data.c"));
    // When sorts by time; a change of unknown time sorts first.
    QVERIFY(m.index(1, DriftModel::WhenColumn).data(models::SortRole).toLongLong()
            > m.index(0, DriftModel::WhenColumn).data(models::SortRole).toLongLong());
    QCOMPARE(m.index(2, DriftModel::WhenColumn).data(models::SortRole).toLongLong(), qint64(-1));
    // Another namespace shows where the object is.
    m.setShownNamespace({});
    QCOMPARE(m.index(0, DriftModel::ObjectColumn).data().toString(), QStringLiteral("drift-cm-cac9e8/settings"));
}

void TestDriftModel::aRefreshReplacesRowsInPlaceAndDropsObjectsNoLongerReported()
{
    DriftModel m;
    QAbstractItemModelTester tester(&m, QAbstractItemModelTester::FailureReportingMode::QtTest);
    m.beginRun();
    m.addReports({reportOf("a", {"1", "2"}), reportOf("b", {"1"}), reportOf("c", {"1", "2", "3"})});
    m.endRun();
    QCOMPARE(m.rowCount(), 6);
    const QPersistentModelIndex cFirst = m.index(3, DriftModel::FieldColumn);
    QSignalSpy resets(&m, &QAbstractItemModel::modelReset);
    QSignalSpy changed(&m, &QAbstractItemModel::dataChanged);
    // The next run: a has one field fewer, b is gone, c is the same, d is new.
    m.beginRun();
    m.addReports({reportOf("a", {"1"})});
    m.addReports({reportOf("c", {"1", "2", "3"}), reportOf("d", {"9"})});
    m.endRun();
    QCOMPARE(resets.count(), 0);
    QCOMPARE(changed.count(), 0); // what stayed the same is not repainted
    QVERIFY(cFirst.isValid());
    QCOMPARE(cFirst.data().toString(), QStringLiteral(".data.1"));
    QCOMPARE(cFirst.row(), 1);
    QStringList objects;
    for (int r = 0; r < m.rowCount(); ++r)
        objects << m.index(r, DriftModel::ObjectColumn).data().toString() + u':'
                       + m.index(r, DriftModel::FieldColumn).data().toString();
    QCOMPARE(objects,
             QStringList({QStringLiteral("drift-cm-cac9e8/a:.data.1"), QStringLiteral("drift-cm-cac9e8/c:.data.1"),
                          QStringLiteral("drift-cm-cac9e8/c:.data.2"), QStringLiteral("drift-cm-cac9e8/c:.data.3"),
                          QStringLiteral("drift-cm-cac9e8/d:.data.9")}));
    // A changed value is a dataChanged of its rows, not a removal and an insert.
    core::DriftReport c = reportOf("c", {"1", "2", "3"});
    c.findings[1].now.value = "now-changed";
    m.beginRun();
    m.addReports({reportOf("a", {"1"}), c, reportOf("d", {"9"})});
    m.endRun();
    QCOMPARE(changed.count(), 1);
    QCOMPARE(m.index(2, DriftModel::NowColumn).data().toString(), QStringLiteral("now-changed"));
    m.clear();
    QCOMPARE(resets.count(), 1);
    QCOMPARE(m.rowCount(), 0);
}

void TestDriftModel::valuesArePreviewedShortWithTheWholeValueInTheTooltip()
{
    DriftModel m;
    QAbstractItemModelTester tester(&m, QAbstractItemModelTester::FailureReportingMode::QtTest);
    const std::string longValue(5000, 'v');
    core::DriftReport r = reportOf("big", {"k"});
    r.findings[0].appliedValue = core::Json{{"replicas", 2}, {"image", "nginx"}};
    r.findings[0].now.value = longValue;
    m.addReports({r});
    const QString now = m.index(0, DriftModel::NowColumn).data().toString();
    QVERIFY2(now.size() <= 61 && now.endsWith(QChar(0x2026)), qPrintable(now));
    QCOMPARE(m.index(0, DriftModel::AppliedValueColumn).data().toString(), QStringLiteral("{2 keys}"));
    QCOMPARE(m.index(0, DriftModel::AppliedValueColumn).data(Qt::ToolTipRole).toString(),
             QStringLiteral("{\"replicas\":2,\"image\":\"nginx\"}")); // the order the server sent
    const QString tip = m.index(0, DriftModel::NowColumn).data(Qt::ToolTipRole).toString();
    QCOMPARE(tip.size(), 4097); // the tooltip's bound, then "…"
    QVERIFY(tip.startsWith(QStringLiteral("vvvv")));
}

void TestDriftModel::clusterTextIsShownWithVisibleEscapes()
{
    DriftModel m;
    QAbstractItemModelTester tester(&m, QAbstractItemModelTester::FailureReportingMode::QtTest);
    core::DriftReport r = reportOf("evil\u202e", {"k"});
    r.findings[0].appliedBy = "gitops\u202e<b>x</b>";
    r.findings[0].now.manager = "bad\nmanager";
    r.findings[0].now.value = "line\u2028break";
    m.addReports({r});
    QCOMPARE(m.index(0, DriftModel::ObjectColumn).data().toString(), QStringLiteral("drift-cm-cac9e8/evil\\u202e"));
    QCOMPARE(m.index(0, DriftModel::AppliedByColumn).data().toString(), QStringLiteral("gitops\\u202e<b>x</b>"));
    QCOMPARE(m.index(0, DriftModel::ChangedByColumn).data().toString(), QStringLiteral("bad\\u000amanager (Update)"));
    QCOMPARE(m.index(0, DriftModel::NowColumn).data().toString(), QStringLiteral("line\\u2028break"));
}

// Qt renders a tooltip that looks like HTML as HTML: a manager named "<b>boss</b>" must read as
// typed, in the Drift view and on the Ownership tab's badge alike.
namespace {
bool shownAsTyped(const QString &tip)
{
    return !Qt::mightBeRichText(tip) || (!tip.contains(QLatin1String("<b>")) && !tip.contains(QLatin1String("<i>")));
}
} // namespace

void TestDriftModel::toolTipsShowHtmlLookingClusterTextAsTyped()
{
    DriftModel m;
    core::DriftReport r = settingsReport();
    for (auto &f : r.findings) {
        f.appliedBy = "<b>gitops</b>";
        f.now.manager = "<i>boss</i>";
        f.now.user = "<b>mallory</b>";
        f.now.time = "<b>noon</b>";
    }
    r.findings[1].appliedKnown = false;
    m.addReports({r});
    QString tips;
    for (int row = 0; row < m.rowCount(); ++row)
        for (int c = 0; c < m.columnCount(); ++c) {
            const QString tip = m.index(row, c).data(Qt::ToolTipRole).toString();
            tips += tip + u'|';
            QVERIFY2(shownAsTyped(tip), qPrintable(tip));
        }
    QVERIFY2(tips.contains(QLatin1String("gitops")) && tips.contains(QLatin1String("noon")), qPrintable(tips));

    models::OwnershipTreeModel tree;
    auto built = core::OwnershipTree::build(recordedLiveConfigMap());
    QVERIFY2(built, built ? "" : built.error().describe().c_str());
    tree.setTree(*built);
    core::DriftReport onTree = settingsReport();
    onTree.findings[1].appliedBy = "<b>gitops</b>";
    onTree.findings[1].now.manager = "<i>boss</i>";
    tree.setDrift(onTree);
    const QModelIndex c = findPath(tree, QStringLiteral(".data.c"));
    QVERIFY(c.isValid());
    const QString tip = c.data(Qt::ToolTipRole).toString();
    QVERIFY2(tip.contains(QLatin1String("boss")), qPrintable(tip));
    QVERIFY2(shownAsTyped(tip), qPrintable(tip));
}

void TestDriftModel::unknownAppliedValuesAndNotesAreSaid()
{
    DriftModel m;
    QAbstractItemModelTester tester(&m, QAbstractItemModelTester::FailureReportingMode::QtTest);
    core::DriftReport r = reportOf("listed", {"k"});
    r.findings[0].appliedKnown = false;
    r.findings[0].appliedValue = nullptr;
    r.findings[0].source = core::DriftSource::ManagedFields;
    r.notes.emplace_back("version 12 could not be read");
    m.addReports({r});
    QCOMPARE(m.index(0, DriftModel::AppliedValueColumn).data().toString(), QStringLiteral("(not recorded)"));
    QVERIFY(m.index(0, DriftModel::AppliedValueColumn)
                .data(Qt::ToolTipRole)
                .toString()
                .contains(QLatin1String("not recorded")));
    QCOMPARE(m.index(0, DriftModel::SourceColumn).data().toString(), QStringLiteral("managedFields"));
    QCOMPARE(m.notes(), QStringList(QStringLiteral("drift-cm-cac9e8/listed: version 12 could not be read")));
    QCOMPARE(m.noteCount(), 1);
}

void TestDriftModel::ownershipTreeMarksDriftedFieldsOfItsObjectOnly()
{
    models::OwnershipTreeModel tree;
    QAbstractItemModelTester tester(&tree, QAbstractItemModelTester::FailureReportingMode::QtTest);
    auto built = core::OwnershipTree::build(recordedLiveConfigMap());
    QVERIFY2(built, built ? "" : built.error().describe().c_str());
    tree.setTree(*built);
    const QPersistentModelIndex c = findPath(tree, QStringLiteral(".data.c"));
    const QPersistentModelIndex data = findPath(tree, QStringLiteral(".data"));
    QVERIFY(c.isValid() && data.isValid());
    const QPersistentModelIndex cValue = c.sibling(c.row(), models::OwnershipTreeModel::ValueColumn);
    QCOMPARE(cValue.data().toString(), QStringLiteral("3"));

    // A report about another object marks nothing.
    core::DriftReport other = settingsReport();
    other.object.uid = "another-uid";
    tree.setDrift(other);
    QCOMPARE(cValue.data().toString(), QStringLiteral("3"));

    QSignalSpy changed(&tree, &QAbstractItemModel::dataChanged);
    tree.setDrift(settingsReport());
    QVERIFY(changed.count() >= 2);
    QCOMPARE(cValue.data().toString(), QStringLiteral("3  [drift]"));
    QVERIFY(cValue.data(Qt::DecorationRole).canConvert<QColor>());
    QCOMPARE(c.data(models::DriftRole).toString(),
             QStringLiteral("Drift: applied by gitops: 3; now 3 by kubectl-patch (Update), person alice"));
    QVERIFY(c.data(Qt::ToolTipRole).toString().startsWith(QLatin1String("Drift: applied by gitops")));
    // b is gone from the object: its parent carries the mark and names it.
    QCOMPARE(data.data(models::DriftRole).toString(),
             QStringLiteral("Drift: applied by gitops: 2; now absent by an unknown writer, person bob (at .data.b)"));
    const QModelIndex a = findPath(tree, QStringLiteral(".data.a"));
    QCOMPARE(a.data(models::DriftRole).toString(), QString());
    QCOMPARE(a.siblingAtColumn(models::OwnershipTreeModel::ValueColumn).data().toString(), QStringLiteral("1"));

    // The same object's next version keeps the marks; an empty report clears them.
    tree.setTree(*built);
    QCOMPARE(cValue.data().toString(), QStringLiteral("3  [drift]"));
    tree.setDrift({});
    QCOMPARE(cValue.data().toString(), QStringLiteral("3"));
    QCOMPARE(data.data(models::DriftRole).toString(), QString());
}

QTEST_MAIN(TestDriftModel)
#include "tst_driftmodel.moc"
