#pragma once
// EditorWindow: a non-modal window editing one object's YAML: the buffer, the write mode
// (server-side apply with a field manager and Force, replace with the opened resourceVersion as
// precondition, merge patch, JSON Patch with a `test` of every changed field's opened value),
// Dry run and Write, and the outcome of the last write: the new resourceVersion and warnings, a
// malformed-YAML error, the SSA conflicts with Force / Give up / Co-own (ConflictPanel), the
// three-way view of a stale replace or of a failed `test` (ThreeWayView), the 422 causes, or the
// typed error. It never sends anything itself: it asks through signals and is told the outcome by
// the composition root (app::ObjectEditor, app/gui/objecteditor.h). The buffer is changed only by the user, by "Give
// the fields up" / "Co-own", by a merge, and after a write (to what was stored). Closing with edits that were not
// written asks first; when the connection goes away the window stays with its text (detach()). Lives on the GUI thread.
#include "core/edit/editsession.h"
#include "widgets/conflictpanel.h"

#include <QList>
#include <QMetaType>
#include <QString>
#include <QStringList>
#include <QWidget>

class QCheckBox;
class QFrame;
class QComboBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QToolButton;
class QSplitter;
class QStackedWidget;
class QTextBrowser;
class QsciScintilla;

namespace fieldscope::widgets {

class ThreeWayView;

using WriteMode = core::WriteMode; // which request a write sends: core/edit/editsession.h

struct WriteRequest {
    WriteMode mode = WriteMode::Apply;
    QString text;         // the buffer as sent
    QString fieldManager; // apply (and the manager recorded for replace/patch)
    bool force = false;   // apply only
    bool dryRun = false;
};

struct CauseRow {
    QString field; // the server's path syntax for validation errors ("metadata.labels")
    QString reason;
    QString message;
};

class EditorWindow : public QWidget
{
    Q_OBJECT
public:
    enum class State { Loading, Editing, Sending, ParseError, Written, Conflict, Stale, Invalid, Failed, Detached };
    Q_ENUM(State)

    // `title`: "ConfigMap demo/settings". Shown with "Loading…" until load().
    explicit EditorWindow(const QString &title, QWidget *parent = nullptr);

    void load(const QString &yaml, const QString &resourceVersion, const QString &fieldManager);
    // The version writes are based on (after a successful write, or "Rebase onto current").
    void setOpened(const QString &yaml, const QString &resourceVersion);
    QString openedResourceVersion() const { return m_openedRv; }
    QString openedYaml() const { return m_openedYaml; }

    QString bufferText() const;
    void setBufferText(const QString &yaml); // "Give the fields up" only
    // A write prepared for the user to review (a revert from the History tab): the buffer gets
    // `yaml` (a null string keeps the buffer), `mode` is chosen, `note` says what it does. Sends nothing.
    void proposeEdit(const QString &yaml, WriteMode mode, const QString &note);
    QsciScintilla *buffer() const { return m_buffer; }

    void setSending(bool dryRun);
    void showParseError(const QString &where, const QString &message);
    // Your credentials may not write this object: a banner says why, Dry run and Write are off
    // (Preview and Copy as stay). "" lifts it.
    void setReadOnly(const QString &why);
    // Stale-write merge: rows of (field, opened, written, now, pointer) to choose; then the result.
    void showMergeConflicts(const QList<QStringList> &rows);
    void showMerged(const QString &yaml, int yourChanges, const QString &resourceVersion);
    bool isReadOnly() const { return m_readOnly; }
    QString readOnlyReason() const;
    // `ownership` and `changes`: what the write does (dry run: would do) to managedFields and to the
    // object, from the server's answer.
    void showWritten(bool dryRun, const QString &resourceVersion, const QStringList &warnings,
                     const QStringList &ownership = {}, const QStringList &changes = {});
    void showConflicts(const QString &message, const QList<ConflictRow> &rows);
    void showStale(const QString &message, const QString &opened, const QString &written, const QString &current,
                   const QString &currentResourceVersion);
    void showInvalid(const QString &message, const QList<CauseRow> &causes);
    // The server's words on the buffer lines they name (a field validation warning or refusal, a
    // 422's causes): an annotation under each line, until the next write is sent. 1-based lines.
    void showLineNotes(const QList<QPair<int, QString>> &notes);
    QString lineNote(int line) const; // the annotation under 1-based LINE, "" for none
    void showFailure(const QString &message);
    void showRebased(); // after "Rebase onto current": based on the current version now
    // The request Write would send (method, path, content type, body), and notes about it.
    void showPreview(const QString &requestText, const QStringList &notes);
    // A JSON Patch's `test` failed: `changed` lists "path: opened → now" lines; then the three
    // panes as for a stale write.
    void showPreconditionFailed(const QStringList &changed, const QString &opened, const QString &written,
                                const QString &current, const QString &currentResourceVersion);
    // Edits an earlier run left unsent (saved at `savedAt`, based on `basedOnRv`): Restore or
    // Discard, asked above the buffer.
    void offerDraft(const QString &savedAt, const QString &basedOnRv);
    // Whether that question is open (neither Restore nor Discard clicked yet).
    bool draftOffered() const;
    // The restored edit: based on the version it was made on, the buffer as it was.
    void restoreDraft(const QString &openedYaml, const QString &openedRv, const QString &text);
    // kept = false: unsent edits are not written to disk (a Secret without the opt-in to record
    // its values); `why` says so above the buffer.
    void setDraftsKeptOnDisk(bool kept, const QString &why);
    QString draftNote() const; // "" when hidden
    // A kept draft was damaged (and moved aside), or saving one failed; "" hides the line.
    void showDraftProblem(const QString &message);
    QString draftProblem() const; // "" when hidden
    // Quitting with Discard: the kept draft goes too.
    void dropDraft() { Q_EMIT draftNotNeeded(); }

