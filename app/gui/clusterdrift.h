#pragma once
// ClusterDrift: one job: drift in the window (docs/history.md, "Drift"). Computes the Drift
// view's rows (the shown kind's objects in the namespaces the table shows) when the view opens,
// on Refresh and when the kind or the namespaces change while it is open; and the selected
// object's drift for the Ownership tab's badge whenever the object is chosen or its recorded
// history reloads. Both run on DriftSources (app/services/driftsource.h: a worker with its own
// read-only connection to the cluster's history store; a newer run supersedes an older one, whose
// results are dropped). A Drift view row opens its object's History at the change; Give back
// sends a set-if-unchanged write through ObjectWrites. Lives on the GUI thread and waits for
// nothing. Owned by the ClusterController after the parts it reads, so it goes before them.
#include "app/services/driftsource.h"
#include "core/objects/watchtypes.h"
#include "models/driftmodel.h"

#include <QObject>
#include <QPointer>
#include <QTimer>

namespace fieldscope::widgets {
class ClusterView;
}

namespace fieldscope::app {

class ClusterRecording;
class ObjectWrites;
class TableFeed;

class ClusterDrift : public QObject
{
    Q_OBJECT
public:
    ClusterDrift(widgets::ClusterView *view, const TableFeed &table, ClusterRecording &recording, ObjectWrites &writes);
    ~ClusterDrift() override;

    // The Drift view's rows again (a run over the objects the table shows now).
    void refresh();
    models::DriftModel *model() { return &m_model; }
    DriftSource *viewSource() { return &m_viewSource; }
    DriftSource *objectSource() { return &m_objectSource; }

Q_SIGNALS:
    void refreshed();        // a run of the Drift view finished: its rows are in the model
    void objectDriftShown(); // the selected object's drift is on the Ownership tab

private:
    void wireView();
    void wireParts(ClusterRecording &recording, ObjectWrites &writes);
    DriftInput inputOf(int row) const;
    std::vector<DriftInput> shownObjects(QString *scope, QString *scopeKey, QString *oneNamespace) const;
    void refreshWhenListed();
    void onBatchApplying(const core::WatchBatch &batch);
    void analyseCurrent();
    void showFinding(const core::DriftFinding &finding);
    void giveBack(const core::DriftFinding &finding);
    void onWritten(bool written, const QString &message);

    QPointer<widgets::ClusterView> m_view;
    const TableFeed &m_table;
    ClusterRecording &m_recording;
    ObjectWrites &m_writes;
    models::DriftModel m_model;
    DriftSource m_viewSource;   // the Drift view's runs
    DriftSource m_objectSource; // the selected object's, for the badge
    QString m_currentUid;
    // History reloads of the selected object (each commit, each audit join) coalesced: the
    // badge's analysis re-reads the object's recorded versions.
    QTimer m_reloadPause;
    QString m_scopeKey;            // the kind and namespaces the rows are about
    bool m_pendingRefresh = false; // asked for while the table was not listed yet
    QString m_givingBack;          // the object a Give back write was sent for
    QString m_refreshAfterWrite;   // refresh once the table has this object's new version
};

} // namespace fieldscope::app
