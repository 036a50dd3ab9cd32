#include "widgets/clusterview.h"

#include "widgets/detailpane.h"
#include "widgets/driftview.h"
#include "widgets/icons.h"
#include "widgets/objecttablepage.h"
#include "widgets/plaintext.h"
#include "widgets/resourcekindsview.h"

#include <QAction>
#include <QDataStream>
#include <QHBoxLayout>
#include <QLabel>
#include <QSplitter>
#include <QTabBar>
#include <QTabWidget>
#include <QTableView>
#include <QVBoxLayout>

namespace fieldscope::widgets {

namespace {
QLabel *badge(QWidget *parent, const char *name, const QString &css)
{
    auto *l = plainLabel(new QLabel(parent)); // server, kubeconfig and script texts
    l->setObjectName(QString::fromLatin1(name));
    l->setVisible(false);
    l->setStyleSheet(QStringLiteral("QLabel { %1 color: white; border-radius: 4px; padding: 2px 8px; }").arg(css));
    return l;
}
} // namespace

ClusterView::ClusterView(QWidget *parent) : QWidget(parent)
{
    setObjectName(QStringLiteral("clusterView"));
    auto *outer = new QVBoxLayout(this);
    outer->setContentsMargins(6, 6, 6, 0);
    outer->setSpacing(6);

    auto *banner = new QHBoxLayout;
    m_contextLabel = plainLabel(new QLabel(tr("Not connected"), this));
    m_contextLabel->setObjectName(QStringLiteral("contextLabel"));
    QFont bold = m_contextLabel->font();
    bold.setBold(true);
    bold.setPointSizeF(bold.pointSizeF() * 1.15);
    m_contextLabel->setFont(bold);
    m_versionLabel = plainLabel(new QLabel(this));
    m_versionLabel->setObjectName(QStringLiteral("versionLabel"));
    m_versionLabel->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_sandboxLabel = badge(this, "sandboxLabel", QStringLiteral("background: #2e7d32;"));
    m_recordingLabel = badge(this, "backgroundRecordingLabel", QStringLiteral("background: #1565c0;"));
    m_warningLabel = badge(this, "warningLabel", QStringLiteral("background: #c62828;"));
    m_warningLabel->setWordWrap(true);
    banner->addWidget(m_contextLabel);
    banner->addWidget(m_sandboxLabel);
    banner->addWidget(m_recordingLabel);
    banner->addSpacing(12);
    banner->addWidget(m_versionLabel, 1);
    banner->addWidget(m_warningLabel);
    outer->addLayout(banner);

    m_split = new QSplitter(Qt::Horizontal, this);
    m_split->setObjectName(QStringLiteral("clusterSplitter"));
    m_kinds = new ResourceKindsView(m_split);
    m_kinds->setMinimumWidth(220);
    m_rightSplit = new QSplitter(Qt::Vertical, m_split);
    m_rightSplit->setObjectName(QStringLiteral("tableDetailSplitter"));
    buildTableTabs();
    m_detail = new DetailPane(m_rightSplit);
    m_rightSplit->setStretchFactor(0, 1);
    m_rightSplit->setStretchFactor(1, 1);
    m_rightSplit->setSizes({320, 420});
    m_rightSplit->setChildrenCollapsible(false);
    m_split->setStretchFactor(1, 1);
    // Wide enough for "admissionregistration.k8s.io" and "MutatingWebhookConfiguration".
    m_split->setSizes({320, 900});
    m_split->setChildrenCollapsible(false);
    outer->addWidget(m_split, 1);

    connect(m_kinds, &ResourceKindsView::kindChosen, this, &ClusterView::resourceKindChosen);
    // Enter (or a double click) on an object goes into its detail; Escape there comes back (to the
    // Drift view when that is the tab shown).
    connect(m_table, &ObjectTablePage::objectActivated, m_detail, &DetailPane::focusCurrentTab);
    auto *back = new QAction(tr("Back to the objects"), m_detail);
    back->setShortcut(QKeySequence(Qt::Key_Escape));
    back->setShortcutContext(Qt::WidgetWithChildrenShortcut);
    connect(back, &QAction::triggered, this, [this] {
        (m_tableTabs->currentWidget() == m_drift ? m_drift->table() : m_table->table())->setFocus(Qt::OtherFocusReason);
    });
    m_detail->addAction(back);
    const Icon tabIcons[] = {Icon::Summary, Icon::Yaml, Icon::Ownership, Icon::History,
                             Icon::Events}; // DetailPane::Tab order
    for (int i = 0; i < int(std::size(tabIcons)) && i < m_detail->tabs()->count(); ++i)
        m_detail->tabs()->setTabIcon(i, icon(tabIcons[i]));
}

// The table alone until the Drift view is asked for; then a tab bar to switch between them.
void ClusterView::buildTableTabs()
{
    m_tableTabs = new QTabWidget(m_rightSplit);
    m_tableTabs->setObjectName(QStringLiteral("tableTabs"));
    m_tableTabs->setDocumentMode(true);
    m_tableTabs->setTabsClosable(true);
    m_table = new ObjectTablePage(m_tableTabs);
    m_tableTabs->addTab(m_table, icon(Icon::Kind), tr("Objects"));
    m_tableTabs->tabBar()->setTabButton(0, QTabBar::RightSide, nullptr); // the objects always stay
    m_tableTabs->tabBar()->setTabButton(0, QTabBar::LeftSide, nullptr);
    m_tableTabs->setTabBarAutoHide(true); // and then it takes no room in the layout either
    m_drift = new DriftView(m_tableTabs);
    m_drift->setVisible(false);
    connect(m_tableTabs, &QTabWidget::tabCloseRequested, this, [this](int i) {
        if (m_tableTabs->widget(i) != m_drift)
            return;
        m_tableTabs->removeTab(i);
    });
}

void ClusterView::showDriftView()
{
    if (m_tableTabs->indexOf(m_drift) < 0)
        m_tableTabs->addTab(m_drift, icon(Icon::History), tr("Drift"));
    m_tableTabs->setCurrentWidget(m_drift);
    Q_EMIT driftViewOpened();
}

bool ClusterView::isDriftViewShown() const
{
    return m_tableTabs->indexOf(m_drift) >= 0;
}

void ClusterView::setConnection(const QString &context, const QString &server, const QString &version)
{
    m_context = context;
    m_connectionError.clear();
    m_state = version.isEmpty() || version == QStringLiteral("…") ? tr("connected") : tr("connected · %1").arg(version);
    m_contextLabel->setText(visibleText(context));
    m_versionLabel->setText(tr("%1 · Kubernetes %2").arg(visibleText(server), visibleText(version)));
    Q_EMIT connectionChanged();
}

void ClusterView::setRecordedHistory(const QString &name, const QString &file)
{
    m_context = name;
    m_state = tr("recorded history, no cluster");
    m_contextLabel->setText(visibleText(name));
    m_versionLabel->setText(tr("%1 · recorded history (offline)").arg(visibleText(file)));
    Q_EMIT connectionChanged();
}

void ClusterView::setClusterIdentity(const QString &identity, const QString &server)
{
    m_identity = identity;
    m_server = server;
}

void ClusterView::setRequestedContext(const QString &context)
{
    m_requested = context;
    Q_EMIT connectionChanged();
}

void ClusterView::setConnectionWarning(const QString &warning)
{
    m_warningLabel->setText(visibleText(warning, true));
    m_warningLabel->setVisible(!warning.isEmpty());
}

void ClusterView::setShownErrors(const QStringList &errors)
{
    m_reportedErrors = errors;
}

QStringList ClusterView::shownErrors() const
{
    QStringList all = m_reportedErrors;
    if (!m_connectionError.isEmpty())
        all.prepend(m_connectionError);
    return all;
}

void ClusterView::setConnecting(const QString &what)
{
    m_state = what;
    m_connectionError.clear();
    m_versionLabel->setText(visibleText(what));
    setWatchStatus(what, true);
    Q_EMIT connectionChanged();
}

void ClusterView::setConnectionError(const QString &error)
{
    m_state = tr("failed");
    m_connectionError = error;
    m_versionLabel->setText(tr("Connection failed"));
    setConnectionWarning(error);
    setWatchStatus(error, false);
    Q_EMIT connectionChanged();
}

void ClusterView::setBackgroundRecording(const QString &text, const QString &toolTip)
{
    m_recordingLabel->setText(visibleText(text));
    m_recordingLabel->setToolTip(plainToolTip(toolTip));
    m_recordingLabel->setVisible(!text.isEmpty());
}

QString ClusterView::backgroundRecording() const
{
    return m_recordingLabel->isHidden() ? QString() : m_recordingLabel->text();
}

void ClusterView::setSandboxState(const QString &state)
{
    m_sandboxLabel->setText(visibleText(state));
    m_sandboxLabel->setVisible(!state.isEmpty());
}

void ClusterView::setKindsModel(models::ResourceKindsModel *model)
{
    m_kinds->setModel(model);
}

void ClusterView::setObjectModel(models::ObjectTableModel *model, const QString &title, bool namespaced,
                                 const QString &resourceKey)
{
    m_table->setModel(model, title, namespaced, resourceKey);
}

void ClusterView::setCurrentKind(const QString &q)
{
    m_kinds->setCurrentKind(q);
}

void ClusterView::chooseKind(const QString &q)
{
    m_kinds->setCurrentKind(q);
    Q_EMIT resourceKindChosen(q);
}

void ClusterView::setWatchStatus(const QString &status, bool busy)
{
    if (status == m_watchStatus && busy == m_busy)
        return;
    m_watchStatus = status;
    m_busy = busy;
    Q_EMIT statusChanged();
}

void ClusterView::setWatches(const QList<WatchHealth> &watches)
{
    if (watches == m_watches)
        return;
    m_watches = watches;
    Q_EMIT statusChanged();
}

QByteArray ClusterView::saveLayout() const
{
    QByteArray out;
    QDataStream stream(&out, QIODevice::WriteOnly);
    stream << m_split->saveState() << m_rightSplit->saveState();
    return out;
}

void ClusterView::restoreLayout(const QByteArray &state)
{
    QByteArray outer, inner;
    QDataStream stream(state);
    stream >> outer >> inner;
    if (stream.status() != QDataStream::Ok)
        return; // nothing saved yet: the defaults stay
    m_split->restoreState(outer);
    m_rightSplit->restoreState(inner);
}

} // namespace fieldscope::widgets
