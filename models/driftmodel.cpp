#include "models/driftmodel.h"

#include "core/base/visibletext.h"
#include "models/plaintooltip.h"
#include "models/roles.h"

#include <QDateTime>

#include <algorithm>

namespace fieldscope::models {
namespace {

QString qs(const std::string &s)
{
    return QString::fromStdString(s);
}

// Cluster text for a cell: control and bidi characters as visible escapes.
QString shown(const std::string &s)
{
    return core::visibleText(qs(s));
}

std::string keyOf(const core::DriftObjectRef &o)
{
    return o.uid.empty() ? o.namespace_ + '/' + o.name : o.uid;
}

// A value in a cell: at most this many characters (a value may be a megabyte); the tooltip has it whole.
constexpr std::size_t kPreviewChars = 60;

QString preview(const core::Json &v)
{
    return core::visibleText(qs(core::jsonPreview(v, kPreviewChars)));
}

// The whole value for a tooltip, cut where a tooltip would be cut anyway.
QString fullValue(const core::Json &v)
{
    std::string text = v.is_string() ? v.get<std::string>() : core::toJsonText(v);
    if (text.size() > std::size_t(kMaxToolTipChars) * 4)
        text.resize(std::size_t(kMaxToolTipChars) * 4);
    return plainToolTip(QString::fromUtf8(text.data(), qsizetype(text.size())));
}

QDateTime timeOf(const std::string &rfc3339)
{
    return QDateTime::fromString(qs(rfc3339), Qt::ISODateWithMs);
}

} // namespace

DriftModel::DriftModel(QObject *parent) : QAbstractTableModel(parent)
{
    m_firstRow.push_back(0);
}

void DriftModel::setShownNamespace(const QString &namespace_)
{
    const std::string ns = namespace_.toStdString();
    if (ns == m_shownNamespace)
        return;
    m_shownNamespace = ns;
    if (rowCount() > 0)
        Q_EMIT dataChanged(index(0, ObjectColumn), index(rowCount() - 1, ObjectColumn), {Qt::DisplayRole});
}

void DriftModel::beginRun()
{
    m_seen.clear();
}

void DriftModel::addReports(const std::vector<core::DriftReport> &reports)
{
    for (const auto &report : reports) {
        const std::string key = keyOf(report.object);
        m_seen.insert(key);
        auto it = m_blockOf.find(key);
        if (it == m_blockOf.end()) {
            const int first = rowCount();
            const int n = int(report.findings.size());
            if (n > 0)
                beginInsertRows({}, first, first + n - 1);
            m_blocks.push_back({report.object, report.findings, report.notes});
            m_blockOf.emplace(key, m_blocks.size() - 1);
            m_firstRow.push_back(first + n);
            if (n > 0)
                endInsertRows();
            continue;
        }
        replace(it->second, report);
    }
}

// The block's rows become the report's: the common part changes in place, the rest is inserted
// or removed at the block's end.
void DriftModel::replace(std::size_t block, core::DriftReport report)
{
    Block &b = m_blocks[block];
    const int first = m_firstRow[block];
    const int before = int(b.findings.size());
    const int after = int(report.findings.size());
    b.object = report.object;
    b.notes = std::move(report.notes);
    if (after < before) {
        beginRemoveRows({}, first + after, first + before - 1);
        b.findings.resize(std::size_t(after));
        reindex();
        endRemoveRows();
    }
    const int common = std::min(before, after);
    bool changed = false;
    for (int i = 0; i < common; ++i) {
        auto &f = report.findings[std::size_t(i)];
        auto &old = b.findings[std::size_t(i)];
        const bool same = old.object == f.object && old.path == f.path && old.appliedBy == f.appliedBy
                       && old.appliedKnown == f.appliedKnown && old.appliedPresent == f.appliedPresent
                       && core::jsonEqual(old.appliedValue, f.appliedValue) && old.appliedAt == f.appliedAt
                       && old.now == f.now && old.source == f.source;
        changed = changed || !same;
        old = std::move(f);
    }
    if (changed)
        Q_EMIT dataChanged(index(first, 0), index(first + common - 1, ColumnCount - 1));
    if (after > before) {
        beginInsertRows({}, first + before, first + after - 1);
        for (int i = before; i < after; ++i)
            b.findings.push_back(std::move(report.findings[std::size_t(i)]));
        reindex();
        endInsertRows();
    }
}

void DriftModel::endRun()
{
    std::vector<std::size_t> gone;
    for (std::size_t i = 0; i < m_blocks.size(); ++i)
        if (!m_seen.count(keyOf(m_blocks[i].object)))
            gone.push_back(i);
    removeBlocks(gone);
    m_seen.clear();
}

// Removes the blocks (ascending indexes), one removal signal each, the last first so that the
// indexes of the others hold.
void DriftModel::removeBlocks(const std::vector<std::size_t> &blocks)
{
    for (std::size_t k = blocks.size(); k-- > 0;) {
        const std::size_t block = blocks[k];
        const int first = m_firstRow[block];
        const int n = int(m_blocks[block].findings.size());
        if (n > 0)
            beginRemoveRows({}, first, first + n - 1);
        m_blocks.erase(m_blocks.begin() + std::ptrdiff_t(block));
        reindex();
        if (n > 0)
            endRemoveRows();
    }
}

void DriftModel::reindex()
{
    m_firstRow.assign(1, 0);
    m_blockOf.clear();
    for (std::size_t i = 0; i < m_blocks.size(); ++i) {
        m_firstRow.push_back(m_firstRow.back() + int(m_blocks[i].findings.size()));
        m_blockOf.emplace(keyOf(m_blocks[i].object), i);
    }
}

void DriftModel::clear()
{
    beginResetModel();
    m_blocks.clear();
    m_seen.clear();
    reindex();
    endResetModel();
}

std::pair<std::size_t, std::size_t> DriftModel::locate(int row) const
{
    // The last block starting at or before `row`: an empty block starts where the next one does,
    // so the block found holds the row.
    const auto it = std::upper_bound(m_firstRow.begin(), m_firstRow.end() - 1, row);
    const std::size_t block = std::size_t(it - m_firstRow.begin()) - 1;
    return {block, std::size_t(row - m_firstRow[block])};
}

const core::DriftFinding *DriftModel::findingAt(int row) const
{
    if (row < 0 || row >= rowCount())
        return nullptr;
    const auto [block, i] = locate(row);
    return &m_blocks[block].findings[i];
}

int DriftModel::driftedObjectCount() const
{
    return int(std::count_if(m_blocks.begin(), m_blocks.end(), [](const Block &b) { return !b.findings.empty(); }));
}

QStringList DriftModel::notes() const
{
    QStringList out;
    for (const Block &b : m_blocks)
        for (const auto &n : b.notes) {
            if (out.size() >= kMaxNotes)
                return out;
            out << core::visibleText(qs(b.object.namespace_.empty() ? b.object.name
                                                                    : b.object.namespace_ + '/' + b.object.name)
                                     + QStringLiteral(": ") + qs(n));
        }
    return out;
}

int DriftModel::noteCount() const
{
    int n = 0;
    for (const Block &b : m_blocks)
        n += int(b.notes.size());
    return n;
}

int DriftModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : m_firstRow.back();
}

int DriftModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant DriftModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal)
        return {};
    static const char *const names[] = {QT_TR_NOOP("Object"),        QT_TR_NOOP("Field"), QT_TR_NOOP("Applied by"),
                                        QT_TR_NOOP("Applied value"), QT_TR_NOOP("Now"),   QT_TR_NOOP("Changed by"),
                                        QT_TR_NOOP("Who"),           QT_TR_NOOP("When"),  QT_TR_NOOP("Source")};
    static const char *const tips[] = {
        QT_TR_NOOP("The object"),
        QT_TR_NOOP("The field, in the server's syntax"),
        QT_TR_NOOP("The Apply manager that set the field"),
        QT_TR_NOOP("The value it applied (not recorded: its apply came before the history)"),
        QT_TR_NOOP("The value now"),
        QT_TR_NOOP("The manager (and its operation) that made the field what it is now"),
        QT_TR_NOOP("The person who made that change, from the API server's audit log"),
        QT_TR_NOOP("When the change was made"),
        QT_TR_NOOP("history: from recorded versions; managedFields: from the live object's owners alone")};
    if (section < 0 || section >= ColumnCount)
        return {};
    if (role == Qt::DisplayRole)
        return tr(names[section]);
    if (role == Qt::ToolTipRole)
        return tr(tips[section]);
    return {};
}

