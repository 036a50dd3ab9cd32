#pragma once
// ClassView: the window's Class view (docs/lessons.md, "Running a class"): a banner saying that a
// class runs and where students reach the API server (an address beyond this machine is shown for
// as long as the class runs), the students of the roster with their requests, writes and refused
// writes (models::ClassStudentsModel), and the live race on one object: its writes as they
// arrive, the newest kept in sight, each named with its student, the refused ones marked
// (models::ClassRaceModel). The race follows the object written last until the person picks one.
// Presenter mode makes the race large and gives it the whole view. Everything students chose
// (names, objects, messages) is shown as plain text. It knows models and views only:
// app/gui/classlauncher.h feeds it. Lives on the GUI thread.
#include <QWidget>

class QComboBox;
class QLabel;
class QSortFilterProxyModel;
class QSplitter;
class QTableView;

namespace fieldscope::models {
class ClassRaceModel;
class ClassStudentsModel;
} // namespace fieldscope::models

namespace fieldscope::widgets {

class ClassView : public QWidget
{
    Q_OBJECT
public:
    explicit ClassView(QWidget *parent = nullptr);

    void setModels(models::ClassStudentsModel *students, models::ClassRaceModel *race);
    // The class runs with this many students until `expires`; `listen` is the address students use
    // beyond this machine ("" = this machine only).
    void showRunning(int students, const QDateTime &expires, const QString &listen);
    // No class runs (`why` says what happened: stopped, expired, none yet).
    void showStopped(const QString &why);
    // A problem reading the audit log; replaced by the next good tick.
    void showProblem(const QString &message);
    // The objects students wrote, newest first; the race follows the first unless one was picked.
    void setRaceObjects(const QStringList &objects);
    void setPresenter(bool on);
    bool isPresenter() const { return m_presenter; }

    QLabel *banner() const { return m_banner; }
    QLabel *summary() const { return m_summary; }
    QTableView *studentsTable() const { return m_students; }
    QTableView *raceTable() const { return m_race; }
    QComboBox *raceObjectBox() const { return m_raceObject; }
    // The counts under the tables ("7 versions, 23 refused").
    void updateCounts();

Q_SIGNALS:
    // The race should show this object (picked, or the newest written while none was picked).
    void raceObjectChosen(const QString &object);

private:
    void applyFonts();
    void applyColumnWidths(double scale);

    models::ClassStudentsModel *m_studentsModel = nullptr;
    models::ClassRaceModel *m_raceModel = nullptr;
    QSortFilterProxyModel *m_proxy;
    QLabel *m_banner;
    QLabel *m_summary;
    QLabel *m_raceCounts;
    QComboBox *m_raceObject;
    QTableView *m_students;
    QTableView *m_race;
    QSplitter *m_split;
    bool m_presenter = false;
    bool m_followRace = true; // the race was scrolled to its newest row
    bool m_picked = false;    // the person chose the race's object: it no longer follows the newest
};

} // namespace fieldscope::widgets
