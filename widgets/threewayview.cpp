#include "widgets/threewayview.h"

#include "core/base/boundary.h"
#include "core/diff/yamldiff.h"
#include "widgets/palette.h"
#include "widgets/plaintext.h"
#include "widgets/yamlview.h"

#include <QComboBox>
#include <QFutureWatcher>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QSplitter>
#include <QTableWidget>
#include <QVBoxLayout>
#include <QtConcurrent>

#include <memory>
#include <vector>

namespace fieldscope::widgets {

namespace {

QString swatch(const QString &text, const QColor &background)
{
    return QStringLiteral("<span style=\"background:%1\">%2</span>").arg(background.name(), richEscaped(text));
}

QWidget *titled(QWidget *parent, QLabel *title, QWidget *body)
{
    auto *box = new QWidget(parent);
    auto *l = new QVBoxLayout(box);
    l->setContentsMargins(0, 0, 0, 0);
    l->addWidget(title);
    l->addWidget(body, 1);
    return box;
}

struct ThreeWayMarks {
    std::vector<int> openedVsWritten[2]; // 0-based lines: [0] in the opened text, [1] in the written one
    std::vector<int> openedVsCurrent[2];
};

void changedLines(const std::string &from, const std::string &to, std::vector<int> (&out)[2])
{
    for (const auto &row : core::diffYamlText(from, to).rows) {
        if (row.kind == core::YamlDiffRow::Kind::Same || row.kind == core::YamlDiffRow::Kind::Folded)
            continue;
        if (row.leftLine > 0)
            out[0].push_back(row.leftLine - 1);
        if (row.rightLine > 0)
            out[1].push_back(row.rightLine - 1);
    }
}

} // namespace

EditorColors EditorColors::of(const QPalette &p)
{
    if (isDarkPalette(p))
        return {QColor(0x5c, 0x4a, 0x12), QColor(0x1e, 0x4a, 0x6d), QColor(0xef, 0x9a, 0x9a), QColor(0xa5, 0xd6, 0xa7)};
    return {QColor(0xff, 0xe0, 0x82), QColor(0x90, 0xca, 0xf9), QColor(0xc6, 0x28, 0x28), QColor(0x2e, 0x7d, 0x32)};
}

void colourMarkers(QsciScintilla *pane, const QPalette &palette)
{
    const EditorColors c = EditorColors::of(palette);
    pane->setMarkerBackgroundColor(c.yours, kWrittenMarker);
    pane->setMarkerBackgroundColor(c.theirs, kCurrentMarker);
}

YamlView *markedYamlPane(QWidget *parent, const char *name, bool readOnly)
{
    auto *pane = new YamlView(parent);
    pane->setObjectName(QString::fromLatin1(name));
    pane->setReadOnly(readOnly);
    pane->setMarginWidth(0, QStringLiteral("99999"));
    pane->markerDefine(QsciScintilla::Background, kWrittenMarker);
    pane->markerDefine(QsciScintilla::Background, kCurrentMarker);
    colourMarkers(pane, parent->palette());
    return pane;
}

ThreeWayView::ThreeWayView(QWidget *parent) : QWidget(parent)
{
    auto *l = new QVBoxLayout(this);
    l->setContentsMargins(0, 0, 0, 0);
    auto *split = new QSplitter(Qt::Horizontal, this);
    m_openedPane = markedYamlPane(this, "openedPane", true);
    m_writtenPane = markedYamlPane(this, "writtenPane", true);
    m_currentPane = markedYamlPane(this, "currentPane", true);
    m_currentHeader = new QLabel(this);
    m_writtenHeader = new QLabel(this);
    split->addWidget(titled(split, new QLabel(tr("<b>What you opened</b>"), this), m_openedPane));
    split->addWidget(titled(split, m_writtenHeader, m_writtenPane));
    split->addWidget(titled(split, m_currentHeader, m_currentPane));
    l->addWidget(split, 1);
    auto *buttons = new QHBoxLayout;
    auto *rebase = new QPushButton(tr("Rebase onto current"), this);
    rebase->setObjectName(QStringLiteral("rebaseButton"));
    rebase->setToolTip(tr("Base the next write on what is there now; your buffer stays as it is, "
                          "so carry the other changes over by hand where you want them"));
    connect(rebase, &QPushButton::clicked, this, &ThreeWayView::rebaseRequested);
    auto *merge = new QPushButton(tr("Merge onto current"), this);
    merge->setObjectName(QStringLiteral("mergeButton"));
    merge->setToolTip(tr("Your changes on top of what is there now; fields both sides changed are listed to choose. "
                         "The result is shown in the buffer before anything is sent."));
    connect(merge, &QPushButton::clicked, this, &ThreeWayView::mergeRequested);
    buttons->addWidget(new QLabel(tr("Someone changed the object after you opened it; nothing was written."), this), 1);
    buttons->addWidget(merge);
    buttons->addWidget(rebase);
    l->addLayout(buttons);
    l->addWidget(buildMergeChoices());
    l->addWidget(m_useMerge, 0, Qt::AlignRight);
    label(palette());
}

// Fields both sides changed: mine or theirs, one by one (never chosen for the user).
QWidget *ThreeWayView::buildMergeChoices()
{
    m_mergeTable = new QTableWidget(0, 5, this);
    m_mergeTable->setObjectName(QStringLiteral("mergeTable"));
    showPlainText(m_mergeTable);
    m_mergeTable->setHorizontalHeaderLabels({tr("Field"), tr("You opened"), tr("You wrote"), tr("There now"),
                                             tr("Keep")});
    m_mergeTable->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_mergeTable->verticalHeader()->hide();
    m_mergeTable->horizontalHeader()->setStretchLastSection(true);
    m_mergeTable->setMaximumHeight(m_mergeTable->fontMetrics().height() * 10);
    m_mergeTable->hide();
    m_useMerge = new QPushButton(tr("Use these choices"), this);
    m_useMerge->setObjectName(QStringLiteral("useMergeButton"));
    m_useMerge->setEnabled(false);
    m_useMerge->hide();
    connect(m_useMerge, &QPushButton::clicked, this, [this] {
        QStringList mine;
        for (int row = 0; row < m_mergeTable->rowCount(); ++row)
            if (auto *c = qobject_cast<QComboBox *>(m_mergeTable->cellWidget(row, 4));
                c && c->currentData().toInt() == 1)
                mine << m_mergeTable->item(row, 0)->data(Qt::UserRole).toString();
        Q_EMIT mergeChoicesMade(mine);
    });
    return m_mergeTable;
}

void ThreeWayView::showMergeConflicts(const QList<QStringList> &rows)
{
    m_mergeTable->setRowCount(int(rows.size()));
    for (int i = 0; i < int(rows.size()); ++i) {
        for (int col = 0; col < 4; ++col)
            m_mergeTable->setItem(i, col, new QTableWidgetItem(rows[i].value(col)));
        // The field is shown in the server's path syntax; the choice names it by JSON Pointer.
        m_mergeTable->item(i, 0)->setData(Qt::UserRole, rows[i].value(4, rows[i].value(0)));
        auto *choice = new QComboBox(m_mergeTable);
        choice->setObjectName(QStringLiteral("mergeChoice%1").arg(i));
        choice->addItem(tr("— choose —"), 0);
        choice->addItem(tr("Mine"), 1);
        choice->addItem(tr("Theirs"), 2);
        connect(choice, &QComboBox::currentIndexChanged, this, [this] {
            bool all = true;
            for (int row = 0; row < m_mergeTable->rowCount(); ++row)
                if (auto *c = qobject_cast<QComboBox *>(m_mergeTable->cellWidget(row, 4));
                    !c || c->currentData().toInt() == 0)
                    all = false;
            m_useMerge->setEnabled(all);
        });
        m_mergeTable->setCellWidget(i, 4, choice);
    }
    m_mergeTable->resizeColumnsToContents();
    m_mergeTable->show();
    m_useMerge->show();
    m_useMerge->setEnabled(false);
}

void ThreeWayView::hideMergeConflicts()
{
    m_mergeTable->hide();
    m_useMerge->hide();
}

void ThreeWayView::setVersions(const QString &opened, const QString &written, const QString &current,
                               const QString &currentResourceVersion)
{
    m_openedPane->setText(opened);
    m_writtenPane->setText(written);
    m_currentPane->setText(current);
    m_currentRv = currentResourceVersion;
    label(palette());
    markLines(opened, written, current);
}

// Two line diffs of whole objects (a Myers diff is quadratic in the worst case): on a worker, never
// on the GUI thread. The panes show their text at once; the marks follow, and only the newest
// request's (by generation) are applied. An exception (bad_alloc on a huge text) stops at the
// boundary: no marks, nothing else lost.
void ThreeWayView::markLines(const QString &opened, const QString &written, const QString &current)
{
    for (QsciScintilla *pane : {m_openedPane, m_writtenPane, m_currentPane})
        pane->markerDeleteAll();
    const int gen = ++m_generation;
    auto *w = new QFutureWatcher<std::shared_ptr<ThreeWayMarks>>(this);
    connect(w, &QFutureWatcherBase::finished, this, [this, w, gen] {
        w->deleteLater();
        const auto taken = core::takeResult(w->future(), "the three-way view's line diffs");
        if (gen != m_generation || !taken || !*taken)
            return; // a failed diff leaves the panes unmarked: their text is there
        const std::shared_ptr<ThreeWayMarks> &marks = *taken;
        for (int line : marks->openedVsWritten[1])
            m_writtenPane->markerAdd(line, kWrittenMarker);
        for (int line : marks->openedVsCurrent[1])
            m_currentPane->markerAdd(line, kCurrentMarker);
        for (int line : marks->openedVsWritten[0])
            m_openedPane->markerAdd(line, kWrittenMarker);
        for (int line : marks->openedVsCurrent[0])
            m_openedPane->markerAdd(line, kCurrentMarker);
        Q_EMIT marked();
    });
    w->setFuture(QtConcurrent::run([o = opened.toStdString(), wr = written.toStdString(), c = current.toStdString()]() {
        auto marks = std::make_shared<ThreeWayMarks>();
        changedLines(o, wr, marks->openedVsWritten);
        changedLines(o, c, marks->openedVsCurrent);
        return marks;
    }));
}

void ThreeWayView::label(const QPalette &palette)
{
    const EditorColors c = EditorColors::of(palette);
    m_writtenHeader->setText(tr("<b>What you wrote</b> %1").arg(swatch(tr("your changes"), c.yours)));
    m_currentHeader->setText(tr("<b>What is there now</b> (resourceVersion %1) %2")
                                 .arg(richEscaped(m_currentRv), swatch(tr("their changes"), c.theirs)));
}

void ThreeWayView::recolour(const QPalette &palette)
{
    for (QsciScintilla *pane : {m_openedPane, m_writtenPane, m_currentPane})
        colourMarkers(pane, palette);
    label(palette);
}

} // namespace fieldscope::widgets