QVariant DriftModel::data(const QModelIndex &index, int role) const
{
    const core::DriftFinding *f = index.isValid() ? findingAt(index.row()) : nullptr;
    if (!f)
        return {};
    switch (role) {
    case Qt::DisplayRole: return display(*f, index.column());
    case Qt::ToolTipRole: return toolTip(*f, index.column());
    case SortRole: return sortKey(*f, index.column());
    case UidRole: return qs(f->object.uid);
    case ResourceVersionRole: return qs(f->now.resourceVersion);
    case FieldPathRole: return qs(f->path.toString());
    }
    return {};
}

QVariant DriftModel::display(const core::DriftFinding &f, int column) const
{
    switch (column) {
    case ObjectColumn:
        return f.object.namespace_.empty() || f.object.namespace_ == m_shownNamespace
                 ? shown(f.object.name)
                 : shown(f.object.namespace_ + '/' + f.object.name);
    case FieldColumn: return shown(f.path.toString());
    case AppliedByColumn: return shown(f.appliedBy);
    case AppliedValueColumn:
        if (!f.appliedKnown)
            return tr("(not recorded)");
        return f.appliedPresent ? preview(f.appliedValue) : tr("(absent)");
    case NowColumn: return f.now.present ? preview(f.now.value) : tr("(absent)");
    case ChangedByColumn: {
        if (f.now.manager.empty())
            return tr("unknown");
        QString op = f.now.operation ? QString::fromLatin1(core::operationName(*f.now.operation)) : QString();
        if (!f.now.subresource.empty())
            op += u'/' + shown(f.now.subresource);
        return op.isEmpty() ? shown(f.now.manager) : tr("%1 (%2)").arg(shown(f.now.manager), op);
    }
    case WhoColumn: return shown(f.now.user);
    case WhenColumn: {
        const QDateTime t = timeOf(f.now.time);
        return t.isValid() ? t.toLocalTime().toString(QStringLiteral("yyyy-MM-dd HH:mm:ss")) : shown(f.now.time);
    }
    case SourceColumn: return f.source == core::DriftSource::History ? tr("history") : tr("managedFields");
    }
    return {};
}

QVariant DriftModel::toolTip(const core::DriftFinding &f, int column) const
{
    // Every tooltip carries cluster text (managers, users, values): Qt would render one that looks
    // like HTML as HTML, so each goes through plainToolTip once (fullValue already did).
    switch (column) {
    case ObjectColumn:
        return plainToolTip(qs(f.object.resource + ' ' + f.object.namespace_ + '/' + f.object.name + "\nuid "
                               + f.object.uid));
    case AppliedValueColumn:
        if (!f.appliedKnown)
            return plainToolTip(
                tr("%1 manages this field, but its apply was not recorded: the value it set is not known.")
                    .arg(qs(f.appliedBy)));
        return f.appliedPresent ? fullValue(f.appliedValue)
                                : plainToolTip(tr("%1's apply did not set this field.").arg(qs(f.appliedBy)));
    case NowColumn: return f.now.present ? fullValue(f.now.value) : tr("The field is not in the object now.");
    case ChangedByColumn:
    case WhoColumn:
        return f.now.resourceVersion.empty()
                 ? tr("The write that made the field what it is was not recorded.")
                 : plainToolTip(tr("The write that made resourceVersion %1").arg(qs(f.now.resourceVersion)));
    case WhenColumn: return plainToolTip(qs(f.now.time));
    default: return plainToolTip(display(f, column).toString());
    }
}

QVariant DriftModel::sortKey(const core::DriftFinding &f, int column) const
{
    if (column == WhenColumn) {
        const QDateTime t = timeOf(f.now.time);
        return t.isValid() ? t.toMSecsSinceEpoch() : qint64(-1);
    }
    return display(f, column);
}

} // namespace fieldscope::models
