#include "models/objecthistorymodel.h"

#include "core/base/jsonread.h"
#include "core/base/visibletext.h"
#include "models/plaintooltip.h"

#include <QBrush>
#include <QCoreApplication>
#include <QFont>

#include <map>
#include <optional>
#include <unordered_map>

namespace fieldscope::models {
namespace {

QString qs(const std::string &s)
{
    return QString::fromStdString(s);
}

QString writerLabels(const core::TransitionAttribution &a)
{
    QStringList labels;
    for (const auto &w : a.writers)
        if (const QString l = qs(w.who.label()); !labels.contains(l))
            labels << l;
    return labels.join(QStringLiteral(", "));
}

HistoryRow versionRow(const core::AttributedEntry &e)
{
    HistoryRow r;
    const core::VersionInfo &v = e.entry.version;
    r.uid = v.uid;
    r.objectId = v.objectId != 0 ? v.objectId : e.object.id;
    r.seq = v.seq;
    r.resourceVersion = v.resourceVersion;
    r.eventType = v.eventType;
    r.observedAtMs = v.observedAtMs;
    r.recorder = QString::fromStdString(v.recorder);
    r.changedBy = writerLabels(e.attribution);
    r.note = qs(e.attribution.reason);
    r.ambiguous = e.attribution.ambiguous;
    if (v.eventType == core::HistoryEventType::Deleted && e.attribution.changes.empty()) {
        // Deleting writes no managedFields entry: the object itself cannot say who deleted it.
        r.ambiguous = false;
        r.changedBy = QCoreApplication::translate("ObjectHistoryModel", "(deleter not recorded)");
        r.note = QCoreApplication::translate(
            "ObjectHistoryModel", "Kubernetes records no manager for a deletion; the audit log of the cluster does.");
    }
    r.changedFields = int(e.attribution.changes.size());
    for (const auto &c : e.attribution.changes)
        r.changedPaths << qs(c.path.toString());
    return r;
}

QString timeOf(std::int64_t ms)
{
    return ms ? QDateTime::fromMSecsSinceEpoch(ms).toLocalTime().toString(QStringLiteral("yyyy-MM-dd HH:mm:ss.zzz"))
              : QString();
}

// "alice", "fieldscope-admin as system:serviceaccount:ci:deploy": shown as plain characters.
QString whoName(const core::AuditWho &w)
{
    return core::visibleText(qs(core::auditActingName(w)));
}

QString whoDetail(const core::AuditWho &w)
{
    QStringList lines;
    lines << QCoreApplication::translate("ObjectHistoryModel", "User: %1").arg(qs(w.user.username));
    if (!w.user.groups.empty()) {
        QStringList groups;
        for (const auto &g : w.user.groups)
            groups << qs(g);
        lines << QCoreApplication::translate("ObjectHistoryModel", "Groups: %1").arg(groups.join(QStringLiteral(", ")));
    }
    if (w.hasImpersonatedUser)
        lines
            << QCoreApplication::translate("ObjectHistoryModel", "Acting as: %1").arg(qs(w.impersonatedUser.username));
    if (!w.userAgent.empty())
        lines << QCoreApplication::translate("ObjectHistoryModel", "User agent: %1").arg(qs(w.userAgent));
    if (!w.sourceIPs.empty()) {
        QStringList ips;
        for (const auto &ip : w.sourceIPs)
            ips << qs(ip);
        lines << QCoreApplication::translate("ObjectHistoryModel", "From: %1").arg(ips.join(QStringLiteral(", ")));
    }
    lines << QCoreApplication::translate("ObjectHistoryModel", "Request: %1 %2").arg(qs(w.verb), qs(w.requestURI));
    lines << QCoreApplication::translate("ObjectHistoryModel", "At: %1 (audit ID %2)")
                 .arg(qs(w.requestReceivedTimestamp), qs(w.auditID));
    return lines.join(QLatin1Char('\n'));
}

void addWho(HistoryRow &r, const core::AuditJoin &j)
{
    QStringList names;
    QStringList details;
    for (const auto &c : j.candidates) {
        names << whoName(c);
        details << whoDetail(c);
    }
    if (j.moreCandidates)
        names << QCoreApplication::translate("ObjectHistoryModel", "more");
    r.who = names.join(QCoreApplication::translate("ObjectHistoryModel", " or "));
    r.whoExact = j.match == core::AuditMatch::Exact;
    r.whoAmbiguous = j.match == core::AuditMatch::Ambiguous || j.match == core::AuditMatch::Contested;
    r.whoContested = j.match == core::AuditMatch::Contested;
    if (r.whoContested)
        r.who = QCoreApplication::translate("ObjectHistoryModel", "contested: %1").arg(r.who);
    const QString how =
        j.match == core::AuditMatch::Exact
            ? QCoreApplication::translate("ObjectHistoryModel", "Exact: the audit event names this resourceVersion.")
        : j.match == core::AuditMatch::Probable
            ? QCoreApplication::translate("ObjectHistoryModel",
                                          "Probable: same object, field manager and second; the audit log "
                                          "keeps no resourceVersion at this level.")
        : j.match == core::AuditMatch::Contested
            ? QCoreApplication::translate(
                "ObjectHistoryModel",
                "Contested: audit events from different people each name this exact resourceVersion. Whoever "
                "sends audit events chooses what they say (and their times), so none is picked; every claim is "
                "listed.")
            : QCoreApplication::translate("ObjectHistoryModel", "Several requests fit this version; none is picked.");
    r.whoDetail = how + QStringLiteral("\n\n") + details.join(QStringLiteral("\n\n"));
}

HistoryRow refusedRow(const core::AuditAttempt &a)
{
    HistoryRow r;
    r.kind = core::HistoryEntry::Kind::Gap; // not a version: no diff, no objects
    r.refused = true;
    r.refusedCode = a.code;
    r.uid = a.uid;
    r.observedAtMs = core::parseRfc3339Micros(a.who.requestReceivedTimestamp).value_or(0) / 1000;
    r.who = whoName(a.who);
    r.whoExact = true;
    r.whoDetail = whoDetail(a.who);
    r.changedBy = core::visibleText(qs(a.reason));
    r.note = core::visibleText(qs(a.message.empty() ? a.reason : a.message), true);
    return r;
}

} // namespace

const core::AuditJoin *HistoryAudit::joinOf(const core::AttributedEntry &e) const
{
    return core::joinOfEntry(joins, e);
}

core::Result<HistoryAudit> historyAudit(core::HistoryStore &store, const std::vector<core::AttributedEntry> &entries)
{
    HistoryAudit out;
    std::vector<core::HistoryObject> objects;
    for (const auto &e : entries) {
        if (out.joins.count(e.object.ref.uid))
            continue;
        auto joins = store.auditJoins(e.object.ref.uid);
        if (!joins)
            return joins.error();
        out.joins[e.object.ref.uid] = std::move(*joins);
        objects.push_back(e.object);
    }
    auto attempts = core::historyAttempts(store, objects);
    if (!attempts)
        return attempts.error();
    out.attempts = std::move(*attempts);
    return out;
}

std::vector<HistoryRow> historyRows(const std::vector<core::AttributedEntry> &entries, const HistoryAudit *audit)
{
    std::vector<HistoryRow> out;
    out.reserve(entries.size() + (audit ? audit->attempts.size() : 0));
    std::unordered_map<std::string, int> lastOfUid;
    std::size_t nextAttempt = 0;
    for (const core::AttributedEntry &e : entries) {
        const core::AuditJoin *join = audit ? audit->joinOf(e) : nullptr;
        if (audit && e.entry.kind == core::HistoryEntry::Kind::Version)
            for (; nextAttempt < audit->attempts.size()
                   && core::attemptMicros(audit->attempts[nextAttempt])
                          < core::versionWrittenMicros(e.entry.version.observedAtMs, join);
                 ++nextAttempt)
                out.push_back(refusedRow(audit->attempts[nextAttempt]));
        HistoryRow r;
        switch (e.entry.kind) {
        case core::HistoryEntry::Kind::Version:
            r = versionRow(e);
            if (auto it = lastOfUid.find(r.uid); it != lastOfUid.end())
                r.previousVersion = it->second;
            lastOfUid[r.uid] = int(out.size());
            if (join)
                addWho(r, *join);
            break;
        case core::HistoryEntry::Kind::Gap:
            r.kind = e.entry.kind;
            r.uid = e.object.ref.uid;
            // An open end: the run that noticed the gap stopped before its list completed.
            r.resourceVersion = e.entry.gap.fromRv + " → "
                              + (e.entry.gap.toRv.empty() ? std::string("?") : e.entry.gap.toRv);
            r.observedAtMs = e.entry.gap.observedAtMs;
            r.note = QCoreApplication::translate("ObjectHistoryModel",
                                                 "Versions in this interval were not observed (%1); none are invented.")
                         .arg(qs(e.entry.gap.reason));
            r.changedBy = qs(e.entry.gap.reason);
            break;
        case core::HistoryEntry::Kind::Pruned:
            r.kind = e.entry.kind;
            r.uid = e.object.ref.uid;
            r.note = QCoreApplication::translate("ObjectHistoryModel",
                                                 "%n older versions were removed by the retention policy.", nullptr,
                                                 int(e.entry.prunedCount));
            break;
        }
        out.push_back(std::move(r));
    }
    if (audit)
        for (; nextAttempt < audit->attempts.size(); ++nextAttempt)
            out.push_back(refusedRow(audit->attempts[nextAttempt]));
    return out;
}

ObjectHistoryModel::ObjectHistoryModel(QObject *parent) : QAbstractTableModel(parent) {}

void ObjectHistoryModel::setRows(const QString &key, std::vector<HistoryRow> rows,
                                 std::shared_ptr<HistoryVersions> versions)
{
    m_versions = std::move(versions);
    const std::size_t n = m_rows.size();
    const bool extends = key == m_key && n > 0 && rows.size() > n && rows[n - 1].kind == m_rows[n - 1].kind
                      && rows[n - 1].seq == m_rows[n - 1].seq && rows[n - 1].uid == m_rows[n - 1].uid
                      && rows.front().seq == m_rows.front().seq && rows.front().uid == m_rows.front().uid;
    if (!m_message.isEmpty()) {
        m_message.clear();
        Q_EMIT messageChanged(m_message);
    }
    if (extends) {
        beginInsertRows({}, 0, int(rows.size() - n) - 1);
        m_rows = std::move(rows);
        endInsertRows();
        return;
    }
    beginResetModel(); // another object, or retention dropped the oldest: a new list
    m_key = key;
    m_rows = std::move(rows);
    endResetModel();
}

void ObjectHistoryModel::setOlderNotShown(qint64 count)
{
    if (count == m_olderNotShown)
        return;
    m_olderNotShown = count;
    Q_EMIT olderNotShownChanged(count);
}

void ObjectHistoryModel::clear(const QString &message)
{
    beginResetModel();
    m_key.clear();
    m_rows.clear();
    m_versions.reset();
    endResetModel();
    setOlderNotShown(0);
    if (message != m_message) {
        m_message = message;
        Q_EMIT messageChanged(m_message);
    }
}

std::map<std::string, std::string> ObjectHistoryModel::lastWriters(const QString &uid) const
{
    std::map<std::string, std::string> out;
    const std::string id = uid.toStdString();
    for (const HistoryRow &r : m_rows) { // oldest first: the newest write wins
        // A delete writes as no manager: its person is the deleter, not a manager's writer.
        if (r.kind != core::HistoryEntry::Kind::Version || r.refused || r.uid != id || r.who.isEmpty() || r.whoAmbiguous
            || r.eventType == core::HistoryEventType::Deleted)
            continue;
        const QString who = r.whoExact ? r.who : tr("%1 (probable)").arg(r.who);
        for (const QString &label : r.changedBy.split(QStringLiteral(", "), Qt::SkipEmptyParts))
            out[label.toStdString()] = who.toStdString();
    }
    return out;
}

const HistoryRow *ObjectHistoryModel::rowAt(int viewRow) const
{
    if (viewRow < 0 || viewRow >= int(m_rows.size()))
        return nullptr;
    return &m_rows[m_rows.size() - 1 - std::size_t(viewRow)];
}

int ObjectHistoryModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_rows.size());
}

int ObjectHistoryModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant ObjectHistoryModel::display(const HistoryRow &r, int column) const
{
    using K = core::HistoryEntry::Kind;
    switch (column) {
    case ResourceVersionColumn: return qs(r.resourceVersion);
    case WhoColumn:
        if (r.who.isEmpty() || r.refused || r.whoExact || r.whoContested)
            return r.who;
        return tr("%1 (probable)").arg(r.who);
    case EventColumn:
        if (r.refused)
            return tr("refused (%1)").arg(r.refusedCode);
        if (r.kind == K::Gap)
            return tr("not observed");
        if (r.kind == K::Pruned)
            return tr("pruned");
        switch (r.eventType) {
        case core::HistoryEventType::Listed: return tr("listed");
        case core::HistoryEventType::Added: return tr("added");
        case core::HistoryEventType::Modified: return tr("modified");
        case core::HistoryEventType::Deleted: return tr("deleted");
        }
        return {};
    case ObservedColumn: // the date is in the tooltip: a history is mostly read within a day
        return r.observedAtMs
                 ? QDateTime::fromMSecsSinceEpoch(r.observedAtMs).toLocalTime().toString(QStringLiteral("HH:mm:ss.zzz"))
                 : QString();
    case ChangedByColumn:
        if (r.kind != K::Version)
            return r.changedBy;
        return r.ambiguous ? tr("%1 (ambiguous)").arg(r.changedBy.isEmpty() ? tr("unknown") : r.changedBy)
                           : r.changedBy;
    case ChangesColumn:
        if (r.refused)
            return r.note;
        if (r.kind == K::Pruned)
            return r.note;
        if (r.kind != K::Version)
            return {};
        if (r.previousVersion < 0)
            return tr("first seen");
        if (r.changedFields <= 1) // English plurals without a loaded translation
            return r.changedFields == 0 ? tr("no field changed") : tr("1 field changed");
        return tr("%n fields changed", nullptr, r.changedFields);
    default: return {};
    }
}

