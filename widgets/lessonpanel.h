#pragma once
// LessonPanel: the teacher's side of a lesson, beside the live views. The narrative of the step,
// Back / Next / Reset / Run again, and "what the API server saw": each request of the step and
// its answer in order of arrival, then the outcome and whether it went as the lesson says.
// Presenter mode: larger type, high contrast, Space / Backspace for next / back. A view only: the
// app's LessonController drives it. Lives on the GUI thread.
#include "core/lessons/lesson.h"
#include "core/lessons/lessonreport.h"

#include <QWidget>

class QLabel;
class QPushButton;
class QTableWidget;
class QTextBrowser;
class QShortcut;

namespace fieldscope::widgets {

class LessonPanel : public QWidget
{
    Q_OBJECT
public:
    explicit LessonPanel(QWidget *parent = nullptr);

    void setLesson(const core::Lesson &lesson, const QString &where);
    // Step `index` (0-based), -1 for the lesson's introduction. `report` is null while it runs.
    void showStep(int index, const core::LessonStepReport *report);
    void setBusy(const QString &what); // "" = idle
    void setError(const QString &error);
    // While a class step waits for the students: what it asks them (the lesson file's words, shown
    // as written, line by line) and on which object. Busy until the step's report is shown.
    void showStudentPrompt(const QString &heading, const QString &instruction, const QString &object);

    void setPresenter(bool on);
    bool isPresenter() const { return m_presenter; }

    // For tests and the screenshot: the request table and the outcome text.
    QTableWidget *requestTable() const { return m_requests; }
    QString outcomeText() const;
    QString statusText() const; // the busy or error line

Q_SIGNALS:
    void nextRequested();
    void backRequested();
    void resetRequested();
    void runAgainRequested();
    void presenterToggled(bool on);

private:
    void updateButtons();
    void fillRequests(const core::LessonStepReport &report);
    void applyPresenterLook();

    core::Lesson m_lesson;
    int m_index = -1;
    bool m_busy = false;
    bool m_presenter = false;
    QLabel *m_title;
    QLabel *m_stepTitle;
    QLabel *m_where;
    QTextBrowser *m_narrative;
    QTableWidget *m_requests;
    QLabel *m_outcome;
    QLabel *m_status;
    QPushButton *m_back;
    QPushButton *m_next;
    QPushButton *m_reset;
    QPushButton *m_again;
    QPushButton *m_presenterButton;
    QList<QShortcut *> m_presenterKeys;
    QFont m_baseFont;
    QPalette m_basePalette;
};

} // namespace fieldscope::widgets
