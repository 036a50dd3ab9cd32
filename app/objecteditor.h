#pragma once
// ObjectEditor: the write orchestration behind one EditorWindow (docs/editing.md). Turns the window's
// WriteRequest into a server-side apply of the manager's own and the changed fields, a replace
// with the opened resourceVersion as precondition, a merge patch, or a JSON Patch testing every
// changed field (RFC 6902); sends it through the cluster's ApiClient; and
// tells the window what happened: the new resourceVersion and warnings, SSA conflicts with the
// live and the user's value of each field (the live object is fetched for the values),
// the three-way view of a stale replace or failed test (opened, written, current: fetched), 422
// causes or the typed error. YAML parsing and the JSON work run on worker threads; results of a
// superseded request are dropped. Lives on the GUI thread; a child of its window, so it dies
// with it.
#include "app/draftkeeper.h"
#include "core/base/json.h"
#include "kube/apiclient.h"
#include "kube/kubeconfig.h"
#include "core/diff/threewaymerge.h"
#include "kube/resource.h"
#include "widgets/editorwindow.h"

#include <QObject>
#include <QPointer>

#include <functional>

namespace fieldscope::app {

class ObjectEditor : public QObject
{
    Q_OBJECT
public:
    // `objectJson`: the object as shown (with managedFields); `client` must outlive this object
    // (the ClusterController closes its editors before dropping its client).
    // `drafts` (may be null): the window's DraftKeeper; an earlier run's unsent edit is offered.
    ObjectEditor(kube::ApiClient *client, kube::ResourceInfo resource, QByteArray objectJson,
                 widgets::EditorWindow *window, const QString &fieldManager, DraftKeeper *drafts = nullptr);
    // A background task threw (a library exception on bytes someone else chose): the editor
    // shows it as a failure of that step instead of the process ending.
    void showBackgroundFailure(const QString &why);
    // The connection's server, CA and auth kind, for "Copy as curl / kubectl".
    void setConnectionConfig(const kube::ResolvedConfig &config) { m_config = config; }

private:
    void write(const widgets::WriteRequest &request);
    void preview(const widgets::WriteRequest &request);
    void copyAs(const widgets::WriteRequest &request, bool asCurl);
    void checkWriteAccess();
    void copyCommand(const widgets::WriteRequest &request, const kube::HttpRequest &req);
    void prepare(const widgets::WriteRequest &request, bool sendIt);
    void prepareApply(const widgets::WriteRequest &request, core::Json edited, int generation, bool sendIt);
    void finish(const widgets::WriteRequest &request, core::Json object, int generation, bool sendIt);
    void showRequest(const kube::HttpRequest &request);
    static std::string fieldManagerOf(const widgets::WriteRequest &request);
    void onWritten(const widgets::WriteRequest &request, const core::Json &sent, core::Result<kube::HttpResponse> result);
    void onSuccess(bool dryRun, const std::string &manager, kube::HttpResponse response);
    void showConflicts(const core::Error &error, const core::Json &sent);
    void showStale(const core::Error &error, const QString &written);
    void showFailedTests(const core::Error &error, const QString &written);
    void showInvalid(const core::Error &error);
    void giveUp(const QStringList &paths, const widgets::WriteRequest &request);
    void coOwn(const QStringList &paths, const widgets::WriteRequest &request);
    void resolveRows(const QStringList &giveUp, const QStringList &coOwn, const widgets::WriteRequest &request);
    void rebase();
    void mergeOntoCurrent();
    void useMergeChoices(const QStringList &keepMine);
    void offerDraft(const std::string &loadedYaml);
    void onDraftLoaded(const std::string &loadedYaml, std::optional<core::EditDraft> draft);
    void restoreDraft();
    // GETs the object; `done` gets it parsed (on this thread), or the error.
    void fetchCurrent(std::function<void(core::Result<core::Json>)> done);
    // fetchCurrent() for explaining `refusal`: `explain` gets the current object; a failed read
    // is shown with the refusal.
    void fetchCurrentAfter(const core::Error &refusal, std::function<void(const core::Json &)> explain);
    bool withoutStatus() const;

    kube::ApiClient *m_client;
    kube::ResourceInfo m_resource;
    std::string m_namespace, m_name;
    QPointer<widgets::EditorWindow> m_window;
    core::Json m_opened;      // editable form of the version writes are based on
    std::string m_openedRv;   // its resourceVersion: the replace precondition
    core::Json m_current;     // the object as last fetched after a conflict (for rebase, give up)
    core::Json m_lastJsonPatch; // the last JSON Patch sent: its tests explain a 422
    core::Json m_live;        // the newest full object seen (managedFields: what the manager owns)
    QStringList m_notRemovable; // deletions the last apply could not make (not this manager's fields)
    QStringList m_givenUp;    // fields removed from the buffer by "Give the fields up" since the last write
    QStringList m_coOwned;    // fields set to the live value by "Co-own" since the last write
    QPointer<DraftKeeper> m_drafts;
    core::EditDraft m_draft;  // the earlier run's draft while its restore question is open
    int m_generation = 0;     // a newer request supersedes the answers to older ones
    QStringList m_yamlWarnings; // YAML 1.1 readings of the last parsed buffer, shown with the result
    kube::ResolvedConfig m_config;
    enum class CopyAs { None, Curl, Kubectl } m_copyAs = CopyAs::None; // what the next prepare() is for
    core::ThreeWayMerge m_merge; // the last stale-write merge, waiting for the user's choices
};

} // namespace fieldscope::app
