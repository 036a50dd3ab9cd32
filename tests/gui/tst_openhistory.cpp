// `fieldscope --open FILE`: a recorded history (database or JSON Lines export) shown in the
// window without a cluster. No server here: the file is written with the history store itself.
#include "app/gui/historyfilecontroller.h"
#include "app/gui/screenshot.h"
#include "blockedwork.h"
#include "core/history/historyexport.h"
#include "core/history/historystore.h"
#include "guitesting.h"
#include "models/objecthistorymodel.h"
#include "widgets/clusterview.h"
#include "widgets/detailpane.h"
#include "widgets/historypanel.h"
#include "widgets/mainwindow.h"
#include "widgets/objecttablepage.h"

#include <QDir>
#include <QFile>
#include <QFont>
#include <QImage>
#include <QRegularExpression>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <QTextBrowser>
#include <QThreadPool>

#include <memory>

using namespace fieldscope;
using core::Json;

namespace {

Json configMap(const std::string &uid, int rv, const std::string &mode, const std::string &manager,
               const std::string &time)
{
    Json mf = Json::array({{{"manager", manager},
                            {"operation", "Update"},
                            {"apiVersion", "v1"},
                            {"time", time},
                            {"fieldsType", "FieldsV1"},
                            {"fieldsV1", {{"f:data", {{"f:mode", Json::object()}}}}}}});
    return Json{{"apiVersion", "v1"},
                {"kind", "ConfigMap"},
                {"metadata",
                 {{"name", "settings"},
                  {"namespace", "lessons"},
                  {"uid", uid},
                  {"resourceVersion", std::to_string(rv)},
                  {"creationTimestamp", "2026-07-20T09:00:00Z"},
                  {"managedFields", mf}}},
                {"data", {{"mode", mode}}}};
}

core::WatchEvent versionEvent(core::HistoryEventType t, const Json &obj)
{
    return {t, obj.dump(), 1'784'000'000'000};
}

using testing::saveShot;

} // namespace

