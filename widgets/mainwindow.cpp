#include "widgets/mainwindow.h"

#include "models/objecttablemodel.h"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QProgressBar>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QStatusBar>
#include <QTableView>
#include <QVBoxLayout>

namespace fieldscope::widgets {

MainWindow::MainWindow(QWidget *parent) : QMainWindow(parent)
{
    setWindowTitle(tr("Fieldscope"));
    setObjectName(QStringLiteral("mainWindow"));

    auto *central = new QWidget(this);
    auto *outer = new QVBoxLayout(central);
    outer->setContentsMargins(8, 8, 8, 4);

    // Connection banner
    auto *banner = new QHBoxLayout;
    m_contextLabel = new QLabel(tr("Not connected"), central);
    m_contextLabel->setObjectName(QStringLiteral("contextLabel"));
    QFont bold = m_contextLabel->font();
    bold.setBold(true);
    bold.setPointSizeF(bold.pointSizeF() * 1.15);
    m_contextLabel->setFont(bold);
    m_versionLabel = new QLabel(central);
    m_versionLabel->setObjectName(QStringLiteral("versionLabel"));
    m_sandboxLabel = new QLabel(central);
    m_sandboxLabel->setObjectName(QStringLiteral("sandboxLabel"));
    m_sandboxLabel->setVisible(false);
    m_sandboxLabel->setStyleSheet(QStringLiteral("QLabel { background: #2e7d32; color: white; border-radius: 4px; padding: 2px 8px; }"));
    m_warningLabel = new QLabel(central);
    m_warningLabel->setObjectName(QStringLiteral("warningLabel"));
    m_warningLabel->setVisible(false);
    m_warningLabel->setStyleSheet(QStringLiteral("QLabel { background: #c62828; color: white; border-radius: 4px; padding: 2px 8px; }"));
    banner->addWidget(m_contextLabel);
    banner->addWidget(m_sandboxLabel);
    banner->addSpacing(12);
    banner->addWidget(m_versionLabel, 1);
    banner->addWidget(m_warningLabel);
    outer->addLayout(banner);

    auto *split = new QSplitter(Qt::Horizontal, central);
    m_kinds = new QListWidget(split);
    m_kinds->setObjectName(QStringLiteral("resourceKinds"));
    m_kinds->setMinimumWidth(180);
    connect(m_kinds, &QListWidget::currentTextChanged, this, [this](const QString &t) {
        if (!t.isEmpty())
            Q_EMIT resourceKindChosen(t);
    });

    auto *right = new QWidget(split);
    auto *rightLayout = new QVBoxLayout(right);
    rightLayout->setContentsMargins(0, 0, 0, 0);
    auto *titleRow = new QHBoxLayout;
    m_titleLabel = new QLabel(right);
    m_titleLabel->setObjectName(QStringLiteral("resourceTitle"));
    m_titleLabel->setFont(bold);
    m_filter = new QLineEdit(right);
    m_filter->setObjectName(QStringLiteral("filterEdit"));
    m_filter->setPlaceholderText(tr("Filter (/)"));
    m_filter->setClearButtonEnabled(true);
    titleRow->addWidget(m_titleLabel, 1);
    titleRow->addWidget(m_filter, 1);
    rightLayout->addLayout(titleRow);

    m_table = new QTableView(right);
    m_table->setObjectName(QStringLiteral("objectTable"));
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::ExtendedSelection);
    m_table->setSortingEnabled(true);
    m_table->setAlternatingRowColors(true);
    m_table->verticalHeader()->hide();
    m_table->verticalHeader()->setDefaultSectionSize(m_table->fontMetrics().height() + 8);
    m_table->horizontalHeader()->setStretchLastSection(true);
    m_table->setShowGrid(false);
    rightLayout->addWidget(m_table, 1);

    m_proxy = new QSortFilterProxyModel(this);
    m_proxy->setSortRole(models::ObjectTableModel::SortRole);
    m_proxy->setFilterCaseSensitivity(Qt::CaseInsensitive);
    m_proxy->setFilterKeyColumn(models::ObjectTableModel::Name); // quick filter matches names (issue 6 adds label selectors)
    connect(m_filter, &QLineEdit::textChanged, m_proxy, &QSortFilterProxyModel::setFilterFixedString);
    m_table->setModel(m_proxy);

    split->addWidget(m_kinds);
    split->addWidget(right);
    split->setStretchFactor(1, 1);
    split->setSizes({200, 800});
    outer->addWidget(split, 1);
    setCentralWidget(central);

    m_watchLabel = new QLabel(this);
    m_watchLabel->setObjectName(QStringLiteral("watchStatus"));
    m_busy = new QProgressBar(this);
    m_busy->setRange(0, 0);
    m_busy->setMaximumWidth(120);
    m_busy->setVisible(false);
    statusBar()->addWidget(m_watchLabel, 1);
    statusBar()->addPermanentWidget(m_busy);
}

void MainWindow::setConnection(const QString &context, const QString &server, const QString &version)
{
    m_contextLabel->setText(context);
    m_versionLabel->setText(tr("%1 · Kubernetes %2").arg(server, version));
}

void MainWindow::setConnectionWarning(const QString &warning)
{
    m_warningLabel->setText(warning);
    m_warningLabel->setVisible(!warning.isEmpty());
}

void MainWindow::setConnecting(const QString &what)
{
    m_versionLabel->setText(what);
    setWatchStatus(what, true);
}

void MainWindow::setConnectionError(const QString &error)
{
    m_versionLabel->setText(tr("Connection failed"));
    setConnectionWarning(error);
    setWatchStatus(error, false);
}

void MainWindow::setSandboxState(const QString &state)
{
    m_sandboxLabel->setText(state);
    m_sandboxLabel->setVisible(!state.isEmpty());
}

void MainWindow::setObjectModel(models::ObjectTableModel *model, const QString &resourceTitle, bool namespaced)
{
    m_proxy->setSourceModel(model);
    m_table->setColumnHidden(models::ObjectTableModel::Namespace, !namespaced);
    m_titleLabel->setText(resourceTitle);
    m_table->sortByColumn(models::ObjectTableModel::Name, Qt::AscendingOrder);
    m_table->horizontalHeader()->resizeSection(models::ObjectTableModel::Name, 260);
}

void MainWindow::setResourceKinds(const QStringList &kinds, const QString &current)
{
    const QSignalBlocker block(m_kinds);
    m_kinds->clear();
    m_kinds->addItems(kinds);
    const auto found = m_kinds->findItems(current, Qt::MatchExactly);
    if (!found.isEmpty())
        m_kinds->setCurrentItem(found.first());
}

void MainWindow::setWatchStatus(const QString &status, bool busy)
{
    m_watchLabel->setText(status);
    m_busy->setVisible(busy);
}

} // namespace fieldscope::widgets