QVariant ObjectHistoryModel::data(const QModelIndex &index, int role) const
{
    const HistoryRow *r = index.isValid() ? rowAt(index.row()) : nullptr;
    if (!r)
        return {};
    const bool version = r->kind == core::HistoryEntry::Kind::Version;
    switch (role) {
    case Qt::DisplayRole: return display(*r, index.column());
    case Qt::ToolTipRole: {
        if (index.column() == WhoColumn || (r->refused && index.column() != ObservedColumn))
            return r->whoDetail.isEmpty()
                     ? QVariant()
                     : QVariant(plainToolTip(r->refused ? r->note + QStringLiteral("\n\n") + r->whoDetail
                                                        : r->whoDetail));
        QString tip = index.column() == ObservedColumn ? timeOf(r->observedAtMs) : r->note;
        // The name comes from the database (anyone who may write it): shown as plain text.
        if (index.column() == ObservedColumn && !r->recorder.isEmpty())
            return plainToolTip(tip + tr("\nrecorded by %1").arg(r->recorder));
        // Paths name the object's keys, the note names managers: whoever wrote the object chose them.
        if (!r->changedPaths.isEmpty())
            tip += (tip.isEmpty() ? QString() : QStringLiteral("\n")) + r->changedPaths.join(QLatin1Char('\n'));
        return tip.isEmpty() ? QVariant() : QVariant(plainToolTip(tip));
    }
    case Qt::ForegroundRole:
        // A refused write reads as a warning, not as one more version.
        return r->refused ? QVariant(QBrush(QColor(0xb0, 0x30, 0x30))) : QVariant();
    case Qt::FontRole: {
        if (version && !r->ambiguous)
            return {};
        QFont f;
        f.setItalic(true); // gaps, pruned rows and guesses we refuse to make look different
        return f;
    }
    case IsVersionRole: return version;
    case UidRole: return qs(r->uid);
    case ResourceVersionRole: return qs(r->resourceVersion);
    case ChangedPathsRole: return r->changedPaths;
    default: return {};
    }
}

