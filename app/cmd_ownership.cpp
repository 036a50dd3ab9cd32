// fieldscope blame / fieldscope conflicts: who owns every field (all co-owners, not the last
// writer), and what a server-side apply would conflict on, remove or take over.
#include "app/clisession.h"
#include "app/commands.h"
#include "core/blame.h"
#include "core/conflictprediction.h"
#include "core/jsonread.h"
#include "core/ownershiptree.h"
#include "core/yaml.h"
#include "kube/writes.h"

#include <QDateTime>
#include <QFile>

#include <cstdio>

namespace fieldscope::app {
namespace {

core::Result<core::Json> readDocument(const QString &path)
{
    QFile f(path);
    if (path == QLatin1String("-") ? !f.open(stdin, QIODevice::ReadOnly) : !f.open(QIODevice::ReadOnly))
        return core::Error::make(core::ErrorCategory::Io, "cannot read " + path.toStdString() + ": " + f.errorString().toStdString());
    const QByteArray bytes = f.readAll();
    auto doc = core::yamlToJson(std::string_view(bytes.constData(), std::size_t(bytes.size())));
    if (!doc) {
        core::Error e = doc.error();
        e.where = path.toStdString() + (e.where.empty() ? std::string() : ", " + e.where);
        return e;
    }
    for (const auto &w : doc->warnings)
        std::fprintf(stderr, "Warning: %s: %s\n", qUtf8Printable(path), w.c_str());
    if (!doc->value.is_object())
        return core::Error::make(core::ErrorCategory::Parse, "expected a Kubernetes object (a mapping)", path.toStdString());
    return std::move(doc->value);
}

// RESOURCE/NAME from the live cluster, through discovery like every other command.
core::Result<core::Json> fetchLive(CliSession &s, const QCommandLineParser &p, const QString &target, const kube::ResourceInfo **info)
{
    const QString resource = target.section(QLatin1Char('/'), 0, 0), name = target.section(QLatin1Char('/'), 1);
    if (resource.isEmpty() || name.isEmpty())
        return core::Error::make(core::ErrorCategory::Config, "expected RESOURCE/NAME, got \"" + target.toStdString() + "\"");
    const auto *r = s.resolve(resource);
    if (!r)
        return core::Error::make(core::ErrorCategory::NotFound, "unknown resource type " + resource.toStdString());
    *info = r;
    auto resp = s.call(kube::getRequest(*r, s.namespaceFor(p, *r), name.toStdString()));
    if (!resp)
        return resp.error();
    return core::parseJson(resp->body);
}

void addObjectOptions(QCommandLineParser &p)
{
    p.addHelpOption();
    p.addOption({{QStringLiteral("n"), QStringLiteral("namespace")}, QStringLiteral("Namespace of the object."), QStringLiteral("NAMESPACE")});
    addConnectionOptions(p);
}

bool parseOrHelp(QCommandLineParser &p, const QStringList &args, int *rc)
{
    if (!p.parse(args)) {
        *rc = reportError(p.errorText()) + 1;
        return false;
    }
    if (p.isSet(QStringLiteral("help"))) {
        std::fputs(qUtf8Printable(p.helpText()), stdout);
        *rc = 0;
        return false;
    }
    return true;
}

// SSA ignores .status on the main resource only since reset fields (1.22).
bool serverIgnoresStatusInApply(const std::string &gitVersion)
{
    int major = 0, minor = 0;
    if (std::sscanf(gitVersion.c_str(), "v%d.%d", &major, &minor) != 2)
        return true; // unknown: assume a current server
    return major > 1 || minor >= 22;
}

} // namespace

int runBlame(const QStringList &args)
{
    QCommandLineParser p;
    p.setApplicationDescription(QStringLiteral("fieldscope blame RESOURCE/NAME | -f FILE: the object's YAML with every owner of every line."));
    p.addPositionalArgument(QStringLiteral("RESOURCE/NAME"), QStringLiteral("e.g. deployments/web"));
    p.addOption({{QStringLiteral("f"), QStringLiteral("filename")}, QStringLiteral("A saved object (YAML or JSON; - for stdin); no cluster needed."), QStringLiteral("FILE")});
    p.addOption({{QStringLiteral("o"), QStringLiteral("output")}, QStringLiteral("text (default) or json."), QStringLiteral("FORMAT"), QStringLiteral("text")});
    addObjectOptions(p);
    int rc = 0;
    if (!parseOrHelp(p, args, &rc))
        return rc;
    const QString format = p.value(QStringLiteral("output"));
    if (format != QLatin1String("text") && format != QLatin1String("json"))
        return reportError(QStringLiteral("unknown output format \"%1\" (text, json)").arg(format)) + 1;
    core::Result<core::Json> object = core::Json();
    if (p.isSet(QStringLiteral("filename"))) {
        object = readDocument(p.value(QStringLiteral("filename")));
    } else {
        if (p.positionalArguments().size() != 1)
            return reportError(QStringLiteral("usage: fieldscope blame RESOURCE/NAME [-n NAMESPACE] | -f FILE")) + 1;
        auto session = CliSession::open(p);
        if (!session)
            return CliSession::openFailureCode();
        const kube::ResourceInfo *info = nullptr;
        object = fetchLive(*session, p, p.positionalArguments().first(), &info);
    }
    if (!object)
        return reportError(object.error());
    auto tree = core::OwnershipTree::build(*object);
    if (!tree)
        return reportError(tree.error());
    if (format == QLatin1String("json"))
        std::printf("%s\n", core::safeDump(core::blameJson(*tree), 2).c_str());
    else
        std::fputs(core::blameText(*object, *tree, QDateTime::currentSecsSinceEpoch()).c_str(), stdout);
    return 0;
}

int runConflicts(const QStringList &args)
{
    QCommandLineParser p;
    p.setApplicationDescription(QStringLiteral("fieldscope conflicts -f MANIFEST --manager M RESOURCE/NAME: what a server-side apply "
                                               "would conflict on, newly own, and remove."));
    p.addPositionalArgument(QStringLiteral("RESOURCE/NAME"), QStringLiteral("The live object (omit with --live-file)."));
    p.addOption({{QStringLiteral("f"), QStringLiteral("filename")}, QStringLiteral("The manifest you would apply."), QStringLiteral("MANIFEST")});
    p.addOption({QStringLiteral("manager"), QStringLiteral("The field manager you would apply as."), QStringLiteral("M")});
    p.addOption({QStringLiteral("live-file"), QStringLiteral("Predict against a saved object instead of the cluster."), QStringLiteral("FILE")});
    p.addOption({{QStringLiteral("o"), QStringLiteral("output")}, QStringLiteral("text (default) or json."), QStringLiteral("FORMAT"), QStringLiteral("text")});
    addObjectOptions(p);
    int rc = 0;
    if (!parseOrHelp(p, args, &rc))
        return rc;
    if (!p.isSet(QStringLiteral("filename")) || !p.isSet(QStringLiteral("manager"))
        || (p.positionalArguments().size() != 1 && !p.isSet(QStringLiteral("live-file"))))
        return reportError(QStringLiteral("usage: fieldscope conflicts -f MANIFEST --manager M RESOURCE/NAME [-o json]")) + 1;
    auto manifest = readDocument(p.value(QStringLiteral("filename")));
    if (!manifest)
        return reportError(manifest.error());
    core::ApplyOptions opts;
    core::Result<core::Json> live = core::Json();
    if (p.isSet(QStringLiteral("live-file"))) {
        live = readDocument(p.value(QStringLiteral("live-file")));
    } else {
        auto session = CliSession::open(p);
        if (!session)
            return CliSession::openFailureCode();
        opts.ignoreStatus = serverIgnoresStatusInApply(session->discovery().serverVersion);
        const kube::ResourceInfo *info = nullptr;
        live = fetchLive(*session, p, p.positionalArguments().first(), &info);
        if (!live && live.error().category == core::ErrorCategory::NotFound)
            live = core::Json(); // the apply would create it
    }
    if (!live)
        return reportError(live.error());
    auto prediction = core::predictApply(*manifest, p.value(QStringLiteral("manager")).toStdString(), *live, opts);
    if (!prediction)
        return reportError(prediction.error());
    if (p.value(QStringLiteral("output")) == QLatin1String("json"))
        std::printf("%s\n", core::safeDump(prediction->toJson(), 2).c_str());
    else
        std::fputs(prediction->toText().c_str(), stdout);
    return 0;
}

} // namespace fieldscope::app
