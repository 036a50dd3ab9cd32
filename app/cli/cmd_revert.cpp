// fieldscope revert RESOURCE/NAME --to RV: put the fields of a recorded version back (or, with
// --change, undo only the change RV made), written with preconditions: a JSON Patch testing every
// live value it replaces, or a server-side apply that takes the reverted fields. The planning is
// core/edit/revertplan.h (the History tab's too); this file finds the versions in the history
// store, reads the live object and sends. Names, flags, exit codes and JSON fields are interfaces
// (docs/cli.md).
#include "app/cli/clisession.h"
#include "app/cli/commands.h"
#include "app/cli/revertlookup.h"
#include "app/services/historysource.h"
#include "app/services/settings.h"
#include "core/base/jsonread.h"
#include "core/base/visibletext.h"
#include "core/edit/revertplan.h"
#include "core/history/secretredaction.h"
#include "core/ownership/ownershipdiff.h"
#include "kube/writes.h"

#include <QCommandLineParser>
#include <QFileInfo>

#include <cstdio>

namespace fieldscope::app {
namespace {

using core::Json;

struct Outcome {
    Json json;
    std::string text;
    int exitCode = 0; // 0 written (or nothing to write, or a dry run), 1 refused or conflict
};

std::string visible(const std::string &s)
{
    return core::visibleEscapes(s);
}

// A value as JSON ("1" is not 1), cut to one readable line.
std::string valueText(const std::optional<Json> &v)
{
    if (!v)
        return "(absent)";
    std::string text = core::toJsonText(*v);
    if (text.size() > 200) {
        std::size_t cut = 197;
        while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80)
            --cut; // not inside a UTF-8 sequence
        text = text.substr(0, cut) + "...";
    }
    return visible(text);
}

std::string ownerText(const core::FieldOwnerRef &o)
{
    std::string s = visible(o.manager) + " (" + core::operationName(o.operation)
                  + (o.subresource.empty() ? "" : "/" + visible(o.subresource));
    return s + (o.time.empty() ? "" : ", " + visible(o.time)) + ")";
}

Json ownerJson(const core::FieldOwnerRef &o)
{
    return {{"manager", o.manager},
            {"operation", core::operationName(o.operation)},
            {"subresource", o.subresource},
            {"time", o.time}};
}

// A Secret's values never reach the terminal, live or recorded: strings under /data, /stringData
// and the last-applied annotation (which holds the applied manifest, values included) are shown
// as "(hidden)". `pointer` is where `value` sits in the object.
class SecretMask
{
public:
    explicit SecretMask(bool secret) : m_secret(secret) {}
    bool active() const { return m_secret; }

    Json operator()(const Json &value, const std::string &pointer) const
    {
        if (!m_secret)
            return value;
        Json out = value;
        mask(out, pointer, 0);
        return out;
    }
    std::optional<Json> opt(const std::optional<Json> &value, const std::string &pointer) const
    {
        return value ? std::optional<Json>((*this)(*value, pointer)) : std::nullopt;
    }
    // A request body: a JSON Patch's values at their paths, or an apply body from the root.
    Json body(const Json &body, bool jsonPatch) const
    {
        if (!m_secret || !jsonPatch)
            return (*this)(body, "");
        Json out = body;
        for (Json &op : out)
            if (op.is_object() && op.contains("value") && op["path"].is_string())
                op["value"] = (*this)(op["value"], op["path"].get<std::string>());
        return out;
    }

private:
    static bool hides(const std::string &pointer)
    {
        static const std::string annotation = "/metadata/annotations/"
                                            + core::jsonPointerEscape(core::kLastAppliedAnnotation);
        return pointer.rfind("/data/", 0) == 0 || pointer.rfind("/stringData/", 0) == 0 || pointer == annotation;
    }
    void mask(Json &v, const std::string &pointer, int depth) const
    {
        if (v.is_string() && hides(pointer))
            v = "(hidden)";
        else if (v.is_object() && depth < core::kMaxJsonDepth)
            for (auto it = v.begin(); it != v.end(); ++it)
                mask(*it, pointer + "/" + core::jsonPointerEscape(it.key()), depth + 1);
        else if (v.is_array() && depth < core::kMaxJsonDepth)
            for (std::size_t i = 0; i < v.size(); ++i)
                mask(v[i], pointer + "/" + std::to_string(i), depth + 1);
    }
    bool m_secret;
};

enum class Mode { JsonPatch, Apply };

struct RevertArgs {
    std::string to, expect;
    bool change = false, dryRun = false;
    Mode mode = Mode::JsonPatch;
    std::string manager;
};

// One revert: plan, check, build the request, send it, and say what happened (m_out).
class Reverter
{
public:
    Reverter(CliSession &s, const RevertArgs &a, const RevertVersions &v, const kube::ResourceInfo &r)
        : m_s(s), m_a(a), m_v(v), m_r(r), m_mask(core::isSecretObject(v.target.object))
    {
        m_ns = core::stringAt(v.target.object, "/metadata/namespace").value_or(std::string());
        m_name = core::stringAt(v.target.object, "/metadata/name").value_or(std::string());
        m_options.fieldManager = a.manager;
        // Taking the reverted fields from whoever owns them is what a revert by apply is for
        // (docs/editing.md, "Reverting"); the preview names them before anything is sent.
        m_options.force = a.mode == Mode::Apply;
    }