QVariant ObjectHistoryModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation == Qt::Horizontal && role == Qt::ToolTipRole && section == WhoColumn)
        // An empty column says nothing by itself: where its names come from, and how to get them.
        return tr("The person or ServiceAccount behind each version and refused write, from the API server's audit "
                  "log: the sandbox's is followed, for another cluster start Fieldscope with --audit-log FILE "
                  "(or run fieldscope audit import). Empty where no audit event was joined: nothing is guessed.");
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case ResourceVersionColumn: return tr("Resource version");
    case EventColumn: return tr("Seen as");
    case ObservedColumn: return tr("Observed");
    case ChangedByColumn: return tr("Changed by");
    case WhoColumn: return tr("Who");
    case ChangesColumn: return tr("Changes");
    default: return {};
    }
}

// ---- field timeline ----------------------------------------------------------------------------

core::Result<std::vector<FieldTimelineRow>> fieldTimelineRows(HistoryVersions &versions,
                                                              const std::vector<HistoryRow> &rows,
                                                              const std::string &uid, const core::FieldPath &path)
{
    std::map<std::int64_t, core::VersionInfo> bySeq; // the rows' versions of this uid
    std::int64_t objectId = 0;
    for (const auto &r : rows) {
        if (r.kind != core::HistoryEntry::Kind::Version || r.uid != uid)
            continue;
        core::VersionInfo v;
        v.uid = r.uid;
        v.seq = r.seq;
        v.resourceVersion = r.resourceVersion;
        v.eventType = r.eventType;
        v.observedAtMs = r.observedAtMs;
        bySeq.emplace(r.seq, std::move(v));
        objectId = r.objectId;
    }
    std::vector<FieldTimelineRow> out;
    if (bySeq.empty())
        return out;
    std::optional<core::FieldTimelinePoint> last;
    auto st = versions.forEachVersion(objectId, [&](std::int64_t seq, const core::Json &object) {
        const auto it = bySeq.find(seq);
        if (it == bySeq.end())
            return true; // recorded after the rows were listed: the next load shows it
        core::FieldTimelinePoint p = core::fieldTimelinePoint(it->second, object, path, last ? &*last : nullptr);
        FieldTimelineRow t;
        t.resourceVersion = p.resourceVersion;
        t.observedAtMs = p.observedAtMs;
        t.present = p.present;
        t.value = p.present ? qs(core::safeDump(p.value)) : QString();
        QStringList owners;
        for (const auto &o : p.owners)
            owners << qs(o.label());
        t.owners = owners.join(QStringLiteral(", "));
        t.changed = p.changed;
        t.ownersChanged = p.ownersChanged;
        out.push_back(std::move(t));
        last = std::move(p);
        return true;
    });
    if (!st)
        return st.error();
    return out;
}

