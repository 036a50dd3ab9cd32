#pragma once
// Helpers shared by the ownership tests: fixture loading, golden files and a text dump of a tree.
#include "core/ownership/ownershiptree.h"
#include "core/yaml/yaml.h"
#include "goldenfile.h"

#include <QFile>
#include <QString>
#include <QTest>

namespace fieldscope::testing {

inline QString ownershipDataPath(const QString &name)
{
    return QStringLiteral(FIELDSCOPE_TEST_DATA "/ownership/") + name;
}

inline core::Json loadFixture(const QString &name)
{
    QFile f(ownershipDataPath(name));
    if (!f.open(QIODevice::ReadOnly))
        qFatal("cannot open fixture %s", qPrintable(f.fileName()));
    const QByteArray bytes = f.readAll();
    auto r = core::yamlToJson(std::string_view(bytes.constData(), std::size_t(bytes.size())));
    if (!r)
        qFatal("fixture %s: %s", qPrintable(f.fileName()), r.error().describe().c_str());
    return r->value;
}

// Compares `actual` with a golden file. FIELDSCOPE_UPDATE_GOLDEN=1 rewrites the file instead
// (review the diff before committing it).
inline bool matchesGolden(const QString &name, const QString &actual, QString *message)
{
    return matchesGoldenFile(ownershipDataPath(name), name, actual, message);
}

inline QString elementText(const core::PathElement &e)
{
    const std::string s = e.toString();
    return QString::fromStdString(e.kind == core::PathElement::Kind::Field ? s.substr(1) : s);
}

inline QString ownersText(const core::OwnershipTree &tree, core::NodeId id)
{
    QStringList owners;
    for (const auto &o : tree.node(id).owners)
        owners << QString::fromStdString(tree.entries()[o.entry].label())
                      + (o.inherited ? QStringLiteral("^") : QString());
    return owners.join(QStringLiteral(", "));
}

// One line per node: indentation, element, value preview, "(absent)", and owners ("^" marks an
// owner through an atomic ancestor).
inline void dumpNode(const core::OwnershipTree &tree, core::NodeId id, int depth, QString &out)
{
    const auto &n = tree.node(id);
    for (std::uint32_t r = 0; r < n.childCount; ++r) {
        const core::NodeId c = tree.child(id, r);
        QString line = QString(qsizetype(depth) * 2, QLatin1Char(' ')) + elementText(tree.node(c).element);
        if (tree.node(c).isPresent())
            line += QStringLiteral(" = ") + QString::fromStdString(tree.preview(c));
        else
            line += QStringLiteral(" (absent)");
        const QString owners = ownersText(tree, c);
        if (!owners.isEmpty())
            line += QStringLiteral("  <- ") + owners;
        out += line + QLatin1Char('\n');
        dumpNode(tree, c, depth + 1, out);
    }
}

inline QString dumpTree(const core::OwnershipTree &tree)
{
    QString out;
    dumpNode(tree, core::OwnershipTree::root(), 0, out);
    return out;
}

inline std::optional<core::NodeId> findByPathText(const core::OwnershipTree &tree, const QString &path)
{
    for (core::NodeId id = 0; id < tree.nodeCount(); ++id)
        if (QString::fromStdString(tree.path(id).toString()) == path)
            return id;
    return std::nullopt;
}

} // namespace fieldscope::testing
