#pragma once
// StartClassDialog: what Class → Start Class from a Roster… asks: the roster file (one student a
// line), how long the students' identities last, where their kubeconfigs go, and an optional
// address beyond this machine where students reach the sandbox's API server (left empty, the class
// stays on this machine). It only asks: app/gui/classlauncher.h starts the class. GUI thread.
#include <QDialog>

class QLineEdit;
class QSpinBox;

namespace fieldscope::widgets {

class StartClassDialog : public QDialog
{
    Q_OBJECT
public:
    explicit StartClassDialog(const QString &defaultOutDir, QWidget *parent = nullptr);

    QString rosterFile() const;
    int expiresHours() const;
    QString listen() const;
    QString outDir() const;

    QLineEdit *rosterEdit() const { return m_roster; }
    QLineEdit *listenEdit() const { return m_listen; }

private:
    QLineEdit *m_roster;
    QSpinBox *m_hours;
    QLineEdit *m_listen;
    QLineEdit *m_out;
};

} // namespace fieldscope::widgets
