#pragma once
// HistorySource: feeds the History tab's model from a history database. Every load opens its own
// read-only connection on a worker thread (WAL lets it read while the recorder commits), loads and
// attributes all incarnations of the object there, and hands finished rows to the model; a load a
// newer request superseded is dropped. Commits that touch the shown object reload it, coalesced,
// one load at a time. Lives on the GUI thread.
#include "core/historystore.h"
#include "models/objecthistorymodel.h"

#include <QObject>
#include <QThreadPool>
#include <QTimer>

#include <set>

namespace fieldscope::app {

class HistorySource : public QObject
{
    Q_OBJECT
public:
    explicit HistorySource(models::ObjectHistoryModel *model, QObject *parent = nullptr);
    ~HistorySource() override;

    // The database to read ("" = none: the tab says history is not recorded).
    void setDatabase(const QString &path) { m_path = path; }
    // Shows the object `query` names (all its incarnations); uid is the one the table selected.
    void show(const core::ObjectQuery &query, const QString &uid);
    void clear();
    // A transaction of the recorder committed (queued from its writer thread).
    void onCommitted(const core::CommitReport &report);

    bool isLoading() const { return m_loading; }

Q_SIGNALS:
    void loaded(); // the model shows the requested object's recorded history

private:
    void load();

    models::ObjectHistoryModel *m_model;
    QString m_path;
    core::ObjectQuery m_query;
    QString m_key;
    std::set<std::string> m_uids; // incarnations the model shows (and the selected one)
    QThreadPool m_pool;
    QTimer m_coalesce;
    int m_generation = 0;
    bool m_loading = false;
    bool m_again = false;
};

// Where the GUI records a context's history: <data dir>/history/<context>.db.
QString historyDatabaseFor(const QString &contextName);

} // namespace fieldscope::app
