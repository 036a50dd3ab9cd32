// fieldscope apply -f FILE: the editor's write path as a command. Four explicit modes,
// conflicts explained per field with the three resolutions, an ownership preview from the same
// prediction `fieldscope conflicts` prints. Names, flags and JSON fields are interfaces.
#include "app/cli/climanifest.h"
#include "app/cli/clisession.h"
#include "app/cli/commands.h"
#include "app/services/settings.h"
#include "core/base/jsonread.h"
#include "core/base/visibletext.h"
#include "core/edit/editbuffer.h"
#include "core/ownership/conflictprediction.h"
#include "core/ownership/ownershipdiff.h"
#include "core/yaml/manifest.h"
#include "kube/apierror.h"
#include "kube/writes.h"

#include <QCommandLineParser>

#include <cstdio>

namespace fieldscope::app {
namespace {

using core::Json;

enum class Mode { Apply, Replace, JsonPatch, Merge };

struct Outcome {
    Json json;        // the -o json entry
    std::string text; // the text block
    int exitCode = 0; // 0 applied, 1 refused, 2 input error
};

std::string visible(const std::string &s)
{
    return core::visibleEscapes(s);
}

Json ownerJson(const core::FieldOwnerRef &o)
{
    return {{"manager", o.manager},
            {"operation", core::operationName(o.operation)},
            {"subresource", o.subresource},
            {"time", o.time}};
}

std::string ownerText(const core::FieldOwnerRef &o)
{
    std::string s = visible(o.manager) + " (" + core::operationName(o.operation)
                  + (o.subresource.empty() ? "" : "/" + visible(o.subresource));
    if (!o.time.empty())
        s += ", " + visible(o.time);
    return s + ")";
}

std::string valueText(const std::optional<Json> &v)
{
    return v ? visible(core::toJsonText(*v)) : std::string("(absent)");
}

// The result word of a refused write (the JSON "result" field).
std::string resultOf(const core::Error &e, Mode mode)
{
    switch (e.category) {
    case core::ErrorCategory::Conflict: return e.isSsaConflict() ? "conflict" : "error";
    case core::ErrorCategory::StaleWrite: return "stale";
    case core::ErrorCategory::Invalid:
        // A failed `test` is a 422 with the generic message and no causes
        // (k8s.io/apiserver/pkg/endpoints/handlers/patch.go, NewGenericServerResponse); a policy's
        // denial is a 422 too, but with its own message and a cause.
        return mode == Mode::JsonPatch && e.httpStatus == 422 && e.causes.empty()
                    && e.message.rfind("the server rejected our request due to an error in our request", 0) == 0
                 ? "stale"
                 : "invalid";
    case core::ErrorCategory::Forbidden: return "forbidden";
    default:
        // Server-side apply refuses a field the schema does not declare with a 500 ("failed to
        // create typed patch object (...): .spec.foo: field not declared in schema", 1.37): the
        // object is at fault, not the server, and retrying changes nothing.
        if (e.httpStatus == 500 && e.message.find(": field not declared in schema") != std::string::npos)
            return "invalid";
        return "error";
    }
}

// The object as the server should receive it for a write of the main resource.
Json writable(const Json &object)
{
    Json o = object;
    if (o.contains("metadata") && o["metadata"].is_object())
        o["metadata"].erase("managedFields");
    return o;
}

class Applier
{
public:
    Applier(CliSession &s, const QCommandLineParser &p, Mode mode, std::string manager)
        : m_s(s), m_p(p), m_mode(mode), m_manager(std::move(manager))
    {
        m_options.fieldManager = m_manager;
        m_options.dryRun = p.isSet(QStringLiteral("dry-run"));
        m_options.force = p.isSet(QStringLiteral("force"));
        m_options.fieldValidation = p.value(QStringLiteral("field-validation")).toStdString();
    }

