#pragma once
// Asks whether a kubeconfig's exec credential plugin may run (it is an arbitrary program). The
// question appears inside the cluster's own view, under its connection banner, naming the file
// and the exact command line; the call returns when the user answers (or the view goes away,
// which is a "no"). Like a modal dialog it runs a local event loop: call it on the GUI thread.
#include <QString>

class QWidget;

namespace fieldscope::widgets {

bool askExecPluginConsent(QWidget *host, const QString &kubeconfigFile, const QString &commandLine);

} // namespace fieldscope::widgets
