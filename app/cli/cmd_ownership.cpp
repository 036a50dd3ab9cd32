// fieldscope blame / fieldscope conflicts: who owns every field (all co-owners, not the last
// writer), and what a server-side apply would conflict on, remove or take over.
#include "app/cli/climanifest.h"
#include "app/cli/clisession.h"
#include "app/cli/commands.h"
#include "app/services/historysource.h"
#include "core/base/jsonread.h"
#include "core/base/visibletext.h"
#include "core/history/historyquery.h"
#include "core/ownership/blame.h"
#include "core/ownership/conflictprediction.h"
#include "core/ownership/ownershiptree.h"
#include "core/yaml/manifest.h"
#include "core/yaml/yaml.h"
#include "kube/writes.h"

#include <QDateTime>
#include <QFile>

#include <cstdio>
#include <memory>

namespace fieldscope::app {
namespace {

// RESOURCE/NAME from the live cluster, through discovery like every other command.
core::Result<core::Json> fetchLive(CliSession &s, const QCommandLineParser &p, const QString &target,
                                   const kube::ResourceInfo **info)
{
    const QString resource = target.section(QLatin1Char('/'), 0, 0), name = target.section(QLatin1Char('/'), 1);
    if (resource.isEmpty() || name.isEmpty())
        return core::Error::make(core::ErrorCategory::Config,
                                 "expected RESOURCE/NAME, got \"" + target.toStdString() + "\"");
    const auto *r = s.resolve(resource);
    if (!r)
        return core::Error::make(core::ErrorCategory::NotFound, "unknown resource type " + resource.toStdString());
    *info = r;
    auto resp = s.call(kube::getRequest(*r, s.namespaceFor(p, *r), name.toStdString()));
    if (!resp)
        return resp.error();
    return core::parseJson(resp->body);
}

// The live counterpart of a manifest object: its kind resolved through discovery, its namespace
// from the object, else -n, else the context's.
core::Result<core::Json> fetchLiveFor(CliSession &s, const QCommandLineParser &p, const core::Json &object)
{
    const core::Json id = core::manifestIdentity(object);
    const std::string kind = id["kind"].get<std::string>(), name = id["name"].get<std::string>();
    if (kind.empty() || name.empty())
        return core::Error::make(core::ErrorCategory::Parse,
                                 "an object without kind or metadata.name cannot be looked up", heading(object));
    const auto *r = s.resolve(QString::fromStdString(kind));
    if (!r)
        return core::Error::make(core::ErrorCategory::NotFound, "unknown kind " + kind);
    const std::string ns = id.contains("namespace") ? id["namespace"].get<std::string>() : s.namespaceFor(p, *r);
    auto resp = s.call(kube::getRequest(*r, r->namespaced ? ns : std::string(), name));
    if (!resp)
        return resp.error();
    return core::parseJson(resp->body);
}

void addObjectOptions(QCommandLineParser &p)
{
    p.addHelpOption();
    p.addOption({{QStringLiteral("n"), QStringLiteral("namespace")},
                 QStringLiteral("Namespace of the object."),
                 QStringLiteral("NAMESPACE")});
    addConnectionOptions(p);
}

// SSA ignores .status on the main resource only since reset fields (1.22).
bool serverIgnoresStatusInApply(const std::string &gitVersion)
{
    int major = 0, minor = 0;
    if (std::sscanf(gitVersion.c_str(), "v%d.%d", &major, &minor) != 2)
        return true; // unknown: assume a current server
    return major > 1 || minor >= 22;
}

// --who: who last wrote as each manager of the live object, from a history database that joined
// audit events (`record --audit-log/--audit-webhook`, `audit import`): --db, else the window's own
// store for this cluster. Nothing recorded is not an error: the gutter then names managers only.
core::Result<core::EntryWriters> entryWriters(CliSession &session, const QCommandLineParser &p,
                                              const kube::ResourceInfo &info, const core::Json &object)
{
    const kube::ResolvedConfig &config = session.connection().config;
    const std::string db =
        p.isSet(QStringLiteral("db"))
            ? p.value(QStringLiteral("db")).toStdString()
            : historyLocationFor(QString::fromStdString(config.contextName), clusterIdentityOf(config)).toStdString();
    const std::string name = core::stringAt(object, "/metadata/name").value_or(""),
                      uid = core::stringAt(object, "/metadata/uid").value_or("");
    if (!core::isSharedHistoryLocation(db) && !QFile::exists(QString::fromStdString(db))) {
        std::fprintf(stderr, "fieldscope: --who: no history database %s: nobody is named\n",
                     core::visibleEscapes(db).c_str());
        return core::EntryWriters{};
    }
    auto store = core::HistoryStore::open(db, core::HistoryStore::OpenMode::ReadOnly);
    if (!store)
        return store.error();
    core::ObjectQuery q;
    q.resource = info.group.empty() ? info.resource : info.resource + "." + info.group;
    q.namespace_ = core::stringAt(object, "/metadata/namespace").value_or("");
    q.name = name;
    q.uid = uid;
    auto writers = core::managerWriters(**store, q, uid);
    if (!writers && writers.error().category == core::ErrorCategory::NotFound) {
        std::fprintf(stderr, "fieldscope: --who: %s recorded no version of %s: nobody is named\n",
                     core::visibleEscapes(db).c_str(), core::visibleEscapes(name).c_str());
        return core::EntryWriters{};
    }
    return writers;
}

void addBlameOptions(QCommandLineParser &p)
{
    p.setApplicationDescription(
        QStringLiteral("fieldscope blame RESOURCE/NAME | -f FILE: the object's YAML with every owner of every line."));
    p.addPositionalArgument(QStringLiteral("RESOURCE/NAME"), QStringLiteral("e.g. deployments/web"));
    p.addOption({{QStringLiteral("f"), QStringLiteral("filename")},
                 QStringLiteral("A saved object (YAML or JSON; - for stdin); no cluster needed."),
                 QStringLiteral("FILE")});
    p.addOption({{QStringLiteral("o"), QStringLiteral("output")},
                 QStringLiteral("text (default) or json."),
                 QStringLiteral("FORMAT"),
                 QStringLiteral("text")});
    p.addOption({QStringLiteral("who"),
                 QStringLiteral("Also name the person who last wrote as each manager (\"by alice\"; JSON: \"user\"), "
                                "from the audit events a history database joined (docs/audit.md).")});
    p.addOption({QStringLiteral("db"),
                 QStringLiteral("The history database for --who (default: the window's own store for this cluster)."),
                 QStringLiteral("FILE")});
    addObjectOptions(p);
}

} // namespace

int runBlame(const QStringList &args)
{
    QCommandLineParser p;
    addBlameOptions(p);
    int rc = 0;
    if (!parseOrHelp(p, args, &rc))
        return rc;
    const QString format = p.value(QStringLiteral("output"));
    if (format != QLatin1String("text") && format != QLatin1String("json"))
        return reportError(QStringLiteral("unknown output format \"%1\" (text, json)").arg(format)) + 1;
    const bool who = p.isSet(QStringLiteral("who"));
    if (who && p.isSet(QStringLiteral("filename")))
        return reportError(QStringLiteral("--who names the writers of a live object: use RESOURCE/NAME, not -f")) + 1;
    core::EntryWriters writers;
    std::vector<core::Json> objects;
    bool single = true;
    if (p.isSet(QStringLiteral("filename"))) {
        auto read = readManifest(p.value(QStringLiteral("filename")));
        if (!read)
            return reportError(read.error());
        objects = std::move(read->objects);
        single = read->single;
    } else {
        if (p.positionalArguments().size() != 1)
            return reportError(QStringLiteral("usage: fieldscope blame RESOURCE/NAME [-n NAMESPACE] | -f FILE")) + 1;
        auto session = CliSession::open(p);
        if (!session)
            return CliSession::openFailureCode();
        const kube::ResourceInfo *info = nullptr;
        auto live = fetchLive(*session, p, p.positionalArguments().constFirst(), &info);
        if (!live)
            return reportError(live.error());
        if (who) {
            auto w = entryWriters(*session, p, *info, *live);
            if (!w)
                return reportError(w.error());
            writers = std::move(*w);
        }
        objects.push_back(std::move(*live));
    }
    // One object: its blame as before (scripts read it). Several (a stream or a List): each in
    // turn, a JSON array or text parts headed by the object.
    core::Json all = core::Json::array();
    std::string text;
    for (const auto &object : objects) {
        auto tree = core::OwnershipTree::build(object);
        if (!tree) {
            core::Error e = tree.error();
            if (!single)
                e.where = heading(object) + (e.where.empty() ? std::string() : ", " + e.where);
            return reportError(e);
        }
        if (format == QLatin1String("json")) {
            core::Json one = core::blameJson(*tree, writers);
            if (!single)
                one = core::Json{{"object", core::manifestIdentity(object)}, {"fields", std::move(one)}};
            all.push_back(std::move(one));
        } else {
            if (!single)
                text += (text.empty() ? "" : "\n") + std::string("# ") + heading(object) + "\n";
            text += core::blameText(object, *tree, QDateTime::currentSecsSinceEpoch(), writers);
        }
    }
    if (format == QLatin1String("json"))
        std::printf("%s\n", core::safeDump(single ? all[0] : all, 2).c_str());
    else
        std::fputs(text.c_str(), stdout);
    return 0;
}

namespace {

void addConflictsOptions(QCommandLineParser &p)
{
    p.setApplicationDescription(
        QStringLiteral("fieldscope conflicts -f MANIFEST --manager M RESOURCE/NAME: what a server-side apply "
                       "would conflict on, newly own, and remove."));
    p.addPositionalArgument(QStringLiteral("RESOURCE/NAME"),
                            QStringLiteral("The live object (omit with --live-file)."));
    p.addOption({{QStringLiteral("f"), QStringLiteral("filename")},
                 QStringLiteral("The manifest you would apply."),
                 QStringLiteral("MANIFEST")});
    p.addOption({QStringLiteral("manager"), QStringLiteral("The field manager you would apply as."),
                 QStringLiteral("M")});
    p.addOption({QStringLiteral("live-file"), QStringLiteral("Predict against a saved object instead of the cluster."),
                 QStringLiteral("FILE")});
    p.addOption({{QStringLiteral("o"), QStringLiteral("output")},
                 QStringLiteral("text (default) or json."),
                 QStringLiteral("FORMAT"),
                 QStringLiteral("text")});
    addObjectOptions(p);
}

// Where each manifest object's live counterpart comes from: --live-file (matched by kind,
// namespace and name; one object pairs with one), or the cluster (`session`).
struct LiveSource {
    const QCommandLineParser &p;
    bool named = false; // RESOURCE/NAME given: the one manifest object's counterpart
    std::size_t manifestObjects = 0;
    std::vector<core::Json> fileObjects;
    std::unique_ptr<CliSession> session;