    Outcome run(const Json &object)
    {
        Outcome out;
        out.json = {{"object", core::manifestIdentity(object)},
                    {"result", "error"},
                    {"resourceVersion", ""},
                    {"conflicts", Json::array()},
                    {"removedFields", Json::array()},
                    {"takenFields", Json::array()},
                    {"warnings", Json::array()},
                    {"dryRun", m_options.dryRun}};
        const std::string head = heading(object);
        auto fail = [&](int code, const std::string &result, const std::string &message) {
            out.json["result"] = result;
            out.json["message"] = message;
            out.text = head + ": " + result + ": " + visible(message) + "\n";
            out.exitCode = code;
            return out;
        };
        const Json id = core::manifestIdentity(object);
        const std::string kind = id["kind"].get<std::string>(), name = id["name"].get<std::string>();
        const std::string apiVersion = id["apiVersion"].get<std::string>(); // manifestIdentity: always text
        if (kind.empty() || name.empty() || apiVersion.empty())
            return fail(2, "invalid", "an object needs apiVersion, kind and metadata.name");
        const kube::ResourceInfo *r = resourceFor(object);
        if (!r)
            return fail(2, "invalid", "the server has no resource for " + kind + " in " + apiVersion);
        const std::string ns = r->namespaced ? (id.contains("namespace") ? id["namespace"].get<std::string>()
                                                                         : m_s.namespaceFor(m_p, *r))
                                             : std::string();
        if (m_mode == Mode::Replace
            && core::stringAt(object, "/metadata/resourceVersion").value_or(std::string()).empty())
            return fail(
                2, "invalid",
                "replace needs metadata.resourceVersion in the file: it is the precondition that refuses the write if the "
                "object changed since you read it (save the object with `kubectl get -o yaml`, or use --mode apply)");

        auto liveResp = m_s.call(kube::getRequest(*r, ns, name));
        Json live;
        if (liveResp)
            live = core::parseJson(liveResp->body).valueOr(Json());
        else if (liveResp.error().httpStatus != 404)
            return fail(1, resultOf(liveResp.error(), m_mode), liveResp.error().describe());
        if (live.is_null() && (m_mode == Mode::JsonPatch || m_mode == Mode::Merge || m_mode == Mode::Replace))
            return fail(1, "error", kind + " " + name + " does not exist (only --mode apply creates objects)");

        // What the write does to ownership, predicted the way the server decides it.
        std::optional<core::ApplyPrediction> prediction;
        if (m_mode == Mode::Apply) {
            auto pr = core::predictApply(writable(object), m_manager, live);
            if (pr)
                prediction = std::move(*pr);
            else
                out.json["warnings"].push_back("no ownership preview: " + pr.error().describe());
        }
        kube::HttpRequest req = build(*r, ns, object, live);
        out.json["request"] = {
            {"method", req.method}, {"path", req.path}, {"contentType", req.contentType}, {"body", req.body}};
        auto resp = m_s.call(req);
        if (!resp)
            return refused(std::move(out), head, resp.error(), object, live, prediction);
        for (const std::string &w : resp->warnings)
            out.json["warnings"].push_back(w);
        const Json after = core::parseJson(resp->body).valueOr(Json());
        out.json["result"] = "applied";
        out.json["resourceVersion"] = core::stringAt(after, "/metadata/resourceVersion").value_or(std::string());
        out.text = head + ": " + (m_options.dryRun ? "would be written (dry run, nothing stored)" : "written")
                 + ", resourceVersion " + out.json["resourceVersion"].get<std::string>() + "\n";
        // managedFields before and after (for a dry run, as they would be): exact, not predicted.
        if (!live.is_null() && after.is_object()) {
            if (auto d = core::ownershipDiff(live, after, m_manager); d)
                describeOwnership(out, *d);
        } else if (prediction) {
            describeOwnership(out, *prediction);
        }
        for (const auto &w : out.json["warnings"])
            out.text += "  warning: " + visible(w.get<std::string>()) + "\n";
        return out;
    }

private:
    const kube::ResourceInfo *resourceFor(const Json &object) const
    {
        const Json id = core::manifestIdentity(object);
        return m_s.findKind(id["apiVersion"].get<std::string>(), id["kind"].get<std::string>());
    }

