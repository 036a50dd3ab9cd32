#include "core/drift/drifttracker.h"

#include "core/base/jsonread.h"
#include "core/history/attribution.h"
#include "core/history/historyexport.h"
#include "core/history/secretredaction.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>

namespace fieldscope::core {
namespace {

// Notes beyond this many are only counted: a store someone else wrote may hold a million
// unreadable versions of one object.
constexpr std::size_t kMaxNotes = 20;

// A manager other than the applier that owns a field, as compared from one version to the next.
struct OwnerTag {
    std::string manager;
    ManagedOperation operation = ManagedOperation::Update;
    std::string subresource;
    std::string apiVersion;
    bool operator==(const OwnerTag &) const = default;
    bool isStatus() const { return subresource == "status"; }
};

// One field an applier applied (known), or one managedFields alone suggests (a candidate).
struct Tracked {
    FieldPath path;
    bool known = true; // the applied value is known (the apply was recorded)
    bool appliedPresent = false;
    Json applied;
    bool owned = true; // the applier owned it in the last version
    // The field as the last version had it, to tell when it changes.
    bool lastPresent = false;
    Json last;
    std::vector<OwnerTag> lastOwners;
    DriftNow now;          // who made it what it last was (once the applier lost it)
    bool byStatus = false; // that was a write through the status subresource
};

struct Applier {
    std::string manager;
    bool present = false; // has an entry in the last version
    std::string time;     // that entry's time
    FieldSet set;         // that entry's fields
    std::string appliedAt;
    std::vector<Tracked> fields;
};

// What is known about the version being fed.
struct VersionContext {
    bool recorded = true; // false: the live object, newer than anything recorded
    std::string resourceVersion;
    std::int64_t observedAtMs = 0;
    bool afterGap = false;
    std::string user;         // the audit join's person ("" = none)
    std::string fieldManager; // the audit join's field manager ("" = none)
};

bool isApplierEntry(const ManagedFieldsEntry &e)
{
    return e.operation == ManagedOperation::Apply && e.subresource.empty();
}

bool isApplierEntry(const ManagedFieldsEntry &e, const std::string &manager)
{
    return isApplierEntry(e) && e.manager == manager;
}

bool underStatus(const FieldPath &p)
{
    return !p.isEmpty() && p[0].kind == PathElement::Kind::Field && p[0].field == "status";
}

const Json *valueAt(const Json &object, const FieldPath &path)
{
    const Json *node = nullptr;
    return path.resolve(object, nullptr, &node) ? node : nullptr;
}

bool sameValue(bool aPresent, const Json &a, bool bPresent, const Json &b)
{
    return aPresent == bPresent && (!aPresent || jsonEqual(a, b));
}

// The leaf members of a set (a member with children is a container: its fields are listed).
// FieldSet decoding refuses nesting past kMaxJsonDepth, which bounds the recursion.
void leafMembers(const FieldSet &set, std::vector<PathElement> &prefix, std::vector<FieldPath> &out)
{
    if (set.isMember() && !set.hasChildren() && !prefix.empty()) {
        out.emplace_back(prefix);
        return;
    }
    for (const auto &c : set.children()) {
        prefix.push_back(c.element);
        leafMembers(c.set, prefix, out);
        prefix.pop_back();
    }
}

std::vector<FieldPath> leafMembers(const FieldSet &set)
{
    std::vector<PathElement> prefix;
    std::vector<FieldPath> out;
    leafMembers(set, prefix, out);
    return out;
}

// Whether every member of `a` is a member of `b`.
bool isSubset(const FieldSet &a, const FieldSet &b)
{
    if (a.isMember() && !b.isMember())
        return false;
    for (const auto &c : a.children()) {
        const FieldSet *other = b.find(c.key);
        if (!other ? !c.set.isEmpty() : !isSubset(c.set, *other))
            return false;
    }
    return true;
}

// The entries of this version that wrote (new, `time` moved, or own fields they did not own):
// an entry's time moves only with its own writes (managedfieldsupdater.go in
// k8s.io/apimachinery/pkg/util/managedfields/internal). Without a previous version, all of them.
std::vector<bool> writersOf(const std::vector<ManagedFieldsEntry> &cur, const std::vector<ManagedFieldsEntry> *prev)
{
    std::vector<bool> out(cur.size(), true);
    if (!prev)
        return out;
    // Entry identity as ManagedFieldsEntry::sameIdentity has it, as one key: an object someone
    // else wrote may carry thousands of entries.
    auto identity = [](const ManagedFieldsEntry &e) {
        return e.manager + '\n' + operationName(e.operation) + '\n' + e.subresource + '\n'
             + (e.operation == ManagedOperation::Update ? e.apiVersion : std::string());
    };
    std::map<std::string, const ManagedFieldsEntry *> before;
    for (const auto &p : *prev)
        before.emplace(identity(p), &p);
    for (std::size_t i = 0; i < cur.size(); ++i)
        if (const auto it = before.find(identity(cur[i])); it != before.end())
            out[i] = it->second->time != cur[i].time || !isSubset(cur[i].fields, it->second->fields);
    return out;
}

std::vector<OwnerTag> othersOwning(const std::vector<ManagedFieldsEntry> &entries, const FieldPath &path,
                                   const std::string &applier)
{
    std::vector<OwnerTag> out;
    for (const auto &e : entries)
        if (!isApplierEntry(e, applier) && fieldSetCovers(e.fields, path))
            out.push_back({e.manager, e.operation, e.subresource, e.apiVersion});
    return out;
}

DriftNow nowFrom(const ManagedFieldsEntry *by, const Json *value)
{
    DriftNow n;
    n.present = value != nullptr;
    n.value = value ? *value : Json();
    if (by) {
        n.manager = by->manager;
        n.operation = by->operation;
        n.subresource = by->subresource;
        n.time = by->time;
    }
    return n;
}

// The entry that made `path` what it is in this version: a writer of the version that owns it,
// else the field manager the audit event names (a removal changes no entry), else the only
// other writer, else whoever owns it now.
const ManagedFieldsEntry *changedBy(const std::vector<ManagedFieldsEntry> &entries, const std::vector<bool> &wrote,
                                    const FieldPath &path, const std::string &applier, const VersionContext &ctx)
{
    for (std::size_t i = 0; i < entries.size(); ++i)
        if (wrote[i] && !isApplierEntry(entries[i], applier) && fieldSetCovers(entries[i].fields, path))
            return &entries[i];
    if (!ctx.fieldManager.empty())
        for (const auto &e : entries)
            if (e.manager == ctx.fieldManager && !isApplierEntry(e, applier))
                return &e;
    const ManagedFieldsEntry *only = nullptr;
    for (std::size_t i = 0; i < entries.size(); ++i)
        if (wrote[i] && !isApplierEntry(entries[i], applier)) {
            if (only && only->manager != entries[i].manager) {
                only = nullptr;
                break;
            }
            only = &entries[i];
        }
    if (only)
        return only;
    for (const auto &e : entries)
        if (!isApplierEntry(e, applier) && fieldSetCovers(e.fields, path))
            return &e;
    return nullptr;
}

// A Secret's values never reach a finding: recorded versions hold keyed hashes, the live object
// the values themselves, so both are replaced by one marker (ownership still tells drift).
std::optional<Json> withoutSecretValues(const Json &object)
{
    if (!isSecretObject(object))
        return std::nullopt;
    Json out = object;
    for (const char *field : {"data", "stringData"}) {
        const auto it = out.find(field);
        if (it != out.end() && it->is_object())
            for (auto v = it->begin(); v != it->end(); ++v)
                v.value() = "(hidden)";
    }
    const auto meta = out.find("metadata");
    if (meta != out.end() && meta->is_object()) {
        const auto annotations = meta->find("annotations");
        if (annotations != meta->end() && annotations->is_object() && annotations->contains(kLastAppliedAnnotation))
            (*annotations)[kLastAppliedAnnotation] = "(hidden)";
    }
    return out;
}

void whoOf(const AuditJoin *join, VersionContext &ctx)
{
    if (!join || join->candidates.empty() || (join->match != AuditMatch::Exact && join->match != AuditMatch::Probable))
        return;
    const AuditWho &who = join->candidates.front();
    ctx.user = auditActingName(who);
    if (join->match == AuditMatch::Probable)
        ctx.user += " (probable)"; // as blame --who says it
    ctx.fieldManager = who.fieldManager;
}

} // namespace

struct DriftTracker::State {
    DriftOptions options;
    std::vector<Applier> appliers; // in the order they first appear
    std::map<std::string, std::size_t> applierIndex;
    std::optional<std::vector<ManagedFieldsEntry>> previous;
    bool fedAny = false;
    bool pendingGap = false;
    std::string lastResourceVersion;
    std::vector<std::string> notes;
    std::size_t unnoted = 0;

