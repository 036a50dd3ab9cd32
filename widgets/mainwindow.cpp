#include "widgets/mainwindow.h"

#include "models/objecttablemodel.h"
#include "models/objectviewmodel.h"
#include "models/resourcekindsmodel.h"
#include "widgets/clusterview.h"
#include "widgets/commandpalette.h"
#include "widgets/contextswitcher.h"
#include "widgets/detailpane.h"
#include "widgets/editorwindow.h"
#include "widgets/helpdialogs.h"
#include "widgets/icons.h"
#include "widgets/objecttablepage.h"
#include "widgets/plaintext.h"
#include "widgets/resourcekindsview.h"
#include "widgets/settingsdialog.h"
#include "widgets/watchstatus.h"

#include <QAbstractProxyModel>
#include <QAction>
#include <QCloseEvent>
#include <QComboBox>
#include <QGuiApplication>
#include <QLabel>
#include <QLineEdit>
#include <QMenuBar>
#include <QProgressBar>
#include <QScreen>
#include <QSettings>
#include <QStatusBar>
#include <QStyle>
#include <QTabBar>
#include <QTabWidget>
#include <QTableView>
#include <QToolBar>
#include <QTreeView>

namespace fieldscope::widgets {

MainWindow::MainWindow(QWidget *parent) : QMainWindow(parent)
{
    setWindowTitle(tr("Fieldscope"));
    setObjectName(QStringLiteral("mainWindow"));
    setWindowIcon(icon(Icon::App));

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
        showOpenContext();
    });
    setCentralWidget(m_tabs);

    m_watchStatus = new WatchStatusWidget(this);
    m_busyLabel = plainLabel(new QLabel(this));
    m_busyLabel->setObjectName(QStringLiteral("busyText"));
    m_busy = new QProgressBar(this);
    m_busy->setObjectName(QStringLiteral("busyIndicator"));
    m_busy->setRange(0, 0);
    m_busy->setMaximumWidth(120);
    m_busy->setMaximumHeight(14);
    m_busy->setTextVisible(false);
    m_busy->setVisible(false);
    statusBar()->addWidget(m_watchStatus, 1);
    statusBar()->addPermanentWidget(m_busyLabel);
    statusBar()->addPermanentWidget(m_busy);

    auto *bar = addToolBar(tr("Contexts"));
    bar->setObjectName(QStringLiteral("contextToolBar"));
    bar->setMovable(false);
    m_contexts = new ContextSwitcher(bar);
    bar->addWidget(m_contexts);
    createActions();

    QSettings settings;
    // The first start fills about 80% of the screen (a table with server columns and a detail
    // pane needs the room); later starts restore the last geometry.
    if (!restoreGeometry(settings.value(QStringLiteral("window/geometry")).toByteArray()))
        if (const QScreen *screen = QGuiApplication::primaryScreen()) {
            const QRect avail = screen->availableGeometry();
            const QSize size = (QSizeF(avail.size()) * 0.8).toSize();
            setGeometry(QStyle::alignedRect(Qt::LeftToRight, Qt::AlignCenter, size, avail));
        }
    restoreState(settings.value(QStringLiteral("window/state")).toByteArray());
}

