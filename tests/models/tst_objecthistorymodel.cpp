// The History tab's models: rows built from a recorded history (with gaps and incarnations), the
// list growing on top without a reset, and one field's timeline.
#include "auditfixtures.h"
#include "core/audit/auditimport.h"
#include "core/history/historyquery.h"
#include "models/managerlegendmodel.h"
#include "models/objecthistorymodel.h"

#include <QAbstractItemModelTester>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QTextDocument>

using namespace fieldscope;
using core::Json;

namespace {

Json configMap(const std::string &uid, const std::string &rv, const std::string &value, Json managedFields)
{
    return Json{{"apiVersion", "v1"},
                {"kind", "ConfigMap"},
                {"metadata",
                 {{"name", "demo"},
                  {"namespace", "default"},
                  {"uid", uid},
                  {"resourceVersion", rv},
                  {"managedFields", managedFields}}},
                {"data", {{"mode", value}}}};
}

Json entry(const std::string &manager, const std::string &time)
{
    return Json{{"manager", manager},       {"operation", "Update"},
                {"apiVersion", "v1"},       {"time", time},
                {"fieldsType", "FieldsV1"}, {"fieldsV1", {{"f:data", {{"f:mode", Json::object()}}}}}};
}

core::AttributedEntry versionEntry(const std::string &uid, std::int64_t seq, const std::string &rv)
{
    core::AttributedEntry e;
    e.entry.kind = core::HistoryEntry::Kind::Version;
    e.entry.version.objectId = uid == "u1" ? 1 : 2;
    e.entry.version.uid = uid;
    e.entry.version.seq = seq;
    e.entry.version.resourceVersion = rv;
    e.entry.version.eventType = core::HistoryEventType::Modified;
    e.object.ref.uid = uid;
    return e;
}

// blue (create) -> gap -> green (teacher) ; then a re-created object with a new uid.
struct Sample {
    std::vector<core::AttributedEntry> entries;
    std::map<std::pair<std::int64_t, std::int64_t>, Json> objects; // (object id, seq) -> object
};

Sample sampleHistory()
{
    Sample h;
    std::vector<Json> objects = {
        configMap("u1", "10", "blue", Json::array({entry("kubectl-create", "2026-07-20T09:00:00Z")})), Json(),
        configMap("u1", "30", "green", Json::array({entry("teacher", "2026-07-20T09:05:00Z")})),
        configMap("u2", "40", "red", Json::array({entry("kubectl-create", "2026-07-20T09:06:00Z")}))};
    h.entries.push_back(versionEntry("u1", 1, "10"));
    core::AttributedEntry gap;
    gap.entry.kind = core::HistoryEntry::Kind::Gap;
    gap.entry.gap = core::HistoryGap{"s", "10", "25", "relist after 410", 0, 0};
    gap.object.ref.uid = "u1";
    h.entries.push_back(gap);
    h.entries.push_back(versionEntry("u1", 2, "30"));
    h.entries.push_back(versionEntry("u2", 1, "40"));
    for (std::size_t i = 0; i < objects.size(); ++i)
        if (h.entries[i].entry.kind == core::HistoryEntry::Kind::Version) {
            h.entries[i].attribution = core::attributeTransition(i == 2 ? &objects[0] : nullptr, objects[i]);
            h.objects[{h.entries[i].entry.version.objectId, h.entries[i].entry.version.seq}] = objects[i];
        }
    return h;
}

std::vector<models::HistoryRow> sample()
{
    return models::historyRows(sampleHistory().entries);
}

std::shared_ptr<models::HistoryVersions> sampleVersions(std::size_t capacity = models::HistoryVersions::kCachedVersions)
{
    return std::make_shared<models::HistoryVersions>(models::memoryVersionReader(sampleHistory().objects), capacity);
}

// The audit sample (tests/data/audit, policy rr) recorded with its watch `lateByMs` late and its
// audit log imported: team/app's attributed history and its audit data, as the History tab reads them.
struct SampleAudit {
    std::vector<core::AttributedEntry> entries;
    models::HistoryAudit audit;
    std::vector<models::HistoryRow> rows() const { return models::historyRows(entries, &audit); }
};

SampleAudit sampleAudit(std::int64_t lateByMs = 0)
{
    QTemporaryDir dir;
    auto store = core::HistoryStore::open(dir.filePath(QStringLiteral("h.db")).toStdString()).value();
    auditfixtures::recordSampleWatch(*store, "rr", lateByMs);
    core::AuditImporter importer(*store);
    if (!core::importAuditLogFile(auditfixtures::auditDataPath("rr-audit.log"), importer).ok()
        || !importer.finish().ok())
        qFatal("cannot import the audit sample");
    SampleAudit out;
    out.entries = core::attributedHistory(*store, auditfixtures::appQuery()).value();
    out.audit = models::historyAudit(*store, out.entries).value();
    return out;
}

} // namespace

