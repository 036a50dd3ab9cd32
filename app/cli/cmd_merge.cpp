// fieldscope merge BASE MINE THEIRS: the editor's stale-write merge (core/diff/threewaymerge.h)
// on three manifest files. Keyed lists merge item by item with the built-in list types, or with
// the ones the cluster's OpenAPI v3 schema declares for the object's kind (--context or
// --kubeconfig), which is how a custom resource's keyed lists are known. Exit 0 clean, 1
// conflicts (the printed object holds mine's value at each), 2 usage, unreadable input or a schema
// that cannot be read. Names, flags and JSON fields are interfaces (docs/cli.md).
#include "app/cli/climanifest.h"
#include "app/cli/clisession.h"
#include "app/cli/commands.h"
#include "core/base/jsonread.h"
#include "core/base/visibletext.h"
#include "core/diff/threewaymerge.h"
#include "core/objects/openapilists.h"
#include "core/yaml/yaml.h"

#include <QCommandLineParser>

#include <cstdio>

namespace fieldscope::app {
namespace {

using core::Json;

constexpr int kUsage = 2;
constexpr std::size_t kValueChars = 300; // of each side in the text output's conflict lines

void addMergeOptions(QCommandLineParser &p)
{
    p.setApplicationDescription(
        QStringLiteral("fieldscope merge BASE MINE THEIRS: merge the change from BASE to MINE onto THEIRS. Keyed "
                       "lists merge item by item (containers by name, ports by containerPort and protocol, ...), "
                       "sets member by member, atomic lists whole. Prints the merged object; at a conflict it "
                       "holds MINE's value. Exit 0 clean, 1 conflicts, 2 usage or unreadable input."));
    p.addPositionalArgument(QStringLiteral("BASE"),
                            QStringLiteral("The object both changed from (YAML or JSON; - for stdin)."));
    p.addPositionalArgument(QStringLiteral("MINE"), QStringLiteral("Your version."));
    p.addPositionalArgument(QStringLiteral("THEIRS"), QStringLiteral("Their version (what is there now)."));
    p.addOption({{QStringLiteral("o"), QStringLiteral("output")},
                 QStringLiteral("yaml (default): the merged object, conflicts on stderr; json: "
                                "{\"merged\", \"conflicts\"}."),
                 QStringLiteral("FORMAT"),
                 QStringLiteral("yaml")});
    p.addHelpOption();
    addConnectionOptions(p);
}

// The one object of a file; a file of several objects is a usage error (which would merge?).
core::Result<Json> readOne(const QString &path)
{
    auto manifest = readManifest(path);
    if (!manifest)
        return manifest.error();
    if (manifest->objects.size() != 1)
        return core::Error::make(core::ErrorCategory::Parse,
                                 "holds " + std::to_string(manifest->objects.size())
                                     + " objects; merge takes one object per file",
                                 path.toStdString());
    return std::move(manifest->objects.front());
}

core::Result<Json> getJson(CliSession &session, const std::string &path)
{
    kube::HttpRequest request;
    request.path = path;
    auto response = session.call(std::move(request));
    if (!response)
        return response.error();
    auto json = core::parseJson(response->body);
    if (!json) {
        core::Error e = json.error();
        e.where = "GET " + path + (e.where.empty() ? std::string() : ", " + e.where);
        return e;
    }
    return json;
}

// What the cluster's schema says of every list of the kind: /openapi/v3 names the group
// version's document (with the hash the server caches it under), which holds the kind's schema.
core::Result<std::vector<core::ListSemanticsHint>> schemaHints(CliSession &session, const std::string &apiVersion,
                                                               const std::string &kind)
{
    auto index = getJson(session, "/openapi/v3");
    if (!index)
        return index.error();
    auto url = core::openApiV3DocumentUrl(*index, apiVersion);
    if (!url)
        return url.error();
    auto document = getJson(session, *url);
    if (!document)
        return document.error();
    return core::listSemanticsFromOpenApi(*document, apiVersion, kind);
}

std::string sideText(const std::optional<Json> &v)
{
    if (!v)
        return "(absent)";
    std::string text = core::safeDump(*v);
    if (text.size() > kValueChars)
        text = text.substr(0, kValueChars) + "...";
    return core::visibleEscapes(text);
}

void printConflicts(const core::ThreeWayMerge &merge)
{
    for (const core::MergeConflict &c : merge.conflicts)
        std::fprintf(stderr, "conflict at %s: base %s, mine %s, theirs %s\n",
                     core::visibleEscapes(c.path.empty() ? "(the object)" : c.path).c_str(), sideText(c.base).c_str(),
                     sideText(c.mine).c_str(), sideText(c.theirs).c_str());
    std::fprintf(stderr, "fieldscope: %zu conflicts; the merged object holds mine's value at each\n",
                 merge.conflicts.size());
}

bool usesCluster(const QCommandLineParser &p)
{
    return p.isSet(QStringLiteral("context")) || p.isSet(QStringLiteral("kubeconfig"));
}

} // namespace

int runMerge(const QStringList &args)
{
    QCommandLineParser p;
    addMergeOptions(p);
    int rc = 0;
    if (!parseOrHelp(p, args, &rc))
        return rc;
    const QString format = p.value(QStringLiteral("output"));
    if (p.positionalArguments().size() != 3 || (format != QLatin1String("yaml") && format != QLatin1String("json"))) {
        reportError(QStringLiteral("usage: fieldscope merge BASE MINE THEIRS [-o yaml|json] [--context C]"));
        return kUsage;
    }
    Json sides[3];
    for (int i = 0; i < 3; ++i) {
        auto object = readOne(p.positionalArguments().at(i));
        if (!object) {
            reportError(object.error());
            return kUsage;
        }
        sides[i] = std::move(*object);
    }
    const Json &theirs = sides[2];
    const std::string kind = core::stringAt(theirs, "/kind").value_or(""),
                      apiVersion = core::stringAt(theirs, "/apiVersion").value_or("");

    core::ListSemanticsResolver semantics;
    if (usesCluster(p)) {
        if (kind.empty() || apiVersion.empty()) {
            reportError(QStringLiteral("THEIRS has no apiVersion and kind to look its schema up by"));
            return kUsage;
        }
        auto session = CliSession::open(p);
        if (!session)
            return kUsage;
        auto hints = schemaHints(*session, apiVersion, kind);
        if (!hints) {
            reportError(hints.error());
            return kUsage;
        }
        for (core::ListSemanticsHint &h : *hints)
            semantics.addHint(h.schemaPath, std::move(h.semantics));
    }
    core::MergeOptions options;
    options.semantics = &semantics;
    options.kind = kind;
    auto merge = core::threeWayMerge(sides[0], sides[1], theirs, options);
    if (!merge) {
        reportError(merge.error());
        return kUsage;
    }
    const Json report = core::mergeReport(*merge);
    if (format == QLatin1String("json")) {
        std::printf("%s\n", core::safeDump(report, 2).c_str());
    } else {
        std::fputs(core::jsonToYaml(report["merged"]).c_str(), stdout);
        if (!merge->conflicts.empty())
            printConflicts(*merge);
    }
    return merge->conflicts.empty() ? 0 : 1;
}

} // namespace fieldscope::app