    Outcome run();

private:
    Outcome refuse(const std::string &result, const std::string &message);
    bool readLive(std::string *why);
    bool plan(std::string *why);
    std::optional<Json> liveAsRecorded() const;
    void describePlan();
    std::optional<Outcome> checkExpected();
    std::optional<kube::HttpRequest> buildRequest(std::string *why);
    Outcome send(const kube::HttpRequest &req);
    void explainConflict(const core::Error &e);
    void addStale(const std::vector<core::StaleField> &stale, bool fromHistory);

    CliSession &m_s;
    const RevertArgs &m_a;
    const RevertVersions &m_v;
    const kube::ResourceInfo &m_r;
    SecretMask m_mask;
    std::string m_ns, m_name;
    kube::WriteOptions m_options;
    Json m_live;
    core::RevertPlan m_plan;
    Json m_jsonPatch; // what the JSON Patch sends: the plan's, for explaining a failed test
    Outcome m_out;
    std::string m_detail; // the text's lines under the result line (why it was refused)
};

Outcome Reverter::refuse(const std::string &result, const std::string &message)
{
    m_out.json["result"] = result;
    m_out.json["message"] = message;
    m_out.text += result + ": " + visible(message) + "\n" + m_detail;
    m_out.exitCode = 1;
    return std::move(m_out);
}

bool Reverter::readLive(std::string *why)
{
    auto live = m_s.call(kube::getRequest(m_r, m_ns, m_name));
    if (!live) {
        *why = live.error().httpStatus == 404 ? m_r.resource + " " + m_name
                                                    + " does not exist: a revert writes onto the live object "
                                                      "(create it again with fieldscope apply)"
                                              : live.error().describe();
        return false;
    }
    auto parsed = core::parseJson(live->body);
    if (!parsed || !parsed->is_object()) {
        *why = "the server's answer is not an object";
        return false;
    }
    // Every object a server serves has its metadata; the plan and the write read it.
    if (const auto meta = parsed->find("metadata"); meta == parsed->end() || !meta->is_object()) {
        *why = "the server's answer for " + m_r.resource + " " + m_name + ": its metadata is missing or not an object";
        return false;
    }
    m_live = std::move(*parsed);
    return true;
}

// The live object as the store recorded it (same uid and resourceVersion), when it did: a
// Secret's hidden values there are the live values' hashes.
std::optional<Json> Reverter::liveAsRecorded() const
{
    // stringAt: a pointer walk into a live object never throws, whatever its shape.
    const auto rv = core::stringAt(m_live, "/metadata/resourceVersion");
    const auto uid = core::stringAt(m_live, "/metadata/uid");
    if (!m_v.store || !rv || !uid)
        return std::nullopt;
    auto found = findRevertVersions(*m_v.store, m_v.query, *rv, false, "");
    if (!found || found->target.incarnation.ref.uid != *uid)
        return std::nullopt;
    return std::move(found->target.object);
}

bool Reverter::plan(std::string *why)
{
    core::RevertOptions options;
    options.withoutStatus = m_r.hasSubresource("status");
    options.isHiddenValue = core::isRedactedValue;
    const std::optional<Json> liveRecorded = liveAsRecorded();
    options.liveAsRecorded = liveRecorded ? &*liveRecorded : nullptr;
    auto planned = core::planRevert(m_v.target.object, m_a.change ? &m_v.predecessor->object : nullptr, m_live,
                                    options);
    if (!planned) {
        *why = planned.error().describe();
        return false;
    }
    m_plan = std::move(*planned);
    m_jsonPatch = m_plan.jsonPatch;
    return true;
}

void Reverter::describePlan()
{
    for (const core::RevertChange &c : m_plan.changes) {
        Json row = {{"pointer", c.pointer}, {"path", c.path}, {"action", c.action()}};
        const auto live = m_mask.opt(c.live, c.pointer), restored = m_mask.opt(c.restored, c.pointer);
        if (live)
            row["live"] = *live;
        if (restored)
            row["restored"] = *restored;
        m_out.json["changes"].push_back(std::move(row));
        m_out.text += "  " + visible(c.path) + ": " + valueText(live) + " -> "
                    + (restored ? valueText(restored) : std::string("(removed)")) + "\n";
    }
    for (const core::RevertSkipped &s : m_plan.skipped) {
        m_out.json["skipped"].push_back({{"path", s.path}, {"reason", s.reason}});
        m_out.text += "  left alone: " + visible(s.path) + " (" + s.reason + ")\n";
    }
    if (m_plan.otherIncarnation)
        m_out.text += "  note: the object was deleted and created again since " + visible(m_a.to)
                    + "; the fields go onto the object that exists now\n";
}

// Stale rows: who owns each field now and, from the history, which recorded versions changed it
// since the expected version and who made them.
void Reverter::addStale(const std::vector<core::StaleField> &stale, bool fromHistory)
{
    for (const core::StaleField &f : stale) {
        Json row = {{"pointer", f.pointer}, {"path", f.path}, {"owners", Json::array()}, {"changedIn", Json::array()}};
        const auto then = m_mask.opt(f.expected, f.pointer), now = m_mask.opt(f.now, f.pointer);
        if (then)
            row["expected"] = *then;
        if (now)
            row["now"] = *now;
        if (f.restored)
            row["restored"] = m_mask(*f.restored, f.pointer);
        std::string owners;
        for (const core::FieldOwnerRef &o : f.owners) {
            row["owners"].push_back(ownerJson(o));
            owners += (owners.empty() ? "" : ", ") + ownerText(o);
        }
        std::string changedIn;
        if (fromHistory)
            for (const RevertWriter &w : writersSince(m_v, f.path)) {
                row["changedIn"].push_back({{"resourceVersion", w.resourceVersion},
                                            {"managers", w.managers},
                                            {"who", w.who.empty() ? Json() : Json(w.who)}});
                changedIn += (changedIn.empty() ? "" : ", ") + visible(w.resourceVersion) + " by " + visible(w.text());
            }
        m_out.json["stale"].push_back(std::move(row));
        m_detail += "  " + visible(f.path) + ": " + valueText(then) + " then, " + valueText(now) + " now"
                  + (owners.empty() ? "" : "; owned by " + owners)
                  + (changedIn.empty() ? "" : "; changed in " + changedIn) + "\n";
    }
}

// --expect: every field the revert touches must still hold its value at that version.
std::optional<Outcome> Reverter::checkExpected()
{
    if (!m_v.expect)
        return std::nullopt;
    core::RevertOptions options;
    options.isHiddenValue = core::isRedactedValue;
    const core::StaleCheck check = core::staleSince(m_plan, m_v.expect->object, m_live, options);
    if (!check.hiddenValues.empty())
        return refuse("refused", "resourceVersion " + m_a.expect
                                     + " keeps this Secret's values only as hashes, so they cannot be compared with "
                                       "the live ones; nothing was written");
    if (check.stale.empty())
        return std::nullopt;
    addStale(check.stale, true);
    const std::size_t n = check.stale.size();
    return refuse("refused", std::to_string(n) + (n == 1 ? " field" : " fields")
                                 + " the revert touches changed since resourceVersion " + m_a.expect
                                 + "; nothing was written");
}

std::optional<kube::HttpRequest> Reverter::buildRequest(std::string *why)
{
    if (m_a.mode == Mode::JsonPatch)
        return kube::patchRequest(m_r, m_ns, m_name, kube::PatchType::Json, m_jsonPatch, m_options);
    core::ApplyOptions options;
    options.ignoreStatus = m_r.hasSubresource("status");
    auto apply = core::revertApplyBody(m_plan, m_live, m_a.manager, options);
    if (!apply) {
        *why = apply.error().describe();
        return std::nullopt;
    }
    for (const std::string &path : apply->notRemovable)
        m_out.json["notRemovable"].push_back(path);
    if (!apply->notRemovable.empty()) {
        for (const std::string &path : apply->notRemovable)
            m_detail += "  not removable by apply: " + visible(path) + "\n";
        *why = "server-side apply removes only fields its manager applied before and nobody else owns, so it cannot "
               "remove what this revert removes (leaving a field out, or setting it to null, keeps it); use --mode "
               "jsonpatch; nothing was written";
        return std::nullopt;
    }
    for (const core::ApplyConflict &c : apply->preview.conflicts) {
        Json from = Json::array();
        std::string owners;
        for (const core::FieldOwnerRef &o : c.owners) {
            from.push_back(ownerJson(o));
            owners += (owners.empty() ? "" : ", ") + ownerText(o);
        }
        m_out.json["taken"].push_back({{"path", c.path.toString()}, {"from", std::move(from)}});
        m_out.text += "  " + visible(m_a.manager) + " takes " + visible(c.path.toString()) + " from " + owners + "\n";
    }
    return kube::applyRequest(m_r, m_ns, apply->body, m_options);
}

// After a refusal: read the object again and name the touched fields that changed since the plan.
void Reverter::explainConflict(const core::Error &e)
{
    std::string why;
    const Json planned = m_live;
    if (!readLive(&why)) {
        m_detail += "  (could not read the object again: " + visible(why) + ")\n";
        return;
    }
    const core::StaleCheck check = core::staleSince(m_plan, planned, m_live);
    addStale(check.stale, false);
    if (check.stale.empty() && e.category == core::ErrorCategory::StaleWrite)
        m_detail += "  only fields the revert does not touch changed: run it again\n";
}

Outcome Reverter::send(const kube::HttpRequest &req)
{
    auto resp = m_s.call(req);
    if (!resp) {
        const core::Error &e = resp.error();
        // A failed `test` is a 422 with the generic message and no causes
        // (k8s.io/apiserver/pkg/endpoints/handlers/patch.go); a stale resourceVersion a 409.
        const bool failedTest = m_a.mode == Mode::JsonPatch && e.httpStatus == 422 && e.causes.empty();
        if (failedTest || e.category == core::ErrorCategory::StaleWrite
            || e.category == core::ErrorCategory::Conflict) {
            explainConflict(e);
            return refuse("conflict", "the object changed after it was read (" + e.message + "); nothing was written");
        }
        for (const core::StatusCause &c : e.causes)
            m_detail += "  " + visible(c.field.empty() ? c.reason : c.field) + ": " + visible(c.message) + "\n";
        return refuse("refused", e.describe());
    }
    const Json after = core::parseJson(resp->body).valueOr(Json());
    m_out.json["result"] = "written";
    m_out.json["resourceVersion"] = core::stringAt(after, "/metadata/resourceVersion").value_or(std::string());
    m_out.text += "written: resourceVersion " + visible(m_out.json["resourceVersion"].get<std::string>()) + "\n";
    if (auto moved = core::ownershipDiff(m_live, after, m_a.manager); moved)
        for (const std::string &line : moved->describe(m_a.manager)) {
            m_out.json["ownershipChanges"].push_back(line);
            m_out.text += "  " + visible(line) + "\n";
        }
    for (const std::string &w : resp->warnings)
        m_out.json["warnings"].push_back(w);
    return std::move(m_out);
}

Outcome Reverter::run()
{
    const std::string what = m_a.change ? "undo the change " + m_a.to + " made" : "revert to " + m_a.to;
    m_out.json = {
        {"object", {{"apiVersion", m_r.apiVersion()}, {"kind", m_r.kind}, {"namespace", m_ns}, {"name", m_name}}},
        {"to", m_a.to},
        {"change", m_a.change},
        {"expect", m_a.expect.empty() ? Json() : Json(m_a.expect)},
        {"mode", m_a.mode == Mode::Apply ? "apply" : "jsonpatch"},
        {"fieldManager", m_a.manager},
        {"result", "refused"},
        {"changes", Json::array()},
        {"skipped", Json::array()},
        {"stale", Json::array()},
        {"notRemovable", Json::array()},
        {"taken", Json::array()},
        {"ownershipChanges", Json::array()},
        {"request", Json()},
        {"resourceVersion", ""},
        {"warnings", Json::array()}};
    m_out.text = visible(m_r.resource + "/" + m_name) + (m_ns.empty() ? "" : " -n " + visible(m_ns)) + ": "
               + visible(what) + " (" + m_out.json["mode"].get<std::string>() + ", field manager "
               + visible(m_a.manager) + ")\n";
    std::string why;
    if (m_a.change && !m_v.predecessor)
        return refuse("refused", "the change " + m_a.to + " made is not known: " + m_v.noPredecessor);
    if (!readLive(&why) || !plan(&why))
        return refuse("refused", why);
    describePlan();
    if (!m_plan.hiddenValues.empty())
        return refuse("refused", "the history keeps this Secret's values only as hashes (Secret values are recorded "
                                 "only with the per-cluster opt-in), so they cannot be written back; nothing was "
                                 "written");
    if (auto refused = checkExpected())
        return std::move(*refused);
    if (m_plan.nothingToDo()) {
        m_out.json["result"] = "unchanged";
        m_out.text += "unchanged: the live object already holds these values; nothing was written\n";
        return std::move(m_out);
    }
    const auto req = buildRequest(&why);
    if (!req)
        return refuse("refused", why);
    const Json shownBody = m_mask.body(core::parseJson(req->body).valueOr(Json()), m_a.mode == Mode::JsonPatch);
    m_out.json["request"] = {{"method", req->method},
                             {"path", req->path},
                             {"contentType", req->contentType},
                             {"body", m_mask.active() ? core::toJsonText(shownBody) : req->body}};
    if (!m_a.dryRun)
        return send(*req);
    m_out.json["result"] = "dry-run";
    m_out.text += "dry run: nothing was sent; the request"
                + std::string(m_mask.active() ? " (the Secret's values shown as (hidden))" : "") + ":\n" + req->method
                + " " + req->path + "\nContent-Type: " + req->contentType + "\n\n"
                + m_out.json["request"]["body"].get<std::string>() + "\n";
    return std::move(m_out);
}

void addRevertOptions(QCommandLineParser &p)
{
    p.setApplicationDescription(QStringLiteral(
        "fieldscope revert RESOURCE/NAME --to RV: put back the fields of recorded version RV (--change: undo only the "
        "change RV made against the version before it), written with preconditions. jsonpatch (default): a JSON Patch "
        "with a test of every live value it replaces; apply: server-side apply as the field manager of Settings, taking "
        "the reverted fields. status, managedFields and other server-set metadata are left alone and listed. Exit "
        "status: 0 written, 1 refused or conflict (nothing written), 2 usage."));
    p.addHelpOption();
    p.addPositionalArgument(QStringLiteral("RESOURCE/NAME"),
                            QStringLiteral("e.g. configmaps/demo, deployments.apps/web"));
    p.addOption({{QStringLiteral("n"), QStringLiteral("namespace")},
                 QStringLiteral("Namespace (default: the one the history holds the object in)."),
                 QStringLiteral("NAMESPACE")});
    p.addOption({QStringLiteral("to"), QStringLiteral("The recorded resourceVersion whose fields to restore."),
                 QStringLiteral("RV")});
    p.addOption({QStringLiteral("change"),
                 QStringLiteral("Undo only the change RV made against the version recorded before it.")});
    p.addOption({QStringLiteral("expect"),
                 QStringLiteral("Refuse (exit 1, nothing written) when a field the revert touches no longer has its "
                                "value at this recorded resourceVersion: the version you looked at."),
                 QStringLiteral("RV")});
    p.addOption({QStringLiteral("mode"), QStringLiteral("jsonpatch (default) or apply."), QStringLiteral("MODE"),
                 QStringLiteral("jsonpatch")});
    p.addOption({QStringLiteral("dry-run"), QStringLiteral("Print the exact request; send nothing.")});
    p.addOption({QStringLiteral("db"),
                 QStringLiteral("The history database, a team's postgresql:// store, or a .jsonl export. Default: the "
                                "window's store for the cluster of --context."),
                 QStringLiteral("FILE|URL")});
    p.addOption({{QStringLiteral("o"), QStringLiteral("output")},
                 QStringLiteral("text (default) or json."),
                 QStringLiteral("FORMAT"),
                 QStringLiteral("text")});
}

// 0, or the exit code of a command line `revert` cannot run (and why, on stderr).
int checkRevertUsage(const QCommandLineParser &p, RevertArgs &a)
{
    const QString usage = QStringLiteral(
        "usage: fieldscope revert RESOURCE/NAME [-n NS] --to RV [--change] [--expect RV] [--mode jsonpatch|apply] "
        "[--dry-run] [--db FILE|URL] [-o text|json]");
    const QStringList positional = p.positionalArguments();
    if (positional.size() != 1 || positional[0].section(QLatin1Char('/'), 1).isEmpty()
        || p.value(QStringLiteral("to")).isEmpty())
        return reportError(usage) + 1;
    const QString format = p.value(QStringLiteral("output")), mode = p.value(QStringLiteral("mode"));
    if (format != QLatin1String("text") && format != QLatin1String("json"))
        return reportError(QStringLiteral("unknown output format \"%1\" (text, json)").arg(format)) + 1;
    if (mode != QLatin1String("jsonpatch") && mode != QLatin1String("apply"))
        return reportError(QStringLiteral("unknown mode \"%1\" (jsonpatch, apply)").arg(mode)) + 1;
    if (p.isSet(QStringLiteral("expect")) && p.value(QStringLiteral("expect")).isEmpty())
        return reportError(usage) + 1;
    a.to = p.value(QStringLiteral("to")).toStdString();
    a.expect = p.value(QStringLiteral("expect")).toStdString();
    a.change = p.isSet(QStringLiteral("change"));
    a.dryRun = p.isSet(QStringLiteral("dry-run"));
    a.mode = mode == QLatin1String("apply") ? Mode::Apply : Mode::JsonPatch;
    // `apply`'s default: the window's Settings, whose reader turns a value the server would refuse
    // into the default.
    a.manager = Settings::fieldManager().toStdString();
    return 0;
}

// The store to read: --db, else the one the window records this cluster into.
core::Result<std::string> revertStore(const QCommandLineParser &p, CliSession &session)
{
    if (p.isSet(QStringLiteral("db")))
        return p.value(QStringLiteral("db")).toStdString();
    const kube::ResolvedConfig &config = session.connection().config;
    const QString location = historyLocationFor(QString::fromStdString(config.contextName), clusterIdentityOf(config));
    if (!isSharedHistoryLocation(location) && !QFileInfo::exists(location))
        return core::Error::make(core::ErrorCategory::NotFound,
                                 "nothing is recorded for this cluster on this computer yet (" + location.toStdString()
                                     + " does not exist): open it in the window, run `fieldscope record ... --store`, "
                                       "or name a database with --db");
    return location.toStdString();
}

} // namespace

