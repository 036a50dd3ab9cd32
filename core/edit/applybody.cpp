#include "core/edit/applybody.h"

#include <algorithm>
#include <unordered_map>

namespace fieldscope::core {
namespace {

// One member of an object or item of a list, named by the FieldsV1 key the server gives it.
struct Child {
    std::string key;
    PathElement element;
    const Json *value;
};

// Keys point into the vector's strings: the vector must outlive the index.
using ChildIndex = std::unordered_map<std::string_view, const Child *>;

ChildIndex indexOf(const std::vector<Child> &children)
{
    ChildIndex index;
    index.reserve(children.size());
    for (const auto &c : children)
        index.emplace(c.key, &c);
    return index;
}

// A member without children stands for its whole subtree: a scalar, an atomic list or struct, a
// set item, or a list item that is new as a whole.
bool whole(const FieldSet *set)
{
    return set && set->isMember() && !set->hasChildren();
}

const Json *member(const Json &object, const char *key)
{
    if (!object.is_object())
        return nullptr;
    auto it = object.find(key);
    return it == object.end() ? nullptr : &*it;
}

FieldSet ownedThroughApply(const std::vector<ManagedFieldsEntry> &entries, std::string_view manager,
                           const std::string &subresource)
{
    FieldSet owned;
    for (const auto &e : entries)
        if (e.manager == manager && e.operation == ManagedOperation::Apply && e.subresource == subresource)
            owned.merge(e.fields);
    return owned;
}

// The server strips these from every managed set, so no field set selects them; an apply still
// needs them to name its object.
Json withIdentity(const Json &edited, const Json &picked)
{
    Json body = Json::object();
    Json metadata = Json::object();
    for (const char *key : {"apiVersion", "kind"})
        if (const Json *v = member(edited, key))
            body[key] = *v;
    if (const Json *meta = member(edited, "metadata"))
        for (const char *key : {"name", "namespace"})
            if (const Json *v = member(*meta, key))
                metadata[key] = *v;
    body["metadata"] = std::move(metadata);
    for (auto it = picked.begin(); it != picked.end(); ++it) {
        if (it.key() != "metadata")
            body[it.key()] = it.value();
        else
            for (auto m = it.value().begin(); m != it.value().end(); ++m)
                body["metadata"][m.key()] = m.value();
    }
    return body;
}

// Walks the buffer, the opened object and field sets side by side. List items are matched by the
// FieldsV1 key the server would give them, resolved with the list semantics appliedFieldSet()
// uses (hints from managedFields, then the built-in table), so the sets and the JSON agree.
class EditWalker
{
public:
    EditWalker(const std::vector<ManagedFieldsEntry> &entries, const ApplyOptions &options, std::string kind)
        : m_semantics(options.semantics), m_kind(std::move(kind))
    {
        addListSemanticsHints(entries, &m_semantics);
    }

    void changed(const FieldSet &shape, const Json &edited, const Json *opened, FieldSet &out);
    void deleted(const FieldSet &shape, const Json &edited, const FieldSet *owned, ApplyBody &out);
    Json pick(const Json &edited, const FieldSet *owned, const FieldSet *changed);

private:
    std::vector<Child> children(const Json &node) const;
    void gone(const FieldSet &set, const FieldSet *owned, bool report, ApplyBody &out);
    std::string path() const { return FieldPath(m_path).toString(); }

