#include "app/gui/objecteditor.h"

#include "core/base/boundary.h"
#include "core/base/jsonread.h"
#include "core/edit/fieldnotes.h"
#include "core/yaml/yaml.h"
#include "kube/requestcommands.h"
#include "kube/writes.h"

#include <QClipboard>
#include <QDateTime>
#include <QFutureWatcher>
#include <QGuiApplication>
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
    QObject::connect(watcher, &QFutureWatcherBase::finished, context,
                     [watcher, context, done = std::move(done)]() mutable {
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

QString q(const std::string &s)
{
    return QString::fromStdString(s);
}

QStringList qList(const std::vector<std::string> &list)
{
    QStringList out;
    for (const auto &s : list)
        out << q(s);
    return out;
}

std::vector<std::string> stdList(const QStringList &list)
{
    std::vector<std::string> out;
    for (const QString &s : list)
        out.push_back(s.toStdString());
    return out;
}

QString valuePreview(const std::optional<core::Json> &value)
{
    return value ? q(core::jsonPreview(*value, 120)) : QObject::tr("(not set)");
}

// JSON text, because a `test` compares as JSON: "1" (a string) is not 1 (RFC 6902 section 4.6).
QString exactText(const std::optional<core::Json> &value)
{
    if (!value)
        return QObject::tr("(not set)");
    QString text = q(core::toJsonText(*value));
    return text.size() > 120 ? text.left(119) + QChar(0x2026) : text;
}

// How the 409 names the owner: Apply managers have no apiVersion in managedFields.
QString ownerLabel(const core::FieldConflict &c)
{
    QString label = q(c.manager);
    label += c.apiVersion.empty() ? QObject::tr(" (Apply)") : QObject::tr(" (Update, %1)").arg(q(c.apiVersion));
    if (!c.subresource.empty())
        label += QObject::tr(" via /%1").arg(q(c.subresource));
    return label;
}

QString shapeText(core::ShapeProblem problem)
{
    switch (problem) {
    case core::ShapeProblem::None: break;
    case core::ShapeProblem::NotAnObject: return QObject::tr("the YAML is not an object (a mapping of fields)");
    case core::ShapeProblem::NoName: return QObject::tr("metadata.name is missing");
    }
    return {};
}

} // namespace

ObjectEditor::ObjectEditor(kube::ApiClient *client, kube::ResourceInfo resource, QByteArray objectJson,
                           widgets::EditorWindow *window, const QString &fieldManager, DraftKeeper *drafts)
    : QObject(window)
    , m_client(client)
    , m_resource(std::move(resource))
    , m_window(window)
    ,
    // Types with a status subresource ignore .status in writes to the object, so the editable
    // text leaves it out; for the others status is ordinary data.
    m_session(m_resource.hasSubresource("status"))
    , m_drafts(drafts)
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
    inBackground(
        this,
        [objectJson = std::move(objectJson), noStatus = m_session.withoutStatus()] {
            return core::EditSession::parseVersion(std::string_view(objectJson.constData(),
                                                                    std::size_t(objectJson.size())),
                                                   noStatus);
        },
        [this, fieldManager](core::Result<core::EditVersion> v) {
            if (!v) {
                m_window->showFailure(tr("the object could not be read: %1").arg(q(v.error().describe())));
                return;
            }
            m_namespace = v->namespace_;
            m_name = v->name;
            const std::string yaml = v->yaml;
            m_session.open(std::move(*v));
            m_window->load(q(yaml), q(m_session.openedResourceVersion()), fieldManager);
            offerDraft(yaml);
            checkWriteAccess();
        });
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
    m_window->showPreview(copied, {tr("Copied to the clipboard. No token is in the text: curl reads it from $%1.")
                                       .arg(QLatin1String(kube::kTokenVariable))});
}

