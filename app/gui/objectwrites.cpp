#include "app/gui/objectwrites.h"

#include "app/gui/clusterrecording.h"
#include "app/gui/clustersession.h"
#include "app/gui/draftkeeper.h"
#include "app/gui/objecteditor.h"
#include "app/gui/tablefeed.h"
#include "app/services/settings.h"
#include "core/base/boundary.h"
#include "kube/writes.h"
#include "widgets/clusterview.h"
#include "widgets/plaintext.h"

#include <QFutureWatcher>
#include <QInputDialog>
#include <QMessageBox>
#include <QStandardPaths>
#include <QtConcurrent/QtConcurrentRun>

namespace fieldscope::app {

ObjectWrites::ObjectWrites(widgets::ClusterView *view, const ClusterSession &session, const TableFeed &table,
                           const ClusterRecording &recording, QThreadPool *parsePool)
    : m_view(view), m_session(session), m_table(table), m_recording(recording), m_parsePool(parsePool)
{
}

// --- editor windows -------------------------------------------------------------------------------

// One editor window per object, on the object as the table has it; the window's
// ObjectEditor writes through this connection's client with the shown kind's ResourceInfo.
void ObjectWrites::openEditor(const QString &uid)
{
    if (auto *open = m_editors.value(uid).data()) {
        open->show();
        open->raise();
        open->activateWindow();
        return;
    }
    const models::ObjectTableModel &rows = m_table.rows();
    const int row = uid.isEmpty() || !m_table.watcher() || !m_session.client() ? -1 : rows.rowOf(uid.toStdString());
    if (row < 0)
        return;
    const kube::ResourceInfo &info = m_table.watcher()->scope().resource;
    const auto &object = rows.row(row);
    const QString where = object.namespace_().empty() ? QString() : models::viewText(object.namespace_()) + u'/';
    auto *window = new widgets::EditorWindow(QString::fromStdString(info.kind) + u' ' + where
                                                 + models::viewText(object.name()),
                                             m_view);
    window->setAttribute(Qt::WA_DeleteOnClose);
    if (!m_drafts)
        m_drafts = std::make_shared<core::DraftStore>((QStandardPaths::writableLocation(QStandardPaths::AppDataLocation)
                                                       + QStringLiteral("/drafts"))
                                                          .toStdString());
    // A Secret's buffer holds its values: kept on disk only with the opt-in (README.md, Security).
    const bool secret = info.group.empty() && info.kind == "Secret";
    // Kept per cluster (a uid is unique within one); earlier versions' per-context drafts move over.
    auto *drafts = new DraftKeeper(window, m_drafts, m_session.clusterIdentity().toStdString(), uid.toStdString(),
                                   window->windowTitle().toStdString(), !secret || m_recording.recordsSecretValues(),
                                   m_session.contextName().toStdString());
    auto *editor = new ObjectEditor(m_session.client(), info, rows.objectJson(row), window, Settings::fieldManager(),
                                    drafts);
    editor->setConnectionConfig(m_session.connection()->config);
    // The version the table has now; later ones arrive through noteServerVersions().
    window->noteServerVersion(models::viewText(object.resourceVersion()), false);
    m_editors.insert(uid, window);
    window->show();
}

void ObjectWrites::openRevert(const widgets::RevertRequest &request)
{
    // The revert is planned against the live object, so it needs the object the table shows now.
    if (writableRow(request.uid) < 0) {
        QMessageBox::information(m_view, tr("Revert"),
                                 tr("The object of this version is not in the table now (deleted, or another "
                                    "kind or namespace is shown): there is no live object to put the fields "
                                    "back on."));
        return;
    }
    if (widgets::EditorWindow *open = m_editors.value(request.uid); open && !open->confirmDiscard())
        return;
    openEditor(request.uid);
    widgets::EditorWindow *window = m_editors.value(request.uid);
    if (auto *editor = window ? window->findChild<ObjectEditor *>(QString(), Qt::FindDirectChildrenOnly) : nullptr)
        editor->proposeRevert(request);
}

void ObjectWrites::noteServerVersions(const core::WatchBatch &batch)
{
    if (m_editors.isEmpty())
        return;
    for (const auto &e : batch.events)
        if (widgets::EditorWindow *editor = m_editors.value(QString::fromStdString(e.uid)))
            editor->noteServerVersion(QString::fromStdString(e.resourceVersion),
                                      e.type == core::WatchEventType::Deleted);
}

// Editors write through the session's client, so their ObjectEditors go with it. A window holding
// edits that were not written stays open, moved to the main window and detached, so closing a
// cluster's tab (or losing its connection) never throws a user's text away; the others close.
void ObjectWrites::closeEditors()
{
    QWidget *mainWindow = m_view ? m_view->window() : nullptr;
    const QString context = m_view ? m_view->contextName() : QString();
    for (const auto &editor : std::as_const(m_editors)) {
        widgets::EditorWindow *w = editor.data();
        if (!w)
            continue;
        qDeleteAll(w->findChildren<ObjectEditor *>(Qt::FindDirectChildrenOnly));
        if (!w->hasUnsentEdits() || !mainWindow || !mainWindow->isVisible()) {
            delete w;
            continue;
        }
        w->setParent(mainWindow, w->windowFlags()); // outlives the cluster's view
        w->detach(tr("The connection to %1 was closed: nothing can be written from this window. Your text is kept: "
                     "copy what you need, or open the object again and paste it.")
                      .arg(context));
        w->show();
    }
    m_editors.clear();
}

// --- File → New Object…: create semantics, one POST per object of the buffer, in order ----------

widgets::NewObjectWindow *ObjectWrites::openNewObject()
{
    if (!m_view || !m_session.client() || !m_session.discovery())
        return nullptr;
    auto *window = new widgets::NewObjectWindow(m_session.contextName(), m_view);
    window->setAttribute(Qt::WA_DeleteOnClose);
    connect(window, &widgets::NewObjectWindow::createRequested, this,
            [this, window = QPointer<widgets::NewObjectWindow>(window)](const QString &yaml, bool dryRun) {
                parseNewObjects(window, yaml, dryRun);
            });
    window->show();
    return window;
}

void ObjectWrites::parseNewObjects(const QPointer<widgets::NewObjectWindow> &window, const QString &yaml, bool dryRun)
{
    if (!window)
        return;
    window->setBusy(true);
    auto parsing = QtConcurrent::run(m_parsePool, [text = yaml.toStdString()] { return core::manifestObjects(text); });
    auto *watcher = new QFutureWatcher<core::Result<core::ManifestObjects>>(this);
    connect(watcher, &QFutureWatcherBase::finished, this, [this, watcher, window, dryRun] {
        watcher->deleteLater();
        if (window)
            createObjects(window, core::takeResult(watcher->future(), "reading the manifest"), dryRun);
    });
    watcher->setFuture(parsing);
}

void ObjectWrites::createObjects(const QPointer<widgets::NewObjectWindow> &window,
                                 const core::Result<core::ManifestObjects> &parsed, bool dryRun)
{
    if (!parsed) {
        window->showResults({tr("Nothing was sent: %1").arg(QString::fromStdString(parsed.error().describe()))}, false);
        return;
    }
    const auto &objects = parsed->objects;
    if (objects.empty()) {
        window->showResults({tr("Nothing was sent: the text holds no object.")}, false);
        return;
    }
    struct Batch {
        QStringList lines;
        int pending = 0;
        bool allCreated = true;
    };
    auto batch = std::make_shared<Batch>();
    batch->lines.resize(qsizetype(objects.size()));
    batch->pending = int(objects.size());
    const kube::ResolvedConfig &config = m_session.connection()->config;
    const std::string contextNs = config.namespace_.empty() ? std::string("default") : config.namespace_;
    for (int i = 0; i < int(objects.size()); ++i)
        createObject(objects[std::size_t(i)], contextNs, dryRun, [batch, window, i](const QString &line, bool created) {
            batch->lines[i] = line;
            batch->allCreated = batch->allCreated && created;
            if (--batch->pending == 0 && window)
                window->showResults(batch->lines, batch->allCreated);
        });
}

void ObjectWrites::createObject(const core::Json &object, const std::string &contextNs, bool dryRun,
                                const std::function<void(const QString &, bool)> &done)
{
    const core::Json id = core::manifestIdentity(object);
    // manifestIdentity reads every field type-checked: a pasted `apiVersion: 1` is just unknown.
    const std::string apiVersion = id["apiVersion"].get<std::string>(), kind = id["kind"].get<std::string>();
    const kube::Discovery &discovery = *m_session.discovery();
    const kube::ResourceInfo *info = discovery.snapshot().findKind(apiVersion, kind);
    QString what = QString::fromStdString(kind + " " + id["name"].get<std::string>());
    if (!info || id["name"].get<std::string>().empty()) {
        done(tr("%1: not sent: %2")
                 .arg(what, info ? tr("it has no metadata.name")
                            : !discovery.hasSnapshot()
                                ? tr("the server's resource types are still being discovered; try again in a moment")
                                : tr("the server has no %1 in %2")
                                      .arg(QString::fromStdString(kind), QString::fromStdString(apiVersion))),
             false);
        return;
    }
    const std::string ns = info->namespaced
                             ? (id.contains("namespace") ? id["namespace"].get<std::string>() : contextNs)
                             : std::string();
    if (info->namespaced)
        what = QStringLiteral("%1 %2/%3")
                   .arg(QString::fromStdString(kind), QString::fromStdString(ns),
                        QString::fromStdString(id["name"].get<std::string>()));
    kube::WriteOptions o;
    o.fieldManager = Settings::fieldManager().toStdString();
    o.dryRun = dryRun;
    m_session.client()->send(
        kube::createRequest(*info, ns, object, o), this, [done, what, dryRun](core::Result<kube::HttpResponse> r) {
            if (r) {
                done(dryRun ? tr("%1: would be created (dry run)").arg(what) : tr("%1: created").arg(what), true);
            } else if (r.error().reason == "AlreadyExists") {
                done(tr("%1: exists already; left as it is (edit it to change it)").arg(what), false);
            } else {
                QString line = tr("%1: refused: %2").arg(what, QString::fromStdString(r.error().describe()));
                for (const core::StatusCause &c : r.error().causes)
                    line += QStringLiteral("\n    ") + QString::fromStdString(c.field.empty() ? c.reason : c.field)
                          + QStringLiteral(": ") + QString::fromStdString(c.message);
                done(line, false);
            }
        });
}

// --- the Ownership tab's "Set only if unchanged…" -------------------------------------------------

void ObjectWrites::askSetIfUnchanged(const QString &uid, const QString &pointer, const QString &currentJson)
{
    auto expected = core::parseJson(currentJson.toStdString());
    if (!expected || !m_view)
        return;
    auto *dialog = new QInputDialog(m_view);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->setWindowTitle(tr("Set only if unchanged"));
    // The path and value are the server's: plain text (a label guesses HTML and would load an <img>).
    widgets::setPlainLabelText(dialog,
                               tr("Set %1 (now %2) to this value, only if it is still %2 when the server applies it:")
                                   .arg(pointer, currentJson));
    dialog->setTextValue(expected->is_string() ? QString::fromStdString(expected->get<std::string>()) : currentJson);
    connect(dialog, &QInputDialog::textValueSelected, this,
            [this, uid, pointer, expected = *expected](const QString &text) {
                // A string stays a string (ConfigMap data, labels); other values are read as JSON.
                core::Json value = text.toStdString();
                if (!expected.is_string())
                    if (auto parsed = core::parseJson(text.toStdString()); parsed)
                        value = *parsed;
                setIfUnchanged(uid, pointer, expected, value);
            });
    dialog->open();
}

int ObjectWrites::writableRow(const QString &uid) const
{
    return uid.isEmpty() || !m_table.watcher() || !m_session.client() ? -1 : m_table.rows().rowOf(uid.toStdString());
}

void ObjectWrites::setIfUnchanged(const QString &uid, const QString &pointer, const core::Json &expected,
                                  const core::Json &value, const std::vector<core::PointerPin> &pins)
{
    const int row = writableRow(uid);
    if (row < 0)
        return;
    const kube::ResourceInfo info = m_table.watcher()->scope().resource;
    const auto &object = m_table.rows().row(row);
    kube::WriteOptions o;
    o.fieldManager = Settings::fieldManager().toStdString();
    const std::string p = pointer.toStdString();
    m_session.client()->send(
        kube::patchRequest(info, std::string(object.namespace_()), std::string(object.name()), kube::PatchType::Json,
                           kube::compareAndSwapPatch(p, expected, value, pins), o),
        this, [this, pointer, expected, value](core::Result<kube::HttpResponse> r) {
            QString message;
            if (r)
                message = tr("%1 is now %2.").arg(pointer, QString::fromStdString(core::toJsonText(value)));
            else if (r.error().category == core::ErrorCategory::Invalid)
                message = tr("Not written: %1 is no longer %2 (someone changed it); nothing else was touched.")
                              .arg(pointer, QString::fromStdString(core::toJsonText(expected)));
            else
                message = tr("Not written: %1").arg(QString::fromStdString(r.error().describe()));
            if (m_view)
                m_view->setWatchStatus(message, false);
            Q_EMIT setIfUnchangedFinished(r.ok(), message);
        });
}

// --- Object → Delete… -----------------------------------------------------------------------------

// Deletes exactly the object the user sees: preconditions on its uid (never a re-created object
// of the same name) and resourceVersion (never a version the user has not seen).
void ObjectWrites::deleteObject(const QString &uid, bool ask)
{
    const int row = writableRow(uid);
    if (row < 0)
        return;
    const kube::ResourceInfo info = m_table.watcher()->scope().resource;
    const auto &object = m_table.rows().row(row);
    const QString what = QString::fromStdString(info.kind) + u' '
                       + (object.namespace_().empty() ? QString() : models::viewText(object.namespace_()) + u'/')
                       + models::viewText(object.name());
    // The identity as seen now: the row may change or go while the question is open.
    const kube::DeletePreconditions pre{std::string(object.uid()), std::string(object.resourceVersion())};
    auto send = [this, info, pre, ns = std::string(object.namespace_()), name = std::string(object.name()), what] {
        m_session.client()->send(
            kube::deleteRequest(info, ns, name, pre, kube::PropagationPolicy::Background), this,
            [this, what, rv = pre.resourceVersion](core::Result<kube::HttpResponse> r) {
                if (!m_view)
                    return;
                QString message;
                if (r)
                    message = tr("%1 deleted.").arg(what);
                else if (r.error().httpStatus == 409)
                    message =
                        tr("%1 was not deleted: it changed since you saw it (you saw resourceVersion %2). Look at it again, then "
                           "delete.")
                            .arg(what, QString::fromStdString(rv));
                else
                    message = tr("%1 was not deleted: %2").arg(what, QString::fromStdString(r.error().describe()));
                m_view->setWatchStatus(message, false);
                Q_EMIT deleteFinished(r.ok(), message);
            });
    };
    if (!ask)
        send();
    else
        askToDelete(what, models::viewText(object.resourceVersion()), send);
}

void ObjectWrites::askToDelete(const QString &what, const QString &resourceVersion, const std::function<void()> &send)
{
    auto *box = new QMessageBox(
        QMessageBox::Warning, widgets::windowTitleText(tr("Delete %1?").arg(what)),
        tr("Delete %1 at resourceVersion %2 on %3?\n\nOnly this object as you see it is deleted: if it changed "
           "or was re-created meanwhile, the server refuses.")
            .arg(what, resourceVersion, m_session.contextName()),
        QMessageBox::Cancel, m_view);
    box->setTextFormat(Qt::PlainText);
    box->addButton(tr("Delete"), QMessageBox::DestructiveRole);
    box->setAttribute(Qt::WA_DeleteOnClose);
    connect(box, &QMessageBox::finished, this, [box, send] {
        if (box->buttonRole(box->clickedButton()) == QMessageBox::DestructiveRole)
            send();
    });
    box->open();
}

} // namespace fieldscope::app
