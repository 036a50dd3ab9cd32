#pragma once
// HistorySource: feeds the History tab's model from a history database. Every load opens its own
// read-only connection on a worker thread (WAL lets it read while the recorder commits), attributes
// all incarnations of the object there streaming through their versions (two decoded at a time),
// and hands the finished rows (no objects: models/historyversions.h reads those) to the model; a load a
// newer request superseded is dropped. Commits that touch the shown object reload it, coalesced,
// one load at a time. Lives on the GUI thread; its destructor never waits for the database: a
// load in flight owns what it reads and ends on its own (app/services/threadreaper.h).
#include "core/history/historystore.h"
#include "kube/kubeconfig.h"
#include "models/objecthistorymodel.h"

#include <QObject>
#include <QThreadPool>
#include <QTimer>

#include <functional>
#include <set>

namespace fieldscope::app {

class HistorySource : public QObject
{
    Q_OBJECT
public:
    explicit HistorySource(models::ObjectHistoryModel *model, QObject *parent = nullptr);
    ~HistorySource() override;

    // The database to read ("" = none: the tab says history is not recorded).
    void setDatabase(const QString &path);
    // Shows the object `query` names (all its incarnations); uid is the one the table selected.
    void show(const core::ObjectQuery &query, const QString &uid);
    void clear();
    // A transaction of the recorder committed (queued from its writer thread).
    void onCommitted(const core::CommitReport &report);
    // Something else wrote the database (who made the versions): reload what is shown, coalesced.
    void reload();
    // The newest kDefaultMaxListedVersions of an object are listed; each call lists that many more
    // of the older ones (the History tab's "Show older versions", ObjectHistoryModel::requestOlder).
    void showOlder();
    qint64 maxVersions() const { return m_maxVersions; }

    bool isLoading() const { return m_loading; }
    // Tests: runs on the worker thread before each load, where a huge answer or a damaged file
    // would throw (tests/app/tst_historysource.cpp).
    void setLoadProbe(std::function<void()> probe) { m_loadProbe = std::move(probe); }
    // Tests: runs on the listener thread instead of its LISTEN once the store is open (set before
    // setDatabase()); an error stands for a LISTEN the server refused.
    void setListenProbe(std::function<core::Status()> probe) { m_listenProbe = std::move(probe); }

Q_SIGNALS:
    void loaded(); // the model shows the requested object's recorded history
    // A shared store cannot be reached (why), or is back (""): recording goes on into the
    // recorder's queue meanwhile, and the History tab says so.
    void availabilityChanged(const QString &problem);

private:
    void load();
    // A shared (PostgreSQL) store announces every recorder's commits: a listener thread hears
    // them (LISTEN/NOTIFY, no polling) and reloads what is shown; it reconnects with backoff
    // (ReconnectBackoff), whether the connection, the store or the LISTEN failed.
    struct Listener;
    void startListening();
    void stopListening();
    void setProblem(const QString &problem);
    std::shared_ptr<Listener> m_listener;
    QString m_problem;

    models::ObjectHistoryModel *m_model;
    QString m_path;
    std::shared_ptr<models::HistoryVersions> m_versions; // the shown rows' objects, read on demand
    core::ObjectQuery m_query;
    QString m_key;
    std::set<std::string> m_uids; // incarnations the model shows (and the selected one)
    QThreadPool *m_pool;          // one load at a time; handed to the reaper when this is destroyed
    QTimer m_coalesce;
    int m_generation = 0;
    bool m_loading = false;
    bool m_again = false;
    qint64 m_maxVersions; // of each incarnation, newest first (a store may hold a million of one)
    std::function<void()> m_loadProbe;
    std::function<core::Status()> m_listenProbe;
};

// How long the shared store's listener waits before its next attempt: doubling from 0.5 s to 30 s
// whatever failed (no server, no store, a LISTEN refused: a hot standby refuses it for as long as it
// is one), back to 0.5 s only after a LISTEN held for 2 minutes, so a connection that breaks right
// after its LISTEN backs off like one that never listens (client-go's reflector does the same).
class ReconnectBackoff
{
public:
    static constexpr int kInitialMs = 500, kMaxMs = 30'000, kHealthyMs = 120'000;
    // An attempt failed: how long to wait before the next one.
    int failed();
    // The last connection listened this long before it broke.
    void listenedFor(std::int64_t ms);

private:
    int m_nextMs = kInitialMs;
};

// Who a history store belongs to: a cluster, not a context name. "sha256:" and the
// SHA-256 of the server URL and the SHA-256 of the CA bundle the kubeconfig names (none: the
// system store), so two kubeconfigs' `default` contexts aimed at different clusters differ.
std::string clusterIdentityOf(const kube::ResolvedConfig &config);

// The folder the GUI keeps histories in: ~/.local/share/fieldscope/history (as documented).
QString historyFolder();
// Where the GUI records a cluster's history: <history folder>/<context>-<12 hex of identity>.db;
// the context name is only there for people reading the folder.
QString historyDatabaseFor(const QString &contextName, const std::string &identity);
// Where this cluster's history is kept for the window, `record --store` and the commands'
// defaults: Settings' shared PostgreSQL store ("URL#IDENTITY") when History says Shared, else
// historyDatabaseFor().
QString historyLocationFor(const QString &contextName, const std::string &identity);
bool isSharedHistoryLocation(const QString &location);
// historyLocationFor() the cluster of `context` in the kubeconfig (both "" = the defaults),
// read without connecting: what `history`, `export` and `audit import --store` use without --db.
core::Result<QString> historyLocationForContext(const QString &kubeconfig, const QString &context);
// The name a recorder gives the versions it stores: "window@HOST (USER)", "record@HOST (USER)".
std::string recorderNameFor(const char *what);
// The names earlier versions used for the context (<app data>/history/<context>.db, and
// <history folder>/<context>.db), oldest last: adopted once by the first cluster that opens
// the context (core::HistoryRecorder::Options::adoptFrom).
std::vector<std::string> legacyHistoryDatabasesFor(const QString &contextName);

} // namespace fieldscope::app
