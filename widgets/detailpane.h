#pragma once
// DetailPane: the selected object in tabs: Summary, YAML (with the ownership gutter), Ownership
// (field tree + manager legend), History (recorded versions, diffs and field timelines: see
// HistoryPanel) and Events. Parsing, YAML rendering, the ownership join and diffs run on worker threads
// (QtConcurrent); results come back by value and are dropped when a newer request superseded
// them. Lives on the GUI thread.
#include "models/objectdetail.h"
#include "widgets/historypanel.h"

#include <QWidget>

#include <optional>
#include <string>

class QAbstractItemModel;
class QLabel;
class QPushButton;
class QTabWidget;
class QTableView;
class QTextBrowser;
class QTreeView;

namespace fieldscope::core {
struct DriftReport;
}

namespace fieldscope::models {
class ManagerLegendModel;
class ObjectHistoryModel;
class OwnershipTreeModel;
} // namespace fieldscope::models

namespace fieldscope::widgets {

class HistoryPanel;
class YamlView;

class DetailPane : public QWidget
{
    Q_OBJECT
public:
    enum Tab { SummaryTab, YamlTab, OwnershipTab, HistoryTab, EventsTab };
    explicit DetailPane(QWidget *parent = nullptr);
    ~DetailPane() override;

    // Shows (or updates) an object; "" uid clears the pane.
    void showObject(const QString &uid, const QByteArray &json);
    QString uid() const { return m_uid; }
    bool isReady() const { return m_ready; } // the shown object's detail is on screen

    void setEventsModel(QAbstractItemModel *model);
    void setHistoryModel(models::ObjectHistoryModel *model);

    void setCurrentTab(Tab tab);
    // Selects the field at JSON Pointer `pointer` in the Ownership tree and the YAML (a lesson
    // points at what its narrative talks about); false when the shown object has no such field.
    bool highlight(const QString &pointer);
    // Moves the keyboard focus into the current tab's view (Enter on an object in the table).
    void focusCurrentTab();
    // Asks for an editor of the shown object (the YAML tab's Edit button, Ctrl+E); nothing
    // happens while no object is shown.
    void requestEdit();
    // Object → Delete…: the composition root asks, then deletes with preconditions.
    void requestDelete();
    // Ownership tab, "Set only if unchanged…" on a scalar field (JSON Pointer).
    void requestSetIfUnchanged(const QString &pointer);
    // The shown object's drift, computed off the GUI thread (app/gui/clusterdrift.h): the
    // Ownership tab marks each drifted field; a report about another object marks nothing.
    void setDrift(const core::DriftReport &report);
    // Whether objects here can be edited (a live cluster: yes; a recorded history: no).
    void setEditable(bool editable);
    static bool tabFromName(const QString &name, Tab *tab); // summary|yaml|ownership|history|events
    QTabWidget *tabs() const { return m_tabs; }
    HistoryPanel *historyPanel() const { return m_historyPanel; }
    const models::ObjectDetail &detail() const { return m_detail; }

Q_SIGNALS:
    void ready(); // a requested object's detail is shown
    void editRequested(const QString &uid);
    // The History tab's Revert to this version / Undo this change (widgets/historypanel.h).
    void revertRequested(const fieldscope::widgets::RevertRequest &request);
    void deleteRequested(const QString &uid);
    // `currentJson`: the value the user sees, as JSON text (the patch tests exactly it).
    void setIfUnchangedRequested(const QString &uid, const QString &pointer, const QString &currentJson);

protected:
    void changeEvent(QEvent *event) override;

private:
    QWidget *buildOwnershipTab();
    QWidget *buildYamlTab();
    void apply(models::ObjectDetail detail);
    void updateWriters();
    void showGuide();
    std::optional<std::string> scalarAt(const QString &pointer) const; // JSON text of a present scalar
    void renderSummary();
    // Keeps the ownership tree and the YAML showing the same field.
    void syncYamlToTree(const QModelIndex &treeIndex);
    void syncTreeToYaml(int line);

    QTabWidget *m_tabs;
    QLabel *m_header;
    QTextBrowser *m_summary;
    YamlView *m_yaml;
    QPushButton *m_edit;
    bool m_editable = false;
    QTreeView *m_ownershipTree;
    bool m_syncing = false; // guards the two-way selection sync against echo
    QTableView *m_legend;
    models::OwnershipTreeModel *m_treeModel;
    models::ManagerLegendModel *m_legendModel;
    models::ObjectHistoryModel *m_historyModel = nullptr;
    HistoryPanel *m_historyPanel;
    QTableView *m_events;
    QString m_uid;
    models::ObjectDetail m_detail;
    bool m_ready = false;
    int m_generation = 0;
    int m_uidSince = 0;          // first request for the shown uid
    int m_appliedGeneration = 0; // the request whose result is on screen
};

} // namespace fieldscope::widgets
