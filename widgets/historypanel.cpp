#include "widgets/historypanel.h"

#include "core/base/boundary.h"
#include "core/base/json.h"
#include "core/base/jsonread.h"
#include "core/base/visibletext.h"
#include "core/diff/objectdiff.h"
#include "core/diff/yamldiff.h"
#include "core/yaml/yaml.h"
#include "models/objecthistorymodel.h"
#include "widgets/palette.h"
#include "widgets/plaintable.h"
#include "widgets/plaintext.h"

#include <QCheckBox>
#include <QCoreApplication>
#include <QEvent>
#include <QFutureWatcher>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QMenu>
#include <QPushButton>
#include <QSettings>
#include <QSplitter>
#include <QTableView>
#include <QTextBrowser>
#include <QToolButton>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>

namespace fieldscope::widgets {

namespace {

QString tr_(const char *text, int n = -1)
{
    return QCoreApplication::translate("HistoryPanel", text, nullptr, n);
}

struct Colors {
    QString add, del, addStrong, delStrong, muted;
    static Colors of(const QPalette &p)
    {
        if (isDarkPalette(p))
            return {QStringLiteral("#1b4d2a"), QStringLiteral("#5c1f24"), QStringLiteral("#2f7a45"),
                    QStringLiteral("#8c2f37"), QStringLiteral("#9a9a9a")};
        return {QStringLiteral("#e3f6e8"), QStringLiteral("#fbe6e8"), QStringLiteral("#a6e3b6"),
                QStringLiteral("#f3b3b9"), QStringLiteral("#707070")};
    }
};

QString esc(std::string_view s)
{
    return richEscaped(QString::fromUtf8(s.data(), qsizetype(s.size())));
}

// A line with its changed byte ranges (UTF-8, code-point aligned) on a stronger background.
QString highlighted(const std::string &text, const std::vector<core::TextRange> &ranges, const QString &strong)
{
    QString out;
    int at = 0;
    for (const auto &r : ranges) {
        if (r.start < at || r.start + r.length > int(text.size()))
            continue;
        out += esc(std::string_view(text).substr(std::size_t(at), std::size_t(r.start - at)));
        out += QStringLiteral("<span style=\"background:%1\">%2</span>")
                   .arg(strong, esc(std::string_view(text).substr(std::size_t(r.start), std::size_t(r.length))));
        at = r.start + r.length;
    }
    return out + esc(std::string_view(text).substr(std::size_t(at)));
}

QString cell(int line, const QString &html, const QString &bg)
{
    const QString number = line > 0 ? QString::number(line) : QString();
    return QStringLiteral(
               "<td style=\"color:gray\" align=\"right\">%1</td><td style=\"background:%2\"><pre style=\"margin:0\">%3</pre></td>")
        .arg(number, bg, html.isEmpty() ? QStringLiteral(" ") : html);
}

QString sideBySide(const core::YamlDiff &d, const Colors &c)
{
    QString html = QStringLiteral("<table width=\"100%\" cellspacing=\"0\" cellpadding=\"1\">");
    for (const auto &r : d.rows) {
        using K = core::YamlDiffRow::Kind;
        QString left, right;
        switch (r.kind) {
        case K::Same:
            left = cell(r.leftLine, esc(r.left), QStringLiteral("transparent"));
            right = cell(r.rightLine, esc(r.right), QStringLiteral("transparent"));
            break;
        case K::Added:
            left = cell(0, {}, QStringLiteral("transparent"));
            right = cell(r.rightLine, esc(r.right), c.add);
            break;
        case K::Removed:
            left = cell(r.leftLine, esc(r.left), c.del);
            right = cell(0, {}, QStringLiteral("transparent"));
            break;
        case K::Changed:
            left = cell(r.leftLine, highlighted(r.left, r.leftRanges, c.delStrong), c.del);
            right = cell(r.rightLine, highlighted(r.right, r.rightRanges, c.addStrong), c.add);
            break;
        case K::Folded:
            html += QStringLiteral("<tr><td></td><td colspan=\"3\" style=\"color:%1\">⋯ %2</td></tr>")
                        .arg(c.muted, tr_("%n unchanged lines", r.foldedLines));
            continue;
        }
        html += QStringLiteral("<tr>") + left + right + QStringLiteral("</tr>");
    }
    return html + QStringLiteral("</table>");
}

QString compact(const core::Json &v)
{
    std::string s = core::safeDump(v);
    if (s.size() > 80)
        s = s.substr(0, 77) + "...";
    return esc(s);
}

// The structural change list: path in the server's syntax, old and new value.
QString changeList(const std::vector<core::FieldChange> &changes, const Colors &c)
{
    if (changes.empty())
        return QStringLiteral("<p style=\"color:%1\">%2</p>").arg(c.muted, tr_("No change in the fields shown."));
    QString html = QStringLiteral("<table cellspacing=\"0\" cellpadding=\"2\">");
    const std::size_t shown = std::min<std::size_t>(changes.size(), 40);
    for (std::size_t i = 0; i < shown; ++i) {
        const auto &ch = changes[i];
        const QString kind = QString::fromLatin1(core::fieldChangeKindName(ch.kind));
        QString values;
        if (ch.kind == core::FieldChange::Kind::Changed)
            values = compact(ch.oldValue) + QStringLiteral(" → ") + compact(ch.newValue);
        else
            values = compact(ch.kind == core::FieldChange::Kind::Added ? ch.newValue : ch.oldValue);
        html += QStringLiteral("<tr><td style=\"color:%1\">%2</td><td><tt>%3</tt></td><td><tt>%4</tt></td></tr>")
                    .arg(c.muted, kind, esc(ch.path.toString()), values);
    }
    if (changes.size() > shown)
        html += QStringLiteral("<tr><td></td><td colspan=\"2\">%1</td></tr>")
                    .arg(tr_("and %n more", int(changes.size() - shown)));
    return html + QStringLiteral("</table>");
}

struct VersionKey {
    std::int64_t objectId = 0, seq = 0;
    bool valid = false;
};

struct DiffRequest {
    std::shared_ptr<models::HistoryVersions> versions;
    VersionKey before, after;
    QString beforeRv, afterRv;
    core::DiffOptions filters;
    Colors colors;
};

QString errorHtml(const core::Error &e)
{
    return QStringLiteral("<p>%1</p>").arg(richEscaped(QString::fromStdString(e.describe())));
}

// One version's object, read (or taken from the cache) and parsed on the worker.
core::Result<core::Json> versionObject(models::HistoryVersions &versions, const VersionKey &key)
{
    auto bytes = versions.json(key.objectId, key.seq);
    if (!bytes)
        return bytes.error();
    return core::parseJson(std::string_view(bytes->constData(), std::size_t(bytes->size())));
}

// Runs on a worker thread: reading the two versions, parsing, diffing and rendering.
QString renderDiff(const DiffRequest &r)
{
    if (!r.versions)
        return {};
    auto b = versionObject(*r.versions, r.after);
    if (!b)
        return errorHtml(b.error());
    if (!r.before.valid) { // the first version: the whole object, nothing to compare with
        const std::string text = core::jsonToYaml(core::applyNoiseFilters(*b, r.filters));
        // Escaped keeping its line breaks: a YAML document is many lines, not one with escapes.
        return QStringLiteral("<p><i>%1</i></p><pre style=\"margin:0\">%2</pre>")
            .arg(tr_("The first recorded version of this object (resourceVersion %1); shown whole.")
                     .arg(richEscaped(r.afterRv)),
                 core::visibleText(QString::fromStdString(text), true).toHtmlEscaped());
    }
    auto a = versionObject(*r.versions, r.before);
    if (!a)
        return errorHtml(a.error());
    const core::Json old = std::move(*a);
    core::YamlDiffOptions opts;
    opts.filters = r.filters;
    opts.contextLines = 3;
    const auto changes = core::diffObjects(old, *b, r.filters);
    const QString title = QStringLiteral("<p><b>%1</b></p>")
                              .arg(tr_("resourceVersion %1 → %2").arg(richEscaped(r.beforeRv), richEscaped(r.afterRv)));
    if (changes.empty()) // nothing to lay side by side: only folded unchanged lines
        return title + changeList(changes, r.colors);
    return title + changeList(changes, r.colors) + sideBySide(core::diffYaml(old, *b, opts), r.colors);
}

} // namespace

HistoryPanel::HistoryPanel(QWidget *parent) : QWidget(parent), m_timelineModel(new models::FieldTimelineModel(this))
{
    setObjectName(QStringLiteral("historyTab"));
    auto *outer = new QVBoxLayout(this);
    outer->setContentsMargins(0, 0, 0, 0);
    auto *vertical = new QSplitter(Qt::Vertical, this);
    auto *split = new QSplitter(Qt::Horizontal, vertical);
    // The versions, with the filter by person above them (it filters this list, not the diff).
    auto *left = new QWidget(split);
    auto *leftLayout = new QVBoxLayout(left);
    leftLayout->setContentsMargins(0, 0, 0, 0);
    leftLayout->addWidget(buildWhoFilter());
    m_versions = plainTable(left, "historyTable");
    leftLayout->addWidget(m_versions, 1);
    // Under the versions, on a row of its own: beside the Who filter it made the tab (and the
    // window) wider than an 800-pixel screenshot.
    auto *actions = new QHBoxLayout;
    actions->setContentsMargins(4, 0, 4, 0);
    m_revertButton = buildRevertButton(left);
    actions->addWidget(m_revertButton);
    actions->addStretch(1);
    leftLayout->addLayout(actions);
    setFocusProxy(m_versions); // Enter on an object in the table lands in its list of versions
    m_versions->setSelectionMode(QAbstractItemView::ExtendedSelection);
    m_versions->setToolTip(tr("↑/↓ step through versions; Ctrl+click a second version to compare any two."));
    auto *right = new QWidget(split);
    auto *rightLayout = new QVBoxLayout(right);
    rightLayout->setContentsMargins(0, 0, 0, 0);
    rightLayout->addWidget(buildFilters());
    m_diff = new QTextBrowser(right);
    m_diff->setObjectName(QStringLiteral("historyDiff"));
    m_diff->setLineWrapMode(QTextEdit::NoWrap); // YAML side by side reads in columns: scroll, never wrap
    m_diff->setPlaceholderText(tr("Select a version to see what changed from the one before."));
    rightLayout->addWidget(m_diff, 1);
    split->setStretchFactor(1, 1);
    split->setSizes({580, 560});

    m_timelineBox = new QWidget(vertical);
    auto *tl = new QVBoxLayout(m_timelineBox);
    tl->setContentsMargins(0, 0, 0, 0);
    m_timelineTitle = new QLabel(m_timelineBox);
    m_timelineTitle->setObjectName(QStringLiteral("fieldTimelineTitle"));
    m_timeline = plainTable(m_timelineBox, "fieldTimeline");
    m_timeline->setModel(m_timelineModel);
    m_timeline->horizontalHeader()->resizeSection(models::FieldTimelineModel::ResourceVersionColumn, 120);
    m_timeline->horizontalHeader()->resizeSection(models::FieldTimelineModel::ObservedColumn, 180);
    m_timeline->horizontalHeader()->resizeSection(models::FieldTimelineModel::ValueColumn, 260);
    tl->addWidget(m_timelineTitle);
    tl->addWidget(m_timeline, 1);
    m_timelineBox->hide();
    vertical->setStretchFactor(0, 3);
    vertical->setStretchFactor(1, 1);
    outer->addWidget(vertical);
}

HistoryPanel::~HistoryPanel() = default;

QWidget *HistoryPanel::buildFilters()
{
    auto *bar = new QWidget(this);
    auto *row = new QHBoxLayout(bar);
    row->setContentsMargins(4, 0, 4, 0);
    row->addWidget(new QLabel(tr("Hide:"), bar));
    const core::DiffOptions defaults;
    QSettings settings;
    auto box = [&](const QString &label, const char *key, bool fallback) {
        auto *b = new QCheckBox(label, bar);
        b->setObjectName(QLatin1String("hide") + QLatin1String(key));
        b->setChecked(settings.value(QLatin1String("history/hide") + QLatin1String(key), fallback).toBool());
        connect(b, &QCheckBox::toggled, this, [this, key](bool on) {
            QSettings().setValue(QLatin1String("history/hide") + QLatin1String(key), on);
            showDiff();
        });
        row->addWidget(b);
        return b;
    };
    m_hideManagedFields = box(QStringLiteral("managedFields"), "ManagedFields", defaults.hideManagedFields);
    m_hideResourceVersion = box(QStringLiteral("resourceVersion"), "ResourceVersion", defaults.hideResourceVersion);
    m_hideGeneration = box(QStringLiteral("generation"), "Generation", defaults.hideGeneration);
    m_hideStatus = box(QStringLiteral("status"), "Status", defaults.hideStatus);
    row->addStretch(1);
    return bar;
}

// History into action: the editor opens with the write that puts the fields back, tested against
// the live values (docs/editing.md, "Reverting"); nothing is sent from here. One small button with
// a menu: the tab must still fit beside the table in a 1000-pixel window.
QToolButton *HistoryPanel::buildRevertButton(QWidget *bar)
{
    auto *button = new QToolButton(bar);
    button->setObjectName(QStringLiteral("revertMenuButton"));
    button->setText(tr("Revert"));
    button->setPopupMode(QToolButton::InstantPopup);
    button->setToolTip(tr("Put the selected version's fields back, or undo the change it made: the editor opens "
                          "with the write for you to review and send."));
    auto *menu = new QMenu(button);
    m_revert = menu->addAction(tr("Revert to this version…"));
    m_revert->setObjectName(QStringLiteral("revertToVersion"));
    m_revert->setToolTip(tr("Open the editor with the fields of the selected version put back, as a write "
                            "you review and send (JSON Patch testing every value it replaces)."));
    m_undo = menu->addAction(tr("Undo this change…"));
    m_undo->setObjectName(QStringLiteral("undoChange"));
    menu->setToolTipsVisible(true);
    button->setMenu(menu);
    m_revert->setEnabled(false);
    m_undo->setEnabled(false);
    button->setEnabled(false);
    connect(m_revert, &QAction::triggered, this, [this] { requestRevert(false); });
    connect(m_undo, &QAction::triggered, this, [this] { requestRevert(true); });
    return button;
}

QWidget *HistoryPanel::buildWhoFilter()
{
    auto *bar = new QWidget(this);
    auto *row = new QHBoxLayout(bar);
    row->setContentsMargins(4, 0, 4, 0);
    row->addWidget(new QLabel(tr("Who:"), bar));
    m_whoFilter = new QLineEdit(bar);
    m_whoFilter->setObjectName(QStringLiteral("whoFilter"));
    m_whoFilter->setPlaceholderText(tr("filter by person"));
    m_whoFilter->setClearButtonEnabled(true);
    m_whoFilter->setToolTip(tr("Show only the versions and refused writes of people whose name contains this "
                               "(from the API server's audit events)."));
    connect(m_whoFilter, &QLineEdit::textChanged, this, &HistoryPanel::applyWhoFilter);
    row->addWidget(m_whoFilter);
    // A store can hold far more versions of one object than a list can show at once: the newest
    // are listed, the older ones come on request.
    m_showOlder = new QPushButton(bar);
    m_showOlder->setObjectName(QStringLiteral("showOlderVersions"));
    m_showOlder->setVisible(false);
    connect(m_showOlder, &QPushButton::clicked, this, [this] {
        if (m_model)
            m_model->requestOlder();
    });
    row->addWidget(m_showOlder);
    return bar;
}

void HistoryPanel::showOlderCount(qint64 count)
{
    m_showOlder->setVisible(count > 0);
    m_showOlder->setText(tr("Show older versions (%1 not listed)").arg(QLocale().toString(count)));
}

void HistoryPanel::setModel(models::ObjectHistoryModel *model)
{
    if (m_model)
        disconnect(m_model, nullptr, this, nullptr);
    m_model = model;
    m_versions->setModel(model);
    showOlderCount(model ? model->olderNotShown() : 0);
    updateRevertButtons();
    if (!model)
        return;
    connect(model, &models::ObjectHistoryModel::olderNotShownChanged, this, &HistoryPanel::showOlderCount);
    m_versions->horizontalHeader()->resizeSection(models::ObjectHistoryModel::ResourceVersionColumn, 80);
    m_versions->horizontalHeader()->resizeSection(models::ObjectHistoryModel::EventColumn, 95);
    m_versions->horizontalHeader()->resizeSection(models::ObjectHistoryModel::ChangedByColumn, 210);
    m_versions->horizontalHeader()->resizeSection(models::ObjectHistoryModel::WhoColumn, 130);
    m_versions->horizontalHeader()->resizeSection(models::ObjectHistoryModel::ChangesColumn, 120);
    connect(m_versions->selectionModel(), &QItemSelectionModel::selectionChanged, this, &HistoryPanel::showDiff);
    connect(m_versions->selectionModel(), &QItemSelectionModel::currentRowChanged, this, &HistoryPanel::showDiff);
    // A new object's list selects its newest version (a gap on top says nothing to diff); new
    // versions on top refresh the timeline.
    connect(model, &QAbstractItemModel::modelReset, this, [this] {
        if (m_model->rowCount() > 0)
            m_versions->selectRow(newestVersionRow());
        else
            m_diff->clear();
        refreshTimeline();
    });
    // Reading the newest version means following new ones as they arrive; any other selection
    // (an older version, a chosen pair) stays where the user put it.
    connect(model, &QAbstractItemModel::rowsAboutToBeInserted, this, [this] {
        m_followNewest = m_versions->currentIndex().row() == newestVersionRow()
                      && m_versions->selectionModel()->selectedRows().size() <= 1;
    });
    connect(model, &QAbstractItemModel::rowsInserted, this, [this] {
        if (m_followNewest)
            m_versions->selectRow(newestVersionRow());
        refreshTimeline();
    });
    connect(model, &models::ObjectHistoryModel::messageChanged, this, &HistoryPanel::onMessage);
    connect(model, &QAbstractItemModel::modelReset, this, &HistoryPanel::applyWhoFilter);
    connect(model, &QAbstractItemModel::layoutChanged, this, &HistoryPanel::applyWhoFilter);
    connect(model, &QAbstractItemModel::rowsInserted, this, &HistoryPanel::applyWhoFilter);
    connect(model, &QAbstractItemModel::dataChanged, this, &HistoryPanel::applyWhoFilter);
    applyWhoFilter();
    // After the newest version was selected above: a version asked for wins.
    connect(model, &QAbstractItemModel::modelReset, this, &HistoryPanel::selectWantedVersion);
    connect(model, &QAbstractItemModel::rowsInserted, this, &HistoryPanel::selectWantedVersion);
}

void HistoryPanel::selectVersion(const QString &uid, const QString &resourceVersion)
{
    m_wantedUid = uid;
    m_wantedVersion = resourceVersion;
    selectWantedVersion();
}

// The list of the object asked about is either shown or still loading (empty): loads of other
// objects were dropped when it was asked for. So the first list with rows decides.
void HistoryPanel::selectWantedVersion()
{
    if (m_wantedVersion.isEmpty() || !m_model || m_model->rowCount() == 0)
        return;
    const std::string uid = m_wantedUid.toStdString(), rv = m_wantedVersion.toStdString();
    m_wantedVersion.clear();
    for (int r = 0; r < m_model->rowCount(); ++r) {
        const models::HistoryRow *row = m_model->rowAt(r);
        if (row && row->kind == core::HistoryEntry::Kind::Version && row->uid == uid && row->resourceVersion == rv) {
            m_versions->setRowHidden(r, false); // the Who filter may hide it
            m_versions->selectRow(r);
            m_versions->scrollTo(m_model->index(r, 0));
            return;
        }
    }
}

void HistoryPanel::applyWhoFilter()
{
    if (!m_model)
        return;
    const QString text = m_whoFilter->text().trimmed();
    if (text.isEmpty() && !m_whoFiltered)
        return; // nothing hidden, nothing to hide: new rows need no pass
    m_whoFiltered = !text.isEmpty();
    for (int r = 0; r < m_model->rowCount(); ++r) {
        const models::HistoryRow *row = m_model->rowAt(r);
        m_versions->setRowHidden(r, !text.isEmpty() && !(row && row->who.contains(text, Qt::CaseInsensitive)));
    }
}

int HistoryPanel::newestVersionRow() const
{
    for (int r = 0; r < m_model->rowCount(); ++r)
        if (m_model->rowAt(r)->kind == core::HistoryEntry::Kind::Version)
            return r;
    return 0;
}

void HistoryPanel::changeEvent(QEvent *event)
{
    QWidget::changeEvent(event);
    if (event->type() == QEvent::PaletteChange)
        showDiff(); // the diff's colours come from the palette
}

void HistoryPanel::onMessage(const QString &message)
{
    m_diff->setPlaceholderText(message.isEmpty() ? tr("Select a version to see what changed from the one before.")
                                                 : message);
}

namespace {

// The version recorded just before `row` (rows oldest first), or null when there is none or the
// recording has a gap or a pruning in between: then the change that version made is not known.
const models::HistoryRow *contiguousPredecessor(const std::vector<models::HistoryRow> &rows,
                                                const models::HistoryRow *row)
{
    if (!row || row->previousVersion < 0 || rows.empty())
        return nullptr;
    const auto at = std::size_t(row - rows.data());
    for (std::size_t i = std::size_t(row->previousVersion) + 1; i < at && i < rows.size(); ++i)
        if (rows[i].kind != core::HistoryEntry::Kind::Version)
            return nullptr;
    return &rows[std::size_t(row->previousVersion)];
}

} // namespace

void HistoryPanel::updateRevertButtons()
{
    const QModelIndex current = m_versions->currentIndex();
    const models::HistoryRow *r = m_model && current.isValid() ? m_model->rowAt(current.row()) : nullptr;
    const bool version = r && r->kind == core::HistoryEntry::Kind::Version && m_model->versions();
    m_revert->setEnabled(version);
    const bool known = version && contiguousPredecessor(m_model->rows(), r);
    m_undo->setEnabled(known);
    m_revertButton->setEnabled(version);
    m_undo->setToolTip(version && !known && r->previousVersion >= 0
                           ? tr("The recording has a gap before this version: the change it made is not known.")
                           : tr("Open the editor with only the change the selected version made undone. Refused "
                                "when someone changed one of those fields since."));
}

// Reads the version (and its predecessor) on a worker; the signal carries them to whoever edits.
void HistoryPanel::requestRevert(bool changeOnly)
{
    const QModelIndex current = m_versions->currentIndex();
    const models::HistoryRow *r = m_model && current.isValid() ? m_model->rowAt(current.row()) : nullptr;
    if (!r || r->kind != core::HistoryEntry::Kind::Version || !m_model->versions())
        return;
    const VersionKey target{r->objectId, r->seq, true};
    VersionKey before;
    if (changeOnly)
        if (const models::HistoryRow *p = contiguousPredecessor(m_model->rows(), r))
            before = {p->objectId, p->seq, true};
    if (changeOnly && !before.valid)
        return;
    RevertRequest request{
        QString::fromStdString(r->uid), QString::fromStdString(r->resourceVersion), {}, {}, changeOnly};
    using Loaded = core::Result<RevertRequest>;
    auto *w = new QFutureWatcher<Loaded>(this);
    connect(w, &QFutureWatcherBase::finished, this, [this, w] {
        w->deleteLater();
        auto loaded = core::takeResult(w->future(), "the recorded version");
        if (!loaded) {
            m_diff->setPlainText(
                tr("Cannot read the recorded version: %1").arg(QString::fromStdString(loaded.error().describe())));
            return;
        }
        Q_EMIT revertRequested(*loaded);
    });
    w->setFuture(QtConcurrent::run([versions = m_model->versions(), target, before, request]() mutable -> Loaded {
        auto t = versions->json(target.objectId, target.seq);
        if (!t)
            return t.error();
        request.target = std::move(*t);
        if (before.valid) {
            auto p = versions->json(before.objectId, before.seq);
            if (!p)
                return p.error();
            request.predecessor = std::move(*p);
        }
        return request;
    }));
}

void HistoryPanel::showDiff()
{
    if (!m_model)
        return;
    updateRevertButtons();
    // Two selected versions: the older against the newer. Otherwise the current row against the
    // version before it.
    QModelIndexList rows = m_versions->selectionModel()->selectedRows();
    std::sort(rows.begin(), rows.end(), [](const QModelIndex &a, const QModelIndex &b) { return a.row() > b.row(); });
    auto keyOf = [](const models::HistoryRow *r) { return r ? VersionKey{r->objectId, r->seq, true} : VersionKey{}; };
    DiffRequest req;
    req.versions = m_model->versions();
    QModelIndex after = m_versions->currentIndex();
    if (rows.size() == 2 && rows[0].data(models::ObjectHistoryModel::IsVersionRole).toBool()
        && rows[1].data(models::ObjectHistoryModel::IsVersionRole).toBool()) {
        after = rows[1];
        req.before = keyOf(m_model->rowAt(rows[0].row()));
        req.beforeRv = rows[0].data(models::ObjectHistoryModel::ResourceVersionRole).toString();
    } else if (after.isValid()) {
        if (const models::HistoryRow *r = m_model->rowAt(after.row()); r && r->previousVersion >= 0) {
            const models::HistoryRow &previous = m_model->rows()[std::size_t(r->previousVersion)];
            req.before = keyOf(&previous);
            req.beforeRv = QString::fromStdString(previous.resourceVersion);
        }
    }
    if (!after.isValid() || !after.data(models::ObjectHistoryModel::IsVersionRole).toBool()) {
        ++m_diffGeneration;
        const models::HistoryRow *r = after.isValid() ? m_model->rowAt(after.row()) : nullptr;
        m_diff->setHtml(r ? QStringLiteral("<p><i>%1</i></p>").arg(richEscaped(r->note)) : QString());
        return;
    }
    req.after = keyOf(m_model->rowAt(after.row()));
    req.afterRv = after.data(models::ObjectHistoryModel::ResourceVersionRole).toString();
    req.filters.hideManagedFields = m_hideManagedFields->isChecked();
    req.filters.hideResourceVersion = m_hideResourceVersion->isChecked();
    req.filters.hideGeneration = m_hideGeneration->isChecked();
    req.filters.hideStatus = m_hideStatus->isChecked();
    req.colors = Colors::of(palette());
    const int gen = ++m_diffGeneration;
    auto *w = new QFutureWatcher<QString>(this);
    connect(w, &QFutureWatcherBase::finished, this, [this, w, gen] {
        w->deleteLater();
        if (gen != m_diffGeneration)
            return;
        const auto html = core::takeResult(w->future(), "the history diff");
        if (html)
            m_diff->setHtml(*html);
        else
            m_diff->setPlainText(
                tr("Cannot show the difference: %1").arg(QString::fromStdString(html.error().message)));
    });
    w->setFuture(QtConcurrent::run([req] {
        try { // a version too large to hold (bad_alloc) is a message in the pane, not a crash
            return renderDiff(req);
        } catch (const std::exception &e) {
            return QStringLiteral("<p>%1</p>").arg(richEscaped(QString::fromUtf8(e.what())));
        }
    }));
}

void HistoryPanel::setField(const QString &uid, const core::FieldPath &path)
{
    m_fieldUid = uid;
    m_field = path;
    refreshTimeline();
}

void HistoryPanel::refreshTimeline()
{
    const int gen = ++m_timelineGeneration;
    if (!m_model || m_field.isEmpty() || m_fieldUid.isEmpty()) {
        m_timelineBox->hide();
        return;
    }
    const QString pathText = QString::fromStdString(m_field.toString());
    const auto versions = m_model->versions();
    if (!versions) {
        m_timelineBox->hide();
        return;
    }
    using TimelineResult = core::Result<std::vector<models::FieldTimelineRow>>;
    auto *w = new QFutureWatcher<TimelineResult>(this);
    connect(w, &QFutureWatcherBase::finished, this, [this, w, gen, pathText] {
        w->deleteLater();
        if (gen != m_timelineGeneration)
            return;
        auto taken = core::takeResult(w->future(), "the field timeline");
        if (!taken) {
            m_timelineTitle->setText(tr("<b>%1</b>: cannot read the recorded versions: %2")
                                         .arg(richEscaped(pathText),
                                              richEscaped(QString::fromStdString(taken.error().describe()))));
            m_timelineModel->setTimeline(pathText, {});
            m_timelineBox->show();
            Q_EMIT timelineShown();
            return;
        }
        auto rows = std::move(*taken);
        m_timelineTitle->setText(
            tr("<b>%1</b> across %n recorded versions: values and owners (bold where they changed)", nullptr,
               int(rows.size()))
                .arg(richEscaped(pathText)));
        m_timelineModel->setTimeline(pathText, std::move(rows));
        m_timelineBox->show();
        Q_EMIT timelineShown();
    });
    // The rows are small (no objects); the versions are read one at a time on the worker.
    w->setFuture(QtConcurrent::run([versions, rows = m_model->rows(), uid = m_fieldUid.toStdString(),
                                    path = m_field]() -> TimelineResult {
        try {
            return models::fieldTimelineRows(*versions, rows, uid, path);
        } catch (const std::exception &e) {
            return core::Error::make(core::ErrorCategory::Io, e.what());
        }
    }));
}

} // namespace fieldscope::widgets