class TestObjectHistoryModel : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    // A recorder under load sees every version a minute late, after all the refused writes: the
    // refused rows still sit between the versions by the time of their requests.
    void refusedWritesKeepTheirPlaceWhenTheWatchDeliversLate()
    {
        QStringList seen;
        for (const auto &r : sampleAudit(60'000).rows())
            seen << (r.refused ? QStringLiteral("refused ") : QStringLiteral("version ")) + r.who;
        QCOMPARE(seen, (QStringList{QStringLiteral("version alice"), QStringLiteral("refused bob"),
                                    QStringLiteral("version bob"), QStringLiteral("refused alice"),
                                    QStringLiteral("refused bob"), QStringLiteral("version bob"),
                                    QStringLiteral("version fieldscope-admin as system:serviceaccount:team:deployer"),
                                    QStringLiteral("version alice"), QStringLiteral("version bob"),
                                    QStringLiteral("version alice"), QStringLiteral("version bob")}));
    }

    // The audit sample (tests/data/audit): each version names its user, and the refused writes sit
    // between the versions by time, styled apart and never offered as a version to diff.
    void whoColumnAndRefusedWritesComeFromTheAuditLog()
    {
        const SampleAudit sample = sampleAudit();
        models::ObjectHistoryModel m;
        QAbstractItemModelTester tester(&m, QAbstractItemModelTester::FailureReportingMode::QtTest);
        m.setRows(QStringLiteral("app"), sample.rows());
        QStringList seen; // oldest first
        for (int r = m.rowCount() - 1; r >= 0; --r)
            seen << m.index(r, models::ObjectHistoryModel::EventColumn).data().toString() + QLatin1Char(' ')
                        + m.index(r, models::ObjectHistoryModel::WhoColumn).data().toString();
        QCOMPARE(seen, (QStringList{QStringLiteral("added alice"), QStringLiteral("refused (409) bob"),
                                    QStringLiteral("modified bob"), QStringLiteral("refused (409) alice"),
                                    QStringLiteral("refused (409) bob"), QStringLiteral("modified bob"),
                                    QStringLiteral("modified fieldscope-admin as system:serviceaccount:team:deployer"),
                                    QStringLiteral("modified alice"), QStringLiteral("modified bob"),
                                    QStringLiteral("modified alice"), QStringLiteral("deleted bob")}));
        const int refused = m.rowCount() - 2; // bob's AlreadyExists, second row oldest first
        QVERIFY(!m.index(refused, 0).data(models::ObjectHistoryModel::IsVersionRole).toBool());
        QVERIFY(m.index(refused, 0).data(Qt::ForegroundRole).isValid());
        QCOMPARE(m.index(refused, models::ObjectHistoryModel::ChangedByColumn).data().toString(),
                 QStringLiteral("AlreadyExists"));
        const QString tip =
            m.index(m.rowCount() - 1, models::ObjectHistoryModel::WhoColumn).data(Qt::ToolTipRole).toString();
        QVERIFY2(tip.contains(QStringLiteral("Exact")) && tip.contains(QStringLiteral("Groups: dev")), qPrintable(tip));
        QCOMPARE(m.headerData(models::ObjectHistoryModel::WhoColumn, Qt::Horizontal).toString(), QStringLiteral("Who"));
        QVERIFY(m.headerData(models::ObjectHistoryModel::WhoColumn, Qt::Horizontal, Qt::ToolTipRole)
                    .toString()
                    .contains(QStringLiteral("--audit-log")));
        // Without audit data the column is empty, never a guess.
        m.setRows(QStringLiteral("plain"), models::historyRows(sample.entries));
        QVERIFY(m.index(0, models::ObjectHistoryModel::WhoColumn).data().toString().isEmpty());
        QCOMPARE(m.rowCount(), 8);
    }

    // The Ownership tab's "Last written by" and `blame --who`: each manager's newest joined write
    // names its person; both readings (the model's rows, the store's query) agree.
    void lastWritersNameThePersonBehindEachManager()
    {
        QTemporaryDir dir;
        auto store = core::HistoryStore::open(dir.filePath(QStringLiteral("h.db")).toStdString()).value();
        auditfixtures::recordSampleWatch(*store, "rr");
        core::AuditImporter importer(*store);
        QVERIFY(core::importAuditLogFile(auditfixtures::auditDataPath("rr-audit.log"), importer).ok());
        QVERIFY(importer.finish().ok());
        core::ObjectQuery q;
        q.resource = "configmaps";
        q.namespace_ = "team";
        q.name = "app";
        const auto entries = core::attributedHistory(*store, q).value();
        const auto audit = models::historyAudit(*store, entries).value();
        models::ObjectHistoryModel m;
        m.setRows(QStringLiteral("app"), models::historyRows(entries, &audit));
        const QString uid = QString::fromStdString(entries.front().object.ref.uid);
        const auto writers = m.lastWriters(uid);
        QCOMPARE(writers.at("kubectl-create(Update)"), std::string("alice"));
        QCOMPARE(writers.at("kubectl-label(Update)"), std::string("bob"));
        QCOMPARE(writers.at("kubectl(Apply)"), std::string("bob"));
        QCOMPARE(writers.at("team-tool(Update)"), std::string("alice"));
        QCOMPARE(core::managerWriters(*store, q, uid.toStdString()).value(), writers);
        QVERIFY(m.lastWriters(QStringLiteral("another-uid")).empty());

        models::ManagerLegendModel legend;
        QAbstractItemModelTester tester(&legend, QAbstractItemModelTester::FailureReportingMode::QtTest);
        const Json object{{"metadata",
                           {{"name", "app"},
                            {"managedFields", Json::array({entry("kubectl-create", "2026-07-20T09:00:00Z"),
                                                           entry("kubectl-label", "2026-07-20T09:00:01Z"),
                                                           entry("nobody-joined", "2026-07-20T09:00:02Z")})}}},
                          {"data", {{"mode", "x"}}}};
        legend.setTree(core::OwnershipTree::build(object).value());
        QSignalSpy changed(&legend, &QAbstractItemModel::dataChanged);
        legend.setWriters(writers);
        QCOMPARE(changed.count(), 1);
        const int col = models::ManagerLegendModel::WrittenByColumn;
        QCOMPARE(legend.headerData(col, Qt::Horizontal).toString(), QStringLiteral("Last written by"));
        QCOMPARE(legend.index(0, col).data().toString(), QStringLiteral("alice"));
        QCOMPARE(legend.index(1, col).data().toString(), QStringLiteral("bob"));
        QCOMPARE(legend.index(2, col).data().toString(), QString()); // never a guess
        legend.setWriters(writers);
        QCOMPARE(changed.count(), 1); // nothing new: no repaint
    }

    void rowsLinkEachVersionToThePreviousOfTheSameObject()
    {
        const auto rows = sample();
        QCOMPARE(rows.size(), std::size_t(4));
        QCOMPARE(rows[0].previousVersion, -1);
        QCOMPARE(rows[1].kind, core::HistoryEntry::Kind::Gap);
        QCOMPARE(rows[1].resourceVersion, std::string("10 → 25"));
        QCOMPARE(rows[2].previousVersion, 0); // across the gap, same uid
        QCOMPARE(rows[2].changedBy, QStringLiteral("teacher(Update)"));
        QVERIFY(rows[2].changedPaths.contains(QStringLiteral(".data.mode")));
        QCOMPARE(rows[3].previousVersion, -1); // a new incarnation starts afresh
        QCOMPARE(rows[3].objectId, std::int64_t(2));
    }

    void modelShowsNewestFirstWithGapsAndPreviousVersion()
    {
        models::ObjectHistoryModel m;
        QAbstractItemModelTester tester(&m, QAbstractItemModelTester::FailureReportingMode::QtTest);
        const auto versions = sampleVersions();
        m.setRows(QStringLiteral("k"), sample(), versions);
        QCOMPARE(m.rowCount(), 4);
        QCOMPARE(m.index(0, models::ObjectHistoryModel::ResourceVersionColumn).data().toString(), QStringLiteral("40"));
        QCOMPARE(m.index(2, models::ObjectHistoryModel::EventColumn).data().toString(), QStringLiteral("not observed"));
        QVERIFY(!m.index(2, 0).data(models::ObjectHistoryModel::IsVersionRole).toBool());
        const models::HistoryRow *green = m.rowAt(1);
        QVERIFY(green && green->previousVersion >= 0);
        const models::HistoryRow &blue = m.rows()[std::size_t(green->previousVersion)];
        QVERIFY(m.versions()->json(blue.objectId, blue.seq).value().contains("\"blue\""));
        QCOMPARE(m.index(0, models::ObjectHistoryModel::ChangesColumn).data().toString(), QStringLiteral("first seen"));
    }

    // The rows hold no object: versions are read when asked, and only a few stay cached.
    void versionsAreReadOnDemandAndTheCacheIsBounded()
    {
        const auto versions = sampleVersions(2);
        QCOMPARE(versions->loads(), 0);
        QVERIFY(versions->json(1, 1).value().contains("\"blue\""));
        QVERIFY(versions->json(1, 1).value().contains("\"blue\""));
        QCOMPARE(versions->loads(), 1); // the second read was the cache's
        QVERIFY(versions->json(1, 2).value().contains("\"green\""));
        QVERIFY(versions->json(2, 1).value().contains("\"red\""));
        QCOMPARE(versions->cachedCount(), std::size_t(2)); // blue, the least recently used, left
        QVERIFY(versions->json(1, 1).ok());
        QCOMPARE(versions->loads(), 4);
        QVERIFY(!versions->json(9, 9).ok());
    }

    void newVersionsAreInsertedOnTopWithoutAReset()
    {
        models::ObjectHistoryModel m;
        QAbstractItemModelTester tester(&m, QAbstractItemModelTester::FailureReportingMode::QtTest);
        auto rows = sample();
        std::vector<models::HistoryRow> firstThree(rows.begin(), rows.begin() + 3);
        m.setRows(QStringLiteral("k"), firstThree);
        QSignalSpy resets(&m, &QAbstractItemModel::modelReset);
        QSignalSpy inserts(&m, &QAbstractItemModel::rowsInserted);
        m.setRows(QStringLiteral("k"), rows);
        QCOMPARE(resets.size(), 0);
        QCOMPARE(inserts.size(), 1);
        QCOMPARE(inserts.first().at(1).toInt(), 0);
        QCOMPARE(inserts.first().at(2).toInt(), 0);
        m.setRows(QStringLiteral("other"), rows); // another object: a new list
        QCOMPARE(resets.size(), 1);
    }

    void emptyModelCarriesItsMessage()
    {
        models::ObjectHistoryModel m;
        QAbstractItemModelTester tester(&m, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QSignalSpy messages(&m, &models::ObjectHistoryModel::messageChanged);
        m.clear(QStringLiteral("No version of this object is recorded yet."));
        QCOMPARE(m.rowCount(), 0);
        QCOMPARE(m.message(), QStringLiteral("No version of this object is recorded yet."));
        m.setRows(QStringLiteral("k"), sample());
        QVERIFY(m.message().isEmpty());
        QCOMPARE(messages.size(), 2);
    }

    void fieldTimelineFollowsValuesAndOwnersOfOneIncarnation()
    {
        const auto rows = sample();
        const core::FieldPath mode({core::PathElement::makeField("data"), core::PathElement::makeField("mode")});
        const auto t = models::fieldTimelineRows(*sampleVersions(), rows, "u1", mode).value();
        QCOMPARE(t.size(), std::size_t(2)); // u2's version is another object
        QCOMPARE(t[0].value, QStringLiteral("\"blue\""));
        QCOMPARE(t[0].owners, QStringLiteral("kubectl-create(Update)"));
        QCOMPARE(t[1].value, QStringLiteral("\"green\""));
        QCOMPARE(t[1].owners, QStringLiteral("teacher(Update)"));
        QVERIFY(t[1].changed && t[1].ownersChanged);
        models::FieldTimelineModel m;
        QAbstractItemModelTester tester(&m, QAbstractItemModelTester::FailureReportingMode::QtTest);
        m.setTimeline(QStringLiteral(".data.mode"), t);
        QCOMPARE(m.index(0, models::FieldTimelineModel::ValueColumn).data().toString(),
                 QStringLiteral("\"green\"")); // newest first
    }

    // Manager names, keys and field values come from whoever may write to the cluster or the
    // store: every tooltip of the History and of the field timeline shows them as plain text (a
    // tooltip that looks rich is rendered as HTML by Qt; the changed paths and the timeline's
    // values and owners were returned as they came).
    void tooltipsShowRichLookingManagerNamesAndValuesAsPlainText()
    {
        const Json before = configMap("u1", "10", "<i>green</i>",
                                      Json::array({entry("kubectl-create", "2026-07-20T09:00:00Z")}));
        Json after = configMap("u1", "30", "<i>green</i>", Json::array({entry("<b>boss</b>", "2026-07-20T09:05:00Z")}));
        after["data"]["<b>boss</b>"] = "1"; // a new key: its path is the Changed by tooltip
        std::vector<core::AttributedEntry> entries{versionEntry("u1", 1, "10"), versionEntry("u1", 2, "30")};
        entries[0].attribution = core::attributeTransition(nullptr, before);
        entries[1].attribution = core::attributeTransition(&before, after);
        models::ObjectHistoryModel m;
        m.setRows(QStringLiteral("app"), models::historyRows(entries));
        // Qt renders a tooltip as HTML when it looks rich: then it must be escaped.
        const auto shownAsTyped = [](const QString &tip) {
            return !Qt::mightBeRichText(tip)
                || (!tip.contains(QStringLiteral("<b>")) && !tip.contains(QStringLiteral("<i>")));
        };
        QString tips;
        for (int c = 0; c < m.columnCount(); ++c) {
            const QString tip = m.index(0, c).data(Qt::ToolTipRole).toString();
            tips += tip + u'|';
            QVERIFY2(shownAsTyped(tip), qPrintable(tip));
        }
        QVERIFY2(tips.contains(QStringLiteral("boss")), qPrintable(tips));
        const core::FieldPath mode({core::PathElement::makeField("data"), core::PathElement::makeField("mode")});
        std::map<std::pair<std::int64_t, std::int64_t>, Json> objects{{{1, 1}, before}, {{1, 2}, after}};
        models::HistoryVersions versions(models::memoryVersionReader(objects), 8);
        models::FieldTimelineModel t;
        t.setTimeline(QStringLiteral(".data.mode"),
                      models::fieldTimelineRows(versions, models::historyRows(entries), "u1", mode).value());
        for (int c = 0; c < t.columnCount(); ++c) {
            const QString tip = t.index(0, c).data(Qt::ToolTipRole).toString();
            QVERIFY2(shownAsTyped(tip), qPrintable(tip));
        }
    }
};

QTEST_GUILESS_MAIN(TestObjectHistoryModel)
#include "tst_objecthistorymodel.moc"
