#include "models/ownershiptreemodel.h"

#include "core/base/visibletext.h"
#include "core/ownership/fieldsv1.h"
#include "models/plaintooltip.h"
#include "models/roles.h"

#include <QColor>
#include <QDateTime>
#include <QFont>

#include <algorithm>
#include <unordered_map>
#include <unordered_set>

namespace fieldscope::models {
namespace {

QString qs(const std::string &s)
{
    return QString::fromStdString(s);
}

QString elementText(const core::PathElement &e)
{
    return e.kind == core::PathElement::Kind::Field ? qs(e.field) : qs(e.toString());
}

std::string scalarChild(const core::OwnershipTree &tree, core::NodeId parent, const char *name)
{
    const auto &n = tree.node(parent);
    for (std::uint32_t r = 0; r < n.childCount; ++r) {
        const auto &c = tree.node(n.firstChild + r);
        if (c.element.kind == core::PathElement::Kind::Field && c.element.field == name)
            return c.scalar.is_string() ? c.scalar.get<std::string>() : std::string();
    }
    return {};
}

std::optional<core::NodeId> fieldChild(const core::OwnershipTree &tree, core::NodeId parent, const char *name)
{
    const auto &n = tree.node(parent);
    for (std::uint32_t r = 0; r < n.childCount; ++r)
        if (tree.node(n.firstChild + r).element.kind == core::PathElement::Kind::Field
            && tree.node(n.firstChild + r).element.field == name)
            return n.firstChild + r;
    return std::nullopt;
}

std::string treeUid(const core::OwnershipTree &tree)
{
    const auto meta = fieldChild(tree, core::OwnershipTree::root(), "metadata");
    return meta ? scalarChild(tree, *meta, "uid") : std::string();
}

QString preview(const core::Json &v)
{
    return core::visibleText(qs(core::jsonPreview(v)));
}

// One finding as the badge's tooltip says it; `at` names the field when the mark is on an ancestor.
QString driftLine(const core::DriftFinding &f, bool onTheField)
{
    const QString applied = !f.appliedKnown  ? OwnershipTreeModel::tr("value not recorded")
                          : f.appliedPresent ? preview(f.appliedValue)
                                             : OwnershipTreeModel::tr("not set");
    const QString now = f.now.present ? preview(f.now.value) : OwnershipTreeModel::tr("absent");
    QString by = f.now.manager.empty() ? OwnershipTreeModel::tr("an unknown writer")
                                       : core::visibleText(qs(f.now.manager));
    if (f.now.operation)
        by += QStringLiteral(" (%1%2)").arg(QString::fromLatin1(core::operationName(*f.now.operation)),
                                            f.now.subresource.empty()
                                                ? QString()
                                                : u'/' + core::visibleText(qs(f.now.subresource)));
    if (!f.now.user.empty())
        by += OwnershipTreeModel::tr(", person %1").arg(core::visibleText(qs(f.now.user)));
    const QString line = OwnershipTreeModel::tr("Drift: applied by %1: %2; now %3 by %4")
                             .arg(core::visibleText(qs(f.appliedBy)), applied, now, by);
    return onTheField ? line : OwnershipTreeModel::tr("%1 (at %2)").arg(line, core::visibleText(qs(f.path.toString())));
}

// The mark's colour: amber, readable on the palette's base.
QColor driftColor(PaletteTone tone)
{
    return tone == PaletteTone::Dark ? QColor(0xff, 0xb7, 0x4d) : QColor(0xe6, 0x51, 0x00);
}

} // namespace

OwnershipTreeModel::OwnershipTreeModel(QObject *parent) : QAbstractItemModel(parent)
{
    m_items.emplace_back();
    m_items[0].generation = m_generation;
    computeVisibility();
    m_itemOf.assign(m_tree.nodeCount(), 0);
}

const core::OwnershipTree &OwnershipTreeModel::treeOf(const Item &item) const
{
    return item.generation == m_generation ? m_tree : m_previous;
}

std::string OwnershipTreeModel::objectIdentity(const core::OwnershipTree &tree)
{
    std::string id = tree.kind();
    if (auto meta = fieldChild(tree, core::OwnershipTree::root(), "metadata"))
        id += '\x1f' + scalarChild(tree, *meta, "namespace") + '\x1f' + scalarChild(tree, *meta, "name") + '\x1f'
            + scalarChild(tree, *meta, "uid");
    return id;
}

void OwnershipTreeModel::computeVisibility()
{
    const std::size_t n = m_tree.nodeCount();
    const bool filtered = !m_filterManager.isEmpty() || m_filterEntry >= 0;
    m_visible.assign(n, filtered ? 0 : 1);
    if (!filtered)
        return;
    const std::string manager = m_filterManager.toStdString();
    std::vector<char> match(m_tree.entries().size());
    for (std::size_t e = 0; e < match.size(); ++e)
        match[e] = char(int(e) == m_filterEntry || (!manager.empty() && m_tree.entries()[e].manager == manager));
    // Children always have larger ids than their parent, so one backwards pass marks ancestors.
    for (std::size_t id = n; id-- > 1;) {
        const auto &node = m_tree.node(core::NodeId(id));
        if (!m_visible[id])
            for (const auto &o : node.owners)
                if (match[o.entry])
                    m_visible[id] = 1;
        if (m_visible[id])
            m_visible[node.parent] = 1;
    }
    m_visible[0] = 1;
}

std::vector<core::NodeId> OwnershipTreeModel::visibleChildren(core::NodeId node) const
{
    std::vector<core::NodeId> out;
    const auto &n = m_tree.node(node);
    for (std::uint32_t r = 0; r < n.childCount; ++r)
        if (m_visible[n.firstChild + r])
            out.push_back(n.firstChild + r);
    return out;
}

std::size_t OwnershipTreeModel::newItem(std::size_t parent, core::NodeId node, int row)
{
    std::size_t id;
    if (!m_free.empty()) {
        id = m_free.back();
        m_free.pop_back();
    } else {
        id = m_items.size();
        m_items.emplace_back();
    }
    Item &it = m_items[id];
    it.node = node;
    it.parent = parent;
    it.row = row;
    it.generation = m_generation;
    it.key = core::fieldsV1Key(m_tree.node(node).element);
    it.children.clear();
    return id;
}

void OwnershipTreeModel::populate(std::size_t item)
{
    const auto wanted = visibleChildren(m_items[item].node);
    std::vector<std::size_t> children;
    children.reserve(wanted.size());
    for (std::size_t r = 0; r < wanted.size(); ++r) {
        const std::size_t id = newItem(item, wanted[r], int(r));
        children.push_back(id);
        populate(id);
    }
    m_items[item].children = std::move(children);
}

void OwnershipTreeModel::releaseItem(std::size_t item)
{
    for (std::size_t c : m_items[item].children)
        releaseItem(c);
    m_items[item].children.clear();
    m_free.push_back(item);
}

void OwnershipTreeModel::renumber(std::size_t item)
{
    const auto &children = m_items[item].children;
    for (std::size_t r = 0; r < children.size(); ++r)
        m_items[children[r]].row = int(r);
}

void OwnershipTreeModel::setTree(core::OwnershipTree tree)
{
    if (objectIdentity(tree) != objectIdentity(m_tree) || m_tree.nodeCount() <= 1) {
        beginResetModel();
        m_tree = std::move(tree);
        m_previous = core::OwnershipTree();
        ++m_generation;
        m_items.assign(1, Item());
        m_items[0].generation = m_generation;
        m_free.clear();
        computeVisibility();
        populate(0);
        m_itemOf.assign(m_tree.nodeCount(), 0);
        for (std::size_t id = 1; id < m_items.size(); ++id)
            m_itemOf[m_items[id].node] = id;
        endResetModel();
        applyDrift();
        return;
    }
    m_previous = std::move(m_tree);
    m_tree = std::move(tree);
    resync();
    applyDrift();
}

void OwnershipTreeModel::setDrift(const core::DriftReport &report)
{
    m_drift = report;
    applyDrift();
}

void OwnershipTreeModel::applyDrift()
{
    std::unordered_map<core::NodeId, QString> marks;
    const std::string uid = treeUid(m_tree);
    if (!uid.empty() && uid == m_drift.object.uid)
        for (const auto &f : m_drift.findings) {
            core::FieldPath at = f.path;
            std::optional<core::NodeId> node = m_tree.find(at);
            while (!node && at.size() > 1) { // a field gone from the object: its nearest ancestor
                at = at.parent();
                node = m_tree.find(at);
            }
            if (!node || *node == core::OwnershipTree::root())
                continue;
            QString &text = marks[*node];
            text += (text.isEmpty() ? QString() : QStringLiteral("\n")) + driftLine(f, at == f.path);
        }
    std::vector<core::FieldPath> changed = std::move(m_driftPaths);
    m_driftPaths.clear();
    for (const auto &entry : marks)
        m_driftPaths.push_back(m_tree.path(entry.first));
    changed.insert(changed.end(), m_driftPaths.begin(), m_driftPaths.end());
    m_driftOf = std::move(marks);
    for (const auto &path : changed) {
        const QModelIndex first = indexForPath(path, FieldColumn);
        if (first.isValid())
            Q_EMIT dataChanged(first, first.siblingAtColumn(ValueColumn));
    }
}

QString OwnershipTreeModel::driftOf(const Item &item) const
{
    if (item.generation != m_generation || m_driftOf.empty())
        return {};
    const auto it = m_driftOf.find(item.node);
    return it == m_driftOf.end() ? QString() : it->second;
}

void OwnershipTreeModel::setManagerFilter(const QString &manager)
{
    if (manager == m_filterManager && m_filterEntry < 0)
        return;
    m_filterManager = manager;
    m_filterEntry = -1;
    m_previous = m_tree;
    resync();
}

void OwnershipTreeModel::setEntryFilter(int entryIndex)
{
    if (entryIndex == m_filterEntry && m_filterManager.isEmpty())
        return;
    m_filterEntry = entryIndex;
    m_filterManager.clear();
    m_previous = m_tree;
    resync();
}

void OwnershipTreeModel::setPaletteTone(PaletteTone tone)
{
    if (tone == m_tone)
        return;
    m_tone = tone;
    if (!m_items[0].children.empty())
        Q_EMIT dataChanged(index(0, 0), index(rowCount() - 1, ColumnCount - 1),
                           {Qt::DecorationRole, ManagerColorRole, OwnerColorsRole});
}

// Moves every row onto m_tree (reached from m_previous) with the minimal row signals.
void OwnershipTreeModel::resync()
{
    ++m_generation;
    computeVisibility();
    sync(0, core::OwnershipTree::root());
    m_previous = core::OwnershipTree();
    m_itemOf.assign(m_tree.nodeCount(), 0);
    std::vector<std::size_t> stack(m_items[0].children.begin(), m_items[0].children.end());
    while (!stack.empty()) {
        const std::size_t id = stack.back();
        stack.pop_back();
        m_itemOf[m_items[id].node] = id;
        stack.insert(stack.end(), m_items[id].children.begin(), m_items[id].children.end());
    }
}

void OwnershipTreeModel::sync(std::size_t item, core::NodeId node)
{
    m_items[item].node = node;
    m_items[item].generation = m_generation;
    const auto wanted = visibleChildren(node);
    std::vector<std::string> keys;
    keys.reserve(wanted.size());
    for (core::NodeId c : wanted)
        keys.push_back(core::fieldsV1Key(m_tree.node(c).element));
    removeMissing(item, keys);
    insertAndUpdate(item, wanted, keys);
}

void OwnershipTreeModel::removeMissing(std::size_t item, const std::vector<std::string> &wantedKeys)
{
    std::unordered_map<std::string_view, std::size_t> position;
    for (std::size_t i = 0; i < wantedKeys.size(); ++i)
        position.emplace(wantedKeys[i], i);
    auto removeRange = [&](int first, int last) {
        beginRemoveRows(indexOfItem(item), first, last);
        auto &children = m_items[item].children;
        for (int k = first; k <= last; ++k)
            releaseItem(children[std::size_t(k)]);
        children.erase(children.begin() + first, children.begin() + last + 1);
        renumber(item);
        endRemoveRows();
    };
    auto wantedAt = [&](int r) { return position.count(m_items[m_items[item].children[std::size_t(r)]].key) > 0; };
    for (int i = int(m_items[item].children.size()) - 1; i >= 0; --i) {
        if (wantedAt(i))
            continue;
        const int last = i;
        while (i > 0 && !wantedAt(i - 1))
            --i;
        removeRange(i, last);
    }
}

void OwnershipTreeModel::insertAndUpdate(std::size_t item, const std::vector<core::NodeId> &wanted,
                                         const std::vector<std::string> &keys)
{
    // After removeMissing every remaining child is wanted. Invariant: children[0, i) show
    // wanted[0, i). A surviving row in the wrong place is moved (fields turning absent move to the
    // end of their parent), so selections on it survive; unknown keys are inserted in runs.
    std::unordered_set<std::string> existing;
    for (std::size_t c : m_items[item].children)
        existing.insert(m_items[c].key);
    const QModelIndex parentIndex = indexOfItem(item);
    std::size_t i = 0;
    while (i < wanted.size()) {
        auto &children = m_items[item].children;
        if (existing.count(keys[i])) {
            if (m_items[children[i]].key != keys[i]) {
                auto it = std::find_if(children.begin() + std::ptrdiff_t(i) + 1, children.end(),
                                       [&](std::size_t c) { return m_items[c].key == keys[i]; });
                const int from = int(it - children.begin());
                beginMoveRows(parentIndex, from, from, parentIndex, int(i));
                std::rotate(children.begin() + std::ptrdiff_t(i), it, it + 1);
                renumber(item);
                endMoveRows();
            }
            const std::size_t child = children[i];
            const bool changed = rowSignature(treeOf(m_items[child]), m_items[child].node)
                              != rowSignature(m_tree, wanted[i]);
            sync(child, wanted[i]);
            if (changed)
                Q_EMIT dataChanged(indexOfItem(child, 0), indexOfItem(child, ColumnCount - 1));
            ++i;
            continue;
        }
        std::size_t k = i;
        while (k < wanted.size() && !existing.count(keys[k]))
            ++k;
        beginInsertRows(parentIndex, int(i), int(k) - 1);
        for (std::size_t p = i; p < k; ++p) {
            const std::size_t id = newItem(item, wanted[p], int(p));
            populate(id);
            auto &kids = m_items[item].children;
            kids.insert(kids.begin() + std::ptrdiff_t(p), id);
        }
        renumber(item);
        endInsertRows();
        i = k;
    }
}

std::string OwnershipTreeModel::rowSignature(const core::OwnershipTree &tree, core::NodeId node) const
{
    std::string s = tree.preview(node);
    s += tree.node(node).isPresent() ? "\x1fP"
                                     : "\x1f"
                                       "A";
    for (const auto &o : tree.node(node).owners) {
        const auto &e = tree.entries()[o.entry];
        s += '\x1f' + e.label() + (o.inherited ? "^" : "") + e.time;
    }
    return s;
}

QModelIndex OwnershipTreeModel::indexOfItem(std::size_t item, int column) const
{
    if (item == 0)
        return {};
    return createIndex(m_items[item].row, column, quintptr(item));
}

QModelIndex OwnershipTreeModel::index(int row, int column, const QModelIndex &parent) const
{
    if (row < 0 || column < 0 || column >= ColumnCount || (parent.isValid() && parent.column() != 0))
        return {};
    const std::size_t p = parent.isValid() ? std::size_t(parent.internalId()) : 0;
    const auto &children = m_items[p].children;
    if (std::size_t(row) >= children.size())
        return {};
    return createIndex(row, column, quintptr(children[std::size_t(row)]));
}

QModelIndex OwnershipTreeModel::parent(const QModelIndex &child) const
{
    if (!child.isValid())
        return {};
    return indexOfItem(m_items[std::size_t(child.internalId())].parent);
}

int OwnershipTreeModel::rowCount(const QModelIndex &parent) const
{
    if (parent.isValid() && parent.column() != 0)
        return 0;
    const std::size_t p = parent.isValid() ? std::size_t(parent.internalId()) : 0;
    return int(m_items[p].children.size());
}

int OwnershipTreeModel::columnCount(const QModelIndex &) const
{
    return ColumnCount;
}

QModelIndex OwnershipTreeModel::indexForNode(core::NodeId node, int column) const
{
    if (node >= m_itemOf.size() || m_itemOf[node] == 0)
        return {};
    return indexOfItem(m_itemOf[node], column);
}

QModelIndex OwnershipTreeModel::indexForJsonPointer(const QString &pointer, int column) const
{
    auto node = m_tree.findByJsonPointer(pointer.toStdString());
    return node ? indexForNode(*node, column) : QModelIndex();
}

QModelIndex OwnershipTreeModel::indexForPath(const core::FieldPath &path, int column) const
{
    auto node = m_tree.find(path);
    return node ? indexForNode(*node, column) : QModelIndex();
}

std::optional<core::NodeId> OwnershipTreeModel::nodeForIndex(const QModelIndex &index) const
{
    if (!index.isValid() || index.model() != this)
        return std::nullopt;
    return m_items[std::size_t(index.internalId())].node;
}

core::FieldPath OwnershipTreeModel::pathForIndex(const QModelIndex &index) const
{
    if (!index.isValid() || index.model() != this)
        return {};
    const Item &item = m_items[std::size_t(index.internalId())];
    return treeOf(item).path(item.node);
}

QVariant OwnershipTreeModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case FieldColumn: return tr("Field");
    case ValueColumn: return tr("Value");
    case OwnersColumn: return tr("Owners");
    case OperationColumn: return tr("Operation");
    case LastChangedColumn: return tr("Last changed");
    }
    return {};
}

