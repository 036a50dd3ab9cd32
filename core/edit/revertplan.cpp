#include "core/edit/revertplan.h"

#include "core/base/jsonread.h"
#include "core/edit/applybody.h"
#include "core/edit/editbuffer.h"
#include "core/ownership/ownershiptree.h"

#include <algorithm>
#include <set>

namespace fieldscope::core {
namespace {

// A field's place: the keys from the root. Lists are fields of their own, never entered.
using Keys = std::vector<std::string>;

constexpr const char *kServerSet = "set by the API server";

struct SkippedField {
    std::string_view pointer;
    const char *reason;
};

// docs/editing.md, "Reverting", and the top of revertplan.h say why each is left alone.
constexpr SkippedField kSkipped[] = {
    {"/status", "the controllers' report, written through the status subresource"},
    {"/metadata/managedFields", kServerSet},
    {"/metadata/resourceVersion", kServerSet},
    {"/metadata/uid", kServerSet},
    {"/metadata/generation", kServerSet},
    {"/metadata/creationTimestamp", kServerSet},
    {"/metadata/deletionTimestamp", kServerSet},
    {"/metadata/deletionGracePeriodSeconds", kServerSet},
    {"/metadata/selfLink", kServerSet},
    {"/metadata/ownerReferences", "an earlier owner may be gone, and the garbage collector deletes an object "
                                  "whose owners are all gone"},
    {"/metadata/finalizers", "each controller adds and removes its own finalizer"},
};

const char *skipReason(std::string_view pointer)
{
    for (const SkippedField &s : kSkipped)
        if (s.pointer == pointer)
            return s.reason;
    return nullptr;
}

bool isIdentity(std::string_view pointer)
{
    return pointer == "/apiVersion" || pointer == "/kind" || pointer == "/metadata/name"
        || pointer == "/metadata/namespace";
}

std::string pointerOf(const Keys &keys)
{
    std::string out;
    for (const std::string &k : keys)
        out += '/' + jsonPointerEscape(k);
    return out;
}

std::string serverPathOf(const Keys &keys)
{
    std::vector<PathElement> elements;
    elements.reserve(keys.size());
    for (const std::string &k : keys)
        elements.push_back(PathElement::makeField(k));
    return FieldPath(std::move(elements)).toString();
}

const Json *memberOf(const Json *node, const std::string &key)
{
    if (!node || !node->is_object())
        return nullptr;
    const auto it = node->find(key);
    return it == node->end() ? nullptr : &*it;
}

const Json *valueAt(const Json &root, const Keys &keys)
{
    const Json *node = &root;
    for (const std::string &k : keys)
        if (!(node = memberOf(node, k)))
            return nullptr;
    return node;
}

Json *valueAt(Json &root, const Keys &keys)
{
    Json *node = &root;
    for (const std::string &k : keys) {
        if (!node->is_object())
            return nullptr;
        const auto it = node->find(k);
        if (it == node->end())
            return nullptr;
        node = &*it;
    }
    return node;
}

// The keys of a pointer this file made: objects only, so every token is a member name.
Keys keysOf(std::string_view pointer)
{
    Keys keys;
    std::size_t at = 0;
    while (at < pointer.size()) {
        const std::size_t next = std::min(pointer.find('/', at + 1), pointer.size());
        keys.push_back(jsonPointerUnescape(pointer.substr(at + 1, next - at - 1)));
        at = next;
    }
    return keys;
}

std::optional<Json> optionalAt(const Json &root, std::string_view pointer)
{
    const Json *v = valueAt(root, keysOf(pointer));
    return v ? std::optional<Json>(*v) : std::nullopt;
}

bool sameValue(const Json *a, const Json *b)
{
    return (!a && !b) || (a && b && jsonEqual(*a, *b));
}

bool sameValue(const std::optional<Json> &a, const std::optional<Json> &b)
{
    return sameValue(a ? &*a : nullptr, b ? &*b : nullptr);
}

// Whether any string in `value` is hidden. An explicit stack: values nest up to kMaxJsonDepth.
bool holdsHidden(const Json &value, const std::function<bool(std::string_view)> &isHidden)
{
    if (!isHidden)
        return false;
    std::vector<const Json *> stack{&value};
    while (!stack.empty()) {
        const Json *v = stack.back();
        stack.pop_back();
        if (v->is_string() && isHidden(v->get_ref<const std::string &>()))
            return true;
        if (v->is_structured())
            for (const Json &child : *v)
                stack.push_back(&child);
    }
    return false;
}

// The fields that differ from `from` to `to`: objects are walked key by key (`to`'s keys in its
// order, then those only `from` has); anything else that differs is one leaf. Fields a revert
// may not set are collected with their reason instead.
class DiffWalker
{
public:
    std::vector<Keys> leaves;
    std::vector<RevertSkipped> skipped;

