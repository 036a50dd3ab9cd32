// fieldscope list / fieldscope watch: the app's own list/watch code path, for scripts, teachers
// and the benchmark.
#include "app/cli/clisession.h"
#include "app/cli/commands.h"
#include "core/base/json.h"
#include "kube/watcher.h"

#include <QCoreApplication>
#include <QTimer>

#include <algorithm>
#include <cstdio>

namespace fieldscope::app {
namespace {

void addScopeOptions(QCommandLineParser &p)
{
    p.addOption({{QStringLiteral("n"), QStringLiteral("namespace")},
                 QStringLiteral("Namespace, or several separated by commas."),
                 QStringLiteral("NAMESPACE[,NAMESPACE...]")});
    p.addOption({{QStringLiteral("A"), QStringLiteral("all-namespaces")},
                 QStringLiteral("List across all namespaces.")});
    p.addOption({{QStringLiteral("l"), QStringLiteral("selector")},
                 QStringLiteral("Label selector."),
                 QStringLiteral("SELECTOR")});
    p.addOption({QStringLiteral("field-selector"), QStringLiteral("Field selector."), QStringLiteral("SELECTOR")});
    addConnectionOptions(p);
}

bool parse(QCommandLineParser &p, const QStringList &args, const char *usage)
{
    p.setApplicationDescription(QString::fromUtf8(usage));
    p.addHelpOption();
    p.addPositionalArgument(QStringLiteral("RESOURCE"),
                            QStringLiteral("Resource type: plural, singular, short name or kind."));
    if (!p.parse(args)) {
        std::fprintf(stderr, "fieldscope: %s\n", qUtf8Printable(p.errorText()));
        return false;
    }
    if (p.isSet(QStringLiteral("help"))) {
        std::fputs(qUtf8Printable(p.helpText()), stdout);
        std::exit(0);
    }
    if (p.positionalArguments().size() != 1) {
        std::fprintf(stderr, "fieldscope: expected exactly one RESOURCE\n%s", qUtf8Printable(p.helpText()));
        return false;
    }
    return true;
}

// One scope per namespace: `-n a,b` watches a set of namespaces (one watch each, multiplexed
// over the same HTTP/2 connection).
std::vector<kube::WatchScope> scopesFrom(const QCommandLineParser &p, const CliSession &s, const kube::ResourceInfo &r)
{
    std::vector<kube::WatchScope> scopes;
    const QStringList namespaces =
        QString::fromStdString(s.namespaceFor(p, r)).split(QLatin1Char(','), Qt::SkipEmptyParts);
    for (const QString &ns : namespaces.isEmpty() ? QStringList{QString()} : namespaces) {
        kube::WatchScope scope;
        scope.resource = r;
        scope.namespace_ = ns.toStdString();
        scope.labelSelector = p.value(QStringLiteral("selector")).toStdString();
        scope.fieldSelector = p.value(QStringLiteral("field-selector")).toStdString();
        scopes.push_back(std::move(scope));
    }
    return scopes;
}

std::string identity(const std::string &ns, const std::string &name)
{
    return ns.empty() ? name : ns + "/" + name;
}

} // namespace

int runList(const QStringList &args)
{
    QCommandLineParser p;
    addScopeOptions(p);
    p.addOption({{QStringLiteral("o"), QStringLiteral("output")},
                 QStringLiteral("names (default), json or count."),
                 QStringLiteral("FORMAT"),
                 QStringLiteral("names")});
    if (!parse(
            p, args,
            "fieldscope list RESOURCE [-n NAMESPACE | -A] [-l SELECTOR]: list objects through Fieldscope's paginated list."))
        return 2;
    const QString format = p.value(QStringLiteral("output"));
    if (format != QLatin1String("names") && format != QLatin1String("json") && format != QLatin1String("count"))
        return reportError(QStringLiteral("unknown output format \"%1\" (names, json, count)").arg(format)) + 1;
    auto session = CliSession::open(p);
    if (!session)
        return CliSession::openFailureCode();
    const auto *r = session->resolve(p.positionalArguments().constFirst());
    if (!r)
        return 1;
    if (!r->supports("list"))
        return reportError(QStringLiteral("%1 cannot be listed").arg(QString::fromStdString(r->qualifiedName())));
    kube::WatcherOptions opts;
    opts.listOnly = true;
    opts.tryWatchList = false;
    std::vector<std::unique_ptr<kube::Watcher>> watchers;
    int rc = 0, pending = 0;
    for (auto &scope : scopesFrom(p, *session, *r)) {
        auto w = std::make_unique<kube::Watcher>(&session->client(), scope, opts);
        QObject::connect(w.get(), &kube::Watcher::errorOccurred, [&](const QString &m) {
            // A list that fails is reported once and ends the command (no retry loop for scripts).
            rc = reportError(m);
            QCoreApplication::exit(rc);
        });
        QObject::connect(w.get(), &kube::Watcher::listCompleted, [&] {
            if (--pending == 0)
                QCoreApplication::exit(0);
        });
        ++pending;
        watchers.push_back(std::move(w));
    }
    for (auto &w : watchers)
        w->start();
    if (QCoreApplication::exec() != 0 || rc != 0)
        return rc ? rc : 1;
    std::size_t total = 0;
    for (const auto &w : watchers)
        total += w->store().size();
    if (format == QLatin1String("count")) {
        std::printf("%zu\n", total);
        return 0;
    }
    std::vector<const core::StoredObject *> sorted;
    sorted.reserve(total);
    for (const auto &w : watchers)
        w->store().forEach([&sorted](const core::StoredObject &o) { sorted.push_back(&o); });
    std::sort(sorted.begin(), sorted.end(), [](auto *a, auto *b) {
        return std::pair(a->namespace_(), a->name()) < std::pair(b->namespace_(), b->name());
    });
    if (format == QLatin1String("names")) {
        for (const auto *o : sorted)
            std::printf("%s\n", identity(std::string(o->namespace_()), std::string(o->name())).c_str());
        return 0;
    }
    // json: a v1 List, like kubectl get -o json; objects are written as the server sent them.
    std::fputs(R"({"apiVersion":"v1","kind":"List","items":[)", stdout);
    for (std::size_t i = 0; i < sorted.size(); ++i) {
        if (i)
            std::fputc(',', stdout);
        std::fwrite(sorted[i]->json().constData(), 1, std::size_t(sorted[i]->json().size()), stdout);
    }
    std::fputs("]}\n", stdout);
    return 0;
}

int runWatch(const QStringList &args)
{
    QCommandLineParser p;
    addScopeOptions(p);
    p.addOption({{QStringLiteral("o"), QStringLiteral("output")},
                 QStringLiteral("text (default) or json (one object per line)."),
                 QStringLiteral("FORMAT"),
                 QStringLiteral("text")});
    p.addOption({QStringLiteral("for"), QStringLiteral("Stop after this long (e.g. 30s, 5m, 1h)."),
                 QStringLiteral("DURATION")});
    if (!parse(p, args, "fieldscope watch RESOURCE [-n NAMESPACE | -A] [--for DURATION]: print one line per event."))
        return 2;
    const bool json = p.value(QStringLiteral("output")) == QLatin1String("json");
    qint64 forMs = -1;
    if (p.isSet(QStringLiteral("for")) && (forMs = parseDuration(p.value(QStringLiteral("for")))) < 0)
        return reportError(QStringLiteral("malformed duration \"%1\"").arg(p.value(QStringLiteral("for")))) + 1;
    auto session = CliSession::open(p);
    if (!session)
        return CliSession::openFailureCode();
    const auto *r = session->resolve(p.positionalArguments().constFirst());
    if (!r)
        return 1;
    std::vector<std::unique_ptr<kube::Watcher>> watchers;
    for (auto &scope : scopesFrom(p, *session, *r))
        watchers.push_back(std::make_unique<kube::Watcher>(&session->client(), scope));
    auto print = [json](const core::WatchBatch &b) {
        for (const auto &g : b.gaps) {
            if (json)
                std::printf("%s\n", core::toJsonText({{"type", "GAP"},
                                                      {"fromResourceVersion", g.fromResourceVersion},
                                                      {"toResourceVersion", g.toResourceVersion},
                                                      {"reason", g.reason}})
                                        .c_str());
            else
                std::printf("GAP %s..%s (%s)\n", g.fromResourceVersion.c_str(), g.toResourceVersion.c_str(),
                            g.reason.c_str());
        }
        for (const auto &e : b.events) {
            if (json)
                std::printf("%s\n", core::toJsonText({{"type", core::watchEventTypeName(e.type)},
                                                      {"namespace", e.namespace_},
                                                      {"name", e.name},
                                                      {"uid", e.uid},
                                                      {"resourceVersion", e.resourceVersion},
                                                      {"fromList", e.fromList}})
                                        .c_str());
            else
                std::printf("%-8s %s %s\n", core::watchEventTypeName(e.type), identity(e.namespace_, e.name).c_str(),
                            e.resourceVersion.c_str());
        }
        std::fflush(stdout);
    };
    for (auto &w : watchers) {
        QObject::connect(w.get(), &kube::Watcher::batchReady, print);
        QObject::connect(w.get(), &kube::Watcher::errorOccurred,
                         [](const QString &m) { std::fprintf(stderr, "fieldscope: %s\n", qUtf8Printable(m)); });
        QObject::connect(w.get(), &kube::Watcher::stateChanged, [](kube::Watcher::State st, const QString &) {
            if (st == kube::Watcher::State::Failed)
                QCoreApplication::exit(1);
        });
    }
    if (forMs >= 0)
        QTimer::singleShot(forMs, QCoreApplication::instance(), [&] {
            // Deliver what arrived until now before leaving.
            QMetaObject::invokeMethod(
                QCoreApplication::instance(), [] { QCoreApplication::exit(0); }, Qt::QueuedConnection);
        });
    for (auto &w : watchers)
        w->start();
    quitOnTerminationSignals();
    return QCoreApplication::exec();
}

} // namespace fieldscope::app
