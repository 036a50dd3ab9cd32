#include "widgets/consentdialog.h"

#include <QAbstractButton>
#include <QCoreApplication>
#include <QMessageBox>

namespace fieldscope::widgets {

namespace {
QString tr(const char *text)
{
    return QCoreApplication::translate("ConsentDialog", text);
}
} // namespace

bool askExecPluginConsent(QWidget *parent, const QString &kubeconfigFile, const QString &commandLine)
{
    QMessageBox box(parent);
    box.setObjectName(QStringLiteral("execConsentDialog"));
    box.setIcon(QMessageBox::Warning);
    box.setWindowTitle(tr("Run a credential plugin?"));
    box.setText(tr("The kubeconfig <b>%1</b> asks Fieldscope to run this program to get credentials:").arg(kubeconfigFile.toHtmlEscaped()));
    box.setInformativeText(QStringLiteral("<pre>%1</pre>").arg(commandLine.toHtmlEscaped())
                           + tr("It runs with your rights. Allow it only if you trust this kubeconfig. "
                                "Your answer is remembered for this file and command."));
    box.setStandardButtons(QMessageBox::Yes | QMessageBox::No);
    box.setDefaultButton(QMessageBox::No);
    box.button(QMessageBox::Yes)->setText(tr("Allow"));
    box.button(QMessageBox::No)->setText(tr("Deny"));
    return box.exec() == QMessageBox::Yes;
}

} // namespace fieldscope::widgets
