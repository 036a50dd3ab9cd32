#pragma once
// The History tab's models. ObjectHistoryModel lists the recorded versions of one object (every
// incarnation: a re-created object with the same name follows its predecessor) with the honest
// gaps between them, newest first, each with who made it and how many fields it changed.
// FieldTimelineModel lists one field's values and owners across those versions.
//
// Rows are built on a worker thread from the history store (historyRows(), fieldTimelineRows());
// the models only swap them in on the GUI thread. A row holds no object: the versions' objects
// are read one at a time through the model's HistoryVersions (models/historyversions.h) on a
// worker, so the tab's memory does not grow with the number or the size of the versions.
#include "core/history/attribution.h"
#include "core/history/historyquery.h"
#include "models/historyversions.h"

#include <QAbstractTableModel>
#include <QDateTime>

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace fieldscope::models {

struct HistoryRow {
    core::HistoryEntry::Kind kind = core::HistoryEntry::Kind::Version;
    std::string uid;
    std::int64_t objectId = 0; // the store's id of the incarnation (HistoryVersions' key with seq)
    std::int64_t seq = 0;
    std::string resourceVersion; // versions; gaps: "a → b"
    core::HistoryEventType eventType = core::HistoryEventType::Modified;
    std::int64_t observedAtMs = 0;
    QString changedBy; // writer labels: "kubectl-client-side-apply(Update)"; gaps: the reason
    QString recorder;  // which recorder stored the version ("" = unnamed; shared stores name each)
    QString note;      // why the attribution is ambiguous, or what the row means
    bool ambiguous = false;
    int changedFields = 0;
    QStringList changedPaths; // server syntax, noise-filtered
    int previousVersion = -1; // index (oldest first) of the previous version of the same uid
    // The person from the API server's audit events (docs/audit.md): "alice", "alice or bob";
    // empty when no event joined. whoDetail: groups, impersonation, user agent, source IPs, the
    // request and its audit ID, for the tooltip.
    QString who;
    QString whoDetail;
    bool whoExact = false;
    bool whoAmbiguous = false; // several requests fit, or several people claim it (contested): `who` lists them
    bool whoContested = false; // audit events from different people each name this exact version
    // A write the server refused (409, 422, 403), between the versions by time: never a version.
    bool refused = false;
    int refusedCode = 0;
};

// Who made the versions and the writes the server refused, from the store's audit tables.
struct HistoryAudit {
    std::map<std::string, std::map<std::string, core::AuditJoin>> joins; // uid -> resourceVersion -> join
    std::vector<core::AuditAttempt> attempts;                            // oldest first
    const core::AuditJoin *joinOf(const core::AttributedEntry &e) const; // null for gaps and unjoined versions
};
// Reads it for the incarnations in `entries`. Run on a worker thread.
core::Result<HistoryAudit> historyAudit(core::HistoryStore &store, const std::vector<core::AttributedEntry> &entries);

// Rows oldest first, from an attributed history, with who made each version and the refused
// writes placed by request time (core::versionWrittenMicros) when `audit` is given. Run on a worker thread.
std::vector<HistoryRow> historyRows(const std::vector<core::AttributedEntry> &entries,
                                    const HistoryAudit *audit = nullptr);

class ObjectHistoryModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Column {
        ResourceVersionColumn,
        EventColumn,
        ChangedByColumn,
        WhoColumn,
        ChangesColumn,
        ObservedColumn,
        ColumnCount
    };
    enum Role {
        IsVersionRole = Qt::UserRole + 302, // bool: a version (not a gap or pruned row)
        UidRole,                            // QString
        ResourceVersionRole,                // QString
        ChangedPathsRole                    // QStringList
    };

    explicit ObjectHistoryModel(QObject *parent = nullptr);

    // Rows oldest first; shown newest first. The same key with rows that only grew at the end
    // (new versions recorded) inserts rows on top instead of resetting, so the selection and the
    // diff the user is reading survive.
    // `versions` reads the rows' objects (null: none can be shown).
    void setRows(const QString &key, std::vector<HistoryRow> rows, std::shared_ptr<HistoryVersions> versions = {});
    void clear(const QString &message = {});
    // Where the rows' objects are read from (worker threads only); null when nothing is shown.
    const std::shared_ptr<HistoryVersions> &versions() const { return m_versions; }
    const QString &key() const { return m_key; }
    // What the list means when empty ("Nothing recorded yet", an error), for the view to show.
    const QString &message() const { return m_message; }
    const std::vector<HistoryRow> &rows() const { return m_rows; } // oldest first
    const HistoryRow *rowAt(int viewRow) const;
    // Who last wrote as each managedFields entry of incarnation `uid` (entry label -> person, with
    // " (probable)"): each version one person joined names its writers; the newest wins.
    std::map<std::string, std::string> lastWriters(const QString &uid) const;
    // Older versions the store holds that the rows leave out (a listing holds the newest only),
    // and the view's ask for more of them (whoever fills the model answers with more rows).
    qint64 olderNotShown() const { return m_olderNotShown; }
    void setOlderNotShown(qint64 count);
    void requestOlder() { Q_EMIT olderRequested(); }

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

Q_SIGNALS:
    void messageChanged(const QString &message);
    void olderNotShownChanged(qint64 count);
    void olderRequested();

private:
    QVariant display(const HistoryRow &r, int column) const;

    QString m_key;
    QString m_message;
    std::vector<HistoryRow> m_rows; // oldest first; view row r shows m_rows[n-1-r]
    qint64 m_olderNotShown = 0;
    std::shared_ptr<HistoryVersions> m_versions;
};

struct FieldTimelineRow {
    std::string resourceVersion;
    std::int64_t observedAtMs = 0;
    bool present = false;
    QString value;  // compact JSON, "" when absent
    QString owners; // "kubectl(Apply), helm(Update)"
    bool changed = false;
    bool ownersChanged = false;
};

// One field across the versions of one uid, oldest first, reading the versions one at a time.
// Heavy: run on a worker thread.
core::Result<std::vector<FieldTimelineRow>> fieldTimelineRows(HistoryVersions &versions,
                                                              const std::vector<HistoryRow> &rows,
                                                              const std::string &uid, const core::FieldPath &path);

class FieldTimelineModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Column { ResourceVersionColumn, ObservedColumn, ValueColumn, OwnersColumn, ColumnCount };

    explicit FieldTimelineModel(QObject *parent = nullptr);
    void setTimeline(const QString &path, std::vector<FieldTimelineRow> rows); // newest first shown
    const QString &path() const { return m_path; }

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    QString m_path;
    std::vector<FieldTimelineRow> m_rows; // oldest first
};

} // namespace fieldscope::models