void MainWindow::createActions()
{
    auto add = [this](QMenu *menu, const QString &text, const QKeySequence &keys, auto slot) {
        auto *a = menu->addAction(text);
        a->setShortcut(keys);
        a->setShortcutContext(Qt::WindowShortcut);
        connect(a, &QAction::triggered, this, slot);
        m_windowActions << a;
        return a;
    };
    QMenu *file = menuBar()->addMenu(tr("&File"));
    add(file, tr("Open context…"), QKeySequence(Qt::CTRL | Qt::Key_O), [this] {
        m_contexts->combo()->setFocus();
        m_contexts->combo()->showPopup();
    });
    add(file, tr("Close cluster tab"), QKeySequence(Qt::CTRL | Qt::Key_W), [this] {
        if (auto *v = currentCluster())
            Q_EMIT clusterCloseRequested(v);
    });
    add(file, tr("New Object…"), QKeySequence(Qt::CTRL | Qt::Key_N), [this] {
        if (auto *v = currentCluster())
            Q_EMIT newObjectRequested(v);
    });
    add(file, tr("Settings…"), QKeySequence(Qt::CTRL | Qt::Key_Comma), [this] { showSettings(); });
    file->addSeparator();
    add(file, tr("Quit"), QKeySequence::Quit, [this] { close(); });
    QMenu *go = menuBar()->addMenu(tr("&Go"));
    add(go, tr("Go to kind or object…"), QKeySequence(Qt::CTRL | Qt::Key_K), [this] { openCommandPalette(); });
    // Window-wide: "/" from the kinds list or a detail tab still filters; line edits keep typing it
    // (they take printable keys before shortcuts).
    add(go, tr("Filter objects"), QKeySequence(Qt::Key_Slash), [this] {
        if (auto *v = currentCluster())
            v->tablePage()->focusFilter();
    });
    // The fields appliers set that someone else changed since, for the shown kind and namespaces.
    add(go, tr("Drift view"), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_D), [this] {
        if (auto *v = currentCluster())
            v->showDriftView();
    });
    add(go, tr("Next cluster tab"), QKeySequence(Qt::CTRL | Qt::Key_Tab), [this] {
        if (m_tabs->count() > 1)
            m_tabs->setCurrentIndex((m_tabs->currentIndex() + 1) % m_tabs->count());
    });
    add(go, tr("Previous cluster tab"), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_Tab), [this] {
        if (m_tabs->count() > 1)
            m_tabs->setCurrentIndex((m_tabs->currentIndex() + m_tabs->count() - 1) % m_tabs->count());
    });
    go->addSeparator();
    const QStringList tabNames = {tr("Summary"), tr("YAML"), tr("Ownership"), tr("History"), tr("Events")};
    for (int i = 0; i < tabNames.size(); ++i)
        add(go, tr("Detail: %1").arg(tabNames[i]), QKeySequence(Qt::CTRL | Qt::Key(Qt::Key_1 + i)), [this, i] {
            if (auto *v = currentCluster())
                v->detailPane()->setCurrentTab(DetailPane::Tab(i));
        });
    QMenu *object = menuBar()->addMenu(tr("&Object"));
    add(object, tr("Edit…"), QKeySequence(Qt::CTRL | Qt::Key_E), [this] {
        if (auto *v = currentCluster())
            v->detailPane()->requestEdit();
    });
    add(object, tr("Delete…"), QKeySequence(Qt::SHIFT | Qt::Key_Delete), [this] {
        if (auto *v = currentCluster())
            v->detailPane()->requestDelete();
    });
    QMenu *help = menuBar()->addMenu(tr("&Help"));
    add(help, tr("Keyboard shortcuts"), QKeySequence(Qt::Key_F1), [this] { showShortcuts(); });
}

CommandPalette *MainWindow::openCommandPalette()
{
    ClusterView *v = currentCluster();
    if (!v)
        return nullptr;
    auto *palette = new CommandPalette(this);
    palette->setAttribute(Qt::WA_DeleteOnClose);
    std::vector<CommandPalette::Entry> entries;
    if (auto *kinds = qobject_cast<models::ResourceKindsModel *>(
            static_cast<QAbstractProxyModel *>(v->kindsView()->tree()->model())->sourceModel()))
        for (const auto &k : kinds->kinds())
            entries.push_back({k.kind.isEmpty() ? k.resource : k.kind, k.qualifiedName(), true, k.qualifiedName()});
    if (auto *objects = v->tablePage()->viewModel()->objectSource())
        for (int r = 0; r < objects->rowCount(); ++r) {
            const auto &row = objects->row(r);
            entries.push_back({row.namespace_().empty()
                                   ? models::viewText(row.name())
                                   : models::viewText(row.namespace_()) + u'/' + models::viewText(row.name()),
                               {},
                               false,
                               models::viewText(row.uid())});
        }
    palette->setEntries(std::move(entries));
    connect(palette, &CommandPalette::kindChosen, v, &ClusterView::chooseKind);
    connect(palette, &CommandPalette::objectChosen, v, [v](const QString &uid) {
        if (!v->tablePage()->selectUid(uid)) { // hidden by the filter or namespace choice
            v->tablePage()->filterEdit()->clear();
            v->tablePage()->selectUid(uid);
        }
        v->tablePage()->table()->setFocus();
    });
    palette->open();
    palette->input()->setFocus();
    return palette;
}

void MainWindow::showShortcuts()
{
    auto *d = new ShortcutsDialog(m_windowActions, this);
    d->setAttribute(Qt::WA_DeleteOnClose);
    d->open();
}