    kube::HttpRequest build(const kube::ResourceInfo &r, const std::string &ns, const Json &object,
                            const Json &live) const
    {
        const std::string name = core::manifestIdentity(object)["name"].get<std::string>();
        switch (m_mode) {
        case Mode::Apply: return kube::applyRequest(r, ns, writable(object), m_options);
        case Mode::Replace: return kube::replaceRequest(r, ns, writable(object), m_options);
        case Mode::Merge: {
            Json patch = core::editableObject(object, r.hasSubresource("status"));
            return kube::patchRequest(r, ns, name, kube::PatchType::Merge, patch, m_options);
        }
        case Mode::JsonPatch: {
            const bool noStatus = r.hasSubresource("status");
            // A file without metadata.namespace (-n gave it) means the live one, not "remove it".
            Json target = core::editableObject(object, noStatus);
            if (r.namespaced && !target["metadata"].contains("namespace") && live.contains("metadata"))
                target["metadata"]["namespace"] = core::stringAt(live, "/metadata/namespace").value_or(ns);
            const Json patch = core::jsonPatchBetween(core::editableObject(live, noStatus), target);
            return kube::patchRequest(r, ns, name, kube::PatchType::Json, patch, m_options);
        }
        }
        return {};
    }

    void describeOwnership(Outcome &out, const core::OwnershipDiff &d) const
    {
        for (const core::OwnershipMove &r : d.released)
            if (!r.present)
                out.json["removedFields"].push_back(r.path);
        for (const core::OwnershipMove &t : d.taken) {
            Json owners = Json::array();
            for (const auto &o : t.others)
                owners.push_back(ownerJson(o));
            out.json["takenFields"].push_back({{"path", t.path}, {"from", owners}});
        }
        Json lines = Json::array();
        for (const std::string &line : d.describe(m_manager)) {
            lines.push_back(line);
            out.text += "  " + visible(line) + "\n";
        }
        out.json["ownershipChanges"] = lines;
    }

    void describeOwnership(Outcome &out, const core::ApplyPrediction &p) const
    {
        for (const core::OwnershipChange &c : p.removed) {
            out.json["removedFields"].push_back(c.path.toString());
            out.text += "  removed: " + visible(c.path.toString()) + " (" + visible(m_manager)
                      + " owned it and the file leaves it out; nobody else owns it)\n";
        }
        if (m_options.force) {
            for (const core::ApplyConflict &c : p.conflicts) {
                Json owners = Json::array();
                std::string from;
                for (const auto &o : c.owners) {
                    owners.push_back(ownerJson(o));
                    from += (from.empty() ? "" : ", ") + ownerText(o);
                }
                out.json["takenFields"].push_back({{"path", c.path.toString()}, {"from", owners}});
                out.text += "  taken: " + visible(c.path.toString()) + " from " + from + "\n";
            }
        }
        for (const core::OwnershipChange &c : p.released)
            out.text += "  released: " + visible(c.path.toString()) + " (stays with its co-owner)\n";
    }

