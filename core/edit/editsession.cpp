#include "core/edit/editsession.h"

#include "core/base/jsonread.h"
#include "core/diff/objectdiff.h"
#include "core/edit/applybody.h"
#include "core/edit/editbuffer.h"
#include "core/ownership/managedfields.h"
#include "core/ownership/ownershipdiff.h"
#include "core/yaml/yaml.h"

#include <algorithm>

namespace fieldscope::core {

namespace {

bool contains(const std::vector<std::string> &list, const std::string &value)
{
    return std::find(list.begin(), list.end(), value) != list.end();
}

void appendOnce(std::vector<std::string> &list, const std::string &value)
{
    if (!contains(list, value))
        list.push_back(value);
}

std::string metaString(const Json &object, const char *key)
{
    return stringAt(object, std::string("/metadata/") + key).value_or(std::string());
}

// The value a JSON Patch tested at `pointer` (the patch is ours, but read it as any JSON).
std::optional<Json> testedValue(const Json &patch, const std::string &pointer)
{
    if (!patch.is_array())
        return std::nullopt;
    for (const Json &op : patch) {
        if (stringAt(op, "/op") != "test" || stringAt(op, "/path") != pointer)
            continue;
        auto value = op.find("value");
        return value != op.end() ? *value : Json();
    }
    return std::nullopt;
}

std::string changeLine(const FieldChange &c)
{
    std::string line = std::string(fieldChangeKindName(c.kind)) + " " + c.path.toString();
    if (c.kind == FieldChange::Kind::Changed)
        return line + ": " + jsonPreview(c.oldValue, 80) + " -> " + jsonPreview(c.newValue, 80);
    return line + ": " + jsonPreview(c.kind == FieldChange::Kind::Added ? c.newValue : c.oldValue, 80);
}

} // namespace

Result<EditVersion> EditSession::parseVersion(std::string_view json, bool withoutStatus)
{
    auto parsed = parseJson(json);
    if (!parsed)
        return parsed.error();
    return readVersion(*parsed, withoutStatus);
}

Result<EditVersion> EditSession::readVersion(const Json &live, bool withoutStatus)
{
    if (!live.is_object())
        return Error::make(ErrorCategory::Parse,
                           std::string("the object is a JSON ") + jsonTypeName(live) + ", not an object");
    EditVersion v;
    v.resourceVersion = metaString(live, "resourceVersion");
    v.namespace_ = metaString(live, "namespace");
    v.name = metaString(live, "name");
    v.editable = editableObject(live, withoutStatus);
    v.yaml = jsonToYaml(v.editable);
    v.live = live;
    return v;
}

ShapeProblem EditSession::shapeProblem(const Json &object)
{
    if (!object.is_object())
        return ShapeProblem::NotAnObject;
    if (metaString(object, "name").empty())
        return ShapeProblem::NoName;
    return ShapeProblem::None;
}

Refusal EditSession::refusalOf(const Error &error, WriteMode mode)
{
    if (error.isSsaConflict())
        return Refusal::FieldConflicts;
    switch (error.category) {
    case ErrorCategory::StaleWrite: return Refusal::StaleWrite;
    // The server's 422 for a failed `test` is generic ("the server rejected our request due to an
    // error in our request"): only testing the patch against the object tells which field moved.
    case ErrorCategory::Invalid: return mode == WriteMode::JsonPatch ? Refusal::FailedTests : Refusal::Invalid;
    case ErrorCategory::Forbidden: return Refusal::Forbidden;
    default: return Refusal::Other;
    }
}

std::vector<ConflictEntry> EditSession::conflictRows(const Error &error, const Json &sent, const Json &live)
{
    std::vector<std::string> paths;
    for (const auto &c : error.conflicts)
        paths.push_back(c.path);
    const std::vector<FieldValues> values = valuesAtPaths(sent, live, paths);
    std::vector<ConflictEntry> rows;
    for (std::size_t i = 0; i < error.conflicts.size(); ++i) {
        ConflictEntry row{error.conflicts[i], std::nullopt, std::nullopt};
        if (i < values.size()) {
            row.live = values[i].live;
            row.mine = values[i].mine;
        }
        rows.push_back(std::move(row));
    }
    return rows;
}

std::vector<FailedTest> EditSession::failedTests(const Json &jsonPatch, const Json &currentLive, bool withoutStatus)
{
    std::vector<FailedTest> out;
    for (auto &[pointer, now] : core::failedTests(jsonPatch, editableObject(currentLive, withoutStatus)))
        out.push_back({pointer, testedValue(jsonPatch, pointer), std::move(now)});
    return out;
}

std::optional<ResolutionPlan>
EditSession::planResolution(const std::vector<std::pair<std::string, Resolution>> &choices)
{
    ResolutionPlan plan;
    for (const auto &[path, choice] : choices) {
        switch (choice) {
        case Resolution::Undecided: return std::nullopt;
        case Resolution::Force: plan.force = true; break;
        case Resolution::GiveUp: appendOnce(plan.giveUp, path); break;
        case Resolution::CoOwn: appendOnce(plan.coOwn, path); break;
        }
    }
    return plan;
}

Result<std::string> EditSession::resolvedBuffer(std::string_view bufferYaml, const Json &live,
                                                const ResolutionPlan &plan)
{
    auto parsed = yamlToJson(bufferYaml);
    if (!parsed)
        return parsed.error();
    std::vector<std::string> notFound;
    Json out = withoutFieldPaths(parsed->value, live, plan.giveUp, &notFound);
    out = withLiveValuesAt(out, live, plan.coOwn, &notFound);
    if (!notFound.empty())
        return Error::make(ErrorCategory::Invalid, "not in the buffer: " + notFound.front());
    return jsonToYaml(out);
}

Result<MergeOnto> EditSession::mergeOntoCurrent(const Json &opened, std::string_view bufferYaml,
                                                const Json &currentLive, bool withoutStatus)
{
    auto mine = yamlToJson(bufferYaml);
    if (!mine)
        return mine.error();
    auto now = readVersion(currentLive, withoutStatus);
    if (!now)
        return now.error();
    // Lists merge item by item as the server merges them: the built-in table, and what the
    // current object's managedFields show of its lists (k:/v: entries; all a custom resource has).
    ListSemanticsResolver semantics;
    if (auto entries = parseManagedFields(currentLive))
        addListSemanticsHints(*entries, &semantics);
    MergeOptions options;
    options.semantics = &semantics;
    auto merged = threeWayMerge(opened, mine->value, now->editable, options);
    if (!merged)
        return merged.error();
    std::string yaml = merged->conflicts.empty() ? jsonToYaml(merged->merged) : std::string();
    return MergeOnto{std::move(*merged), std::move(*now), std::move(yaml)};
}

std::string EditSession::resolvedMergeYaml(const ThreeWayMerge &merge, const std::vector<std::string> &keepMine)
{
    std::map<std::string, MergeChoice> choices;
    for (const MergeConflict &c : merge.conflicts)
        choices[c.pointer] = contains(keepMine, c.pointer) ? MergeChoice::Mine : MergeChoice::Theirs;
    return jsonToYaml(resolveMerge(merge, choices));
}

WriteSummary EditSession::summarizeWrite(const Json &before, const Json &after, std::string_view manager)
{
    WriteSummary summary;
    if (before.is_null())
        return summary;
    if (auto d = ownershipDiff(before, after, manager); d && !d->empty())
        summary.ownership = d->describe(manager);
    for (const FieldChange &c : diffObjects(before, after))
        summary.changes.push_back(changeLine(c));
    return summary;
}

EditSession::WriteBase EditSession::writeBase() const
{
    return {m_live, m_opened, m_openedRv, m_withoutStatus, m_givenUp, m_coOwned};
}

Result<WritePlan> EditSession::planWrite(const WriteBase &base, WriteMode mode, Json edited, bool force,
                                         std::string_view manager)
{
    if (shapeProblem(edited) != ShapeProblem::None)
        return Error::make(ErrorCategory::Invalid, "the buffer is not an object with metadata.name");
    WritePlan plan;
    plan.mode = mode;
    switch (mode) {
    case WriteMode::Apply: {
        ApplyOptions options;
        options.ignoreStatus = base.withoutStatus;
        auto body = applyBodyForEdit(base.live, base.opened, edited, manager, options, base.coOwned);
        if (!body)
            return body.error();
        plan.body = std::move(body->body);
        plan.force = force;
        for (const auto &path : body->notRemovable)
            if (!contains(base.givenUp, path)) // removed on purpose, not a deletion the apply failed to make
                plan.notRemovable.push_back(path);
        break;
    }
    case WriteMode::Replace: // the optimistic lock: refused when anyone wrote since
        edited["metadata"]["resourceVersion"] = base.openedRv;
        plan.body = std::move(edited);
        break;
    case WriteMode::MergePatch: // only what the buffer changed since the base version
        plan.body = mergePatchBetween(base.opened, edited);
        break;
    case WriteMode::JsonPatch: // the same, each change only if its field is as opened
        plan.body = jsonPatchBetween(base.opened, edited);
        break;
    }
    return plan;
}

void EditSession::open(EditVersion version)
{
    m_opened = std::move(version.editable);
    m_openedRv = std::move(version.resourceVersion);
    m_live = std::move(version.live);
}

void EditSession::restoreBase(Json opened, std::string resourceVersion)
{
    m_opened = std::move(opened);
    m_openedRv = std::move(resourceVersion);
}

void EditSession::noteCurrent(Json live)
{
    m_current = live;
    m_live = std::move(live);
}

void EditSession::notePlanned(const WritePlan &plan, bool sent)
{
    m_notRemovable = plan.notRemovable;
    if (sent && plan.mode == WriteMode::JsonPatch)
        m_lastJsonPatch = plan.body;
}

void EditSession::noteWritten(EditVersion answer)
{
    open(std::move(answer));
    m_givenUp.clear();
    m_coOwned.clear();
}

void EditSession::rebaseOnto(EditVersion now)
{
    open(std::move(now));
}

void EditSession::takeMerge(MergeOnto merged)
{
    open(std::move(merged.now));
    m_merge = std::move(merged.merge);
}

void EditSession::noteResolution(const ResolutionPlan &plan)
{
    for (const auto &p : plan.giveUp)
        appendOnce(m_givenUp, p);
    for (const auto &p : plan.coOwn)
        appendOnce(m_coOwned, p);
}

} // namespace fieldscope::core
