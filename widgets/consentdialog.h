#pragma once
// Asks whether a kubeconfig's exec credential plugin may run (it is an arbitrary program). The
// question appears inside the cluster's own view, under its connection banner, and shows what
// kube::describeExecInvocation() lists: kubeconfig, context, user, the server the token goes to,
// command, arguments, every variable the kubeconfig adds (flagged when it can change what runs)
// and provideClusterInfo. Every string is shown as plain text (it came from a file someone else
// may have written; the app escapes control and bidi characters before it gets here).
//
// Never waits: the call returns at once and `answered` is called exactly once, on the GUI thread,
// with NotNow when the prompt goes away unanswered (the tab is closed, the app quits).
#include <QString>
#include <QStringList>

#include <functional>

class QWidget;

namespace fieldscope::widgets {

enum class ConsentChoice {
    Allow,
    Deny,
    NotNow,
};

struct ExecConsentQuestion {
    QString kubeconfigFile; // named in the title
    QString details;        // "label: value" lines, escaped
    QStringList warnings;   // one line per variable that can change what runs
};

// Returns the prompt (a child of HOST), or null when HOST has no box layout to show it in (then
// `answered` has been called with NotNow: never run a program nobody agreed to).
QWidget *askExecPluginConsent(QWidget *host, const ExecConsentQuestion &question,
                              std::function<void(ConsentChoice)> answered);

// Earlier versions kept "record Secret values" per context name, which another cluster may share.
// Asks once, inside the cluster's view under its banner, naming context and server: keep
// recording Secret values for this cluster? `answered(true)` keeps, `answered(false)` stops;
// not called when the prompt goes away unanswered (the question comes back next time).
QWidget *askKeepRecordingSecretValues(QWidget *host, const QString &context, const QString &server,
                                      std::function<void(bool)> answered);

} // namespace fieldscope::widgets
