// fieldscope audit import FILE... --db FILE: who made each recorded version, backfilled from the
// API server's audit log files (docs/audit.md).
#include "app/cli/clisession.h"
#include "app/cli/commands.h"
#include "app/services/historysource.h"
#include "core/audit/auditimport.h"
#include "core/base/jsonread.h"
#include "core/base/visibletext.h"
#include "kube/kubeconfig.h"

#include <QCommandLineParser>
#include <QFileInfo>

#include <cstdio>

namespace fieldscope::app {
namespace {

core::Json reportJson(const core::AuditImportReport &r)
{
    return core::Json{{"files", r.files},
                      {"events", r.events},
                      {"skipped", r.skipped},
                      {"problems", r.problems},
                      {"objects", r.objects},
                      {"versions", r.versions},
                      {"exact", r.exact},
                      {"probable", r.probable},
                      {"ambiguous", r.ambiguous},
                      {"attempts", r.attempts},
                      {"unmatched", r.unmatched},
                      {"duplicates", r.duplicates},
                      {"storedJoins", r.storedJoins},
                      {"storedAttempts", r.storedAttempts}};
}

void printReport(const core::AuditImportReport &r, const QString &db)
{
    for (const auto &p : r.problems)
        std::fprintf(stderr, "fieldscope: skipped: %s\n", core::visibleEscapes(p).c_str());
    std::fprintf(
        stderr,
        "fieldscope: read %lld audit events from %lld file(s) (%lld skipped, %lld duplicates) against %lld versions of %lld "
        "recorded objects\n",
        static_cast<long long>(r.events), static_cast<long long>(r.files), static_cast<long long>(r.skipped),
        static_cast<long long>(r.duplicates), static_cast<long long>(r.versions), static_cast<long long>(r.objects));
    std::fprintf(
        stderr,
        "fieldscope: %lld versions joined (%lld exact, %lld probable, %lld with several candidates), %lld refused writes, "
        "%lld writes to objects or versions not recorded; %lld joins and %lld refused writes new in %s\n",
        static_cast<long long>(r.exact + r.probable + r.ambiguous), static_cast<long long>(r.exact),
        static_cast<long long>(r.probable), static_cast<long long>(r.ambiguous), static_cast<long long>(r.attempts),
        static_cast<long long>(r.unmatched), static_cast<long long>(r.storedJoins),
        static_cast<long long>(r.storedAttempts), qUtf8Printable(db));
}

int runAuditImport(const QStringList &args)
{
    QCommandLineParser p;
    p.setApplicationDescription(QStringLiteral(
        "fieldscope audit import FILE... --db FILE: join the API server's audit events (JSON lines as --audit-log-path writes "
        "them, plain or gzip, or per-line audit.k8s.io/v1 exports) to the versions recorded in a history database, so "
        "`history` names the user of each version and, with --attempts, the writes the server refused."));
    p.addHelpOption();
    p.addPositionalArgument(QStringLiteral("FILE"),
                            QStringLiteral("Audit log files, in any order (rotated ones too)."));
    p.addOption({QStringLiteral("db"), QStringLiteral("The history database the versions were recorded into."),
                 QStringLiteral("FILE")});
    p.addOption({QStringLiteral("store"),
                 QStringLiteral("Import into the window's own store for the cluster of --context (or the current "
                                "context), where the window and `record --store` record.")});
    p.addOption({QStringLiteral("kubeconfig"), QStringLiteral("With --store: the kubeconfig file."),
                 QStringLiteral("FILE")});
    p.addOption({QStringLiteral("context"), QStringLiteral("With --store: the context whose cluster's store to use."),
                 QStringLiteral("NAME")});
    p.addOption({{QStringLiteral("o"), QStringLiteral("output")},
                 QStringLiteral("text (default, on stderr) or json (on stdout)."),
                 QStringLiteral("FORMAT"),
                 QStringLiteral("text")});
    if (!p.parse(args))
        return reportError(p.errorText()) + 1;
    if (p.isSet(QStringLiteral("help"))) {
        std::fputs(qUtf8Printable(p.helpText()), stdout);
        return 0;
    }
    const QString output = p.value(QStringLiteral("output"));
    if (p.positionalArguments().isEmpty() || p.isSet(QStringLiteral("db")) == p.isSet(QStringLiteral("store"))
        || (output != QLatin1String("text") && output != QLatin1String("json")))
        return reportError(QStringLiteral("usage: fieldscope audit import FILE... --db FILE|--store [-o text|json]"))
             + 1;
    QString db = p.value(QStringLiteral("db"));
    if (p.isSet(QStringLiteral("store"))) {
        // Only the kubeconfig is read (the store is named by context and cluster): no connection.
        auto location = historyLocationForContext(p.value(QStringLiteral("kubeconfig")),
                                                  p.value(QStringLiteral("context")));
        if (!location)
            return reportError(location.error());
        db = *location;
    }
    // Joins go into a store that already holds the versions: never create an empty one by mistake.
    if (!isSharedHistoryLocation(db) && !QFileInfo::exists(db))
        return reportError(
                   QStringLiteral("no history database %1: record into it first (fieldscope record ... --db %1)")
                       .arg(db))
             + 1;
    auto store = core::HistoryStore::open(db.toStdString());
    if (!store)
        return reportError(store.error());
    core::AuditImporter importer(**store);
    std::int64_t files = 0;
    for (const QString &file : p.positionalArguments()) {
        if (auto st = core::importAuditLogFile(file.toStdString(), importer); !st)
            return reportError(st.error());
        ++files;
    }
    auto report = importer.finish();
    if (!report)
        return reportError(report.error());
    report->files = files;
    if (output == QLatin1String("json"))
        std::printf("%s\n", core::safeDump(reportJson(*report), 2).c_str());
    else
        printReport(*report, db);
    return 0;
}

} // namespace

int runAudit(const QStringList &args)
{
    const QString verb = args.value(1);
    if (verb == QLatin1String("import"))
        return runAuditImport(QStringList{args.value(0) + QStringLiteral(" import")} + args.mid(2));
    if (verb == QLatin1String("-h") || verb == QLatin1String("--help") || verb.isEmpty()) {
        std::fputs(
            "usage: fieldscope audit import FILE... --db FILE|--store [-o text|json]\n"
            "  Joins the API server's audit events to the versions a history database recorded (docs/audit.md).\n",
            verb.isEmpty() ? stderr : stdout);
        return verb.isEmpty() ? 2 : 0;
    }
    return reportError(
               QStringLiteral("unknown audit command \"%1\": try fieldscope audit import").arg(core::visibleText(verb)))
         + 1;
}

} // namespace fieldscope::app
