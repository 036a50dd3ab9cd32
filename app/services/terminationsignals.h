#pragma once
// SIGTERM, SIGINT and SIGHUP (logout, `kill`, a session manager, Ctrl-C in the terminal that
// started the window) as a Qt signal on the GUI thread, so the window can quit in order: drafts
// kept, the recorder's last batch committed, the sandbox stopped. Without it the
// default action ends the process on the spot.
#include <QObject>

class QSocketNotifier;

namespace fieldscope::app {

class TerminationSignals : public QObject
{
    Q_OBJECT
public:
    // One per process; installs the handlers, and restores the defaults when destroyed.
    explicit TerminationSignals(QObject *parent = nullptr);
    ~TerminationSignals() override;

    static const char *name(int signal); // "SIGTERM"

Q_SIGNALS:
    void received(int signal);

private:
    QSocketNotifier *m_notifier = nullptr;
};

} // namespace fieldscope::app