// Everything up to the request, the same for Write, Dry run and Preview: parse the buffer, pick
// the body for the mode (core::EditSession::planWrite), build the request; then send it, or show it.
void ObjectEditor::prepare(const widgets::WriteRequest &request, bool sendIt)
{
    const int gen = ++m_generation;
    if (sendIt)
        m_window->setSending(request.dryRun);
    struct Prepared {
        std::vector<std::string> warnings;
        core::ShapeProblem problem = core::ShapeProblem::None;
        core::WritePlan plan;
    };
    inBackground(
        this,
        [text = request.text.toStdString(), base = m_session.writeBase(), request]() -> core::Result<Prepared> {
            auto parsed = core::yamlToJson(text);
            if (!parsed) // nothing is sent
                return parsed.error();
            Prepared out{std::move(parsed->warnings), core::EditSession::shapeProblem(parsed->value), {}};
            if (out.problem != core::ShapeProblem::None)
                return out;
            auto plan = core::EditSession::planWrite(base, request.mode, std::move(parsed->value), request.force,
                                                     fieldManagerOf(request));
            if (!plan)
                return plan.error();
            out.plan = std::move(*plan);
            return out;
        },
        [this, request, gen, sendIt](core::Result<Prepared> prepared) {
            if (gen != m_generation || !m_window)
                return;
            if (!prepared) {
                m_window->showParseError(q(prepared.error().where), q(prepared.error().message));
                return;
            }
            m_yamlWarnings = qList(prepared->warnings);
            if (prepared->problem != core::ShapeProblem::None) {
                m_window->showParseError({}, shapeText(prepared->problem));
                return;
            }
            finish(request, std::move(prepared->plan), sendIt);
        });
}

std::string ObjectEditor::fieldManagerOf(const widgets::WriteRequest &request)
{
    return request.fieldManager.isEmpty() ? std::string("fieldscope") : request.fieldManager.toStdString();
}

kube::HttpRequest ObjectEditor::requestFor(const core::WritePlan &plan, const std::string &manager, bool dryRun) const
{
    kube::WriteOptions o;
    o.fieldManager = manager;
    o.dryRun = dryRun;
    switch (plan.mode) {
    case core::WriteMode::Apply: o.force = plan.force; return kube::applyRequest(m_resource, m_namespace, plan.body, o);
    case core::WriteMode::Replace: return kube::replaceRequest(m_resource, m_namespace, plan.body, o);
    case core::WriteMode::MergePatch:
        return kube::patchRequest(m_resource, m_namespace, m_name, kube::PatchType::Merge, plan.body, o);
    case core::WriteMode::JsonPatch: break;
    }
    return kube::patchRequest(m_resource, m_namespace, m_name, kube::PatchType::Json, plan.body, o);
}

void ObjectEditor::finish(const widgets::WriteRequest &request, core::WritePlan plan, bool sendIt)
{
    if (plan.sendsNothing()) {
        m_window->showFailure(tr("nothing to send: the buffer has no changes since resourceVersion %1")
                                  .arg(q(m_session.openedResourceVersion())));
        return;
    }
    m_session.notePlanned(plan, sendIt);
    kube::HttpRequest req = requestFor(plan, fieldManagerOf(request), request.dryRun);
    if (!sendIt) {
        if (m_copyAs != CopyAs::None)
            copyCommand(request, req);
        else
            showRequest(req);
        return;
    }
    const int gen = m_generation;
    m_client->send(std::move(req), this,
                   [this, request, gen, sent = std::move(plan.body)](core::Result<kube::HttpResponse> r) {
                       if (gen == m_generation && m_window)
                           onWritten(request, sent, std::move(r));
                   });
}

// The request as the wire carries it (the body pretty-printed), for a user or a lesson to read
// before anything is sent.
void ObjectEditor::showRequest(const kube::HttpRequest &req)
{
    const int gen = m_generation;
    QStringList notes;
    if (!m_session.notRemovable().empty())
        notes << tr("An apply cannot remove these fields you deleted (your manager does not own them): %1")
                     .arg(qList(m_session.notRemovable()).join(QStringLiteral(", ")));
    inBackground(
        this,
        [req] {
            auto body = core::parseJson(req.body);
            return QString::fromStdString(req.method + ' ' + req.path + "\nContent-Type: " + req.contentType + "\n\n"
                                          + (body ? core::safeDump(*body, 2) : req.body));
        },
        [this, gen, notes](const QString &text) {
            if (gen == m_generation && m_window)
                m_window->showPreview(text, notes);
        });
}

void ObjectEditor::onWritten(const widgets::WriteRequest &request, const core::Json &sent,
                             core::Result<kube::HttpResponse> result)
{
    if (result) {
        onSuccess(request.dryRun, fieldManagerOf(request), std::move(*result));
        return;
    }
    const core::Error &e = result.error();
    std::vector<std::string> named = e.warnings;
    named.push_back(e.message); // a Strict refusal names the unknown field in its message
    noteLines(named, e.causes);
    switch (core::EditSession::refusalOf(e, request.mode)) {
    case core::Refusal::FieldConflicts: return showConflicts(e, sent);
    case core::Refusal::StaleWrite: return showStale(e, request.text);
    case core::Refusal::FailedTests: return showFailedTests(e, request.text);
    case core::Refusal::Invalid: return showInvalid(e);
    case core::Refusal::Forbidden:
        m_window->setReadOnly(
            tr("Read-only: the server refused this write (403): %1. You can still preview the request and "
               "copy it for someone who may write.")
                .arg(q(e.message)));
        break;
    case core::Refusal::Other: break;
    }
    m_window->showFailure(q(e.describe()));
}

