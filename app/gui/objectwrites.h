#pragma once
// ObjectWrites: one job: the writes a person starts from a cluster's view: one editor window per
// object (its ObjectEditor writes through the session's client), Object → Delete…, the Ownership
// tab's "Set only if unchanged…" and File → New Object…. Lives on the GUI thread; the requests run
// on the client's network thread, and a New Object buffer is parsed on the table's batch worker
// (TableFeed::batchWorker(), one thread the controller waits for at teardown). Owned by the
// ClusterController, which closes the editors before anything else at teardown; the
// ClusterSession, TableFeed and ClusterRecording it reads outlive it.
#include "core/base/json.h"
#include "core/edit/drafts.h"
#include "core/objects/fieldpath.h"
#include "core/objects/watchtypes.h"
#include "core/yaml/manifest.h"
#include "kube/apiclient.h"
#include "kube/resource.h"
#include "widgets/editorwindow.h"
#include "widgets/historypanel.h"
#include "widgets/newobjectwindow.h"

#include <QHash>
#include <QObject>
#include <QPointer>
#include <QThreadPool>

#include <functional>
#include <memory>

namespace fieldscope::widgets {
class ClusterView;
}

namespace fieldscope::app {

class ClusterRecording;
class ClusterSession;
class TableFeed;

class ObjectWrites : public QObject
{
    Q_OBJECT
public:
    ObjectWrites(widgets::ClusterView *view, const ClusterSession &session, const TableFeed &table,
                 const ClusterRecording &recording, QThreadPool *parsePool);

    // The editor window for the object `uid` as the table has it: the open one raised, or a new one.
    void openEditor(const QString &uid);
    // The History tab's Revert to this version / Undo this change: the object's editor (opened if
    // needed) proposes the write that puts the recorded fields back (ObjectEditor::proposeRevert).
    // Unsent edits in an open editor are only replaced when the user says so.
    void openRevert(const widgets::RevertRequest &request);
    // The editor window open for the object `uid`, if any (one per object).
    widgets::EditorWindow *editor(const QString &uid) const { return m_editors.value(uid); }
    // Open editors learn of the versions the table is about to show (a prepared batch).
    void noteServerVersions(const core::WatchBatch &batch);
    // Teardown, before the client goes: see the definition.
    void closeEditors();

    // File → New Object…: a window whose Create posts each object of its buffer (null before connected).
    widgets::NewObjectWindow *openNewObject();
    // A JSON Patch test(expected) + replace(value) at `pointer` of `uid`, after the tests `pins`
    // that the list items on the way are still the ones meant; askSetIfUnchanged() asks for the
    // value first.
    void setIfUnchanged(const QString &uid, const QString &pointer, const core::Json &expected, const core::Json &value,
                        const std::vector<core::PointerPin> &pins = {});
    void askSetIfUnchanged(const QString &uid, const QString &pointer, const QString &currentJson);
    // Deletes the object `uid` as the table shows it; `ask`: confirm first, naming the object.
    void deleteObject(const QString &uid, bool ask);

Q_SIGNALS:
    void deleteFinished(bool deleted, const QString &message);
    void setIfUnchangedFinished(bool written, const QString &message);

private:
    // The table's row of `uid` when a write to it can be sent now (connected, watching); -1 else.
    int writableRow(const QString &uid) const;
    void parseNewObjects(const QPointer<widgets::NewObjectWindow> &window, const QString &yaml, bool dryRun);
    void createObjects(const QPointer<widgets::NewObjectWindow> &window,
                       const core::Result<core::ManifestObjects> &parsed, bool dryRun);
    // One object of a New Object buffer; `done` gets its result line and whether it was created.
    void createObject(const core::Json &object, const std::string &contextNs, bool dryRun,
                      const std::function<void(const QString &, bool)> &done);
    void askToDelete(const QString &what, const QString &resourceVersion, const std::function<void()> &send);

    QPointer<widgets::ClusterView> m_view;
    const ClusterSession &m_session;
    const TableFeed &m_table;
    const ClusterRecording &m_recording;
    QThreadPool *m_parsePool;
    // Open editors by object uid; each owns its ObjectEditor, which uses the session's client.
    QHash<QString, QPointer<widgets::EditorWindow>> m_editors;
    std::shared_ptr<core::DraftStore> m_drafts; // unsent editor text kept on disk (made on first use)
};

} // namespace fieldscope::app