QVariant OwnershipTreeModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid() || index.model() != this)
        return {};
    const Item &item = m_items[std::size_t(index.internalId())];
    const core::OwnershipTree &tree = treeOf(item);
    const QString drift = driftOf(item);
    if (role == DriftRole)
        return drift;
    if (!drift.isEmpty() && index.column() == ValueColumn) { // the badge: a tag, a colour
        if (role == Qt::DisplayRole)
            return tr("%1  [drift]").arg(displayData(tree, item.node, ValueColumn).toString());
        if (role == Qt::DecorationRole)
            return driftColor(m_tone);
    }
    if (!drift.isEmpty() && role == Qt::ToolTipRole && (index.column() == FieldColumn || index.column() == ValueColumn))
        return plainToolTip(drift + u'\n' + roleData(tree, item.node, FieldPathRole).toString());
    if (role == Qt::DisplayRole)
        return displayData(tree, item.node, index.column());
    if (role == Qt::DecorationRole)
        return index.column() == OwnersColumn ? roleData(tree, item.node, ManagerColorRole) : QVariant();
    if (role == Qt::ToolTipRole && index.column() != OwnersColumn && index.column() != OperationColumn)
        return roleData(tree, item.node, FieldPathRole);
    if (role == SortRole) {
        if (index.column() == LastChangedColumn) {
            auto t = tree.lastChanged(item.node);
            return t ? QVariant(qint64(*t)) : QVariant(qint64(-1));
        }
        return displayData(tree, item.node, index.column());
    }
    return roleData(tree, item.node, role);
}

