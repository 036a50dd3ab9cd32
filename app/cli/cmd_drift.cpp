// fieldscope drift: the fields an Apply manager set that another manager has changed or taken
// since, for live objects, from the cluster's recorded history (who, when, the applied and the
// live value) or, without one, from managedFields alone (docs/history.md, "Drift").
#include "app/cli/clisession.h"
#include "app/cli/commands.h"
#include "app/services/backgroundrecording.h"
#include "app/services/historysource.h"
#include "core/base/jsonread.h"
#include "core/base/visibletext.h"
#include "core/drift/driftquery.h"
#include "kube/watcher.h"
#include "kube/writes.h"

#include <QCoreApplication>
#include <QFileInfo>

#include <algorithm>
#include <cstdio>

namespace fieldscope::app {
namespace {

void addDriftOptions(QCommandLineParser &p)
{
    p.setApplicationDescription(QStringLiteral(
        "fieldscope drift [RESOURCE[/NAME]] [-n NS | -A] [--manager NAME] [--db FILE|URL] [-o text|json]: the fields "
        "an Apply manager set that another manager has changed or taken since."));
    p.addHelpOption();
    p.addPositionalArgument(QStringLiteral("RESOURCE[/NAME]"),
                            QStringLiteral("e.g. deployments, deployments/web (default: the resources Settings "
                                           "records in the background)."));
    p.addOption({{QStringLiteral("n"), QStringLiteral("namespace")},
                 QStringLiteral("Namespace (default: the context's)."),
                 QStringLiteral("NAMESPACE")});
    p.addOption({{QStringLiteral("A"), QStringLiteral("all-namespaces")}, QStringLiteral("Every namespace.")});
    p.addOption({QStringLiteral("manager"), QStringLiteral("Only the fields this Apply manager set."),
                 QStringLiteral("NAME")});
    p.addOption({QStringLiteral("db"),
                 QStringLiteral("The history database, a team's postgresql:// store or a .jsonl export (default: the "
                                "window's store for this cluster; without one, managedFields alone)."),
                 QStringLiteral("FILE|URL")});
    p.addOption({{QStringLiteral("o"), QStringLiteral("output")},
                 QStringLiteral("text (default) or json."),
                 QStringLiteral("FORMAT"),
                 QStringLiteral("text")});
    addConnectionOptions(p);
}

// 0, or the exit code of a command line drift cannot run (and why, on stderr).
int checkDriftUsage(const QCommandLineParser &p)
{
    const QString format = p.value(QStringLiteral("output"));
    if (format != QLatin1String("text") && format != QLatin1String("json"))
        return reportError(QStringLiteral("unknown output format \"%1\" (text, json)").arg(format)) + 1;
    if (p.positionalArguments().size() > 1)
        return reportError(QStringLiteral("usage: fieldscope drift [RESOURCE[/NAME]] [-n NS | -A] [--manager NAME] "
                                          "[--db FILE|URL] [-o text|json]"))
             + 1;
    const QStringList given = p.optionNames();
    const bool all = given.contains(QLatin1String("A")) || given.contains(QLatin1String("all-namespaces"));
    if (all && (given.contains(QLatin1String("n")) || given.contains(QLatin1String("namespace"))))
        return reportError(QStringLiteral("-n and -A exclude each other")) + 1;
    const QString target = p.positionalArguments().value(0);
    if (target.contains(QLatin1Char('/')) && (all || target.section(QLatin1Char('/'), 1).isEmpty()))
        return reportError(QStringLiteral("RESOURCE/NAME names one object: give its namespace with -n, not -A")) + 1;
    if (p.isSet(QStringLiteral("manager")) && p.value(QStringLiteral("manager")).isEmpty())
        return reportError(QStringLiteral("--manager takes a manager's name")) + 1;
    return 0;
}

// The store to read: --db, else the window's store for this cluster when there is one. Null when
// there is none (managedFields alone); an error when one was named or exists but cannot be read.
core::Result<std::unique_ptr<core::HistoryStore>> openStore(const QCommandLineParser &p, const CliSession &session)
{
    const kube::ResolvedConfig &config = session.connection().config;
    const bool named = p.isSet(QStringLiteral("db"));
    const QString location = named ? p.value(QStringLiteral("db"))
                                   : historyLocationFor(QString::fromStdString(config.contextName),
                                                        clusterIdentityOf(config));
    if (!isSharedHistoryLocation(location) && !QFileInfo::exists(location)) {
        if (named)
            return core::Error::make(core::ErrorCategory::NotFound,
                                     "no history database " + core::visibleEscapes(location.toStdString()));
        std::fprintf(stderr,
                     "fieldscope: nothing is recorded for this cluster on this computer (%s): drift from "
                     "managedFields alone\n",
                     core::visibleEscapes(location.toStdString()).c_str());
        return std::unique_ptr<core::HistoryStore>();
    }
    return openHistoryForReading(location.toStdString());
}

// Every object of `r` in `ns` ("" = all), listed through the app's own paginated list.
core::Result<std::vector<QByteArray>> listObjects(CliSession &session, const kube::ResourceInfo &r,
                                                  const std::string &ns)
{
    kube::WatcherOptions opts;
    opts.listOnly = true;
    opts.tryWatchList = false;
    kube::Watcher watcher(&session.client(), kube::WatchScope{r, r.namespaced ? ns : std::string(), {}, {}}, opts);
    QString failure;
    QObject::connect(&watcher, &kube::Watcher::errorOccurred, [&failure](const QString &m) {
        failure = m; // a list that fails is reported once: no retry loop for scripts
        QCoreApplication::exit(1);
    });
    QObject::connect(&watcher, &kube::Watcher::listCompleted, [] { QCoreApplication::exit(0); });
    watcher.start();
    const int rc = QCoreApplication::exec();
    watcher.stop();
    if (rc != 0 || !failure.isEmpty())
        return core::Error::make(core::ErrorCategory::Network,
                                 failure.isEmpty() ? "the list did not complete" : failure.toStdString());
    std::vector<const core::StoredObject *> sorted;
    watcher.store().forEach([&sorted](const core::StoredObject &o) { sorted.push_back(&o); });
    std::sort(sorted.begin(), sorted.end(), [](auto *a, auto *b) {
        return std::pair(a->namespace_(), a->name()) < std::pair(b->namespace_(), b->name());
    });
    std::vector<QByteArray> out;
    out.reserve(sorted.size());
    for (const auto *o : sorted)
        out.push_back(o->json());
    return out;
}

// The live objects RESOURCE[/NAME] names, as the server sent them.
core::Result<std::vector<QByteArray>> liveObjects(CliSession &session, const QCommandLineParser &p,
                                                  const kube::ResourceInfo &r, const QString &name)
{
    const std::string ns = session.namespaceFor(p, r);
    if (name.isEmpty())
        return listObjects(session, r, ns);
    auto resp = session.call(kube::getRequest(r, r.namespaced ? ns : std::string(), name.toStdString()));
    if (!resp)
        return resp.error();
    return std::vector<QByteArray>{QByteArray::fromStdString(resp->body)};
}

// What one command line found, and whether anything could not be read.
struct DriftRun {
    std::vector<core::DriftFinding> findings;
    bool failed = false;
};

// One live object: its drift, or a message on stderr (an object the server sent that we cannot
// read costs that object; the run then exits 1).
void driftOf(const QByteArray &bytes, const kube::ResourceInfo &r, core::HistoryStore *store,
             const core::DriftOptions &options, DriftRun &run)
{
    auto live = core::parseJson(std::string_view(bytes.constData(), std::size_t(bytes.size())));
    core::DriftObjectRef ref;
    ref.resource = r.qualifiedName();
    if (live) {
        ref.namespace_ = core::stringAt(*live, "/metadata/namespace").value_or("");
        ref.name = core::stringAt(*live, "/metadata/name").value_or("");
        ref.uid = core::stringAt(*live, "/metadata/uid").value_or("");
    }
    auto report = live ? core::analyseDrift(store, *live, ref, options) : core::Result<core::DriftReport>(live.error());
    const std::string who = core::visibleEscapes(ref.resource + "/"
                                                 + (ref.namespace_.empty() ? "" : ref.namespace_ + "/")
                                                 + (ref.name.empty() ? "?" : ref.name));
    if (!report) {
        std::fprintf(stderr, "fieldscope: %s: %s\n", who.c_str(), report.error().describe().c_str());
        run.failed = true;
        return;
    }
    for (const auto &note : report->notes)
        std::fprintf(stderr, "fieldscope: %s: %s\n", who.c_str(), core::visibleEscapes(note).c_str());
    for (auto &f : report->findings)
        run.findings.push_back(std::move(f));
}

} // namespace

int runDrift(const QStringList &args)
{
    QCommandLineParser p;
    addDriftOptions(p);
    if (int rc = 0; !parseOrHelp(p, args, &rc))
        return rc;
    if (const int usage = checkDriftUsage(p); usage != 0)
        return usage;
    auto session = CliSession::open(p);
    if (!session)
        return CliSession::openFailureCode();
    auto store = openStore(p, *session);
    if (!store) {
        std::fprintf(stderr, "fieldscope: the history store could not be read: %s\n", store.error().describe().c_str());
        return 1;
    }
    core::DriftOptions options;
    options.manager = p.value(QStringLiteral("manager")).toStdString();
    const QString target = p.positionalArguments().value(0);
    const QStringList resources = target.isEmpty() ? backgroundResources().split(QLatin1Char(','), Qt::SkipEmptyParts)
                                                   : QStringList{target.section(QLatin1Char('/'), 0, 0)};
    if (resources.isEmpty()) { // nothing named, and Settings records nothing: no analysis to report
        std::fprintf(stderr, "fieldscope: drift needs a RESOURCE (no resources are recorded in the background to "
                             "default to)\n");
        return 2;
    }
    DriftRun run;
    for (const QString &word : resources) {
        const kube::ResourceInfo *r = session->resolve(word.trimmed());
        if (!r)
            return 1;
        auto objects = liveObjects(*session, p, *r, target.section(QLatin1Char('/'), 1));
        if (!objects) {
            std::fprintf(stderr, "fieldscope: %s\n", objects.error().describe().c_str());
            return 1;
        }
        for (const QByteArray &bytes : *objects)
            driftOf(bytes, *r, store->get(), options, run);
    }
    if (p.value(QStringLiteral("output")) == QLatin1String("json"))
        std::printf("%s\n", core::safeDump(core::driftJson(run.findings), 2).c_str());
    else if (run.findings.empty())
        std::printf("no drift\n");
    else
        std::fputs(core::driftText(run.findings).c_str(), stdout);
    return run.failed ? 1 : 0;
}

} // namespace fieldscope::app
