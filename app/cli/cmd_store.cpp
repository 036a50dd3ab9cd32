// fieldscope store copy FROM TO: history moved between stores (a laptop's SQLite file into the
// team's PostgreSQL store and back), docs/team-history.md.
#include "app/cli/commands.h"
#include "app/services/historysource.h"
#include "core/base/jsonread.h"
#include "core/base/visibletext.h"
#include "core/history/historycopy.h"

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
                      {"adoptedRedactionKey", r.adoptedRedactionKey}};
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
    if (!p.parse(args)) {
        std::fprintf(stderr, "fieldscope: %s\n", qUtf8Printable(p.errorText()));
        return 2;
    }
    if (p.isSet(QStringLiteral("help"))) {
        std::fputs(qUtf8Printable(p.helpText()), stdout);
        return 0;
    }
    const QString output = p.value(QStringLiteral("output"));
    if (p.positionalArguments().size() != 2 || (output != QLatin1String("text") && output != QLatin1String("json"))) {
        std::fputs("usage: fieldscope store copy FROM TO [-o text|json]\n", stderr);
        return 2;
    }
    const std::string from = p.positionalArguments().at(0).toStdString();
    const std::string to = p.positionalArguments().at(1).toStdString();
    if (!core::isSharedHistoryLocation(from) && !QFileInfo::exists(QString::fromStdString(from)))
        return reportStoreError(core::Error::make(core::ErrorCategory::NotFound, "no history store " + from));
    auto source = core::HistoryStore::open(from, core::HistoryStore::OpenMode::ReadOnly);
    if (!source)
        return reportStoreError(source.error());
    // The destination belongs to the source's cluster (a store of another cluster refuses it).
    core::HistoryOpenOptions options;
    options.clusterIdentity = (*source)->clusterIdentity();
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
    return 0;
}

} // namespace

int runStore(const QStringList &args)
{
    const QString verb = args.value(1);
    if (verb == QLatin1String("copy"))
        return runStoreCopy(QStringList{args.value(0) + QStringLiteral(" copy")} + args.mid(2));
    if (verb == QLatin1String("-h") || verb == QLatin1String("--help") || verb.isEmpty()) {
        std::fputs("usage: fieldscope store copy FROM TO [-o text|json]\n"
                   "  Copies a history between stores: history files and postgresql:// team stores "
                   "(docs/team-history.md).\n",
                   verb.isEmpty() ? stderr : stdout);
        return verb.isEmpty() ? 2 : 0;
    }
    std::fprintf(stderr, "fieldscope: unknown store command \"%s\": try fieldscope store copy\n",
                 core::visibleEscapes(verb.toStdString()).c_str());
    return 2;
}

} // namespace fieldscope::app
