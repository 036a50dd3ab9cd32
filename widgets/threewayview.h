#pragma once
// ThreeWayView: the editor's answer to a stale write or a failed JSON Patch `test`: what the user
// opened, what they wrote and what is there now, side by side, with the lines each side changed
// marked (diffed on a worker); Rebase and Merge onto the current version; and after a merge, the
// fields both sides changed, each to keep as mine or theirs (never chosen for the user). It asks
// through signals; the EditorWindow around it says what happened. Lives on the GUI thread.
#include <QColor>
#include <QList>
#include <QStringList>
#include <QWidget>

class QLabel;
class QPalette;
class QPushButton;
class QTableWidget;
class QsciScintilla;

namespace fieldscope::widgets {

class YamlView;

// Marker numbers of the YAML panes: lines your buffer changed since the opened version, and lines
// someone else changed since then.
constexpr int kWrittenMarker = 1;
constexpr int kCurrentMarker = 2;

// Line and label colours that keep the text readable on the palette in use.
struct EditorColors {
    QColor yours, theirs, bad, good;
    static EditorColors of(const QPalette &palette);
};

// A YAML pane with the two line markers, named `name`.
YamlView *markedYamlPane(QWidget *parent, const char *name, bool readOnly);
void colourMarkers(QsciScintilla *pane, const QPalette &palette);

class ThreeWayView : public QWidget
{
    Q_OBJECT
public:
    explicit ThreeWayView(QWidget *parent);

    // The three texts; the changed lines are marked when the worker's diff arrives (marked()).
    void setVersions(const QString &opened, const QString &written, const QString &current,
                     const QString &currentResourceVersion);
    // Rows of (field, opened, written, now, pointer) to choose mine or theirs for: the field as
    // shown (.spec.containers[name="app"].image), the JSON Pointer that mergeChoicesMade names.
    void showMergeConflicts(const QList<QStringList> &rows);
    void hideMergeConflicts();
    // `palette`: the window's (its children may not have theirs yet on a palette change).
    void recolour(const QPalette &palette);

Q_SIGNALS:
    void rebaseRequested();
    void mergeRequested();
    void mergeChoicesMade(const QStringList &keepMine); // pointers where the user keeps their value
    void marked();                                      // only the newest texts' marks are applied

private:
    QWidget *buildMergeChoices();
    void markLines(const QString &opened, const QString &written, const QString &current);
    void label(const QPalette &palette);

    QsciScintilla *m_openedPane, *m_writtenPane, *m_currentPane;
    QLabel *m_currentHeader, *m_writtenHeader;
    QTableWidget *m_mergeTable = nullptr;
    QPushButton *m_useMerge = nullptr;
    QString m_currentRv;
    int m_generation = 0; // the diff whose marks may still be applied
};

} // namespace fieldscope::widgets
