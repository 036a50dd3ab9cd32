#pragma once
// HistoryFileController: `fieldscope --open FILE`. Shows a recorded history (a history database,
// or a JSON Lines export: docs/history-format.md) without a cluster: the recorded resource kinds,
// a table of the recorded objects (their last recorded state; deleted ones struck through), and the detail pane with
// Summary, YAML, Ownership and History working as they do live. The file is read (and an export imported into a scratch
// database) on a worker thread, which owns what it uses: closing the tab while it reads returns at
// once, and the read gives up at its next object. Lives on the GUI thread.
#include "app/services/historysource.h"
#include "models/objecthistorymodel.h"
#include "models/objecttablemodel.h"
#include "models/resourcekindsmodel.h"

#include <QFutureWatcher>
#include <QObject>
#include <QPointer>
#include <QTemporaryDir>

#include <atomic>
#include <functional>
#include <map>
#include <memory>

namespace fieldscope::widgets {
class ClusterView;
}

namespace fieldscope::app {

struct OpenedHistory {
    QString error;
    QString databasePath;
    std::vector<models::ResourceKind> kinds;
    std::map<QString, std::vector<core::ObjectVersion>> objects; // by qualified resource name
    // Objects whose last recorded event is their deletion: uid -> its resourceVersion, by kind.
    std::map<QString, std::map<std::string, std::string>> deletedAt;
    // Objects (or kinds) left out because their stored rows cannot be read: "name: reason".
    QStringList unreadable;
};

// Reads FILE (a .jsonl export is imported into scratchDir/import.db). Blocking: worker thread.
// Gives up (with an error) between two objects once `abandoned` is set.
OpenedHistory openHistoryFile(const QString &file, const QString &scratchDir,
                              const std::atomic<bool> *abandoned = nullptr);

class HistoryFileController : public QObject
{
    Q_OBJECT
public:
    explicit HistoryFileController(widgets::ClusterView *view, QObject *parent = nullptr);
    ~HistoryFileController() override;

    void open(const QString &file);
    // Shows the recorded objects of RESOURCE (plural, kind or qualified name); "" = the first.
    void showResource(const QString &resource);

    bool isLoaded() const { return m_loaded; }
    widgets::ClusterView *view() const { return m_view; }
    models::ObjectTableModel *model() { return &m_model; }
    models::ObjectHistoryModel *historyModel() { return &m_historyModel; }
    HistorySource *historySource() { return &m_historySource; }
    QString currentResource() const { return m_shown; }
    // Tests: runs on the worker thread before the file is read.
    void setOpenProbe(std::function<void()> probe) { m_openProbe = std::move(probe); }

Q_SIGNALS:
    void loaded(); // the file is read and the chosen resource's objects are in the table
    void failed(const QString &message);

private:
    void onOpened(OpenedHistory opened);
    void onCurrentObject(const QString &uid);
    QString resolve(const QString &resource) const;

    QPointer<widgets::ClusterView> m_view;
    QString m_file;
    QString m_displayName; // m_file as shown to people (no password, no query)
    // The imported copy of an export lives as long as the window, or the read still filling it.
    std::shared_ptr<QTemporaryDir> m_scratch = std::make_shared<QTemporaryDir>();
    std::shared_ptr<std::atomic<bool>> m_abandoned = std::make_shared<std::atomic<bool>>(false);
    std::function<void()> m_openProbe;
    OpenedHistory m_opened;
    models::ResourceKindsModel m_kinds;
    models::ObjectTableModel m_model;
    models::ObjectHistoryModel m_historyModel;
    HistorySource m_historySource{&m_historyModel};
    QFutureWatcher<OpenedHistory> m_opening;
    QString m_wanted;
    QString m_shown;
    bool m_loaded = false;
};

} // namespace fieldscope::app