    void note(std::string text)
    {
        if (notes.size() < kMaxNotes)
            notes.push_back(std::move(text));
        else
            ++unnoted;
    }
    bool wanted(const ManagedFieldsEntry &e) const
    {
        return isApplierEntry(e) && (options.manager.empty() || e.manager == options.manager);
    }
    void process(const Json &object, std::vector<ManagedFieldsEntry> entries, const VersionContext &ctx);
    void startOver(Applier &a, const ManagedFieldsEntry &e, const Json &object,
                   const std::vector<ManagedFieldsEntry> &entries, const VersionContext &ctx);
    void addCandidates(Applier &a, const ManagedFieldsEntry &e, const Json &object,
                       const std::vector<ManagedFieldsEntry> &entries);
    void follow(Applier &a, const ManagedFieldsEntry *e, const Json &object,
                const std::vector<ManagedFieldsEntry> &entries, const std::vector<bool> &wrote,
                const VersionContext &ctx);
    std::vector<DriftFinding> findings(const DriftObjectRef &object) const;
};

void DriftTracker::State::process(const Json &object, std::vector<ManagedFieldsEntry> entries,
                                  const VersionContext &ctx)
{
    const std::vector<bool> wrote = writersOf(entries, previous ? &*previous : nullptr);
    // Each applier's entry (the first, should a row hold two), found by name: an object someone
    // else wrote may carry thousands of entries.
    std::map<std::string, const ManagedFieldsEntry *> applied;
    for (const auto &e : entries)
        if (wanted(e) && applied.emplace(e.manager, &e).second
            && applierIndex.emplace(e.manager, appliers.size()).second)
            appliers.push_back({e.manager, false, {}, {}, {}, {}});
    for (auto &a : appliers) {
        const auto it = applied.find(a.manager);
        const ManagedFieldsEntry *e = it == applied.end() ? nullptr : it->second;
        // The applier wrote: its entry is new, its time moved, or it owns fields it did not own.
        if (e && (!a.present || e->time != a.time || !isSubset(e->fields, a.set)))
            startOver(a, *e, object, entries, ctx);
        else
            follow(a, e, object, entries, wrote, ctx);
    }
    previous = std::move(entries);
}

void DriftTracker::State::startOver(Applier &a, const ManagedFieldsEntry &e, const Json &object,
                                    const std::vector<ManagedFieldsEntry> &entries, const VersionContext &ctx)
{
    a.present = true;
    a.time = e.time;
    a.set = e.fields;
    a.appliedAt = !e.time.empty() ? e.time : ctx.recorded ? formatTimestampMs(ctx.observedAtMs) : std::string();
    a.fields.clear();
    for (auto &path : leafMembers(e.fields)) {
        if (underStatus(path))
            continue;
        const Json *v = valueAt(object, path);
        Tracked t;
        t.path = std::move(path);
        t.appliedPresent = t.lastPresent = v != nullptr;
        t.applied = t.last = v ? *v : Json();
        a.fields.push_back(std::move(t));
    }
    // The apply was not recorded: what it lost before this version only managedFields can hint at.
    if (ctx.afterGap)
        addCandidates(a, e, object, entries);
}

void DriftTracker::State::addCandidates(Applier &a, const ManagedFieldsEntry &e, const Json &object,
                                        const std::vector<ManagedFieldsEntry> &entries)
{
    std::set<std::string> seen;
    for (const auto &t : a.fields)
        seen.insert(t.path.toString());
    for (const auto &b : entries) {
        // An Update that wrote before the applier's last apply did not take what that apply set:
        // the apply would have conflicted on it, or co-owned it. `before-first-apply` holds what an
        // untracked object had when it was first applied, stamped then
        // (k8s.io/apimachinery/pkg/util/managedfields/internal/skipnonapplied.go).
        if (b.operation != ManagedOperation::Update || b.subresource == "status" || b.manager == "before-first-apply"
            || (e.timeSeconds && b.timeSeconds && *b.timeSeconds < *e.timeSeconds))
            continue;
        for (auto &path : leafMembers(b.fields)) {
            // Inside what the applier manages: a list item or map it owns, or beside its own fields.
            if (underStatus(path) || path.size() < 2 || fieldSetCovers(e.fields, path) || !e.fields.find(path.parent())
                || !seen.insert(path.toString()).second)
                continue;
            const Json *v = valueAt(object, path);
            Tracked t;
            t.path = std::move(path);
            t.known = false;
            t.owned = false;
            t.lastPresent = v != nullptr;
            t.last = v ? *v : Json();
            t.lastOwners = othersOwning(entries, t.path, a.manager);
            t.now = nowFrom(&b, v);
            a.fields.push_back(std::move(t));
        }
    }
}

void DriftTracker::State::follow(Applier &a, const ManagedFieldsEntry *e, const Json &object,
                                 const std::vector<ManagedFieldsEntry> &entries, const std::vector<bool> &wrote,
                                 const VersionContext &ctx)
{
    // Only another manager's write takes fields away, and then the set changes: an unchanged set
    // still owns what it owned, with the applied value.
    const bool setUnchanged = e && a.present && e->fields == a.set;
    a.present = e != nullptr;
    a.set = e ? e->fields : FieldSet();
    for (auto &t : a.fields) {
        if (setUnchanged && t.owned)
            continue;
        const bool owns = e && fieldSetCovers(e->fields, t.path);
        const Json *v = valueAt(object, t.path);
        std::vector<OwnerTag> owners = othersOwning(entries, t.path, a.manager);
        const bool changed = (t.owned && !owns)
                          || (!owns && !sameValue(t.lastPresent, t.last, v != nullptr, v ? *v : Json()))
                          || (!owns && owners != t.lastOwners);
        if (changed) {
            const ManagedFieldsEntry *by = changedBy(entries, wrote, t.path, a.manager, ctx);
            t.now = nowFrom(by, v);
            t.byStatus = by && by->subresource == "status";
            if (t.now.manager.empty())
                t.now.manager = ctx.fieldManager;
            if (t.now.time.empty() && ctx.recorded)
                t.now.time = formatTimestampMs(ctx.observedAtMs);
            // Across a gap the version's request may not be the one that changed this field.
            if (ctx.recorded && !ctx.afterGap) {
                t.now.resourceVersion = ctx.resourceVersion;
                t.now.user = ctx.user;
            }
        }
        t.owned = owns;
        t.lastPresent = v != nullptr;
        t.last = v ? *v : Json();
        t.lastOwners = std::move(owners);
    }
}

std::vector<DriftFinding> DriftTracker::State::findings(const DriftObjectRef &object) const
{
    std::vector<DriftFinding> out;
    for (const auto &a : appliers)
        for (const auto &t : a.fields) {
            if (t.owned || t.byStatus)
                continue;
            const bool held = std::any_of(t.lastOwners.begin(), t.lastOwners.end(),
                                          [](const OwnerTag &o) { return !o.isStatus(); });
            const bool drifted = t.known ? held || !sameValue(t.appliedPresent, t.applied, t.lastPresent, t.last)
                                         : std::any_of(t.lastOwners.begin(), t.lastOwners.end(), [](const OwnerTag &o) {
                                               return !o.isStatus() && o.operation == ManagedOperation::Update;
                                           });
            if (!drifted)
                continue;
            DriftFinding f;
            f.object = object;
            f.path = t.path;
            f.appliedBy = a.manager;
            f.appliedKnown = t.known;
            f.appliedPresent = t.known && t.appliedPresent;
            f.appliedValue = t.known ? t.applied : Json();
            f.appliedAt = a.appliedAt;
            f.now = t.now;
            f.now.present = t.lastPresent;
            f.now.value = t.last;
            f.source = t.known ? DriftSource::History : DriftSource::ManagedFields;
            out.push_back(std::move(f));
        }
    std::stable_sort(out.begin(), out.end(), [](const DriftFinding &x, const DriftFinding &y) {
        return std::pair(x.appliedBy, x.path.toString()) < std::pair(y.appliedBy, y.path.toString());
    });
    return out;
}

DriftTracker::DriftTracker(DriftOptions options) : m_d(std::make_unique<State>())
{
    m_d->options = std::move(options);
}

DriftTracker::~DriftTracker() = default;
DriftTracker::DriftTracker(DriftTracker &&) noexcept = default;
DriftTracker &DriftTracker::operator=(DriftTracker &&) noexcept = default;

void DriftTracker::addVersion(const Json &object, const DriftVersion &version)
{
    if (version.eventType == HistoryEventType::Deleted)
        return;
    auto entries = parseManagedFields(object);
    if (!object.is_object() || !entries) {
        addUnreadable(version.resourceVersion,
                      object.is_object() ? "its managedFields cannot be decoded: " + entries.error().describe()
                                         : "it is not an object");
        return;
    }
    VersionContext ctx;
    ctx.resourceVersion = version.resourceVersion;
    ctx.observedAtMs = version.observedAtMs;
    // The first version shows an apply only when it is the object's creation, seen while recording.
    ctx.afterGap = version.afterGap || m_d->pendingGap
                || (!m_d->previous && version.eventType != HistoryEventType::Added);
    whoOf(version.join, ctx);
    const std::optional<Json> masked = withoutSecretValues(object);
    m_d->process(masked ? *masked : object, std::move(*entries), ctx);
    m_d->fedAny = true;
    m_d->pendingGap = false;
    m_d->lastResourceVersion = version.resourceVersion;
}

void DriftTracker::addUnreadable(const std::string &resourceVersion, const std::string &reason)
{
    m_d->note("version " + resourceVersion + " was not read (" + reason
              + "): drift across it is judged as after a gap");
    m_d->pendingGap = true;
    m_d->previous.reset();
}

Result<DriftReport> DriftTracker::finish(const Json &live, const DriftObjectRef &object)
{
    if (!live.is_object())
        return Error::make(ErrorCategory::Parse, "the live object is not a JSON object");
    auto entries = parseManagedFields(live);
    if (!entries)
        return entries.error();
    const std::string rv = stringAt(live, "/metadata/resourceVersion").value_or("");
    if (!m_d->fedAny || rv.empty() || rv != m_d->lastResourceVersion) {
        VersionContext ctx;
        ctx.recorded = false;
        ctx.afterGap = true;
        const std::optional<Json> masked = withoutSecretValues(live);
        m_d->process(masked ? *masked : live, std::move(*entries), ctx);
    }
    DriftReport report;
    report.object = object;
    report.findings = m_d->findings(object);
    report.notes = m_d->notes;
    if (m_d->unnoted > 0)
        report.notes.push_back(std::to_string(m_d->unnoted) + " more versions were not read");
    return report;
}

Result<DriftReport> driftFromManagedFields(const Json &live, const DriftObjectRef &object, const DriftOptions &options)
{
    DriftTracker tracker(options);
    return tracker.finish(live, object);
}

} // namespace fieldscope::core
