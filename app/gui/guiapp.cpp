#include "app/gui/guiapp.h"

#include "app/gui/classlauncher.h"
#include "app/gui/clustercontroller.h"
#include "app/gui/demoseeder.h"
#include "app/gui/historyfilecontroller.h"
#include "app/gui/lessoncontroller.h"
#include "app/gui/lessonlauncher.h"
#include "app/gui/screenshot.h"
#include "app/gui/workspace.h"
#include "app/services/heaptuning.h"
#include "app/services/historysource.h"
#include "app/services/sandbox.h"
#include "app/services/terminationsignals.h"
#include "app/services/threadreaper.h"
#include "app/services/versioninfo.h"
#include "app/services/windowoptions.h"
#include "core/base/privatefiles.h"
#include "core/history/historywriter.h"
#include "widgets/clusterview.h"
#include "widgets/detailpane.h"
#include "widgets/mainwindow.h"
#include "widgets/objecttablepage.h"

#include <QAction>
#include <QApplication>
#include <QCommandLineParser>
#include <QFileInfo>
#include <QSettings>
#include <QStandardPaths>

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <optional>

namespace fieldscope::app {
namespace {

// A file's name; a shared store's URL without its query (no password can be in it: refused).
QString openedTabName(const QString &openFile)
{
    if (isSharedHistoryLocation(openFile))
        return QString::fromStdString(core::displayHistoryLocation(openFile.toStdString()))
            .section(u'?', 0, 0)
            .section(u'#', 0, 0);
    return QFileInfo(openFile).fileName();
}

// The folders and the settings file the app writes under the user's home are private
// whatever the umask (files an earlier version left 0644/0755 too). QSettings rewrites its file
// through QSaveFile, which keeps an existing file's mode. Startup only, before any window.
void securePrivateLocations()
{
    const QString settingsFile = QSettings().fileName();
    const QString data = QStandardPaths::writableLocation(QStandardPaths::GenericDataLocation)
                       + QStringLiteral("/fieldscope");
    for (const QString &dir : {QFileInfo(settingsFile).absolutePath(), data,
                               QStandardPaths::writableLocation(QStandardPaths::AppDataLocation), historyFolder()})
        if (auto st = core::makePrivateDirectory(dir.toStdString(), true); !st)
            std::fprintf(stderr, "fieldscope: %s\n", st.error().describe().c_str());
    if (auto st = core::ensurePrivateFile(settingsFile.toStdString()); !st)
        std::fprintf(stderr, "fieldscope: %s\n", st.error().describe().c_str());
}

// What the command line asks of the window, checked before anything is shown.
struct GuiOptions {
    widgets::DetailPane::Tab tab = widgets::DetailPane::SummaryTab;
    bool tabGiven = false;
    QString resource, selectNs, selectName;
    QString openFile, kubeconfig, context, auditLog;
    bool useSandbox = false, keepSandbox = false, seedDemo = false;
    QString lessonName;
    QStringList lessonDirs;
    int lessonStep = 0; // 0: none
    bool lessonYes = false, presenter = false;
    QString screenshot; // empty: no --screenshot
    QSize screenshotSize;
    int screenshotTimeoutS = 60;
};

// Prints what is wrong and returns nullopt on a bad --tab, --select or --lesson-step.
std::optional<GuiOptions> readGuiOptions(const QCommandLineParser &p)
{
    GuiOptions o;
    const QString tabName = p.value(QStringLiteral("tab"));
    o.tabGiven = !tabName.isEmpty();
    if (o.tabGiven && !widgets::DetailPane::tabFromName(tabName, &o.tab)) {
        std::fprintf(stderr, "fieldscope: --tab must be summary, yaml, ownership, history or events\n");
        return std::nullopt;
    }
    o.resource = p.value(QStringLiteral("resource"));
    o.openFile = p.value(QStringLiteral("open"));
    if (p.isSet(QStringLiteral("select"))) {
        const QStringList parts = p.value(QStringLiteral("select")).split(u'/');
        if (parts.size() < 2 || parts.size() > 3 || parts.contains(QString())) {
            std::fprintf(stderr, "fieldscope: --select wants R/NAME or R/NAMESPACE/NAME\n");
            return std::nullopt;
        }
        o.resource = parts.first();
        o.selectName = parts.last();
        if (parts.size() == 3)
            o.selectNs = parts[1];
    }
    o.lessonName = p.value(QStringLiteral("lesson"));
    bool stepOk = true;
    o.lessonStep = p.isSet(QStringLiteral("lesson-step")) ? p.value(QStringLiteral("lesson-step")).toInt(&stepOk) : 0;
    if (!stepOk || o.lessonStep < 0) {
        std::fprintf(stderr, "fieldscope: --lesson-step wants a step number (1, 2, ...)\n");
        return std::nullopt;
    }
    o.lessonDirs = p.values(QStringLiteral("lessons"));
    o.lessonYes = p.isSet(QStringLiteral("yes"));
    o.presenter = p.isSet(QStringLiteral("presenter"));
    o.kubeconfig = p.value(QStringLiteral("kubeconfig"));
    o.context = p.value(QStringLiteral("context"));
    o.auditLog = p.value(QStringLiteral("audit-log"));
    o.useSandbox = p.isSet(QStringLiteral("sandbox"))
                || (!p.isSet(QStringLiteral("context")) && !p.isSet(QStringLiteral("kubeconfig"))
                    && o.openFile.isEmpty());
    o.keepSandbox = p.isSet(QStringLiteral("keep-sandbox"));
    o.seedDemo = p.isSet(QStringLiteral("demo"));
    o.screenshot = p.value(QStringLiteral("screenshot"));
    return o;
}

// With --screenshot: prints what is wrong and returns false on a bad --size or --screenshot-timeout.
bool readScreenshotOptions(const QCommandLineParser &p, GuiOptions &o)
{
    const auto size = parseScreenshotSize(p.value(QStringLiteral("size")));
    if (!size) {
        std::fprintf(stderr, "fieldscope: --size wants WIDTHxHEIGHT in pixels, e.g. 1280x800\n");
        return false;
    }
    bool timeoutOk = false;
    const int timeoutS = p.value(QStringLiteral("screenshot-timeout")).toInt(&timeoutOk);
    if (!timeoutOk || timeoutS < 1 || timeoutS > 86400) {
        std::fprintf(stderr, "fieldscope: --screenshot-timeout wants a number of seconds from 1 to 86400\n");
        return false;
    }
    o.screenshotSize = *size;
    o.screenshotTimeoutS = timeoutS;
    return true;
}

// The objects of one window's life. Members are destroyed in reverse order: the demo seeder and
// the screenshot taker first, the window last.
class GuiSession
{
public:
    explicit GuiSession(const GuiOptions &options)
        : o(options), workspace(&window), lessons(&window, &workspace, o.lessonDirs), classes(&window, &workspace)
    {
        QObject::connect(lessons.presenterAction(), &QAction::toggled, &classes, &ClassLauncher::setPresenter);
        classes.setPresenter(o.presenter); // --presenter: the Class view too
    }