    Outcome refused(Outcome out, const std::string &head, const core::Error &e, const Json &object, const Json &live,
                    const std::optional<core::ApplyPrediction> &prediction) const
    {
        const std::string result = resultOf(e, m_mode);
        out.json["result"] = result;
        out.json["message"] = e.message;
        out.exitCode = 1;
        for (const std::string &w : e.warnings)
            out.json["warnings"].push_back(w);
        Json causes = Json::array();
        for (const core::StatusCause &c : e.causes)
            causes.push_back({{"field", c.field}, {"reason", c.reason}, {"message", c.message}});
        out.json["causes"] = std::move(causes);
        if (result == "conflict") {
            std::vector<std::string> paths;
            for (const core::FieldConflict &c : e.conflicts)
                if (std::find(paths.begin(), paths.end(), c.path) == paths.end())
                    paths.push_back(c.path);
            const auto values = core::valuesAtPaths(writable(object), live, paths);
            out.text = head + ": conflict: " + std::to_string(paths.size())
                     + (paths.size() == 1 ? " field is" : " fields are") + " owned by another manager\n";
            for (const core::FieldValues &v : values) {
                Json owners = Json::array();
                std::string ownedBy;
                const core::ApplyConflict *predicted = nullptr;
                if (prediction)
                    for (const core::ApplyConflict &c : prediction->conflicts)
                        if (c.path.toString() == v.path)
                            predicted = &c;
                if (predicted) {
                    for (const auto &o : predicted->owners) {
                        owners.push_back(ownerJson(o));
                        ownedBy += (ownedBy.empty() ? "" : ", ") + ownerText(o);
                    }
                } else { // the server's own words: manager and subresource, no time
                    for (const core::FieldConflict &c : e.conflicts)
                        if (c.path == v.path) {
                            owners.push_back({{"manager", c.manager},
                                              {"operation", ""},
                                              {"subresource", c.subresource},
                                              {"time", ""}});
                            ownedBy += (ownedBy.empty() ? "" : ", ") + visible(c.manager);
                        }
                }
                out.json["conflicts"].push_back({{"path", v.path},
                                                 {"yourValue", v.mine ? *v.mine : Json()},
                                                 {"liveValue", v.live ? *v.live : Json()},
                                                 {"owners", owners}});
                out.text += "  " + visible(v.path) + ": yours " + valueText(v.mine) + ", live " + valueText(v.live)
                          + ", owned by " + ownedBy + "\n";
            }
            out.text += "  Resolve it one of three ways:\n"
                        "    take it:    re-run with --force (the other owner is not told; its next apply conflicts)\n"
                        "    give it up: remove the field from the file (the other owner keeps it and its value)\n"
                        "    co-own it:  set the field to the live value in the file (you become an owner too)\n";
        } else if (result == "stale") {
            out.text = head + ": stale: the object changed since it was read (" + visible(e.message)
                     + ")\n  Read it again (or use --mode apply, which needs no resourceVersion) and re-run.\n";
        } else {
            out.text = head + ": " + result + ": " + visible(e.describe()) + "\n";
            for (const core::StatusCause &c : e.causes)
                out.text += "  " + visible(c.field.empty() ? c.reason : c.field) + ": " + visible(c.message) + "\n";
        }
        for (const std::string &w : e.warnings)
            out.text += "  warning: " + visible(w) + "\n";
        return out;
    }