QVariant OwnershipTreeModel::displayData(const core::OwnershipTree &tree, core::NodeId node, int column) const
{
    const auto &n = tree.node(node);
    QStringList parts;
    switch (column) {
    case FieldColumn: return elementText(n.element);
    case ValueColumn: return qs(tree.preview(node));
    case OwnersColumn:
        for (const auto &o : n.owners)
            parts << qs(tree.entries()[o.entry].manager);
        return parts.join(QStringLiteral(", "));
    case OperationColumn:
        for (const auto &o : n.owners) {
            const auto &e = tree.entries()[o.entry];
            parts << QString::fromLatin1(core::operationName(e.operation))
                         + (e.subresource.empty() ? QString() : QLatin1Char('/') + qs(e.subresource));
        }
        return parts.join(QStringLiteral(", "));
    case LastChangedColumn: {
        auto t = tree.lastChanged(node);
        return t ? QDateTime::fromSecsSinceEpoch(*t, Qt::UTC).toString(Qt::ISODate) : QString();
    }
    }
    return {};
}

QVariant OwnershipTreeModel::roleData(const core::OwnershipTree &tree, core::NodeId node, int role) const
{
    const auto &n = tree.node(node);
    switch (role) {
    case Qt::ToolTipRole: {
        QStringList lines;
        for (const auto &o : n.owners) {
            const auto &e = tree.entries()[o.entry];
            lines << qs(e.label()) + QLatin1Char(' ') + qs(e.apiVersion) + QLatin1Char(' ') + qs(e.time)
                         + (o.inherited ? QStringLiteral(" (through an atomic parent)") : QString());
        }
        return lines.join(QLatin1Char('\n'));
    }
    case Qt::FontRole: {
        if (n.isPresent())
            return {};
        QFont f;
        f.setItalic(true); // owned but no longer in the object
        return f;
    }
    case FieldPathRole: return qs(tree.path(node).toString());
    case JsonPointerRole: return qs(tree.jsonPointer(node).value_or(std::string()));
    case PresentRole: return n.isPresent();
    case OwnerLabelsRole:
    case ManagerNamesRole: {
        QStringList out;
        for (const auto &o : n.owners)
            out << qs(role == OwnerLabelsRole ? tree.entries()[o.entry].label() : tree.entries()[o.entry].manager);
        return out;
    }
    case InheritedOwnershipRole:
        return !n.owners.empty()
            && std::all_of(n.owners.begin(), n.owners.end(), [](const core::NodeOwner &o) { return o.inherited; });
    case ManagerColorRole:
        return n.owners.empty() ? QVariant()
                                : QVariant(managerColor(qs(tree.entries()[n.owners.front().entry].manager), m_tone));
    case OwnerColorsRole: {
        QVariantList out;
        for (const auto &o : n.owners)
            out << managerColor(qs(tree.entries()[o.entry].manager), m_tone);
        return out;
    }
    case LastChangedRole: {
        auto t = tree.lastChanged(node);
        return t ? QDateTime::fromSecsSinceEpoch(*t, Qt::UTC) : QDateTime();
    }
    }
    return {};
}

} // namespace fieldscope::models