    bool knowsLesson() const { return o.lessonName.isEmpty() || lessons.catalog().find(o.lessonName.toStdString()); }

    // --screenshot: the taker follows whatever opens first and saves it once it has loaded.
    void takeScreenshot()
    {
        window.resize(o.screenshotSize);
        ScreenshotTarget target{o.resource, o.selectNs, o.selectName, o.tab, o.tabGiven};
        target.lesson = !o.lessonName.isEmpty();
        target.lessonStep = o.lessonStep - 1;
        taker = std::make_unique<ScreenshotTaker>(&window, o.screenshot, target, o.screenshotTimeoutS * 1000);
        QObject::connect(&lessons, &LessonLauncher::started, taker.get(),
                         [t = taker.get()](LessonController *l) { t->follow(l); });
        QObject::connect(&workspace, &Workspace::opened, taker.get(),
                         [t = taker.get()](ClusterController *c) { t->follow(c); });
        if (!o.openFile.isEmpty()) {
            offline = std::make_unique<HistoryFileController>(window.addCluster(openedTabName(o.openFile)));
            taker->follow(offline.get());
        }
        if (o.useSandbox)
            QObject::connect(&sandbox, &SandboxController::failed, taker.get(), &ScreenshotTaker::fail);
    }

    // The sandbox, a recorded history, or the kubeconfig's cluster.
    void openFirstSource()
    {
        sandbox.setStopOnExit(!o.keepSandbox);
        if (o.useSandbox)
            startSandbox();
        else if (!o.openFile.isEmpty())
            openHistoryFile();
        else
            openFirst(o.kubeconfig, o.context);
    }

    // SIGTERM/SIGINT/SIGHUP: quit in order without asking (no one may be there to answer):
    // leaving exec() keeps drafts (DraftKeeper), then the destructors commit the recorder's last
    // batch (Workspace) and stop the sandbox (SandboxController, unless --keep-sandbox).
    // exit(), not quit(): Qt 6's quit() closes windows first, and closing asks about unsent edits.
    void quitOn(TerminationSignals &termination)
    {
        QObject::connect(&termination, &TerminationSignals::received, &window, [this](int sig) {
            std::fprintf(stderr, "fieldscope: %s: keeping drafts, finishing the history, stopping the sandbox\n",
                         TerminationSignals::name(sig));
            window.saveWindowState();
            QCoreApplication::exit(0);
        });
    }

    void show() { window.show(); }

private:
    // The first cluster; its tab exists before the sandbox or kubeconfig is ready.
    void openFirst(const QString &kubeconfig, const QString &context)
    {
        workspace.setKubeconfig(kubeconfig);
        workspace.loadContexts();
        first = workspace.open(context);
        classes.setClusterDir(ClassLauncher::clusterDirOf(kubeconfig)); // the sandbox's, or a cluster directory
        if (!o.auditLog.isEmpty())
            first->followAuditLog(o.auditLog);
        if (!o.resource.isEmpty())
            first->showResource(o.resource);
        if (!o.lessonName.isEmpty())
            lessons.start(first, {o.lessonName, o.lessonYes, o.presenter, o.lessonStep});
    }