int runRevert(const QStringList &args)
{
    QCommandLineParser p;
    addRevertOptions(p);
    addConnectionOptions(p);
    if (int rc = 0; !parseOrHelp(p, args, &rc))
        return rc;
    RevertArgs a;
    if (const int usage = checkRevertUsage(p, a); usage != 0)
        return usage;
    auto session = CliSession::open(p);
    if (!session)
        return CliSession::openFailureCode();
    const QString target = p.positionalArguments().constFirst();
    const kube::ResourceInfo *r = session->resolve(target.section(QLatin1Char('/'), 0, 0));
    if (!r)
        return 2;
    auto location = revertStore(p, *session);
    if (!location)
        return reportError(location.error());
    auto store = openHistoryForReading(*location);
    if (!store) { // a store that cannot be read is no usage error: nothing was written
        reportError(store.error());
        return 1;
    }
    core::ObjectQuery q;
    q.resource = r->qualifiedName();
    q.name = target.section(QLatin1Char('/'), 1).toStdString();
    q.namespace_ = p.value(QStringLiteral("namespace")).toStdString();
    q.allNamespaces = !p.isSet(QStringLiteral("namespace"));
    auto versions = findRevertVersions(**store, q, a.to, a.change, a.expect);
    if (!versions) {
        // The arguments name no recorded version (or no version before a gap): a usage error. A
        // stored row that cannot be read, or a store that fails, is the store's: exit 1.
        reportError(versions.error());
        const auto c = versions.error().category;
        return c == core::ErrorCategory::NotFound || c == core::ErrorCategory::Invalid
                    || c == core::ErrorCategory::Config
                 ? 2
                 : 1;
    }
    // Written as recorded: the version's own apiVersion, when the server still serves it.
    const std::string apiVersion = core::stringAt(versions->target.object, "/apiVersion").value_or(std::string());
    const std::string kind = core::stringAt(versions->target.object, "/kind").value_or(std::string());
    const kube::ResourceInfo *writeAs = session->findKind(apiVersion, kind);
    Reverter reverter(*session, a, *versions, writeAs ? *writeAs : *r);
    const Outcome out = reverter.run();
    if (p.value(QStringLiteral("output")) == QLatin1String("json"))
        std::fputs((core::toJsonText(out.json, 2) + "\n").c_str(), stdout);
    else
        std::fputs(out.text.c_str(), stdout);
    return out.exitCode;
}

} // namespace fieldscope::app