// Asks the server whether these credentials may update or patch the object
// (SelfSubjectAccessReview): if neither, the window says so before anyone types.
void ObjectEditor::checkWriteAccess()
{
    auto answers = std::make_shared<std::vector<bool>>();
    for (const char *verb : {"update", "patch"}) {
        const core::Json review{{"apiVersion", "authorization.k8s.io/v1"},
                                {"kind", "SelfSubjectAccessReview"},
                                {"spec",
                                 {{"resourceAttributes",
                                   {{"namespace", m_namespace},
                                    {"verb", verb},
                                    {"group", m_resource.group},
                                    {"resource", m_resource.resource},
                                    {"name", m_name}}}}}};
        kube::HttpRequest req;
        req.method = "POST";
        req.path = "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews";
        req.contentType = "application/json";
        req.body = core::toJsonText(review);
        m_client->send(
            std::move(req), this, [this, answers, verb = std::string(verb)](core::Result<kube::HttpResponse> r) {
                // An answer we cannot read counts as allowed: the write itself will tell (a 403 also sets the banner).
                bool allowed = true;
                if (r)
                    if (auto body = core::parseJson(r->body); body)
                        allowed = core::booleanAt(*body, "/status/allowed").value_or(true);
                answers->push_back(allowed);
                if (answers->size() == 2 && !(*answers)[0] && !(*answers)[1] && m_window)
                    m_window->setReadOnly(
                        tr("Read-only: your credentials may neither update nor patch %1 in %2 (RBAC). You can still "
                           "preview the request and copy it for someone who may write.")
                            .arg(q(m_resource.qualifiedName()),
                                 m_namespace.empty() ? tr("the cluster") : q(m_namespace)));
            });
    }
}

void ObjectEditor::onSuccess(bool dryRun, const std::string &manager, kube::HttpResponse response)
{
    QStringList warnings = m_yamlWarnings;
    for (const auto &w : response.warnings)
        warnings << q(w);
    std::vector<std::string> serverWarnings = response.warnings;
    if (!m_session.notRemovable().empty())
        warnings << tr("You deleted fields your manager does not own; an apply cannot remove them, so they are still "
                       "there: %1. Use Merge patch or JSON Patch to delete them.")
                        .arg(qList(m_session.notRemovable()).join(QStringLiteral(", ")));
    const int gen = m_generation;
    // What the write does to the manager's ownership (managedFields before and after) and to the
    // object: for a dry run the answer is the object as it would be, so this is the preview.
    struct Answer {
        core::EditVersion version;
        core::WriteSummary summary;
    };
    inBackground(
        this,
        [body = std::move(response.body), noStatus = m_session.withoutStatus(), before = m_session.live(),
         manager]() -> core::Result<Answer> {
            auto v = core::EditSession::parseVersion(body, noStatus);
            if (!v)
                return v.error();
            core::WriteSummary summary = core::EditSession::summarizeWrite(before, v->live, manager);
            return Answer{std::move(*v), std::move(summary)};
        },
        [this, dryRun, warnings, serverWarnings, gen](core::Result<Answer> answer) {
            if (gen != m_generation || !m_window)
                return;
            if (!answer) { // written, but the answer is unreadable: say so rather than guess a version
                m_window->showWritten(dryRun, tr("(unreadable answer: %1)").arg(q(answer.error().describe())),
                                      warnings);
                return;
            }
            const QString rv = q(answer->version.resourceVersion);
            if (!dryRun) { // later writes build on what was written
                const QString yaml = q(answer->version.yaml);
                m_session.noteWritten(std::move(answer->version));
                m_window->setOpened(yaml, rv);
            }
            m_window->showWritten(dryRun, rv, warnings, qList(answer->summary.ownership),
                                  qList(answer->summary.changes));
            noteLines(serverWarnings); // a field the server dropped: on the line it was in, else its parent's
        });
}

void ObjectEditor::showBackgroundFailure(const QString &why)
{
    if (m_window)
        m_window->showFailure(tr("this step failed: %1").arg(why));
}