class TestOpenHistory : public QObject
{
    Q_OBJECT
    QTemporaryDir m_dir;
    QString m_export;

private Q_SLOTS:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QSettings().remove(QStringLiteral("columns")); // each kind's column layout from an earlier run
        // blue (kubectl-create) -> green (teacher) -> gap -> red (teacher, as the relist that ended the
        // gap found it), and a deleted object.
        const core::WatchScope scope = core::WatchScope::of({"", "v1", "configmaps"}, "lessons");
        auto store = core::HistoryStore::open(m_dir.filePath(QStringLiteral("recorded.db")).toStdString()).value();
        Json gone = configMap("u2", 12, "x", "kubectl-create", "2026-07-20T09:00:01Z");
        gone["metadata"]["name"] = "old";
        Json goneDeleted = gone; // the DELETED event carries the deletion's resourceVersion
        goneDeleted["metadata"]["resourceVersion"] = "22";
        core::HistoryWriteItem gap{
            scope, {}, core::HistoryGap{{}, "21", "29", "relist after 410", 1'784'000'000'000, 0}, "29", {}};
        QVERIFY(store
                    ->write({{scope,
                              {versionEvent(core::HistoryEventType::Added,
                                            configMap("u1", 10, "blue", "kubectl-create", "2026-07-20T09:00:00Z")),
                               versionEvent(core::HistoryEventType::Added, gone),
                               versionEvent(core::HistoryEventType::Modified,
                                            configMap("u1", 20, "green", "teacher", "2026-07-20T09:01:00Z")),
                               versionEvent(core::HistoryEventType::Deleted, goneDeleted)},
                              {},
                              {},
                              {}},
                             gap,
                             {scope,
                              {versionEvent(core::HistoryEventType::Listed,
                                            configMap("u1", 30, "red", "teacher", "2026-07-20T09:02:00Z"))},
                              {},
                              {},
                              {}}})
                    .ok());
        m_export = m_dir.filePath(QStringLiteral("lesson.jsonl"));
        core::ObjectQuery everything;
        everything.allNamespaces = true;
        QCOMPARE(core::exportJsonLines(*store, everything, m_export.toStdString()).value(), std::int64_t(5));
    }

    void exportOpensWithItsObjectsAndTheirHistory()
    {
        widgets::ClusterView view;
        view.resize(1280, 800);
        app::HistoryFileController c(&view);
        QSignalSpy loaded(&c, &app::HistoryFileController::loaded);
        c.open(m_export);
        QTRY_COMPARE_WITH_TIMEOUT(loaded.size(), 1, 10000);
        QCOMPARE(c.currentResource(), QStringLiteral("configmaps"));
        // A file is not a connection: the tab and the context switcher say what it is.
        QCOMPARE(view.connectionState(), QStringLiteral("recorded history, no cluster"));
        QCOMPARE(c.model()->rowCount(), 2); // the live one and the deleted one
        // The deleted one is marked as such (struck through, its deletion's resourceVersion).
        const int old = c.model()->rowOf("u2"), live = c.model()->rowOf("u1");
        QVERIFY(old >= 0 && live >= 0);
        QVERIFY(c.model()->index(old, 0).data(Qt::FontRole).value<QFont>().strikeOut());
        QVERIFY2(
            c.model()->index(old, 0).data(Qt::ToolTipRole).toString().contains(QLatin1String("resourceVersion 22")),
            qPrintable(c.model()->index(old, 0).data(Qt::ToolTipRole).toString()));
        QVERIFY(!c.model()->index(live, 0).data(Qt::FontRole).value<QFont>().strikeOut());
        QVERIFY(view.tablePage()->selectName(QStringLiteral("lessons"), QStringLiteral("settings")));
        QTRY_VERIFY(view.detailPane()->isReady());
        view.detailPane()->setCurrentTab(widgets::DetailPane::HistoryTab);
        QTRY_COMPARE(c.historyModel()->rowCount(), 4); // three versions and the gap, newest first
        const auto *m = c.historyModel();
        QCOMPARE(m->index(0, models::ObjectHistoryModel::ResourceVersionColumn).data().toString(),
                 QStringLiteral("30"));
        QCOMPARE(m->index(1, models::ObjectHistoryModel::EventColumn).data().toString(),
                 QStringLiteral("not observed"));
        QCOMPARE(m->index(2, models::ObjectHistoryModel::ChangedByColumn).data().toString(),
                 QStringLiteral("teacher(Update)"));
        auto *diff = view.detailPane()->historyPanel()->diffView();
        QTRY_VERIFY2(diff->toPlainText().contains(QStringLiteral("resourceVersion 20 → 30")),
                     qPrintable(diff->toPlainText()));
        QVERIFY(diff->toPlainText().contains(QLatin1String(".data.mode")));
        // Two versions selected: the older against the newer, skipping what lies between.
        auto *versions = view.detailPane()->historyPanel()->versionsView();
        versions->selectionModel()->select(m->index(3, 0), QItemSelectionModel::Select | QItemSelectionModel::Rows);
        QTRY_VERIFY(diff->toPlainText().contains(QStringLiteral("resourceVersion 10 → 30")));
        QVERIFY(saveShot(&view, QStringLiteral("open-history.png")));
        // The first recorded version alone is shown whole, as YAML with its line breaks (not one
        // line with escaped line breaks).
        versions->clearSelection();
        versions->selectRow(3);
        QTRY_VERIFY2(diff->toPlainText().contains(QLatin1String("shown whole")), qPrintable(diff->toPlainText()));
        const QString whole = diff->toPlainText();
        QVERIFY2(!whole.contains(QLatin1String("\\u000a")), qPrintable(whole));
        static const QRegularExpression modeLine(QStringLiteral("^  mode: blue$"), QRegularExpression::MultilineOption);
        static const QRegularExpression kindLine(QStringLiteral("^kind: ConfigMap$"),
                                                 QRegularExpression::MultilineOption);
        QVERIFY2(whole.contains(modeLine), qPrintable(whole));
        QVERIFY2(whole.contains(kindLine), qPrintable(whole));
        QVERIFY(saveShot(&view, QStringLiteral("open-history-first-version.png")));
    }

    void databaseOpensReadOnlyToo()
    {
        widgets::ClusterView view;
        app::HistoryFileController c(&view);
        QSignalSpy loaded(&c, &app::HistoryFileController::loaded);
        c.showResource(QStringLiteral("ConfigMap"));
        c.open(m_dir.filePath(QStringLiteral("recorded.db")));
        QTRY_COMPARE_WITH_TIMEOUT(loaded.size(), 1, 10000);
        QCOMPARE(c.model()->rowCount(), 2);
    }

    // `fieldscope --open FILE --tab history --screenshot OUT.png` (no --select): the first object
    // in the table is selected and the picture waits for its history tab to have loaded.
    void screenshotWithATabAloneShowsThatTabOfTheFirstObject()
    {
        widgets::MainWindow window;
        window.resize(1000, 700);
        app::HistoryFileController c(window.addCluster(QStringLiteral("lesson.jsonl")));
        app::ScreenshotTarget target;
        target.tab = widgets::DetailPane::HistoryTab;
        target.tabGiven = true;
        const QString shot = m_dir.filePath(QStringLiteral("first-object-history.png"));
        app::ScreenshotTaker taker(&window, shot, target);
        taker.follow(&c);
        c.open(m_export);
        window.show();
        QTRY_VERIFY_WITH_TIMEOUT(QFile::exists(shot), 15000);
        widgets::ClusterView *view = window.currentCluster();
        QCOMPARE(view->detailPane()->tabs()->currentIndex(), int(widgets::DetailPane::HistoryTab));
        QCOMPARE(view->tablePage()->currentUid(), QStringLiteral("u2")); // "old" sorts before "settings"
        QCOMPARE(view->detailPane()->uid(), QStringLiteral("u2"));
        QVERIFY(view->detailPane()->isReady());
        QCOMPARE(c.historyModel()->rowCount(), 2); // its creation and its deletion were loaded before the grab
        QVERIFY(QImage(shot).size() == QSize(1000, 700));
    }

    void unreadableFileIsAClearErrorNotACrash()
    {
        const QString bad = m_dir.filePath(QStringLiteral("bad.jsonl"));
        QFile f(bad);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("{\"format\": \"not what you think\"\nthis is not json\n");
        f.close();
        widgets::ClusterView view;
        app::HistoryFileController c(&view);
        QSignalSpy failed(&c, &app::HistoryFileController::failed);
        c.open(bad);
        QTRY_COMPARE_WITH_TIMEOUT(failed.size(), 1, 10000);
        QVERIFY(failed.first().first().toString().contains(QLatin1String("bad.jsonl")));
        QCOMPARE(c.model()->rowCount(), 0);
    }

    // Closing the tab while the file is still being read (a shared store makes queries per
    // object) returns at once: the read, blocked here until after the destructor, owns its
    // scratch folder and gives up at its next object.
    void closingTheTabWhileTheFileIsStillReadReturnsAtOnce()
    {
        testsupport::BlockedWork work;
        widgets::ClusterView view;
        auto c = std::make_unique<app::HistoryFileController>(&view);
        c->setOpenProbe(work.probe());
        c->open(m_export);
        QVERIFY(work.waitUntilEntered());
        c.reset();
        QVERIFY2(!work.releasedByWatchdog(), "the destructor waited for the blocked read");
        work.release();
        QVERIFY(QThreadPool::globalInstance()->waitForDone(20000));
    }
};

QTEST_MAIN(TestOpenHistory)
#include "tst_openhistory.moc"