FieldTimelineModel::FieldTimelineModel(QObject *parent) : QAbstractTableModel(parent) {}

void FieldTimelineModel::setTimeline(const QString &path, std::vector<FieldTimelineRow> rows)
{
    beginResetModel();
    m_path = path;
    m_rows = std::move(rows);
    endResetModel();
}

int FieldTimelineModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_rows.size());
}

int FieldTimelineModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant FieldTimelineModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid() || index.row() >= int(m_rows.size()))
        return {};
    const FieldTimelineRow &r = m_rows[m_rows.size() - 1 - std::size_t(index.row())];
    if (role == Qt::FontRole) {
        const bool bold = (index.column() == ValueColumn && r.changed)
                       || (index.column() == OwnersColumn && r.ownersChanged);
        if (!bold && r.present)
            return {};
        QFont f;
        f.setBold(bold);         // where the value or the owners changed
        f.setItalic(!r.present); // the field was absent in this version
        return f;
    }
    if (role != Qt::DisplayRole && role != Qt::ToolTipRole)
        return {};
    QString text;
    switch (index.column()) {
    case ResourceVersionColumn: text = qs(r.resourceVersion); break;
    case ObservedColumn: text = timeOf(r.observedAtMs); break;
    case ValueColumn: text = r.present ? r.value : tr("(absent)"); break;
    case OwnersColumn: text = r.owners; break;
    default: return {};
    }
    // Values and manager names are the object's: a tooltip shows them as plain text.
    return role == Qt::ToolTipRole ? plainToolTip(text) : text;
}

QVariant FieldTimelineModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case ResourceVersionColumn: return tr("Resource version");
    case ObservedColumn: return tr("Observed");
    case ValueColumn: return tr("Value");
    case OwnersColumn: return tr("Owners");
    default: return {};
    }
}

} // namespace fieldscope::models
