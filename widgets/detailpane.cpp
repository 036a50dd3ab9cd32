#include "widgets/detailpane.h"

#include "core/base/boundary.h"
#include "core/base/json.h"
#include "core/yaml/yaml.h"
#include "models/managercolors.h"
#include "models/managerlegendmodel.h"
#include "models/objecthistorymodel.h"
#include "models/objecttablemodel.h"
#include "models/ownershiptreemodel.h"
#include "models/roles.h"
#include "widgets/historypanel.h"
#include "widgets/palette.h"
#include "widgets/plaintable.h"
#include "widgets/plaintext.h"
#include "widgets/yamlview.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QEvent>
#include <QFutureWatcher>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QMenu>
#include <QPushButton>
#include <QScopedValueRollback>
#include <QSplitter>
#include <QTabWidget>
#include <QTableView>
#include <QTextBrowser>
#include <QTreeView>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>

#include <iterator>
#include <utility>

namespace fieldscope::widgets {

namespace {

} // namespace

DetailPane::DetailPane(QWidget *parent) : QWidget(parent)
{
    setObjectName(QStringLiteral("detailPane"));
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(2);
    m_header = new QLabel(tr("Select an object to see its fields, owners, history and events."), this);
    m_header->setObjectName(QStringLiteral("detailHeader"));
    m_header->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(m_header);
    m_tabs = new QTabWidget(this);
    m_tabs->setObjectName(QStringLiteral("detailTabs"));
    m_tabs->setDocumentMode(true);
    m_summary = new QTextBrowser(m_tabs);
    m_summary->setObjectName(QStringLiteral("summaryView"));
    m_summary->setOpenLinks(false);
    m_treeModel = new models::OwnershipTreeModel(this);
    m_legendModel = new models::ManagerLegendModel(this);
    m_tabs->addTab(m_summary, tr("Summary"));
    m_tabs->addTab(buildYamlTab(), tr("YAML"));
    m_tabs->addTab(buildOwnershipTab(), tr("Ownership"));
    m_historyPanel = new HistoryPanel(m_tabs);
    connect(m_historyPanel, &HistoryPanel::revertRequested, this, &DetailPane::revertRequested);
    m_tabs->addTab(m_historyPanel, tr("History"));
    m_events = plainTable(m_tabs, "eventsTable");
    m_tabs->addTab(m_events, tr("Events"));
    layout->addWidget(m_tabs, 1);
    showGuide();
}

// Until an object is chosen the pane says what each tab will show and how to get there by
// keyboard, instead of being a large empty area.
void DetailPane::showGuide()
{
    const QString muted = palette().color(QPalette::PlaceholderText).name();
    QString html = QStringLiteral("<div style=\"color:%1\"><p>%2</p><table cellspacing=\"0\" cellpadding=\"3\">")
                       .arg(muted, tr("Choose an object in the table above (↑ ↓, or Ctrl+K to go to one by name). "
                                      "Enter goes into its detail, Esc comes back."));
    const std::pair<QString, QString> tabs[] = {
        {tr("Summary"), tr("what it is, its labels, and every field manager with how many fields it owns")},
        {tr("YAML"), m_editable
                         ? tr("the object with the owner of each line in the gutter; Edit (Ctrl+E) writes it back")
                         : tr("the object with the owner of each line in the gutter")},
        {tr("Ownership"), tr("every field with all its co-owners; click a manager to see only its fields")},
        {tr("History"), tr("every recorded version, who made each change, and a diff of any two")},
        {tr("Events"), tr("the events about it, as they happen")},
    };
    for (int i = 0; i < int(std::size(tabs)); ++i)
        html += QStringLiteral("<tr><td><b>%1</b> (Ctrl+%2)</td><td>%3</td></tr>")
                    .arg(tabs[i].first)
                    .arg(i + 1)
                    .arg(tabs[i].second);
    html +=
        QStringLiteral("</table><p>%1</p>")
            .arg(tr(
                "New here, or teaching? The <b>Lessons</b> menu replays Kubernetes' concurrency experiments live "
                "(conflicting creates, last write wins, resourceVersion locking, server-side apply conflicts), and the "
                "sandbox's <b>demo</b> namespace holds a Deployment with several owners and a ConfigMap with a history."));
    m_summary->setHtml(html + QStringLiteral("</div>"));
}

DetailPane::~DetailPane() = default;

// The read-only YAML with an Edit button above it: editing happens in its own window, so the
// pane keeps following the live object while an edit is in progress.
QWidget *DetailPane::buildYamlTab()
{
    auto *tab = new QWidget(m_tabs);
    auto *l = new QVBoxLayout(tab);
    l->setContentsMargins(0, 0, 0, 0);
    l->setSpacing(2);
    auto *bar = new QHBoxLayout;
    m_edit = new QPushButton(tr("Edit…"), tab);
    m_edit->setObjectName(QStringLiteral("editButton"));
    m_edit->setToolTip(tr("Edit this object in its own window: apply, replace or patch it (Ctrl+E)"));
    m_edit->setEnabled(false);
    m_edit->setVisible(false); // until setEditable()
    connect(m_edit, &QPushButton::clicked, this, &DetailPane::requestEdit);
    bar->addStretch(1);
    bar->addWidget(m_edit);
    l->addLayout(bar);
    m_yaml = new YamlView(tab);
    connect(m_yaml, &QsciScintilla::cursorPositionChanged, this, [this](int line, int) { syncTreeToYaml(line); });
    l->addWidget(m_yaml, 1);
    return tab;
}

void DetailPane::focusCurrentTab()
{
    QWidget *views[] = {m_summary, m_yaml, m_ownershipTree, m_historyPanel, m_events}; // Tab order
    const int i = m_tabs->currentIndex();
    if (i >= 0 && i < int(std::size(views)))
        views[i]->setFocus(Qt::OtherFocusReason);
}

void DetailPane::setEditable(bool editable)
{
    m_editable = editable;
    m_edit->setVisible(editable);
    if (m_uid.isEmpty())
        showGuide();
}

void DetailPane::requestEdit()
{
    if (m_editable && !m_uid.isEmpty() && m_ready)
        Q_EMIT editRequested(m_uid);
}

std::optional<std::string> DetailPane::scalarAt(const QString &pointer) const
{
    const auto id = m_detail.tree.findByJsonPointer(pointer.toStdString());
    if (!id)
        return std::nullopt;
    const core::OwnershipNode &n = m_detail.tree.node(*id);
    if (n.type == core::OwnershipNode::ValueType::Object || n.type == core::OwnershipNode::ValueType::Array
        || !n.isPresent())
        return std::nullopt;
    return core::toJsonText(n.scalar);
}

void DetailPane::requestSetIfUnchanged(const QString &pointer)
{
    if (const auto value = scalarAt(pointer); value && m_editable && m_ready && !m_uid.isEmpty())
        Q_EMIT setIfUnchangedRequested(m_uid, pointer, QString::fromStdString(*value));
}

void DetailPane::setDrift(const core::DriftReport &report)
{
    m_treeModel->setDrift(report);
}

void DetailPane::requestDelete()
{
    if (m_editable && !m_uid.isEmpty() && m_ready)
        Q_EMIT deleteRequested(m_uid);
}

QWidget *DetailPane::buildOwnershipTab()
{
    auto *split = new QSplitter(Qt::Horizontal, m_tabs);
    split->setObjectName(QStringLiteral("ownershipTab"));
    m_legend = plainTable(split, "managerLegend");
    m_legend->setModel(m_legendModel);
    m_legend->setToolTip(tr("Click a manager to show only the fields it owns; click again to show all."));
    m_ownershipTree = new QTreeView(split);
    showPlainText(m_ownershipTree); // managers, values
    m_ownershipTree->setObjectName(QStringLiteral("ownershipTree"));
    m_ownershipTree->setModel(m_treeModel);
    connect(m_ownershipTree->selectionModel(), &QItemSelectionModel::currentChanged, this,
            [this](const QModelIndex &current) {
                syncYamlToTree(current);
                m_historyPanel->setField(m_uid, m_treeModel->pathForIndex(current));
            });
    m_ownershipTree->setUniformRowHeights(true);
    m_ownershipTree->setAlternatingRowColors(true);
    // "Set only if unchanged…": "set foo: 2 only if foo is 1" on one field.
    m_ownershipTree->setContextMenuPolicy(Qt::CustomContextMenu);
    connect(m_ownershipTree, &QWidget::customContextMenuRequested, this, [this](const QPoint &pos) {
        const QString pointer = m_ownershipTree->indexAt(pos).data(models::JsonPointerRole).toString();
        const auto value = scalarAt(pointer);
        if (!m_editable || pointer.isEmpty() || !value)
            return;
        QMenu menu(m_ownershipTree);
        QAction *set = menu.addAction(tr("Set only if unchanged…"));
        set->setToolTip(tr("A JSON Patch that tests the value you see and replaces it: refused if someone changed it"));
        if (menu.exec(m_ownershipTree->viewport()->mapToGlobal(pos)) == set)
            requestSetIfUnchanged(pointer);
    });
    m_ownershipTree->header()->resizeSection(models::OwnershipTreeModel::FieldColumn, 260);
    m_ownershipTree->header()->resizeSection(models::OwnershipTreeModel::ValueColumn, 200);
    m_ownershipTree->header()->resizeSection(models::OwnershipTreeModel::OwnersColumn, 300);
    connect(m_legend, &QTableView::clicked, this, [this](const QModelIndex &i) {
        const int entry = i.data(models::EntryIndexRole).toInt();
        m_treeModel->setEntryFilter(m_treeModel->entryFilter() == entry ? -1 : entry);
        if (m_treeModel->entryFilter() < 0)
            m_legend->clearSelection();
        m_ownershipTree->expandToDepth(2);
    });
    split->setStretchFactor(1, 1);
    split->setSizes({330, 700});
    return split;
}

void DetailPane::setEventsModel(QAbstractItemModel *model)
{
    m_events->setModel(model);
    if (model) {
        m_events->horizontalHeader()->resizeSection(0, 80);
        m_events->horizontalHeader()->resizeSection(1, 150);
        m_events->horizontalHeader()->resizeSection(2, 460);
    }
}

void DetailPane::setHistoryModel(models::ObjectHistoryModel *model)
{
    m_historyPanel->setModel(model);
    if (m_historyModel)
        disconnect(m_historyModel, nullptr, this, nullptr);
    m_historyModel = model;
    updateWriters();
    if (!model)
        return;
    // The legend's "Last written by" follows the history as it loads and grows.
    connect(model, &QAbstractItemModel::modelReset, this, &DetailPane::updateWriters);
    connect(model, &QAbstractItemModel::layoutChanged, this, &DetailPane::updateWriters);
    connect(model, &QAbstractItemModel::rowsInserted, this, &DetailPane::updateWriters);
    connect(model, &QAbstractItemModel::dataChanged, this, &DetailPane::updateWriters);
}

void DetailPane::updateWriters()
{
    m_legendModel->setWriters(m_historyModel && !m_uid.isEmpty() ? m_historyModel->lastWriters(m_uid)
                                                                 : std::map<std::string, std::string>());
}

void DetailPane::showObject(const QString &uid, const QByteArray &json)
{
    const int gen = ++m_generation;
    if (uid.isEmpty()) {
        m_uidSince = gen + 1; // results of earlier requests belong to no shown object
        m_uid.clear();
        m_ready = false;
        m_detail = {};
        m_header->setText(tr("Select an object to see its fields, owners, history and events."));
        showGuide();
        m_yaml->clearDetail();
        m_edit->setEnabled(false);
        m_treeModel->setTree({});
        m_legendModel->setTree({});
        return;
    }
    if (uid != m_uid) {
        m_ready = false;
        m_uidSince = gen;
    }
    m_uid = uid;
    auto *w = new QFutureWatcher<models::ObjectDetail>(this);
    connect(w, &QFutureWatcherBase::finished, this, [this, w, gen] {
        w->deleteLater();
        // Any result newer than the one shown, for the object still shown: an object that changes
        // faster than its detail is built (a rollout) must still reach the screen.
        if (gen >= m_uidSince && gen > m_appliedGeneration) {
            m_appliedGeneration = gen;
            auto detail = core::takeResult(w->future(), "building the object's detail");
            if (detail) {
                apply(std::move(*detail));
            } else {
                models::ObjectDetail failed; // shown the way an object that does not parse is
                failed.error = tr("Cannot show this object: %1").arg(QString::fromStdString(detail.error().message));
                apply(std::move(failed));
            }
        }
    });
    w->setFuture(QtConcurrent::run([json] { return models::buildObjectDetail(json); }));
}

void DetailPane::apply(models::ObjectDetail detail)
{
    m_detail = std::move(detail);
    const QString where = m_detail.namespace_.isEmpty() ? QString() : m_detail.namespace_ + u'/';
    m_header->setText(QStringLiteral("<b>%1</b> %2%3 · resourceVersion %4")
                          .arg(richEscaped(m_detail.kind), richEscaped(where), richEscaped(m_detail.name),
                               richEscaped(m_detail.resourceVersion)));
    renderSummary();
    m_yaml->setDetail(m_detail);
    m_edit->setEnabled(m_detail.error.isEmpty());
    const auto tone = isDarkPalette(palette()) ? models::PaletteTone::Dark : models::PaletteTone::Light;
    m_treeModel->setPaletteTone(tone);
    m_legendModel->setPaletteTone(tone);
    m_treeModel->setTree(m_detail.tree);
    m_legendModel->setTree(m_detail.tree);
    updateWriters();
    if (!m_ownershipTree->model()->hasIndex(0, 0) || !m_ownershipTree->isExpanded(m_treeModel->index(0, 0)))
        m_ownershipTree->expandToDepth(1);
    m_legend->resizeColumnsToContents();
    const bool first = !m_ready;
    m_ready = true;
    if (first)
        Q_EMIT ready();
}

void DetailPane::changeEvent(QEvent *event)
{
    QWidget::changeEvent(event);
    if (event->type() == QEvent::PaletteChange && m_uid.isEmpty())
        showGuide();
    if (event->type() != QEvent::PaletteChange || !m_ready)
        return;
    // Manager colours come in a light and a dark tone: repaint what uses them.
    const auto tone = isDarkPalette(palette()) ? models::PaletteTone::Dark : models::PaletteTone::Light;
    m_treeModel->setPaletteTone(tone);
    m_legendModel->setPaletteTone(tone);
    renderSummary();
    m_yaml->setDetail(m_detail);
}

void DetailPane::renderSummary()
{
    const models::ObjectDetail &d = m_detail;
    if (!d.error.isEmpty()) {
        m_summary->setPlainText(tr("This object could not be read: %1").arg(d.error));
        return;
    }
    const auto tone = isDarkPalette(palette()) ? models::PaletteTone::Dark : models::PaletteTone::Light;
    QString html = QStringLiteral("<table cellspacing=\"0\" cellpadding=\"3\">");
    auto row = [&html](const QString &key, const QString &valueHtml) {
        if (!valueHtml.isEmpty())
            html += QStringLiteral(
                        "<tr><td valign=\"top\" style=\"color:gray; padding-right:16px\">%1</td><td>%2</td></tr>")
                        .arg(richEscaped(key), valueHtml);
    };
    auto list = [](const QStringList &items) {
        QStringList esc;
        for (const QString &s : items)
            esc << richEscaped(s);
        return esc.join(QStringLiteral("<br>"));
    };
    row(tr("Kind"),
        QStringLiteral("%1 <span style=\"color:gray\">%2</span>").arg(richEscaped(d.kind), richEscaped(d.apiVersion)));
    row(tr("Name"), QStringLiteral("<b>%1</b>").arg(richEscaped(d.name)));
    row(tr("Namespace"), richEscaped(d.namespace_));
    const QDateTime created = QDateTime::fromString(d.created, Qt::ISODate);
    if (created.isValid())
        row(tr("Created"), tr("%1 (%2 ago)")
                               .arg(created.toLocalTime().toString(Qt::ISODate),
                                    models::humanAge(created.secsTo(QDateTime::currentDateTimeUtc()))));
    row(tr("Resource version"), richEscaped(d.resourceVersion));
    if (d.generation)
        row(tr("Generation"), QString::number(d.generation));
    row(tr("UID"), QStringLiteral("<tt>%1</tt>").arg(richEscaped(d.uid)));
    row(tr("Labels"), list(d.labels));
    QStringList annotations;
    for (const QString &a : d.annotations)
        annotations << (a.size() > 120 ? a.left(117) + QStringLiteral("…") : a);
    row(tr("Annotations"), list(annotations));
    row(tr("Owned by"), list(d.ownerReferences));
    row(tr("Finalizers"), list(d.finalizers));
    row(tr("Conditions"), list(d.conditions));
    QStringList managers;
    for (std::size_t i = 0; i < d.tree.entries().size(); ++i) {
        const auto &e = d.tree.entries()[i];
        const QColor c = models::managerColor(QString::fromStdString(e.manager), tone);
        managers << QStringLiteral("<span style=\"color:%1\">■</span> %2 <span style=\"color:gray\">%3 · %4</span>")
                        .arg(c.name(), richEscaped(QString::fromStdString(e.label())),
                             tr("%n fields", nullptr, int(d.tree.ownedNodeCount(std::uint32_t(i)))),
                             richEscaped(QString::fromStdString(e.time)));
    }
    row(tr("Field managers"), managers.join(QStringLiteral("<br>")));
    m_summary->setHtml(html + QStringLiteral("</table>"));
}

void DetailPane::setCurrentTab(Tab tab)
{
    m_tabs->setCurrentIndex(int(tab));
}

bool DetailPane::tabFromName(const QString &name, Tab *tab)
{
    static const QStringList names = {QStringLiteral("summary"), QStringLiteral("yaml"), QStringLiteral("ownership"),
                                      QStringLiteral("history"), QStringLiteral("events")};
    const int i = int(names.indexOf(name.toLower()));
    if (i < 0)
        return false;
    *tab = Tab(i);
    return true;
}

bool DetailPane::highlight(const QString &pointer)
{
    const QModelIndex idx = m_treeModel->indexForJsonPointer(pointer);
    const int line = int(m_detail.linePointers.indexOf(pointer)); // QScintilla takes int lines
    if (idx.isValid()) {
        m_ownershipTree->setCurrentIndex(idx);
        m_ownershipTree->scrollTo(idx);
    }
    if (line >= 0) {
        const QScopedValueRollback guard(m_syncing, true);
        m_yaml->setCursorPosition(line, 0);
        m_yaml->ensureLineVisible(line);
        m_yaml->setSelection(line, 0, line, m_yaml->lineLength(line) - 1);
    }
    return idx.isValid() || line >= 0;
}

void DetailPane::syncYamlToTree(const QModelIndex &treeIndex)
{
    if (m_syncing || !treeIndex.isValid())
        return;
    const QString pointer = treeIndex.data(models::JsonPointerRole).toString();
    const int line = int(m_detail.linePointers.indexOf(pointer)); // QScintilla takes int lines
    if (pointer.isEmpty() || line < 0)
        return;
    const QScopedValueRollback guard(m_syncing, true);
    m_yaml->setCursorPosition(line, 0);
    m_yaml->ensureLineVisible(line);
    m_yaml->setSelection(line, 0, line, m_yaml->lineLength(line) - 1);
}

void DetailPane::syncTreeToYaml(int line)
{
    if (m_syncing || line < 0 || line >= m_detail.linePointers.size())
        return;
    const QModelIndex idx = m_treeModel->indexForJsonPointer(m_detail.linePointers.at(line));
    if (!idx.isValid())
        return;
    const QScopedValueRollback guard(m_syncing, true);
    m_ownershipTree->setCurrentIndex(idx);
    m_ownershipTree->scrollTo(idx);
}

} // namespace fieldscope::widgets
