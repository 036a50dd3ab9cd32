#pragma once
// Asks whether a kubeconfig's exec credential plugin may run (it is an arbitrary program).
#include <QString>

class QWidget;

namespace fieldscope::widgets {

bool askExecPluginConsent(QWidget *parent, const QString &kubeconfigFile, const QString &commandLine);

} // namespace fieldscope::widgets
