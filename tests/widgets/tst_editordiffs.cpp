// The editor's three-way view (stale write, failed precondition) diffs whole YAML texts: the
// diffs run on a worker, so showStale() returns with the texts shown and no line marked yet;
// the marks follow, and only those of the newest request are applied.
#include "widgets/editorwindow.h"
#include "widgets/qsci.h"

#include <QSignalSpy>
#include <QTest>

using namespace fieldscope;

namespace {

// Lines of `pane` carrying any marker (0-based).
QList<int> markedLines(QsciScintilla *pane)
{
    QList<int> out;
    for (int line = pane->markerFindNext(0, ~0u); line >= 0; line = pane->markerFindNext(line + 1, ~0u))
        out << line;
    return out;
}

QString yaml(int lines, int changedAt)
{
    QString s = QStringLiteral("apiVersion: v1\nkind: ConfigMap\ndata:\n");
    for (int i = 0; i < lines; ++i)
        s += QStringLiteral("  k%1: \"%2\"\n")
                 .arg(i)
                 .arg(i == changedAt ? QStringLiteral("changed") : QString::number(i));
    return s;
}

} // namespace

class TestEditorDiffs : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void threeWayDiffRunsOffTheGuiThreadAndMarksTheNewestRequestOnly()
    {
        widgets::EditorWindow window(QStringLiteral("ConfigMap demo"));
        window.resize(1200, 800);
        window.show();
        auto *written = window.findChild<QsciScintilla *>(QStringLiteral("writtenPane"));
        auto *current = window.findChild<QsciScintilla *>(QStringLiteral("currentPane"));
        QVERIFY(written && current);
        QSignalSpy marked(&window, &widgets::EditorWindow::threeWayMarked);

        const QString opened = yaml(2'000, -1);
        window.showStale(QStringLiteral("stale"), opened, yaml(2'000, 10), yaml(2'000, 20), QStringLiteral("7"));
        // Returned before any diff was applied: the marks come from the worker.
        QVERIFY(markedLines(written).isEmpty());
        QVERIFY(marked.isEmpty());
        // A newer request at once: the first one's marks must never be applied.
        window.showStale(QStringLiteral("stale"), opened, yaml(2'000, 30), yaml(2'000, 40), QStringLiteral("8"));
        QVERIFY(marked.wait(10'000));
        QTest::qWait(200); // a late result of the first request would land here
        QCOMPARE(marked.size(), 1);
        QCOMPARE(markedLines(written), QList<int>{3 + 30});
        QCOMPARE(markedLines(current), QList<int>{3 + 40});
    }
};

QTEST_MAIN(TestEditorDiffs)
#include "tst_editordiffs.moc"