void MainWindow::showSettings()
{
    const ClusterView *c = currentCluster();
    auto *d = c ? new SettingsDialog(this, {c->contextName(), c->clusterIdentity(), c->serverUrl()})
                : new SettingsDialog(this);
    d->setAttribute(Qt::WA_DeleteOnClose);
    Q_EMIT settingsOpened(d);
    d->open();
}

void MainWindow::setBusy(const QString &what, bool busy)
{
    m_busyWhat = busy ? what : QString();
    updateStatus();
}

void MainWindow::closeEvent(QCloseEvent *event)
{
    if (!confirmUnsentEdits()) {
        event->ignore();
        return;
    }
    saveWindowState();
    QMainWindow::closeEvent(event);
}

void MainWindow::saveWindowState()
{
    QSettings settings;
    settings.setValue(QStringLiteral("window/geometry"), saveGeometry());
    settings.setValue(QStringLiteral("window/state"), saveState());
    if (auto *v = currentCluster())
        settings.setValue(QStringLiteral("window/clusterLayout"), v->saveLayout());
    for (int i = 0; i < m_tabs->count(); ++i)
        if (auto *v = cluster(i))
            v->tablePage()->saveHeaderState();
}

// Editor windows are the main window's descendants (a cluster's view, or the main window itself
// once detached): quitting would take their text with them.
bool MainWindow::confirmUnsentEdits()
{
    QList<EditorWindow *> unsent;
    for (EditorWindow *e : findChildren<EditorWindow *>())
        if (e->hasUnsentEdits())
            unsent << e;
    if (unsent.isEmpty())
        return true;
    const QString text =
        unsent.size() == 1
            ? tr("An editor window holds edits that were not written. Quit and lose them?")
            : tr("%1 editor windows hold edits that were not written. Quit and lose them?").arg(unsent.size());
    if (askToDiscardEdits(this, "quitWithEditsBox", text, tr("Discard and quit"))) {
        for (EditorWindow *e : std::as_const(unsent))
            e->dropDraft();
        return true;
    }
    unsent.first()->show();
    unsent.first()->raise();
    unsent.first()->activateWindow();
    return false;
}

ClusterView *MainWindow::addCluster(const QString &title)
{
    auto *view = new ClusterView(m_tabs);
    view->restoreLayout(QSettings().value(QStringLiteral("window/clusterLayout")).toByteArray());
    const int i = m_tabs->addTab(view, actionText(title)); // a context name: & is not a mnemonic
    connect(view, &ClusterView::statusChanged, this, &MainWindow::updateStatus);
    connect(view, &ClusterView::connectionChanged, this, [this, view] {
        const int at = m_tabs->indexOf(view);
        if (at >= 0 && !view->contextName().isEmpty())
            m_tabs->setTabText(at, actionText(view->contextName()));
        if (!view->contextName().isEmpty())
            m_contexts->setState(view->contextName(), view->connectionState());
        if (view == currentCluster())
            showOpenContext();
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
    m_watchStatus->setStatus(v ? v->watchStatus() : QString(), v ? v->watches() : QList<WatchHealth>{});
    // Long operations outside the watches (reading the kubeconfig) keep their own words beside
    // the bar; the bar runs while anything is connecting, listing or resyncing.
    m_busyLabel->setText(m_busyWhat);
    m_busyLabel->setVisible(!m_busyWhat.isEmpty());
    m_busy->setVisible((v && v->isBusy()) || !m_busyWhat.isEmpty() || m_watchStatus->isBusy());
    // A list whose total the server estimated fills the bar; anything else runs it indeterminate.
    const auto [done, total] = m_watchStatus->listingProgress();
    const int scale = total > 0 ? int(std::min<qint64>(total, 1'000'000)) : 0;
    m_busy->setRange(0, scale);
    m_busy->setValue(total > 0 ? int(done * scale / total) : 0);
}

bool MainWindow::isBusyIndicatorShown() const
{
    return !m_busy->isHidden();
}

// The switcher shows the current tab's context once the connection has named it; until then the
// one it was opened with ("" = the kubeconfig's current), so it never shows another context.
void MainWindow::showOpenContext()
{
    const ClusterView *v = currentCluster();
    if (!v)
        return;
    m_contexts->setCurrentContext(v->contextName().isEmpty() ? v->requestedContext() : v->contextName());
}

} // namespace fieldscope::widgets
