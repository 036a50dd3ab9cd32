#include "app/services/windowoptions.h"

#include <QCommandLineParser>

namespace fieldscope::app {

QList<QCommandLineOption> windowOptions()
{
    QList<QCommandLineOption> o;
    o.append({QStringLiteral("version"), QStringLiteral("Print the version (with -v: the libraries' too) and exit.")});
    o.append({{QStringLiteral("v"), QStringLiteral("verbose")},
              QStringLiteral("Log debug messages (-v=N as with kubectl; 0 is off). Works with every subcommand.")});
    o.append({QStringLiteral("context"), QStringLiteral("Connect to this kubeconfig context."),
              QStringLiteral("NAME")});
    o.append({QStringLiteral("kubeconfig"), QStringLiteral("Use this kubeconfig file."), QStringLiteral("FILE")});
    o.append({QStringLiteral("sandbox"),
              QStringLiteral("Start (or reuse) the local sandbox cluster and connect to it.")});
    o.append({QStringLiteral("resource"), QStringLiteral("Resource kind to show first (default: namespaces)."),
              QStringLiteral("R")});
    o.append({QStringLiteral("select"),
              QStringLiteral("Select this object: R/NAME or R/NAMESPACE/NAME (R as for --resource)."),
              QStringLiteral("R/NAME")});
    o.append(
        {QStringLiteral("tab"),
         QStringLiteral(
             "Detail tab to show: summary, yaml, ownership, history or events (of --select's object, or the first one)."),
         QStringLiteral("TAB")});
    o.append({QStringLiteral("screenshot"),
              QStringLiteral("Render the window once the selected view has loaded, save it as PNG and exit."),
              QStringLiteral("FILE")});
    o.append({QStringLiteral("size"), QStringLiteral("Window size for --screenshot (default 1280x800)."),
              QStringLiteral("WxH"), QStringLiteral("1280x800")});
    o.append({QStringLiteral("screenshot-timeout"),
              QStringLiteral(
                  "With --screenshot: after this many seconds save what the window shows and exit 1 (default 60)."),
              QStringLiteral("SECONDS"), QStringLiteral("60")});
    o.append({QStringLiteral("keep-sandbox"), QStringLiteral("Leave the sandbox cluster running when the app quits.")});
    o.append(
        {QStringLiteral("audit-log"),
         QStringLiteral("Follow the cluster's audit log (its API server's --audit-log-path) so the History tab names "
                        "who made each version and the refused writes (the sandbox follows its own)."),
         QStringLiteral("FILE")});
    o.append({QStringLiteral("open"),
              QStringLiteral("Open a recorded history (a history database or a .jsonl export) without a cluster."),
              QStringLiteral("FILE")});
    o.append({QStringLiteral("lesson"),
              QStringLiteral("Start this lesson (see `fieldscope lesson list`) once connected."),
              QStringLiteral("NAME")});
    o.append({QStringLiteral("lesson-step"),
              QStringLiteral("With --lesson: run the steps up to N (1-based) right away."), QStringLiteral("N")});
    o.append({QStringLiteral("presenter"),
              QStringLiteral("With --lesson: presenter mode (large type, high contrast, Space/Backspace).")});
    o.append({QStringLiteral("lessons"), QStringLiteral("Also load lessons from DIR (repeatable)."),
              QStringLiteral("DIR")});
    o.append({QStringLiteral("demo"),
              QStringLiteral("With the sandbox: (re)create its demo namespace (a new sandbox always gets one).")});
    o.append({QStringLiteral("yes"),
              QStringLiteral("With --lesson: run on a cluster that is not the sandbox without asking.")});
    return o;
}

void addWindowOptions(QCommandLineParser &p, const QString &more)
{
    p.setApplicationDescription(
        QStringLiteral("Fieldscope: see who changed what in Kubernetes objects, and write back safely.\n"
                       "With no --context or --kubeconfig it starts the local sandbox cluster.")
        + more);
    p.addHelpOption();
    p.addOptions(windowOptions());
}

QStringList guiOptionsWithValues()
{
    QStringList out;
    for (const QCommandLineOption &o : windowOptions())
        if (!o.valueName().isEmpty())
            for (const QString &name : o.names())
                out << (name.size() == 1 ? QStringLiteral("-") : QStringLiteral("--")) + name;
    return out;
}

} // namespace fieldscope::app
