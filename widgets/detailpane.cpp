#include "widgets/detailpane.h"

#include "core/json.h"
#include "core/yaml.h"
#include "core/yamldiff.h"
#include "models/managercolors.h"
#include "models/managerlegendmodel.h"
#include "models/objecthistorymodel.h"
#include "models/objecttablemodel.h"
#include "models/ownershiptreemodel.h"
#include "models/roles.h"
#include "widgets/yamlview.h"

#include <QCoreApplication>
#include <QItemSelectionModel>
#include <QScopedValueRollback>
#include <QTreeView>
#include <QDateTime>
#include <QFutureWatcher>
#include <QHeaderView>
#include <QLabel>
#include <QSplitter>
#include <QTabWidget>
#include <QTableView>
#include <QTextBrowser>
#include <QTreeView>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>

namespace fieldscope::widgets {

namespace {

bool isDark(const QPalette &p)
{
    return p.color(QPalette::Base).lightness() < 128;
}

QTableView *plainTable(QWidget *parent, const char *name)
{
    auto *t = new QTableView(parent);
    t->setObjectName(QString::fromLatin1(name));
    t->setSelectionBehavior(QAbstractItemView::SelectRows);
    t->setSelectionMode(QAbstractItemView::SingleSelection);
    t->setShowGrid(false);
    t->setAlternatingRowColors(true);
    t->setWordWrap(false);
    t->verticalHeader()->hide();
    t->verticalHeader()->setDefaultSectionSize(t->fontMetrics().height() + 8);
    t->horizontalHeader()->setStretchLastSection(true);
    t->horizontalHeader()->setDefaultAlignment(Qt::AlignLeft | Qt::AlignVCenter);
    return t;
}

// The diff of two versions as HTML lines (runs on a worker thread: pure string work).
QString diffHtml(const QByteArray &before, const QByteArray &after, bool dark)
{
    auto a = core::parseJson(std::string_view(before.constData(), std::size_t(before.size())));
    auto b = core::parseJson(std::string_view(after.constData(), std::size_t(after.size())));
    if (!b)
        return QStringLiteral("<p>%1</p>").arg(QString::fromStdString(b.error().describe()).toHtmlEscaped());
    core::YamlDiffOptions opts;
    opts.contextLines = 3;
    if (before.isEmpty()) { // the first version: the whole object, nothing to compare with
        const std::string text = core::jsonToYaml(core::applyNoiseFilters(*b, opts.filters));
        return QStringLiteral("<pre style=\"margin:0\">%1</pre>").arg(QString::fromStdString(text).toHtmlEscaped());
    }
    const core::YamlDiff d = core::diffYaml(a ? *a : core::Json::object(), *b, opts);
    const QString add = dark ? QStringLiteral("#1b4d2a") : QStringLiteral("#dcf5e3");
    const QString del = dark ? QStringLiteral("#5c1f24") : QStringLiteral("#fbe0e2");
    QString html = QStringLiteral("<pre style=\"margin:0\">");
    auto line = [&](const QString &bg, QChar sign, const std::string &text) {
        html += QStringLiteral("<div style=\"background:%1\">%2 %3</div>").arg(bg, sign, QString::fromStdString(text).toHtmlEscaped());
    };
    for (const auto &r : d.rows) {
        using K = core::YamlDiffRow::Kind;
        switch (r.kind) {
        case K::Same: line(QStringLiteral("transparent"), u' ', r.right); break;
        case K::Added: line(add, u'+', r.right); break;
        case K::Removed: line(del, u'-', r.left); break;
        case K::Changed:
            line(del, u'-', r.left);
            line(add, u'+', r.right);
            break;
        case K::Folded:
            html += QStringLiteral("<div style=\"color:gray\">  ⋯ %1</div>").arg(QCoreApplication::translate("DetailPane", "%n unchanged lines", nullptr, r.foldedLines));
            break;
        }
    }
    if (d.rows.empty())
        html += QCoreApplication::translate("DetailPane", "No change in the fields shown (managedFields and resourceVersion are hidden).");
    return html + QStringLiteral("</pre>");
}

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
    m_yaml = new YamlView(m_tabs);
    connect(m_yaml, &QsciScintilla::cursorPositionChanged, this, [this](int line, int) { syncTreeToYaml(line); });
    m_treeModel = new models::OwnershipTreeModel(this);
    m_legendModel = new models::ManagerLegendModel(this);
    m_tabs->addTab(m_summary, tr("Summary"));
    m_tabs->addTab(m_yaml, tr("YAML"));
    m_tabs->addTab(buildOwnershipTab(), tr("Ownership"));
    m_tabs->addTab(buildHistoryTab(), tr("History"));
    m_events = plainTable(m_tabs, "eventsTable");
    m_tabs->addTab(m_events, tr("Events"));
    layout->addWidget(m_tabs, 1);
}

DetailPane::~DetailPane() = default;

QWidget *DetailPane::buildOwnershipTab()
{
    auto *split = new QSplitter(Qt::Horizontal, m_tabs);
    split->setObjectName(QStringLiteral("ownershipTab"));
    m_legend = plainTable(split, "managerLegend");
    m_legend->setModel(m_legendModel);
    m_legend->setToolTip(tr("Click a manager to show only the fields it owns; click again to show all."));
    m_ownershipTree = new QTreeView(split);
    m_ownershipTree->setObjectName(QStringLiteral("ownershipTree"));
    m_ownershipTree->setModel(m_treeModel);
    connect(m_ownershipTree->selectionModel(), &QItemSelectionModel::currentChanged, this,
            [this](const QModelIndex &current) { syncYamlToTree(current); });
    m_ownershipTree->setUniformRowHeights(true);
    m_ownershipTree->setAlternatingRowColors(true);
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

QWidget *DetailPane::buildHistoryTab()
{
    auto *split = new QSplitter(Qt::Horizontal, m_tabs);
    split->setObjectName(QStringLiteral("historyTab"));
    m_history = plainTable(split, "historyTable");
    m_diff = new QTextBrowser(split);
    m_diff->setObjectName(QStringLiteral("historyDiff"));
    m_diff->setPlaceholderText(tr("Select a version to see what changed from the one before."));
    split->setStretchFactor(1, 1);
    split->setSizes({420, 600});
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
    m_history->setModel(model);
    if (!model)
        return;
    m_history->horizontalHeader()->resizeSection(models::ObjectHistoryModel::ResourceVersionColumn, 120);
    m_history->horizontalHeader()->resizeSection(models::ObjectHistoryModel::EventColumn, 110);
    connect(m_history->selectionModel(), &QItemSelectionModel::currentRowChanged, this, &DetailPane::showHistoryDiff);
    // The newest version is selected whenever the list changes under no selection.
    connect(model, &QAbstractItemModel::modelReset, this, [this] {
        if (m_history->model()->rowCount() > 0)
            m_history->selectRow(0);
        else
            m_diff->clear();
    });
}

void DetailPane::showHistoryDiff()
{
    const QModelIndex cur = m_history->currentIndex();
    if (!cur.isValid())
        return;
    const QByteArray after = cur.data(models::ObjectHistoryModel::JsonRole).toByteArray();
    const QByteArray before = cur.data(models::ObjectHistoryModel::PreviousJsonRole).toByteArray();
    const int gen = ++m_diffGeneration;
    const bool dark = isDark(palette());
    auto *w = new QFutureWatcher<QString>(this);
    connect(w, &QFutureWatcherBase::finished, this, [this, w, gen, first = before.isEmpty()] {
        w->deleteLater();
        if (gen != m_diffGeneration)
            return;
        m_diff->setHtml((first ? QStringLiteral("<p><i>%1</i></p>").arg(tr("The first version this session saw; shown whole."))
                               : QString())
                        + w->result());
    });
    w->setFuture(QtConcurrent::run([before, after, dark] { return diffHtml(before, after, dark); }));
}

void DetailPane::showObject(const QString &uid, const QByteArray &json)
{
    const int gen = ++m_generation;
    if (uid.isEmpty()) {
        m_uid.clear();
        m_ready = false;
        m_detail = {};
        m_header->setText(tr("Select an object to see its fields, owners, history and events."));
        m_summary->clear();
        m_yaml->clearDetail();
        m_treeModel->setTree({});
        m_legendModel->setTree({});
        return;
    }
    if (uid != m_uid)
        m_ready = false;
    m_uid = uid;
    auto *w = new QFutureWatcher<models::ObjectDetail>(this);
    connect(w, &QFutureWatcherBase::finished, this, [this, w, gen] {
        w->deleteLater();
        if (gen == m_generation)
            apply(w->future().takeResult());
    });
    w->setFuture(QtConcurrent::run([json] { return models::buildObjectDetail(json); }));
}

void DetailPane::apply(models::ObjectDetail detail)
{
    m_detail = std::move(detail);
    const QString where = m_detail.namespace_.isEmpty() ? QString() : m_detail.namespace_ + u'/';
    m_header->setText(QStringLiteral("<b>%1</b> %2%3 · resourceVersion %4")
                          .arg(m_detail.kind.toHtmlEscaped(), where.toHtmlEscaped(), m_detail.name.toHtmlEscaped(),
                               m_detail.resourceVersion.toHtmlEscaped()));
    renderSummary();
    m_yaml->setDetail(m_detail);
    const auto tone = isDark(palette()) ? models::PaletteTone::Dark : models::PaletteTone::Light;
    m_treeModel->setPaletteTone(tone);
    m_legendModel->setPaletteTone(tone);
    m_treeModel->setTree(m_detail.tree);
    m_legendModel->setTree(m_detail.tree);
    if (!m_ownershipTree->model()->hasIndex(0, 0) || !m_ownershipTree->isExpanded(m_treeModel->index(0, 0)))
        m_ownershipTree->expandToDepth(1);
    m_legend->resizeColumnsToContents();
    const bool first = !m_ready;
    m_ready = true;
    if (first)
        Q_EMIT ready();
}

void DetailPane::renderSummary()
{
    const models::ObjectDetail &d = m_detail;
    if (!d.error.isEmpty()) {
        m_summary->setPlainText(tr("This object could not be read: %1").arg(d.error));
        return;
    }
    const auto tone = isDark(palette()) ? models::PaletteTone::Dark : models::PaletteTone::Light;
    QString html = QStringLiteral("<table cellspacing=\"0\" cellpadding=\"3\">");
    auto row = [&html](const QString &key, const QString &valueHtml) {
        if (!valueHtml.isEmpty())
            html += QStringLiteral("<tr><td valign=\"top\" style=\"color:gray; padding-right:16px\">%1</td><td>%2</td></tr>").arg(key.toHtmlEscaped(), valueHtml);
    };
    auto list = [](const QStringList &items) {
        QStringList esc;
        for (const QString &s : items)
            esc << s.toHtmlEscaped();
        return esc.join(QStringLiteral("<br>"));
    };
    row(tr("Kind"), QStringLiteral("%1 <span style=\"color:gray\">%2</span>").arg(d.kind.toHtmlEscaped(), d.apiVersion.toHtmlEscaped()));
    row(tr("Name"), QStringLiteral("<b>%1</b>").arg(d.name.toHtmlEscaped()));
    row(tr("Namespace"), d.namespace_.toHtmlEscaped());
    const QDateTime created = QDateTime::fromString(d.created, Qt::ISODate);
    if (created.isValid())
        row(tr("Created"), tr("%1 (%2 ago)").arg(created.toLocalTime().toString(Qt::ISODate),
                                                models::humanAge(created.secsTo(QDateTime::currentDateTimeUtc()))));
    row(tr("Resource version"), d.resourceVersion.toHtmlEscaped());
    if (d.generation)
        row(tr("Generation"), QString::number(d.generation));
    row(tr("UID"), QStringLiteral("<tt>%1</tt>").arg(d.uid.toHtmlEscaped()));
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
                        .arg(c.name(), QString::fromStdString(e.label()).toHtmlEscaped(),
                             tr("%n fields", nullptr, int(d.tree.ownedNodeCount(std::uint32_t(i)))),
                             QString::fromStdString(e.time).toHtmlEscaped());
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

void DetailPane::syncYamlToTree(const QModelIndex &treeIndex)
{
    if (m_syncing || !treeIndex.isValid())
        return;
    const QString pointer = treeIndex.data(models::JsonPointerRole).toString();
    const int line = m_detail.linePointers.indexOf(pointer);
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
