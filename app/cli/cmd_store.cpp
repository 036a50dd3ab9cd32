// fieldscope store copy FROM TO: history moved between stores (a laptop's SQLite file into the
// team's PostgreSQL store and back), docs/team-history.md. `store retention` is cmd_storeretention.cpp.
#include "app/cli/clisession.h"
#include "app/cli/commands.h"
#include "app/services/historysource.h"
#include "core/base/jsonread.h"
#include "core/base/visibletext.h"
#include "core/history/historycopy.h"
#include "core/history/historydb.h"

#include <QCommandLineParser>
#include <QFileInfo>

#include <cstdio>

namespace fieldscope::app {
namespace {

int reportStoreError(const core::Error &e)
{
    std::fprintf(stderr, "fieldscope: %s\n", core::visibleEscapes(e.describe()).c_str());
    return 1;
}

core::Json copyJson(const core::CopyReport &r)
{
    return core::Json{{"objects", r.objects},
                      {"versions", r.versions},
                      {"skippedDuplicates", r.skippedDuplicates},
                      {"gaps", r.gaps},
                      {"joins", r.joins},
                      {"attempts", r.attempts},
                      {"adoptedRedactionKey", r.adoptedRedactionKey},
                      {"unreadable", r.unreadable.count},
                      {"unreadableVersions", r.unreadable.named}};
}

// The identity TO must carry: FROM's, or the one the user named (--cluster-identity, or TO's
// #IDENTITY) when FROM is unstamped. Never none.
core::Result<std::string> copyTargetIdentity(const std::string &fromIdentity, const std::string &named,
                                             const std::string &to)
{
    // The store's own reading of TO's '#' (the last one, never one inside a password); a
    // selector that is a schema name names no cluster.
    std::string fragment = core::isSharedHistoryLocation(to) ? core::historydb::parsePostgresLocation(to).selector
                                                             : std::string();
    if (fragment.rfind("sha256:", 0) != 0)
        fragment.clear();
    if (!named.empty() && !fragment.empty() && named != fragment)
        return core::Error::make(core::ErrorCategory::Config,
                                 "--cluster-identity and TO's #IDENTITY name two clusters");
    const std::string chosen = named.empty() ? fragment : named;
    if (!fromIdentity.empty()) {
        if (!chosen.empty() && chosen != fromIdentity)
            return core::Error::make(core::ErrorCategory::Config, "FROM is the history of cluster " + fromIdentity
                                                                      + ", not of " + core::visibleEscapes(chosen));
        return fromIdentity;
    }
    if (chosen.empty())
        return core::Error::make(
            core::ErrorCategory::Config,
            "FROM names no cluster (written before stores were stamped): say which cluster it "
            "is with --cluster-identity IDENTITY, so it is never merged into another cluster's store");
    if (chosen.rfind("sha256:", 0) != 0 || chosen.size() > 200)
        return core::Error::make(
            core::ErrorCategory::Config,
            "--cluster-identity is sha256:HEX, as the window's Settings and `history --db` show it");
    return chosen;
}

int runStoreCopy(const QStringList &args)
{
    QCommandLineParser p;
    p.setApplicationDescription(QStringLiteral(
        "fieldscope store copy FROM TO: copy every version, gap, resume point, deletion mark, audit join and refused "
        "write of FROM into TO (a history file or a postgresql:// store; TO is created for FROM's cluster when "
        "missing). Versions TO holds already are skipped, so a copy can be repeated."));
    p.addHelpOption();
    p.addPositionalArgument(QStringLiteral("FROM"),
                            QStringLiteral("The history file or postgresql://…#IDENTITY store."));
    p.addPositionalArgument(QStringLiteral("TO"), QStringLiteral("The history file or postgresql:// store."));
    p.addOption({{QStringLiteral("o"), QStringLiteral("output")},
                 QStringLiteral("text (default, on stderr) or json (on stdout)."),
                 QStringLiteral("FORMAT"),
                 QStringLiteral("text")});
    p.addOption({QStringLiteral("cluster-identity"),
                 QStringLiteral("The cluster TO belongs to (sha256:…, as `fieldscope history --db` and the window's "
                                "Settings show it), required when FROM names none (a file written before stores "
                                "were stamped): TO is then refused unless it is that cluster's."),
                 QStringLiteral("IDENTITY")});
    if (int rc = 0; !parseOrHelp(p, args, &rc))
        return rc;
    const QString output = p.value(QStringLiteral("output"));
    if (p.positionalArguments().size() != 2 || (output != QLatin1String("text") && output != QLatin1String("json"))) {
        std::fputs("usage: fieldscope store copy FROM TO [--cluster-identity IDENTITY] [-o text|json]\n", stderr);
        return 2;
    }
    const std::string from = p.positionalArguments().at(0).toStdString();
    const std::string to = p.positionalArguments().at(1).toStdString();
    if (!core::isSharedHistoryLocation(from) && !QFileInfo::exists(QString::fromStdString(from)))
        return reportStoreError(core::Error::make(core::ErrorCategory::NotFound, "no history store " + from));
    auto source = core::HistoryStore::open(from, core::HistoryStore::OpenMode::ReadOnly);
    if (!source)
        return reportStoreError(source.error());
    // The destination belongs to the source's cluster (a store of another cluster refuses it). A
    // source that names no cluster would be merged into whatever store TO is, possibly another
    // cluster's: the user names the cluster, and TO must be it.
    auto identity = copyTargetIdentity((*source)->clusterIdentity(),
                                       p.value(QStringLiteral("cluster-identity")).toStdString(), to);
    if (!identity)
        return reportStoreError(identity.error()) + 1; // 2: the command must name the cluster
    core::HistoryOpenOptions options;
    options.clusterIdentity = *identity;
    options.clusterLabel = (*source)->clusterLabel();
    options.recordSecretValues = (*source)->recordsSecretValues();
    options.recorderName = recorderNameFor("store copy");
    auto target = core::HistoryStore::open(to, core::HistoryStore::OpenMode::ReadWrite, options);
    if (!target)
        return reportStoreError(target.error());
    auto report = core::copyHistory(**source, **target);
    if (!report)
        return reportStoreError(report.error());
    if (output == QLatin1String("json")) {
        std::printf("%s\n", core::safeDump(copyJson(*report), 2).c_str());
        return 0;
    }
    std::fprintf(stderr,
                 "fieldscope: copied %lld objects: %lld versions stored (%lld already there), %lld gaps, %lld audit "
                 "joins, %lld refused writes, from %s to %s\n",
                 static_cast<long long>(report->objects), static_cast<long long>(report->versions),
                 static_cast<long long>(report->skippedDuplicates), static_cast<long long>(report->gaps),
                 static_cast<long long>(report->joins), static_cast<long long>(report->attempts),
                 core::visibleEscapes(core::displayHistoryLocation(from)).c_str(),
                 core::visibleEscapes(core::displayHistoryLocation(to)).c_str());
    if (report->adoptedRedactionKey)
        std::fputs("fieldscope: the new store took the source's Secret hash key: hashed values stay comparable\n",
                   stderr);
    printUnreadable(report->unreadable, "copied");
    return 0;
}

} // namespace

int runStore(const QStringList &args)
{
    const QString verb = args.value(1);
    if (verb == QLatin1String("copy"))
        return runStoreCopy(QStringList{args.value(0) + QStringLiteral(" copy")} + args.mid(2));
    if (verb == QLatin1String("retention"))
        return runStoreRetention(QStringList{args.value(0) + QStringLiteral(" retention")} + args.mid(2));
    // The option lines are what `fieldscope completion` offers after `store`.
    if (verb == QLatin1String("-h") || verb == QLatin1String("--help") || verb.isEmpty()) {
        std::fputs("usage: fieldscope store copy FROM TO [--cluster-identity IDENTITY] [-o text|json]\n"
                   "       fieldscope store retention URL [--versions N] [--days D] [--bytes B] [-o text|json]\n"
                   "  copy: copies a history between stores: history files and postgresql:// team stores.\n"
                   "  retention: prints a team store's retention and its last prunings; with options, its owner\n"
                   "  sets it (every recorder of the store applies it; docs/team-history.md).\n"
                   "  --cluster-identity IDENTITY   copy: the cluster TO belongs to\n"
                   "  --versions N                  retention: versions kept per object (0: no limit)\n"
                   "  --days D                      retention: days a version is kept (0: no limit)\n"
                   "  --bytes B                     retention: stored bytes the store keeps (0: no limit)\n"
                   "  -o, --output FORMAT           text or json\n",
                   verb.isEmpty() ? stderr : stdout);
        return verb.isEmpty() ? 2 : 0;
    }
    std::fprintf(stderr, "fieldscope: unknown store command \"%s\": try fieldscope store copy or store retention\n",
                 core::visibleEscapes(verb.toStdString()).c_str());
    return 2;
}

} // namespace fieldscope::app
