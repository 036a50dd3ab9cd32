// fieldscope store retention URL [--versions N] [--days D] [--bytes B]: a team store's own
// retention, which every recorder of the store applies and only the store's owner sets, and the
// last prunings recorders made (docs/team-history.md).
#include "app/cli/clisession.h"
#include "app/cli/commands.h"
#include "core/base/json.h"
#include "core/base/jsonread.h"
#include "core/base/visibletext.h"
#include "core/history/historydb.h"
#include "core/history/historyexport.h"
#include "core/history/historystore.h"

#include <QCommandLineParser>
#include <QDateTime>
#include <QLocale>

#include <cstdio>
#include <optional>

namespace fieldscope::app {
namespace {

constexpr std::int64_t kDayMs = 24ll * 3600 * 1000;
constexpr int kShownPrunings = 10;

// Exit codes as the other store commands: 1 a store could not be read or written; 2 usage, and a
// refusal only the user can mend (this role does not own the store, a value out of range).
int fail(const core::Error &e)
{
    std::fprintf(stderr, "fieldscope: %s\n", core::visibleEscapes(e.describe()).c_str());
    const bool refusal = e.category == core::ErrorCategory::Forbidden || e.category == core::ErrorCategory::Invalid
                      || e.category == core::ErrorCategory::Config;
    return refusal ? 2 : 1;
}

// "536870912", "512M", "512MiB", "10G": binary multiples. nullopt when not such a size.
std::optional<std::int64_t> parseBytes(const QString &text)
{
    QString t = text.trimmed();
    std::int64_t unit = 1;
    for (const auto &[suffix, size] :
         {std::pair{u'K', 1ll << 10}, {u'M', 1ll << 20}, {u'G', 1ll << 30}, {u'T', 1ll << 40}}) {
        for (const QString &tail : {QString(suffix), QString(suffix) + u'i', QString(suffix) + QStringLiteral("iB")})
            if (t.endsWith(tail, Qt::CaseInsensitive) && unit == 1) {
                t.chop(tail.size());
                unit = size;
            }
    }
    bool ok = false;
    const qlonglong n = t.toLongLong(&ok);
    if (!ok || n < 0 || n > INT64_MAX / unit)
        return std::nullopt;
    return std::int64_t(n) * unit;
}

std::optional<std::int64_t> parseCount(const QString &text)
{
    bool ok = false;
    const qlonglong n = text.trimmed().toLongLong(&ok);
    return ok && n >= 0 ? std::optional<std::int64_t>(n) : std::nullopt;
}

// The options given, or why not (usage: exit 2).
core::Result<core::RetentionChange> changeFrom(const QCommandLineParser &p)
{
    core::RetentionChange change;
    const auto bad = [](const char *what) {
        return core::Error::make(core::ErrorCategory::Invalid, std::string(what) + " takes a number (0: no limit)");
    };
    if (p.isSet(QStringLiteral("versions"))) {
        change.maxVersionsPerObject = parseCount(p.value(QStringLiteral("versions")));
        if (!change.maxVersionsPerObject)
            return bad("--versions");
    }
    if (p.isSet(QStringLiteral("days"))) {
        const auto days = parseCount(p.value(QStringLiteral("days")));
        if (!days || *days > INT64_MAX / kDayMs)
            return bad("--days");
        change.maxAgeMs = *days * kDayMs;
    }
    if (p.isSet(QStringLiteral("bytes"))) {
        change.maxTotalBytes = parseBytes(p.value(QStringLiteral("bytes")));
        if (!change.maxTotalBytes)
            return core::Error::make(core::ErrorCategory::Invalid,
                                     "--bytes takes a size in bytes, or with K, M, G or T (binary: 512M, 10G)");
    }
    if (const std::string why = core::checkRetentionChange(change); !why.empty())
        return core::Error::make(core::ErrorCategory::Invalid, why);
    return change;
}

std::string limitText(std::int64_t value, const char *unit)
{
    return value > 0 ? std::to_string(value) + unit : std::string("no limit");
}

std::string bytesText(std::int64_t bytes)
{
    if (bytes <= 0)
        return "no limit";
    for (const auto &[suffix, size] : {std::pair{" TiB", 1ll << 40}, {" GiB", 1ll << 30}, {" MiB", 1ll << 20}})
        if (bytes % size == 0)
            return std::to_string(bytes / size) + suffix;
    return std::to_string(bytes) + " bytes";
}

struct Report {
    std::string location;
    std::string cluster;
    core::StoreRetention retention;
    core::HistoryStore::Ownership ownership;
    std::vector<core::PruningRecord> prunings;
};

core::Json reportJson(const Report &r)
{
    const core::RetentionPolicy &p = r.retention.policy;
    core::Json prunings = core::Json::array();
    for (const auto &x : r.prunings)
        prunings.push_back({{"recorder", x.recorder},
                            {"at", core::formatTimestampMs(x.atMs)},
                            {"versions", x.versions},
                            {"bytes", x.bytes}});
    return core::Json{
        {"location", r.location},
        {"cluster", r.cluster},
        {"policy",
         {{"versions", std::max<std::int64_t>(p.maxVersionsPerObject, 0)},
          {"days", std::max<std::int64_t>(p.maxAgeMs, 0) / kDayMs},
          {"bytes", std::max<std::int64_t>(p.maxTotalBytes, 0)},
          {"set", r.retention.set},
          {"setBy", r.retention.setBy},
          {"setAt", r.retention.set ? core::Json(core::formatTimestampMs(r.retention.setAtMs)) : core::Json(nullptr)}}},
        {"owner", r.ownership.owner},
        {"mayChange", r.ownership.isOwner},
        {"prunings", prunings}};
}

void printReport(const Report &r)
{
    const core::RetentionPolicy &p = r.retention.policy;
    const auto shown = [](const std::string &s) { return core::visibleEscapes(s); };
    std::printf("Retention of %s (%s)\n", shown(r.location).c_str(), shown(r.cluster).c_str());
    std::printf("  versions per object  %s\n", limitText(p.maxVersionsPerObject, "").c_str());
    std::printf("  age                  %s\n",
                limitText(p.maxAgeMs > 0 ? p.maxAgeMs / kDayMs : 0, p.maxAgeMs == kDayMs ? " day" : " days").c_str());
    std::printf("  stored bytes         %s\n", bytesText(p.maxTotalBytes).c_str());
    if (r.retention.set)
        std::printf("  set by %s at %s\n", shown(r.retention.setBy).c_str(),
                    core::formatTimestampMs(r.retention.setAtMs).c_str());
    else
        std::printf("  not set: the defaults; the owner sets them with --versions, --days, --bytes\n");
    std::printf("  owner                %s (%s)\n", shown(r.ownership.owner).c_str(),
                r.ownership.isOwner
                    ? "this role may change the policy"
                    : ("only it may change the policy; this role is " + shown(r.ownership.user)).c_str());
    if (r.prunings.empty()) {
        std::printf("Prunings: none recorded\n");
        return;
    }
    std::printf("Last prunings, newest first:\n");
    for (const auto &x : r.prunings)
        std::printf("  %s  %s  %lld versions, %s\n", core::formatTimestampMs(x.atMs).c_str(), shown(x.recorder).c_str(),
                    static_cast<long long>(x.versions),
                    qUtf8Printable(QLocale::c().formattedDataSize(x.bytes, 1, QLocale::DataSizeIecFormat)));
}

// Sets the policy as the store's owner: refused before anything is written when this role is not.
core::Status setRetention(core::HistoryStore &store, const std::string &location, const core::RetentionChange &change)
{
    auto who = store.ownership();
    if (!who)
        return who.error();
    if (!who->isOwner)
        return core::Error::make(core::ErrorCategory::Forbidden,
                                 "only the store's owner (the role " + who->owner
                                     + ") may set its retention; this connection's role is " + who->user);
    // A location without '#' reaches the only store; name it so a writer can never make another.
    core::HistoryOpenOptions options;
    if (core::historydb::parsePostgresLocation(location).selector.empty())
        options.clusterIdentity = store.clusterIdentity();
    options.clusterLabel = store.clusterLabel();
    auto writable = core::HistoryStore::open(location, core::HistoryStore::OpenMode::ReadWrite, options);
    if (!writable)
        return writable.error();
    return (*writable)->setStoreRetention(change, QDateTime::currentMSecsSinceEpoch());
}

} // namespace

int runStoreRetention(const QStringList &args)
{
    QCommandLineParser p;
    p.setApplicationDescription(QStringLiteral(
        "fieldscope store retention URL: print a team store's retention (every recorder of the store applies it, "
        "whatever its user's Settings say; a window never prunes a shared store) and the last prunings. With "
        "--versions, --days or --bytes, set them: only the store's owner role may."));
    p.addHelpOption();
    p.addPositionalArgument(QStringLiteral("URL"), QStringLiteral("The postgresql://…[#IDENTITY] store."));
    p.addOption({QStringLiteral("versions"), QStringLiteral("Versions kept per object: 0 (no limit) or 2 and more."),
                 QStringLiteral("N")});
    p.addOption({QStringLiteral("days"), QStringLiteral("Days a version is kept: 0 (no limit) or 1 to 36500."),
                 QStringLiteral("D")});
    p.addOption({QStringLiteral("bytes"),
                 QStringLiteral("Stored (compressed) bytes the store keeps: 0 (no limit) or 1M and more (K, M, G, T: "
                                "binary)."),
                 QStringLiteral("B")});
    p.addOption({{QStringLiteral("o"), QStringLiteral("output")},
                 QStringLiteral("text (default) or json, on stdout."),
                 QStringLiteral("FORMAT"),
                 QStringLiteral("text")});
    if (int rc = 0; !parseOrHelp(p, args, &rc))
        return rc;
    const QString output = p.value(QStringLiteral("output"));
    if (p.positionalArguments().size() != 1 || (output != QLatin1String("text") && output != QLatin1String("json"))) {
        std::fputs("usage: fieldscope store retention URL [--versions N] [--days D] [--bytes B] [-o text|json]\n",
                   stderr);
        return 2;
    }
    const std::string location = p.positionalArguments().at(0).toStdString();
    if (!core::isSharedHistoryLocation(location))
        return fail(core::Error::make(core::ErrorCategory::Config,
                                      "store retention takes a team store (postgresql://…); a history file on this "
                                      "computer keeps the retention of Settings -> History"));
    if (auto st = core::checkSharedHistoryLocation(location); !st)
        return fail(st.error());
    auto change = changeFrom(p);
    if (!change)
        return fail(change.error());
    auto store = core::HistoryStore::open(location, core::HistoryStore::OpenMode::ReadOnly);
    if (!store)
        return fail(store.error());
    if (change->maxVersionsPerObject || change->maxAgeMs || change->maxTotalBytes) {
        if (auto st = setRetention(**store, location, *change); !st)
            return fail(st.error());
        std::fprintf(stderr,
                     "fieldscope: the retention of %s is set; every recorder of the store applies it from "
                     "its next round\n",
                     core::visibleEscapes(core::displayHistoryLocation(location)).c_str());
    }
    Report r{core::displayHistoryLocation(location), (*store)->clusterLabel(), {}, {}, {}};
    auto retention = (*store)->storeRetention();
    if (!retention)
        return fail(retention.error());
    auto ownership = (*store)->ownership();
    if (!ownership)
        return fail(ownership.error());
    auto prunings = (*store)->prunings(kShownPrunings);
    if (!prunings)
        return fail(prunings.error());
    r.retention = *retention;
    r.ownership = *ownership;
    r.prunings = *prunings;
    if (output == QLatin1String("json"))
        std::printf("%s\n", core::safeDump(reportJson(r), 2).c_str());
    else
        printReport(r);
    return 0;
}

} // namespace fieldscope::app
