#include "app/objecteditor.h"

#include "core/base/boundary.h"
#include "core/diff/objectdiff.h"
#include "core/ownership/ownershipdiff.h"
#include "core/diff/threewaymerge.h"
#include "kube/requestcommands.h"

#include <QClipboard>
#include <QGuiApplication>

#include "core/edit/applybody.h"
#include "core/edit/editbuffer.h"
#include "core/base/jsonread.h"
#include "core/yaml/yaml.h"
#include "kube/writes.h"

#include <QDateTime>
#include <QFutureWatcher>
#include <QLocale>
#include <QtConcurrent/QtConcurrentRun>

namespace fieldscope::app {

namespace {

// Runs `work` on the thread pool and `done` with its result on `context`'s thread, unless
// `context` is gone by then.
template<typename Work, typename Done>
void inBackground(QObject *context, Work work, Done done)
{
    using R = decltype(work());
    auto *watcher = new QFutureWatcher<R>(context);
    QObject::connect(watcher, &QFutureWatcherBase::finished, context, [watcher, context, done = std::move(done)]() mutable {
        watcher->deleteLater();
        // The worker's exception (core/base/boundary.h) and one thrown by `done` (an exception in a
        // slot ends the process) both become the editor's failure banner.
        auto fail = [context](const core::Error &e) {
            if (auto *editor = qobject_cast<ObjectEditor *>(context))
                editor->showBackgroundFailure(QString::fromStdString(e.message));
        };
        auto taken = core::takeResult(watcher->future(), "the editor's background work");
        if constexpr (!core::isResult<R>) {
            if (!taken)
                return fail(taken.error());
        }
        const core::Status st = core::guarded("the editor's background result", [&] {
            if constexpr (core::isResult<R>)
                done(std::move(taken)); // a worker's error and its exception are shown alike
            else
                done(std::move(*taken));
        });
        if (!st)
            fail(st.error());
    });
    watcher->setFuture(QtConcurrent::run(std::move(work)));
}

std::string metaString(const core::Json &object, const char *key)
{
    if (!object.is_object() || !object.contains("metadata") || !object["metadata"].is_object())
        return {};
    const core::Json &meta = object["metadata"];
    auto it = meta.find(key);
    return it != meta.end() && it->is_string() ? it->get<std::string>() : std::string();
}

QString q(const std::string &s) { return QString::fromStdString(s); }

QString valuePreview(const std::optional<core::Json> &value)
{
    return value ? q(core::jsonPreview(*value, 120)) : QObject::tr("(not set)");
}

// JSON text, because a `test` compares as JSON: "1" (a string) is not 1 (RFC 6902, section 4.6).
QString exactText(const std::optional<core::Json> &value)
{
    if (!value)
        return QObject::tr("(not set)");
    QString text = q(core::toJsonText(*value));
    return text.size() > 120 ? text.left(119) + QChar(0x2026) : text;
}

// The value a JSON Patch tested at `pointer`.
std::optional<core::Json> testedValue(const core::Json &patch, const std::string &pointer)
{
    for (const auto &op : patch)
        if (op.value("op", "") == "test" && op.value("path", "") == pointer)
            return op.value("value", core::Json());
    return std::nullopt;
}

// How the 409 names the owner (https://kubernetes.io/docs/reference/using-api/server-side-apply/#conflicts): Apply managers have no apiVersion.
QString ownerLabel(const core::FieldConflict &c)
{
    QString label = q(c.manager);
    label += c.apiVersion.empty() ? QObject::tr(" (Apply)") : QObject::tr(" (Update, %1)").arg(q(c.apiVersion));
    if (!c.subresource.empty())
        label += QObject::tr(" via /%1").arg(q(c.subresource));
    return label;
}

struct Version {
    core::Json live; // as the server sent it, managedFields included
    core::Json editable;
    std::string yaml;
    std::string resourceVersion, namespace_, name;
};

core::Result<Version> versionOf(std::string_view json, bool withoutStatus)
{
    auto parsed = core::parseJson(json);
    if (!parsed)
        return parsed.error();
    Version v;
    v.resourceVersion = metaString(*parsed, "resourceVersion");
    v.namespace_ = metaString(*parsed, "namespace");
    v.name = metaString(*parsed, "name");
    v.editable = core::editableObject(*parsed, withoutStatus);
    v.yaml = core::jsonToYaml(v.editable);
    v.live = std::move(*parsed);
    return v;
}

// The write needs an object with a name: everything else the server judges.
QString shapeProblem(const core::Json &object)
{
    if (!object.is_object())
        return QObject::tr("the YAML is not an object (a mapping of fields)");
    if (metaString(object, "name").empty())
        return QObject::tr("metadata.name is missing");
    return {};
}

} // namespace

ObjectEditor::ObjectEditor(kube::ApiClient *client, kube::ResourceInfo resource, QByteArray objectJson,
                           widgets::EditorWindow *window, const QString &fieldManager, DraftKeeper *drafts)
    : QObject(window), m_client(client), m_resource(std::move(resource)), m_window(window), m_drafts(drafts)
{
    connect(window, &widgets::EditorWindow::restoreDraftRequested, this, &ObjectEditor::restoreDraft);
    connect(window, &widgets::EditorWindow::discardDraftRequested, this, [this] {
        if (m_drafts)
            m_drafts->discard();
    });
    connect(window, &widgets::EditorWindow::writeRequested, this, &ObjectEditor::write);
    connect(window, &widgets::EditorWindow::giveUpRequested, this, &ObjectEditor::giveUp);
    connect(window, &widgets::EditorWindow::coOwnRequested, this, &ObjectEditor::coOwn);
    connect(window, &widgets::EditorWindow::resolveRowsRequested, this, &ObjectEditor::resolveRows);
    connect(window, &widgets::EditorWindow::mergeRequested, this, &ObjectEditor::mergeOntoCurrent);
    connect(window, &widgets::EditorWindow::mergeChoicesMade, this, &ObjectEditor::useMergeChoices);
    connect(window, &widgets::EditorWindow::previewRequested, this, &ObjectEditor::preview);
    connect(window, &widgets::EditorWindow::copyRequested, this, &ObjectEditor::copyAs);
    connect(window, &widgets::EditorWindow::rebaseRequested, this, &ObjectEditor::rebase);
    inBackground(this, [objectJson = std::move(objectJson), noStatus = withoutStatus()] {
        return versionOf(std::string_view(objectJson.constData(), std::size_t(objectJson.size())), noStatus);
    }, [this, fieldManager](core::Result<Version> v) {
        if (!v) {
            m_window->showFailure(tr("the object could not be read: %1").arg(q(v.error().describe())));
            return;
        }
        m_namespace = v->namespace_;
        m_name = v->name;
        m_opened = std::move(v->editable);
        m_openedRv = v->resourceVersion;
        m_live = std::move(v->live);
        m_window->load(q(v->yaml), q(m_openedRv), fieldManager);
        offerDraft(v->yaml);
        checkWriteAccess();
    });
}

// Types with a status subresource ignore .status in writes to the object (the status subresource, https://kubernetes.io/docs/concepts/extend-kubernetes/api-extension/custom-resources/#status-subresource), so
// the editable text leaves it out; for the others status is ordinary data.
bool ObjectEditor::withoutStatus() const
{
    return m_resource.hasSubresource("status");
}

void ObjectEditor::write(const widgets::WriteRequest &request)
{
    prepare(request, true);
}

void ObjectEditor::preview(const widgets::WriteRequest &request)
{
    m_copyAs = CopyAs::None;
    prepare(request, false);
}

void ObjectEditor::copyAs(const widgets::WriteRequest &request, bool asCurl)
{
    m_copyAs = asCurl ? CopyAs::Curl : CopyAs::Kubectl;
    prepare(request, false);
}

// The text goes to the clipboard and into the preview, so the user sees what was copied.
void ObjectEditor::copyCommand(const widgets::WriteRequest &request, const kube::HttpRequest &req)
{
    std::string text;
    if (m_copyAs == CopyAs::Curl) {
        text = kube::curlCommand(req, m_config);
    } else {
        kube::KubectlWrite w;
        switch (request.mode) {
        case widgets::WriteMode::Apply: w.verb = kube::KubectlWrite::Verb::Apply; break;
        case widgets::WriteMode::Replace: w.verb = kube::KubectlWrite::Verb::Replace; break;
        case widgets::WriteMode::MergePatch: w.verb = kube::KubectlWrite::Verb::MergePatch; break;
        case widgets::WriteMode::JsonPatch: w.verb = kube::KubectlWrite::Verb::JsonPatch; break;
        }
        w.resource = m_resource.qualifiedName();
        w.ns = m_namespace;
        w.name = m_name;
        w.body = req.body;
        w.fieldManager = fieldManagerOf(request);
        w.force = request.force && request.mode == widgets::WriteMode::Apply;
        w.dryRun = request.dryRun;
        text = kube::kubectlCommand(w, m_config);
    }
    m_copyAs = CopyAs::None;
    const QString copied = QString::fromStdString(text);
    if (QClipboard *clipboard = QGuiApplication::clipboard())
        clipboard->setText(copied);
    m_window->showPreview(copied, {tr("Copied to the clipboard. No token is in the text: curl reads it from $%1.").arg(QLatin1String(kube::kTokenVariable))});
}

// Everything up to the request, the same for Write, Dry run and Preview: parse the buffer, pick
// the body for the mode, build the request; then send it, or show it.
void ObjectEditor::prepare(const widgets::WriteRequest &request, bool sendIt)
{
    const int gen = ++m_generation;
    if (sendIt)
        m_window->setSending(request.dryRun);
    inBackground(this, [text = request.text.toStdString()] { return core::yamlToJson(text); },
                 [this, request, gen, sendIt](core::Result<core::YamlParseResult> parsed) {
        if (gen != m_generation || !m_window)
            return;
        if (!parsed) { // nothing is sent
            m_window->showParseError(q(parsed.error().where), q(parsed.error().message));
            return;
        }
        m_yamlWarnings.clear();
        for (const auto &w : parsed->warnings)
            m_yamlWarnings << q(w);
        if (const QString problem = shapeProblem(parsed->value); !problem.isEmpty()) {
            m_window->showParseError({}, problem);
            return;
        }
        if (request.mode == widgets::WriteMode::Apply)
            prepareApply(request, std::move(parsed->value), gen, sendIt);
        else
            finish(request, std::move(parsed->value), gen, sendIt);
    });
}

// An apply sends the fields this manager already owns plus what the user changed, never the
// whole buffer (https://kubernetes.io/docs/reference/using-api/server-side-apply/#using-server-side-apply-in-a-controller): that would claim every field, defaulted and controller-written
// ones included, and turn their owners' next writes into conflicts.
void ObjectEditor::prepareApply(const widgets::WriteRequest &request, core::Json edited, int gen, bool sendIt)
{
    core::ApplyOptions options;
    options.ignoreStatus = withoutStatus();
    const std::string manager = fieldManagerOf(request);
    std::vector<std::string> coOwned;
    for (const QString &p : std::as_const(m_coOwned))
        coOwned.push_back(p.toStdString());
    inBackground(this, [live = m_live, opened = m_opened, edited = std::move(edited), manager, options, coOwned] {
        return core::applyBodyForEdit(live, opened, edited, manager, options, coOwned);
    }, [this, request, gen, sendIt](core::Result<core::ApplyBody> body) {
        if (gen != m_generation || !m_window)
            return;
        if (!body) {
            m_window->showParseError(q(body.error().where), q(body.error().message));
            return;
        }
        m_notRemovable.clear();
        for (const auto &path : body->notRemovable)
            if (!m_givenUp.contains(q(path)))
                m_notRemovable << q(path);
        finish(request, std::move(body->body), gen, sendIt);
    });
}

std::string ObjectEditor::fieldManagerOf(const widgets::WriteRequest &request)
{
    return request.fieldManager.isEmpty() ? std::string("fieldscope") : request.fieldManager.toStdString();
}

void ObjectEditor::finish(const widgets::WriteRequest &request, core::Json object, int gen, bool sendIt)
{
    kube::WriteOptions o;
    o.fieldManager = fieldManagerOf(request);
    o.dryRun = request.dryRun;
    kube::HttpRequest req;
    switch (request.mode) {
    case widgets::WriteMode::Apply:
        o.force = request.force;
        req = kube::applyRequest(m_resource, m_namespace, object, o);
        break;
    case widgets::WriteMode::Replace: // the optimistic lock: refused when anyone wrote since (resourceVersion precondition)
        object["metadata"]["resourceVersion"] = m_openedRv;
        req = kube::replaceRequest(m_resource, m_namespace, object, o);
        break;
    case widgets::WriteMode::MergePatch: // only what the buffer changed since the base version
        req = kube::patchRequest(m_resource, m_namespace, m_name, kube::PatchType::Merge,
                                 core::mergePatchBetween(m_opened, object), o);
        break;
    case widgets::WriteMode::JsonPatch: { // the same, each change only if its field is as opened (RFC 6902 test)
        core::Json patch = core::jsonPatchBetween(m_opened, object);
        if (patch.empty()) {
            m_window->showFailure(tr("nothing to send: the buffer has no changes since resourceVersion %1").arg(q(m_openedRv)));
            return;
        }
        req = kube::patchRequest(m_resource, m_namespace, m_name, kube::PatchType::Json, patch, o);
        if (sendIt)
            m_lastJsonPatch = std::move(patch);
        break;
    }
    }
    if (!sendIt) {
        if (m_copyAs != CopyAs::None)
            copyCommand(request, req);
        else
            showRequest(req);
        return;
    }
    m_client->send(std::move(req), this, [this, request, gen, object](core::Result<kube::HttpResponse> r) {
        if (gen == m_generation && m_window)
            onWritten(request, object, std::move(r));
    });
}

// The request as the wire carries it (the body pretty-printed), for a user or a lesson to read
// before anything is sent.
void ObjectEditor::showRequest(const kube::HttpRequest &req)
{
    const int gen = m_generation;
    QStringList notes;
    if (!m_notRemovable.isEmpty())
        notes << tr("An apply cannot remove these fields you deleted (your manager does not own them): %1")
                     .arg(m_notRemovable.join(QStringLiteral(", ")));
    inBackground(this, [req] {
        auto body = core::parseJson(req.body);
        return QString::fromStdString(req.method + ' ' + req.path + "\nContent-Type: " + req.contentType + "\n\n"
                                      + (body ? core::safeDump(*body, 2) : req.body));
    }, [this, gen, notes](const QString &text) {
        if (gen == m_generation && m_window)
            m_window->showPreview(text, notes);
    });
}

void ObjectEditor::onWritten(const widgets::WriteRequest &request, const core::Json &sent, core::Result<kube::HttpResponse> result)
{
    if (result) {
        onSuccess(request.dryRun, fieldManagerOf(request), std::move(*result));
        return;
    }
    const core::Error &e = result.error();
    if (e.isSsaConflict()) {
        showConflicts(e, sent);
    } else if (e.category == core::ErrorCategory::StaleWrite) {
        showStale(e, request.text);
    } else if (e.category == core::ErrorCategory::Invalid && request.mode == widgets::WriteMode::JsonPatch) {
        showFailedTests(e, request.text);
    } else if (e.category == core::ErrorCategory::Invalid) {
        showInvalid(e);
    } else {
        if (e.category == core::ErrorCategory::Forbidden)
            m_window->setReadOnly(tr("Read-only: the server refused this write (403): %1. You can still preview the request and "
                                     "copy it for someone who may write.").arg(q(e.message)));
        m_window->showFailure(q(e.describe()));
    }
}

// Asks the server whether these credentials may update or patch the object
// (SelfSubjectAccessReview): if neither, the window says so before anyone types.
void ObjectEditor::checkWriteAccess()
{
    auto answers = std::make_shared<std::vector<bool>>();
    for (const char *verb : {"update", "patch"}) {
        const core::Json review{{"apiVersion", "authorization.k8s.io/v1"},
                                {"kind", "SelfSubjectAccessReview"},
                                {"spec", {{"resourceAttributes", {{"namespace", m_namespace}, {"verb", verb}, {"group", m_resource.group},
                                                                  {"resource", m_resource.resource}, {"name", m_name}}}}}};
        kube::HttpRequest req;
        req.method = "POST";
        req.path = "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews";
        req.contentType = "application/json";
        req.body = core::toJsonText(review);
        m_client->send(std::move(req), this, [this, answers, verb = std::string(verb)](core::Result<kube::HttpResponse> r) {
            // An answer we cannot read counts as allowed: the write itself will tell (a 403 also sets the banner).
            bool allowed = true;
            if (r)
                if (auto body = core::parseJson(r->body); body)
                    allowed = core::booleanAt(*body, "/status/allowed").value_or(true);
            answers->push_back(allowed);
            if (answers->size() == 2 && !(*answers)[0] && !(*answers)[1] && m_window)
                m_window->setReadOnly(tr("Read-only: your credentials may neither update nor patch %1 in %2 (RBAC). You can still "
                                         "preview the request and copy it for someone who may write.")
                                          .arg(q(m_resource.qualifiedName()), m_namespace.empty() ? tr("the cluster") : q(m_namespace)));
        });
    }
}

void ObjectEditor::onSuccess(bool dryRun, const std::string &manager, kube::HttpResponse response)
{
    QStringList warnings = m_yamlWarnings;
    for (const auto &w : response.warnings)
        warnings << q(w);
    if (!m_notRemovable.isEmpty())
        warnings << tr("You deleted fields your manager does not own; an apply cannot remove them, so they are still "
                       "there: %1. Use Merge patch or JSON Patch to delete them.").arg(m_notRemovable.join(QStringLiteral(", ")));
    const int gen = m_generation;
    // What the write does to the manager's ownership, from managedFields before and after: for a
    // dry run the answer is the object as it would be, so this is the preview.
    // Beside it, the object's own changes (live vs. the answer; metadata noise hidden).
    auto ownership = std::make_shared<QStringList>();
    auto changes = std::make_shared<QStringList>();
    inBackground(this, [body = std::move(response.body), noStatus = withoutStatus(), before = m_live, manager, ownership, changes] {
        auto v = versionOf(body, noStatus);
        if (v && !before.is_null()) {
            if (auto d = core::ownershipDiff(before, v->live, manager); d && !d->empty())
                for (const std::string &line : d->describe(manager))
                    *ownership << QString::fromStdString(line);
            for (const core::FieldChange &c : core::diffObjects(before, v->live)) {
                std::string line = std::string(core::fieldChangeKindName(c.kind)) + " " + c.path.toString();
                if (c.kind == core::FieldChange::Kind::Changed)
                    line += ": " + core::jsonPreview(c.oldValue, 80) + " -> " + core::jsonPreview(c.newValue, 80);
                else
                    line += ": " + core::jsonPreview(c.kind == core::FieldChange::Kind::Added ? c.newValue : c.oldValue, 80);
                *changes << QString::fromStdString(line);
            }
        }
        return v;
    }, [this, dryRun, warnings = warnings, gen, ownership, changes](core::Result<Version> v) mutable {
        if (gen != m_generation || !m_window)
            return;

        if (!v) { // written, but the answer is unreadable: say so rather than guess a version
            m_window->showWritten(dryRun, tr("(unreadable answer: %1)").arg(q(v.error().describe())), warnings);
            return;
        }
        if (!dryRun) { // later writes build on what was written
            m_opened = std::move(v->editable);
            m_openedRv = v->resourceVersion;
            m_live = std::move(v->live);
            m_givenUp.clear();
            m_coOwned.clear();
            m_window->setOpened(q(v->yaml), q(m_openedRv));
        }
        m_window->showWritten(dryRun, q(v->resourceVersion), warnings, *ownership, *changes);
    });
}

// The 409 names fields and owners only: the live values come from a fresh GET, both values are
// looked up with the list semantics the server used for the paths (core/edit/editbuffer.h).
void ObjectEditor::showBackgroundFailure(const QString &why)
{
    if (m_window)
        m_window->showFailure(tr("this step failed: %1").arg(why));
}

void ObjectEditor::showConflicts(const core::Error &error, const core::Json &sent)
{
    fetchCurrent([this, error, sent](core::Result<core::Json> live) {
        QString message = q(error.message);
        core::Json liveObject;
        if (live)
            liveObject = m_current = m_live = std::move(*live);
        else
            message += tr("\n(The live values could not be read: %1)").arg(q(live.error().describe()));
        std::vector<std::string> paths;
        for (const auto &c : error.conflicts)
            paths.push_back(c.path);
        const int gen = m_generation;
        inBackground(this, [sent, liveObject, paths] { return core::valuesAtPaths(sent, liveObject, paths); },
                     [this, error, message, gen](std::vector<core::FieldValues> values) {
            if (gen != m_generation || !m_window)
                return;
            QList<widgets::ConflictRow> rows;
            for (std::size_t i = 0; i < error.conflicts.size() && i < values.size(); ++i)
                rows.push_back({q(error.conflicts[i].path), ownerLabel(error.conflicts[i]), valuePreview(values[i].live), valuePreview(values[i].mine)});
            m_window->showConflicts(message, rows);
        });
    });
}

void ObjectEditor::showStale(const core::Error &error, const QString &written)
{
    fetchCurrentAfter(error, [this, error, written](const core::Json &live) {
        const int gen = m_generation;
        inBackground(this, [current = live, noStatus = withoutStatus()] {
            return versionOf(core::toJsonText(current), noStatus);
        }, [this, error, written, gen](core::Result<Version> current) {
            if (gen != m_generation || !m_window || !current)
                return;
            m_window->showStale(q(error.message), m_window->openedYaml(), written, q(current->yaml), q(current->resourceVersion));
        });
    });
}

// The server's 422 for a failed `test` is generic (k8s.io/apiserver/pkg/endpoints/handlers/patch.go): which fields moved is found by
// testing the patch against the object as it is now. None moved: the 422 had another reason.
void ObjectEditor::showFailedTests(const core::Error &error, const QString &written)
{
    fetchCurrentAfter(error, [this, error, written](const core::Json &live) {
        const int gen = m_generation;
        inBackground(this, [current = live, patch = m_lastJsonPatch, noStatus = withoutStatus()] {
            auto failed = core::failedTests(patch, core::editableObject(current, noStatus));
            return std::make_pair(std::move(failed), versionOf(core::toJsonText(current), noStatus));
        }, [this, error, written, gen](auto result) {
            if (gen != m_generation || !m_window)
                return;
            const auto &[failed, current] = result;
            if (failed.empty() || !current) {
                showInvalid(error);
                return;
            }
            QStringList lines;
            for (const auto &[pointer, now] : failed)
                lines << tr("%1: opened %2, now %3").arg(q(pointer), exactText(testedValue(m_lastJsonPatch, pointer)), exactText(now));
            m_window->showPreconditionFailed(lines, m_window->openedYaml(), written, q(current->yaml), q(current->resourceVersion));
        });
    });
}

void ObjectEditor::showInvalid(const core::Error &e)
{
    if (e.causes.empty()) {
        m_window->showFailure(q(e.describe()));
        return;
    }
    QList<widgets::CauseRow> causes;
    for (const auto &c : e.causes)
        causes.push_back({q(c.field), q(c.reason), q(c.message)});
    m_window->showInvalid(q(e.message), causes);
}

// The two resolutions that change the buffer (https://kubernetes.io/docs/reference/using-api/server-side-apply/#conflicts): "Give the fields up" removes the
// fields, so the re-sent apply no longer claims them and their live values stay with their
// owners; "Co-own" sets them to the live values, so the apply shares them instead of conflicting.
void ObjectEditor::giveUp(const QStringList &paths, const widgets::WriteRequest &request)
{
    widgets::WriteRequest again = request;
    again.force = false;
    resolveRows(paths, {}, again);
}

void ObjectEditor::coOwn(const QStringList &paths, const widgets::WriteRequest &request)
{
    widgets::WriteRequest again = request;
    again.force = false;
    resolveRows({}, paths, again);
}

// Per-row choices in one re-send: given-up fields removed, co-owned ones set to the live value,
// and force only if some row chose it (the rows left conflicting are exactly those).
void ObjectEditor::resolveRows(const QStringList &giveUp, const QStringList &coOwn, const widgets::WriteRequest &request)
{
    m_givenUp += giveUp; // removed on purpose: not a deletion the apply failed to make
    m_coOwned += coOwn;  // equal to the live value now, so no longer a change: sent all the same
    const int gen = ++m_generation;
    m_window->setSending(request.dryRun);
    auto paths = [](const QStringList &l) {
        std::vector<std::string> out;
        for (const QString &p : l)
            out.push_back(p.toStdString());
        return out;
    };
    inBackground(this, [text = request.text.toStdString(), live = m_current, g = paths(giveUp), c = paths(coOwn)]() -> core::Result<std::string> {
        auto parsed = core::yamlToJson(text);
        if (!parsed)
            return parsed.error();
        std::vector<std::string> notFound;
        core::Json out = core::withoutFieldPaths(parsed->value, live, g, &notFound);
        out = core::withLiveValuesAt(out, live, c, &notFound);
        if (!notFound.empty())
            return core::Error::make(core::ErrorCategory::Invalid, "not in the buffer: " + notFound.front());
        return core::jsonToYaml(out);
    }, [this, request, gen](core::Result<std::string> yaml) {
        if (gen != m_generation || !m_window)
            return;
        if (!yaml) {
            m_window->showParseError(q(yaml.error().where), q(yaml.error().message));
            return;
        }
        widgets::WriteRequest again = request; // keeps request.force: the rows that chose Force
        again.text = q(*yaml);
        m_window->setBufferText(again.text);
        write(again);
    });
}


// An earlier run's unsent edit of this object is offered, unless it is what is there anyway.
void ObjectEditor::offerDraft(const std::string &loadedYaml)
{
    if (!m_drafts)
        return;
    // The keeper outlives this object when the window is detached: guard `this`.
    m_drafts->loadThen([self = QPointer<ObjectEditor>(this), loadedYaml](std::optional<core::EditDraft> draft) {
        if (!self)
            return;
        self->onDraftLoaded(loadedYaml, std::move(draft));
    });
}

void ObjectEditor::onDraftLoaded(const std::string &loadedYaml, std::optional<core::EditDraft> draft)
{
    if (!m_window || !m_drafts)
        return;
    if (!draft || draft->text == loadedYaml) {
        if (draft)
            m_drafts->discard();
        m_drafts->arm();
        return;
    }
    m_draft = std::move(*draft);
    m_window->offerDraft(QLocale().toString(QDateTime::fromMSecsSinceEpoch(m_draft.savedAtMs), QLocale::ShortFormat),
                         q(m_draft.openedResourceVersion));
}

// The edit comes back with the version it was made on, so every write mode judges it against
// that version (and the banner says what changed since), never against a newer one.
void ObjectEditor::restoreDraft()
{
    const int gen = ++m_generation;
    inBackground(this, [opened = m_draft.openedYaml] { return core::yamlToJson(opened); },
                 [this, gen](core::Result<core::YamlParseResult> opened) {
        if (gen != m_generation || !m_window)
            return;
        if (!opened) {
            m_window->showParseError(q(opened.error().where), tr("the kept draft's base version does not parse: %1").arg(q(opened.error().message)));
            return;
        }
        m_opened = std::move(opened->value);
        m_openedRv = m_draft.openedResourceVersion;
        m_window->restoreDraft(q(m_draft.openedYaml), q(m_openedRv), q(m_draft.text));
        if (m_drafts)
            m_drafts->arm();
    });
}

// The next writes are based on what is there now, read afresh (the banner's Rebase comes
// without a refusal before it); the buffer is left for the user to reconcile.
// A stale write: the user's changes (opened -> buffer) on top of what is there now (m_current, read
// when the write was refused). Nothing is sent; the buffer shows the result, based on the current
// version, and fields both sides changed wait for the user's choice.
void ObjectEditor::mergeOntoCurrent()
{
    if (m_current.is_null())
        return;
    struct Merged {
        core::ThreeWayMerge merge;
        Version now;
        std::string mergedYaml; // when nothing conflicts: the buffer's next text
    };
    const int gen = ++m_generation;
    inBackground(this, [opened = m_opened, text = m_window->bufferText().toStdString(), current = m_current, noStatus = withoutStatus()]()
                     -> core::Result<Merged> {
        auto mine = core::yamlToJson(text);
        if (!mine)
            return mine.error();
        auto now = versionOf(core::toJsonText(current), noStatus);
        if (!now)
            return now.error();
        auto merged = core::threeWayMerge(opened, mine->value, now->editable);
        if (!merged)
            return merged.error();
        std::string yaml = merged->conflicts.empty() ? core::jsonToYaml(merged->merged) : std::string();
        return Merged{std::move(*merged), std::move(*now), std::move(yaml)};
    }, [this, gen](core::Result<Merged> r) {
        if (gen != m_generation || !m_window)
            return;
        if (!r) {
            m_window->showParseError(q(r.error().where), q(r.error().message));
            return;
        }
        auto &[merge, now, mergedYaml] = *r;
        // From here on writes are based on the current version: the merge is the new edit.
        m_opened = std::move(now.editable);
        m_openedRv = now.resourceVersion;
        m_live = now.live;
        m_window->setOpened(q(now.yaml), q(m_openedRv));
        m_merge = std::move(merge);
        if (m_merge.conflicts.empty()) {
            m_window->showMerged(q(mergedYaml), m_merge.mineApplied, q(m_openedRv));
            return;
        }
        QList<QStringList> rows;
        for (const core::MergeConflict &c : m_merge.conflicts)
            rows << QStringList{q(c.pointer), exactText(c.base), exactText(c.mine), exactText(c.theirs)};
        m_window->showMergeConflicts(rows);
    });
}

void ObjectEditor::useMergeChoices(const QStringList &keepMine)
{
    std::map<std::string, core::MergeChoice> choices;
    for (const core::MergeConflict &c : m_merge.conflicts)
        choices[c.pointer] = keepMine.contains(q(c.pointer)) ? core::MergeChoice::Mine : core::MergeChoice::Theirs;
    const int gen = ++m_generation;
    inBackground(this, [merge = m_merge, choices] { return core::jsonToYaml(core::resolveMerge(merge, choices)); },
                 [this, gen](const std::string &yaml) {
        if (gen == m_generation && m_window)
            m_window->showMerged(q(yaml), m_merge.mineApplied, q(m_openedRv));
    });
}

void ObjectEditor::rebase()
{
    fetchCurrent([this](core::Result<core::Json> live) {
        if (!live) {
            m_window->showFailure(tr("reading the current object failed: %1").arg(q(live.error().describe())));
            return;
        }
        m_current = m_live = std::move(*live);
        const int gen = ++m_generation;
        inBackground(this, [current = m_current, noStatus = withoutStatus()] {
            return versionOf(core::toJsonText(current), noStatus);
        }, [this, gen](core::Result<Version> v) {
            if (gen != m_generation || !m_window || !v)
                return;
            m_opened = std::move(v->editable);
            m_openedRv = v->resourceVersion;
            m_window->setOpened(q(v->yaml), q(m_openedRv));
            m_window->showRebased();
        });
    });
}

// A refused write is explained against what is there now; if that cannot be read either, both
// failures are said.
void ObjectEditor::fetchCurrentAfter(const core::Error &refusal, std::function<void(const core::Json &)> explain)
{
    fetchCurrent([this, refusal, explain = std::move(explain)](core::Result<core::Json> live) {
        if (!live) {
            m_window->showFailure(tr("%1; reading the current object failed too: %2").arg(q(refusal.describe()), q(live.error().describe())));
            return;
        }
        m_current = m_live = *live;
        explain(m_current);
    });
}

void ObjectEditor::fetchCurrent(std::function<void(core::Result<core::Json>)> done)
{
    const int gen = m_generation;
    m_client->send(kube::getRequest(m_resource, m_namespace, m_name), this,
                   [this, gen, done = std::move(done)](core::Result<kube::HttpResponse> r) {
        if (gen != m_generation || !m_window)
            return;
        if (!r) {
            done(r.error());
            return;
        }
        inBackground(this, [body = std::move(r->body)] { return core::parseJson(body); },
                     [this, gen, done](core::Result<core::Json> object) {
            if (gen == m_generation && m_window)
                done(std::move(object));
        });
    });
}

} // namespace fieldscope::app