    CliSession &m_s;
    const QCommandLineParser &m_p;
    Mode m_mode;
    std::string m_manager;
    kube::WriteOptions m_options;
};

// apply's options, its description and its help.
void addApplyOptions(QCommandLineParser &p)
{
    p.setApplicationDescription(QStringLiteral(
        "fieldscope apply -f FILE: write objects with an explicit mode. apply: server-side apply as --manager (never forced unless "
        "--force); replace: PUT with the file's resourceVersion as precondition; jsonpatch: a JSON Patch from the live object to the "
        "file, each change guarded by a test of the value read; merge: a merge patch, no precondition. Exit status: 0 written, 1 "
        "refused (conflict, stale, invalid, forbidden), 2 usage or input errors."));
    p.addHelpOption();
    p.addOption({{QStringLiteral("f"), QStringLiteral("filename")},
                 QStringLiteral("Objects to write (YAML stream, JSON, a List; - for stdin)."),
                 QStringLiteral("FILE")});
    p.addOption({{QStringLiteral("n"), QStringLiteral("namespace")},
                 QStringLiteral("Namespace for objects that name none."),
                 QStringLiteral("NAMESPACE")});
    p.addOption({QStringLiteral("manager"),
                 QStringLiteral("Field manager (default: the window's Settings, else fieldscope)."),
                 QStringLiteral("M")});
    p.addOption({QStringLiteral("mode"), QStringLiteral("apply (default), replace, jsonpatch or merge."),
                 QStringLiteral("MODE"), QStringLiteral("apply")});
    p.addOption({QStringLiteral("force"), QStringLiteral("apply: take fields other managers own (never implied).")});
    p.addOption(
        {QStringLiteral("field-validation"),
         QStringLiteral("Strict (default): the server refuses unknown fields; Warn: it drops them and says so; "
                        "Ignore: it drops them silently. A key written twice in FILE is refused before sending."),
         QStringLiteral("MODE"), QStringLiteral("Strict")});
    p.addOption({QStringLiteral("dry-run"),
                 QStringLiteral("Send with dryRun=All: validated and answered, nothing stored.")});
    p.addOption({{QStringLiteral("o"), QStringLiteral("output")},
                 QStringLiteral("text (default) or json."),
                 QStringLiteral("FORMAT"),
                 QStringLiteral("text")});
}

} // namespace

int runApply(const QStringList &args)
{
    QCommandLineParser p;
    addApplyOptions(p);
    addConnectionOptions(p);
    if (int rc = 0; !parseOrHelp(p, args, &rc))
        return rc;
    const QString format = p.value(QStringLiteral("output")), modeName = p.value(QStringLiteral("mode"));
    if (format != QLatin1String("text") && format != QLatin1String("json"))
        return reportError(QStringLiteral("unknown output format \"%1\" (text, json)").arg(format)) + 1;
    static const std::pair<const char *, Mode> modes[] = {
        {"apply", Mode::Apply}, {"replace", Mode::Replace}, {"jsonpatch", Mode::JsonPatch}, {"merge", Mode::Merge}};
    const auto mode = std::find_if(std::begin(modes), std::end(modes),
                                   [&](const auto &m) { return modeName == QLatin1String(m.first); });
    if (mode == std::end(modes))
        return reportError(QStringLiteral("unknown mode \"%1\" (apply, replace, jsonpatch, merge)").arg(modeName)) + 1;
    if (const QString v = p.value(QStringLiteral("field-validation"));
        v != QLatin1String("Strict") && v != QLatin1String("Warn") && v != QLatin1String("Ignore"))
        return reportError(QStringLiteral("unknown field validation \"%1\" (Strict, Warn, Ignore)").arg(v)) + 1;
    if (p.isSet(QStringLiteral("force")) && mode->second != Mode::Apply)
        return reportError(QStringLiteral("--force only means something with --mode apply")) + 1;
    if (!p.isSet(QStringLiteral("filename")) || !p.positionalArguments().isEmpty())
        return reportError(QStringLiteral(
                   "usage: fieldscope apply -f FILE [--mode apply|replace|jsonpatch|merge] [--manager M] [--force] [--dry-run]"))
             + 1;
    std::string manager = p.isSet(QStringLiteral("manager")) ? p.value(QStringLiteral("manager")).toStdString()
                                                             : Settings::fieldManager().toStdString();
    if (manager.empty() || manager.size() > 128)
        return reportError(QStringLiteral("--manager must be 1 to 128 characters")) + 1;
    // The settings' rule, which is the API server's: a name it would refuse fails every write.
    if (const QString why = Settings::checkFieldManager(QString::fromStdString(manager)); !why.isEmpty())
        return reportError(QStringLiteral("--manager: %1").arg(why)) + 1;
    auto manifest = readManifest(p.value(QStringLiteral("filename")));
    if (!manifest)
        return reportError(manifest.error());
    if (manifest->objects.empty())
        return reportError(QStringLiteral("%1 holds no objects").arg(p.value(QStringLiteral("filename")))) + 1;
    auto session = CliSession::open(p);
    if (!session)
        return CliSession::openFailureCode();

    Applier applier(*session, p, mode->second, manager);
    Json all = Json::array();
    int worst = 0;
    for (const Json &object : manifest->objects) {
        Outcome o = applier.run(object);
        worst = std::max(worst, o.exitCode);
        if (format == QLatin1String("json"))
            all.push_back(std::move(o.json));
        else
            std::fputs(o.text.c_str(), stdout);
    }
    if (format == QLatin1String("json"))
        std::fputs((core::toJsonText(manifest->single ? all[0] : all, 2) + "\n").c_str(), stdout);
    return worst;
}

} // namespace fieldscope::app
