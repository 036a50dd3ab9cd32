#pragma once
// HistoryPanel: the History tab. The recorded versions of the selected object (newest first,
// gaps shown as rows), the diff of the selected pair (each version against the one before it by
// default; select two versions to compare any two) as a structural change list plus a
// side-by-side YAML diff with intra-line highlights, noise-filter toggles, a filter by person, and the timeline of
// the field selected in the ownership tree. Diffs and timelines are computed on worker threads;
// a result that a newer request superseded is dropped. Lives on the GUI thread.
#include "core/objects/fieldpath.h"

#include <QByteArray>
#include <QWidget>

class QAction;
class QCheckBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QTableView;
class QTextBrowser;
class QToolButton;

namespace fieldscope::models {
class FieldTimelineModel;
class ObjectHistoryModel;
} // namespace fieldscope::models

namespace fieldscope::widgets {

// "Revert to this version" or "Undo this change", asked for on a version row: the recorded
// version (and, to undo its change, the version before it) as the store holds them, read on a
// worker. Whoever edits the object plans the write (core/edit/revertplan.h).
struct RevertRequest {
    QString uid;             // the incarnation the version belongs to
    QString resourceVersion; // of the version asked for
    QByteArray target;       // that version, JSON
    QByteArray predecessor;  // the version before it, JSON; empty unless changeOnly
    bool changeOnly = false;
};

class HistoryPanel : public QWidget
{
    Q_OBJECT
public:
    explicit HistoryPanel(QWidget *parent = nullptr);
    ~HistoryPanel() override;

    void setModel(models::ObjectHistoryModel *model);
    // The field whose values and owners across versions are shown (the ownership tree's current
    // field); an empty path hides the timeline.
    void setField(const QString &uid, const core::FieldPath &path);

    // Selects the version `resourceVersion` of incarnation `uid` (the Drift view's "show the
    // change"): at once when the list has it, else when the list that is loading arrives; a list
    // without it leaves the newest selected.
    void selectVersion(const QString &uid, const QString &resourceVersion);
    QTableView *versionsView() const { return m_versions; }
    QTextBrowser *diffView() const { return m_diff; }

Q_SIGNALS:
    void timelineShown(); // a requested field timeline is on screen
    void revertRequested(const fieldscope::widgets::RevertRequest &request);

protected:
    void changeEvent(QEvent *event) override;

private:
    QWidget *buildFilters();
    QWidget *buildWhoFilter();
    void showDiff();
    void refreshTimeline();
    void onMessage(const QString &message);
    void applyWhoFilter();        // hides the rows of other people (the Who filter)
    int newestVersionRow() const; // view row; 0 when there is none

    models::ObjectHistoryModel *m_model = nullptr;
    models::FieldTimelineModel *m_timelineModel;
    QTableView *m_versions;
    QTextBrowser *m_diff;
    QLabel *m_timelineTitle;
    QTableView *m_timeline;
    QWidget *m_timelineBox;
    QCheckBox *m_hideManagedFields;
    QCheckBox *m_hideResourceVersion;
    QCheckBox *m_hideGeneration;
    QCheckBox *m_hideStatus;
    QLineEdit *m_whoFilter;
    QPushButton *m_showOlder;    // shown while the model leaves older versions out
    QToolButton *m_revertButton; // its menu: Revert to this version…, Undo this change…
    QAction *m_revert;
    QAction *m_undo;
    QToolButton *buildRevertButton(QWidget *bar);
    void updateRevertButtons();
    void requestRevert(bool changeOnly);
    void showOlderCount(qint64 count);
    void selectWantedVersion();
    // selectVersion()'s, until a list of versions comes.
    QString m_wantedUid, m_wantedVersion;
    bool m_whoFiltered = false; // rows may be hidden by the Who filter
    QString m_fieldUid;
    core::FieldPath m_field;
    bool m_followNewest = false;
    int m_diffGeneration = 0;
    int m_timelineGeneration = 0;
};

} // namespace fieldscope::widgets