    // A placeholder tab shows the sandbox starting; the real cluster tab replaces it once ready.
    void startSandbox()
    {
        widgets::ClusterView *placeholder = window.addCluster(SandboxController::contextName());
        placeholder->setRequestedContext(SandboxController::contextName()); // the switcher names it while it starts
        QObject::connect(&sandbox, &SandboxController::stateChanged, placeholder,
                         &widgets::ClusterView::setSandboxState);
        QObject::connect(&sandbox, &SandboxController::stateChanged, &window,
                         [this](const QString &s) { sandboxState = s; });
        QObject::connect(&sandbox, &SandboxController::ready, &window, [this, placeholder](const QString &kubeconfig) {
            window.tabs()->removeTab(window.tabs()->indexOf(placeholder));
            placeholder->deleteLater();
            openFirst(kubeconfig, SandboxController::contextName());
            if (o.auditLog.isEmpty()) { // the sandbox's API server writes one (scripts/fieldscope-cluster)
                // ...and sends the same events to its webhook, which the window receives.
                first->receiveAuditWebhook(SandboxController::auditWebhookOptions());
                first->followAuditLog(SandboxController::dataDir() + QStringLiteral("/logs/audit.log"));
            }
            if (sandbox.isFresh() || o.seedDemo)
                demo = std::make_unique<DemoSeeder>(first, o.resource.isEmpty() && o.lessonName.isEmpty()
                                                               && o.screenshot.isEmpty());
            first->view()->setSandboxState(sandboxState);
            QObject::connect(&sandbox, &SandboxController::stateChanged, first->view(),
                             &widgets::ClusterView::setSandboxState);
        });
        QObject::connect(&sandbox, &SandboxController::failed, placeholder, &widgets::ClusterView::setConnectionError);
        placeholder->setConnecting(QObject::tr("Starting the sandbox cluster (first start takes a few seconds)…"));
        sandbox.start();
    }

    void openHistoryFile()
    {
        if (!offline)
            offline = std::make_unique<HistoryFileController>(window.addCluster(openedTabName(o.openFile)));
        offline->showResource(o.resource);
        offline->open(o.openFile);
    }

    const GuiOptions &o;
    widgets::MainWindow window;
    Workspace workspace;
    LessonLauncher lessons;
    ClassLauncher classes;
    SandboxController sandbox;
    std::unique_ptr<HistoryFileController> offline;
    ClusterController *first = nullptr;
    std::unique_ptr<ScreenshotTaker> taker;
    QString sandboxState;
    std::unique_ptr<DemoSeeder> demo;
};

} // namespace

namespace {

// The window's whole life: it and everything it owns are destroyed when this returns.
int runSession(QApplication &app)
{
    setApplicationIdentity();
    securePrivateLocations();

    QCommandLineParser p;
    addWindowOptions(p);
    p.process(app);
    auto options = readGuiOptions(p);
    if (!options)
        return 2;
    GuiSession session(*options);
    if (!session.knowsLesson()) {
        std::fprintf(stderr, "fieldscope: no lesson named \"%s\" (see fieldscope lesson list)\n",
                     qUtf8Printable(options->lessonName));
        return 2;
    }
    if (!options->screenshot.isEmpty()) {
        if (!readScreenshotOptions(p, *options))
            return 2;
        session.takeScreenshot();
    }
    session.openFirstSource();
    TerminationSignals termination;
    session.quitOn(termination);
    session.show();
    return QApplication::exec();
}

// How long work a closed tab left running (a history load, an audit step inside the database) may
// take once the windows are gone. Past it the database is not answering; the statement timeout
// would end the wait within a minute, but the user asked to quit.
constexpr int kExitGraceMs = 15000;

} // namespace

int runGui(int &argc, char **argv)
{
    keepHeapCompact();
    QApplication app(argc, argv);
    int rc = 0;
    {
        // Destroyed after the window and the workspace released every history recorder: the last
        // batches are committed before the process exits (SIGTERM too).
        struct FinishRecorders {
            ~FinishRecorders() { core::HistoryRecorder::waitForReleased(); }
        } finishRecorders;
        rc = runSession(app);
    }
    if (!finishOrphans(QDeadlineTimer(kExitGraceMs))) {
        // Ending now is safe for what is left (a database transaction is rolled back; a log
        // position moves only with what was stored); tearing the libraries down under a thread
        // still inside them is not: it crashed the quit under load.
        std::fputs("fieldscope: quitting while a database read is still unanswered\n", stderr);
        std::fflush(nullptr);
        std::_Exit(rc);
    }
    return rc;
}

} // namespace fieldscope::app
