#include "app/gui/historyfilecontroller.h"

#include "core/base/boundary.h"
#include "core/base/jsonread.h"
#include "core/base/visibletext.h"
#include "core/history/historyexport.h"
#include "core/history/historystore.h"
#include "kube/listdecoder.h"
#include "widgets/clusterview.h"
#include "widgets/detailpane.h"
#include "widgets/objecttablepage.h"

#include <QFileInfo>
#include <QtConcurrent/QtConcurrentRun>

namespace fieldscope::app {

namespace {

struct KindObjects {
    models::ResourceKind kind;
    std::string body; // a synthetic LIST body of the objects' last recorded states
    std::string apiVersion;
    std::map<std::string, std::string> deletedAt; // uid -> resourceVersion of its deletion
};

// The last recorded state of every object, grouped by resource kind. An object whose last stored
// row cannot be read (someone else wrote it) is left out and named in `unreadable`: the others open.
core::Status collectObjects(core::HistoryStore &store, std::map<QString, KindObjects> &byKind, QStringList &unreadable,
                            const std::atomic<bool> *abandoned)
{
    auto objects = store.allObjects();
    if (!objects)
        return objects.error();
    for (const auto &o : *objects) {
        // Queries per object: a tab closed meanwhile must not keep a pool thread (and, at exit,
        // the process) on a large store.
        if (abandoned && *abandoned)
            return core::Error::make(core::ErrorCategory::Io, "the history file was closed while it was read");
        auto newest = store.lastVersion(o.id);
        if (!newest)
            return newest.error();
        if (!*newest)
            continue;
        const core::VersionInfo &lastInfo = **newest;
        auto last = store.loadVersion(o.id, lastInfo.seq);
        if (!last) {
            if (last.error().category != core::ErrorCategory::Parse)
                return last.error();
            unreadable << QString::fromStdString(core::visibleEscapes(o.ref.displayName().substr(0, 253)) + ": "
                                                 + last.error().message);
            continue;
        }
        const std::string &av = o.ref.apiVersion;
        const auto slash = av.find('/');
        models::ResourceKind k{slash == std::string::npos ? QString() : QString::fromStdString(av.substr(0, slash)),
                               QString::fromStdString(slash == std::string::npos ? av : av.substr(slash + 1)),
                               QString::fromStdString(o.resource), QString::fromStdString(o.ref.kind),
                               !o.ref.namespace_.empty()};
        KindObjects &ko = byKind[k.qualifiedName()];
        if (ko.body.empty()) {
            ko.kind = k;
            ko.apiVersion = av;
            ko.body = "{\"items\":[";
        } else {
            ko.body += ',';
            ko.kind.namespaced = ko.kind.namespaced || k.namespaced;
        }
        ko.body += core::safeDump(*last);
        if (lastInfo.eventType == core::HistoryEventType::Deleted)
            ko.deletedAt[lastInfo.uid] = lastInfo.resourceVersion;
    }
    return core::success();
}

} // namespace

OpenedHistory openHistoryFile(const QString &file, const QString &scratchDir, const std::atomic<bool> *abandoned)
{
    OpenedHistory out;
    const bool isExport = file.endsWith(QLatin1String(".jsonl"));
    out.databasePath = isExport ? scratchDir + QStringLiteral("/import.db") : file;
    auto store = core::HistoryStore::open(out.databasePath.toStdString(), isExport
                                                                              ? core::HistoryStore::OpenMode::ReadWrite
                                                                              : core::HistoryStore::OpenMode::ReadOnly);
    if (!store) {
        out.error = QString::fromStdString(store.error().describe());
        return out;
    }
    if (isExport)
        if (auto imported = core::importJsonLines(file.toStdString(), **store); !imported) {
            out.error = QString::fromStdString(imported.error().describe());
            return out;
        }
    std::map<QString, KindObjects> byKind;
    if (auto st = collectObjects(**store, byKind, out.unreadable, abandoned); !st) {
        out.error = QString::fromStdString(st.error().describe());
        return out;
    }
    for (auto &[name, ko] : byKind) {
        ko.body += "]}";
        auto page = kube::decodeListPage(ko.body, ko.kind.kind.toStdString(), ko.apiVersion);
        if (!page) { // one kind's objects, not the whole store
            out.unreadable << QStringLiteral("%1: %2").arg(
                QString::fromStdString(core::visibleEscapes(name.toStdString().substr(0, 253))),
                QString::fromStdString(page.error().describe()));
            continue;
        }
        out.kinds.push_back(ko.kind);
        out.objects[name] = std::move(page->items);
        out.deletedAt[name] = std::move(ko.deletedAt);
    }
    return out;
}

HistoryFileController::HistoryFileController(widgets::ClusterView *view, QObject *parent)
    : QObject(parent), m_view(view)
{
    connect(&m_opening, &QFutureWatcher<OpenedHistory>::finished, this, [this] {
        auto opened = core::takeResult(m_opening.future(), "opening the history file");
        if (!opened) {
            OpenedHistory failed;
            failed.error = QString::fromStdString(opened.error().message);
            onOpened(std::move(failed));
            return;
        }
        onOpened(std::move(*opened));
    });
    connect(view, &widgets::ClusterView::resourceKindChosen, this, &HistoryFileController::showResource);
    view->setKindsModel(&m_kinds);
    view->detailPane()->setHistoryModel(&m_historyModel);
    connect(view->tablePage(), &widgets::ObjectTablePage::currentObjectChanged, this,
            &HistoryFileController::onCurrentObject);
}

HistoryFileController::~HistoryFileController()
{
    if (m_view) {
        m_view->setKindsModel(nullptr);
        m_view->detailPane()->setHistoryModel(nullptr);
        m_view->setObjectModel(nullptr, {}, false, {});
    }
    // Never waits for the read: it owns the scratch folder and its flag, and its result goes
    // with m_opening.
    *m_abandoned = true;
}

void HistoryFileController::open(const QString &file)
{
    m_file = file;
    // A shared store's URL is shown without its query and with any (refused) password hidden.
    const bool shared = core::isSharedHistoryLocation(file.toStdString());
    m_displayName = shared
                      ? QString::fromStdString(core::displayHistoryLocation(file.toStdString())).section(u'?', 0, 0)
                      : file;
    m_view->setConnecting(tr("Reading %1…").arg(shared ? m_displayName : QFileInfo(file).fileName()));
    m_opening.setFuture(QtConcurrent::run([file, scratch = m_scratch, abandoned = m_abandoned, probe = m_openProbe] {
        if (probe)
            probe();
        return openHistoryFile(file, scratch->path(), abandoned.get());
    }));
}

void HistoryFileController::onOpened(OpenedHistory opened)
{
    if (!opened.error.isEmpty()) {
        const QString msg = tr("Cannot open %1: %2").arg(m_displayName, opened.error);
        m_view->setConnectionError(msg);
        Q_EMIT failed(msg);
        return;
    }
    m_opened = std::move(opened);
    m_historySource.setDatabase(m_opened.databasePath);
    m_view->setRecordedHistory(core::isSharedHistoryLocation(m_file.toStdString()) ? m_displayName
                                                                                   : QFileInfo(m_file).fileName(),
                               m_displayName);
    m_kinds.setKinds(m_opened.kinds);
    for (const auto &[name, objects] : m_opened.objects)
        m_kinds.setCount(name, qint64(objects.size()));
    if (!m_opened.unreadable.isEmpty())
        m_view->setConnectionWarning(tr("%n recorded object(s) cannot be read and are left out (first: %1)", nullptr,
                                        int(m_opened.unreadable.size()))
                                         .arg(m_opened.unreadable.first().left(300)));
    showResource(m_wanted);
}

QString HistoryFileController::resolve(const QString &resource) const
{
    for (const auto &k : m_opened.kinds)
        if (resource.isEmpty() || k.qualifiedName() == resource || k.resource == resource
            || k.kind.compare(resource, Qt::CaseInsensitive) == 0)
            return k.qualifiedName();
    return {};
}

void HistoryFileController::showResource(const QString &resource)
{
    m_wanted = resource;
    if (m_opened.databasePath.isEmpty())
        return; // not read yet; shown when it is
    const QString name = resolve(resource);
    if (name.isEmpty()) {
        const QString msg = m_opened.kinds.empty() ? tr("%1 holds no recorded object").arg(m_displayName)
                                                   : tr("%1 holds no recorded %2").arg(m_file, resource);
        m_view->setWatchStatus(msg, false);
        Q_EMIT failed(msg);
        return;
    }
    m_shown = name;
    m_loaded = false;
    onCurrentObject({});
    m_model.clear();
    const auto &kind = *std::find_if(m_opened.kinds.begin(), m_opened.kinds.end(),
                                     [&](const auto &k) { return k.qualifiedName() == name; });
    m_view->setObjectModel(&m_model, kind.kind, kind.namespaced, name);
    m_view->setCurrentKind(name);
    core::WatchBatch batch;
    batch.events = m_opened.objects[name];
    batch.initialListComplete = true;
    // Row preparation is the same work as for a live list: off the GUI thread.
    auto *w = new QFutureWatcher<models::PreparedBatch>(this);
    connect(w, &QFutureWatcherBase::finished, this, [this, w, name] {
        w->deleteLater();
        if (name != m_shown)
            return; // another kind was chosen meanwhile
        auto prepared = core::takeResult(w->future(), "preparing the recorded objects");
        if (!prepared) {
            m_view->setWatchStatus(tr("%1: cannot show the recorded objects: %2")
                                       .arg(name, QString::fromStdString(prepared.error().message)),
                                   false);
            return;
        }
        m_model.applyPrepared(std::move(*prepared));
        const auto &deleted = m_opened.deletedAt[name];
        m_model.markDeleted(deleted);
        m_view->setWatchStatus(deleted.empty()
                                   ? tr("%1: %2 recorded objects (offline)").arg(name).arg(m_model.rowCount())
                                   : tr("%1: %2 recorded objects, %3 of them deleted (offline)")
                                         .arg(name)
                                         .arg(m_model.rowCount())
                                         .arg(deleted.size()),
                               false);
        m_loaded = true;
        Q_EMIT loaded();
    });
    w->setFuture(QtConcurrent::run([batch = std::move(batch)] { return models::ObjectTableModel::prepare(batch); }));
}

void HistoryFileController::onCurrentObject(const QString &uid)
{
    const int row = uid.isEmpty() ? -1 : m_model.rowOf(uid.toStdString());
    m_view->detailPane()->showObject(row < 0 ? QString() : uid, row < 0 ? QByteArray() : m_model.objectJson(row));
    if (row < 0) {
        m_historySource.clear();
        return;
    }
    core::ObjectQuery q;
    q.resource = m_shown.toStdString();
    q.namespace_ = m_model.row(row).namespace_();
    q.name = m_model.row(row).name();
    m_historySource.show(q, uid);
}

} // namespace fieldscope::app
