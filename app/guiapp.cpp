#include "app/guiapp.h"

#include "app/clustercontroller.h"
#include "app/commands.h"
#include "app/sandbox.h"
#include "widgets/clusterview.h"
#include "widgets/mainwindow.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QDir>
#include <QFileInfo>
#include <QScreen>
#include <QTimer>

#include <cstdio>

namespace fieldscope::app {
namespace {

QString subcommandHelp()
{
    QString s = QStringLiteral("\nSubcommands (fieldscope SUBCOMMAND --help for each):\n");
    for (const auto *c = subcommands(); c->name; ++c)
        s += QStringLiteral("  %1  %2\n").arg(QString::fromUtf8(c->name).leftJustified(10), QString::fromUtf8(c->summary));
    return s;
}

} // namespace

int runGui(int &argc, char **argv)
{
    QApplication app(argc, argv);
    QApplication::setApplicationName(QStringLiteral("fieldscope"));
    QApplication::setApplicationVersion(QStringLiteral(FIELDSCOPE_VERSION));
    QApplication::setOrganizationName(QStringLiteral("fieldscope"));

    QCommandLineParser p;
    p.setApplicationDescription(QStringLiteral("Fieldscope: see who changed what in Kubernetes objects, and write back safely.\n"
                                               "With no --context or --kubeconfig it starts the local sandbox cluster.")
                                + subcommandHelp());
    p.addHelpOption();
    p.addVersionOption();
    p.addOption({QStringLiteral("context"), QStringLiteral("Connect to this kubeconfig context."), QStringLiteral("NAME")});
    p.addOption({QStringLiteral("kubeconfig"), QStringLiteral("Use this kubeconfig file."), QStringLiteral("FILE")});
    p.addOption({QStringLiteral("sandbox"), QStringLiteral("Start (or reuse) the local sandbox cluster and connect to it.")});
    p.addOption({QStringLiteral("resource"), QStringLiteral("Resource kind to show first (default: namespaces)."), QStringLiteral("R")});
    p.addOption({QStringLiteral("screenshot"), QStringLiteral("Render the window once the view has loaded, save it as PNG and exit."), QStringLiteral("FILE")});
    p.addOption({QStringLiteral("size"), QStringLiteral("Window size for --screenshot (default 1280x800)."), QStringLiteral("WxH"), QStringLiteral("1280x800")});
    p.addOption({QStringLiteral("keep-sandbox"), QStringLiteral("Leave the sandbox cluster running when the app quits.")});
    p.process(app);

    widgets::MainWindow window;
    widgets::ClusterView *view = window.addCluster(QObject::tr("Connecting"));
    ClusterController controller(view);
    SandboxController sandbox;
    const bool useSandbox = p.isSet(QStringLiteral("sandbox"))
                         || (!p.isSet(QStringLiteral("context")) && !p.isSet(QStringLiteral("kubeconfig")));
    if (p.isSet(QStringLiteral("resource")))
        controller.showResource(p.value(QStringLiteral("resource")));
    sandbox.setStopOnExit(!p.isSet(QStringLiteral("keep-sandbox")));

    const QString shot = p.value(QStringLiteral("screenshot"));
    if (!shot.isEmpty()) {
        const QStringList wh = p.value(QStringLiteral("size")).split(QLatin1Char('x'));
        window.resize(wh.value(0).toInt() > 0 ? wh.value(0).toInt() : 1280, wh.value(1).toInt() > 0 ? wh.value(1).toInt() : 800);
        auto save = [&window, shot](int code) {
            QDir().mkpath(QFileInfo(shot).absolutePath());
            const bool ok = window.grab().save(shot, "PNG");
            std::fprintf(ok ? stdout : stderr, ok ? "%s\n" : "fieldscope: cannot write %s\n", qUtf8Printable(shot));
            QApplication::exit(ok ? code : 1);
        };
        // Let the table lay out its rows before grabbing.
        QObject::connect(&controller, &ClusterController::loaded, &window, [save] { QTimer::singleShot(300, [save] { save(0); }); });
        QObject::connect(&controller, &ClusterController::failed, &window, [save](const QString &m) {
            std::fprintf(stderr, "fieldscope: %s\n", qUtf8Printable(m));
            save(1);
        });
        QTimer::singleShot(120'000, [save] { save(1); });
    }

    if (useSandbox) {
        QObject::connect(&sandbox, &SandboxController::stateChanged, view, &widgets::ClusterView::setSandboxState);
        QObject::connect(&sandbox, &SandboxController::ready, &controller, [&](const QString &kubeconfig) {
            controller.open(kubeconfig, SandboxController::contextName());
        });
        QObject::connect(&sandbox, &SandboxController::failed, view, &widgets::ClusterView::setConnectionError);
        if (!shot.isEmpty())
            QObject::connect(&sandbox, &SandboxController::failed, &controller, &ClusterController::failed);
        view->setConnecting(QObject::tr("Starting the sandbox cluster (first start takes a few seconds)…"));
        sandbox.start();
    } else {
        controller.open(p.value(QStringLiteral("kubeconfig")), p.value(QStringLiteral("context")));
    }
    window.show();
    return QApplication::exec();
}

} // namespace fieldscope::app
