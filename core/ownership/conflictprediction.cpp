#include "core/ownership/conflictprediction.h"

#include <algorithm>
#include <map>
#include <set>
#include <unordered_map>
#include <unordered_set>

namespace fieldscope::core {
namespace {

constexpr int kMaxDepth = 200;
const char *const kLastApplied = "kubectl.kubernetes.io/last-applied-configuration";

struct Other {
    std::uint32_t entry;
    const FieldSet *set;
};

std::vector<Other> descend(const std::vector<Other> &others, std::string_view key)
{
    std::vector<Other> out;
    for (const auto &o : others)
        if (const FieldSet *c = o.set->find(key))
            out.push_back({o.entry, c});
    return out;
}

// Structs and maps that k8s.io/api marks atomic (+structType/+mapType=atomic, e.g. LabelSelector): the
// server owns and compares them as one value. Matched on the schema path's last segments.
bool builtinAtomicObject(const std::string &schemaPath)
{
    auto last = [&](std::string_view seg) {
        return schemaPath == seg
            || (schemaPath.size() > seg.size() && schemaPath.ends_with(seg)
                && schemaPath[schemaPath.size() - seg.size() - 1] == '.');
    };
    return last("spec.selector") || last("podSelector") || last("namespaceSelector") || last("labelSelector")
        || last("nodeSelector") || last("nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution");
}

// OwnerReference is +structType=atomic: an ownerReferences item is owned as a whole.
bool builtinAtomicListItem(const std::string &schemaPath)
{
    return schemaPath == "metadata.ownerReferences";
}

// Fields the server strips from every managed set (stripset.go), so they never conflict.
bool strippedField(const std::vector<PathElement> &parent, const std::string &key, bool ignoreStatus)
{
    if (parent.empty())
        return key == "apiVersion" || key == "kind" || (ignoreStatus && key == "status");
    if (parent.size() == 1 && parent[0].field == "metadata") {
        static const std::set<std::string, std::less<>> meta = {
            "name",     "namespace",   "uid",          "resourceVersion", "generation", "creationTimestamp",
            "selfLink", "clusterName", "managedFields"};
        return meta.count(key) > 0;
    }
    return false;
}

// Finds live list items by the canonical text of their key or value; built once per list.
class LiveListIndex
{
public:
    LiveListIndex(const Json *list, ListSemantics semantics)
        : m_list(list && list->is_array() ? list : nullptr), m_sem(std::move(semantics))
    {
    }

    const Json *find(const PathElement &e, std::string_view canonicalPayload)
    {
        if (!m_list)
            return nullptr;
        if (e.kind == PathElement::Kind::Index)
            return e.index >= 0 && std::size_t(e.index) < m_list->size() ? &(*m_list)[std::size_t(e.index)] : nullptr;
        if (e.kind == PathElement::Kind::Value) {
            if (!m_valuesBuilt) {
                for (const auto &item : *m_list)
                    m_values.try_emplace(canonicalJsonText(item), &item);
                m_valuesBuilt = true;
            }
            auto it = m_values.find(std::string(canonicalPayload));
            return it == m_values.end() ? nullptr : it->second;
        }
        if (e.kind != PathElement::Kind::Key)
            return nullptr;
        std::vector<std::string> names;
        for (auto it = e.key.begin(); it != e.key.end(); ++it)
            names.push_back(it.key());
        std::sort(names.begin(), names.end());
        if (names != m_keyNames || !m_keysBuilt)
            buildKeys(std::move(names));
        auto it = m_keys.find(std::string(canonicalPayload));
        return it == m_keys.end() ? nullptr : it->second;
    }

private:
    void buildKeys(std::vector<std::string> names)
    {
        ListSemantics s{ListSemantics::Type::Map, names,
                        m_sem.keys == names ? m_sem.keyDefaults : std::map<std::string, Json>{}};
        m_keys.clear();
        for (const auto &item : *m_list) {
            Json key;
            if (ListSemanticsResolver::keyFor(s, item, &key))
                m_keys.try_emplace(canonicalJsonText(key), &item);
        }
        m_keyNames = std::move(names);
        m_keysBuilt = true;
    }