// The 409 names fields and owners only: the live values come from a fresh GET.
void ObjectEditor::showConflicts(const core::Error &error, const core::Json &sent)
{
    fetchCurrent([this, error, sent](core::Result<core::Json> live) {
        QString message = q(error.message);
        core::Json liveObject;
        if (live) {
            liveObject = *live;
            m_session.noteCurrent(std::move(*live));
        } else {
            message += tr("\n(The live values could not be read: %1)").arg(q(live.error().describe()));
        }
        const int gen = m_generation;
        inBackground(
            this, [error, sent, liveObject] { return core::EditSession::conflictRows(error, sent, liveObject); },
            [this, message, gen](const std::vector<core::ConflictEntry> &entries) {
                if (gen != m_generation || !m_window)
                    return;
                QList<widgets::ConflictRow> rows;
                for (const core::ConflictEntry &e : entries)
                    rows.push_back({q(e.conflict.path), ownerLabel(e.conflict), valuePreview(e.live),
                                    valuePreview(e.mine)});
                m_window->showConflicts(message, rows);
            });
    });
}

void ObjectEditor::takeVersion(const core::Json &live, const std::function<void(core::EditVersion)> &done)
{
    const int gen = m_generation;
    inBackground(
        this, [live, noStatus = m_session.withoutStatus()] { return core::EditSession::readVersion(live, noStatus); },
        [this, gen, done](core::Result<core::EditVersion> v) {
            if (gen == m_generation && m_window && v)
                done(std::move(*v));
        });
}

void ObjectEditor::showStale(const core::Error &error, const QString &written)
{
    fetchCurrentAfter(error, [this, error, written](const core::Json &live) {
        takeVersion(live, [this, error, written](const core::EditVersion &current) {
            m_window->showStale(q(error.message), m_window->openedYaml(), written, q(current.yaml),
                                q(current.resourceVersion));
        });
    });
}

// Which fields moved is found by testing the patch against the object as it is now. None
// moved: the 422 had another reason.
void ObjectEditor::showFailedTests(const core::Error &error, const QString &written)
{
    fetchCurrentAfter(error, [this, error, written](const core::Json &live) {
        const int gen = m_generation;
        inBackground(
            this,
            [current = live, patch = m_session.lastJsonPatch(), noStatus = m_session.withoutStatus()] {
                auto failed = core::EditSession::failedTests(patch, current, noStatus);
                return std::make_pair(std::move(failed), core::EditSession::readVersion(current, noStatus));
            },
            [this, error, written, gen](auto result) {
                if (gen != m_generation || !m_window)
                    return;
                const auto &[failed, current] = result;
                if (failed.empty() || !current) {
                    showInvalid(error);
                    return;
                }
                QStringList lines;
                for (const core::FailedTest &t : failed)
                    lines << tr("%1: opened %2, now %3").arg(q(t.pointer), exactText(t.opened), exactText(t.now));
                m_window->showPreconditionFailed(lines, m_window->openedYaml(), written, q(current->yaml),
                                                 q(current->resourceVersion));
            });
    });
}