    ListSemanticsResolver m_semantics;
    std::string m_kind;
    std::vector<PathElement> m_path; // of the node whose children are being walked
};

// Atomic lists have no children here: the sets own them as leaves.
std::vector<Child> EditWalker::children(const Json &node) const
{
    std::vector<Child> out;
    if (node.is_object()) {
        for (auto it = node.begin(); it != node.end(); ++it)
            out.push_back({"f:" + it.key(), PathElement::makeField(it.key()), &it.value()});
        return out;
    }
    if (!node.is_array())
        return out;
    const ListSemantics sem = m_semantics.forList(FieldPath(m_path), m_kind);
    for (const auto &item : node) {
        Json key;
        if (sem.type == ListSemantics::Type::Set)
            out.push_back({"v:" + canonicalJsonText(item), PathElement::makeValue(item), &item});
        else if (ListSemanticsResolver::keyFor(sem, item, &key))
            out.push_back({"k:" + canonicalJsonText(key), PathElement::makeKey(std::move(key)), &item});
    }
    return out;
}

// `shape` is the applied set of `edited`: its leaves (scalars, atomic lists and structs) are
// compared whole, its granular maps and list items key by key.
void EditWalker::changed(const FieldSet &shape, const Json &edited, const Json *opened, FieldSet &out)
{
    const std::vector<Child> editedChildren = children(edited);
    const std::vector<Child> openedChildren = opened ? children(*opened) : std::vector<Child>();
    const ChildIndex now = indexOf(editedChildren);
    const ChildIndex before = indexOf(openedChildren);
    for (const auto &c : shape.children()) {
        const auto n = now.find(c.key);
        if (n == now.end())
            continue;
        const auto b = before.find(c.key);
        const Json *old = b == before.end() ? nullptr : b->second->value;
        if (!old || (whole(&c.set) && !jsonEqual(*n->second->value, *old))) {
            out.appendChild(c.element, c.key).setMember(true);
        } else if (c.set.hasChildren()) {
            FieldSet sub;
            m_path.push_back(c.element);
            changed(c.set, *n->second->value, old, sub);
            m_path.pop_back();
            if (!sub.isEmpty())
                out.appendChild(c.element, c.key) = std::move(sub);
        }
    }
}

// `shape` is the applied set of the opened object; what it has and `edited` lacks was deleted.
void EditWalker::deleted(const FieldSet &shape, const Json &edited, const FieldSet *owned, ApplyBody &out)
{
    const std::vector<Child> editedChildren = children(edited);
    const ChildIndex now = indexOf(editedChildren);
    for (const auto &c : shape.children()) {
        const FieldSet *own = owned ? owned->find(c.key) : nullptr;
        const auto n = now.find(c.key);
        m_path.push_back(c.element);
        if (n == now.end())
            gone(c.set, own, true, out);
        else if (c.set.hasChildren())
            deleted(c.set, *n->second->value, own, out);
        m_path.pop_back();
    }
}

// A deleted subtree (m_path). An owned member is released with everything below it. A member the
// manager does not own stays whatever the apply says; it is reported once, at its topmost path,
// but owned fields below it are still released.
void EditWalker::gone(const FieldSet &set, const FieldSet *owned, bool report, ApplyBody &out)
{
    if (set.isMember()) {
        if (owned && owned->isMember()) {
            out.released.push_back(path());
            return;
        }
        if (report)
            out.notRemovable.push_back(path());
        report = false;
    }
    for (const auto &c : set.children()) {
        m_path.push_back(c.element);
        gone(c.set, owned ? owned->find(c.key) : nullptr, report, out);
        m_path.pop_back();
    }
}

// `edited` restricted to what `owned` or `changed` select, in the buffer's order. List-map items
// keep their key fields (servers around 1.20 reject an item that omits a key field without default).
Json EditWalker::pick(const Json &edited, const FieldSet *owned, const FieldSet *changed)
{
    const bool listItem = !m_path.empty() && m_path.back().kind == PathElement::Kind::Key;
    Json out = edited.is_array() ? Json::array() : Json::object();
    for (const Child &c : children(edited)) {
        const FieldSet *o = owned ? owned->find(c.key) : nullptr;
        const FieldSet *ch = changed ? changed->find(c.key) : nullptr;
        const bool keyField = listItem && m_path.back().key.contains(c.element.field);
        Json value;
        if (whole(o) || whole(ch) || keyField) {
            value = *c.value;
        } else if (o || ch) {
            m_path.push_back(c.element);
            value = pick(*c.value, o, ch);
            m_path.pop_back();
            // A map or item only on the path to selected fields that are gone is not sent.
            if (value.empty() && !(o && o->isMember()) && !(ch && ch->isMember()))
                continue;
        } else {
            continue;
        }
        if (out.is_array())
            out.push_back(std::move(value));
        else
            out[c.element.field] = std::move(value);
    }
    return out;
}

} // namespace

Result<ApplyBody> applyBodyForEdit(const Json &live, const Json &opened, const Json &edited,
                                   std::string_view fieldManager, const ApplyOptions &options,
                                   const std::vector<std::string> &alsoSend)
{
    auto entries = parseManagedFields(live);
    if (!entries)
        return entries.error();
    auto editedShape = appliedFieldSet(edited, live, options);
    if (!editedShape)
        return editedShape.error();
    auto openedShape = appliedFieldSet(opened, live, options);
    if (!openedShape)
        return openedShape.error();
    const FieldSet owned = ownedThroughApply(*entries, fieldManager, options.subresource);

    EditWalker walker(*entries, options, kindOf(edited, live));
    FieldSet changed;
    walker.changed(*editedShape, edited, &opened, changed);
    if (!alsoSend.empty())
        for (const FieldPath &path : editedShape->members())
            if (std::find(alsoSend.begin(), alsoSend.end(), path.toString()) != alsoSend.end())
                changed.insert(path);
    changed.normalize();
    ApplyBody result;
    walker.deleted(*openedShape, edited, &owned, result);
    result.body = withIdentity(edited, walker.pick(edited, &owned, &changed));
    return result;
}

} // namespace fieldscope::core