    const Json *m_list;
    ListSemantics m_sem;
    std::vector<std::string> m_keyNames;
    bool m_keysBuilt = false;
    bool m_valuesBuilt = false;
    std::unordered_map<std::string, const Json *> m_keys;
    std::unordered_map<std::string, const Json *> m_values;
};

const Json *objectMember(const Json *obj, const std::string &key)
{
    if (!obj || !obj->is_object())
        return nullptr;
    auto it = obj->find(key);
    return it == obj->end() ? nullptr : &*it;
}

// For big objects (a ConfigMap's data) ordered_json's linear find would make walks quadratic.
class ObjectIndex
{
public:
    explicit ObjectIndex(const Json *obj) : m_obj(obj && obj->is_object() ? obj : nullptr)
    {
        if (m_obj && m_obj->size() > 16)
            for (auto it = m_obj->begin(); it != m_obj->end(); ++it)
                m_index.emplace(it.key(), &it.value());
    }
    const Json *find(const std::string &key) const
    {
        if (!m_obj)
            return nullptr;
        if (m_index.empty())
            return objectMember(m_obj, key);
        auto it = m_index.find(key);
        return it == m_index.end() ? nullptr : it->second;
    }

private:
    const Json *m_obj;
    std::unordered_map<std::string_view, const Json *> m_index;
};

} // namespace

FieldOwnerRef FieldOwnerRef::of(const ManagedFieldsEntry &e)
{
    return {e.manager, e.operation, e.subresource, e.apiVersion, e.time};
}

std::string FieldOwnerRef::conflictDescription() const
{
    ManagedFieldsEntry e;
    e.manager = manager;
    e.operation = operation;
    e.subresource = subresource;
    e.apiVersion = apiVersion;
    return e.conflictDescription();
}

// Shared state of one prediction: the entries, what we know about list and struct semantics, and
// the current path. Three walks use it: evidence (live managedFields), the manifest, and the
// manager's previous set.
class ApplyWalker
{
public:
    ApplyWalker(const std::vector<ManagedFieldsEntry> &entries, const ApplyOptions &options, std::string kind)
        : m_entries(entries), m_options(options), m_semantics(options.semantics), m_kind(std::move(kind))
    {
        addListSemanticsHints(entries, &m_semantics);
    }

    ApplyPrediction *prediction = nullptr; // null: only build the applied set

    // Instances that some entry owns as a leaf while the live value is a non-empty object, with
    // nothing enumerated below by anyone: atomic. Anything enumerated below: granular.
    void collectEvidence(const Json &live)
    {
        FieldSet all;
        for (const auto &e : m_entries)
            all.merge(e.fields);
        evidence(all, &live, 0);
    }

    Status walkManifest(const Json &manifest, const Json *live, const std::vector<Other> &others, const FieldSet *own,
                        FieldSet &out)
    {
        auto s = walkObject(manifest, live, others, own, out, 0);
        out.normalize();
        return s;
    }

    void walkOwn(const FieldSet &own, const FieldSet *applied, const Json *live, const std::vector<Other> &others,
                 int depth);

private:
    std::string currentPath() const { return FieldPath(m_path).toString(); }
    ListSemantics listSemantics() const { return m_semantics.forList(FieldPath(m_path), m_kind); }

    void evidence(const FieldSet &set, const Json *live, int depth)
    {
        if (depth > kMaxDepth)
            return;
        if (set.hasChildren())
            m_granular.insert(currentPath());
        else if (set.isMember() && live && live->is_object() && !live->empty())
            m_atomic.insert(currentPath());
        ObjectIndex fields(live);
        std::optional<LiveListIndex> items;
        for (const auto &c : set.children()) {
            m_path.push_back(c.element);
            const Json *child = nullptr;
            if (c.element.kind == PathElement::Kind::Field) {
                child = fields.find(c.element.field);
            } else {
                if (!items) {
                    m_path.pop_back();
                    items.emplace(live, listSemantics());
                    m_path.push_back(c.element);
                }
                child = items->find(c.element, std::string_view(c.key).substr(2));
            }
            evidence(c.set, child, depth + 1);
            m_path.pop_back();
        }
    }

    bool atomicObject()
    {
        const std::string p = currentPath();
        if (m_granular.count(p))
            return false;
        return m_atomic.count(p) || builtinAtomicObject(schemaPathOf(FieldPath(m_path)));
    }