    // A null Json when there is none: the apply would create the object.
    core::Result<core::Json> liveFor(const core::Json &object) const
    {
        if (!session) {
            if (manifestObjects == 1 && fileObjects.size() == 1)
                return fileObjects.front();
            for (const auto &l : fileObjects)
                if (core::manifestIdentity(l).value("kind", "") == core::manifestIdentity(object).value("kind", "")
                    && core::manifestIdentity(l).value("namespace", "")
                           == core::manifestIdentity(object).value("namespace", "")
                    && core::manifestIdentity(l).value("name", "") == core::manifestIdentity(object).value("name", ""))
                    return l;
            return core::Json(); // not in the live file: the apply would create it
        }
        const kube::ResourceInfo *info = nullptr;
        auto live = named ? fetchLive(*session, p, p.positionalArguments().constFirst(), &info)
                          : fetchLiveFor(*session, p, object);
        if (!live && live.error().category == core::ErrorCategory::NotFound)
            return core::Json(); // the apply would create it
        return live;
    }
};

// Each object's prediction: as JSON into `all` and as text into `text`; several objects are
// each marked with their identity (JSON) or a heading (text).
core::Status predictEach(const std::vector<core::Json> &objects, const std::string &manager, const LiveSource &source,
                         const core::ApplyOptions &opts, bool single, core::Json &all, std::string &text)
{
    for (const auto &object : objects) {
        auto live = source.liveFor(object);
        if (!live)
            return live.error();
        auto prediction = core::predictApply(object, manager, *live, opts);
        if (!prediction)
            return prediction.error();
        if (single) {
            all.push_back(prediction->toJson());
            text += prediction->toText();
            continue;
        }
        core::Json one = prediction->toJson();
        one["object"] = core::manifestIdentity(object);
        all.push_back(std::move(one));
        text += (text.empty() ? "" : "\n") + std::string("# ") + heading(object) + "\n" + prediction->toText();
    }
    return core::Unit{};
}

} // namespace

int runConflicts(const QStringList &args)
{
    QCommandLineParser p;
    addConflictsOptions(p);
    int rc = 0;
    if (!parseOrHelp(p, args, &rc))
        return rc;
    if (!p.isSet(QStringLiteral("filename")) || !p.isSet(QStringLiteral("manager"))
        || p.positionalArguments().size() > 1)
        return reportError(
                   QStringLiteral("usage: fieldscope conflicts -f MANIFEST --manager M [RESOURCE/NAME] [-o json]"))
             + 1;
    auto manifest = readManifest(p.value(QStringLiteral("filename")));
    if (!manifest)
        return reportError(manifest.error());
    const bool named = p.positionalArguments().size() == 1;
    if (named && manifest->objects.size() != 1)
        return reportError(
                   QStringLiteral(
                       "the manifest holds %1 objects: omit RESOURCE/NAME to predict each against its own live object")
                       .arg(manifest->objects.size()))
             + 1;
    const std::string manager = p.value(QStringLiteral("manager")).toStdString();

    core::ApplyOptions opts;
    LiveSource source{p, named, manifest->objects.size(), {}, nullptr};
    if (p.isSet(QStringLiteral("live-file"))) {
        auto live = readManifest(p.value(QStringLiteral("live-file")));
        if (!live)
            return reportError(live.error());
        source.fileObjects = std::move(live->objects);
    } else {
        source.session = CliSession::open(p);
        if (!source.session)
            return CliSession::openFailureCode();
        opts.ignoreStatus = serverIgnoresStatusInApply(source.session->serverVersion());
    }

    const bool single = manifest->single || named;
    core::Json all = core::Json::array();
    std::string text;
    if (auto st = predictEach(manifest->objects, manager, source, opts, single, all, text); !st)
        return reportError(st.error());
    if (p.value(QStringLiteral("output")) == QLatin1String("json"))
        std::printf("%s\n", core::safeDump(single ? all[0] : all, 2).c_str());
    else
        std::fputs(text.c_str(), stdout);
    return 0;
}

} // namespace fieldscope::app