    void walk(const Json &from, const Json &to)
    {
        for (auto it = to.begin(); it != to.end(); ++it)
            visit(it.key(), memberOf(&from, it.key()), &it.value());
        for (auto it = from.begin(); it != from.end(); ++it)
            if (!to.contains(it.key()))
                visit(it.key(), &it.value(), nullptr);
    }

private:
    void visit(const std::string &key, const Json *from, const Json *to)
    {
        m_keys.push_back(key);
        const std::string pointer = m_keys.size() <= 2 ? pointerOf(m_keys) : std::string();
        if (isIdentity(pointer)) {
            // names the object: never a change
        } else if (const char *why = skipReason(pointer)) {
            if (!sameValue(from, to))
                skipped.push_back({serverPathOf(m_keys), why});
        } else if (from && to && from->is_object() && to->is_object() && m_keys.size() < std::size_t(kMaxJsonDepth)) {
            walk(*from, *to);
        } else if (!sameValue(from, to)) {
            leaves.push_back(m_keys);
        }
        m_keys.pop_back();
    }

    Keys m_keys;
};

// Keys present in both objects merge; the rest of `from` is copied in.
void mergeInto(Json &into, const Json &from, int depth)
{
    for (auto it = from.begin(); it != from.end(); ++it) {
        const auto there = into.find(it.key());
        if (there != into.end() && there->is_object() && it->is_object() && depth < kMaxJsonDepth)
            mergeInto(*there, *it, depth + 1);
        else
            into[it.key()] = *it;
    }
}

// Puts `value` at `keys`, making the maps on the way. `merge` (undoing a change): a map the
// change deleted comes back merged with what is there now, whose own keys stay.
void restoreAt(Json &root, const Keys &keys, const Json &value, bool merge)
{
    Json *node = &root;
    for (std::size_t i = 0; i + 1 < keys.size(); ++i) {
        if (!node->is_object())
            *node = Json::object();
        node = &(*node)[keys[i]];
    }
    if (!node->is_object())
        *node = Json::object();
    Json &slot = (*node)[keys.back()];
    if (merge && slot.is_object() && value.is_object())
        mergeInto(slot, value, int(keys.size()));
    else
        slot = value;
}

// Removes the field at `keys`. `added` (undoing a change): what the change put there; where it and
// the field now are both maps, only its keys go, and the map too when nothing else is left in it.
void removeAt(Json &root, const Keys &keys, const Json *added)
{
    Json *parent = valueAt(root, Keys(keys.begin(), keys.end() - 1));
    if (!parent || !parent->is_object() || !parent->contains(keys.back()))
        return;
    Json &field = (*parent)[keys.back()];
    if (added && added->is_object() && field.is_object() && keys.size() < std::size_t(kMaxJsonDepth)) {
        Keys sub = keys;
        for (auto it = added->begin(); it != added->end(); ++it) {
            sub.push_back(it.key());
            removeAt(root, sub, &*it);
            sub.pop_back();
        }
        if (!field.empty())
            return;
    }
    parent->erase(keys.back());
}

Status checkInput(const Json &object, const char *what)
{
    if (!object.is_object())
        return Error::make(ErrorCategory::Invalid, std::string(what) + " is not an object");
    return checkJsonDepth(object, what);
}

// The object the revert writes: the live object with the fields of `target` (or, undoing a change,
// of `predecessor` where the change touched them) put back.
Json restoredObject(const Json &target, const Json *predecessor, const Json &live, std::vector<RevertSkipped> &skipped)
{
    DiffWalker walker;
    Json out = live;
    if (!predecessor) {
        walker.walk(live, target);
        for (const Keys &keys : walker.leaves)
            if (const Json *value = valueAt(target, keys))
                restoreAt(out, keys, *value, false);
            else
                removeAt(out, keys, nullptr);
    } else {
        walker.walk(target, *predecessor);
        for (const Keys &keys : walker.leaves)
            if (const Json *before = valueAt(*predecessor, keys))
                restoreAt(out, keys, *before, true);
            else
                removeAt(out, keys, valueAt(target, keys));
    }
    skipped = std::move(walker.skipped);
    return out;
}

std::vector<FieldOwnerRef> ownersBelow(const OwnershipTree &tree, std::string_view pointer)
{
    const auto id = tree.findByJsonPointer(pointer);
    if (!id)
        return {};
    std::set<std::uint32_t> entries;
    std::vector<NodeId> stack{*id};
    while (!stack.empty()) {
        const OwnershipNode &node = tree.node(stack.back());
        stack.pop_back();
        for (const NodeOwner &o : node.owners)
            entries.insert(o.entry);
        for (std::uint32_t i = 0; i < node.childCount; ++i)
            stack.push_back(node.firstChild + i);
    }
    std::vector<FieldOwnerRef> out;
    out.reserve(entries.size());
    for (const std::uint32_t e : entries)
        out.push_back(FieldOwnerRef::of(tree.entries()[e]));
    return out;
}

} // namespace

const char *RevertChange::action() const
{
    return !restored ? "remove" : live ? "replace" : "add";
}

Result<RevertPlan> planRevert(const Json &target, const Json *predecessor, const Json &live,
                              const RevertOptions &options)
{
    for (const auto &[object, what] : {std::pair{&target, "the recorded version"}, std::pair{&live, "the live object"},
                                       std::pair{predecessor, "the version before it"}})
        if (object)
            if (auto ok = checkInput(*object, what); !ok)
                return ok.error();
    RevertPlan plan;
    plan.withoutStatus = options.withoutStatus;
    const Json restored = restoredObject(target, predecessor, live, plan.skipped);
    const auto targetUid = stringAt(target, "/metadata/uid"), liveUid = stringAt(live, "/metadata/uid");
    plan.otherIncarnation = targetUid && liveUid && *targetUid != *liveUid;

    DiffWalker changed;
    changed.walk(live, restored);
    for (const Keys &keys : changed.leaves) {
        RevertChange c;
        c.pointer = pointerOf(keys);
        c.path = serverPathOf(keys);
        if (const Json *now = valueAt(live, keys))
            c.live = *now;
        if (const Json *value = valueAt(restored, keys))
            c.restored = *value;
        if (c.restored && holdsHidden(*c.restored, options.isHiddenValue)) {
            const Json *recorded = options.liveAsRecorded ? valueAt(*options.liveAsRecorded, keys) : nullptr;
            if (recorded && jsonEqual(*recorded, *c.restored))
                continue; // the live value is the one hidden: nothing to put back
            plan.hiddenValues.push_back(c.pointer);
        }
        if (c.live)
            plan.jsonPatch.push_back({{"op", "test"}, {"path", c.pointer}, {"value", *c.live}});
        if (c.restored)
            plan.jsonPatch.push_back({{"op", c.live ? "replace" : "add"}, {"path", c.pointer}, {"value", *c.restored}});
        else
            plan.jsonPatch.push_back({{"op", "remove"}, {"path", c.pointer}});
        plan.changes.push_back(std::move(c));
    }
    plan.restored = editableObject(restored, options.withoutStatus);
    return plan;
}

StaleCheck staleSince(const RevertPlan &plan, const Json &expected, const Json &current, const RevertOptions &options)
{
    StaleCheck out;
    std::optional<OwnershipTree> tree;
    for (const RevertChange &c : plan.changes) {
        const std::optional<Json> then = optionalAt(expected, c.pointer), now = optionalAt(current, c.pointer);
        if (then && holdsHidden(*then, options.isHiddenValue)) {
            out.hiddenValues.push_back(c.pointer);
            continue;
        }
        if (sameValue(then, now))
            continue;
        if (!tree) // undecodable managedFields: the field is still named, without its owners
            tree = OwnershipTree::build(current).valueOr(OwnershipTree());
        out.stale.push_back({c.pointer, c.path, then, now, c.restored, ownersBelow(*tree, c.pointer)});
    }
    return out;
}

Result<RevertApply> revertApplyBody(const RevertPlan &plan, const Json &live, std::string_view fieldManager,
                                    const ApplyOptions &options)
{
    auto body = applyBodyForEdit(live, editableObject(live, plan.withoutStatus), plan.restored, fieldManager, options);
    if (!body)
        return body.error();
    auto preview = predictApply(body->body, fieldManager, live, options);
    if (!preview)
        return preview.error();
    RevertApply out;
    out.notRemovable = std::move(body->notRemovable);
    // Applied before but co-owned: leaving it out only ends this manager's share; the value stays.
    for (const OwnershipChange &c : preview->released)
        out.notRemovable.push_back(c.path.toString());
    out.body = std::move(body->body);
    if (const auto rv = stringAt(live, "/metadata/resourceVersion"))
        out.body["metadata"]["resourceVersion"] = *rv;
    out.preview = std::move(*preview);
    return out;
}

} // namespace fieldscope::core