    // The watch saw the object at `resourceVersion` (or deleted): when that is not the version the
    // window's writes are based on, a banner says so and offers Rebase.
    void noteServerVersion(const QString &resourceVersion, bool deleted);
    bool serverChangedBannerShown() const;

    // The connection this window wrote through is gone: nothing can be sent any more, the text stays.
    void detach(const QString &why);

    // The buffer differs from what was opened or last written (dry runs do not count).
    bool hasUnsentEdits() const;
    // Asks whether to throw unsent edits away (Keep editing is the default); true when there is
    // nothing to lose or the user said Discard.
    bool confirmDiscard();

    State state() const { return m_state; }
    QString resultText() const;
    QList<ConflictRow> conflicts() const;
    WriteRequest currentRequest(bool dryRun) const;

Q_SIGNALS:
    void loaded(); // load() put the object in the buffer: edits may be proposed now
    void writeRequested(const fieldscope::widgets::WriteRequest &request);
    // Remove `paths` from the buffer, then send `request` again (without force).
    void giveUpRequested(const QStringList &paths, const fieldscope::widgets::WriteRequest &request);
    // Set `paths` in the buffer to the live values, then send `request` again: shared ownership.
    void coOwnRequested(const QStringList &paths, const fieldscope::widgets::WriteRequest &request);
    // Per-row choices: give up `giveUp`, co-own `coOwn`, and (request.force) force the rest.
    void mergeRequested();
    void mergeChoicesMade(const QStringList &keepMine); // pointers where the user keeps their value
    void resolveRowsRequested(const QStringList &giveUp, const QStringList &coOwn,
                              const fieldscope::widgets::WriteRequest &request);
    void rebaseRequested();
    // Show what Write would send for `request`, without sending it.
    void previewRequested(const fieldscope::widgets::WriteRequest &request);
    // "Copy as curl" (asCurl) or "Copy as kubectl" of the request Write would send.
    void copyRequested(const fieldscope::widgets::WriteRequest &request, bool asCurl);
    void writeFinished();  // a write (not a dry run) was stored
    void draftNotNeeded(); // closed for good, or its edits discarded on quit
    void restoreDraftRequested();
    void discardDraftRequested();
    // The three-way view's changed lines are marked (diffed on a worker after showStale() or
    // showPreconditionFailed(); only the newest request's marks are applied).
    void threeWayMarked();

protected:
    void closeEvent(QCloseEvent *event) override;
    void changeEvent(QEvent *event) override;

private:
    QWidget *buildControls();
    QToolButton *buildCopyAs(QWidget *parent);
    QWidget *buildResultPane(QWidget *parent);
    QWidget *buildServerBanner();
    QWidget *buildDraftBanner();
    void updateServerBanner();
    void tintBanner();
    QWidget *buildConflictPage();
    QWidget *buildThreeWayPage();
    void resend(bool force); // the last request again, with the buffer as it is now
    void request(const WriteRequest &r);
    void setResult(State state, const QString &text, int page);
    void updateHeader();
    void updateModeControls();
    void takeWrittenVersion();
    void colourResult();
    void showThreeWay(const QString &opened, const QString &written, const QString &current,
                      const QString &currentResourceVersion);

    State m_state = State::Loading;
    QString m_title, m_openedYaml, m_openedRv;
    QString m_savedText;   // the buffer as opened or as last written: what "unsent edits" compares with
    QString m_sendingText; // the buffer when the pending write was sent
    QLabel *m_header;
    QComboBox *m_mode;
    QLineEdit *m_manager;
    QCheckBox *m_force;
    QToolButton *m_copyAs = nullptr;
    QLabel *m_readOnlyBanner = nullptr;
    bool m_readOnly = false;
    QPushButton *m_preview, *m_dryRun, *m_write;
    QsciScintilla *m_buffer;
    QSplitter *m_split;
    QLabel *m_result;
    QStackedWidget *m_details;
    QTextBrowser *m_messages;
    ConflictPanel *m_conflictPanel;
    ThreeWayView *m_threeWay;
    QFrame *m_serverBanner, *m_draftBanner;
    QLabel *m_draftText;
    QLabel *m_draftNote, *m_draftProblem;
    QLabel *m_serverText;
    QPushButton *m_bannerRebase;
    QString m_serverRv; // the newest version the watch saw
    bool m_serverDeleted = false;
    WriteRequest m_lastRequest;
};

// The question before edits that were not written are thrown away: `text` asks it, Keep editing
// is the default and the escape; true when the user chose `discardLabel`.
bool askToDiscardEdits(QWidget *parent, const char *objectName, const QString &text, const QString &discardLabel);

} // namespace fieldscope::widgets

Q_DECLARE_METATYPE(fieldscope::widgets::WriteRequest)
