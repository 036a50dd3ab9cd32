#include "widgets/editorwindow.h"

#include "widgets/plaintext.h"
#include "widgets/threewayview.h"
#include "widgets/yamlview.h"

#include <QCheckBox>
#include <QCloseEvent>
#include <QComboBox>
#include <QFrame>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QMap>
#include <QMenu>
#include <QMessageBox>
#include <QPushButton>
#include <QShortcut>
#include <QSplitter>
#include <QStackedWidget>
#include <QTextBrowser>
#include <QToolButton>
#include <QVBoxLayout>

namespace fieldscope::widgets {

namespace {

enum Page { NoPage, MessagePage, ConflictPage, ThreeWayPage };

} // namespace

EditorWindow::EditorWindow(const QString &title, QWidget *parent) : QWidget(parent, Qt::Window), m_title(title)
{
    setObjectName(QStringLiteral("editorWindow"));
    setWindowTitle(tr("Edit %1").arg(visibleText(title)));
    auto *layout = new QVBoxLayout(this);
    m_header = plainLabel(new QLabel(this)); // the object's name
    m_header->setObjectName(QStringLiteral("editorHeader"));
    m_header->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(m_header);
    layout->addWidget(buildDraftBanner());
    // Where unsent text is (or is not) kept, and what went wrong keeping it: plain text, one line.
    m_draftNote = new QLabel(this);
    m_draftNote->setObjectName(QStringLiteral("draftNote"));
    m_draftNote->setTextFormat(Qt::PlainText);
    m_draftNote->setWordWrap(true);
    m_draftNote->hide();
    layout->addWidget(m_draftNote);
    m_draftProblem = new QLabel(this);
    m_draftProblem->setObjectName(QStringLiteral("draftProblem"));
    m_draftProblem->setTextFormat(Qt::PlainText);
    m_draftProblem->setWordWrap(true);
    m_draftProblem->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_draftProblem->hide();
    layout->addWidget(m_draftProblem);
    layout->addWidget(buildServerBanner());
    // Read-only: RBAC allows neither update nor patch (SelfSubjectAccessReview on open, or a 403).
    m_readOnlyBanner = plainLabel(new QLabel(this));
    m_readOnlyBanner->setObjectName(QStringLiteral("readOnlyBanner"));
    m_readOnlyBanner->setWordWrap(true);
    m_readOnlyBanner->setStyleSheet(
        QStringLiteral("QLabel { background: #6d4c41; color: white; border-radius: 4px; padding: 4px 8px; }"));
    m_readOnlyBanner->hide();
    layout->addWidget(m_readOnlyBanner);
    layout->addWidget(buildControls());
    m_split = new QSplitter(Qt::Vertical, this);
    m_buffer = markedYamlPane(m_split, "editorBuffer", false);
    m_buffer->setText(tr("Loading…"));
    m_buffer->setReadOnly(true);
    m_split->addWidget(m_buffer);
    m_split->addWidget(buildResultPane(m_split));
    m_split->setSizes({500, 120});
    layout->addWidget(m_split, 1);
    updateHeader();
    updateModeControls();
    resize(1100, 760);
}

// The last write's outcome: one line, then the page for it (messages, conflicts, three-way view).
QWidget *EditorWindow::buildResultPane(QWidget *parent)
{
    auto *bottom = new QWidget(parent);
    auto *bl = new QVBoxLayout(bottom);
    bl->setContentsMargins(0, 0, 0, 0);
    m_result = new QLabel(bottom);
    m_result->setObjectName(QStringLiteral("editorResult"));
    m_result->setWordWrap(true);
    m_result->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_result->setTextFormat(Qt::PlainText);
    bl->addWidget(m_result);
    m_details = new QStackedWidget(bottom);
    m_details->addWidget(new QWidget(m_details));
    m_messages = new QTextBrowser(m_details);
    m_messages->setObjectName(QStringLiteral("editorMessages"));
    m_details->addWidget(m_messages);
    m_details->addWidget(buildConflictPage());
    m_details->addWidget(buildThreeWayPage());
    bl->addWidget(m_details, 1);
    return bottom;
}

QWidget *EditorWindow::buildControls()
{
    auto *row = new QWidget(this);
    auto *l = new QHBoxLayout(row);
    l->setContentsMargins(0, 0, 0, 0);
    m_mode = new QComboBox(row);
    m_mode->setObjectName(QStringLiteral("writeMode"));
    m_mode->addItem(tr("Server-side apply (your fields and your changes)"), int(WriteMode::Apply));
    m_mode->addItem(tr("Replace (only if unchanged since opened)"), int(WriteMode::Replace));
    m_mode->addItem(tr("Merge patch (what you changed)"), int(WriteMode::MergePatch));
    m_mode->addItem(tr("JSON Patch (only if the fields you changed still have their opened values)"),
                    int(WriteMode::JsonPatch));
    m_mode->setToolTip(
        tr("Apply: sends the fields your manager applied before plus the ones you changed, never the whole "
           "object; another owner's different value is a conflict.\n"
           "Replace: the whole object, refused if anyone changed it since you opened it.\n"
           "Merge patch: only the fields you changed since you opened it, no precondition.\n"
           "JSON Patch: only the fields you changed, each with a test of the value you opened "
           "(\"set foo=2 only if foo is 1\"); changes to other fields do not matter."));
    connect(m_mode, &QComboBox::currentIndexChanged, this, &EditorWindow::updateModeControls);
    m_manager = new QLineEdit(row);
    m_manager->setObjectName(QStringLiteral("editorFieldManager"));
    m_manager->setToolTip(tr("The field manager the write is recorded under (managedFields)"));
    m_manager->setMinimumWidth(m_manager->fontMetrics().horizontalAdvance(QStringLiteral("kube-controller-manager")));
    m_force = new QCheckBox(tr("Force"), row);
    m_force->setObjectName(QStringLiteral("forceCheck"));
    m_force->setToolTip(tr("Take fields other managers own instead of reporting a conflict"));
    m_preview = new QPushButton(tr("Preview"), row);
    m_preview->setObjectName(QStringLiteral("previewButton"));
    m_preview->setToolTip(tr("Show the request Write would send (method, path, body), without sending it"));
    m_dryRun = new QPushButton(tr("Dry run"), row);
    m_dryRun->setObjectName(QStringLiteral("dryRunButton"));
    m_dryRun->setToolTip(tr("The server validates and answers, nothing is stored (dryRun=All)"));
    m_write = new QPushButton(tr("Write"), row);
    m_write->setObjectName(QStringLiteral("writeButton"));
    m_write->setToolTip(tr("Send the buffer (Ctrl+Return)"));
    m_write->setDefault(true);
    connect(m_preview, &QPushButton::clicked, this, [this] { Q_EMIT previewRequested(currentRequest(false)); });
    m_copyAs = buildCopyAs(row);
    connect(m_dryRun, &QPushButton::clicked, this, [this] { request(currentRequest(true)); });
    connect(m_write, &QPushButton::clicked, this, [this] { request(currentRequest(false)); });
    auto *send = new QShortcut(QKeySequence(Qt::CTRL | Qt::Key_Return), this);
    connect(send, &QShortcut::activated, m_write, &QPushButton::click);
    l->addWidget(new QLabel(tr("Write as:"), row));
    l->addWidget(m_mode);
    l->addWidget(new QLabel(tr("Field manager:"), row));
    l->addWidget(m_manager, 1);
    l->addWidget(m_force);
    l->addWidget(m_preview);
    l->addWidget(m_copyAs);
    l->addWidget(m_dryRun);
    l->addWidget(m_write);
    m_preview->setEnabled(false);
    m_copyAs->setEnabled(false);
    m_dryRun->setEnabled(false);
    m_write->setEnabled(false);
    return row;
}

// The exact request as a command to keep or run elsewhere; no token is ever in the text.
QToolButton *EditorWindow::buildCopyAs(QWidget *parent)
{
    auto *copyAs = new QToolButton(parent);
    copyAs->setObjectName(QStringLiteral("copyAsButton"));
    copyAs->setText(tr("Copy as"));
    copyAs->setPopupMode(QToolButton::InstantPopup);
    auto *copyMenu = new QMenu(copyAs);
    QAction *curl = copyMenu->addAction(tr("curl"));
    curl->setObjectName(QStringLiteral("copyAsCurl"));
    QAction *kubectl = copyMenu->addAction(tr("kubectl"));
    kubectl->setObjectName(QStringLiteral("copyAsKubectl"));
    copyAs->setMenu(copyMenu);
    copyAs->setToolTip(tr(
        "Copy the request Write would send as a curl or kubectl command (the token stays out: curl reads $KUBE_TOKEN)"));
    connect(curl, &QAction::triggered, this, [this] { Q_EMIT copyRequested(currentRequest(false), true); });
    connect(kubectl, &QAction::triggered, this, [this] { Q_EMIT copyRequested(currentRequest(false), false); });
    return copyAs;
}

QWidget *EditorWindow::buildConflictPage()
{
    m_conflictPanel = new ConflictPanel(m_details);
    connect(m_conflictPanel, &ConflictPanel::forceRequested, this, [this] { resend(true); });
    const auto resolveAll = [this](void (EditorWindow::*signal)(const QStringList &, const WriteRequest &)) {
        return [this, signal](const QStringList &paths) {
            WriteRequest r = m_lastRequest;
            r.text = bufferText();
            r.force = false;
            Q_EMIT(this->*signal)(paths, r);
        };
    };
    connect(m_conflictPanel, &ConflictPanel::giveUpRequested, this, resolveAll(&EditorWindow::giveUpRequested));
    connect(m_conflictPanel, &ConflictPanel::coOwnRequested, this, resolveAll(&EditorWindow::coOwnRequested));
    connect(m_conflictPanel, &ConflictPanel::rowChoicesMade, this,
            [this](const QStringList &giveUp, const QStringList &coOwn, bool force) {
                WriteRequest r = m_lastRequest;
                r.text = bufferText();
                r.force = force;
                Q_EMIT resolveRowsRequested(giveUp, coOwn, r);
            });
    return m_conflictPanel;
}

void EditorWindow::resend(bool force)
{
    WriteRequest r = m_lastRequest;
    r.text = bufferText();
    r.force = force;
    request(r);
}

QList<ConflictRow> EditorWindow::conflicts() const
{
    return m_conflictPanel->rows();
}

QWidget *EditorWindow::buildThreeWayPage()
{
    m_threeWay = new ThreeWayView(m_details);
    connect(m_threeWay, &ThreeWayView::rebaseRequested, this, &EditorWindow::rebaseRequested);
    connect(m_threeWay, &ThreeWayView::mergeRequested, this, &EditorWindow::mergeRequested);
    connect(m_threeWay, &ThreeWayView::mergeChoicesMade, this, &EditorWindow::mergeChoicesMade);
    connect(m_threeWay, &ThreeWayView::marked, this, &EditorWindow::threeWayMarked);
    return m_threeWay;
}

void EditorWindow::showMergeConflicts(const QList<QStringList> &rows)
{
    m_threeWay->showMergeConflicts(rows);
    setResult(
        State::Stale,
        (rows.size() == 1
             ? tr("1 field changed on both sides: keep yours or theirs, then the merge goes into the buffer.")
             : tr("%1 fields changed on both sides: keep yours or theirs for each, then the merge goes into the buffer.")
                   .arg(rows.size())),
        ThreeWayPage);
}

void EditorWindow::showMerged(const QString &yaml, int yourChanges, const QString &resourceVersion)
{
    m_threeWay->hideMergeConflicts();
    setBufferText(yaml);
    setResult(
        State::Editing,
        tr("Merged: %1 of your changes on top of resourceVersion %2. Nothing was sent: check the buffer, then Write.")
            .arg(yourChanges)
            .arg(resourceVersion),
        NoPage);
}

void EditorWindow::load(const QString &yaml, const QString &resourceVersion, const QString &fieldManager)
{
    m_buffer->setReadOnly(false);
    m_buffer->setText(yaml);
    m_savedText = yaml;
    m_manager->setText(fieldManager);
    setOpened(yaml, resourceVersion);
    m_preview->setEnabled(true);
    m_copyAs->setEnabled(true);
    m_dryRun->setEnabled(!isReadOnly());
    m_write->setEnabled(!isReadOnly());
    setResult(State::Editing,
              tr("Edit the YAML, then Dry run or Write. Server-managed metadata and the "
                 "status are left out: writes to the object do not change them."),
              NoPage);
    Q_EMIT loaded();
}

void EditorWindow::proposeEdit(const QString &yaml, WriteMode mode, const QString &note)
{
    if (!yaml.isNull())
        setBufferText(yaml);
    if (const int i = m_mode->findData(int(mode)); i >= 0)
        m_mode->setCurrentIndex(i);
    setResult(State::Editing, note, NoPage);
}

void EditorWindow::setOpened(const QString &yaml, const QString &resourceVersion)
{
    m_openedYaml = yaml;
    m_openedRv = resourceVersion;
    updateHeader();
    updateServerBanner();
}

// The banner is the point of the tool while editing: someone else's write shows up before
// yours is refused or, worse, quietly wins over theirs.
QString EditorWindow::readOnlyReason() const
{
    return m_readOnly ? m_readOnlyBanner->text() : QString();
}

void EditorWindow::setReadOnly(const QString &why)
{
    m_readOnlyBanner->setText(visibleText(why, true));
    m_readOnlyBanner->setVisible(!why.isEmpty());
    m_readOnly = !why.isEmpty();
    const bool busy = m_state == State::Sending || m_state == State::Loading || m_state == State::Detached;
    m_dryRun->setEnabled(!busy && !m_readOnly && m_preview->isEnabled());
    m_write->setEnabled(!busy && !m_readOnly && m_preview->isEnabled());
    if (m_readOnly && m_state == State::Editing)
        m_result->setText(
            tr("You may read this object but not write it: Preview and Copy as show the request for someone who may."));
}

QWidget *EditorWindow::buildServerBanner()
{
    m_serverBanner = new QFrame(this);
    m_serverBanner->setObjectName(QStringLiteral("serverChangedBanner"));
    m_serverBanner->setFrameShape(QFrame::StyledPanel);
    auto *l = new QHBoxLayout(m_serverBanner);
    m_serverText = new QLabel(m_serverBanner);
    m_serverText->setWordWrap(true);
    m_serverText->setTextFormat(Qt::PlainText);
    m_bannerRebase = new QPushButton(tr("Rebase onto current"), m_serverBanner);
    m_bannerRebase->setObjectName(QStringLiteral("bannerRebaseButton"));
    m_bannerRebase->setToolTip(tr("Base the next write on the version there now; your buffer stays as it is"));
    connect(m_bannerRebase, &QPushButton::clicked, this, &EditorWindow::rebaseRequested);
    l->addWidget(m_serverText, 1);
    l->addWidget(m_bannerRebase);
    m_serverBanner->hide();
    tintBanner();
    return m_serverBanner;
}

// In the tint of "their changes" (the three-way view's legend): it is about someone else's write.
void EditorWindow::tintBanner()
{
    const EditorColors c = EditorColors::of(palette());
    m_serverBanner->setStyleSheet(
        QStringLiteral("#serverChangedBanner { background: %1; border-radius: 3px; }").arg(c.theirs.name()));
    // The kept draft is the user's own text: the tint of "your changes".
    m_draftBanner->setStyleSheet(
        QStringLiteral("#draftBanner { background: %1; border-radius: 3px; }").arg(c.yours.name()));
}

bool EditorWindow::serverChangedBannerShown() const
{
    return !m_serverBanner->isHidden();
}

QWidget *EditorWindow::buildDraftBanner()
{
    m_draftBanner = new QFrame(this);
    m_draftBanner->setObjectName(QStringLiteral("draftBanner"));
    m_draftBanner->setFrameShape(QFrame::StyledPanel);
    auto *l = new QHBoxLayout(m_draftBanner);
    m_draftText = new QLabel(m_draftBanner);
    m_draftText->setWordWrap(true);
    m_draftText->setTextFormat(Qt::PlainText);
    auto *restore = new QPushButton(tr("Restore"), m_draftBanner);
    restore->setObjectName(QStringLiteral("restoreDraftButton"));
    auto *discard = new QPushButton(tr("Discard"), m_draftBanner);
    discard->setObjectName(QStringLiteral("discardDraftButton"));
    connect(restore, &QPushButton::clicked, this, [this] {
        m_draftBanner->hide();
        Q_EMIT restoreDraftRequested();
    });
    connect(discard, &QPushButton::clicked, this, [this] {
        m_draftBanner->hide();
        Q_EMIT discardDraftRequested();
    });
    l->addWidget(m_draftText, 1);
    l->addWidget(restore);
    l->addWidget(discard);
    m_draftBanner->hide();
    return m_draftBanner;
}

void EditorWindow::setDraftsKeptOnDisk(bool kept, const QString &why)
{
    m_draftNote->setText(kept ? QString() : why);
    m_draftNote->setVisible(!kept);
}

void EditorWindow::showDraftProblem(const QString &message)
{
    m_draftProblem->setText(message);
    m_draftProblem->setVisible(!message.isEmpty());
}

QString EditorWindow::draftProblem() const
{
    return m_draftProblem->isHidden() ? QString() : m_draftProblem->text();
}

QString EditorWindow::draftNote() const
{
    return m_draftNote->isHidden() ? QString() : m_draftNote->text();
}

void EditorWindow::offerDraft(const QString &savedAt, const QString &basedOnRv)
{
    m_draftText->setText(tr("Edits you had not written were kept when Fieldscope last closed (saved %1, based on "
                            "resourceVersion %2). Restore them?")
                             .arg(savedAt, basedOnRv));
    m_draftBanner->show();
}

bool EditorWindow::draftOffered() const
{
    return !m_draftBanner->isHidden();
}

void EditorWindow::restoreDraft(const QString &openedYaml, const QString &openedRv, const QString &text)
{
    m_draftBanner->hide();
    setOpened(openedYaml, openedRv);
    m_buffer->setText(text);
    setResult(State::Editing, tr("Restored your unsent edits, based on resourceVersion %1.").arg(openedRv), NoPage);
}

void EditorWindow::noteServerVersion(const QString &resourceVersion, bool deleted)
{
    m_serverRv = resourceVersion;
    m_serverDeleted = deleted;
    updateServerBanner();
}

void EditorWindow::updateServerBanner()
{
    // While a write is in flight its own version may arrive before its answer: not someone else's.
    const bool settled = m_state != State::Loading && m_state != State::Sending && m_state != State::Detached;
    const bool changed = m_serverDeleted || (!m_serverRv.isEmpty() && m_serverRv != m_openedRv);
    m_serverBanner->setVisible(settled && changed);
    m_bannerRebase->setVisible(!m_serverDeleted);
    if (m_serverDeleted)
        m_serverText->setText(
            tr("This object was deleted on the server after you opened it. Apply would create it again; "
               "the other write modes will fail."));
    else
        m_serverText->setText(
            tr("Changed on the server after you opened it: now at resourceVersion %1 (you opened %2). "
               "Replace would be refused; Apply, Merge patch and JSON Patch send only your changes.")
                .arg(m_serverRv, m_openedRv));
}

void EditorWindow::updateHeader()
{
    m_header->setText(m_openedRv.isEmpty()
                          ? visibleText(m_title)
                          : tr("%1 · based on resourceVersion %2").arg(visibleText(m_title), visibleText(m_openedRv)));
}

void EditorWindow::updateModeControls()
{
    const bool apply = WriteMode(m_mode->currentData().toInt()) == WriteMode::Apply;
    m_force->setEnabled(apply);
}

QString EditorWindow::bufferText() const
{
    return m_buffer->text();
}

void EditorWindow::setBufferText(const QString &yaml)
{
    m_buffer->setText(yaml);
}

WriteRequest EditorWindow::currentRequest(bool dryRun) const
{
    WriteRequest r;
    r.mode = WriteMode(m_mode->currentData().toInt());
    r.text = bufferText();
    r.fieldManager = m_manager->text().trimmed();
    r.force = r.mode == WriteMode::Apply && m_force->isChecked();
    r.dryRun = dryRun;
    return r;
}

void EditorWindow::request(const WriteRequest &r)
{
    m_lastRequest = r; // what Force and Give up send again
    Q_EMIT writeRequested(r);
}

QString EditorWindow::resultText() const
{
    return m_result->text();
}

void EditorWindow::setResult(State state, const QString &text, int page)
{
    m_state = state;
    m_result->setText(text);
    colourResult();
    m_details->setCurrentIndex(page);
    updateServerBanner();
    const bool busy = state == State::Sending || state == State::Loading || state == State::Detached;
    m_preview->setEnabled(!busy);
    m_copyAs->setEnabled(!busy);
    m_dryRun->setEnabled(!busy && !isReadOnly());
    m_write->setEnabled(!busy && !isReadOnly());
    if (page == ThreeWayPage || page == ConflictPage)
        m_split->setSizes({page == ThreeWayPage ? 260 : 380, page == ThreeWayPage ? 440 : 300});
    else if (page == MessagePage && m_split->sizes().value(1) < 240)
        m_split->setSizes({m_split->height() - 260, 260});
}

void EditorWindow::setSending(bool dryRun)
{
    m_sendingText = bufferText();
    m_buffer->clearAnnotations();
    setResult(State::Sending, dryRun ? tr("Dry run: sending…") : tr("Writing…"), NoPage);
}

void EditorWindow::showLineNotes(const QList<QPair<int, QString>> &notes)
{
    m_buffer->clearAnnotations();
    if (notes.isEmpty())
        return;
    // Amber, like the Invalid result line: the server's words, not ours.
    static const QsciStyle noteStyle(-1, QStringLiteral("server note"), QColor(0x5c, 0x3b, 0x00),
                                     QColor(0xff, 0xf1, 0xcc), m_buffer->font());
    m_buffer->setAnnotationDisplay(QsciScintilla::AnnotationBoxed);
    QMap<int, QStringList> byLine;
    for (const auto &[line, text] : notes)
        if (line >= 1 && line <= m_buffer->lines())
            byLine[line - 1] << visibleText(text, false);
    for (auto it = byLine.cbegin(); it != byLine.cend(); ++it)
        m_buffer->annotate(it.key(), it.value().join(u'\n'), noteStyle);
    if (!byLine.isEmpty())
        m_buffer->ensureLineVisible(byLine.firstKey());
}

QString EditorWindow::lineNote(int line) const
{
    return line >= 1 ? m_buffer->annotation(line - 1) : QString();
}

void EditorWindow::showParseError(const QString &where, const QString &message)
{
    const QString at = where.isEmpty() ? QString() : where + QStringLiteral(": ");
    setResult(State::ParseError, tr("The YAML does not parse, nothing was sent. %1%2").arg(at, message), NoPage);
}

void EditorWindow::showWritten(bool dryRun, const QString &resourceVersion, const QStringList &warnings,
                               const QStringList &ownership, const QStringList &changes)
{
    const QString text = dryRun ? tr("Dry run passed: the server accepts this write (nothing was stored).")
                                : tr("Written: the object is now at resourceVersion %1.").arg(resourceVersion);
    if (!dryRun) {
        takeWrittenVersion();
        Q_EMIT writeFinished();
    }
    if (warnings.isEmpty() && ownership.isEmpty() && changes.isEmpty()) {
        setResult(State::Written, text, NoPage);
        return;
    }
    QStringList parts;
    if (!ownership.isEmpty()) // from managedFields before and after; for a dry run, the preview
        parts << (dryRun ? tr("Ownership if you write this:\n") : tr("Ownership:\n")) + ownership.join(u'\n');
    if (!changes.isEmpty())
        parts << (dryRun ? tr("The object if you write this (live vs. the dry run's answer):\n")
                         : tr("The object changed:\n"))
                     + changes.join(u'\n');
    if (!warnings.isEmpty())
        parts << tr("Warnings:\n") + warnings.join(u'\n');
    m_messages->setPlainText(visibleText(parts.join(QStringLiteral("\n\n")), true));
    setResult(State::Written, text, MessagePage);
}

void EditorWindow::showConflicts(const QString &message, const QList<ConflictRow> &rows)
{
    m_conflictPanel->setRows(rows);
    setResult(State::Conflict,
              (rows.size() == 1
                   ? tr("Conflict: a field of your apply is owned by another manager with a different value. "
                        "Nothing was written.")
                   : tr("Conflict: %1 fields of your apply are owned by other managers with different values. "
                        "Nothing was written.")
                         .arg(rows.size()))
                  + u'\n' + message,
              ConflictPage);
}

void EditorWindow::showStale(const QString &message, const QString &opened, const QString &written,
                             const QString &current, const QString &currentResourceVersion)
{
    showThreeWay(opened, written, current, currentResourceVersion);
    setResult(State::Stale, tr("Stale write: the object changed since resourceVersion %1. ").arg(m_openedRv) + message,
              ThreeWayPage);
}

void EditorWindow::showPreconditionFailed(const QStringList &changed, const QString &opened, const QString &written,
                                          const QString &current, const QString &currentResourceVersion)
{
    showThreeWay(opened, written, current, currentResourceVersion);
    setResult(
        State::Stale,
        (changed.size() == 1
             ? tr("Precondition failed, nothing was written: a field you changed no longer has the value you opened.")
             : tr("Precondition failed, nothing was written: %1 fields you changed no longer have the values you opened.")
                   .arg(changed.size()))
            + u'\n' + changed.join(u'\n'),
        ThreeWayPage);
}

void EditorWindow::showThreeWay(const QString &opened, const QString &written, const QString &current,
                                const QString &currentResourceVersion)
{
    m_threeWay->setVersions(opened, written, current, currentResourceVersion);
}

void EditorWindow::showInvalid(const QString &message, const QList<CauseRow> &causes)
{
    QString text;
    for (const CauseRow &c : causes)
        text += QStringLiteral("%1  %2: %3\n").arg(c.field.isEmpty() ? tr("(object)") : c.field, c.reason, c.message);
    m_messages->setPlainText(text);
    setResult(State::Invalid, tr("The server rejected the object, nothing was written: %1").arg(message), MessagePage);
}

void EditorWindow::showRebased()
{
    setResult(State::Editing,
              tr("Now based on resourceVersion %1, what is there now. Your buffer is unchanged: carry "
                 "over the changes you want to keep, then write again.")
                  .arg(m_openedRv),
              NoPage);
}

void EditorWindow::showPreview(const QString &requestText, const QStringList &notes)
{
    m_messages->setPlainText(notes.isEmpty() ? requestText : notes.join(u'\n') + QStringLiteral("\n\n") + requestText);
    setResult(State::Editing, tr("What Write would send now (nothing was sent):"), MessagePage);
}

void EditorWindow::showFailure(const QString &message)
{
    setResult(State::Failed, tr("The write failed: %1").arg(message), NoPage);
}

// After a write the buffer shows what the server stored (setOpened() has it), including changes
// others made to fields the write did not touch: left as typed, the next replace or patch would
// carry the old values of those fields and undo the other writers' work. Edits typed while the
// write was in flight are the user's and stay.
void EditorWindow::takeWrittenVersion()
{
    if (bufferText() != m_sendingText) {
        m_savedText = m_sendingText;
        return;
    }
    int line = 0, index = 0;
    m_buffer->getCursorPosition(&line, &index);
    const int firstLine = m_buffer->firstVisibleLine();
    m_buffer->setText(m_openedYaml);
    m_buffer->setFirstVisibleLine(firstLine);
    m_buffer->setCursorPosition(line, index);
    m_savedText = m_openedYaml;
}

void EditorWindow::colourResult()
{
    const bool bad = m_state == State::ParseError || m_state == State::Conflict || m_state == State::Stale
                  || m_state == State::Invalid || m_state == State::Failed || m_state == State::Detached;
    const EditorColors c = EditorColors::of(palette());
    m_result->setStyleSheet(bad ? QStringLiteral("color: %1; font-weight: bold").arg(c.bad.name())
                            : m_state == State::Written
                                ? QStringLiteral("color: %1; font-weight: bold").arg(c.good.name())
                                : QString());
}

void EditorWindow::changeEvent(QEvent *event)
{
    QWidget::changeEvent(event);
    if (event->type() != QEvent::PaletteChange)
        return;
    colourMarkers(m_buffer, palette()); // the window's: its children may not have theirs yet
    m_threeWay->recolour(palette());
    colourResult();
    tintBanner();
}

void EditorWindow::detach(const QString &why)
{
    m_mode->setEnabled(false);
    m_force->setEnabled(false);
    m_manager->setEnabled(false);
    setResult(State::Detached, why, NoPage);
}

bool EditorWindow::hasUnsentEdits() const
{
    return m_state != State::Loading && bufferText() != m_savedText;
}

bool EditorWindow::confirmDiscard()
{
    if (!hasUnsentEdits())
        return true;
    return askToDiscardEdits(this, "discardEditsBox",
                             tr("Your edits to %1 were not written. Close the editor and lose them?").arg(m_title),
                             tr("Discard edits"));
}

bool askToDiscardEdits(QWidget *parent, const char *objectName, const QString &text, const QString &discardLabel)
{
    QMessageBox box(QMessageBox::Warning, EditorWindow::tr("Unsent edits"), visibleText(text, true),
                    QMessageBox::NoButton, parent);
    box.setTextFormat(Qt::PlainText); // the text names the object
    box.setObjectName(QString::fromLatin1(objectName));
    QPushButton *keep = box.addButton(EditorWindow::tr("Keep editing"), QMessageBox::RejectRole);
    QPushButton *discard = box.addButton(discardLabel, QMessageBox::DestructiveRole);
    discard->setObjectName(QStringLiteral("discardButton"));
    box.setDefaultButton(keep);
    box.setEscapeButton(keep);
    box.exec();
    return box.clickedButton() == discard;
}

void EditorWindow::closeEvent(QCloseEvent *event)
{
    if (!confirmDiscard()) {
        event->ignore();
        return;
    }
    event->accept();
    Q_EMIT draftNotNeeded();
}

} // namespace fieldscope::widgets
