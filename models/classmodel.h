#pragma once
// The Class view's models (docs/lessons.md, "Running a class"): what the students of a class sent
// to the sandbox's API server, from its audit log. ClassStudentsModel lists every student of the
// roster (requests, writes, refused writes, the last write's object and time); ClassRaceModel lists
// the writes on one object in the order they arrived (a round reads top down: the winner, then the
// refused), each named with its student, the refused ones marked with the server's code and
// message: the presenter's live race.
//
// Both live on the GUI thread and are fed batches (addRequests) that a worker read from the audit
// log (app/services/classfeed.h): a batch is one dataChanged over the rows it touched, or one
// insert, never a reset, so the selection and the scroll position survive a flood. Everything in a
// ClassActivity came from a student (names, object names, messages): views show it as plain text.
#include <QAbstractTableModel>
#include <QDateTime>
#include <QHash>
#include <QList>
#include <QStringList>

#include <vector>

namespace fieldscope::models {

// One request a student sent, as the Class view shows it.
struct ClassActivity {
    QDateTime time;
    QString student;
    QString verb;            // get, list, watch, create, update, patch, delete
    QString object;          // "configmaps/class/demo" ("" for a list of a whole collection)
    int code = 0;            // the HTTP status the server answered
    QString resourceVersion; // of the version a write made, when the audit event has it
    QString fieldManager;
    QString reason; // a refusal's message
    bool write = false;
    bool refused = false; // a write answered >= 400
};

class ClassStudentsModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Column {
        NameColumn,
        RequestsColumn,
        WritesColumn,
        RefusedColumn,
        LastObjectColumn,
        LastWriteColumn,
        ColumnCount
    };
    enum Role {
        SortRole = Qt::UserRole + 500, // numbers as numbers, times as times
        RefusedCountRole,              // qint64
    };

    explicit ClassStudentsModel(QObject *parent = nullptr);

    // The class's students in roster order. Counts of names still on it are kept; rows of names
    // no longer on it go, new names are appended.
    void setRoster(const QStringList &names);
    // Requests of names not on the roster are ignored (a name outside the class is no student).
    void addRequests(const QList<ClassActivity> &batch);
    // No class: no rows.
    void clear();
    qint64 totalRequests() const { return m_total; }
    qint64 totalRefused() const;
    int rowOf(const QString &name) const { return m_rowOf.value(name, -1); }

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    struct Row {
        QString name;
        qint64 requests = 0, writes = 0, refused = 0;
        QString lastObject;
        QDateTime lastWrite;
    };
    std::vector<Row> m_rows;
    QHash<QString, int> m_rowOf;
    qint64 m_total = 0;
};

class ClassRaceModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Column {
        TimeColumn,
        StudentColumn,
        OutcomeColumn,
        ResourceVersionColumn,
        ManagerColumn,
        MessageColumn,
        ColumnCount
    };
    enum Role { RefusedRole = Qt::UserRole + 520 }; // bool
    // The newest writes kept; older ones leave at the top.
    static constexpr int kMaxRows = 500;

    explicit ClassRaceModel(QObject *parent = nullptr);

    // The object the race is about ("configmaps/class/demo"); another object starts an empty list.
    void setObject(const QString &object);
    const QString &object() const { return m_object; }
    // Writes on the object are appended in the order given; everything else is ignored.
    void addRequests(const QList<ClassActivity> &batch);
    void clear();
    int versions() const { return m_versions; }
    int refusals() const { return m_refusals; }

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    QString m_object;
    std::vector<ClassActivity> m_rows;  // newest first
    int m_versions = 0, m_refusals = 0; // since setObject, including rows that left
};

} // namespace fieldscope::models
