#include "widgets/mainwindow.h"

#include "widgets/clusterview.h"

#include <QLabel>
#include <QProgressBar>
#include <QStatusBar>
#include <QTabBar>
#include <QTabWidget>

namespace fieldscope::widgets {

MainWindow::MainWindow(QWidget *parent) : QMainWindow(parent)
{
    setWindowTitle(tr("Fieldscope"));
    setObjectName(QStringLiteral("mainWindow"));

    m_tabs = new QTabWidget(this);
    m_tabs->setObjectName(QStringLiteral("clusterTabs"));
    m_tabs->setDocumentMode(true);
    m_tabs->setTabsClosable(true);
    m_tabs->setMovable(true);
    connect(m_tabs, &QTabWidget::tabCloseRequested, this, [this](int i) {
        if (auto *v = cluster(i))
            Q_EMIT clusterCloseRequested(v);
    });
    connect(m_tabs, &QTabWidget::currentChanged, this, [this] {
        updateStatus();
        Q_EMIT currentClusterChanged(currentCluster());
    });
    setCentralWidget(m_tabs);

    m_watchLabel = new QLabel(this);
    m_watchLabel->setObjectName(QStringLiteral("watchStatus"));
    m_busy = new QProgressBar(this);
    m_busy->setObjectName(QStringLiteral("busyIndicator"));
    m_busy->setRange(0, 0);
    m_busy->setMaximumWidth(120);
    m_busy->setMaximumHeight(14);
    m_busy->setTextVisible(false);
    m_busy->setVisible(false);
    statusBar()->addWidget(m_watchLabel, 1);
    statusBar()->addPermanentWidget(m_busy);
}

ClusterView *MainWindow::addCluster(const QString &title)
{
    auto *view = new ClusterView(m_tabs);
    const int i = m_tabs->addTab(view, title);
    connect(view, &ClusterView::statusChanged, this, &MainWindow::updateStatus);
    connect(view, &ClusterView::connectionChanged, this, [this, view] {
        const int at = m_tabs->indexOf(view);
        if (at >= 0 && !view->contextName().isEmpty())
            m_tabs->setTabText(at, view->contextName());
    });
    // One cluster: the tab bar would only take space.
    m_tabs->tabBar()->setVisible(m_tabs->count() > 1);
    m_tabs->setCurrentIndex(i);
    return view;
}

ClusterView *MainWindow::currentCluster() const
{
    return qobject_cast<ClusterView *>(m_tabs->currentWidget());
}

ClusterView *MainWindow::cluster(int index) const
{
    return qobject_cast<ClusterView *>(m_tabs->widget(index));
}

int MainWindow::clusterCount() const
{
    return m_tabs->count();
}

void MainWindow::setCurrentCluster(ClusterView *view)
{
    m_tabs->setCurrentWidget(view);
}

void MainWindow::updateStatus()
{
    m_tabs->tabBar()->setVisible(m_tabs->count() > 1);
    const ClusterView *v = currentCluster();
    m_watchLabel->setText(v ? v->watchStatus() : QString());
    m_busy->setVisible(v && v->isBusy());
}

} // namespace fieldscope::widgets