// The server's words on the lines they name. Reading the YAML for its line map is the buffer's
// size in work (up to megabytes): done on the pool, from a copy of the buffer taken now. Should
// the user have typed by the time it is done, the lines may have moved: read again.
void ObjectEditor::noteLines(const std::vector<std::string> &messages, const std::vector<core::StatusCause> &causes)
{
    if (!m_window)
        return;
    std::vector<std::pair<std::string, std::string>> fieldMessages;
    fieldMessages.reserve(causes.size());
    for (const core::StatusCause &c : causes)
        fieldMessages.emplace_back(c.field, c.field + ": " + c.message);
    const int gen = m_generation;
    const QString text = m_window->bufferText();
    inBackground(
        this,
        [text, messages, fieldMessages] {
            QList<QPair<int, QString>> rows;
            for (const core::LineNote &n : core::lineNotes(text.toStdString(), messages, fieldMessages))
                rows.append({n.line, q(n.message)});
            return rows;
        },
        [this, gen, text, messages, causes](const QList<QPair<int, QString>> &rows) {
            if (gen != m_generation || !m_window)
                return; // another write started: its own answer will be noted
            if (m_window->bufferText() != text)
                return noteLines(messages, causes);
            m_window->showLineNotes(rows);
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

// The two resolutions that change the buffer: "Give the fields up" removes the fields, so the
// re-sent apply no longer claims them and their live values stay with their owners; "Co-own" sets
// them to the live values, so the apply shares them instead of conflicting. Neither forces.
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

// Per-row choices in one re-send (core::EditSession::planResolution made them): given-up fields
// removed, co-owned ones set to the live value, and request.force if some row chose Force.
void ObjectEditor::resolveRows(const QStringList &giveUp, const QStringList &coOwn,
                               const widgets::WriteRequest &request)
{
    const core::ResolutionPlan plan{stdList(giveUp), stdList(coOwn), request.force};
    m_session.noteResolution(plan);
    const int gen = ++m_generation;
    m_window->setSending(request.dryRun);
    inBackground(
        this,
        [text = request.text.toStdString(), live = m_session.current(), plan] {
            return core::EditSession::resolvedBuffer(text, live, plan);
        },
        [this, request, gen](core::Result<std::string> yaml) {
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
    inBackground(
        this, [opened = m_draft.openedYaml] { return core::yamlToJson(opened); },
        [this, gen](core::Result<core::YamlParseResult> opened) {
            if (gen != m_generation || !m_window)
                return;
            if (!opened) {
                m_window->showParseError(q(opened.error().where), tr("the kept draft's base version does not parse: %1")
                                                                      .arg(q(opened.error().message)));
                return;
            }
            m_session.restoreBase(std::move(opened->value), m_draft.openedResourceVersion);
            m_window->restoreDraft(q(m_draft.openedYaml), q(m_draft.openedResourceVersion), q(m_draft.text));
            if (m_drafts)
                m_drafts->arm();
        });
}

// A stale write: the user's changes (opened -> buffer) on top of what is there now (read when the
// write was refused). Nothing is sent; the buffer shows the result, based on the current version,
// and fields both sides changed wait for the user's choice.
void ObjectEditor::mergeOntoCurrent()
{
    if (m_session.current().is_null())
        return;
    const int gen = ++m_generation;
    inBackground(
        this,
        [opened = m_session.opened(), text = m_window->bufferText().toStdString(), current = m_session.current(),
         noStatus = m_session.withoutStatus()] {
            return core::EditSession::mergeOntoCurrent(opened, text, current, noStatus);
        },
        [this, gen](core::Result<core::MergeOnto> r) {
            if (gen != m_generation || !m_window)
                return;
            if (!r) {
                m_window->showParseError(q(r.error().where), q(r.error().message));
                return;
            }
            // From here on writes are based on the current version: the merge is the new edit.
            const QString nowYaml = q(r->now.yaml), mergedYaml = q(r->mergedYaml);
            m_session.takeMerge(std::move(*r));
            const QString rv = q(m_session.openedResourceVersion());
            m_window->setOpened(nowYaml, rv);
            const core::ThreeWayMerge &merge = m_session.merge();
            if (merge.conflicts.empty()) {
                m_window->showMerged(mergedYaml, merge.mineApplied, rv);
                return;
            }
            QList<QStringList> rows;
            for (const core::MergeConflict &c : merge.conflicts)
                rows << QStringList{q(c.path.empty() ? c.pointer : c.path), exactText(c.base), exactText(c.mine),
                                    exactText(c.theirs), q(c.pointer)};
            m_window->showMergeConflicts(rows);
        });
}

void ObjectEditor::useMergeChoices(const QStringList &keepMine)
{
    const int gen = ++m_generation;
    inBackground(
        this,
        [merge = m_session.merge(), keep = stdList(keepMine)] {
            return core::EditSession::resolvedMergeYaml(merge, keep);
        },
        [this, gen](const std::string &yaml) {
            if (gen == m_generation && m_window)
                m_window->showMerged(q(yaml), m_session.merge().mineApplied, q(m_session.openedResourceVersion()));
        });
}

// The next writes are based on what is there now, read afresh (the banner's Rebase comes
// without a refusal before it); the buffer is left for the user to reconcile.
void ObjectEditor::rebase()
{
    fetchCurrent([this](core::Result<core::Json> live) {
        if (!live) {
            m_window->showFailure(tr("reading the current object failed: %1").arg(q(live.error().describe())));
            return;
        }
        m_session.noteCurrent(*live);
        ++m_generation;
        takeVersion(*live, [this](core::EditVersion v) {
            const QString yaml = q(v.yaml), rv = q(v.resourceVersion);
            m_session.rebaseOnto(std::move(v));
            m_window->setOpened(yaml, rv);
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
            m_window->showFailure(tr("%1; reading the current object failed too: %2")
                                      .arg(q(refusal.describe()), q(live.error().describe())));
            return;
        }
        m_session.noteCurrent(std::move(*live));
        explain(m_session.current());
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
                       inBackground(
                           this, [body = std::move(r->body)] { return core::parseJson(body); },
                           [this, gen, done](core::Result<core::Json> object) {
                               if (gen == m_generation && m_window)
                                   done(std::move(object));
                           });
                   });
}

} // namespace fieldscope::app
