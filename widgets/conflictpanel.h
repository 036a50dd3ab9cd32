#pragma once
// ConflictPanel: the fields a server-side apply was refused for (409, FieldManagerConflict), each
// with its owner, the live value and the user's, and the ways out: for every field at once Force
// (take them), Give the fields up (remove them from the buffer) or Co-own (take the live values,
// shared with their owners); or a choice per field (never preselected) and one re-send built from
// the choices (core::EditSession::planResolution). It asks through signals; the EditorWindow
// around it builds the request. See
// https://kubernetes.io/docs/reference/using-api/server-side-apply/#conflicts. Lives on the GUI thread.
#include <QList>
#include <QString>
#include <QStringList>
#include <QWidget>

class QPushButton;
class QTableWidget;

namespace fieldscope::widgets {

struct ConflictRow {
    QString path;    // server syntax, as in the 409
    QString manager; // the current owner: "kubectl-edit (Update, apps/v1)"
    QString liveValue;
    QString yourValue;
};

class ConflictPanel : public QWidget
{
    Q_OBJECT
public:
    explicit ConflictPanel(QWidget *parent);

    void setRows(const QList<ConflictRow> &rows);
    QList<ConflictRow> rows() const { return m_rows; }

Q_SIGNALS:
    void forceRequested();
    void giveUpRequested(const QStringList &paths); // every conflicting field, each once
    void coOwnRequested(const QStringList &paths);
    // The per-field choices: give up `giveUp`, co-own `coOwn`, force the rest when `force`.
    void rowChoicesMade(const QStringList &giveUp, const QStringList &coOwn, bool force);

private:
    QWidget *buildRowChoices();
    QStringList paths() const;
    void updateSendChoices();
    void sendRowChoices();

    QTableWidget *m_table;
    QPushButton *m_sendChoices = nullptr;
    QList<ConflictRow> m_rows;
};

} // namespace fieldscope::widgets
