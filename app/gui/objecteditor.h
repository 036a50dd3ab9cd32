#pragma once
// ObjectEditor: the write orchestration behind one EditorWindow. Its decisions (the body of each
// write mode, what a refusal leads to, conflict rows, resolutions, rebase and merge) are
// core::EditSession's; this class wires them: it runs them on worker threads, sends the requests
// through the cluster's ApiClient (the write, and a GET of the current object to explain a
// refusal), and tells the window what happened: the new resourceVersion and warnings, SSA
// conflicts with the live and the user's value of each field, the three-way view of a stale
// replace or failed `test` (opened, written, current), 422 causes or the typed error. Results of
// a superseded request are dropped. Lives on the GUI thread; a child of its window, so it dies
// with it.
#include "app/gui/draftkeeper.h"
#include "core/base/json.h"
#include "core/edit/editsession.h"
#include "kube/apiclient.h"
#include "kube/kubeconfig.h"
#include "kube/resource.h"
#include "widgets/editorwindow.h"
#include "widgets/historypanel.h"

#include <QObject>
#include <QPointer>

#include <functional>
#include <optional>

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
    // The History tab's Revert to this version / Undo this change: the buffer gets the live
    // object with the recorded fields put back and JSON Patch is chosen (app/gui/objecteditorrevert.cpp).
    // Nothing is sent until the user writes. Asked before the object is read, it waits for it.
    void proposeRevert(const widgets::RevertRequest &request);

private:
    void write(const widgets::WriteRequest &request);
    void preview(const widgets::WriteRequest &request);
    void copyAs(const widgets::WriteRequest &request, bool asCurl);
    void checkWriteAccess();
    void copyCommand(const widgets::WriteRequest &request, const kube::HttpRequest &req);
    void prepare(const widgets::WriteRequest &request, bool sendIt);
    void finish(const widgets::WriteRequest &request, core::WritePlan plan, bool sendIt);
    kube::HttpRequest requestFor(const core::WritePlan &plan, const std::string &manager, bool dryRun) const;
    void showRequest(const kube::HttpRequest &request);
    static std::string fieldManagerOf(const widgets::WriteRequest &request);
    void onWritten(const widgets::WriteRequest &request, const core::Json &sent,
                   core::Result<kube::HttpResponse> result);
    void onSuccess(bool dryRun, const std::string &manager, kube::HttpResponse response);
    // The editable form of `live` (read on a worker), then `done` here unless superseded.
    void takeVersion(const core::Json &live, const std::function<void(core::EditVersion)> &done);
    void showConflicts(const core::Error &error, const core::Json &sent);
    void showStale(const core::Error &error, const QString &written);
    void showFailedTests(const core::Error &error, const QString &written);
    void showInvalid(const core::Error &error);
    // Marks the buffer lines the server's words name (field validation, a 422's causes).
    void noteLines(const std::vector<std::string> &messages, const std::vector<core::StatusCause> &causes = {});
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

    kube::ApiClient *m_client;
    kube::ResourceInfo m_resource;
    std::string m_namespace, m_name;
    QPointer<widgets::EditorWindow> m_window;
    core::EditSession m_session; // the base version, the last refusal's object, resolutions, the merge
    QPointer<DraftKeeper> m_drafts;
    core::EditDraft m_draft;    // the earlier run's draft while its restore question is open
    int m_generation = 0;       // a newer request supersedes the answers to older ones
    QStringList m_yamlWarnings; // YAML 1.1 readings of the last parsed buffer, shown with the result
    kube::ResolvedConfig m_config;
    std::optional<widgets::RevertRequest> m_pendingRevert;             // asked for while the object was being read
    int m_revertGeneration = 0;                                        // a newer revert supersedes an older one's plan
    enum class CopyAs { None, Curl, Kubectl } m_copyAs = CopyAs::None; // what the next prepare() is for
};

} // namespace fieldscope::app
