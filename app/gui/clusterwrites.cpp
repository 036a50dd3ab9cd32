// The writes the cluster view starts outside the editor: File → New Object…,
// Object → Delete… and the Ownership tab's "Set only if unchanged…". Members of ClusterController,
// kept apart from its watch and table plumbing.
#include "app/gui/clustercontroller.h"
#include "app/services/settings.h"
#include "core/base/boundary.h"
#include "core/yaml/manifest.h"
#include "kube/writes.h"
#include "widgets/clusterview.h"
#include "widgets/newobjectwindow.h"
#include "widgets/plaintext.h"

#include <QFutureWatcher>
#include <QInputDialog>
#include <QMessageBox>
#include <QtConcurrent/QtConcurrentRun>

namespace fieldscope::app {

// File → New Object…: create semantics, one POST per object of the buffer, in order.
widgets::NewObjectWindow *ClusterController::openNewObject()
{
    if (!m_view || !m_client || !m_discovery)
        return nullptr;
    auto *window = new widgets::NewObjectWindow(m_contextName, m_view);
    window->setAttribute(Qt::WA_DeleteOnClose);
    connect(window, &widgets::NewObjectWindow::createRequested, this,
            [this, window = QPointer<widgets::NewObjectWindow>(window)](const QString &yaml, bool dryRun) {
                if (!window)
                    return;
                window->setBusy(true);
                auto parsing = QtConcurrent::run(&m_pool,
                                                 [text = yaml.toStdString()] { return core::manifestObjects(text); });
                auto *watcher = new QFutureWatcher<core::Result<core::ManifestObjects>>(this);
                connect(watcher, &QFutureWatcherBase::finished, this, [this, watcher, window, dryRun] {
                    watcher->deleteLater();
                    if (window)
                        createObjects(window, core::takeResult(watcher->future(), "reading the manifest"), dryRun);
                });
                watcher->setFuture(parsing);
            });
    window->show();
    return window;
}

void ClusterController::createObjects(const QPointer<widgets::NewObjectWindow> &window,
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
    const std::string contextNs = m_connection->config.namespace_.empty() ? std::string("default")
                                                                          : m_connection->config.namespace_;
    auto finishOne = [batch, window](int i, const QString &line, bool created) {
        batch->lines[i] = line;
        batch->allCreated = batch->allCreated && created;
        if (--batch->pending == 0 && window)
            window->showResults(batch->lines, batch->allCreated);
    };
    for (int i = 0; i < int(objects.size()); ++i) {
        const core::Json &object = objects[std::size_t(i)];
        const core::Json id = core::manifestIdentity(object);
        // manifestIdentity reads every field type-checked: a pasted `apiVersion: 1` is just unknown.
        const std::string apiVersion = id["apiVersion"].get<std::string>(), kind = id["kind"].get<std::string>();
        const kube::ResourceInfo *info = m_discovery->snapshot().findKind(apiVersion, kind);
        QString what = QString::fromStdString(kind + " " + id["name"].get<std::string>());
        if (!info || id["name"].get<std::string>().empty()) {
            finishOne(i,
                      tr("%1: not sent: %2")
                          .arg(what,
                               info ? tr("it has no metadata.name")
                               : !m_discovery->hasSnapshot()
                                   ? tr("the server's resource types are still being discovered; try again in a moment")
                                   : tr("the server has no %1 in %2")
                                         .arg(QString::fromStdString(kind), QString::fromStdString(apiVersion))),
                      false);
            continue;
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
        m_client->send(
            kube::createRequest(*info, ns, object, o), this,
            [finishOne, i, what, dryRun](core::Result<kube::HttpResponse> r) {
                if (r) {
                    finishOne(i, dryRun ? tr("%1: would be created (dry run)").arg(what) : tr("%1: created").arg(what),
                              true);
                } else if (r.error().reason == "AlreadyExists") {
                    finishOne(i, tr("%1: exists already; left as it is (edit it to change it)").arg(what), false);
                } else {
                    QString line = tr("%1: refused: %2").arg(what, QString::fromStdString(r.error().describe()));
                    for (const core::StatusCause &c : r.error().causes)
                        line += QStringLiteral("\n    ") + QString::fromStdString(c.field.empty() ? c.reason : c.field)
                              + QStringLiteral(": ") + QString::fromStdString(c.message);
                    finishOne(i, line, false);
                }
            });
    }
}

void ClusterController::askSetIfUnchanged(const QString &uid, const QString &pointer, const QString &currentJson)
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

void ClusterController::setIfUnchanged(const QString &uid, const QString &pointer, const core::Json &expected,
                                       const core::Json &value)
{
    const int row = uid.isEmpty() || !m_watcher || !m_client ? -1 : m_model.rowOf(uid.toStdString());
    if (row < 0)
        return;
    const kube::ResourceInfo info = m_watcher->scope().resource;
    const auto &object = m_model.row(row);
    kube::WriteOptions o;
    o.fieldManager = Settings::fieldManager().toStdString();
    const std::string p = pointer.toStdString();
    m_client->send(kube::patchRequest(info, std::string(object.namespace_()), std::string(object.name()),
                                      kube::PatchType::Json, kube::compareAndSwapPatch(p, expected, value), o),
                   this, [this, pointer, expected, value](core::Result<kube::HttpResponse> r) {
                       QString message;
                       if (r)
                           message = tr("%1 is now %2.").arg(pointer, QString::fromStdString(core::toJsonText(value)));
                       else if (r.error().category == core::ErrorCategory::Invalid)
                           message =
                               tr("Not written: %1 is no longer %2 (someone changed it); nothing else was touched.")
                                   .arg(pointer, QString::fromStdString(core::toJsonText(expected)));
                       else
                           message = tr("Not written: %1").arg(QString::fromStdString(r.error().describe()));
                       if (m_view)
                           m_view->setWatchStatus(message, false);
                       Q_EMIT setIfUnchangedFinished(r.ok(), message);
                   });
}

// Deletes exactly the object the user sees: preconditions on its uid (never a re-created object
// of the same name) and resourceVersion (never a version the user has not seen).
void ClusterController::deleteObject(const QString &uid, bool ask)
{
    const int row = uid.isEmpty() || !m_watcher || !m_client ? -1 : m_model.rowOf(uid.toStdString());
    if (row < 0)
        return;
    const kube::ResourceInfo info = m_watcher->scope().resource;
    const auto &object = m_model.row(row);
    const QString what = QString::fromStdString(info.kind) + u' '
                       + (object.namespace_().empty() ? QString() : models::viewText(object.namespace_()) + u'/')
                       + models::viewText(object.name());
    // The identity as seen now: the row may change or go while the question is open.
    const kube::DeletePreconditions pre{std::string(object.uid()), std::string(object.resourceVersion())};
    auto send = [this, info, pre, ns = std::string(object.namespace_()), name = std::string(object.name()), what] {
        m_client->send(
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
    if (!ask) {
        send();
        return;
    }
    auto *box = new QMessageBox(
        QMessageBox::Warning, widgets::windowTitleText(tr("Delete %1?").arg(what)),
        tr("Delete %1 at resourceVersion %2 on %3?\n\nOnly this object as you see it is deleted: if it changed "
           "or was re-created meanwhile, the server refuses.")
            .arg(what, models::viewText(object.resourceVersion()), m_contextName),
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