    Status walkObject(const Json &m, const Json *live, const std::vector<Other> &others, const FieldSet *own,
                      FieldSet &out, int depth)
    {
        if (depth > kMaxDepth)
            return Error::make(ErrorCategory::Invalid, "manifest nested deeper than " + std::to_string(kMaxDepth),
                               currentPath());
        ObjectIndex liveFields(live);
        for (auto it = m.begin(); it != m.end(); ++it) {
            if (strippedField(m_path, it.key(), m_options.ignoreStatus))
                continue;
            const std::string key = "f:" + it.key();
            auto s = walkChild(PathElement::makeField(it.key()), key, it.value(), liveFields.find(it.key()),
                               descend(others, key), own ? own->find(key) : nullptr, out, false, depth);
            if (!s)
                return s;
        }
        return success();
    }

    Status walkList(const Json &m, const Json *live, const std::vector<Other> &others, const FieldSet *own,
                    FieldSet &out, const ListSemantics &sem, int depth);
    Status walkChild(const PathElement &e, const std::string &key, const Json &v, const Json *live,
                     const std::vector<Other> &others, const FieldSet *own, FieldSet &out, bool listItem, int depth);
    void record(const Json &v, const Json *live, const std::vector<Other> &others, const FieldSet *own, bool member,
                bool compare);

    const std::vector<ManagedFieldsEntry> &m_entries;
    const ApplyOptions &m_options;
    ListSemanticsResolver m_semantics;
    std::string m_kind;
    std::vector<PathElement> m_path;
    std::unordered_set<std::string> m_atomic;
    std::unordered_set<std::string> m_granular;
};

Status ApplyWalker::walkChild(const PathElement &e, const std::string &key, const Json &v, const Json *live,
                              const std::vector<Other> &others, const FieldSet *own, FieldSet &out, bool listItem,
                              int depth)
{
    m_path.push_back(e);
    bool member = listItem; // list items are members (tofieldset.go visitListItems)
    bool compare = false;   // only leaves compare values; list items compare by existence
    bool recurseObject = false;
    std::optional<ListSemantics> listSem;
    if (v.is_object() && !v.empty()) {
        const bool atomic = listItem ? builtinAtomicListItem(schemaPathOf(FieldPath(m_path)))
                                           && !m_granular.count(currentPath())
                                     : atomicObject();
        member = member || atomic;
        compare = atomic;
        recurseObject = !atomic;
    } else if (v.is_array() && !listItem) {
        const ListSemantics sem = listSemantics();
        if (sem.type == ListSemantics::Type::Atomic)
            member = compare = true;
        else if (!v.empty())
            listSem = sem;
        // An empty map/set list contributes no path at all (doList with no items).
    } else if (!listItem) {
        member = true;
        compare = !v.is_object(); // an empty granular map merges; it cannot change a value
    }
    record(v, live, others, own, member, compare);
    FieldSet node;
    Status status = recurseObject ? walkObject(v, live, others, own, node, depth + 1)
                  : listSem       ? walkList(v, live, others, own, node, *listSem, depth + 1)
                                  : success();
    node.setMember(member);
    if (status.ok() && !node.isEmpty())
        out.appendChild(e, key) = std::move(node);
    m_path.pop_back();
    return status;
}

Status ApplyWalker::walkList(const Json &m, const Json *live, const std::vector<Other> &others, const FieldSet *own,
                             FieldSet &out, const ListSemantics &sem, int depth)
{
    LiveListIndex liveItems(live, sem);
    std::unordered_set<std::string> seen;
    for (const auto &item : m) {
        PathElement e;
        std::string payload;
        if (sem.type == ListSemantics::Type::Map) {
            Json key;
            if (!item.is_object())
                return Error::make(ErrorCategory::Invalid, "a list-map item must be an object", currentPath());
            if (!ListSemanticsResolver::keyFor(sem, item, &key)) {
                std::string missing;
                for (const auto &k : sem.keys)
                    if (!item.contains(k) && !sem.keyDefaults.count(k) && missing.empty())
                        missing = k;
                return Error::make(ErrorCategory::Invalid,
                                   "associative list with keys has an element that omits key field \"" + missing + "\"",
                                   currentPath());
            }
            payload = canonicalJsonText(key);
            e = PathElement::makeKey(std::move(key));
        } else {
            payload = canonicalJsonText(item);
            e = PathElement::makeValue(item);
        }
        if (!seen.insert(payload).second)
            return Error::make(ErrorCategory::Invalid, "duplicate entries for " + e.toString(), currentPath());
        const std::string key = (sem.type == ListSemantics::Type::Map ? "k:" : "v:") + payload;
        auto s = walkChild(e, key, item, liveItems.find(e, payload), descend(others, key),
                           own ? own->find(key) : nullptr, out, true, depth);
        if (!s)
            return s;
    }
    return success();
}

void ApplyWalker::record(const Json &v, const Json *live, const std::vector<Other> &others, const FieldSet *own,
                         bool member, bool compare)
{
    if (!prediction || (!member && live))
        return; // a granular container that exists is neither added nor modified
    ApplyConflict conflict;
    std::vector<FieldOwnerRef> coOwners;
    for (const auto &o : others) {
        if (!o.set->isMember())
            continue;
        // The server's conflict set: other managers' fields in (Modified ∪ Added) (merge/update.go).
        const bool collides = !live || (compare && !jsonEqual(*live, v));
        (collides ? conflict.owners : coOwners).push_back(FieldOwnerRef::of(m_entries[o.entry]));
    }
    std::optional<Json> liveValue = live ? std::optional<Json>(*live) : std::nullopt;
    const bool conflicting = !conflict.owners.empty();
    if (conflicting) {
        conflict.path = FieldPath(m_path);
        conflict.liveValue = liveValue;
        conflict.appliedValue = v;
        prediction->conflicts.push_back(std::move(conflict));
    }
    if (member && !conflicting && !(own && own->isMember()))
        prediction->newlyOwned.push_back({FieldPath(m_path), std::move(liveValue), v, std::move(coOwners)});
}

void ApplyWalker::walkOwn(const FieldSet &own, const FieldSet *applied, const Json *live,
                          const std::vector<Other> &others, int depth)
{
    if (depth > kMaxDepth)
        return;
    ObjectIndex fields(live);
    std::optional<LiveListIndex> items;
    for (const auto &c : own.children()) {
        const Json *child = nullptr;
        if (c.element.kind == PathElement::Kind::Field) {
            child = fields.find(c.element.field);
        } else {
            if (!items)
                items.emplace(live, listSemantics());
            child = items->find(c.element, std::string_view(c.key).substr(2));
        }
        const FieldSet *appliedChild = applied ? applied->find(c.key) : nullptr;
        const std::vector<Other> otherChildren = descend(others, c.key);
        m_path.push_back(c.element);
        if (c.set.isMember() && !(appliedChild && appliedChild->isMember())) {
            OwnershipChange change{
                FieldPath(m_path), child ? std::optional<Json>(*child) : std::nullopt, std::nullopt, {}};
            for (const auto &o : otherChildren)
                if (o.set->isMember())
                    change.coOwners.push_back(FieldOwnerRef::of(m_entries[o.entry]));
            // Prune (merge/update.go): fields nobody else owns are removed (or reset to defaults).
            (change.coOwners.empty() ? prediction->removed : prediction->released).push_back(std::move(change));
        }
        if (c.set.hasChildren())
            walkOwn(c.set, appliedChild, child, otherChildren, depth + 1);
        m_path.pop_back();
    }
}

std::string kindOf(const Json &manifest, const Json &live)
{
    for (const Json *j : {&manifest, &live})
        if (j->is_object())
            if (auto k = j->find("kind"); k != j->end() && k->is_string())
                return k->get<std::string>();
    return {};
}

namespace {

Json withoutManagedFieldsKey(const Json &object)
{
    Json copy = object;
    if (auto meta = copy.find("metadata"); meta != copy.end() && meta->is_object())
        meta->erase("managedFields");
    return copy;
}

Status checkManifest(const Json &manifest)
{
    if (!manifest.is_object())
        return Error::make(ErrorCategory::Invalid, "the manifest must be an object");
    if (auto meta = manifest.find("metadata"); meta != manifest.end() && meta->is_object()
                                               && meta->contains("managedFields")
                                               && !(*meta)["managedFields"].is_null())
        return Error::make(ErrorCategory::Invalid, "metadata.managedFields must be nil", "metadata.managedFields");
    return success();
}

// Conflicts on fields that the last-applied annotation lists are waived for manager "kubectl".
void waiveLastApplied(ApplyPrediction &p, const Json &live, const std::vector<ManagedFieldsEntry> &entries,
                      const ApplyOptions &options)
{
    const Json *meta = objectMember(&live, "metadata");
    const Json *annotations = objectMember(meta, "annotations");
    const Json *lastApplied = objectMember(annotations, kLastApplied);
    if (!lastApplied || !lastApplied->is_string())
        return;
    auto config = parseJson(lastApplied->get<std::string>());
    if (!config || !config->is_object())
        return; // the server also falls back to the plain conflict error here
    ApplyWalker walker(entries, options, kindOf(*config, live));
    walker.collectEvidence(live);
    FieldSet allowed;
    if (!walker.walkManifest(*config, nullptr, {}, nullptr, allowed).ok())
        return;
    auto it = std::stable_partition(p.conflicts.begin(), p.conflicts.end(),
                                    [&](const ApplyConflict &c) { return !allowed.contains(c.path); });
    p.waivedByLastApplied.assign(std::make_move_iterator(it), std::make_move_iterator(p.conflicts.end()));
    p.conflicts.erase(it, p.conflicts.end());
}

// An untracked object (created before 1.18, or with its tracking reset) gets an Update entry
// "before-first-apply" owning every existing field right before the first apply, so that apply
// conflicts with every differing value (k8s.io/apimachinery/pkg/util/managedfields/internal/skipnonapplied.go).
ManagedFieldsEntry beforeFirstApply(const Json &live, const ApplyOptions &options)
{
    ManagedFieldsEntry e;
    e.manager = "before-first-apply";
    e.operation = ManagedOperation::Update;
    if (auto v = live.find("apiVersion"); v != live.end() && v->is_string())
        e.apiVersion = v->get<std::string>();
    static const std::vector<ManagedFieldsEntry> none;
    ApplyWalker walker(none, options, kindOf(live, live));
    (void)walker.walkManifest(withoutManagedFieldsKey(live), nullptr, {}, nullptr, e.fields);
    return e;
}

} // namespace

Result<FieldSet> appliedFieldSet(const Json &manifest, const Json &live, const ApplyOptions &options)
{
    if (auto s = checkManifest(manifest); !s)
        return s.error();
    auto entries = parseManagedFields(live);
    if (!entries)
        return entries.error();
    ApplyWalker walker(*entries, options, kindOf(manifest, live));
    walker.collectEvidence(live);
    FieldSet out;
    if (auto s = walker.walkManifest(manifest, nullptr, {}, nullptr, out); !s)
        return s.error();
    return out;
}

Result<ApplyPrediction> predictApply(const Json &manifest, std::string_view fieldManager, const Json &live,
                                     const ApplyOptions &options)
{
    if (auto s = checkManifest(manifest); !s)
        return s.error();
    auto entries = parseManagedFields(live);
    if (!entries)
        return entries.error();
    if (entries->empty() && live.is_object() && !live.empty())
        entries->push_back(beforeFirstApply(live, options));
    ApplyPrediction p;
    p.fieldManager = std::string(fieldManager);
    // The applier's own Apply entry for this subresource is "itself"; every other entry,
    // including its own Update entries, is another manager (merge/update.go skips only workflow).
    const FieldSet *own = nullptr;
    std::vector<Other> others;
    for (std::uint32_t i = 0; i < entries->size(); ++i) {
        const auto &e = (*entries)[i];
        if (e.manager == fieldManager && e.operation == ManagedOperation::Apply && e.subresource == options.subresource)
            own = &e.fields;
        else
            others.push_back({i, &e.fields});
    }
    ApplyWalker walker(*entries, options, kindOf(manifest, live));
    walker.prediction = &p;
    walker.collectEvidence(live);
    const Json *liveRoot = live.is_object() ? &live : nullptr;
    if (auto s = walker.walkManifest(manifest, liveRoot, others, own, p.appliedSet); !s)
        return s.error();
    if (own)
        walker.walkOwn(*own, &p.appliedSet, liveRoot, others, 0);
    if (fieldManager == "kubectl" && !p.conflicts.empty())
        waiveLastApplied(p, live, *entries, options);
    return p;
}

std::vector<StatusCause> ApplyPrediction::causes() const
{
    std::vector<StatusCause> out;
    for (const auto &c : conflicts)
        for (const auto &o : c.owners)
            out.push_back({"FieldManagerConflict", "conflict with " + o.conflictDescription(), c.path.toString()});
    return out;
}

std::string ApplyPrediction::serverMessage() const
{
    // internal/conflict.go: one conflict inline, several grouped by manager (sorted by the
    // manager's description), paths in order under each.
    std::map<std::string, std::vector<std::string>> byManager;
    std::size_t n = 0;
    for (const auto &c : conflicts)
        for (const auto &o : c.owners) {
            byManager[o.conflictDescription()].push_back(c.path.toString());
            ++n;
        }
    if (n == 0)
        return {};
    if (n == 1) {
        const auto &[m, paths] = *byManager.begin();
        return "Apply failed with 1 conflict: conflict with " + m + ": " + paths.front();
    }
    std::string s = "Apply failed with " + std::to_string(n) + " conflicts: ";
    bool first = true;
    for (auto &[m, paths] : byManager) {
        std::sort(paths.begin(), paths.end());
        s += (first ? "" : "\n") + std::string("conflicts with ") + m + ":";
        for (const auto &p : paths)
            s += "\n- " + p;
        first = false;
    }
    return s;
}

Error ApplyPrediction::toConflictError() const
{
    Error e = Error::make(ErrorCategory::Conflict, serverMessage());
    e.httpStatus = 409;
    e.reason = "Conflict";
    e.causes = causes();
    for (const auto &c : conflicts)
        for (const auto &o : c.owners)
            e.conflicts.push_back({c.path.toString(), o.manager, o.subresource,
                                   o.operation == ManagedOperation::Update ? o.apiVersion : std::string()});
    return e;
}

namespace {

Json ownersJson(const std::vector<FieldOwnerRef> &owners)
{
    Json out = Json::array();
    for (const auto &o : owners)
        out.push_back({{"manager", o.manager},
                       {"operation", operationName(o.operation)},
                       {"subresource", o.subresource},
                       {"apiVersion", o.apiVersion},
                       {"time", o.time}});
    return out;
}

Json conflictsJson(const std::vector<ApplyConflict> &conflicts)
{
    Json out = Json::array();
    for (const auto &c : conflicts)
        out.push_back({{"path", c.path.toString()},
                       {"owners", ownersJson(c.owners)},
                       {"live", c.liveValue ? *c.liveValue : Json()},
                       {"applied", c.appliedValue}});
    return out;
}

std::string ownerList(const std::vector<FieldOwnerRef> &owners)
{
    std::string s;
    for (const auto &o : owners)
        s += (s.empty() ? "" : ", ") + o.conflictDescription();
    return s;
}

std::string valueText(const std::optional<Json> &v)
{
    return v ? toJsonText(*v) : std::string("(absent)");
}

} // namespace

std::string ApplyPrediction::toText() const
{
    std::string s;
    for (const auto &c : conflicts)
        s += "conflict " + c.path.toString() + " with " + ownerList(c.owners) + ": live " + valueText(c.liveValue)
           + ", applied " + toJsonText(c.appliedValue) + "\n";
    for (const auto &c : waivedByLastApplied)
        s += "waived " + c.path.toString() + " with " + ownerList(c.owners)
           + " (listed in last-applied-configuration)\n";
    for (const auto &c : newlyOwned)
        s += "own " + c.path.toString() + (c.coOwners.empty() ? std::string() : " shared with " + ownerList(c.coOwners))
           + "\n";
    for (const auto &c : removed)
        s += "remove " + c.path.toString() + (c.liveValue ? "" : " (already absent)") + "\n";
    for (const auto &c : released)
        s += "release " + c.path.toString() + " kept by " + ownerList(c.coOwners) + "\n";
    return s;
}

Json ApplyPrediction::toJson() const
{
    Json newly = Json::array();
    for (const auto &c : newlyOwned)
        newly.push_back({{"path", c.path.toString()},
                         {"applied", c.appliedValue ? *c.appliedValue : Json()},
                         {"sharedWith", ownersJson(c.coOwners)}});
    Json rem = Json::array();
    for (const auto &c : removed)
        rem.push_back({{"path", c.path.toString()},
                       {"present", c.liveValue.has_value()},
                       {"live", c.liveValue ? *c.liveValue : Json()}});
    Json rel = Json::array();
    for (const auto &c : released)
        rel.push_back({{"path", c.path.toString()},
                       {"present", c.liveValue.has_value()},
                       {"live", c.liveValue ? *c.liveValue : Json()},
                       {"keptBy", ownersJson(c.coOwners)}});
    return {{"fieldManager", fieldManager},   {"conflicts", conflictsJson(conflicts)},
            {"newlyOwned", std::move(newly)}, {"removed", std::move(rem)},
            {"released", std::move(rel)},     {"waivedByLastApplied", conflictsJson(waivedByLastApplied)}};
}

} // namespace fieldscope::core
